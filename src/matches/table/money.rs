//! Carrying out an engine's outcome: coins through the ledger, 积分, coin-room fees and
//! shortfalls, the hand's result.

use std::sync::LazyLock;

use super::*;
use crate::ledger::{Legs, TRANSFER_CTES};

/// The common table expressions of a hand's end, after [`TRANSFER_CTES`] (its settlement):
/// `$10` the match, `$11` the hand ended (NULL: none), `$12` its result, `$13`/`$14` each
/// seat's player in the hand ([`Table::hand_player`]; NULL: none) and its 积分 for it, `$15`
/// the game. `h` holds the `hands` row it ended (none when that hand was settled already);
/// `up` each player's 积分 after it.
const END_CTES: &str = "
    h AS (UPDATE hands SET ended_at = now(), result = $12
           WHERE match_id = $10 AND hand_no = $11 AND ended_at IS NULL RETURNING 1),
    d AS (SELECT * FROM unnest($13::uuid[], $14::bigint[]) AS d(user_id, delta)
           WHERE user_id IS NOT NULL),
    up AS (INSERT INTO scores (user_id, game, points) SELECT user_id, $15, delta FROM d
           ON CONFLICT (user_id, game) DO UPDATE SET points = scores.points + EXCLUDED.points
           RETURNING user_id, points),
    se AS (INSERT INTO score_entries (user_id, game, match_id, hand_no, delta, points_after)
           SELECT d.user_id, $15, $10, $11, d.delta, up.points FROM d JOIN up USING (user_id))";

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
        let detail = json!({
            "hand_no": result.hand_no,
            "points": result.points,
            "coins": result.coins,
            "detail": result.detail,
        });
        let users = (0..result.points.len())
            .map(|seat| self.hand_player(seat))
            .collect();
        self.settle(conn).await?;
        self.ending = Some(PendingEnd {
            hand_no: result.hand_no as i32,
            result: detail.clone(),
            settlement,
            users,
            points: result.points.clone(),
        });
        let mut detail = detail;
        if let Some(room) = self.platform.room.clone() {
            let coins = self
                .settle_room(conn, &room, result.hand_no as i32, &result.units)
                .await?;
            detail["room_coins"] = json!(coins);
        }
        self.platform_event("hand_ended", None, detail.clone());
        self.last_result = Some(detail);
        Ok(())
    }

    /// Writes the hand end left by [`Table::carry_out`], if any, in one statement: the
    /// settlement's ledger transaction, the `hands` row's result (refused when the hand was
    /// settled already) and the 积分 of every seated player.
    pub(super) async fn settle(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        if self.ending.is_none() {
            return Ok(());
        }
        static SQL: LazyLock<String> = LazyLock::new(|| {
            format!(
                "WITH {TRANSFER_CTES}, {END_CTES}
                 SELECT (SELECT count(*) FROM h), (SELECT count(*) FROM e)"
            )
        });
        self.send_end(conn, SQL.as_str(), |q| q).await?;
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
        static SQL: LazyLock<String> = LazyLock::new(|| {
            format!(
                "WITH {TRANSFER_CTES}, {END_CTES},
                 w AS (SELECT s.ord, COALESCE(u.balance, acc.balance, 0) AS balance,
                              COALESCE(up.points, sc.points, 0) AS points
                         FROM unnest($16::uuid[]) WITH ORDINALITY AS s(user_id, ord)
                         LEFT JOIN accounts acc ON acc.user_id = s.user_id
                         LEFT JOIN u ON u.id = acc.id
                         LEFT JOIN up ON up.user_id = s.user_id
                         LEFT JOIN scores sc ON sc.user_id = s.user_id AND sc.game = $15),
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
        let row = self
            .send_end(conn, SQL.as_str(), |q| {
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
        let end = self.ending.take();
        let ended = end.as_ref().map(|e| e.hand_no);
        let meta = self.tx_meta(Reason::HandSettlement, ended.unwrap_or(0));
        let (settlement, result, users, points) = match end {
            Some(e) => (e.settlement, Some(e.result), e.users, e.points),
            None => Default::default(),
        };
        let legs = Legs::net(&meta, &settlement)?;
        let q = legs
            .bind(&meta, sqlx::query(sql))
            .bind(self.id)
            .bind(ended)
            .bind(result)
            .bind(users)
            .bind(points)
            .bind(self.game.name());
        self.statements += 1;
        let row = more(q).fetch_one(&mut *conn).await?;
        let rows: i64 = row.try_get(0)?;
        if rows != i64::from(ended.is_some()) {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "match {} hand {:?} settled twice or never started",
                self.id,
                ended
            )));
        }
        let entries: i64 = row.try_get(1)?;
        if entries != legs.len() as i64 {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "match {} hand {:?}: a ledger account is missing ({entries} entries for {} \
                 parties)",
                self.id,
                ended,
                legs.len()
            )));
        }
        Ok(row)
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
        self.platform_event(
            "room_dissolved",
            None,
            json!({ "min_coins": room.min_coins, "short": short }),
        );
        Ok(true)
    }
}
