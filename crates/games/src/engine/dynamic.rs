//! The object-safe face of a [`Game`]: what the service drives without knowing a game's types.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{
    Ctx, Game, HandStart, Outcome, RuleError, SeatInfo, SeatNo, Shared, Stage, deserialize_named,
    parse_options, to_value,
};
use crate::cards::Card;

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
