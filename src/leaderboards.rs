//! 积分 leaderboards (`GET /v1/leaderboards/{game}`): every player's points in one game, best
//! first, paged by an opaque cursor, with the caller's own place. Bots and deleted accounts
//! are not on them.

use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};

/// The most entries one page holds.
pub const MAX_LIMIT: i64 = 100;
/// Entries per page when `limit` is absent.
pub const DEFAULT_LIMIT: i64 = 50;

/// One page of a game's leaderboard.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Leaderboard {
    #[schema(value_type = crate::api_types::GameName)]
    game: &'static str,
    /// Best first: points descending, then username (byte order).
    entries: Vec<Entry>,
    /// Pass as `cursor` for the next page; null on the last.
    #[schema(required = true)]
    next_cursor: Option<String>,
    /// The caller's place; null when they have no 积分 in this game yet.
    #[schema(required = true)]
    me: Option<Mine>,
}

/// A player on the board.
#[derive(Serialize, sqlx::FromRow, utoipa::ToSchema)]
#[schema(as = LeaderboardEntry)]
pub struct Entry {
    /// 1 + the number of players with more points: ties share a rank.
    rank: i64,
    user_id: Uuid,
    username: String,
    /// 积分 in this game.
    points: i64,
}

/// The caller's own place.
#[derive(Serialize, sqlx::FromRow, utoipa::ToSchema)]
#[schema(as = LeaderboardMe)]
pub struct Mine {
    rank: i64,
    points: i64,
}

/// A page's position: the last entry's points and username.
fn encode(points: i64, username: &str) -> String {
    format!("{points}_{username}")
}

fn decode(cursor: &str) -> ApiResult<(i64, String)> {
    cursor
        .split_once('_')
        .and_then(|(p, u)| Some((p.parse().ok()?, u)))
        .filter(|(_, u)| !u.is_empty())
        .map(|(p, u)| (p, u.to_string()))
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "cursor must be the next_cursor of an earlier page, got {cursor:?}"
            ))
        })
}

/// A page of `game`'s board after `cursor`, with `user`'s place.
pub async fn page(
    pool: &PgPool,
    user: Uuid,
    game: &str,
    limit: Option<i64>,
    cursor: Option<&str>,
) -> ApiResult<Leaderboard> {
    let game = games::game(game)
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "no game {game:?}; games: {}",
                games::names().join(", ")
            ))
        })?
        .name();
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::BadRequest(format!(
            "limit must be from 1 to {MAX_LIMIT}, got {limit}"
        )));
    }
    let after = cursor.map(decode).transpose()?;
    let rows: Vec<Entry> = sqlx::query_as(
        "WITH board AS (
             SELECT s.user_id, u.username, s.points,
                    rank() OVER (ORDER BY s.points DESC) AS rank
               FROM scores s JOIN users u ON u.id = s.user_id
              WHERE s.game = $1 AND NOT u.bot AND u.deleted_at IS NULL)
         SELECT rank, user_id, username, points FROM board
          WHERE $2::bigint IS NULL OR points < $2
                OR (points = $2 AND username COLLATE \"C\" > $3::text COLLATE \"C\")
          ORDER BY points DESC, username COLLATE \"C\" LIMIT $4",
    )
    .bind(game)
    .bind(after.as_ref().map(|a| a.0))
    .bind(after.as_ref().map(|a| a.1.as_str()))
    .bind(limit + 1)
    .fetch_all(pool)
    .await?;
    let (entries, next) = crate::cursor::page(rows, limit, |e| encode(e.points, &e.username));
    let me: Option<Mine> = sqlx::query_as(
        "SELECT 1 + (SELECT count(*) FROM scores o JOIN users u ON u.id = o.user_id
                      WHERE o.game = s.game AND o.points > s.points
                        AND NOT u.bot AND u.deleted_at IS NULL) AS rank,
                s.points
           FROM scores s WHERE s.game = $1 AND s.user_id = $2",
    )
    .bind(game)
    .bind(user)
    .fetch_optional(pool)
    .await?;
    Ok(Leaderboard {
        game,
        entries,
        next_cursor: next,
        me,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_and_garbage_is_refused() {
        for (p, u) in [(37, "alice"), (-5, "bob_2"), (0, "_x")] {
            assert_eq!(decode(&encode(p, u)).unwrap(), (p, u.to_string()));
        }
        for bad in ["", "_", "12", "x_alice", "12_", "1.5_a"] {
            assert!(decode(bad).is_err(), "{bad:?}");
        }
    }
}
