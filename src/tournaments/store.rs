//! The tournaments' SQL: the tournament row, its registrations, its rounds' tables and the
//! scores made at them. Every function runs on the connection it is given (the caller's
//! transaction, when it has one).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::settings::Settings;
use super::{TournamentPlayer, TournamentSummary};
use crate::error::{ApiError, ApiResult};

#[derive(sqlx::FromRow)]
pub(super) struct TournamentRow {
    pub(super) id: Uuid,
    pub(super) name: String,
    pub(super) game: String,
    pub(super) entry_fee: i64,
    pub(super) starts_at: DateTime<Utc>,
    pub(super) hands_per_round: i32,
    pub(super) options: Value,
    pub(super) status: String,
    pub(super) seed: Vec<u8>,
    pub(super) prize_pool: i64,
    pub(super) round: i32,
    pub(super) winner: Option<Uuid>,
    /// The final's winners: one player, or a pair of fixed partners.
    pub(super) winners: Option<Vec<Uuid>>,
    pub(super) created_by: Uuid,
    pub(super) created_at: DateTime<Utc>,
    pub(super) started_at: Option<DateTime<Utc>>,
    pub(super) finished_at: Option<DateTime<Utc>>,
}

impl TournamentRow {
    pub(super) fn summary(&self) -> TournamentSummary {
        TournamentSummary {
            id: self.id,
            name: self.name.clone(),
            game: self.game.clone(),
            status: self.status.clone(),
            entry_fee: self.entry_fee,
            starts_at: self.starts_at,
            hands_per_round: self.hands_per_round,
            options: self.options.clone(),
            prize_pool: self.prize_pool,
            round: self.round,
            winner: self.winner,
            winners: self.winners.clone().unwrap_or_default(),
            created_by: self.created_by,
            created_at: self.created_at,
            started_at: self.started_at,
            finished_at: self.finished_at,
        }
    }
}

const SELECT_TOURNAMENT: &str = "SELECT id, name, game, entry_fee, starts_at, hands_per_round,
    options, status, seed, prize_pool, round, winner, winners, created_by, created_at, started_at,
    finished_at FROM tournaments";

pub(super) async fn load(
    conn: &mut PgConnection,
    id: Uuid,
    lock: bool,
) -> ApiResult<TournamentRow> {
    let query = if lock {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{SELECT_TOURNAMENT} WHERE id = $1 FOR UPDATE"
        )))
    } else {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{SELECT_TOURNAMENT} WHERE id = $1"
        )))
    };
    query
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no tournament with id {id}")))
}

/// Up to `limit` tournaments, latest start first, of `status` and `game` when given, below the
/// position `before` (start time and id).
pub(super) async fn page(
    pool: &PgPool,
    status: &Option<String>,
    game: &Option<String>,
    before: Option<(DateTime<Utc>, Uuid)>,
    limit: i64,
) -> ApiResult<Vec<TournamentRow>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_TOURNAMENT} WHERE ($1::text IS NULL OR status = $1)
            AND ($2::text IS NULL OR game = $2)
            AND ($3::timestamptz IS NULL OR (starts_at, id) < ($3, $4))
          ORDER BY starts_at DESC, id DESC LIMIT $5"
    )))
    .bind(status)
    .bind(game)
    .bind(before.map(|b| b.0))
    .bind(before.map(|b| b.1))
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// A new tournament, registering, and its escrow account (the prize pool).
pub(super) async fn insert(
    conn: &mut PgConnection,
    id: Uuid,
    s: &Settings,
    seed: &[u8],
    created_by: Uuid,
) -> ApiResult<()> {
    sqlx::query(
        "INSERT INTO tournaments (id, name, game, entry_fee, starts_at, hands_per_round, options,
                                  status, seed, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'registering', $8, $9)",
    )
    .bind(id)
    .bind(&s.name)
    .bind(s.game.name())
    .bind(s.entry_fee)
    .bind(s.starts_at)
    .bind(s.hands_per_round as i32)
    .bind(&s.options)
    .bind(seed)
    .bind(created_by)
    .execute(&mut *conn)
    .await?;
    sqlx::query("INSERT INTO accounts (kind, tournament_id) VALUES ('escrow', $1)")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Writes edited settings.
pub(super) async fn update_settings(
    conn: &mut PgConnection,
    id: Uuid,
    s: &Settings,
) -> ApiResult<()> {
    sqlx::query(
        "UPDATE tournaments SET name = $2, entry_fee = $3, starts_at = $4, hands_per_round = $5,
                                options = $6
          WHERE id = $1",
    )
    .bind(id)
    .bind(&s.name)
    .bind(s.entry_fee)
    .bind(s.starts_at)
    .bind(s.hands_per_round as i32)
    .bind(&s.options)
    .execute(conn)
    .await?;
    Ok(())
}

/// The registered players, in registration order.
pub(super) async fn players(conn: &mut PgConnection, id: Uuid) -> ApiResult<Vec<TournamentPlayer>> {
    Ok(sqlx::query_as(
        "SELECT p.user_id, u.username, p.reg_no, p.in_field, p.eliminated_round, p.escaped
           FROM tournament_players p JOIN users u ON u.id = p.user_id
          WHERE p.tournament_id = $1 ORDER BY p.reg_no",
    )
    .bind(id)
    .fetch_all(conn)
    .await?)
}

pub(super) async fn is_registered(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
) -> ApiResult<bool> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM tournament_players WHERE tournament_id = $1 AND user_id = $2)",
    )
    .bind(id)
    .bind(user)
    .fetch_one(conn)
    .await?)
}

/// Registers `user` after the others; returns the registration number.
pub(super) async fn add_player(conn: &mut PgConnection, id: Uuid, user: Uuid) -> ApiResult<i32> {
    Ok(sqlx::query_scalar(
        "INSERT INTO tournament_players (tournament_id, user_id, reg_no)
         SELECT $1, $2, COALESCE(max(reg_no), 0) + 1 FROM tournament_players
          WHERE tournament_id = $1
         RETURNING reg_no",
    )
    .bind(id)
    .bind(user)
    .fetch_one(conn)
    .await?)
}

/// Deletes `user`'s registration; whether there was one.
pub(super) async fn remove_player(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
) -> ApiResult<bool> {
    let gone =
        sqlx::query("DELETE FROM tournament_players WHERE tournament_id = $1 AND user_id = $2")
            .bind(id)
            .bind(user)
            .execute(conn)
            .await?;
    Ok(gone.rows_affected() > 0)
}

/// The players in the field, in registration order.
pub(super) async fn field(conn: &mut PgConnection, id: Uuid) -> ApiResult<Vec<Uuid>> {
    Ok(sqlx::query_scalar(
        "SELECT user_id FROM tournament_players WHERE tournament_id = $1 AND in_field
          ORDER BY reg_no",
    )
    .bind(id)
    .fetch_all(conn)
    .await?)
}

/// Marks who is in the field (`in_field`) and who is not, at the start.
pub(super) async fn set_field(
    conn: &mut PgConnection,
    id: Uuid,
    in_field: &[Uuid],
) -> ApiResult<()> {
    sqlx::query(
        "UPDATE tournament_players SET in_field = (user_id = ANY($2)) WHERE tournament_id = $1",
    )
    .bind(id)
    .bind(in_field)
    .execute(conn)
    .await?;
    Ok(())
}

/// A tournament that could not fill one table at its start: cancelled, nothing charged.
pub(super) async fn cancel_at_start(conn: &mut PgConnection, id: Uuid) -> ApiResult<()> {
    sqlx::query(
        "UPDATE tournaments SET status = 'cancelled', started_at = now(), finished_at = now()
          WHERE id = $1",
    )
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Started: round 1, with the fees paid into the pool.
pub(super) async fn set_running(
    conn: &mut PgConnection,
    id: Uuid,
    prize_pool: i64,
) -> ApiResult<()> {
    sqlx::query(
        "UPDATE tournaments SET status = 'running', started_at = now(), prize_pool = $2, round = 1
          WHERE id = $1",
    )
    .bind(id)
    .bind(prize_pool)
    .execute(conn)
    .await?;
    Ok(())
}

/// Aborts the tables still waiting or playing: they take no more moves, and the version step
/// wakes their long-polls.
pub(super) async fn abort_tables(conn: &mut PgConnection, id: Uuid) -> ApiResult<()> {
    sqlx::query(
        "UPDATE matches SET status = 'aborted', deadline_at = NULL, version = version + 1
          WHERE tournament_id = $1 AND status IN ('waiting', 'playing')",
    )
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Cancelled by its organiser (or an admin), before or after the start.
pub(super) async fn set_cancelled(conn: &mut PgConnection, id: Uuid) -> ApiResult<()> {
    sqlx::query(
        "UPDATE tournaments SET status = 'cancelled', finished_at = now(),
                                started_at = COALESCE(started_at, now())
          WHERE id = $1",
    )
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

/// The next round is being played.
pub(super) async fn set_round(conn: &mut PgConnection, id: Uuid, round: i32) -> ApiResult<()> {
    sqlx::query("UPDATE tournaments SET round = $2 WHERE id = $1")
        .bind(id)
        .bind(round)
        .execute(conn)
        .await?;
    Ok(())
}

/// Finished, with the final's winners.
pub(super) async fn set_finished(
    conn: &mut PgConnection,
    id: Uuid,
    winners: &[Uuid],
) -> ApiResult<()> {
    sqlx::query(
        "UPDATE tournaments SET status = 'finished', winner = ($2::uuid[])[1], winners = $2,
                                finished_at = now()
          WHERE id = $1",
    )
    .bind(id)
    .bind(winners)
    .execute(conn)
    .await?;
    Ok(())
}

/// The usernames of `users`.
pub(super) async fn usernames(
    conn: &mut PgConnection,
    users: &[Uuid],
) -> ApiResult<HashMap<Uuid, String>> {
    Ok(
        sqlx::query_as::<_, (Uuid, String)>("SELECT id, username FROM users WHERE id = ANY($1)")
            .bind(users)
            .fetch_all(conn)
            .await?
            .into_iter()
            .collect(),
    )
}

/// The players in 托管 at their table of the round before `round`.
pub(super) async fn in_auto_before(
    conn: &mut PgConnection,
    id: Uuid,
    round: i32,
) -> ApiResult<Vec<Uuid>> {
    Ok(sqlx::query_scalar(
        "SELECT s.user_id FROM match_seats s JOIN tournament_tables tt ON tt.match_id = s.match_id
          WHERE tt.tournament_id = $1 AND tt.round = $2 - 1 AND s.auto",
    )
    .bind(id)
    .bind(round)
    .fetch_all(conn)
    .await?)
}

/// A table of a round: its match and its players by seat.
pub(super) async fn insert_table(
    conn: &mut PgConnection,
    id: Uuid,
    round: i32,
    table_no: i32,
    match_id: Uuid,
    players: &[Uuid],
) -> ApiResult<()> {
    sqlx::query(
        "INSERT INTO tournament_tables (tournament_id, round, table_no, match_id, players)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(round)
    .bind(table_no)
    .bind(match_id)
    .bind(players)
    .execute(conn)
    .await?;
    Ok(())
}

/// A finished table's scores by seat and who advanced from it.
pub(super) async fn record_table(
    conn: &mut PgConnection,
    id: Uuid,
    round: i32,
    table_no: i32,
    scores: &[i64],
    advancing: &[Uuid],
) -> ApiResult<()> {
    sqlx::query(
        "UPDATE tournament_tables SET scores = $4, advanced = ($5::uuid[])[1], advancers = $5
          WHERE tournament_id = $1 AND round = $2 AND table_no = $3",
    )
    .bind(id)
    .bind(round)
    .bind(table_no)
    .bind(scores)
    .bind(advancing)
    .execute(conn)
    .await?;
    Ok(())
}

/// `losers` are eliminated in `round` (those eliminated before, by an escape, keep theirs).
pub(super) async fn eliminate(
    conn: &mut PgConnection,
    id: Uuid,
    losers: &[Uuid],
    round: i32,
) -> ApiResult<()> {
    sqlx::query(
        "UPDATE tournament_players SET eliminated_round = $3
          WHERE tournament_id = $1 AND user_id = ANY($2) AND eliminated_round IS NULL",
    )
    .bind(id)
    .bind(losers)
    .bind(round)
    .execute(conn)
    .await?;
    Ok(())
}

/// A tournament due to start, locked (skipping those another process holds).
pub(super) async fn lock_next_due(conn: &mut PgConnection) -> ApiResult<Option<Uuid>> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM tournaments WHERE status = 'registering' AND starts_at <= now()
          ORDER BY starts_at LIMIT 1 FOR UPDATE SKIP LOCKED",
    )
    .fetch_optional(conn)
    .await?)
}

/// A running tournament whose round's tables have all ended, locked (skipping those another
/// process holds).
pub(super) async fn lock_next_round_over(conn: &mut PgConnection) -> ApiResult<Option<Uuid>> {
    Ok(sqlx::query_scalar(
        "SELECT t.id FROM tournaments t
          WHERE t.status = 'running'
            AND NOT EXISTS (SELECT 1 FROM tournament_tables tt JOIN matches m ON m.id = tt.match_id
                             WHERE tt.tournament_id = t.id AND tt.round = t.round
                               AND m.status NOT IN ('finished', 'aborted'))
          LIMIT 1 FOR UPDATE OF t SKIP LOCKED",
    )
    .fetch_optional(conn)
    .await?)
}

#[derive(sqlx::FromRow)]
pub(super) struct TableRow {
    pub(super) round: i32,
    pub(super) table_no: i32,
    pub(super) match_id: Uuid,
    pub(super) players: Vec<Uuid>,
    pub(super) scores: Option<Vec<i64>>,
    /// Who advanced: one player, or a pair of fixed partners.
    pub(super) advancers: Option<Vec<Uuid>>,
    pub(super) match_status: String,
}

/// Every table of every round, in order.
pub(super) async fn tables(conn: &mut PgConnection, id: Uuid) -> ApiResult<Vec<TableRow>> {
    Ok(sqlx::query_as(
        "SELECT tt.round, tt.table_no, tt.match_id, tt.players, tt.scores, tt.advancers,
                m.status AS match_status
           FROM tournament_tables tt JOIN matches m ON m.id = tt.match_id
          WHERE tt.tournament_id = $1 ORDER BY tt.round, tt.table_no",
    )
    .bind(id)
    .fetch_all(conn)
    .await?)
}

/// Points each player has made at each table so far (for tables still being played).
pub(super) async fn live_scores(
    conn: &mut PgConnection,
    id: Uuid,
) -> ApiResult<HashMap<(Uuid, Uuid), i64>> {
    let rows: Vec<(Uuid, Uuid, i64)> = sqlx::query_as(
        "SELECT e.match_id, e.user_id, sum(e.delta)::bigint FROM score_entries e
           JOIN tournament_tables tt ON tt.match_id = e.match_id
          WHERE tt.tournament_id = $1 GROUP BY e.match_id, e.user_id",
    )
    .bind(id)
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().map(|(m, u, s)| ((m, u), s)).collect())
}

/// A table's scores by seat: as recorded when its round closed, else the points made so far.
pub(super) fn table_scores(t: &TableRow, live: &HashMap<(Uuid, Uuid), i64>) -> Vec<i64> {
    t.scores.clone().unwrap_or_else(|| {
        t.players
            .iter()
            .map(|u| live.get(&(t.match_id, *u)).copied().unwrap_or(0))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_table_shows_its_recorded_scores_an_open_one_the_points_made_so_far() {
        let (m, a, b, c) = (
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
        );
        let mut table = TableRow {
            round: 1,
            table_no: 0,
            match_id: m,
            players: vec![a, b, c],
            scores: None,
            advancers: None,
            match_status: "playing".into(),
        };
        // Another table's points for the same player do not count here.
        let live = HashMap::from([((m, a), 12), ((m, c), -12), ((Uuid::new_v4(), b), 40)]);
        assert_eq!(table_scores(&table, &live), [12, 0, -12]);
        table.scores = Some(vec![5, -2, -3]);
        assert_eq!(table_scores(&table, &live), [5, -2, -3]);
    }
}
