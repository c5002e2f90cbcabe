//! 金币场 matchmaking: players queue by game and stake; when a game's seat count of players
//! with the same stake wait, a coin-room match is made with a random seating.

use serde_json::json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::options::{CoinRoom, PlatformOptions};
use super::require_coins;
use super::table::{NewTable, Table};
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult};
use crate::notices::Via;

const MAX_STAKE: i64 = 1_000_000_000;

/// Settings of matches the lobby makes.
#[derive(Clone, Debug)]
pub struct LobbySettings {
    pub turn_timeout_secs: u32,
}

fn coin_game(name: &str) -> ApiResult<&'static dyn games::DynGame> {
    games::game(name)
        .filter(|g| g.coin_rooms())
        .ok_or_else(|| ApiError::NotFound(format!("there are no coin rooms for {name:?}")))
}

async fn status(conn: &mut PgConnection, user: Uuid, game: &str) -> ApiResult<QueueEntry> {
    let row: Option<(String, i64, chrono::DateTime<chrono::Utc>, Option<Uuid>)> = sqlx::query_as(
        "SELECT game, stake, queued_at, match_id FROM lobby_queue WHERE user_id = $1 AND game = $2",
    )
    .bind(user)
    .bind(game)
    .fetch_optional(&mut *conn)
    .await?;
    let (game, stake, queued_at, match_id) =
        row.ok_or_else(|| ApiError::NotFound(format!("you are not in the {game} queue")))?;
    let waiting: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM lobby_queue WHERE game = $1 AND stake = $2 AND match_id IS NULL",
    )
    .bind(&game)
    .bind(stake)
    .fetch_one(&mut *conn)
    .await?;
    Ok(QueueEntry {
        status: if match_id.is_some() {
            QueueStatus::Matched
        } else {
            QueueStatus::Queued
        },
        game,
        stake,
        queued_at,
        match_id,
        waiting,
    })
}

/// The caller's place in a coin-room queue.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct QueueEntry {
    pub status: QueueStatus,
    pub game: String,
    pub stake: i64,
    pub queued_at: chrono::DateTime<chrono::Utc>,
    /// The match made for the caller, once matched.
    pub match_id: Option<Uuid>,
    /// Players waiting at this stake.
    pub waiting: i64,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueueStatus {
    /// Waiting for three more players at this stake.
    Queued,
    /// Seated at `match_id`.
    Matched,
}

pub async fn enqueue(
    pool: &PgPool,
    settings: &LobbySettings,
    user: &AuthUser,
    game_name: &str,
    stake: i64,
) -> ApiResult<QueueEntry> {
    let game = coin_game(game_name)?;
    if !(1..=MAX_STAKE).contains(&stake) {
        return Err(ApiError::Validation(format!(
            "stake must be from 1 to {MAX_STAKE}, got {stake}"
        )));
    }
    let room = CoinRoom::with_stake(stake);
    let mut tx = pool.begin().await?;
    crate::players::lock_free_to_play(&mut tx, user.id).await?;
    crate::players::ensure_not_in_coin_room(&mut tx, user.id).await?;
    require_coins(&mut tx, user.id, room.min_coins).await?;
    let existing: Option<Option<Uuid>> =
        sqlx::query_scalar("SELECT match_id FROM lobby_queue WHERE user_id = $1 FOR UPDATE")
            .bind(user.id)
            .fetch_optional(&mut *tx)
            .await?;
    match existing {
        Some(None) => {
            return Err(ApiError::Conflict(
                "you are already waiting in a queue; leave it first".into(),
            ));
        }
        Some(Some(_)) => {
            // A finished pairing is forgotten when the player queues again.
            sqlx::query("DELETE FROM lobby_queue WHERE user_id = $1")
                .bind(user.id)
                .execute(&mut *tx)
                .await?;
        }
        None => {}
    }
    sqlx::query("INSERT INTO lobby_queue (user_id, game, stake) VALUES ($1, $2, $3)")
        .bind(user.id)
        .bind(game.name())
        .bind(stake)
        .execute(&mut *tx)
        .await?;
    // One matchmaker per (game, stake) at a time; each statement after the lock sees every
    // queue row committed before it.
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
        .bind(format!("lobby:{}:{stake}", game.name()))
        .execute(&mut *tx)
        .await?;
    let seats = *game.seats().start();
    let waiting: Vec<(Uuid, String)> = sqlx::query_as(
        "SELECT q.user_id, u.username FROM lobby_queue q JOIN users u ON u.id = q.user_id
          WHERE q.game = $1 AND q.stake = $2 AND q.match_id IS NULL
          ORDER BY q.queued_at, q.user_id LIMIT $3",
    )
    .bind(game.name())
    .bind(stake)
    .bind(seats as i64)
    .fetch_all(&mut *tx)
    .await?;
    if waiting.len() == seats {
        make_match(&mut tx, settings, game, room, waiting).await?;
    }
    let view = status(&mut tx, user.id, game.name()).await?;
    tx.commit().await?;
    Ok(view)
}

async fn make_match(
    conn: &mut PgConnection,
    settings: &LobbySettings,
    game: &'static dyn games::DynGame,
    room: CoinRoom,
    mut players: Vec<(Uuid, String)>,
) -> ApiResult<()> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("OS randomness: {e}")))?;
    games::shuffle::shuffle(&mut players, &seed);
    let platform = PlatformOptions {
        turn_timeout_secs: settings.turn_timeout_secs,
        hands: None,
        buy_in: 0,
        room: Some(room),
    };
    let game_options = game.options(players.len(), &json!({}))?;
    let mut t = Table::insert(
        conn,
        NewTable {
            game,
            seats: players.len(),
            platform,
            game_options,
            created_by: None,
            tournament_id: None,
            seed: None,
            deck: None,
        },
    )
    .await?;
    for (seat, (user, name)) in players.iter().enumerate() {
        require_coins(conn, *user, t.platform().entry_coins()).await?;
        t.seat_player(conn, seat, *user, name, Via::Lobby).await?;
    }
    t.advance(conn).await?;
    t.save(conn).await?;
    let users: Vec<Uuid> = players.iter().map(|p| p.0).collect();
    sqlx::query("UPDATE lobby_queue SET match_id = $1 WHERE user_id = ANY($2)")
        .bind(t.id())
        .bind(&users)
        .execute(&mut *conn)
        .await?;
    tracing::info!(match_id = %t.id(), game = game.name(), stake = t.platform().room.as_ref().map_or(0, |r| r.stake), "coin room made");
    Ok(())
}

pub async fn get(pool: &PgPool, user: &AuthUser, game_name: &str) -> ApiResult<QueueEntry> {
    let game = coin_game(game_name)?;
    let mut conn = pool.acquire().await?;
    status(&mut conn, user.id, game.name()).await
}

pub async fn leave(pool: &PgPool, user: &AuthUser, game_name: &str) -> ApiResult<()> {
    let game = coin_game(game_name)?;
    let gone: Option<Option<Uuid>> = sqlx::query_scalar(
        "DELETE FROM lobby_queue WHERE user_id = $1 AND game = $2 RETURNING match_id",
    )
    .bind(user.id)
    .bind(game.name())
    .fetch_optional(pool)
    .await?;
    match gone {
        Some(_) => Ok(()),
        None => Err(ApiError::NotFound(format!(
            "you are not in the {} queue",
            game.name()
        ))),
    }
}
