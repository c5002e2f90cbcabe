//! A match loaded inside one database transaction: the only place that drives a game engine.
//! Client actions, joins, leaves and the deadline sweeper all go through `Table`, so an
//! automatic action takes exactly the path of a client's.

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
use super::{autoplay, cache, room};
use crate::error::ApiError;
use crate::ledger::{self, Party, TxMeta};

/// Bound on automatic steps in one transaction, so that one request or sweep does bounded
/// work; a table stopped by it is due at once and the sweeper goes on with it.
const MAX_AUTO_STEPS: usize = 2_000;

/// Why `advance` stopped, which decides the deadline it leaves.
enum Stop {
    /// Nothing to wait for: the match is waiting for players, or over.
    Idle,
    /// Seats not in 托管 must act.
    Turn,
    /// A hand was dealt and played out by automatic actions alone: the next one at the next
    /// deadline.
    Paced,
    /// Everyone is in 托管 at a table that does not play on alone.
    Paused,
    /// `MAX_AUTO_STEPS` reached.
    Bound,
}

fn secs(n: u32) -> chrono::Duration {
    chrono::Duration::seconds(n.into())
}

#[derive(Clone, Debug, Deserialize, serde::Serialize)]
pub struct SeatRow {
    pub seat: usize,
    pub user_id: Uuid,
    pub username: String,
    pub auto: bool,
    pub timeouts: i32,
}

/// Where a tournament table sits in its tournament, shown on the table (the seed's playing
/// screen shows 奖池总数). Fixed for the table's life: a table plays one round, and the pool is
/// fixed when the tournament starts.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
pub struct TournamentSeat {
    pub id: Uuid,
    pub round: i32,
    pub table_no: i32,
    pub prize_pool: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// How an action came to be applied; stored with it for replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    Client,
    Timeout,
    Auto,
}

impl ActionKind {
    fn as_str(self) -> &'static str {
        match self {
            ActionKind::Client => "action",
            ActionKind::Timeout => "timeout",
            ActionKind::Auto => "auto",
        }
    }
}

struct PendingEvent {
    hand_no: i32,
    kind: String,
    seat: Option<i32>,
    data: Value,
    visible_to: Option<Vec<Uuid>>,
}

struct PendingAction {
    hand_no: i32,
    seat: i32,
    kind: &'static str,
    action: Option<Value>,
    now_ms: i64,
}

pub struct Table {
    pub id: Uuid,
    pub game: &'static dyn DynGame,
    pub seat_count: usize,
    pub options: Value,
    pub platform: PlatformOptions,
    pub status: Status,
    pub version: i64,
    pub last_seq: i64,
    pub action_no: i64,
    pub state: Box<dyn DynState>,
    pub deadline_at: Option<DateTime<Utc>>,
    pub tournament_id: Option<Uuid>,
    pub tournament: Option<TournamentSeat>,
    pub fixed_seed: Option<Vec<u8>>,
    pub fixed_deck: Option<Vec<Card>>,
    pub commitment: Option<String>,
    pub last_result: Option<Value>,
    pub seats: Vec<Option<SeatRow>>,
    pub now: DateTime<Utc>,
    events: Vec<PendingEvent>,
    actions: Vec<PendingAction>,
    dirty_seats: Vec<usize>,
}

const LOAD_SQL: &str = "
SELECT m.id, m.game, m.seats, m.options, m.status, m.version, m.last_seq, m.action_no,
       m.state, m.deadline_at, m.tournament_id, m.fixed_seed, m.fixed_deck,
       m.commitment, m.last_result,
       COALESCE((SELECT json_agg(json_build_object('seat', s.seat, 'user_id', s.user_id,
                                 'username', u.username, 'auto', s.auto,
                                 'timeouts', s.timeouts) ORDER BY s.seat)
                   FROM match_seats s JOIN users u ON u.id = s.user_id
                  WHERE s.match_id = m.id), '[]'::json)::jsonb AS seat_rows,
       (SELECT json_build_object('id', tt.tournament_id, 'round', tt.round,
                                 'table_no', tt.table_no, 'prize_pool', t.prize_pool)::jsonb
          FROM tournament_tables tt JOIN tournaments t ON t.id = tt.tournament_id
         WHERE tt.match_id = m.id) AS tournament";

/// Column positions in `LOAD_SQL` and its tails.
mod col {
    pub const ID: usize = 0;
    pub const GAME: usize = 1;
    pub const SEATS: usize = 2;
    pub const OPTIONS: usize = 3;
    pub const STATUS: usize = 4;
    pub const VERSION: usize = 5;
    pub const LAST_SEQ: usize = 6;
    pub const ACTION_NO: usize = 7;
    pub const STATE: usize = 8;
    pub const DEADLINE_AT: usize = 9;
    pub const TOURNAMENT_ID: usize = 10;
    pub const FIXED_SEED: usize = 11;
    pub const FIXED_DECK: usize = 12;
    pub const COMMITMENT: usize = 13;
    pub const LAST_RESULT: usize = 14;
    pub const SEAT_ROWS: usize = 15;
    pub const TOURNAMENT: usize = 16;
    pub const SNAPSHOT_VERSION: usize = 17;
}

const UNLOCKED_TAIL: &str = " FROM matches m WHERE m.id = $1";
const LOCKED_TAIL: &str =
    ", (SELECT s.version FROM matches s WHERE s.id = m.id) AS snapshot_version
   FROM matches m WHERE m.id = $1 FOR UPDATE OF m";

async fn fetch(conn: &mut PgConnection, id: Uuid, tail: &str) -> Result<PgRow, ApiError> {
    // Built from constants only.
    sqlx::query(sqlx::AssertSqlSafe(format!("{LOAD_SQL}{tail}")))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no match with id {id}")))
}

impl Table {
    /// Loads a match; `lock` takes the row lock that serialises every change to one match.
    pub async fn load(conn: &mut PgConnection, id: Uuid, lock: bool) -> Result<Table, ApiError> {
        if !lock {
            return Table::from_row(&fetch(conn, id, UNLOCKED_TAIL).await?);
        }
        // A statement that waited for the row lock sees the locked row as committed by the
        // lock's previous holder, but its sub-selects (the seats) still see the snapshot taken
        // before the wait. `snapshot_version` is the version in that snapshot: when it differs,
        // the row changed while we waited, and a second read (the lock is ours now, so it
        // cannot wait again) sees everything as committed.
        for _ in 0..2 {
            let row = fetch(conn, id, LOCKED_TAIL).await?;
            let version: i64 = row.try_get(col::VERSION)?;
            if row.try_get::<Option<i64>, _>(col::SNAPSHOT_VERSION)? == Some(version) {
                // A committed version's content never changes: when this process holds it
                // parsed, a copy of that saves decoding the row and parsing its state.
                return match cache::exactly(id, version) {
                    Some(t) => Ok(t.fork()),
                    None => Table::from_row(&row),
                };
            }
        }
        Err(ApiError::Conflict(
            "the match changed while loading; retry".into(),
        ))
    }

    fn from_row(row: &PgRow) -> Result<Table, ApiError> {
        let id: Uuid = row.try_get(col::ID)?;
        let corrupt = |what: &str, e: String| {
            ApiError::Internal(anyhow::anyhow!("match {id}: stored {what} unreadable: {e}"))
        };
        let name: &str = row.try_get(col::GAME)?;
        let game =
            games::game(name).ok_or_else(|| corrupt("game", format!("unknown game {name}")))?;
        let state = game
            .load(row.try_get(col::STATE)?)
            .map_err(|e| corrupt("state", e))?;
        let options: Value = row.try_get(col::OPTIONS)?;
        let platform = PlatformOptions::from_stored(&options);
        let seat_count = row.try_get::<i32, _>(col::SEATS)? as usize;
        let rows: Json<Vec<SeatRow>> = row.try_get(col::SEAT_ROWS)?;
        let mut seats = vec![None; seat_count];
        for r in rows.0 {
            let i = r.seat;
            *seats
                .get_mut(i)
                .ok_or_else(|| corrupt("seats", format!("seat {i} of {seat_count}")))? = Some(r);
        }
        let fixed_deck = match row.try_get::<Option<Value>, _>(col::FIXED_DECK)? {
            Some(d) => Some(serde_json::from_value(d).map_err(|e| corrupt("deck", e.to_string()))?),
            None => None,
        };
        Ok(Table {
            id,
            game,
            seat_count,
            options,
            platform,
            status: Status::parse(row.try_get(col::STATUS)?),
            version: row.try_get(col::VERSION)?,
            last_seq: row.try_get(col::LAST_SEQ)?,
            action_no: row.try_get(col::ACTION_NO)?,
            state,
            deadline_at: row.try_get(col::DEADLINE_AT)?,
            tournament_id: row.try_get(col::TOURNAMENT_ID)?,
            tournament: row
                .try_get::<Option<Json<TournamentSeat>>, _>(col::TOURNAMENT)?
                .map(|t| t.0),
            fixed_seed: row.try_get(col::FIXED_SEED)?,
            fixed_deck,
            commitment: row.try_get(col::COMMITMENT)?,
            last_result: row.try_get(col::LAST_RESULT)?,
            seats,
            now: Utc::now(),
            events: Vec::new(),
            actions: Vec::new(),
            dirty_seats: Vec::new(),
        })
    }

    /// An independent copy of a committed table, to change in a new transaction.
    pub fn fork(&self) -> Table {
        Table {
            id: self.id,
            game: self.game,
            seat_count: self.seat_count,
            options: self.options.clone(),
            platform: self.platform.clone(),
            status: self.status,
            version: self.version,
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
            now: Utc::now(),
            events: Vec::new(),
            actions: Vec::new(),
            dirty_seats: Vec::new(),
        }
    }

    pub fn seat_of(&self, user: Uuid) -> Option<SeatNo> {
        self.seats
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.user_id == user))
    }

    pub fn full(&self) -> bool {
        self.seats.iter().all(Option::is_some)
    }

    fn ctx(&self) -> Ctx {
        Ctx {
            now_ms: self.now.timestamp_millis(),
        }
    }

    fn hand_no(&self) -> i32 {
        self.state.hand_no() as i32
    }

    /// Records a platform event (joins, leaves, timeouts) visible to everyone.
    pub fn platform_event(&mut self, kind: &str, seat: Option<SeatNo>, data: Value) {
        self.events.push(PendingEvent {
            hand_no: self.hand_no(),
            kind: kind.to_string(),
            seat: seat.map(|s| s as i32),
            data,
            visible_to: None,
        });
    }

    pub fn mark_seat(&mut self, seat: SeatNo) {
        if !self.dirty_seats.contains(&seat) {
            self.dirty_seats.push(seat);
        }
    }

    /// Applies one action for `seat` through the engine and carries out its outcome.
    pub async fn apply(
        &mut self,
        conn: &mut PgConnection,
        seat: SeatNo,
        action: Value,
        kind: ActionKind,
    ) -> Result<(), ApiError> {
        let hand_no = self.hand_no();
        let outcome = self.state.apply(seat, &action, self.ctx())?;
        self.actions.push(PendingAction {
            hand_no,
            seat: seat as i32,
            kind: kind.as_str(),
            action: Some(action),
            now_ms: self.ctx().now_ms,
        });
        self.version += 1;
        self.carry_out(conn, outcome).await
    }

    /// 逃跑: a seated player leaves a match in progress.
    pub async fn escape(&mut self, conn: &mut PgConnection, seat: SeatNo) -> Result<(), ApiError> {
        let hand_no = self.hand_no();
        let outcome = self.state.leave(seat, self.ctx());
        self.actions.push(PendingAction {
            hand_no,
            seat: seat as i32,
            kind: "leave",
            action: None,
            now_ms: self.ctx().now_ms,
        });
        self.version += 1;
        self.carry_out(conn, outcome).await
    }

    fn user_at(&self, seat: SeatNo) -> Result<Uuid, ApiError> {
        self.seats
            .get(seat)
            .and_then(|s| s.as_ref())
            .map(|s| s.user_id)
            .ok_or_else(|| {
                ApiError::Internal(anyhow::anyhow!(
                    "match {}: money for empty seat {seat}",
                    self.id
                ))
            })
    }

    async fn carry_out(
        &mut self,
        conn: &mut PgConnection,
        outcome: Outcome,
    ) -> Result<(), ApiError> {
        let hand_no = self.hand_no();
        for e in outcome.events {
            let visible_to = match e.to {
                Visibility::All => None,
                Visibility::Seats(seats) => Some(
                    seats
                        .iter()
                        .filter_map(|&s| {
                            self.seats
                                .get(s)
                                .and_then(|r| r.as_ref())
                                .map(|r| r.user_id)
                        })
                        .collect(),
                ),
            };
            self.events.push(PendingEvent {
                hand_no,
                kind: e.kind.to_string(),
                seat: e.seat.map(|s| s as i32),
                data: e.data,
                visible_to,
            });
        }
        self.move_money(conn, hand_no, &outcome.money).await?;
        if let Some(result) = outcome.hand_end {
            let detail = json!({
                "hand_no": result.hand_no,
                "points": result.points,
                "coins": result.coins,
                "detail": result.detail,
            });
            let updated = sqlx::query(
                "UPDATE hands SET ended_at = now(), result = $3
                  WHERE match_id = $1 AND hand_no = $2 AND ended_at IS NULL",
            )
            .bind(self.id)
            .bind(result.hand_no as i32)
            .bind(&detail)
            .execute(&mut *conn)
            .await?;
            if updated.rows_affected() != 1 {
                return Err(ApiError::Internal(anyhow::anyhow!(
                    "match {} hand {} settled twice or never started",
                    self.id,
                    result.hand_no
                )));
            }
            self.record_points(conn, result.hand_no as i32, &result.points)
                .await?;
            let mut detail = detail;
            if let Some(room) = self.platform.room.clone() {
                let coins = self
                    .settle_room(conn, &room, result.hand_no as i32, &result.units)
                    .await?;
                detail["room_coins"] = json!(coins);
            }
            self.platform_event("hand_ended", None, detail.clone());
            self.last_result = Some(detail);
        }
        Ok(())
    }

    async fn move_money(
        &mut self,
        conn: &mut PgConnection,
        hand_no: i32,
        money: &[Money],
    ) -> Result<(), ApiError> {
        if money.is_empty() {
            return Ok(());
        }
        let meta = |reason| TxMeta {
            reason,
            match_id: Some(self.id),
            tournament_id: self.tournament_id,
            hand_no: Some(hand_no),
            note: None,
        };
        let escrow = Party::MatchEscrow(self.id);
        let mut settlement = Vec::new();
        let mut penalty = Vec::new();
        for m in money {
            match *m {
                Money::Stake { seat, amount } => {
                    let user = Party::User(self.user_at(seat)?);
                    ledger::transfer(conn, &meta("stake"), &[(user, -amount), (escrow, amount)])
                        .await?;
                }
                Money::Payout { seat, amount } => {
                    settlement.push((Party::User(self.user_at(seat)?), amount));
                    settlement.push((escrow, -amount));
                }
                Money::Forfeit { amount, .. } => {
                    penalty.push((escrow, -amount));
                    penalty.push((Party::House, amount));
                }
                Money::Penalty { seat, amount } => {
                    let user = self.user_at(seat)?;
                    ledger::take_up_to(conn, &meta("escape_penalty"), user, amount).await?;
                }
            }
        }
        ledger::transfer(conn, &meta("escape_penalty"), &penalty).await?;
        ledger::transfer(conn, &meta("hand_settlement"), &settlement).await?;
        Ok(())
    }

    fn seated_users(&self) -> Vec<Uuid> {
        self.seats.iter().flatten().map(|s| s.user_id).collect()
    }

    /// 金币场: moves the hand's units × stake between the wallets (never below zero).
    async fn settle_room(
        &mut self,
        conn: &mut PgConnection,
        room: &CoinRoom,
        hand_no: i32,
        units: &[i64],
    ) -> Result<Vec<i64>, ApiError> {
        let users: Vec<Option<Uuid>> = (0..self.seat_count)
            .map(|i| self.seats[i].as_ref().map(|s| s.user_id))
            .collect();
        let present: Vec<Uuid> = users.iter().flatten().copied().collect();
        let balances = ledger::lock_balances(conn, &present).await?;
        let mut next = balances.iter();
        let wallets: Vec<i64> = users
            .iter()
            .map(|u| {
                if u.is_some() {
                    *next.next().unwrap_or(&0)
                } else {
                    0
                }
            })
            .collect();
        let deltas = room::coin_deltas(units, room.stake, &wallets);
        let legs: Vec<(Party, i64)> = users
            .iter()
            .zip(&deltas)
            .filter_map(|(u, d)| u.map(|u| (Party::User(u), *d)))
            .collect();
        let meta = TxMeta {
            reason: "coin_room",
            match_id: Some(self.id),
            tournament_id: self.tournament_id,
            hand_no: Some(hand_no),
            note: None,
        };
        ledger::transfer(conn, &meta, &legs).await?;
        Ok(deltas)
    }

    /// 金币场: true when someone holds fewer than `min_coins`, which dissolves the room.
    async fn room_must_dissolve(
        &mut self,
        conn: &mut PgConnection,
        room: &CoinRoom,
    ) -> Result<bool, ApiError> {
        let users = self.seated_users();
        let balances = ledger::lock_balances(conn, &users).await?;
        let short: Vec<Uuid> = users
            .iter()
            .zip(&balances)
            .filter(|(_, b)| **b < room.min_coins)
            .map(|(u, _)| *u)
            .collect();
        if short.is_empty() {
            return Ok(false);
        }
        self.platform_event(
            "room_dissolved",
            None,
            json!({ "min_coins": room.min_coins, "short": short }),
        );
        Ok(true)
    }

    async fn record_points(
        &mut self,
        conn: &mut PgConnection,
        hand_no: i32,
        points: &[i64],
    ) -> Result<(), ApiError> {
        let mut users = Vec::new();
        let mut deltas = Vec::new();
        for (seat, &p) in points.iter().enumerate() {
            if let Some(Some(s)) = self.seats.get(seat) {
                users.push(s.user_id);
                deltas.push(p);
            }
        }
        sqlx::query(
            "WITH d AS (SELECT * FROM unnest($1::uuid[], $2::bigint[]) AS d(user_id, delta)),
                  up AS (INSERT INTO scores (user_id, game, points)
                         SELECT user_id, $3, delta FROM d
                         ON CONFLICT (user_id, game)
                         DO UPDATE SET points = scores.points + EXCLUDED.points
                         RETURNING user_id, points)
             INSERT INTO score_entries (user_id, game, match_id, hand_no, delta, points_after)
             SELECT d.user_id, $3, $4, $5, d.delta, up.points FROM d JOIN up USING (user_id)",
        )
        .bind(&users)
        .bind(&deltas)
        .bind(self.game.name())
        .bind(self.id)
        .bind(hand_no)
        .execute(conn)
        .await?;
        Ok(())
    }

    /// Runs everything that happens without a client: dealing when every seat is taken,
    /// playing seats in 托管 (and empty seats) at once, finishing. Then sets the deadline.
    ///
    /// Every way out leaves a table whose play is not over with a deadline the sweeper follows
    /// (docs/rules/README.md § Tables nobody plays): a seat's turn, the next hand of a table where
    /// everyone is in 托管 (one hand per transaction, paced by the turn time), the end of a
    /// pause, or "now" when one transaction's bound on automatic steps was reached.
    pub async fn advance(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        // The sweeper came for a table stopped between hands (paced or paused).
        let entered_due = self.state.stage() == Stage::NeedsDeal
            && self.deadline_at.is_some_and(|d| d <= self.now);
        let entered_pause = match self.deadline_at {
            Some(d) if d > self.now && self.state.stage() == Stage::NeedsDeal => Some(d),
            _ => None,
        };
        let mut dealt = false;
        // Whether automatic actions played in the hand dealt last (a hand the engine ends at
        // the deal itself, like 打炸's 摊牌, needs none).
        let mut auto_played = false;
        let mut stop = Stop::Bound;
        for _ in 0..MAX_AUTO_STEPS {
            match self.state.stage() {
                Stage::Finished => {
                    self.status = Status::Finished;
                    stop = Stop::Idle;
                    break;
                }
                Stage::NeedsDeal => {
                    let hands_done = self.state.hand_no();
                    if self.platform.hands.is_some_and(|h| hands_done >= h) {
                        self.status = Status::Finished;
                        stop = Stop::Idle;
                        break;
                    }
                    if !self.full() {
                        self.status = Status::Waiting;
                        stop = Stop::Idle;
                        break;
                    }
                    if let Some(room) = self.platform.room.clone()
                        && self.room_must_dissolve(conn, &room).await?
                    {
                        self.status = Status::Finished;
                        stop = Stop::Idle;
                        break;
                    }
                    let next = autoplay::between_hands(
                        &self.platform,
                        autoplay::Between {
                            hands_done,
                            everyone_away: hands_done > 0
                                && self.seats.iter().flatten().all(|s| s.auto),
                            played_out_automatically: dealt && auto_played,
                            due: entered_due,
                        },
                    );
                    self.status = Status::Playing;
                    match next {
                        autoplay::Next::Deal => {}
                        autoplay::Next::Pace => {
                            stop = Stop::Paced;
                            break;
                        }
                        autoplay::Next::Pause => {
                            stop = Stop::Paused;
                            break;
                        }
                        autoplay::Next::Abandon => {
                            self.status = Status::Finished;
                            self.platform_event(
                                "abandoned",
                                None,
                                json!({ "reason": "every player stayed away" }),
                            );
                            stop = Stop::Idle;
                            break;
                        }
                    }
                    self.deal(conn).await?;
                    dealt = true;
                    auto_played = false;
                }
                Stage::InHand => {
                    self.status = Status::Playing;
                    let auto: Vec<SeatNo> = self
                        .state
                        .to_act()
                        .into_iter()
                        .filter(|&s| self.seats[s].as_ref().is_none_or(|r| r.auto))
                        .collect();
                    if auto.is_empty() {
                        stop = if self.state.to_act().is_empty() {
                            Stop::Idle
                        } else {
                            Stop::Turn
                        };
                        break;
                    }
                    for seat in auto {
                        if self.state.to_act().contains(&seat) {
                            let action = self.state.auto_action(seat);
                            self.apply(conn, seat, action, ActionKind::Auto).await?;
                            auto_played = true;
                        }
                    }
                }
            }
        }
        let turn = self.platform.turn_timeout_secs;
        self.deadline_at = match stop {
            Stop::Idle => None,
            Stop::Turn => Some(self.now + secs(self.state.wait_secs(turn))),
            Stop::Paced => Some(self.now + secs(autoplay::PACE_SECS.min(turn))),
            Stop::Paused => Some(entered_pause.unwrap_or(self.now + secs(autoplay::PAUSE_SECS))),
            Stop::Bound => Some(self.now),
        };
        Ok(())
    }

    async fn deal(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        let hand_no = self.state.hand_no() + 1;
        let seed: Seed = match &self.fixed_seed {
            Some(s) => {
                let fixed: Seed = s.as_slice().try_into().map_err(|_| {
                    ApiError::Internal(anyhow::anyhow!(
                        "match {}: stored seed is not 32 bytes",
                        self.id
                    ))
                })?;
                hand_seed(&fixed, hand_no)
            }
            None => {
                let mut seed = [0u8; 32];
                getrandom::fill(&mut seed)
                    .map_err(|e| ApiError::Internal(anyhow::anyhow!("OS randomness: {e}")))?;
                seed
            }
        };
        let (deck, deck_fixed) = match (&self.fixed_deck, hand_no) {
            (Some(d), 1) => (d.clone(), true),
            _ => {
                let mut d = self
                    .game
                    .deck(&PlatformOptions::game_part(&self.options))
                    .map_err(|e| ApiError::Internal(anyhow::anyhow!(e)))?;
                shuffle(&mut d, &seed);
                (d, false)
            }
        };
        let users = self.seated_users();
        if let Some(room) = &self.platform.room
            && room.room_fee > 0
            && (hand_no - 1).is_multiple_of(room.hands_per_game)
        {
            let meta = TxMeta {
                reason: "room_fee",
                match_id: Some(self.id),
                tournament_id: self.tournament_id,
                hand_no: Some(hand_no as i32),
                note: Some(format!("局 {}", (hand_no - 1) / room.hands_per_game + 1)),
            };
            let mut legs: Vec<(Party, i64)> = users
                .iter()
                .map(|&u| (Party::User(u), -room.room_fee))
                .collect();
            legs.push((Party::House, room.room_fee * users.len() as i64));
            ledger::transfer(conn, &meta, &legs).await?;
        }
        let rows: Vec<(Uuid, i64, i64)> = sqlx::query_as(
            "SELECT a.user_id, a.balance, COALESCE(s.points, 0)
               FROM accounts a LEFT JOIN scores s ON s.user_id = a.user_id AND s.game = $2
              WHERE a.user_id = ANY($1)",
        )
        .bind(&users)
        .bind(self.game.name())
        .fetch_all(&mut *conn)
        .await?;
        let lookup = |u: Uuid| {
            rows.iter()
                .find(|r| r.0 == u)
                .map(|r| (r.1, r.2))
                .unwrap_or((0, 0))
        };
        let (wallets, scores): (Vec<i64>, Vec<i64>) = users.iter().map(|&u| lookup(u)).unzip();
        let start_state = self.state.save();
        let ctx = self.ctx();
        let outcome = self.state.start_hand(HandStart {
            deck: deck.clone(),
            ctx,
            wallets: wallets.clone(),
            scores: scores.clone(),
        });
        let commit = commitment(&seed);
        sqlx::query(
            "INSERT INTO hands (match_id, hand_no, seed, commitment, deck, start_state, wallets,
                                scores, start_ms)
             VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)",
        )
        .bind(self.id)
        .bind(hand_no as i32)
        .bind(if deck_fixed {
            None
        } else {
            Some(seed.to_vec())
        })
        .bind(&commit)
        .bind(json!({ "cards": deck, "fixed": deck_fixed }))
        .bind(&start_state)
        .bind(json!(wallets))
        .bind(json!(scores))
        .bind(ctx.now_ms)
        .execute(&mut *conn)
        .await?;
        self.commitment = Some(commit.clone());
        self.version += 1;
        self.platform_event(
            "shuffle_committed",
            None,
            json!({ "hand_no": hand_no, "shuffle_commitment": commit }),
        );
        self.carry_out(conn, outcome).await
    }

    /// Writes the state, events, actions and seat flags in one statement (one round trip).
    /// Call once, at the end of the transaction's work.
    pub async fn save(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        let first_seq = self.last_seq + 1;
        self.last_seq += self.events.len() as i64;
        let first_action = self.action_no + 1;
        self.action_no += self.actions.len() as i64;
        let events = std::mem::take(&mut self.events);
        let actions = std::mem::take(&mut self.actions);
        let seat_updates: Vec<&SeatRow> = std::mem::take(&mut self.dirty_seats)
            .into_iter()
            .filter_map(|i| self.seats[i].as_ref())
            .collect();
        // unnest cannot take an array of arrays of different lengths: each event's visibility
        // list travels as JSON and is expanded in SQL.
        let vis: Vec<Option<Value>> = events
            .iter()
            .map(|e| e.visible_to.as_ref().map(|v| json!(v)))
            .collect();
        let state_text = self.state.save();
        sqlx::query(
            "WITH m AS (
                 UPDATE matches SET state = $2, version = $3, last_seq = $4,
                        action_no = $5, status = $6, deadline_at = $7, commitment = $8,
                        last_result = $9, updated_at = now()
                  WHERE id = $1),
             e AS (
                 INSERT INTO match_events (match_id, seq, hand_no, kind, seat, data,
                                           visible_to, at)
                 SELECT $1, e.seq, e.hand_no, e.kind, e.seat, e.data,
                        CASE WHEN e.vis IS NULL THEN NULL
                             ELSE ARRAY(SELECT jsonb_array_elements_text(e.vis)::uuid) END,
                        $10
                   FROM unnest($11::bigint[], $12::int[], $13::text[], $14::int[],
                               $15::jsonb[], $16::jsonb[])
                        AS e(seq, hand_no, kind, seat, data, vis)),
             a AS (
                 INSERT INTO match_actions (match_id, n, hand_no, seat, kind, action, now_ms)
                 SELECT $1, * FROM unnest($17::bigint[], $18::int[], $19::int[], $20::text[],
                                          $21::jsonb[], $22::bigint[])),
             s AS (
                 UPDATE match_seats ms SET auto = v.auto, timeouts = v.timeouts
                   FROM unnest($23::int[], $24::bool[], $25::int[]) AS v(seat, auto, timeouts)
                  WHERE ms.match_id = $1 AND ms.seat = v.seat)
             SELECT 1",
        )
        .bind(self.id)
        .bind(&state_text)
        .bind(self.version)
        .bind(self.last_seq)
        .bind(self.action_no)
        .bind(self.status.as_str())
        .bind(self.deadline_at)
        .bind(&self.commitment)
        .bind(&self.last_result)
        .bind(self.now)
        .bind((first_seq..).take(events.len()).collect::<Vec<i64>>())
        .bind(events.iter().map(|e| e.hand_no).collect::<Vec<i32>>())
        .bind(
            events
                .iter()
                .map(|e| e.kind.as_str())
                .collect::<Vec<&str>>(),
        )
        .bind(events.iter().map(|e| e.seat).collect::<Vec<Option<i32>>>())
        .bind(events.iter().map(|e| &e.data).collect::<Vec<&Value>>())
        .bind(&vis)
        .bind((first_action..).take(actions.len()).collect::<Vec<i64>>())
        .bind(actions.iter().map(|a| a.hand_no).collect::<Vec<i32>>())
        .bind(actions.iter().map(|a| a.seat).collect::<Vec<i32>>())
        .bind(actions.iter().map(|a| a.kind).collect::<Vec<&str>>())
        .bind(
            actions
                .iter()
                .map(|a| &a.action)
                .collect::<Vec<&Option<Value>>>(),
        )
        .bind(actions.iter().map(|a| a.now_ms).collect::<Vec<i64>>())
        .bind(
            seat_updates
                .iter()
                .map(|s| s.seat as i32)
                .collect::<Vec<i32>>(),
        )
        .bind(seat_updates.iter().map(|s| s.auto).collect::<Vec<bool>>())
        .bind(
            seat_updates
                .iter()
                .map(|s| s.timeouts)
                .collect::<Vec<i32>>(),
        )
        .execute(&mut *conn)
        .await?;
        Ok(())
    }

    /// The match as `user` may see it (api.md § The match view), rendered straight from the
    /// table: the stored JSON (options, last result) is borrowed, not copied.
    pub fn view(&self, user: Option<Uuid>) -> View {
        let me = user.and_then(|u| self.seat_of(u));
        let in_hand = self.state.stage() == Stage::InHand;
        let game_view = self.state.view(me);
        let seats = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| match s {
                Some(s) => ViewSeat {
                    seat: i,
                    user_id: Some(s.user_id),
                    username: Some(&s.username),
                    coins_at_table: game_view.coins_at_table.get(i).copied().flatten(),
                    auto: s.auto,
                },
                None => ViewSeat {
                    seat: i,
                    user_id: None,
                    username: None,
                    coins_at_table: None,
                    auto: false,
                },
            })
            .collect();
        let mut legal_actions = match (me, self.status) {
            (Some(seat), Status::Playing) => self.state.legal_actions(seat),
            _ => Vec::new(),
        };
        if let Some(seat) = me
            && self.seats[seat].as_ref().is_some_and(|s| s.auto)
        {
            legal_actions.push(
                RawValue::from_string(r#"{"type":"resume"}"#.to_owned())
                    .expect("a constant JSON object"),
            );
        }
        let phase = if self.status == Status::Waiting && self.state.hand_no() == 0 {
            "waiting"
        } else {
            self.state.phase()
        };
        let body = ViewBody {
            id: self.id,
            game: self.game.name(),
            status: self.status.as_str(),
            version: self.version,
            options: &self.options,
            seats,
            you: me.map(|seat| You { seat }),
            hand_no: self.state.hand_no(),
            phase,
            to_act: if in_hand {
                self.state.to_act()
            } else {
                Vec::new()
            },
            deadline: self.deadline_at,
            legal_actions,
            shuffle_commitment: self.commitment.as_deref(),
            tournament_id: self.tournament_id,
            tournament: self.tournament.as_ref(),
            state: game_view.state,
            last_result: self.last_result.as_ref(),
        };
        View::render(self.id, self.version, &body)
    }
}

/// The view's fields in api.md's order.
#[derive(serde::Serialize)]
struct ViewBody<'a> {
    id: Uuid,
    game: &'static str,
    status: &'static str,
    version: i64,
    options: &'a Value,
    seats: Vec<ViewSeat<'a>>,
    you: Option<You>,
    hand_no: u32,
    phase: &'static str,
    to_act: Vec<SeatNo>,
    deadline: Option<DateTime<Utc>>,
    legal_actions: Vec<Box<RawValue>>,
    shuffle_commitment: Option<&'a str>,
    tournament_id: Option<Uuid>,
    tournament: Option<&'a TournamentSeat>,
    state: Box<RawValue>,
    last_result: Option<&'a Value>,
}

#[derive(serde::Serialize)]
struct ViewSeat<'a> {
    seat: usize,
    user_id: Option<Uuid>,
    username: Option<&'a str>,
    coins_at_table: Option<i64>,
    auto: bool,
}

#[derive(serde::Serialize)]
struct You {
    seat: SeatNo,
}
