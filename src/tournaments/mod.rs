//! 比赛场: knockout tournaments for every game played by a fixed number of seats. Every table is an ordinary match owned by
//! the tournament (`matches.tournament_id`, `hands` = `hands_per_round`); the sweeper starts
//! tournaments at `starts_at` and moves them on when a round's tables have all finished. All
//! state is in the database, so a restart loses nothing.
//!
//! - `bracket`: the bracket's rules as pure code (field, seating, advancing, prize shares);
//! - `settings`: a tournament's settings checked (pure), its game's bracket format;
//! - `store`: the SQL: tournaments, registrations, rounds and their tables;
//! - `lifecycle`: create, edit, cancel, register, withdraw, start now;
//! - `rounds`: the driver: start, seat a round, close it, finish (`tick`);
//! - `view`: a tournament and the list as the API shows them; `standings`: JSON and CSV.

pub mod bracket;
mod lifecycle;
mod rounds;
mod settings;
mod standings;
mod store;
mod view;

pub use lifecycle::{cancel, create, edit, register, start_now, withdraw};
pub use rounds::tick;
pub use settings::DEFAULT_HANDS_PER_ROUND;
pub use standings::{Standing, StandingsPage, standings, standings_csv};
pub use view::{detail, get, list};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// A new knockout tournament (比赛场) of a game played by a fixed number of seats.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTournament {
    #[schema(value_type = crate::api_types::TournamentGame)]
    pub game: String,
    #[schema(max_length = 100)]
    pub name: Option<String>,
    /// Coins each player pays at the start into the prize pool (奖池).
    #[schema(minimum = 0, maximum = 1_000_000_000)]
    pub entry_fee: i64,
    pub starts_at: DateTime<Utc>,
    /// Hands each table plays per round: at least the table size (4, or 3 for chehuzi: a round
    /// is never decided by one deal); default 10, the seed's 局.
    #[schema(minimum = 3, maximum = 100, default = 10)]
    pub hands_per_round: Option<u32>,
    /// The game's options plus `turn_timeout_secs`.
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
}

/// `PATCH /v1/tournaments/{id}`: any of the settings, before the start.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = TournamentEdit)]
pub struct EditTournament {
    #[schema(max_length = 100)]
    pub name: Option<String>,
    #[schema(minimum = 0, maximum = 1_000_000_000)]
    pub entry_fee: Option<i64>,
    pub starts_at: Option<DateTime<Utc>>,
    #[schema(minimum = 3, maximum = 100)]
    pub hands_per_round: Option<u32>,
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
}

/// A tournament as the list shows it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TournamentSummary {
    id: Uuid,
    name: String,
    #[schema(value_type = crate::api_types::TournamentGame)]
    game: String,
    #[schema(value_type = TournamentStatus)]
    status: String,
    entry_fee: i64,
    starts_at: DateTime<Utc>,
    hands_per_round: i32,
    #[schema(value_type = Object)]
    options: Value,
    /// 奖池总数: the entry fees paid.
    prize_pool: i64,
    /// The round being played (0 before the start).
    round: i32,
    /// The first of `winners`.
    winner: Option<Uuid>,
    /// The final's winners: one player, or the pair of fixed partners (升级) who share the pool.
    winners: Vec<Uuid>,
    created_by: Uuid,
    created_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    finished_at: Option<DateTime<Utc>>,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    Registering,
    Running,
    Finished,
    Cancelled,
}

/// A tournament with its players and bracket.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Tournament)]
pub struct TournamentDetail {
    #[serde(flatten)]
    summary: TournamentSummary,
    players: Vec<TournamentPlayer>,
    bracket: Bracket,
    /// Players who advance from each table: 2 for a game with fixed partners (升级: the
    /// winning pair), else 1.
    #[schema(minimum = 1, maximum = 2)]
    advance_per_table: usize,
    /// How many players the field keeps: before the start, of those registered now (the
    /// largest 4^k, 3^k for chehuzi, or 4·2^k for 升级's pairs, not above the registrations:
    /// the latest registrants beyond it are left out and pay nothing); after it, the field.
    field_size: usize,
}

impl TournamentDetail {
    pub fn id(&self) -> Uuid {
        self.summary.id
    }
}

/// A registered player.
#[derive(Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct TournamentPlayer {
    user_id: Uuid,
    username: String,
    /// Registration order, from 1.
    reg_no: i32,
    /// Whether the player is in the field (null before the start).
    in_field: Option<bool>,
    /// The round the player lost, if any.
    eliminated_round: Option<i32>,
    escaped: bool,
}

/// The rounds played so far.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Bracket {
    rounds: Vec<BracketRound>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct BracketRound {
    round: i32,
    tables: Vec<BracketTable>,
}

/// One table of a round: an ordinary match owned by the tournament.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BracketTable {
    table_no: i32,
    match_id: Uuid,
    #[schema(value_type = crate::matches::table::Status)]
    status: String,
    seats: Vec<BracketSeat>,
    /// The first of `advancers`.
    advanced: Option<Uuid>,
    /// Who advanced: one player, or the winning pair.
    advancers: Vec<Uuid>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct BracketSeat {
    seat: usize,
    user_id: Uuid,
    username: Option<String>,
    /// The table's score (积分) of this seat in the round.
    score: i64,
}

/// One page of tournaments, latest start first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TournamentPage {
    tournaments: Vec<TournamentSummary>,
    /// More tournaments below this page.
    has_more: bool,
    /// Pass as `before` for the next page; null on the last.
    next_before: Option<String>,
}

/// A registration for a tournament.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Registration {
    tournament_id: Uuid,
    user_id: Uuid,
    /// Registration order, from 1: earlier registrants keep their place in a full field.
    reg_no: i32,
}
