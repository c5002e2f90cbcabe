//! Rematches (api.md § Rematches): a finished match's players asked to the same table again.
//! `POST /v1/matches/{id}/rematch` makes the new match once (same game, seat count and
//! options; a fixed seed or deck is not carried over) and seats the caller in their old seat;
//! bots are made anew in theirs, and every other player's old seat is kept for them for
//! [`RESERVED_SECS`] (a `rematch` notice on their stream tells them; they join to accept).

use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::options::PlatformOptions;
use super::table::{NewTable, Table};
use super::view::View;
use super::{BotSettings, bot_bankroll, game_named, require_coins};
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult};
use crate::notices::{self, Notice, Via};

/// How long a rematch keeps an old player's seat for them; after that anyone may take it.
pub const RESERVED_SECS: i32 = 300;

/// A seat of the finished match.
#[derive(sqlx::FromRow)]
struct OldSeat {
    seat: i32,
    user_id: Uuid,
    bot: bool,
    /// A deleted account: nobody to ask.
    gone: bool,
}

/// The rematch of match `old` for `user`: `(true, view)` when this call made it, `(false,
/// view)` when it existed already. The view is the caller's of the new match.
pub async fn rematch(
    pool: &PgPool,
    bot_settings: BotSettings,
    user: &AuthUser,
    old: Uuid,
) -> ApiResult<(bool, View)> {
    let mut tx = pool.begin().await?;
    // The old match's row lock makes concurrent calls take turns: the second finds the first's.
    let row: Option<(String, i32, Value, String, Option<Uuid>)> = sqlx::query_as(
        "SELECT game, seats, options, status, tournament_id FROM matches WHERE id = $1 FOR UPDATE",
    )
    .bind(old)
    .fetch_optional(&mut *tx)
    .await?;
    let (game, seats, options, status, tournament) =
        row.ok_or_else(|| ApiError::NotFound(format!("no match with id {old}")))?;
    let seated: Vec<OldSeat> = sqlx::query_as(
        "SELECT s.seat, s.user_id, u.bot, u.deleted_at IS NOT NULL AS gone
           FROM match_seats s JOIN users u ON u.id = s.user_id
          WHERE s.match_id = $1 ORDER BY s.seat",
    )
    .bind(old)
    .fetch_all(&mut *tx)
    .await?;
    let Some(mine) = seated.iter().find(|s| s.user_id == user.id) else {
        return Err(ApiError::Forbidden(
            "only a player seated at this match may ask for its rematch".into(),
        ));
    };
    let made: Option<Uuid> = sqlx::query_scalar("SELECT id FROM matches WHERE rematch_of = $1")
        .bind(old)
        .fetch_optional(&mut *tx)
        .await?;
    if let Some(new) = made {
        let view = Table::read(&mut tx, new).await?.view(Some(user.id));
        tx.commit().await?;
        return Ok((false, view));
    }
    let platform = PlatformOptions::from_stored(&options);
    let refuse = |why: &str| Err(ApiError::RematchNotOffered(format!("no rematch: {why}")));
    if tournament.is_some() {
        return refuse("this is a tournament table; the tournament seats its rounds");
    }
    if platform.room.is_some() {
        return refuse("this is a coin room (金币场); the lobby makes its tables");
    }
    if status != "finished" {
        return refuse(&format!("the match is {status}, not finished"));
    }
    let game = game_named(&game)?;
    let seats = seats as usize;
    let bots: Vec<usize> = seated
        .iter()
        .filter(|s| s.bot)
        .map(|s| s.seat as usize)
        .collect();
    let bot_coins = if bots.is_empty() {
        0
    } else {
        bot_bankroll(game, &platform, bot_settings, seats, bots.len(), true)?
    };
    let my_seat = mine.seat as usize;
    crate::players::lock_free_to_play(&mut tx, user.id).await?;
    require_coins(&mut tx, user.id, platform.entry_coins()).await?;
    let game_options = PlatformOptions::game_part(&options);
    let mut t = Table::insert(
        &mut tx,
        NewTable {
            game,
            seats,
            platform,
            game_options,
            created_by: Some(user.id),
            tournament_id: None,
            seed: None,
            deck: None,
        },
    )
    .await?;
    let new = t.id();
    sqlx::query("UPDATE matches SET rematch_of = $2 WHERE id = $1")
        .bind(new)
        .bind(old)
        .execute(&mut *tx)
        .await?;
    t.seat_player(&mut tx, my_seat, user.id, &user.username, Via::Rematch)
        .await?;
    for &seat in &bots {
        t.seat_bot(&mut tx, seat, bot_coins).await?;
    }
    for s in seated
        .iter()
        .filter(|s| !s.bot && !s.gone && s.user_id != user.id)
    {
        let notice = Notice::Rematch {
            match_id: new,
            from: old,
            game: game.name(),
            seat: s.seat as usize,
            by: user.username.clone(),
        };
        notices::push(&mut tx, s.user_id, &notice).await?;
    }
    t.advance(&mut tx).await?;
    t.save(&mut tx).await?;
    tx.commit().await?;
    tracing::info!(match_id = %new, rematch_of = %old, "rematch created");
    Ok((true, t.view(Some(user.id))))
}

/// The seats of rematch `id` still kept for the players of the match before it, by seat
/// (none when `id` is no rematch, or its reservation has lapsed).
pub async fn reserved(conn: &mut PgConnection, id: Uuid) -> ApiResult<Vec<(usize, Uuid)>> {
    let rows: Vec<(i32, Uuid)> = sqlx::query_as(
        "SELECT s.seat, s.user_id
           FROM matches m JOIN match_seats s ON s.match_id = m.rematch_of
           JOIN users u ON u.id = s.user_id
          WHERE m.id = $1 AND NOT u.bot AND u.deleted_at IS NULL
            AND m.created_at > now() - make_interval(secs => $2)",
    )
    .bind(id)
    .bind(f64::from(RESERVED_SECS))
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().map(|(s, u)| (s as usize, u)).collect())
}

/// The seat a player takes at a table whose `reserved` seats are kept for others: the one
/// asked for, unless kept for someone else; else their own kept seat, or the first free seat
/// kept for nobody. `free(seat)` says whether a seat is empty.
pub fn choose_seat(
    reserved: &[(usize, Uuid)],
    user: Uuid,
    asked: Option<usize>,
    seats: usize,
    free: impl Fn(usize) -> bool,
) -> ApiResult<Option<usize>> {
    let kept_for = |seat: usize| reserved.iter().find(|r| r.0 == seat).map(|r| r.1);
    match asked {
        Some(seat) => match kept_for(seat) {
            Some(u) if u != user => Err(ApiError::SeatReserved(format!(
                "seat {seat} of this rematch is kept for the player who sat in it before"
            ))),
            _ => Ok(Some(seat)),
        },
        None => {
            if let Some(&(seat, _)) = reserved.iter().find(|r| r.1 == user) {
                return Ok(Some(seat));
            }
            let open = (0..seats).filter(|&s| free(s));
            let mut any_free = false;
            for seat in open {
                any_free = true;
                if kept_for(seat).is_none() {
                    return Ok(Some(seat));
                }
            }
            if any_free {
                return Err(ApiError::SeatReserved(
                    "every free seat of this rematch is kept for the players of the match \
                     before it"
                        .into(),
                ));
            }
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_seats_go_to_their_players_and_strangers_take_the_others() {
        let (a, b, c) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let kept = [(1, a), (2, b)];
        let free = |s: usize| s != 0;
        // Their own kept seat, asked for or not.
        assert_eq!(choose_seat(&kept, a, None, 4, free).unwrap(), Some(1));
        assert_eq!(choose_seat(&kept, b, Some(2), 4, free).unwrap(), Some(2));
        // Another's kept seat is refused; a stranger gets the free seat kept for nobody.
        let e = choose_seat(&kept, c, Some(1), 4, free).unwrap_err();
        assert_eq!(e.code(), "seat_reserved");
        assert_eq!(choose_seat(&kept, c, None, 4, free).unwrap(), Some(3));
        // With only kept seats free, a stranger is refused; with none free, nothing is chosen.
        let e = choose_seat(&kept, c, None, 3, free).unwrap_err();
        assert_eq!(e.code(), "seat_reserved");
        assert_eq!(choose_seat(&kept, c, None, 4, |_| false).unwrap(), None);
        // No rematch: nothing is kept.
        assert_eq!(choose_seat(&[], c, None, 4, free).unwrap(), Some(1));
    }
}
