//! Finding matches again: a player's own (`GET /v1/me/matches`) and the open and live tables
//! anyone may join or watch (`GET /v1/matches`). Both read only columns kept beside the state
//! (`to_act`, `hand_no`), never the state itself, and page newest first.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use crate::cursor::{self, ListQuery, page};
use crate::error::{ApiError, ApiResult};

const STATUSES: [&str; 4] = ["waiting", "playing", "finished", "aborted"];

/// `status=` as a list of statuses (one, or several comma-separated); none means all.
fn statuses(raw: Option<&str>, allowed: &[&str]) -> ApiResult<Option<Vec<String>>> {
    let Some(raw) = raw else { return Ok(None) };
    raw.split(',')
        .map(|s| {
            let s = s.trim();
            if allowed.contains(&s) {
                Ok(s.to_string())
            } else {
                Err(ApiError::Validation(format!(
                    "status must be {} (or several, comma-separated), got {s:?}",
                    allowed.join(", ")
                )))
            }
        })
        .collect::<ApiResult<Vec<_>>>()
        .map(Some)
}

/// A match the caller sits at.
#[derive(Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct MyMatch {
    id: Uuid,
    #[schema(value_type = crate::api_types::GameName)]
    game: String,
    /// The table size.
    seats: i32,
    #[schema(value_type = crate::matches::table::Status)]
    status: String,
    /// The match version: fetch the view when it is above the one you have.
    version: i64,
    /// Your seat.
    seat: i32,
    hand_no: i32,
    /// The seats whose action the match waits for (only your own while who is asked is
    /// secret, as in 扯胡子's claim windows).
    to_act: Vec<i32>,
    /// Who is asked is a secret now: the list shows the caller's own seat only.
    #[serde(skip)]
    to_act_hidden: bool,
    /// Playing and your seat is in `to_act`.
    #[sqlx(skip)]
    your_turn: bool,
    deadline: Option<DateTime<Utc>>,
    tournament_id: Option<Uuid>,
    /// The rematch of this match (`POST /v1/matches/{id}/rematch`), once someone asked for it.
    #[schema(required = true)]
    rematch: Option<Uuid>,
    created_at: DateTime<Utc>,
}

/// `game=` names a game we run, when given.
fn known_game(q: &ListQuery) -> ApiResult<()> {
    q.game
        .as_deref()
        .map_or(Ok(()), |g| super::game_named(g).map(|_| ()))
}

/// The matches `user` sits at, newest first.
pub async fn mine(pool: &PgPool, user: Uuid, q: &ListQuery) -> ApiResult<MyMatchPage> {
    let statuses = statuses(q.status.as_deref(), &STATUSES)?;
    known_game(q)?;
    let limit = cursor::limit(q.limit, 20, 100)?;
    let before = q.before.as_deref().map(cursor::decode).transpose()?;
    let rows: Vec<MyMatch> = sqlx::query_as(
        "SELECT m.id, m.game, m.seats, m.status, m.version, s.seat, m.hand_no, m.to_act,
                m.to_act_hidden, false AS your_turn, m.deadline_at AS deadline, m.tournament_id,
                (SELECT r.id FROM matches r WHERE r.rematch_of = m.id) AS rematch, m.created_at
           FROM match_seats s JOIN matches m ON m.id = s.match_id
          WHERE s.user_id = $1 AND ($2::text[] IS NULL OR m.status = ANY ($2))
            AND ($3::timestamptz IS NULL OR (m.created_at, m.id) < ($3, $4))
            AND ($6::text IS NULL OR m.game = $6)
          ORDER BY m.created_at DESC, m.id DESC LIMIT $5",
    )
    .bind(user)
    .bind(&statuses)
    .bind(before.map(|b| b.0))
    .bind(before.map(|b| b.1))
    .bind(limit + 1)
    .bind(&q.game)
    .fetch_all(pool)
    .await?;
    let (mut rows, next_before) = page(rows, limit, |m| cursor::encode(m.created_at, m.id));
    for m in &mut rows {
        if m.to_act_hidden {
            let seat = m.seat;
            m.to_act.retain(|&s| s == seat);
        }
        m.your_turn = m.status == "playing" && m.to_act.contains(&m.seat);
    }
    Ok(MyMatchPage {
        has_more: next_before.is_some(),
        matches: rows,
        next_before,
    })
}

/// One page of the caller's matches, newest first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MyMatchPage {
    matches: Vec<MyMatch>,
    /// More matches below this page.
    has_more: bool,
    /// Pass as `before` for the next page; null on the last.
    next_before: Option<String>,
}

/// One page of open or live tables, newest first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct OpenMatchPage {
    matches: Vec<OpenMatch>,
    /// More matches below this page.
    has_more: bool,
    /// Pass as `before` for the next page; null on the last.
    next_before: Option<String>,
}

/// A table anyone may join or watch.
#[derive(Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct OpenMatch {
    id: Uuid,
    #[schema(value_type = crate::api_types::GameName)]
    game: String,
    seats: i32,
    /// Seats taken.
    taken: i64,
    /// `waiting` or `playing`.
    #[schema(value_type = crate::matches::table::Status)]
    status: String,
    version: i64,
    hand_no: i32,
    /// The match's options, as its view shows them.
    #[schema(value_type = Object)]
    options: Value,
    #[schema(value_type = Vec<OpenSeat>)]
    players: sqlx::types::Json<Vec<OpenSeat>>,
    tournament_id: Option<Uuid>,
    created_at: DateTime<Utc>,
}

/// Tables waiting for players (default) or being played, newest first: what anyone may join
/// or watch (a non-seated caller gets the public view of a match).
pub async fn open(pool: &PgPool, q: &ListQuery) -> ApiResult<OpenMatchPage> {
    let statuses =
        statuses(q.status.as_deref(), &STATUSES[..2])?.unwrap_or_else(|| vec!["waiting".into()]);
    known_game(q)?;
    let limit = cursor::limit(q.limit, 20, 100)?;
    let before = q.before.as_deref().map(cursor::decode).transpose()?;
    let rows: Vec<OpenMatch> = sqlx::query_as(
        "SELECT m.id, m.game, m.seats, p.taken, m.status, m.version, m.hand_no, m.options,
                p.players, m.tournament_id, m.created_at
           FROM matches m
           CROSS JOIN LATERAL (
                SELECT count(*) AS taken,
                       COALESCE(json_agg(json_build_object('seat', s.seat,
                                'username', u.username, 'bot', u.bot) ORDER BY s.seat),
                                '[]'::json)::jsonb AS players
                  FROM match_seats s JOIN users u ON u.id = s.user_id
                 WHERE s.match_id = m.id) p
          WHERE m.status = ANY ($1) AND ($2::text IS NULL OR m.game = $2)
            AND ($3::timestamptz IS NULL OR (m.created_at, m.id) < ($3, $4))
          ORDER BY m.created_at DESC, m.id DESC LIMIT $5",
    )
    .bind(&statuses)
    .bind(&q.game)
    .bind(before.map(|b| b.0))
    .bind(before.map(|b| b.1))
    .bind(limit + 1)
    .fetch_all(pool)
    .await?;
    let (rows, next_before) = page(rows, limit, |m| cursor::encode(m.created_at, m.id));
    Ok(OpenMatchPage {
        has_more: next_before.is_some(),
        matches: rows,
        next_before,
    })
}

/// A seated player of an open table.
#[derive(Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct OpenSeat {
    seat: i32,
    username: String,
    bot: bool,
}
