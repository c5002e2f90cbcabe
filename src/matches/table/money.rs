//! Carrying out an engine's outcome: coins through the ledger, 积分, coin-room fees and
//! shortfalls, the hand's result.

use std::sync::{LazyLock, OnceLock};

use super::store::{Columns, GUARD_SLOT, PARTS, save_ctes};
use super::*;
use crate::ledger::{GO, Legs, TRANSFER_CTES, shift_params};

/// The common table expressions of a hand's end, after [`TRANSFER_CTES`] (its settlement):
/// `$10` the match, `$11` the hand ended (NULL: none), `$12` its result, `$13`/`$14` each
/// seat's player in the hand ([`Table::hand_player`]; NULL: none) and its 积分 for it, `$15`
/// the game. `h` holds the `hands` row it ended (none when that hand was settled already);
/// `up` each player's 积分 after it.
/// Like the transfer, gated by `go`.
const END_CTES: &str = "
    h AS (UPDATE hands SET ended_at = now(), result = $12
           WHERE match_id = $10 AND hand_no = $11 AND ended_at IS NULL
             AND EXISTS (SELECT FROM go) RETURNING 1),
    d AS (SELECT * FROM unnest($13::uuid[], $14::bigint[]) AS d(user_id, delta)
           WHERE user_id IS NOT NULL AND EXISTS (SELECT FROM go)),
    up AS (INSERT INTO scores (user_id, game, points) SELECT user_id, $15, delta FROM d
           ON CONFLICT (user_id, game) DO UPDATE SET points = scores.points + EXCLUDED.points
           RETURNING user_id, points),
    se AS (INSERT INTO score_entries (user_id, game, match_id, hand_no, delta, points_after)
           SELECT d.user_id, $15, $10, $11, d.delta, up.points FROM d JOIN up USING (user_id))";

/// After [`END_CTES`]: `w` holds the wallet and 积分 of each of the users `$16`, in their order
/// (`ord`), after the settlement.
const WALLETS_CTE: &str = "
    w AS (SELECT s.ord, COALESCE(u.balance, acc.balance, 0) AS balance,
                 COALESCE(up.points, sc.points, 0) AS points
            FROM unnest($16::uuid[]) WITH ORDINALITY AS s(user_id, ord)
            LEFT JOIN accounts acc ON acc.user_id = s.user_id
            LEFT JOIN u ON u.id = acc.id
            LEFT JOIN up ON up.user_id = s.user_id
            LEFT JOIN scores sc ON sc.user_id = s.user_id AND sc.game = $15)";

/// The condition a deal saved with the hand's end before it puts on the save
/// ([`Table::end_if_unmoved`], in `v` at [`GUARD_SLOT`]), numbered as [`WALLETS_CTE`]'s
/// followers: the wallets `$18` and 积分 `$19` of the users `$17` (by seat) before the end
/// are those in the ledger. Read in the statement's snapshot, as [`WALLETS_CTE`] reads the
/// wallets the end does not move.
const WALLETS_GUARD: &str = "
    WHERE NOT EXISTS (
        SELECT FROM unnest($17::uuid[], $18::bigint[], $19::bigint[]) AS g(user_id, wallet, points)
          LEFT JOIN accounts ga ON ga.user_id = g.user_id
          LEFT JOIN scores gs ON gs.user_id = g.user_id AND gs.game = $15
         WHERE g.user_id IS NULL
            OR COALESCE(ga.balance, 0) IS DISTINCT FROM g.wallet
            OR COALESCE(gs.points, 0) IS DISTINCT FROM g.points)";

/// After the guarded statement's writes (a column of its final `SELECT`): the wallets and 积分
/// [`WALLETS_CTE`] leaves are those the deal was made from, `$20` and `$21` by seat, or the
/// statement aborts (`paiju_unchanged`, migration 0009: SQLSTATE 40001, nothing written). The
/// guard read the statement's snapshot; a wallet the end pays into is updated at its latest
/// committed value, which a transfer committed after that snapshot may have changed.
const UNCHANGED_CHECK: &str = "
    (SELECT bool_and(paiju_unchanged(NOT EXISTS (SELECT FROM go)
                                     OR (w.balance = x.wallet AND w.points = x.points)))
       FROM w JOIN unnest($20::bigint[], $21::bigint[]) WITH ORDINALITY AS x(wallet, points, ord)
            USING (ord))";

/// What [`Table::end_if_unmoved`]'s statement did.
pub enum EndStatement {
    /// The move and the hand's end (and the deal, for a table dealt over it) are committed;
    /// the wallets and 积分 of the seated players after them, by seat.
    Written(Vec<i64>, Vec<i64>),
    /// Nothing written: the row had left the loaded version (or the statement failed in a way
    /// the transactional path decides).
    RowMoved,
    /// Nothing written for a table dealt over its end: the wallets or 积分 it was dealt from
    /// are not the ledger's (or the statement failed in a way the transactional path decides).
    NotPredicted,
}

/// [`Table::settle`]'s statement.
pub(super) static SETTLE_SQL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH {GO}, {TRANSFER_CTES}, {END_CTES}
         SELECT (SELECT count(*) FROM h), (SELECT count(*) FROM e)"
    )
});

/// [`Table::settle_and_deal`]'s statement.
pub(super) static SETTLE_AND_DEAL_SQL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH {GO}, {TRANSFER_CTES}, {END_CTES}, {WALLETS_CTE},
             nh AS (INSERT INTO hands (match_id, hand_no, seed, commitment, deck,
                                       start_state, wallets, scores, start_ms, users)
                    SELECT $10, $17, $18, $19, $20, $21::jsonb,
                           jsonb_agg(balance ORDER BY ord), jsonb_agg(points ORDER BY ord),
                           $22, $16
                      FROM w
                    RETURNING wallets, scores)
             SELECT (SELECT count(*) FROM h), (SELECT count(*) FROM e), nh.wallets,
                    nh.scores
               FROM nh"
    )
});

/// [`Table::end_if_unmoved`]'s statement for a save with the optional parts in `mask`
/// ([`save_ctes`]), `guarded` for a deal predicted over the end.
pub(super) fn end_if_unmoved_sql(mask: usize, guarded: bool) -> &'static str {
    static SQL: [OnceLock<String>; 2 << PARTS] = [const { OnceLock::new() }; 2 << PARTS];
    SQL[mask | usize::from(guarded) << PARTS].get_or_init(|| {
        let (save, params) = save_ctes(mask);
        let after_save = |ctes| shift_params(ctes, *params);
        let (guard, check) = if guarded {
            (
                after_save(WALLETS_GUARD),
                format!(", {}", after_save(UNCHANGED_CHECK)),
            )
        } else {
            Default::default()
        };
        format!(
            "WITH {}, go AS (SELECT FROM m), {}, {}, {}
                 SELECT (SELECT count(*) FROM m), (SELECT count(*) FROM h),
                        (SELECT count(*) FROM e),
                        (SELECT jsonb_agg(balance ORDER BY ord) FROM w),
                        (SELECT jsonb_agg(points ORDER BY ord) FROM w),
                        (SELECT count(*) FROM v){check}",
            save.replacen(GUARD_SLOT, &guard, 1),
            after_save(TRANSFER_CTES),
            after_save(END_CTES),
            after_save(WALLETS_CTE)
        )
    })
}

/// The `hands` row of a hand being dealt, as [`Table::settle_and_deal`] writes it.
pub(super) struct NewHand<'a> {
    pub hand_no: i32,
    /// The hand's seed, revealed with the replay (none for a deck fixed by the creator).
    pub seed: Option<Vec<u8>>,
    pub commitment: &'a str,
    pub deck: Value,
    pub start_state: &'a str,
    pub start_ms: i64,
}

/// A pending hand end taken from its table, bound to a statement by [`EndParams::bind`].
struct EndParams {
    meta: TxMeta,
    legs: Legs,
    ended: Option<i32>,
    result: Option<Value>,
    users: Vec<Option<Uuid>>,
    points: Vec<i64>,
}

impl EndParams {
    /// Binds the parameters of [`TRANSFER_CTES`] and [`END_CTES`], in order, for match `id`
    /// of `game`.
    fn bind<'q>(self, id: Uuid, game: &'static str, q: ledger::PgQuery<'q>) -> ledger::PgQuery<'q> {
        self.legs
            .bind(&self.meta, q)
            .bind(id)
            .bind(self.ended)
            .bind(self.result)
            .bind(self.users)
            .bind(self.points)
            .bind(game)
    }
}

impl Table {
    pub(super) async fn carry_out(
        &mut self,
        conn: &mut PgConnection,
        outcome: Outcome,
    ) -> Result<(), ApiError> {
        let hand_no = self.hand_no();
        self.push_events(hand_no, outcome.events);
        let settlement = self.move_money(conn, hand_no, &outcome.money).await?;
        let Some(result) = outcome.hand_end else {
            // Coins handed back during a hand (扯旋: a folded seat leaves with the rest of its
            // 簸簸) move at once; the hand's one settlement comes at its end.
            let meta = self.tx_meta(Reason::StakeReturn, hand_no);
            return self.transfer(conn, &meta, &settlement).await;
        };
        self.settle(conn).await?;
        let (ended, units) = (result.hand_no as i32, result.units.clone());
        let mut detail = self.end_hand(result, settlement);
        if let Some(room) = self.platform.room.clone() {
            let coins = self.settle_room(conn, &room, ended, &units).await?;
            detail["room_coins"] = json!(coins);
        }
        self.announce_end(detail);
        Ok(())
    }

    /// [`Table::carry_out`] in memory alone, for the fast path: `None` when the outcome
    /// needs more than a save statement can write — coins other than stakes and the hand's
    /// payouts, coins handed back during the hand, a coin room's settlement, or stakes beside
    /// a hand's end (two ledger transactions whose order one statement would not fix). Else
    /// whether the hand ended (its end pending, for [`Table::end_if_unmoved`]).
    pub(super) fn carry_out_in_memory(&mut self, outcome: Outcome) -> Option<bool> {
        let hand_no = self.hand_no();
        self.push_events(hand_no, outcome.events);
        let escrow = Party::MatchEscrow(self.id);
        let mut settlement = Vec::new();
        for m in &outcome.money {
            match *m {
                Money::Stake { seat, amount } => {
                    let user = self.user_at(seat).ok()?;
                    if let Some(w) = self.purse.as_mut().and_then(|p| p.wallets.get_mut(seat)) {
                        *w -= amount;
                    }
                    if amount != 0 {
                        self.stakes.push(PendingStake {
                            hand_no,
                            user,
                            amount,
                        });
                    }
                }
                Money::Payout { seat, amount } => {
                    settlement.push((Party::User(self.user_at(seat).ok()?), amount));
                    settlement.push((escrow, -amount));
                }
                Money::Forfeit { .. } | Money::Penalty { .. } => return None,
            }
        }
        let Some(result) = outcome.hand_end else {
            return settlement.is_empty().then_some(false);
        };
        if self.platform.room.is_some() || !self.stakes.is_empty() {
            return None;
        }
        let detail = self.end_hand(result, settlement);
        self.announce_end(detail);
        Some(true)
    }

    /// Leaves the hand's end pending (written by the next statement) and returns its result
    /// as the `hand_ended` event carries it.
    fn end_hand(&mut self, result: HandResult, settlement: Vec<(Party, i64)>) -> Value {
        let detail = json!({
            "hand_no": result.hand_no,
            "points": result.points,
            "coins": result.coins,
            "detail": result.detail,
        });
        let users = (0..result.points.len())
            .map(|seat| self.hand_player(seat))
            .collect();
        self.ending = Some(PendingEnd {
            hand_no: result.hand_no as i32,
            result: detail.clone(),
            settlement,
            users,
            points: result.points,
        });
        detail
    }

    /// The `hand_ended` event, and the result the views show until the next hand's.
    fn announce_end(&mut self, detail: Value) {
        self.platform_event(events::HAND_ENDED, None, detail.clone());
        self.last_result = Some(detail);
    }

    /// Writes the hand end left by [`Table::carry_out`], if any, in one statement: the
    /// settlement's ledger transaction, the `hands` row's result (refused when the hand was
    /// settled already) and the 积分 of every seated player.
    pub(super) async fn settle(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        if self.ending.is_none() {
            return Ok(());
        }
        self.send_end(conn, SETTLE_SQL.as_str(), |q| q).await?;
        Ok(())
    }

    /// Writes the pending hand end, if any, and the `hands` row of the hand dealt next, in one
    /// statement; returns the wallets and 积分 of `users` after that settlement, in their
    /// order, as the row records them (with `users`, the players dealt in by seat: a hand is
    /// dealt only at a full table).
    pub(super) async fn settle_and_deal(
        &mut self,
        conn: &mut PgConnection,
        users: &[Uuid],
        hand: NewHand<'_>,
    ) -> Result<(Vec<i64>, Vec<i64>), ApiError> {
        let row = self
            .send_end(conn, SETTLE_AND_DEAL_SQL.as_str(), |q| {
                q.bind(users)
                    .bind(hand.hand_no)
                    .bind(hand.seed)
                    .bind(hand.commitment)
                    .bind(hand.deck)
                    .bind(hand.start_state)
                    .bind(hand.start_ms)
            })
            .await?;
        let Json(wallets) = row.try_get(2)?;
        let Json(scores) = row.try_get(3)?;
        Ok((wallets, scores))
    }

    /// Sends a statement made of [`TRANSFER_CTES`] and [`END_CTES`] (the pending end's, or
    /// empty ones), with `more` parameters bound after theirs, whose first two columns count
    /// the `hands` rows it ended and the ledger entries it wrote; checks that the ended hand's
    /// row was ended by it (and by nothing before) and that every party's account was there.
    async fn send_end<'q>(
        &mut self,
        conn: &mut PgConnection,
        sql: &'static str,
        more: impl FnOnce(ledger::PgQuery<'q>) -> ledger::PgQuery<'q>,
    ) -> Result<PgRow, ApiError> {
        let end = self.take_end()?;
        if end.ended.is_some() {
            // Coins and 积分 moved; the deal that follows (if any) knows them again.
            self.purse = None;
        }
        let (ended, entries) = (end.ended, end.legs.len());
        let q = end.bind(self.id, self.game.name(), sqlx::query(sql));
        self.statements += 1;
        let row = more(q).fetch_one(&mut *conn).await?;
        self.check_end(ended, entries, &row, 0)?;
        Ok(row)
    }

    /// The pending end, taken, as the parameters of [`TRANSFER_CTES`] and [`END_CTES`] (empty
    /// ones when there is none).
    fn take_end(&mut self) -> Result<EndParams, ApiError> {
        let end = self.ending.take();
        let ended = end.as_ref().map(|e| e.hand_no);
        let meta = self.tx_meta(Reason::HandSettlement, ended.unwrap_or(0));
        let (settlement, result, users, points) = match end {
            Some(e) => (e.settlement, Some(e.result), e.users, e.points),
            None => Default::default(),
        };
        let legs = Legs::net(&meta, &settlement)?;
        Ok(EndParams {
            meta,
            legs,
            ended,
            result,
            users,
            points,
        })
    }

    /// Checks the counts of a hand end's statement, at columns `at` and `at + 1` of its `row`:
    /// the `hands` row of the hand `ended` was ended by it (and by nothing before), and each
    /// of the settlement's `entries` was written (every party's account was there).
    fn check_end(
        &self,
        ended: Option<i32>,
        entries: usize,
        row: &PgRow,
        at: usize,
    ) -> Result<(), ApiError> {
        let rows: i64 = row.try_get(at)?;
        if rows != i64::from(ended.is_some()) {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "match {} hand {:?} settled twice or never started",
                self.id,
                ended
            )));
        }
        let written: i64 = row.try_get(at + 1)?;
        if written != entries as i64 {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "match {} hand {:?}: a ledger account is missing ({written} entries for \
                 {entries} parties)",
                self.id,
                ended,
            )));
        }
        Ok(())
    }

    /// The first of the two statements of a hand's end on the fast path, for a table that
    /// [`Table::act_in_memory`] left between hands with its end pending: the move's save over
    /// the loaded version (`save_ctes`, the key's row with the answer between hands
    /// included) and, only when that hit (`go`), the hand's end ([`TRANSFER_CTES`],
    /// [`END_CTES`]). Written: the wallets and 积分 of the seated players after it, by seat,
    /// for the next deal ([`Table::deal_in_memory`]); the table is then the committed one
    /// between hands. Not written (the row had moved on, or [`transaction_decides`]): the
    /// table must be dropped.
    ///
    /// A table dealt over its pending end ([`Table::deal_over_end`]) is saved the same way,
    /// the deal's `hands` row with it: the whole hand's end and the deal in one statement,
    /// written only if, besides the version, the wallets and 积分 the deal was predicted from
    /// are those in the ledger when the statement starts ([`WALLETS_GUARD`]) and, after its
    /// writes, the wallets and 积分 it leaves are those the deal was made from
    /// ([`UNCHANGED_CHECK`]: a transfer that committed between the statement's snapshot and
    /// its lock on a wallet aborts it). [`EndStatement::NotPredicted`] when either fails: the
    /// caller ends the hand in two statements instead.
    pub async fn end_if_unmoved(
        &mut self,
        conn: &mut PgConnection,
        keyed: Option<&Keyed>,
    ) -> Result<EndStatement, ApiError> {
        let guard = self.dealing.as_ref().and_then(|h| {
            let before = h.before.clone()?;
            Some((h.users.clone(), before, h.wallets.clone(), h.scores.clone()))
        });
        let guarded = guard.is_some();
        let end = self.take_end()?;
        let (ended, entries) = (end.ended, end.legs.len());
        let users = self.seated_users();
        let sent = {
            let c = Columns::of(&[(&*self, keyed)]);
            let sql: &'static str = end_if_unmoved_sql(c.mask(), guarded);
            let q = end
                .bind(self.id, self.game.name(), c.bind(sqlx::query(sql)))
                .bind(&users);
            let q = match guard {
                Some((users, before, wallets, scores)) => q
                    .bind(users)
                    .bind(before.wallets)
                    .bind(before.scores)
                    .bind(wallets)
                    .bind(scores),
                None => q,
            };
            q.fetch_one(&mut *conn).await
        };
        self.statements += 1;
        let row = match sent {
            Ok(row) => row,
            Err(e) if transaction_decides(&e) && guarded => return Ok(EndStatement::NotPredicted),
            Err(e) if transaction_decides(&e) => return Ok(EndStatement::RowMoved),
            Err(e) => return Err(e.into()),
        };
        if row.try_get::<i64, _>(0)? == 0 {
            // `v` is empty only when the guard held its row back.
            return Ok(if row.try_get::<i64, _>(5)? == 0 {
                EndStatement::NotPredicted
            } else {
                EndStatement::RowMoved
            });
        }
        self.check_end(ended, entries, &row, 1)?;
        self.saved(true);
        let Json(wallets) = row.try_get(3)?;
        let Json(scores) = row.try_get(4)?;
        Ok(EndStatement::Written(wallets, scores))
    }

    fn tx_meta(&self, reason: Reason, hand_no: i32) -> TxMeta {
        TxMeta {
            reason,
            match_id: Some(self.id),
            tournament_id: self.tournament_id,
            hand_no: Some(hand_no),
            note: None,
        }
    }

    /// Queues an outcome's events, each visible to everyone or to the users at its seats.
    pub(super) fn push_events(&mut self, hand_no: i32, events: Vec<games::engine::Event>) {
        for e in events {
            let visible_to = match e.to {
                Visibility::All => None,
                // The players of those seats' hands: a newcomer in a seat left during the
                // hand sees nothing of the leaver's.
                Visibility::Seats(seats) => {
                    Some(seats.iter().filter_map(|&s| self.hand_player(s)).collect())
                }
            };
            self.events.push(PendingEvent {
                hand_no,
                kind: e.kind.to_string(),
                seat: e.seat.map(|s| s as i32),
                data: e.data,
                visible_to,
            });
        }
    }

    /// `ledger::transfer`, counted, after the pending hand end (so the ledger's order is the
    /// order of events).
    pub(super) async fn transfer(
        &mut self,
        conn: &mut PgConnection,
        meta: &TxMeta,
        legs: &[(Party, i64)],
    ) -> Result<(), ApiError> {
        self.settle(conn).await?;
        if !legs.is_empty() {
            self.purse = None;
        }
        if ledger::transfer(conn, meta, legs).await?.is_some() {
            self.statements += 1;
        }
        Ok(())
    }

    /// `ledger::take_up_to`, counted, after the pending hand end.
    async fn take_up_to(
        &mut self,
        conn: &mut PgConnection,
        meta: &TxMeta,
        user: Uuid,
        amount: i64,
    ) -> Result<(), ApiError> {
        self.settle(conn).await?;
        self.purse = None;
        let taken = ledger::take_up_to(conn, meta, user, amount).await?;
        self.statements += 1 + u64::from(taken > 0);
        Ok(())
    }

    /// `ledger::lock_balances`, counted, after the pending hand end.
    pub(super) async fn lock_balances(
        &mut self,
        conn: &mut PgConnection,
        users: &[Uuid],
    ) -> Result<Vec<i64>, ApiError> {
        self.settle(conn).await?;
        self.statements += 1;
        ledger::lock_balances(conn, users).await
    }

    /// Moves an outcome's stakes and 逃跑 penalties; returns its payouts, legs of one
    /// settlement the caller writes.
    pub(super) async fn move_money(
        &mut self,
        conn: &mut PgConnection,
        hand_no: i32,
        money: &[Money],
    ) -> Result<Vec<(Party, i64)>, ApiError> {
        let mut settlement = Vec::new();
        let escrow = Party::MatchEscrow(self.id);
        let mut penalty = Vec::new();
        for m in money {
            match *m {
                Money::Stake { seat, amount } => {
                    let user = Party::User(self.user_at(seat)?);
                    let meta = self.tx_meta(Reason::Stake, hand_no);
                    self.transfer(conn, &meta, &[(user, -amount), (escrow, amount)])
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
                    let meta = self.tx_meta(Reason::EscapePenalty, hand_no);
                    self.take_up_to(conn, &meta, user, amount).await?;
                }
            }
        }
        let meta = self.tx_meta(Reason::EscapePenalty, hand_no);
        self.transfer(conn, &meta, &penalty).await?;
        Ok(settlement)
    }

    /// 金币场: moves the hand's units × stake between the wallets (never below zero).
    pub(super) async fn settle_room(
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
        let balances = self.lock_balances(conn, &present).await?;
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
            reason: Reason::CoinRoom,
            match_id: Some(self.id),
            tournament_id: self.tournament_id,
            hand_no: Some(hand_no),
            note: None,
        };
        self.transfer(conn, &meta, &legs).await?;
        Ok(deltas)
    }

    /// 金币场: true when someone holds fewer than `min_coins`, which dissolves the room.
    pub(super) async fn room_must_dissolve(
        &mut self,
        conn: &mut PgConnection,
        room: &CoinRoom,
    ) -> Result<bool, ApiError> {
        let users = self.seated_users();
        let balances = self.lock_balances(conn, &users).await?;
        let short: Vec<Uuid> = users
            .iter()
            .zip(&balances)
            .filter(|(_, b)| **b < room.min_coins)
            .map(|(u, _)| *u)
            .collect();
        if short.is_empty() {
            return Ok(false);
        }
        self.note(
            None,
            events::RoomDissolved {
                min_coins: room.min_coins,
                short,
            },
        );
        Ok(true)
    }
}
