//! Carrying out an engine's outcome inside the step: its events, its coins as ledger movements
//! (stakes, returns, 逃跑 penalties, the hand's settlement, a coin room's fee and units ×
//! stake, bots' coins going back), a hand's end with its 积分, and the wallets and 积分 the step
//! reads (as read for it, plus what it has pending). Pure, as the step is.

use super::pending::PendingEnd;
use super::step::Halt;
use super::*;
use crate::ledger::Movement;

impl Table {
    /// Carries out an engine's outcome: its events, its coins (stakes and 逃跑 penalties at
    /// once, payouts as the hand's settlement), and the hand's end with its 积分 and, in a coin
    /// room, its units × stake.
    pub(super) fn carry_out(&mut self, outcome: Outcome) -> Result<(), Halt> {
        let hand_no = self.hand_no();
        self.push_events(hand_no, outcome.events);
        let settlement = self.move_money(hand_no, &outcome.money)?;
        let Some(result) = outcome.hand_end else {
            // Coins handed back during a hand (扯旋: a folded seat leaves with the rest of its
            // 簸簸) move at once; the hand's one settlement comes at its end.
            let meta = self.tx_meta(Reason::StakeReturn, hand_no);
            return self.move_coins(meta, &settlement);
        };
        let (ended, units) = (result.hand_no as i32, result.units.clone());
        let meta = self.tx_meta(Reason::HandSettlement, ended);
        self.move_coins(meta, &settlement)?;
        let mut detail = json!({
            "hand_no": result.hand_no,
            "points": result.points,
            "coins": result.coins,
            "detail": result.detail,
        });
        let users = (0..result.points.len())
            .map(|seat| self.hand_player(seat))
            .collect();
        self.pending.ends.push(PendingEnd {
            hand_no: ended,
            result: detail.clone(),
            users,
            points: result.points,
        });
        if let Some(room) = self.platform.room.clone() {
            let coins = self.settle_room(&room, ended, &units)?;
            detail["room_coins"] = json!(coins);
            // The row's result says what the room moved too.
            if let Some(end) = self.pending.ends.last_mut() {
                end.result = detail.clone();
            }
        }
        self.last_result = Some(Stored::of(&detail));
        self.platform_event(events::HAND_ENDED, None, detail);
        Ok(())
    }

    /// Moves an outcome's stakes and 逃跑 penalties; returns its payouts, legs of one
    /// settlement the caller moves.
    fn move_money(&mut self, hand_no: i32, money: &[Money]) -> Result<Vec<(Party, i64)>, Halt> {
        let mut settlement = Vec::new();
        let escrow = Party::MatchEscrow(self.id);
        let mut penalty = Vec::new();
        for m in money {
            match *m {
                Money::Stake { seat, amount } => {
                    let user = Party::User(self.user_at(seat)?);
                    let meta = self.tx_meta(Reason::Stake, hand_no);
                    self.move_coins(meta, &[(user, -amount), (escrow, amount)])?;
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
                    // Taken from the wallet, never below zero.
                    let user = self.user_at(seat)?;
                    let take = amount.min(self.wallet(user)?).max(0);
                    let meta = self.tx_meta(Reason::EscapePenalty, hand_no);
                    self.move_coins(meta, &[(Party::User(user), -take), (Party::House, take)])?;
                }
            }
        }
        let meta = self.tx_meta(Reason::EscapePenalty, hand_no);
        self.move_coins(meta, &penalty)?;
        Ok(settlement)
    }

    /// 金币场: moves the hand's units × stake between the wallets (never below zero).
    fn settle_room(
        &mut self,
        room: &CoinRoom,
        hand_no: i32,
        units: &[i64],
    ) -> Result<Vec<i64>, Halt> {
        let users: Vec<Option<Uuid>> = (0..self.seat_count)
            .map(|i| self.seats[i].as_ref().map(|s| s.user_id))
            .collect();
        let wallets = users
            .iter()
            .map(|u| u.map_or(Ok(0), |u| self.wallet(u)))
            .collect::<Result<Vec<i64>, Halt>>()?;
        let deltas = room::coin_deltas(units, room.stake, &wallets);
        let legs: Vec<(Party, i64)> = users
            .iter()
            .zip(&deltas)
            .filter_map(|(u, d)| u.map(|u| (Party::User(u), *d)))
            .collect();
        let meta = self.tx_meta(Reason::CoinRoom, hand_no);
        self.move_coins(meta, &legs)?;
        Ok(deltas)
    }

    /// 金币场: true when someone holds fewer than `min_coins`, which dissolves the room.
    pub(super) fn room_must_dissolve(&mut self, room: &CoinRoom) -> Result<bool, Halt> {
        let mut short = Vec::new();
        for user in self.seated_users() {
            if self.wallet(user)? < room.min_coins {
                short.push(user);
            }
        }
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

    /// The table is over: every bot's coins go back to the house. A bot with nothing left
    /// moves nothing, so this changes nothing the second time.
    pub(super) fn retire_bots(&mut self) -> Result<(), Halt> {
        let bots: Vec<Uuid> = self
            .seats
            .iter()
            .flatten()
            .filter(|s| s.bot)
            .map(|s| s.user_id)
            .collect();
        if bots.is_empty() {
            return Ok(());
        }
        let mut legs = Vec::new();
        for bot in bots {
            let left = self.wallet(bot)?;
            if left > 0 {
                legs.push((Party::User(bot), -left));
                legs.push((Party::House, left));
            }
        }
        let meta = TxMeta {
            reason: Reason::BotReturn,
            match_id: Some(self.id),
            ..TxMeta::default()
        };
        self.move_coins(meta, &legs)
    }

    /// A balanced movement of coins, written after those before it.
    pub(super) fn move_coins(&mut self, meta: TxMeta, legs: &[(Party, i64)]) -> Result<(), Halt> {
        if let Some(m) = Movement::new(meta, legs)? {
            self.pending.money.push(m);
        }
        Ok(())
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

    /// `user`'s wallet as read for this step, with the movements pending since.
    pub(super) fn wallet(&self, user: Uuid) -> Result<i64, Halt> {
        let read = self.reads.as_ref().and_then(|r| r.wallets.get(&user));
        Ok(*read.ok_or(Halt::Needs)? + self.pending_coins(user))
    }

    /// `user`'s 积分 in this game as read for this step, with the hands ended since.
    pub(super) fn score(&self, user: Uuid) -> Result<i64, Halt> {
        let read = self.reads.as_ref().and_then(|r| r.scores.get(&user));
        Ok(*read.ok_or(Halt::Needs)? + self.pending_points(user))
    }

    /// Wallets and 积分 as they were before what is pending, moved on by it.
    pub(super) fn moved_on(&self, before: Reads) -> Reads {
        Reads {
            wallets: (before.wallets.into_iter())
                .map(|(u, w)| (u, w + self.pending_coins(u)))
                .collect(),
            scores: (before.scores.into_iter())
                .map(|(u, p)| (u, p + self.pending_points(u)))
                .collect(),
        }
    }

    /// What the pending movements put into `user`'s wallet.
    fn pending_coins(&self, user: Uuid) -> i64 {
        let party = Party::User(user);
        self.pending.money.iter().map(|m| m.amount_for(party)).sum()
    }

    /// The 积分 the pending hand ends give `user`.
    fn pending_points(&self, user: Uuid) -> i64 {
        let ended = self
            .pending
            .ends
            .iter()
            .flat_map(|e| e.users.iter().zip(&e.points));
        ended
            .filter(|(u, _)| **u == Some(user))
            .map(|(_, p)| p)
            .sum()
    }

    /// Queues an outcome's events, each visible to everyone or to the users at its seats.
    fn push_events(&mut self, hand_no: i32, events: Vec<games::engine::Event>) {
        for e in events {
            let visible_to = match e.to {
                Visibility::All => None,
                // The players of those seats' hands: a newcomer in a seat left during the
                // hand sees nothing of the leaver's.
                Visibility::Seats(seats) => {
                    Some(seats.iter().filter_map(|&s| self.hand_player(s)).collect())
                }
            };
            self.pending.events.push(PendingEvent {
                hand_no,
                kind: e.kind.to_string(),
                seat: e.seat.map(|s| s as i32),
                data: e.data,
                visible_to,
            });
        }
    }
}
