//! What every path that commits a player somewhere (a seat, a lobby queue, a tournament) must
//! check first, below both matches and tournaments.
//!
//! Each such transaction starts with [`lock_free_to_play`]: it locks the player's `users` row,
//! so two requests of one player that would each commit them somewhere run one after the other,
//! and the second sees what the first committed (READ COMMITTED re-reads after a lock wait).

use sqlx::PgConnection;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};
use crate::notices::Notice;

/// Locks the player's row for this transaction; 401 when the account no longer exists (a
/// token outlives its user).
pub async fn lock(conn: &mut PgConnection, user: Uuid) -> ApiResult<()> {
    sqlx::query_scalar::<_, i32>(
        "SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE",
    )
    .bind(user)
    .fetch_optional(conn)
    .await?
    .map(|_| ())
    .ok_or_else(gone)
}

/// Refuses an id that is not a player's account: 404 for none or a deleted one, 409 for a
/// server-side bot (its coins and role are the server's).
pub async fn player_account<'c>(conn: impl sqlx::PgExecutor<'c>, id: Uuid) -> ApiResult<()> {
    let bot: Option<bool> =
        sqlx::query_scalar("SELECT bot FROM users WHERE id = $1 AND deleted_at IS NULL")
            .bind(id)
            .fetch_optional(conn)
            .await?;
    match bot {
        None => Err(ApiError::NotFound(format!("no user with id {id}"))),
        Some(true) => Err(ApiError::Conflict(format!(
            "{id} is a server-side bot: the house funds it at its tables, and its account \
             takes no grants or roles"
        ))),
        Some(false) => Ok(()),
    }
}

fn gone() -> ApiError {
    ApiError::Unauthorized("the account of this token no longer exists".into())
}

/// Locks the player (see the module doc) and refuses when a tournament that is not over holds
/// them: a registered player stays in its lobby (seed: 只能停留在大厅).
pub async fn lock_free_to_play(conn: &mut PgConnection, user: Uuid) -> ApiResult<()> {
    lock(conn, user).await?;
    let busy: Option<String> = sqlx::query_scalar(
        "SELECT t.name FROM tournament_players p JOIN tournaments t ON t.id = p.tournament_id
          WHERE p.user_id = $1 AND t.status IN ('registering', 'running')
            AND p.in_field IS NOT FALSE AND p.eliminated_round IS NULL
          LIMIT 1",
    )
    .bind(user)
    .fetch_optional(conn)
    .await?;
    match busy {
        Some(name) => Err(ApiError::Conflict(format!(
            "you are registered in the tournament {name:?}: until you withdraw, are eliminated \
             or it ends, you can only play its tables"
        ))),
        None => Ok(()),
    }
}

/// Refuses a player who sits at a table that is not over or waits in a lobby queue: a player
/// registering for a tournament must be free of both (the tournament then keeps them).
pub async fn ensure_not_seated_or_queued(conn: &mut PgConnection, user: Uuid) -> ApiResult<()> {
    let elsewhere: Option<String> = sqlx::query_scalar(
        "SELECT 'sit at the match ' || m.id FROM match_seats s JOIN matches m ON m.id = s.match_id
          WHERE s.user_id = $1 AND m.status IN ('waiting', 'playing')
         UNION ALL
         SELECT 'wait in the lobby queue' FROM lobby_queue WHERE user_id = $1 AND match_id IS NULL
         LIMIT 1",
    )
    .bind(user)
    .fetch_optional(conn)
    .await?;
    match elsewhere {
        Some(place) => Err(ApiError::Conflict(format!(
            "you {place}: leave it before registering for a tournament"
        ))),
        None => Ok(()),
    }
}

/// Refuses a player who sits in a coin room (金币场) that is not over: one coin room at a time.
pub async fn ensure_not_in_coin_room(conn: &mut PgConnection, user: Uuid) -> ApiResult<()> {
    let seated: Option<Uuid> = sqlx::query_scalar(
        "SELECT m.id FROM match_seats s JOIN matches m ON m.id = s.match_id
          WHERE s.user_id = $1 AND m.status IN ('waiting', 'playing')
            AND m.options->>'room' = 'coin'
          LIMIT 1",
    )
    .bind(user)
    .fetch_optional(conn)
    .await?;
    match seated {
        Some(id) => Err(ApiError::Conflict(format!(
            "you sit in the coin room {id}: leave it before queueing for another"
        ))),
        None => Ok(()),
    }
}

/// 逃跑 at a tournament table: the player is out of tournament `tid` at once (eliminated in
/// the current round) and marked as an escaper, who never advances.
pub async fn escape_tournament(conn: &mut PgConnection, tid: Uuid, user: Uuid) -> ApiResult<()> {
    let round: Option<i32> = sqlx::query_scalar(
        "UPDATE tournament_players p SET escaped = true,
                eliminated_round = COALESCE(p.eliminated_round, t.round)
           FROM tournaments t WHERE t.id = p.tournament_id AND p.tournament_id = $1
            AND p.user_id = $2
         RETURNING p.eliminated_round",
    )
    .bind(tid)
    .bind(user)
    .fetch_optional(&mut *conn)
    .await?
    .flatten();
    if let Some(round) = round {
        let notice = Notice::Eliminated {
            tournament_id: tid,
            round,
            escaped: true,
        };
        crate::notices::push(conn, user, &notice).await?;
    }
    Ok(())
}

/// Whether `user` escaped from tournament `tid` (their seat is played for them now).
pub async fn escaped_tournament(conn: &mut PgConnection, tid: Uuid, user: Uuid) -> ApiResult<bool> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM tournament_players
                         WHERE tournament_id = $1 AND user_id = $2 AND escaped)",
    )
    .bind(tid)
    .bind(user)
    .fetch_one(conn)
    .await?)
}
