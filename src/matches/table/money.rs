//! Carrying out an engine's outcome: coins through the ledger, 积分, coin-room fees and
//! shortfalls, the hand's result.

use super::*;

impl Table {
    pub(super) async fn carry_out(
        &mut self,
        conn: &mut PgConnection,
        outcome: Outcome,
    ) -> Result<(), ApiError> {
        let hand_no = self.hand_no();
        self.push_events(hand_no, outcome.events);
        self.move_money(conn, hand_no, &outcome.money).await?;
        if let Some(result) = outcome.hand_end {
            let detail = json!({
                "hand_no": result.hand_no,
                "points": result.points,
                "coins": result.coins,
                "detail": result.detail,
            });
            self.statements += 1;
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

    /// `ledger::transfer`, counted.
    pub(super) async fn transfer(
        &mut self,
        conn: &mut PgConnection,
        meta: &TxMeta,
        legs: &[(Party, i64)],
    ) -> Result<(), ApiError> {
        if ledger::transfer(conn, meta, legs).await?.is_some() {
            self.statements += 1;
        }
        Ok(())
    }

    /// `ledger::lock_balances`, counted.
    pub(super) async fn lock_balances(
        &mut self,
        conn: &mut PgConnection,
        users: &[Uuid],
    ) -> Result<Vec<i64>, ApiError> {
        self.statements += 1;
        ledger::lock_balances(conn, users).await
    }

    pub(super) async fn move_money(
        &mut self,
        conn: &mut PgConnection,
        hand_no: i32,
        money: &[Money],
    ) -> Result<(), ApiError> {
        if money.is_empty() {
            return Ok(());
        }
        let (id, tournament_id) = (self.id, self.tournament_id);
        let meta = |reason| TxMeta {
            reason,
            match_id: Some(id),
            tournament_id,
            hand_no: Some(hand_no),
            note: None,
        };
        let escrow = Party::MatchEscrow(id);
        let mut settlement = Vec::new();
        let mut penalty = Vec::new();
        for m in money {
            match *m {
                Money::Stake { seat, amount } => {
                    let user = Party::User(self.user_at(seat)?);
                    self.transfer(
                        conn,
                        &meta(Reason::Stake),
                        &[(user, -amount), (escrow, amount)],
                    )
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
                    let taken =
                        ledger::take_up_to(conn, &meta(Reason::EscapePenalty), user, amount)
                            .await?;
                    self.statements += 1 + u64::from(taken > 0);
                }
            }
        }
        self.transfer(conn, &meta(Reason::EscapePenalty), &penalty)
            .await?;
        self.transfer(conn, &meta(Reason::HandSettlement), &settlement)
            .await?;
        Ok(())
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

    pub(super) async fn record_points(
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
        self.statements += 1;
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
}
