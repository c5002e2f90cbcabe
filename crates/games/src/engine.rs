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

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::cards::Card;

#[cfg(test)]
pub(crate) mod checks;
mod dynamic;
mod refusal;

pub use dynamic::*;
pub use refusal::*;

pub type SeatNo = usize;

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

/// An event's `data` from its typed payload (each game's `events` types).
pub fn data<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("event data serializes to JSON")
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
    /// The game's `Game::Summary` of the hand as JSON, shown to everyone as the view's
    /// `last_result`.
    pub detail: Value,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub events: Vec<Event>,
    pub money: Vec<Money>,
    pub hand_end: Option<HandResult>,
}

impl Outcome {
    /// Ends a hand of a game that scores points only (no coins move): the public `hand_end`
    /// event carrying `summary`, and the hand's result for the service.
    pub fn end_hand_with_points(
        &mut self,
        hand_no: u32,
        points: Vec<i64>,
        units: Vec<i64>,
        summary: &impl Serialize,
    ) {
        let detail = data(summary);
        self.events
            .push(Event::public("hand_end", None, detail.clone()));
        self.hand_end = Some(HandResult {
            hand_no,
            coins: vec![0; points.len()],
            points,
            units,
            detail,
        });
    }

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

/// What a game's view type tells the platform about the seats around it. The view built for a
/// viewer is the one place that decides what that viewer may see, so the platform's own fields
/// (`seats[].coins_at_table`) are read from it and can never show more than the game allows.
pub trait SeatInfo {
    /// Coins the seat has on the table in the current hand, as this view's viewer may see them.
    fn coins_at_table(&self, _seat: SeatNo) -> Option<i64> {
        None
    }
}

/// The rules of one game. Implementations are pure: no IO, no clock, no randomness.
///
/// Every surface a client sees is a Rust type of the game's own, so that a JSON Schema can be
/// derived from it for the API document: the options, the actions (a `oneOf` tagged by `type`),
/// the view of the state, the templates in `legal_actions` and the hand summary in
/// `last_result`.
pub trait Game: 'static {
    /// Parsed by [`read_options`] (the one options reader: unknown fields and wrong types are
    /// refused with the field's path) and then checked by [`Game::check_options`].
    type Options: Serialize + DeserializeOwned + JsonSchema + Clone;
    type State: Serialize + DeserializeOwned + Clone;
    type Action: Serialize + DeserializeOwned + JsonSchema + Clone;
    /// The state as one seat (or a spectator) may see it.
    type View: Serialize + JsonSchema + SeatInfo;
    /// One entry of the view's `legal_actions`.
    type Legal: Serialize + JsonSchema;
    /// The settlement of a hand as shown in `last_result` (`HandResult::detail`).
    type Summary: Serialize + JsonSchema;

    const NAME: &'static str;
    /// The game's Chinese name as players know it (扯旋, 上饶打炸…), shown by clients.
    const TITLE: &'static str;
    const SEATS: RangeInclusive<usize>;
    /// Whether the game can be played in a coin room (金币场), where the platform moves
    /// `HandResult::units` × stake coins between wallets. Games that stake coins themselves
    /// (`Outcome::money`) cannot.
    const COIN_ROOMS: bool = false;
    /// Whether an escape's penalty is taken from the leaver's wallet (扯旋: the table total,
    /// from the 簸簸 and then the wallet): the service then passes `Game::leave` the wallet as
    /// it is at the escape, read under a lock. Other games' `leave` is passed 0.
    const ESCAPE_TAKES_WALLET: bool = false;
    /// Whether a hand's deal reads the players' wallets and 积分 (`HandStart::wallets`,
    /// `HandStart::scores`; 扯旋: each seat's 簸簸 comes from its wallet, the base from the
    /// table's 积分 levels). The service reads them, under a lock, only for such a game; every
    /// other game is dealt with zeros, which its `start_hand` does not look at.
    const DEAL_READS_PURSE: bool = false;
    /// Whether partners are fixed for the whole match (四副牌升级: opposite seats always score
    /// alike), so a tournament advances the winning pair, not one player.
    const FIXED_PARTNERS: bool = false;

    /// Checks parsed options against each other and the seat count (errors name the field), and
    /// fills defaults that depend on other options. By default there is nothing to check: the
    /// options reader already refused unknown fields and wrong types.
    fn check_options(_opts: &mut Self::Options, _seats: usize) -> Result<(), RuleError> {
        Ok(())
    }
    /// Every [`RuleError::rule`] the game's refusals can carry (its own codes and the
    /// [`Shared`] ones), sorted, without repeats: [`with_shared_codes`] of the game's `Rule`
    /// codes. The API document lists them.
    fn rule_codes() -> Vec<&'static str>;
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
    /// Whether being asked to act would itself tell the table what a hand holds (a 扯胡子
    /// claim window asks exactly the seats holding a pair or a 坎 of the card): then each seat
    /// is shown only itself in `to_act`, and the view says only that a wait is open.
    fn to_act_hidden(_state: &Self::State) -> bool {
        false
    }
    /// Seconds the seats in `to_act` have for the current wait, given the match's turn timeout
    /// (`turn_timeout_secs`). A claim window may be shorter than a turn, a bury longer.
    fn wait_secs(_state: &Self::State, turn_secs: u32) -> u32 {
        turn_secs
    }

    /// Starts the next hand (only called at `Stage::NeedsDeal` with every seat taken).
    fn start_hand(state: &mut Self::State, start: HandStart) -> Outcome;
    fn apply(
        state: &mut Self::State,
        seat: SeatNo,
        action: Self::Action,
        ctx: Ctx,
    ) -> Result<Outcome, RuleError>;
    /// The action taken for a seat in `to_act` when its deadline passes or it is in 托管.
    /// It must always be accepted by `apply`, whatever the seat's wallet holds: a table must
    /// never stop with no way forward.
    fn auto_action(state: &Self::State, seat: SeatNo) -> Self::Action;
    /// The move a server-side bot makes for `seat` (in `to_act`), and the hint shown to a human
    /// in that seat. Like `auto_action` it must always be accepted by `apply`; unlike it, it
    /// tries to play well. It may use only what `seat` can see (its own cards, public play):
    /// never another seat's hidden cards, the undealt deck or the bottom it has not seen.
    fn bot_action(state: &Self::State, seat: SeatNo) -> Self::Action {
        Self::auto_action(state, seat)
    }
    /// A seated player leaves during the match (逃跑 when it is still in the hand): the game's
    /// penalty. `wallet` is the leaver's wallet balance now (coins on the table not counted)
    /// when [`Game::ESCAPE_TAKES_WALLET`], else 0: a penalty taken from the wallet takes at
    /// most that, so the hand's record says what the ledger moves. Afterwards the seat is
    /// empty; the match either waits for a new player (`NeedsDeal`), plays on, or is
    /// `Finished`.
    fn leave(state: &mut Self::State, seat: SeatNo, ctx: Ctx, wallet: i64) -> Outcome;

    /// The game state as `viewer` may see it (`None`: a spectator).
    fn view(state: &Self::State, viewer: Option<SeatNo>) -> Self::View;
    /// The actions `seat` may send now.
    fn legal_actions(state: &Self::State, seat: SeatNo) -> Vec<Self::Legal>;

    /// The JSON Schema of the `data` of every event kind the game emits, by kind, each made by
    /// [`schema`] from the type the data is serialized from (`hand_end` / `settlement` from
    /// [`Game::Summary`]). A kind emitted with different shapes has one schema covering them
    /// all. Kept next to the game's `events` types; the random-match test fails on an event
    /// whose kind is missing here or whose data does not validate.
    fn event_schemas() -> BTreeMap<&'static str, Value>;
}

/// Reads a game's options from the client's JSON: `null` is `{}`, and a refusal names the field
/// (`options.ante: invalid type: string "x", expected i64`).
pub fn read_options<T: DeserializeOwned>(raw: &Value) -> Result<T, RuleError> {
    let empty = Value::Object(serde_json::Map::new());
    let raw = match raw {
        Value::Null => &empty,
        Value::Object(_) => raw,
        // serde reads a struct from an array too; options are always named.
        _ => {
            return Err(RuleError::invalid(
                Shared::BadOption,
                "options must be a JSON object",
                "选项须是一个 JSON 对象",
            ));
        }
    };
    deserialize_named(raw, Shared::BadOption, "options", "选项")
}

/// Deserialises `raw`, naming the failing field's path after `what` in the refusal
/// (`options.ante: …`, `action.cards[2]: …`); `what_zh` says what it is in Chinese.
fn deserialize_named<T: DeserializeOwned>(
    raw: &Value,
    rule: Shared,
    what: &str,
    what_zh: &str,
) -> Result<T, RuleError> {
    serde_path_to_error::deserialize(raw).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let at = if path == "." {
            what.to_string()
        } else {
            format!("{what}.{path}")
        };
        RuleError::invalid(
            rule,
            format!("{at}: {inner}"),
            format!("{what_zh} {at} 不合格式：{inner}"),
        )
    })
}

/// Reads and checks a game's options as the service does (seat count included).
pub fn parse_options<G: Game>(seats: usize, raw: &Value) -> Result<G::Options, RuleError> {
    if !G::SEATS.contains(&seats) {
        let (min, max) = (G::SEATS.start(), G::SEATS.end());
        return Err(RuleError::invalid(
            Shared::BadSeatCount,
            format!("{} is played by {min} to {max} seats, not {seats}", G::NAME),
            format!("{} 由 {min} 到 {max} 人玩，不能是 {seats} 人", G::NAME),
        ));
    }
    let mut opts: G::Options = read_options(raw)?;
    G::check_options(&mut opts, seats)?;
    Ok(opts)
}

/// A seat's view as the JSON a client receives.
pub fn view_json<G: Game>(state: &G::State, viewer: Option<SeatNo>) -> Value {
    to_value(&G::view(state, viewer))
}

/// The seat's coins on the table as `viewer`'s view shows them.
pub fn coins_at_table<G: Game>(
    state: &G::State,
    viewer: Option<SeatNo>,
    seat: SeatNo,
) -> Option<i64> {
    G::view(state, viewer).coins_at_table(seat)
}

/// Checks one integer option against its range, naming it in the refusal.
pub fn check_range(name: &str, value: i64, range: RangeInclusive<i64>) -> Result<(), RuleError> {
    if range.contains(&value) {
        Ok(())
    } else {
        let (min, max) = (range.start(), range.end());
        Err(RuleError::invalid(
            Shared::BadOption,
            format!("options.{name} must be from {min} to {max}, got {value}"),
            format!("选项 options.{name} 须在 {min} 到 {max} 之间，现在是 {value}"),
        ))
    }
}

fn to_value<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("game types serialize to JSON")
}
