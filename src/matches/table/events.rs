//! The events the platform writes to a match's log beside the game's (api.md § Events): one
//! type per kind, so that what is written is what the API document says (`openapi` reads
//! [`schemas`]). `hand_ended` carries the view's `last_result`, typed per game there.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// A platform event: its kind, and its data as the type's JSON.
pub trait PlatformEvent: Serialize + ToSchema {
    const KIND: &'static str;
}

/// The match was created.
#[derive(Serialize, ToSchema)]
pub struct Created {
    /// Who created it; null for a table the coin-room lobby or a tournament made.
    pub by: Option<Uuid>,
}

/// A player (or a server-side bot) took the seat.
#[derive(Serialize, ToSchema)]
pub struct Joined<'a> {
    pub user_id: Uuid,
    pub username: &'a str,
    /// Present, true, for a server-side bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<bool>,
}

/// The player left the seat before the first deal.
#[derive(Serialize, ToSchema)]
pub struct Left {
    pub user_id: Uuid,
}

/// The player left during play (逃跑).
#[derive(Serialize, ToSchema)]
pub struct Escaped {
    pub user_id: Uuid,
    /// Present, true, at a tournament table: the player is out of the tournament, and the seat
    /// plays on under 托管.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eliminated: Option<bool>,
}

/// The seat's player ended automatic play (托管).
#[derive(Serialize, ToSchema)]
pub struct Resumed {}

/// The seat's time ran out: the server acted for it.
#[derive(Serialize, ToSchema)]
pub struct Timeout {}

/// The seat is under automatic play (托管) now, after timing out.
#[derive(Serialize, ToSchema)]
pub struct Auto {
    pub auto: bool,
}

/// The match ended without a result.
#[derive(Serialize, ToSchema)]
pub struct Abandoned {
    pub reason: &'static str,
}

/// The next hand's shuffle is committed: its seed's SHA-256, before the deal.
#[derive(Serialize, ToSchema)]
pub struct ShuffleCommitted<'a> {
    pub hand_no: u32,
    pub shuffle_commitment: &'a str,
}

/// The coin room closed: these players hold fewer than `min_coins`.
#[derive(Serialize, ToSchema)]
pub struct RoomDissolved {
    pub min_coins: i64,
    pub short: Vec<Uuid>,
}

impl PlatformEvent for Created {
    const KIND: &'static str = "created";
}
impl PlatformEvent for Joined<'_> {
    const KIND: &'static str = "joined";
}
impl PlatformEvent for Left {
    const KIND: &'static str = "left";
}
impl PlatformEvent for Escaped {
    const KIND: &'static str = "escaped";
}
impl PlatformEvent for Resumed {
    const KIND: &'static str = "resumed";
}
impl PlatformEvent for Timeout {
    const KIND: &'static str = "timeout";
}
impl PlatformEvent for Auto {
    const KIND: &'static str = "auto";
}
impl PlatformEvent for Abandoned {
    const KIND: &'static str = "abandoned";
}
impl PlatformEvent for ShuffleCommitted<'_> {
    const KIND: &'static str = "shuffle_committed";
}
impl PlatformEvent for RoomDissolved {
    const KIND: &'static str = "room_dissolved";
}

/// The kind of the event that carries a finished hand's result (`last_result`).
pub const HAND_ENDED: &str = "hand_ended";

/// Every platform event kind but [`HAND_ENDED`], with the JSON Schema of its data.
pub fn schemas() -> Vec<(&'static str, Value)> {
    fn one<E: PlatformEvent>() -> (&'static str, Value) {
        let schema = serde_json::to_value(E::schema()).expect("a schema is JSON");
        (E::KIND, schema)
    }
    vec![
        one::<Created>(),
        one::<Joined>(),
        one::<Left>(),
        one::<Escaped>(),
        one::<Resumed>(),
        one::<Timeout>(),
        one::<Auto>(),
        one::<Abandoned>(),
        one::<ShuffleCommitted>(),
        one::<RoomDissolved>(),
    ]
}
