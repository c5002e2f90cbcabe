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
use serde_json::value::RawValue;

use crate::cards::Card;

pub type SeatNo = usize;

/// Why an action or option set was refused. `detail` and `detail_zh` are shown to the player, so
/// they must name the rule broken and never reveal a card the player may not see; `rule` is the
/// stable code a client keys on, and `cards` the offending cards of the action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    pub kind: RuleErrorKind,
    /// Stable snake_case code of the rule broken; clients key on it. Never changes once shipped.
    /// Always one of the refusing game's [`Game::rule_codes`].
    pub rule: &'static str,
    /// The offending cards of the action (the cards played, discarded or named that break the
    /// rule), empty when the refusal is not about particular cards. Only cards the actor
    /// submitted or holds: never a card the actor may not see.
    pub cards: Vec<Card>,
    /// The refusal in English.
    pub detail: String,
    /// The same in Chinese (simplified), in the game's own terms.
    pub detail_zh: String,
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

/// A set of rule codes: each game's `Rule` enum, the trick-taking games' [`crate::trick::Rule`]
/// and the [`Shared`] codes. Only such enums name a refusal's rule, so every code a game can
/// yield is declared once and listed by its [`Game::rule_codes`].
pub trait RuleCode: Copy + 'static {
    /// Every rule of the set, each once.
    const ALL: &'static [Self];
    /// The stable snake_case code.
    fn code(self) -> &'static str;
}

/// The codes of every rule of `R`.
pub fn codes_of<R: RuleCode>() -> impl Iterator<Item = &'static str> {
    R::ALL.iter().map(|r| r.code())
}

/// A game's [`Game::rule_codes`]: `codes` and the [`Shared`] ones, sorted, without repeats.
pub fn with_shared_codes(codes: impl IntoIterator<Item = &'static str>) -> Vec<&'static str> {
    let mut all: Vec<&'static str> = codes.into_iter().chain(codes_of::<Shared>()).collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// Rules every game can refuse by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shared {
    /// The action JSON does not fit the game's actions (unknown type, missing or unknown field,
    /// wrong type).
    BadAction,
    /// An option is unknown, of the wrong type or out of its range.
    BadOption,
    /// The game is not played by that many seats.
    BadSeatCount,
    /// The seat is not among those to act now.
    NotYourTurn,
    /// No hand is in play: the table waits for the next deal or the match is over.
    NoHandInPlay,
    /// The action names cards the seat does not hold.
    NotInHand,
}

impl RuleCode for Shared {
    const ALL: &'static [Shared] = &[
        Shared::BadAction,
        Shared::BadOption,
        Shared::BadSeatCount,
        Shared::NotYourTurn,
        Shared::NoHandInPlay,
        Shared::NotInHand,
    ];
    fn code(self) -> &'static str {
        match self {
            Shared::BadAction => "bad_action",
            Shared::BadOption => "bad_option",
            Shared::BadSeatCount => "bad_seat_count",
            Shared::NotYourTurn => "not_your_turn",
            Shared::NoHandInPlay => "no_hand_in_play",
            Shared::NotInHand => "not_in_hand",
        }
    }
}

impl RuleError {
    pub fn new(
        kind: RuleErrorKind,
        rule: impl RuleCode,
        detail: impl Into<String>,
        detail_zh: impl Into<String>,
    ) -> Self {
        RuleError {
            kind,
            rule: rule.code(),
            cards: Vec::new(),
            detail: detail.into(),
            detail_zh: detail_zh.into(),
        }
    }
    pub fn invalid(
        rule: impl RuleCode,
        detail: impl Into<String>,
        detail_zh: impl Into<String>,
    ) -> Self {
        Self::new(RuleErrorKind::Invalid, rule, detail, detail_zh)
    }
    pub fn illegal(
        rule: impl RuleCode,
        detail: impl Into<String>,
        detail_zh: impl Into<String>,
    ) -> Self {
        Self::new(RuleErrorKind::Illegal, rule, detail, detail_zh)
    }
    pub fn not_your_turn(
        rule: impl RuleCode,
        detail: impl Into<String>,
        detail_zh: impl Into<String>,
    ) -> Self {
        Self::new(RuleErrorKind::NotYourTurn, rule, detail, detail_zh)
    }
    pub fn insufficient_coins(
        rule: impl RuleCode,
        detail: impl Into<String>,
        detail_zh: impl Into<String>,
    ) -> Self {
        Self::new(RuleErrorKind::InsufficientCoins, rule, detail, detail_zh)
    }
    /// The offending cards: only cards the actor submitted or holds.
    pub fn with_cards(mut self, cards: impl Into<Vec<Card>>) -> Self {
        self.cards = cards.into();
        self
    }
    /// [`Shared::NotInHand`]: `cards` sent from `hand` are not all held. The cards held too few
    /// times are the offending cards; the sentences name none of them (nor the hand).
    pub fn not_in_hand(detail: impl Into<String>, hand: &[Card], cards: &[Card]) -> Self {
        Self::illegal(Shared::NotInHand, detail, "你手里没有这些牌")
            .with_cards(missing(hand, cards))
    }
}

/// The cards of `cards` beyond what `hand` holds (a card sent twice but held once is missing
/// once).
fn missing(hand: &[Card], cards: &[Card]) -> Vec<Card> {
    let mut rest = hand.to_vec();
    cards
        .iter()
        .filter(|c| match rest.iter().position(|h| h == *c) {
            Some(i) => {
                rest.swap_remove(i);
                false
            }
            None => true,
        })
        .copied()
        .collect()
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
    /// most that, so the hand's record says what the ledger moves. Afterwards the seat is empty; the match either waits for a new player
    /// (`NeedsDeal`), plays on, or is `Finished`.
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

/// The JSON Schemas of one game's client-facing types, for the API document.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameSchemas {
    pub options: Value,
    pub action: Value,
    pub state: Value,
    pub legal_action: Value,
    pub last_result: Value,
    /// Event kind → JSON Schema of that event's `data` ([`Game::event_schemas`]).
    pub events: BTreeMap<&'static str, Value>,
}

/// A view rendered for one viewer: the game's `state` as JSON text, and what the platform's
/// seat list may show, read from that same view.
pub struct RenderedView {
    pub state: Box<RawValue>,
    pub coins_at_table: Vec<Option<i64>>,
}

/// A game the service can drive without knowing its types.
pub trait DynGame: Send + Sync {
    fn name(&self) -> &'static str;
    /// [`Game::TITLE`].
    fn title(&self) -> &'static str;
    fn seats(&self) -> RangeInclusive<usize>;
    /// The seat count of every table when the game has only one (tournaments need it).
    fn table_size(&self) -> Option<usize> {
        let s = self.seats();
        (s.start() == s.end()).then_some(*s.start())
    }
    fn coin_rooms(&self) -> bool;
    /// [`Game::FIXED_PARTNERS`].
    fn fixed_partners(&self) -> bool;
    /// [`Game::ESCAPE_TAKES_WALLET`].
    fn escape_takes_wallet(&self) -> bool;
    /// [`Game::DEAL_READS_PURSE`].
    fn deal_reads_purse(&self) -> bool;
    fn options(&self, seats: usize, raw: &Value) -> Result<Value, RuleError>;
    fn deck(&self, options: &Value) -> Result<Vec<Card>, String>;
    fn new_match(&self, options: &Value, seats: usize) -> Result<Box<dyn DynState>, String>;
    /// Reads a stored state back from its JSON text.
    fn load(&self, state: &str) -> Result<Box<dyn DynState>, String>;
    fn schemas(&self) -> GameSchemas;
    /// [`Game::rule_codes`]: every code a refusal of this game can carry, sorted.
    fn rule_codes(&self) -> Vec<&'static str>;
}

/// A loaded match state.
/// `Sync` so that a committed state can be shared by the requests of a process (the server's
/// cache of the newest version of each match).
pub trait DynState: Send + Sync {
    fn stage(&self) -> Stage;
    fn hand_no(&self) -> u32;
    fn phase(&self) -> &'static str;
    fn to_act(&self) -> Vec<SeatNo>;
    fn to_act_hidden(&self) -> bool;
    fn wait_secs(&self, turn_secs: u32) -> u32;
    fn start_hand(&mut self, start: HandStart) -> Outcome;
    /// Decodes and applies an action given as JSON (`{"type": …, …}`).
    fn apply(&mut self, seat: SeatNo, action: &Value, ctx: Ctx) -> Result<Outcome, RuleError>;
    fn auto_action(&self, seat: SeatNo) -> Value;
    /// The move a server-side bot makes for `seat`, also the 提示 (hint) shown to a human there:
    /// always accepted by `apply`, and built only from what `seat` may see.
    fn bot_action(&self, seat: SeatNo) -> Value;
    fn leave(&mut self, seat: SeatNo, ctx: Ctx, wallet: i64) -> Outcome;
    fn view(&self, viewer: Option<SeatNo>) -> RenderedView;
    fn legal_actions(&self, seat: SeatNo) -> Vec<Box<RawValue>>;
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

fn to_raw<T: Serialize>(t: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(t).expect("game types serialize to JSON")
}

/// The JSON Schema of a type clients send (options, actions): as it is read, so a field with
/// a default may be left out.
pub fn schema<T: JsonSchema>() -> Value {
    to_value(&schemars::schema_for!(T))
}

/// The JSON Schema of a type the server sends (views, legal actions, results, event data): as
/// it is written, so every field always present is required.
pub fn written_schema<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    to_value(&generator.into_root_schema_for::<T>())
}

impl<G: Game> DynGame for Registered<G>
where
    G::State: Send + Sync,
{
    fn name(&self) -> &'static str {
        G::NAME
    }
    fn title(&self) -> &'static str {
        G::TITLE
    }
    fn seats(&self) -> RangeInclusive<usize> {
        G::SEATS
    }
    fn coin_rooms(&self) -> bool {
        G::COIN_ROOMS
    }
    fn fixed_partners(&self) -> bool {
        G::FIXED_PARTNERS
    }
    fn escape_takes_wallet(&self) -> bool {
        G::ESCAPE_TAKES_WALLET
    }
    fn deal_reads_purse(&self) -> bool {
        G::DEAL_READS_PURSE
    }
    fn options(&self, seats: usize, raw: &Value) -> Result<Value, RuleError> {
        parse_options::<G>(seats, raw).map(|o| to_value(&o))
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
    fn schemas(&self) -> GameSchemas {
        GameSchemas {
            options: schema::<G::Options>(),
            action: schema::<G::Action>(),
            state: written_schema::<G::View>(),
            legal_action: written_schema::<G::Legal>(),
            last_result: written_schema::<G::Summary>(),
            events: G::event_schemas(),
        }
    }
    fn rule_codes(&self) -> Vec<&'static str> {
        G::rule_codes()
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
    fn to_act_hidden(&self) -> bool {
        G::to_act_hidden(&self.0)
    }
    fn wait_secs(&self, turn_secs: u32) -> u32 {
        G::wait_secs(&self.0, turn_secs).max(1)
    }
    fn start_hand(&mut self, start: HandStart) -> Outcome {
        G::start_hand(&mut self.0, start)
    }
    fn apply(&mut self, seat: SeatNo, action: &Value, ctx: Ctx) -> Result<Outcome, RuleError> {
        let action: G::Action = deserialize_named(action, Shared::BadAction, "action", "动作")?;
        G::apply(&mut self.0, seat, action, ctx)
    }
    fn auto_action(&self, seat: SeatNo) -> Value {
        to_value(&G::auto_action(&self.0, seat))
    }
    fn bot_action(&self, seat: SeatNo) -> Value {
        to_value(&G::bot_action(&self.0, seat))
    }
    fn leave(&mut self, seat: SeatNo, ctx: Ctx, wallet: i64) -> Outcome {
        G::leave(&mut self.0, seat, ctx, wallet)
    }
    fn view(&self, viewer: Option<SeatNo>) -> RenderedView {
        let view = G::view(&self.0, viewer);
        let seats = *G::SEATS.end();
        RenderedView {
            state: to_raw(&view),
            coins_at_table: (0..seats).map(|s| view.coins_at_table(s)).collect(),
        }
    }
    fn legal_actions(&self, seat: SeatNo) -> Vec<Box<RawValue>> {
        G::legal_actions(&self.0, seat).iter().map(to_raw).collect()
    }
    fn save(&self) -> String {
        serde_json::to_string(&self.0).expect("game states serialize to JSON")
    }
    fn fork(&self) -> Box<dyn DynState> {
        Box::new(Loaded::<G>(self.0.clone()))
    }
}

/// Checks of rule sets and refusals for the engines' tests.
#[cfg(test)]
pub(crate) mod checks {
    use std::collections::BTreeSet;

    use super::{Ctx, Game, HandStart, RuleCode, RuleError, SeatNo, Stage};
    use crate::cards::Card;
    use crate::test_rng::Rng;

    /// `ordinal` is an exhaustive `match` numbering every variant of `R` (a new variant does not
    /// compile until it is numbered there): `R::ALL` must hold each variant once at its number,
    /// with distinct snake_case codes.
    pub(crate) fn rule_set<R: RuleCode + PartialEq + std::fmt::Debug>(ordinal: fn(R) -> usize) {
        for (i, &r) in R::ALL.iter().enumerate() {
            assert_eq!(ordinal(r), i, "{r:?} is not at its place in ALL");
        }
        let mut codes: Vec<&str> = R::ALL.iter().map(|r| r.code()).collect();
        for c in &codes {
            assert!(is_code(c), "{c} is not snake_case");
        }
        codes.sort_unstable();
        let n = codes.len();
        codes.dedup();
        assert_eq!(codes.len(), n, "two rules share a code");
    }

    /// `^[a-z][a-z0-9_]*$`
    fn is_code(c: &str) -> bool {
        c.starts_with(|ch: char| ch.is_ascii_lowercase())
            && c.chars()
                .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
    }

    pub(crate) fn has_cjk(s: &str) -> bool {
        s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    }

    /// A refusal of `G` as every refusal must be: a code `G` lists, both sentences.
    pub(crate) fn refusal<G: Game>(e: &RuleError) {
        assert!(
            G::rule_codes().contains(&e.rule),
            "{}: {} is not among its rule codes ({})",
            G::NAME,
            e.rule,
            e.detail
        );
        assert!(
            !e.detail.is_empty(),
            "{}: {} has no detail",
            G::NAME,
            e.rule
        );
        assert!(
            has_cjk(&e.detail_zh),
            "{}: {} has no Chinese detail: {:?}",
            G::NAME,
            e.rule,
            e.detail_zh
        );
    }

    /// Plays `hands` hands of `G` (new matches when one finishes), sending at every step
    /// `random`'s action (mostly refused) for a seat that is usually among those to act, and
    /// every few steps a bot's move so that every phase is reached. Every refusal must be
    /// [`refusal`]-shaped, name only cards the action sent and leave the state as it was.
    /// Returns the codes refused with.
    pub(crate) fn random_refusals<G: Game>(
        opts: G::Options,
        seats: usize,
        hands: usize,
        rng: &mut Rng,
        random: impl Fn(&G::State, SeatNo, &mut Rng) -> G::Action,
    ) -> BTreeSet<&'static str> {
        let ctx = Ctx { now_ms: 0 };
        let mut seen = BTreeSet::new();
        let mut st = G::new_match(opts.clone(), seats);
        for _ in 0..hands {
            if G::stage(&st) == Stage::Finished {
                st = G::new_match(opts.clone(), seats);
            }
            let mut deck = G::deck(&opts);
            let mut seed = [0u8; 32];
            seed[..8].copy_from_slice(&rng.next().to_le_bytes());
            crate::shuffle::shuffle(&mut deck, &seed);
            G::start_hand(
                &mut st,
                HandStart {
                    deck,
                    ctx,
                    wallets: (0..seats).map(|_| rng.range(0, 3_000)).collect(),
                    scores: vec![0; seats],
                },
            );
            let mut steps = 0;
            while G::stage(&st) == Stage::InHand {
                steps += 1;
                assert!(steps < 20_000, "{}: the hand must end", G::NAME);
                let to_act = G::to_act(&st);
                let seat = match to_act.len() {
                    n if n > 0 && rng.chance(85) => to_act[rng.below(n)],
                    _ => rng.below(seats),
                };
                let before = serde_json::to_string(&st).expect("state serializes");
                let action = random(&st, seat, rng);
                let sent = cards_in(&super::to_value(&action));
                if let Err(e) = G::apply(&mut st, seat, action, ctx) {
                    refusal::<G>(&e);
                    assert!(
                        is_part_of(&e.cards, &sent),
                        "{}: {} names cards {:?} beyond those sent {sent:?}",
                        G::NAME,
                        e.rule,
                        e.cards
                    );
                    let after = serde_json::to_string(&st).expect("state serializes");
                    assert_eq!(before, after, "{}: a refusal changed the state", G::NAME);
                    seen.insert(e.rule);
                }
                let to_act = G::to_act(&st);
                if !to_act.is_empty() && rng.chance(35) {
                    let seat = to_act[rng.below(to_act.len())];
                    let bot = G::bot_action(&st, seat);
                    if let Err(e) = G::apply(&mut st, seat, bot, ctx) {
                        panic!("{}: the bot's move was refused: {}", G::NAME, e.detail);
                    }
                }
            }
        }
        seen
    }

    /// Every card named in a JSON value.
    fn cards_in(v: &serde_json::Value) -> Vec<Card> {
        match v {
            serde_json::Value::String(s) => Card::parse(s).into_iter().collect(),
            serde_json::Value::Array(a) => a.iter().flat_map(cards_in).collect(),
            serde_json::Value::Object(o) => o.values().flat_map(cards_in).collect(),
            _ => Vec::new(),
        }
    }

    /// Whether `part` is a sub-multiset of `whole`.
    fn is_part_of(part: &[Card], whole: &[Card]) -> bool {
        super::missing(whole, part).is_empty()
    }

    #[test]
    fn every_game_lists_its_codes_sorted_with_the_shared_ones() {
        for g in crate::all() {
            let codes = g.rule_codes();
            assert!(
                codes.windows(2).all(|w| w[0] < w[1]),
                "{}: sorted, no repeats",
                g.name()
            );
            for c in &codes {
                assert!(is_code(c), "{}: {c}", g.name());
            }
            for shared in super::codes_of::<super::Shared>() {
                assert!(codes.contains(&shared), "{}: {shared}", g.name());
            }
        }
    }

    /// A game that says its deal reads no wallet or 积分 ([`Game::DEAL_READS_PURSE`]) is dealt
    /// alike whatever they are: the service deals it with zeros and reads nothing.
    #[test]
    fn a_game_that_reads_no_purse_deals_alike_whatever_the_wallets_and_scores() {
        let mut rng = Rng(20261128);
        for g in crate::all() {
            if g.deal_reads_purse() {
                continue;
            }
            for seats in g.seats() {
                let options = g.options(seats, &serde_json::json!({})).expect("defaults");
                for _ in 0..8 {
                    let mut deck = g.deck(&options).expect("a deck");
                    let mut seed = [0u8; 32];
                    seed[..8].copy_from_slice(&rng.next().to_le_bytes());
                    crate::shuffle::shuffle(&mut deck, &seed);
                    let deal = |wallets: Vec<i64>, scores: Vec<i64>| {
                        let mut st = g.new_match(&options, seats).expect("a match");
                        let outcome = st.start_hand(HandStart {
                            deck: deck.clone(),
                            ctx: Ctx { now_ms: 0 },
                            wallets,
                            scores,
                        });
                        (st.save(), outcome)
                    };
                    let wallets = (0..seats).map(|_| rng.range(0, 5_000)).collect();
                    let scores = (0..seats).map(|_| rng.range(0, 400) - 200).collect();
                    assert_eq!(
                        deal(vec![0; seats], vec![0; seats]),
                        deal(wallets, scores),
                        "{} at {seats} seats",
                        g.name()
                    );
                }
            }
        }
    }

    #[test]
    fn every_game_has_its_own_name_and_a_chinese_title() {
        let mut names = BTreeSet::new();
        for g in crate::all() {
            assert!(is_code(g.name()), "{}", g.name());
            assert!(names.insert(g.name()), "{} is registered twice", g.name());
            assert!(has_cjk(g.title()), "{}: {:?}", g.name(), g.title());
        }
    }

    #[test]
    fn not_in_hand_names_only_the_cards_held_too_few_times() {
        let c = |s: &str| Card::parse(s).unwrap();
        let hand = [c("3S"), c("4S"), c("4S")];
        let sent = [c("4S"), c("3S"), c("3S"), c("4S"), c("RJ")];
        let e = RuleError::not_in_hand("you do not hold those cards", &hand, &sent);
        assert_eq!(e.rule, "not_in_hand");
        assert_eq!(e.cards, vec![c("3S"), c("RJ")]);
        assert!(has_cjk(&e.detail_zh));
        assert_eq!(e.to_string(), "you do not hold those cards");
    }

    #[test]
    fn shared_rules_are_listed_once() {
        use super::Shared;
        rule_set::<Shared>(|r| match r {
            Shared::BadAction => 0,
            Shared::BadOption => 1,
            Shared::BadSeatCount => 2,
            Shared::NotYourTurn => 3,
            Shared::NoHandInPlay => 4,
            Shared::NotInHand => 5,
        });
    }
}
