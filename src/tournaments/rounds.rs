//! The tournament driver: starts a tournament (the field, the fees, round 1), seats a round's
//! tables, closes a round whose tables have all finished and pays the final's winners. `tick`
//! is one pass of it, run by every server process's sweeper.

use std::collections::HashMap;

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::TournamentPlayer;
use super::bracket::{self, Contender};
use super::settings::format_of;
use super::store::{self, TournamentRow, live_scores, table_scores};
use crate::error::{ApiError, ApiResult};
use crate::ledger::{self, Party, Reason, TxMeta};
use crate::matches::options::PlatformOptions;
use crate::matches::table::{NewTable, Table, TournamentSeat};
use crate::notices::{self, Notice, Via};

pub(super) async fn start(conn: &mut PgConnection, mut t: TournamentRow) -> ApiResult<()> {
    let registered = store::players(conn, t.id).await?;
    let users: Vec<Uuid> = registered.iter().map(|p| p.user_id).collect();
    let balances = ledger::lock_balances(conn, &users).await?;
    // Registrants who can no longer pay the fee are passed over like late registrants.
    let able: Vec<&TournamentPlayer> = registered
        .iter()
        .zip(&balances)
        .filter(|(_, b)| **b >= t.entry_fee)
        .map(|(p, _)| p)
        .collect();
    let format = format_of(&t.game)?;
    let table_size = format.table_size;
    let field = format.field_size(able.len());
    let in_field: Vec<Uuid> = able.iter().take(field).map(|p| p.user_id).collect();
    store::set_field(conn, t.id, &in_field).await?;
    if field == 0 {
        store::cancel_at_start(conn, t.id).await?;
        tracing::info!(tournament_id = %t.id, registered = registered.len(), table_size, "tournament cancelled: too few players for one table");
        return Ok(());
    }
    let pool_total = t.entry_fee * field as i64;
    let meta = TxMeta {
        reason: Reason::TournamentFee,
        tournament_id: Some(t.id),
        ..TxMeta::default()
    };
    let mut legs: Vec<(Party, i64)> = in_field
        .iter()
        .map(|&u| (Party::User(u), -t.entry_fee))
        .collect();
    legs.push((Party::TournamentEscrow(t.id), pool_total));
    ledger::transfer(conn, &meta, &legs).await?;
    store::set_running(conn, t.id, pool_total).await?;
    t.prize_pool = pool_total;
    t.round = 1;
    let mut seed = [0u8; 32];
    seed.copy_from_slice(&t.seed[..32]);
    let mut order = in_field;
    games::shuffle::shuffle(&mut order, &seed);
    tracing::info!(tournament_id = %t.id, players = field, prize_pool = pool_total, "tournament started");
    seat_round(conn, &t, 1, &order).await
}

/// Seats `order` at tables of the game's size for `round` and deals.
async fn seat_round(
    conn: &mut PgConnection,
    t: &TournamentRow,
    round: i32,
    order: &[Uuid],
) -> ApiResult<()> {
    let game = games::game(&t.game).ok_or_else(|| {
        ApiError::Internal(anyhow::anyhow!("tournament of unknown game {}", t.game))
    })?;
    let format = format_of(&t.game)?;
    let (platform, game_options) = PlatformOptions::split(Some(&t.options))?;
    let names = store::usernames(conn, order).await?;
    // 托管 follows a player from table to table until they act again.
    let auto = store::in_auto_before(conn, t.id, round).await?;
    for (table_no, group) in order.chunks(format.table_size).enumerate() {
        // Partners (a pair advanced together) sit opposite.
        let group = &format.seating(group)[..];
        let mut table = Table::insert(
            conn,
            NewTable {
                game,
                seats: format.table_size,
                platform: PlatformOptions {
                    hands: Some(t.hands_per_round as u32),
                    ..platform.clone()
                },
                game_options: game_options.clone(),
                created_by: Some(t.created_by),
                tournament_id: Some(t.id),
                seed: None,
                deck: None,
            },
        )
        .await?;
        table.set_tournament(TournamentSeat {
            id: t.id,
            round,
            table_no: table_no as i32,
            prize_pool: t.prize_pool,
        });
        for (seat, user) in group.iter().enumerate() {
            let name = names.get(user).map_or("", String::as_str);
            table
                .seat_player(conn, seat, *user, name, Via::Tournament)
                .await?;
            if auto.contains(user) {
                table.put_in_auto(seat);
            }
        }
        table.advance(conn).await?;
        table.save(conn).await?;
        store::insert_table(conn, t.id, round, table_no as i32, table.id(), group).await?;
        notices::push_many(
            conn,
            group,
            &Notice::TournamentTable {
                tournament_id: t.id,
                round,
                table_no: table_no as i32,
                match_id: table.id(),
            },
        )
        .await?;
    }
    Ok(())
}

/// Closes a round whose tables have all finished: records scores, advances the winners (one
/// per table, or a pair of fixed partners), and seats the next round or pays the prize.
async fn close_round(conn: &mut PgConnection, t: TournamentRow) -> ApiResult<()> {
    let format = format_of(&t.game)?;
    let all = store::tables(conn, t.id).await?;
    let live = live_scores(conn, t.id).await?;
    let players = store::players(conn, t.id).await?;
    let info: HashMap<Uuid, &TournamentPlayer> = players.iter().map(|p| (p.user_id, p)).collect();
    let mut winners = Vec::new();
    for table in all.iter().filter(|x| x.round == t.round) {
        let scores = table_scores(table, &live);
        let contenders: Vec<Contender> = table
            .players
            .iter()
            .zip(&scores)
            .map(|(u, &score)| {
                let p = info.get(u);
                Contender {
                    score,
                    reg_no: p.map_or(i32::MAX, |p| p.reg_no),
                    escaped: p.is_some_and(|p| p.escaped),
                }
            })
            .collect();
        let advancing: Vec<Uuid> = format
            .advancers(&contenders)
            .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("empty tournament table")))?
            .into_iter()
            .map(|seat| table.players[seat])
            .collect();
        winners.extend(&advancing);
        store::record_table(conn, t.id, t.round, table.table_no, &scores, &advancing).await?;
        let losers: Vec<Uuid> = table
            .players
            .iter()
            .copied()
            .filter(|u| !advancing.contains(u))
            .collect();
        store::eliminate(conn, t.id, &losers, t.round).await?;
        // Escapers were told when they escaped.
        let lost: Vec<Uuid> = losers
            .iter()
            .copied()
            .filter(|u| !info.get(u).is_some_and(|p| p.escaped))
            .collect();
        notices::push_many(
            conn,
            &lost,
            &Notice::Eliminated {
                tournament_id: t.id,
                round: t.round,
                escaped: false,
            },
        )
        .await?;
    }
    if winners.len() <= format.advance {
        return finish(conn, &t, &players, winners).await;
    }
    let next = t.round + 1;
    store::set_round(conn, t.id, next).await?;
    tracing::info!(tournament_id = %t.id, round = next, players = winners.len(), "tournament round seated");
    seat_round(conn, &t, next, &winners).await
}

/// The final is over: its winners (one player, or a pair) share the pool equally, the earlier
/// registrant taking a coin that does not divide; an escaper among them takes no share
/// ([`bracket::prize_winners`]).
async fn finish(
    conn: &mut PgConnection,
    t: &TournamentRow,
    players: &[TournamentPlayer],
    mut winners: Vec<Uuid>,
) -> ApiResult<()> {
    let reg_no = |u: &Uuid| {
        players
            .iter()
            .find(|p| p.user_id == *u)
            .map_or(i32::MAX, |p| p.reg_no)
    };
    winners.sort_by_key(reg_no);
    let escaped = |u: &Uuid| players.iter().any(|p| p.user_id == *u && p.escaped);
    let winners =
        bracket::prize_winners(&winners.iter().map(|u| (*u, escaped(u))).collect::<Vec<_>>());
    if t.prize_pool > 0 {
        let meta = TxMeta {
            reason: Reason::TournamentPrize,
            tournament_id: Some(t.id),
            ..TxMeta::default()
        };
        let mut legs: Vec<(Party, i64)> = winners
            .iter()
            .zip(bracket::shares(t.prize_pool, winners.len()))
            .map(|(&u, share)| (Party::User(u), share))
            .collect();
        legs.push((Party::TournamentEscrow(t.id), -t.prize_pool));
        ledger::transfer(conn, &meta, &legs).await?;
    }
    store::set_finished(conn, t.id, &winners).await?;
    let field: Vec<Uuid> = players
        .iter()
        .filter(|p| p.in_field == Some(true))
        .map(|p| p.user_id)
        .collect();
    notices::push_many(
        conn,
        &field,
        &Notice::TournamentFinished {
            tournament_id: t.id,
            winners: winners.clone(),
        },
    )
    .await?;
    tracing::info!(tournament_id = %t.id, winners = ?winners, prize = t.prize_pool, "tournament finished");
    Ok(())
}

/// One pass of the tournament driver (run by every server process's sweeper): starts due
/// tournaments and closes finished rounds. Returns how many steps it took.
pub async fn tick(pool: &PgPool) -> ApiResult<usize> {
    let mut steps = 0;
    loop {
        let mut tx = pool.begin().await?;
        let Some(id) = store::lock_next_due(&mut tx).await? else {
            break;
        };
        let t = store::load(&mut tx, id, true).await?;
        start(&mut tx, t).await?;
        tx.commit().await?;
        steps += 1;
    }
    loop {
        let mut tx = pool.begin().await?;
        let Some(id) = store::lock_next_round_over(&mut tx).await? else {
            break;
        };
        let t = store::load(&mut tx, id, true).await?;
        close_round(&mut tx, t).await?;
        tx.commit().await?;
        steps += 1;
    }
    Ok(steps)
}
