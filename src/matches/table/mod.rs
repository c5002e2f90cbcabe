//! A match's table: the only place that drives a game engine. Client actions, joins, leaves and
//! the deadline sweeper all go through one pure step (`step.rs`: the next table and what it
//! writes, from the table, an input, the time and what was read for it), committed by one
//! writer (`write.rs`: one statement, over the version the table was loaded at) either alone
//! or inside a transaction that read what the step needed (`exec.rs`). An automatic action
//! takes exactly the path of a client's.

use chrono::{DateTime, Utc};
use games::cards::Card;
use games::engine::{Ctx, HandStart, Money, Outcome, SeatNo, Stage, Visibility};
use games::shuffle::{Seed, commitment, hand_seed, shuffle};
use games::{DynGame, DynState};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use sqlx::postgres::PgRow;
use sqlx::types::Json;
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use super::options::{CoinRoom, PlatformOptions};
use super::view::View;
use super::{autoplay, room};
use crate::error::ApiError;
use crate::ledger::{self, Party, Reason, TxMeta};
use crate::notices::{self, Notice, Via};

mod bots;
pub mod events;
mod exec;
mod outcome;
mod pending;
mod render;
mod step;
mod store;
mod stored;
mod write;

pub use pending::Reads;
use pending::{Pending, PendingEvent};
pub use render::ViewBody;
pub use step::{Halt, Input};
pub use store::NewTable;
use stored::Stored;
pub use write::{Keyed, save_many, transaction_decides};

/// The statements a table sends, for the test that prepares every statement the server can
/// send against the migrated schema: its two loads, and the writer's, one per set of parts,
/// the first with every part. The writer binds every parameter whatever its parts, so each of
/// its statements prepares with the first's parameter types.
pub struct Statements {
    pub loads: [&'static str; 2],
    pub writes: Vec<&'static str>,
}

pub fn statements() -> Statements {
    let mut writes: Vec<&'static str> = (0..1 << write::PARTS).map(write::sql).collect();
    // The longest (every part) first.
    writes.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    writes.dedup();
    Statements {
        loads: [store::LOAD_UNLOCKED.as_str(), store::LOAD_LOCKED.as_str()],
        writes,
    }
}

/// The step's clock for a table loaded or forked now, to the microsecond, as PostgreSQL keeps
/// times: a deadline set from it reads the same from a cached table and from the row.
fn clock() -> DateTime<Utc> {
    chrono::SubsecRound::trunc_subsecs(Utc::now(), 6)
}

/// 32 bytes from the operating system: a step's entropy, from which it shuffles the hands it
/// deals (`games::shuffle::hand_seed` of it and the hand's number).
fn fresh_entropy() -> Result<Seed, ApiError> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("OS randomness: {e}")))?;
    Ok(seed)
}

#[derive(Clone, Debug, Deserialize, serde::Serialize)]
pub struct SeatRow {
    pub seat: usize,
    pub user_id: Uuid,
    pub username: String,
    pub auto: bool,
    pub timeouts: i32,
    /// A server-side bot's seat (always played at once, by `bot_action`).
    #[serde(default)]
    pub bot: bool,
}

/// Where a tournament table sits in its tournament, shown on the table (the seed's playing
/// screen shows 奖池总数). Fixed for the table's life: a table plays one round, and the pool is
/// fixed when the tournament starts.
#[derive(Clone, Debug, Deserialize, serde::Serialize, utoipa::ToSchema)]
pub struct TournamentSeat {
    pub id: Uuid,
    #[schema(minimum = 1)]
    pub round: i32,
    #[schema(minimum = 0)]
    pub table_no: i32,
    /// 奖池总数: the tournament's prize pool.
    #[schema(minimum = 0)]
    pub prize_pool: i64,
}

/// Where a match is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = MatchStatus)]
pub enum Status {
    Waiting,
    Playing,
    Finished,
    Aborted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Playing => "playing",
            Status::Finished => "finished",
            Status::Aborted => "aborted",
        }
    }
    fn parse(s: &str) -> Status {
        match s {
            "playing" => Status::Playing,
            "finished" => Status::Finished,
            "aborted" => Status::Aborted,
            _ => Status::Waiting,
        }
    }
}

pub struct Table {
    id: Uuid,
    game: &'static dyn DynGame,
    seat_count: usize,
    options: Stored,
    platform: PlatformOptions,
    status: Status,
    version: i64,
    /// The version the row had when this table was loaded (or last saved): `save` writes only
    /// over that version.
    loaded_version: i64,
    last_seq: i64,
    action_no: i64,
    state: Box<dyn DynState>,
    deadline_at: Option<DateTime<Utc>>,
    tournament_id: Option<Uuid>,
    tournament: Option<TournamentSeat>,
    fixed_seed: Option<Vec<u8>>,
    fixed_deck: Option<Vec<Card>>,
    commitment: Option<String>,
    last_result: Option<Stored>,
    seats: Vec<Option<SeatRow>>,
    /// The players dealt into the current (or last) hand, by seat (`hands.users`; empty before
    /// the first deal and for hands dealt before that column): its coins and 积分 are theirs,
    /// also when one left the seat during the hand and another took it.
    dealt_in: Vec<Option<Uuid>>,
    /// The step's clock: when the request or sweep that loaded (or forked) the table began.
    now: DateTime<Utc>,
    /// The step's randomness (see [`fresh_entropy`]), fixed for the table's life in memory so
    /// that a step run again after its reads deals the same hands.
    entropy: Seed,
    /// The wallets and 积分 read for this table's steps in its transaction, if any (or, on
    /// the one-statement path, assumed: `assumed`).
    reads: Option<Reads>,
    /// What this process last knew of its players' wallets and 积分: the last transaction's
    /// reads, moved on by what every save since wrote. A client's move whose step needs them
    /// may assume them ([`Table::plan_move`]); its statement then writes only where they still
    /// hold, and otherwise the move takes the transaction, which reads them.
    known: Option<Reads>,
    /// The wallets and 积分 the pending changes assumed (`known` when the step began): the
    /// writer's statement checks them, locked, before it writes anything of this table.
    assumed: Option<Reads>,
    /// What the steps since the load (or the last save) write.
    pending: Pending,
    /// Statements sent to the database for this table since it was loaded (a metric).
    statements: u64,
}

impl Table {
    /// An independent copy of a committed table, to change in a new request: its own clock and
    /// entropy, nothing pending, nothing read (what the process knows of the purses kept).
    pub fn fork(&self) -> Result<Table, ApiError> {
        Ok(Table {
            loaded_version: self.version,
            now: clock(),
            entropy: fresh_entropy()?,
            reads: None,
            assumed: None,
            pending: Pending::default(),
            statements: 0,
            ..self.copy()
        })
    }

    /// A copy of this table as it is, what it has pending and read included: the same table
    /// to run a step on, while this one stays as it is.
    fn copy(&self) -> Table {
        Table {
            id: self.id,
            game: self.game,
            seat_count: self.seat_count,
            options: self.options.clone(),
            platform: self.platform.clone(),
            status: self.status,
            version: self.version,
            loaded_version: self.loaded_version,
            last_seq: self.last_seq,
            action_no: self.action_no,
            state: self.state.fork(),
            deadline_at: self.deadline_at,
            tournament_id: self.tournament_id,
            tournament: self.tournament.clone(),
            fixed_seed: self.fixed_seed.clone(),
            fixed_deck: self.fixed_deck.clone(),
            commitment: self.commitment.clone(),
            last_result: self.last_result.clone(),
            seats: self.seats.clone(),
            dealt_in: self.dealt_in.clone(),
            now: self.now,
            entropy: self.entropy,
            reads: self.reads.clone(),
            known: self.known.clone(),
            assumed: self.assumed.clone(),
            pending: self.pending.clone(),
            statements: self.statements,
        }
    }

    /// Statements this table sent to the database since it was loaded, the load included.
    pub fn statements(&self) -> u64 {
        self.statements
    }

    pub fn seat_of(&self, user: Uuid) -> Option<SeatNo> {
        self.seats
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.user_id == user))
    }

    /// The seats whose action the table waits for (none between hands).
    pub fn to_act(&self) -> Vec<SeatNo> {
        if self.state.stage() == Stage::InHand {
            self.state.to_act()
        } else {
            Vec::new()
        }
    }

    /// [`Table::to_act`] as the player of the hand at `seat` (none: anyone else) may see it:
    /// while who is asked is a secret ([`games::engine::DynState::to_act_hidden`]), only
    /// that seat itself, if it is asked.
    pub fn to_act_for(&self, seat: Option<SeatNo>) -> Vec<SeatNo> {
        let mut to_act = self.to_act();
        if self.state.to_act_hidden() {
            to_act.retain(|&s| Some(s) == seat);
        }
        to_act
    }

    /// The seat whose hand `user` plays: their seat, unless the hand there was dealt to a
    /// player who left it during the hand (a newcomer in that seat sees the table as a
    /// spectator does until the next deal).
    pub fn hand_seat_of(&self, user: Uuid) -> Option<SeatNo> {
        self.seat_of(user)
            .filter(|&seat| self.hand_player(seat) == Some(user))
    }

    pub fn full(&self) -> bool {
        self.seats.iter().all(Option::is_some)
    }

    fn ctx(&self) -> Ctx {
        Ctx {
            now_ms: self.now.timestamp_millis(),
        }
    }

    /// The hand in play or last played (0 before the first deal).
    pub fn hand_no(&self) -> i32 {
        self.state.hand_no() as i32
    }

    /// When the seats asked to act are played for if they have not acted.
    pub fn deadline_at(&self) -> Option<DateTime<Utc>> {
        self.deadline_at
    }

    pub fn id(&self) -> Uuid {
        self.id
    }

    pub fn version(&self) -> i64 {
        self.version
    }

    pub fn status(&self) -> Status {
        self.status
    }

    pub fn seat_count(&self) -> usize {
        self.seat_count
    }

    /// The game's name.
    pub fn game_name(&self) -> &'static str {
        self.game.name()
    }

    pub fn platform(&self) -> &PlatformOptions {
        &self.platform
    }

    pub fn tournament_id(&self) -> Option<Uuid> {
        self.tournament_id
    }

    /// Whether the match has dealt its first hand.
    pub fn started(&self) -> bool {
        self.state.hand_no() > 0
    }

    pub fn seat(&self, seat: SeatNo) -> Option<&SeatRow> {
        self.seats.get(seat).and_then(Option::as_ref)
    }

    /// The first free seat.
    pub fn free_seat(&self) -> Option<SeatNo> {
        self.seats.iter().position(Option::is_none)
    }

    /// Puts a seat in 托管 without timeouts: a tournament escaper's seat, or a player who was
    /// in 托管 at their previous tournament table.
    pub fn put_in_auto(&mut self, seat: SeatNo) {
        if let Some(s) = self.seats[seat].as_mut() {
            s.auto = true;
            self.mark_seat(seat);
        }
    }

    /// Places a new tournament table in its tournament (shown in its view).
    pub fn set_tournament(&mut self, at: TournamentSeat) {
        self.tournament = Some(at);
    }

    /// A change of the platform's (a join, a leave, a resume): one new version and the event
    /// that says what changed, always together.
    pub fn record<E: events::PlatformEvent>(&mut self, seat: Option<SeatNo>, event: E) {
        self.note(seat, event);
        self.version += 1;
    }

    /// A platform event everyone may see.
    fn note<E: events::PlatformEvent>(&mut self, seat: Option<SeatNo>, event: E) {
        self.platform_event(E::KIND, seat, json!(event));
    }

    /// Seats a player (the caller checked that the seat is free and the player may sit), and
    /// tells them on their stream how they came to it.
    pub async fn seat_player(
        &mut self,
        conn: &mut PgConnection,
        seat: SeatNo,
        user_id: Uuid,
        username: &str,
        via: Via,
    ) -> Result<(), ApiError> {
        self.statements += 2;
        sqlx::query("INSERT INTO match_seats (match_id, seat, user_id) VALUES ($1, $2, $3)")
            .bind(self.id)
            .bind(seat as i32)
            .bind(user_id)
            .execute(&mut *conn)
            .await?;
        notices::push(
            conn,
            user_id,
            &Notice::Seated {
                match_id: self.id,
                game: self.game.name(),
                seat,
                via,
            },
        )
        .await?;
        self.seats[seat] = Some(SeatRow {
            seat,
            user_id,
            username: username.to_string(),
            auto: false,
            timeouts: 0,
            bot: false,
        });
        self.record(
            Some(seat),
            events::Joined {
                user_id,
                username,
                bot: None,
            },
        );
        Ok(())
    }

    /// Records a platform event (joins, leaves, timeouts) visible to everyone, as part of a
    /// change that bumps the version itself (an action, a deal).
    fn platform_event(&mut self, kind: &str, seat: Option<SeatNo>, data: Value) {
        self.pending.events.push(PendingEvent {
            hand_no: self.hand_no(),
            kind: kind.to_string(),
            seat: seat.map(|s| s as i32),
            data,
            visible_to: None,
        });
    }

    /// A platform event only the player of `seat`'s hand sees.
    fn private_event(&mut self, kind: &str, seat: SeatNo, data: Value) {
        self.pending.events.push(PendingEvent {
            hand_no: self.hand_no(),
            kind: kind.to_string(),
            seat: Some(seat as i32),
            data,
            visible_to: Some(self.hand_player(seat).into_iter().collect()),
        });
    }

    fn mark_seat(&mut self, seat: SeatNo) {
        if !self.pending.dirty_seats.contains(&seat) {
            self.pending.dirty_seats.push(seat);
        }
    }

    /// The player whose hand is at `seat`: the one dealt in (who may have left the seat during
    /// the hand), or else the seat's player.
    fn hand_player(&self, seat: SeatNo) -> Option<Uuid> {
        self.dealt_in
            .get(seat)
            .copied()
            .flatten()
            .or_else(|| self.seat(seat).map(|s| s.user_id))
    }

    /// The player whose coins an engine's `Money` at `seat` moves ([`Table::hand_player`]).
    fn user_at(&self, seat: SeatNo) -> Result<Uuid, ApiError> {
        self.hand_player(seat).ok_or_else(|| {
            ApiError::Internal(anyhow::anyhow!(
                "match {}: money for empty seat {seat}",
                self.id
            ))
        })
    }

    fn seated_users(&self) -> Vec<Uuid> {
        self.seats.iter().flatten().map(|s| s.user_id).collect()
    }
}
