//! The one interface between the service and every game.
//!
//! A match is a state machine over many hands. The service never looks inside a state: it asks
//! the engine who must act (`to_act`, several seats at once for simultaneous phases and claim
//! windows), applies one action at a time for one seat, stores the state as JSON, and carries
//! out what the engine returns: events (each with the seats allowed to see it), coin movements,
//! and, when a hand ends, its settlement. Everything the engine needs from the outside world
//! (the shuffled deck, the time, wallet balances at the start of a hand) comes in as arguments,
//! so the same inputs always give the same states, events and settlements.
//!
//! `docs/architecture.md` shows how each of the five games maps onto this trait.

use std::ops::RangeInclusive;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::cards::Card;

pub type SeatNo = usize;

/// Why an action or option set was refused. `detail` is shown to the player, so it must name the
/// rule broken and never reveal a card the player may not see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    pub kind: RuleErrorKind,
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleErrorKind {
    /// The input has the wrong shape (unknown action type, bad field, bad option value).
    Invalid,
    /// Well formed, but the rules do not allow it now.
    Illegal,
    /// The seat is not among those to act.
    NotYourTurn,
    /// The seat does not have the coins the action needs.
    InsufficientCoins,
}

impl RuleError {
    pub fn invalid(detail: impl Into<String>) -> Self {
        RuleError {
            kind: RuleErrorKind::Invalid,
            detail: detail.into(),
        }
    }
    pub fn illegal(detail: impl Into<String>) -> Self {
        RuleError {
            kind: RuleErrorKind::Illegal,
            detail: detail.into(),
        }
    }
    pub fn not_your_turn(detail: impl Into<String>) -> Self {
        RuleError {
            kind: RuleErrorKind::NotYourTurn,
            detail: detail.into(),
        }
    }
    pub fn insufficient_coins(detail: impl Into<String>) -> Self {
        RuleError {
            kind: RuleErrorKind::InsufficientCoins,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

/// The outside world at the moment of one engine call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ctx {
    /// Unix time in milliseconds, as the service's clock read it for this request.
    pub now_ms: i64,
}

/// What the service supplies when a hand starts.
#[derive(Clone, Debug)]
pub struct HandStart {
    /// The game's whole deck (`Game::deck`) in dealing order: shuffled by the committed seed, or
    /// the admin's fixed deck.
    pub deck: Vec<Card>,
    pub ctx: Ctx,
    /// Each seat's wallet balance before the hand (games that stake coins need it).
    pub wallets: Vec<i64>,
    /// Each seat's 积分 in this game before the hand (games whose stakes depend on level).
    pub scores: Vec<i64>,
}

/// Who may see an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Visibility {
    All,
    Seats(Vec<SeatNo>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub kind: &'static str,
    /// The seat the event is about, if any.
    pub seat: Option<SeatNo>,
    pub data: Value,
    pub to: Visibility,
}

impl Event {
    pub fn public(kind: &'static str, seat: Option<SeatNo>, data: Value) -> Event {
        Event {
            kind,
            seat,
            data,
            to: Visibility::All,
        }
    }
    pub fn private(kind: &'static str, seat: SeatNo, data: Value) -> Event {
        Event {
            kind,
            seat: Some(seat),
            data,
            to: Visibility::Seats(vec![seat]),
        }
    }
}

/// A coin movement the service turns into one balanced ledger transaction. Within one hand the
/// stakes a game takes equal what it pays out plus what goes to the house.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Money {
    /// From the seat's wallet into the match escrow (fails as `insufficient_coins` when the
    /// wallet lacks it).
    Stake { seat: SeatNo, amount: i64 },
    /// From the match escrow back to the seat's wallet.
    Payout { seat: SeatNo, amount: i64 },
    /// From the match escrow to the house: a penalty paid out of what the seat had staked.
    Forfeit { seat: SeatNo, amount: i64 },
    /// From the seat's wallet to the house, no more than the wallet holds.
    Penalty { seat: SeatNo, amount: i64 },
}

/// The settlement of one hand.
#[derive(Clone, Debug, PartialEq)]
pub struct HandResult {
    pub hand_no: u32,
    /// 积分 change per seat. Zero-sum unless the rules give a bonus (escape) or fine.
    pub points: Vec<i64>,
    /// Zero-sum units each seat won (+) or paid (−) that a coin room (金币场) multiplies by its
    /// stake: the points without any non-zero-sum bonus. All zero for games that move coins
    /// themselves through `Outcome::money`.
    pub units: Vec<i64>,
    /// Each seat's net coin change this hand, as the `money` of the hand adds up to.
    pub coins: Vec<i64>,
    /// Game-specific summary, shown to everyone as the view's `last_result`.
    pub detail: Value,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub events: Vec<Event>,
    pub money: Vec<Money>,
    pub hand_end: Option<HandResult>,
}

impl Outcome {
    pub fn merge(&mut self, other: Outcome) {
        self.events.extend(other.events);
        self.money.extend(other.money);
        if other.hand_end.is_some() {
            self.hand_end = other.hand_end;
        }
    }
}

/// Where a match stands, as far as the service needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Between hands (or before the first): the service deals the next hand once every seat is
    /// taken.
    NeedsDeal,
    /// A hand is being played; `to_act` says who may act.
    InHand,
    /// The match is over; no more hands.
    Finished,
}

/// The rules of one game. Implementations are pure: no IO, no clock, no randomness.
pub trait Game: 'static {
    type Options: Serialize + DeserializeOwned + Clone;
    type State: Serialize + DeserializeOwned + Clone;
    type Action: Serialize + DeserializeOwned + Clone;

    const NAME: &'static str;
    const SEATS: RangeInclusive<usize>;
    /// Whether the game can be played in a coin room (金币场), where the platform moves
    /// `HandResult::units` × stake coins between wallets. Games that stake coins themselves
    /// (`Outcome::money`) cannot.
    const COIN_ROOMS: bool = false;

    /// Parses the client's options, fills defaults and checks them against the seat count.
    fn options(seats: usize, raw: &Value) -> Result<Self::Options, RuleError>;
    /// The whole deck in a fixed order; the service shuffles a copy for every hand.
    fn deck(opts: &Self::Options) -> Vec<Card>;
    fn new_match(opts: Self::Options, seats: usize) -> Self::State;

    fn stage(state: &Self::State) -> Stage;
    /// Number of the current (or last) hand; 0 before the first.
    fn hand_no(state: &Self::State) -> u32;
    /// A short name of the current phase, shown as the view's `phase`.
    fn phase(state: &Self::State) -> &'static str;
    /// Seats whose action the game is waiting for.
    fn to_act(state: &Self::State) -> Vec<SeatNo>;

    /// Starts the next hand (only called at `Stage::NeedsDeal` with every seat taken).
    fn start_hand(state: &mut Self::State, start: HandStart) -> Outcome;
    fn apply(
        state: &mut Self::State,
        seat: SeatNo,
        action: Self::Action,
        ctx: Ctx,
    ) -> Result<Outcome, RuleError>;
    /// The action taken for a seat in `to_act` when its deadline passes or it is in 托管.
    /// It must be legal.
    fn auto_action(state: &Self::State, seat: SeatNo) -> Self::Action;
    /// A seated player leaves during the match (逃跑): the game's escape penalty. Afterwards the
    /// seat is empty; the match either waits for a new player (`NeedsDeal`) or is `Finished`.
    fn leave(state: &mut Self::State, seat: SeatNo, ctx: Ctx) -> Outcome;

    /// The game state as `viewer` may see it (`None`: a spectator).
    fn view(state: &Self::State, viewer: Option<SeatNo>) -> Value;
    /// Templates of the actions `seat` may send now.
    fn legal_actions(state: &Self::State, seat: SeatNo) -> Vec<Value>;
    /// Coins the seat has on the table in the current hand, for games that stake coins.
    fn table_coins(state: &Self::State, seat: SeatNo) -> Option<i64>;
}

/// A game the service can drive without knowing its types.
pub trait DynGame: Send + Sync {
    fn name(&self) -> &'static str;
    fn seats(&self) -> RangeInclusive<usize>;
    fn coin_rooms(&self) -> bool;
    fn options(&self, seats: usize, raw: &Value) -> Result<Value, RuleError>;
    fn deck(&self, options: &Value) -> Result<Vec<Card>, String>;
    fn new_match(&self, options: &Value, seats: usize) -> Result<Box<dyn DynState>, String>;
    /// Reads a stored state back from its JSON text.
    fn load(&self, state: &str) -> Result<Box<dyn DynState>, String>;
}

/// A loaded match state.
/// `Sync` so that a committed state can be shared by the requests of a process (the server's
/// cache of the newest version of each match).
pub trait DynState: Send + Sync {
    fn stage(&self) -> Stage;
    fn hand_no(&self) -> u32;
    fn phase(&self) -> &'static str;
    fn to_act(&self) -> Vec<SeatNo>;
    fn start_hand(&mut self, start: HandStart) -> Outcome;
    /// Decodes and applies an action given as JSON (`{"type": …, …}`).
    fn apply(&mut self, seat: SeatNo, action: &Value, ctx: Ctx) -> Result<Outcome, RuleError>;
    fn auto_action(&self, seat: SeatNo) -> Value;
    fn leave(&mut self, seat: SeatNo, ctx: Ctx) -> Outcome;
    fn view(&self, viewer: Option<SeatNo>) -> Value;
    fn legal_actions(&self, seat: SeatNo) -> Vec<Value>;
    fn table_coins(&self, seat: SeatNo) -> Option<i64>;
    /// The state as JSON text, for storing.
    fn save(&self) -> String;
    /// An independent copy, equal to `load(save())` without the JSON round trip.
    fn fork(&self) -> Box<dyn DynState>;
}

/// Adapts a typed [`Game`] to the object-safe [`DynGame`].
pub struct Registered<G>(std::marker::PhantomData<fn() -> G>);

impl<G> Registered<G> {
    pub const fn new() -> Self {
        Registered(std::marker::PhantomData)
    }
}

impl<G> Default for Registered<G> {
    fn default() -> Self {
        Self::new()
    }
}

struct Loaded<G: Game>(G::State);

fn to_value<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("game types serialize to JSON")
}

impl<G: Game> DynGame for Registered<G>
where
    G::State: Send + Sync,
{
    fn name(&self) -> &'static str {
        G::NAME
    }
    fn seats(&self) -> RangeInclusive<usize> {
        G::SEATS
    }
    fn coin_rooms(&self) -> bool {
        G::COIN_ROOMS
    }
    fn options(&self, seats: usize, raw: &Value) -> Result<Value, RuleError> {
        if !G::SEATS.contains(&seats) {
            return Err(RuleError::invalid(format!(
                "{} is played by {} to {} seats, not {seats}",
                G::NAME,
                G::SEATS.start(),
                G::SEATS.end()
            )));
        }
        G::options(seats, raw).map(|o| to_value(&o))
    }
    fn deck(&self, options: &Value) -> Result<Vec<Card>, String> {
        let opts: G::Options =
            serde_json::from_value(options.clone()).map_err(|e| e.to_string())?;
        Ok(G::deck(&opts))
    }
    fn new_match(&self, options: &Value, seats: usize) -> Result<Box<dyn DynState>, String> {
        let opts: G::Options =
            serde_json::from_value(options.clone()).map_err(|e| e.to_string())?;
        Ok(Box::new(Loaded::<G>(G::new_match(opts, seats))))
    }
    fn load(&self, state: &str) -> Result<Box<dyn DynState>, String> {
        let s: G::State = serde_json::from_str(state).map_err(|e| e.to_string())?;
        Ok(Box::new(Loaded::<G>(s)))
    }
}

impl<G: Game> DynState for Loaded<G>
where
    G::State: Send + Sync,
{
    fn stage(&self) -> Stage {
        G::stage(&self.0)
    }
    fn hand_no(&self) -> u32 {
        G::hand_no(&self.0)
    }
    fn phase(&self) -> &'static str {
        G::phase(&self.0)
    }
    fn to_act(&self) -> Vec<SeatNo> {
        G::to_act(&self.0)
    }
    fn start_hand(&mut self, start: HandStart) -> Outcome {
        G::start_hand(&mut self.0, start)
    }
    fn apply(&mut self, seat: SeatNo, action: &Value, ctx: Ctx) -> Result<Outcome, RuleError> {
        let action: G::Action = serde_json::from_value(action.clone())
            .map_err(|e| RuleError::invalid(format!("bad action: {e}")))?;
        G::apply(&mut self.0, seat, action, ctx)
    }
    fn auto_action(&self, seat: SeatNo) -> Value {
        to_value(&G::auto_action(&self.0, seat))
    }
    fn leave(&mut self, seat: SeatNo, ctx: Ctx) -> Outcome {
        G::leave(&mut self.0, seat, ctx)
    }
    fn view(&self, viewer: Option<SeatNo>) -> Value {
        G::view(&self.0, viewer)
    }
    fn legal_actions(&self, seat: SeatNo) -> Vec<Value> {
        G::legal_actions(&self.0, seat)
    }
    fn table_coins(&self, seat: SeatNo) -> Option<i64> {
        G::table_coins(&self.0, seat)
    }
    fn save(&self) -> String {
        serde_json::to_string(&self.0).expect("game states serialize to JSON")
    }
    fn fork(&self) -> Box<dyn DynState> {
        Box::new(Loaded::<G>(self.0.clone()))
    }
}
