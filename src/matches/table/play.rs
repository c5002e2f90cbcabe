//! Driving the engine: client and automatic actions, 逃跑, dealing, and everything that
//! happens without a client between them (`advance`).

use super::money::NewHand;
use super::*;

/// Bound on automatic steps in one transaction, so that one request or sweep does bounded
/// work; a table stopped by it is due at once and the sweeper goes on with it.
const MAX_AUTO_STEPS: usize = 2_000;

/// Why `advance` stopped, which decides the deadline it leaves.
enum Stop {
    /// Nothing to wait for: the match is waiting for players, or over.
    Idle,
    /// Seats not in 托管 must act.
    Turn,
    /// A hand was dealt and played out by automatic actions alone: the next one at the next
    /// deadline.
    Paced,
    /// Everyone is in 托管 at a table that does not play on alone.
    Paused,
    /// `MAX_AUTO_STEPS` reached.
    Bound,
}

fn secs(n: u32) -> chrono::Duration {
    chrono::Duration::seconds(n.into())
}

impl Table {
    /// A client's action for `seat`, or its `resume`: either ends the seat's 托管 and its count
    /// of timeouts in a row.
    pub async fn act_for(
        &mut self,
        conn: &mut PgConnection,
        seat: SeatNo,
        action: Value,
    ) -> Result<(), ApiError> {
        if is_resume(&action) {
            self.resume(seat)?;
        } else {
            if self.hand_player(seat) != self.seat(seat).map(|s| s.user_id) {
                return Err(ApiError::NotYourTurn(
                    "the hand at your seat was dealt to the player who left it; you play from \
                     the next hand"
                        .into(),
                ));
            }
            self.apply(conn, seat, action, ActionKind::Client).await?;
        }
        self.seat_acted(seat);
        Ok(())
    }

    /// `resume`: ends the seat's 托管; refused when it is not in it.
    fn resume(&mut self, seat: SeatNo) -> Result<(), ApiError> {
        if !self.seat(seat).is_some_and(|s| s.auto) {
            return Err(ApiError::refused(
                crate::api_types::PlatformRule::NotInAuto,
                "resume ends automatic play (托管), and your seat is not in it".into(),
                "你的座位没有在托管，无需取消托管".into(),
            ));
        }
        self.record(Some(seat), events::Resumed {});
        Ok(())
    }

    /// The seat's player acted: its 托管 and its count of timeouts in a row end.
    fn seat_acted(&mut self, seat: SeatNo) {
        if let Some(s) = self.seats[seat].as_mut()
            && (s.auto || s.timeouts != 0)
        {
            s.auto = false;
            s.timeouts = 0;
            self.mark_seat(seat);
        }
    }

    /// Logs the action of `seat` that makes the next version.
    fn log_action(
        &mut self,
        hand_no: i32,
        seat: SeatNo,
        kind: &'static str,
        action: Option<Value>,
    ) {
        self.actions.push(PendingAction {
            hand_no,
            seat: seat as i32,
            kind,
            action,
            now_ms: self.ctx().now_ms,
        });
        self.version += 1;
    }

    /// A client's action worked out in memory alone, on a copy of this committed table, when
    /// statements without a transaction can commit it: a table outside tournaments, playing,
    /// where the action moves no coins but stakes (which the save statement writes to the
    /// ledger) and, at a hand's end, the hand's payouts ([`Table::carry_out_in_memory`]), and
    /// then either leaves the hand waiting for seats that are not in 托管 (so `advance` would
    /// only set the turn's deadline) or ends the hand at a table that deals the next one at
    /// once ([`Table::deals_next_at_once`]). `None` in every other case, refused actions
    /// included: the caller takes the transactional path, which answers them as it always
    /// has. At such a hand's end the next hand is dealt in memory too when this table knows
    /// its players' wallets and 积分 ([`Table::deal_over_end`]).
    pub fn act_in_memory(&self, user: Uuid, action: &Value) -> Option<InMemory> {
        if self.tournament_id.is_some() || self.status != Status::Playing {
            return None;
        }
        let seat = self.hand_seat_of(user)?;
        let mut t = self.fork();
        let mut ended = false;
        if is_resume(action) {
            t.resume(seat).ok()?;
        } else {
            let hand_no = t.hand_no();
            let outcome = t.state.apply(seat, action, t.ctx()).ok()?;
            t.log_action(
                hand_no,
                seat,
                ActionKind::Client.as_str(),
                Some(action.clone()),
            );
            ended = t.carry_out_in_memory(outcome)?;
        }
        t.seat_acted(seat);
        if ended {
            if !t.deals_next_at_once() {
                return None;
            }
            let dealt = t.deal_over_end().map(Box::new);
            return Some(InMemory::HandEnd { between: t, dealt });
        }
        t.waits_for_players()?;
        Some(InMemory::Move(t))
    }

    /// What `advance` does when the hand goes on and waits for seats that are not in 托管:
    /// sets the turn's deadline. `None` when the hand waits for none, or for a seat in 托管
    /// (which `advance` would play at once).
    fn waits_for_players(&mut self) -> Option<()> {
        let to_act = self.to_act();
        if to_act.is_empty()
            || to_act
                .iter()
                .any(|&s| self.seats[s].as_ref().is_none_or(|r| r.auto))
        {
            return None;
        }
        let turn = self.platform.turn_timeout_secs;
        self.deadline_at = Some(self.now + secs(self.state.wait_secs(turn)));
        Some(())
    }

    /// After a hand's end worked out in memory: whether `advance` would deal the next hand at
    /// once, seeing no more than this table — the match goes on (no hand limit reached), every
    /// seat is taken by a player who is not in 托管 (no bots, nobody away), and no coin room
    /// checks wallets between hands. If so, the table is left between hands with a deadline
    /// `DEAL_WITHIN_SECS` away, the durable marker the sweeper follows (it deals, as `advance`
    /// does for any table due between hands) should the deal's statement never come.
    fn deals_next_at_once(&mut self) -> bool {
        let hands_done = self.state.hand_no();
        let deals = self.state.stage() == Stage::NeedsDeal
            && self.platform.room.is_none()
            && self.platform.hands.is_none_or(|h| hands_done < h)
            && self.full()
            && self.seats.iter().flatten().all(|s| !s.auto && !s.bot)
            && autoplay::between_hands(
                &self.platform,
                autoplay::Between {
                    hands_done,
                    everyone_away: false,
                    played_out_automatically: false,
                    due: false,
                },
            ) == autoplay::Next::Deal;
        if deals {
            self.deadline_at = Some(self.now + secs(DEAL_WITHIN_SECS));
        }
        deals
    }

    /// The next hand dealt in memory at a table [`Table::act_in_memory`] left between hands
    /// (and [`Table::end_if_unmoved`] committed), from the wallets and 积分 the players have
    /// after the hand's end: what `advance` does there, when nothing but one save statement
    /// is needed to commit it (the `hands` row is written by it). `None` when the deal needs
    /// more (coins other than stakes; a hand the engine ends at its deal; a seat to act in
    /// 托管): the transactional path deals.
    pub fn deal_in_memory(&self, wallets: Vec<i64>, scores: Vec<i64>) -> Option<Table> {
        self.fork().deal_onto(wallets, scores, None)
    }

    /// The next hand dealt in memory on top of a hand's end still pending, so that one
    /// statement commits the move, the end and the deal ([`Table::end_if_unmoved`]): from the
    /// wallets and 积分 this table knows its players had before the end ([`Purse`]: read with
    /// the row or by the last deal, less the stakes since) and what the end moves. The
    /// statement writes only if the ledger holds those wallets and 积分 before the end and
    /// those the deal was made from after it, so the deal is the one [`Table::deal_in_memory`]
    /// would make after the end's statement. `None` when this table does not know them (not
    /// a full table when read, or this table moved coins another way since) or the deal
    /// needs more than a save.
    fn deal_over_end(&self) -> Option<Table> {
        let before = self.purse.clone()?;
        let end = self.ending.as_ref()?;
        let users = self.seated_users();
        if users.len() != before.wallets.len() || users.len() != before.scores.len() {
            return None;
        }
        // What the end moves for a player: coins into their wallet, 积分.
        let paid = |u: Uuid| -> i64 {
            let legs = end.settlement.iter();
            legs.filter(|(p, _)| *p == Party::User(u))
                .map(|(_, a)| a)
                .sum()
        };
        let got = |u: Uuid| -> i64 {
            let seats = end.users.iter().zip(&end.points);
            seats.filter(|(p, _)| **p == Some(u)).map(|(_, d)| d).sum()
        };
        let wallets = users.iter().zip(&before.wallets);
        let wallets = wallets.map(|(&u, w)| w + paid(u)).collect();
        let scores = users.iter().zip(&before.scores);
        let scores = scores.map(|(&u, s)| s + got(u)).collect();
        // Stakes at the deal would move a wallet the end moves too: one statement cannot
        // write a row twice.
        self.fork_pending()
            .deal_onto(wallets, scores, Some(before))
            .filter(|dealt| dealt.stakes.is_empty())
    }

    /// Deals the next hand on this table (see [`Table::deal_in_memory`]).
    fn deal_onto(
        mut self,
        wallets: Vec<i64>,
        scores: Vec<i64>,
        before: Option<Purse>,
    ) -> Option<Table> {
        let next = self.shuffle_next().ok()?;
        let commitment = commitment(&next.seed);
        self.dealing = Some(PendingHand {
            hand_no: next.hand_no as i32,
            seed: (!next.deck_fixed).then(|| next.seed.to_vec()),
            commitment: commitment.clone(),
            deck: json!({ "cards": next.deck, "fixed": next.deck_fixed }),
            start_state: self.state.save(),
            start_ms: self.ctx().now_ms,
            users: next.users.clone(),
            wallets: wallets.clone(),
            scores: scores.clone(),
            before,
        });
        let outcome = self.start_next(next, commitment, wallets, scores);
        if self.carry_out_in_memory(outcome)? {
            return None;
        }
        self.waits_for_players()?;
        Some(self)
    }

    /// The sweeper found the deadline passed: every seat still to act plays its automatic
    /// action, and a seat that timed out `TIMEOUTS_TO_AUTO` times in a row enters 托管.
    pub async fn time_out(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        for seat in self.state.to_act() {
            // An earlier seat's action may have closed this seat's wait.
            if !self.state.to_act().contains(&seat) {
                continue;
            }
            let action = self.state.auto_action(seat);
            // A wait whose seats are a secret keeps its timeouts the seat's own, and they do
            // not lead to 托管 (a public flag that would say the seat was asked).
            let hidden = self.state.to_act_hidden();
            if hidden {
                let kind = <events::Timeout as events::PlatformEvent>::KIND;
                self.private_event(kind, seat, json!(events::Timeout {}));
            } else {
                self.platform_event("timeout", Some(seat), json!({}));
            }
            self.apply(conn, seat, action, ActionKind::Timeout).await?;
            if hidden {
                continue;
            }
            let Some(s) = self.seats[seat].as_mut() else {
                continue;
            };
            s.timeouts += 1;
            let enters = s.timeouts >= autoplay::TIMEOUTS_TO_AUTO && !s.auto;
            s.auto |= enters;
            self.mark_seat(seat);
            if enters {
                self.note(Some(seat), events::Auto { auto: true });
            }
        }
        Ok(())
    }

    /// Puts a seat in 托管 without timeouts: a tournament escaper's seat, or a player who was
    /// in 托管 at their previous tournament table.
    pub fn put_in_auto(&mut self, seat: SeatNo) {
        if let Some(s) = self.seats[seat].as_mut() {
            s.auto = true;
            self.mark_seat(seat);
        }
    }

    /// Applies one action for `seat` through the engine and carries out its outcome.
    async fn apply(
        &mut self,
        conn: &mut PgConnection,
        seat: SeatNo,
        action: Value,
        kind: ActionKind,
    ) -> Result<(), ApiError> {
        let hand_no = self.hand_no();
        let outcome = self.state.apply(seat, &action, self.ctx())?;
        self.log_action(hand_no, seat, kind.as_str(), Some(action));
        self.carry_out(conn, outcome).await
    }

    /// 逃跑: a seated player leaves a match in progress.
    pub(super) async fn escape(
        &mut self,
        conn: &mut PgConnection,
        seat: SeatNo,
    ) -> Result<(), ApiError> {
        let hand_no = self.hand_no();
        // In a game whose escape penalty takes from the wallet: the wallet as it is now,
        // locked, so the penalty takes at most this and the hand's record says what the ledger
        // takes (the action log keeps it, so the replay re-runs it). A seat whose hand is
        // another player's (its leaver's) is out of the hand and owes nothing.
        let (wallet, logged) = match self.hand_player(seat) {
            Some(user)
                if self.game.escape_takes_wallet()
                    && self.seat(seat).is_some_and(|s| s.user_id == user) =>
            {
                let wallet = self.lock_balances(conn, &[user]).await?[0];
                (wallet, Some(json!({ "wallet": wallet })))
            }
            _ if self.game.escape_takes_wallet() => (0, Some(json!({ "wallet": 0 }))),
            _ => (0, None),
        };
        let outcome = self.state.leave(seat, self.ctx(), wallet);
        self.log_action(hand_no, seat, "leave", logged);
        self.carry_out(conn, outcome).await
    }

    /// Runs everything that happens without a client: dealing when every seat is taken,
    /// playing seats in 托管 (and empty seats) at once, finishing. Then sets the deadline.
    ///
    /// Every way out leaves a table whose play is not over with a deadline the sweeper follows
    /// (docs/rules/README.md § Tables nobody plays): a seat's turn, the next hand of a table where
    /// everyone is in 托管 (one hand per transaction, paced by the turn time), the end of a
    /// pause, or "now" when one transaction's bound on automatic steps was reached.
    pub async fn advance(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        // The sweeper came for a table stopped between hands (paced or paused).
        let entered_due = self.state.stage() == Stage::NeedsDeal
            && self.deadline_at.is_some_and(|d| d <= self.now);
        let entered_pause = match self.deadline_at {
            Some(d) if d > self.now && self.state.stage() == Stage::NeedsDeal => Some(d),
            _ => None,
        };
        let mut dealt = false;
        // Whether automatic actions played in the hand dealt last (a hand the engine ends at
        // the deal itself, like 打炸's 摊牌, needs none).
        let mut auto_played = false;
        let mut stop = Stop::Bound;
        for _ in 0..MAX_AUTO_STEPS {
            match self.state.stage() {
                Stage::Finished => {
                    self.status = Status::Finished;
                    stop = Stop::Idle;
                    break;
                }
                Stage::NeedsDeal => {
                    let hands_done = self.state.hand_no();
                    if self.platform.hands.is_some_and(|h| hands_done >= h) {
                        self.status = Status::Finished;
                        stop = Stop::Idle;
                        break;
                    }
                    if hands_done > 0 && self.seats.iter().flatten().all(|s| s.bot) {
                        self.status = Status::Finished;
                        self.note(
                            None,
                            events::Abandoned {
                                reason: "only bots are left",
                            },
                        );
                        stop = Stop::Idle;
                        break;
                    }
                    if !self.full() {
                        self.status = Status::Waiting;
                        stop = Stop::Idle;
                        break;
                    }
                    if let Some(room) = self.platform.room.clone()
                        && self.room_must_dissolve(conn, &room).await?
                    {
                        self.status = Status::Finished;
                        stop = Stop::Idle;
                        break;
                    }
                    let next = autoplay::between_hands(
                        &self.platform,
                        autoplay::Between {
                            hands_done,
                            everyone_away: hands_done > 0
                                && self.seats.iter().flatten().all(|s| s.auto),
                            played_out_automatically: dealt && auto_played,
                            due: entered_due,
                        },
                    );
                    self.status = Status::Playing;
                    match next {
                        autoplay::Next::Deal => {}
                        autoplay::Next::Pace => {
                            stop = Stop::Paced;
                            break;
                        }
                        autoplay::Next::Pause => {
                            stop = Stop::Paused;
                            break;
                        }
                        autoplay::Next::Abandon => {
                            self.status = Status::Finished;
                            self.note(
                                None,
                                events::Abandoned {
                                    reason: "every player stayed away",
                                },
                            );
                            stop = Stop::Idle;
                            break;
                        }
                    }
                    self.deal(conn).await?;
                    dealt = true;
                    auto_played = false;
                }
                Stage::InHand => {
                    self.status = Status::Playing;
                    let auto: Vec<SeatNo> = self
                        .state
                        .to_act()
                        .into_iter()
                        .filter(|&s| self.seats[s].as_ref().is_none_or(|r| r.auto))
                        .collect();
                    if auto.is_empty() {
                        stop = if self.state.to_act().is_empty() {
                            Stop::Idle
                        } else {
                            Stop::Turn
                        };
                        break;
                    }
                    for seat in auto {
                        if self.state.to_act().contains(&seat) {
                            let action = if self.seat(seat).is_some_and(|s| s.bot) {
                                self.state.bot_action(seat)
                            } else {
                                self.state.auto_action(seat)
                            };
                            self.apply(conn, seat, action, ActionKind::Auto).await?;
                            auto_played = true;
                        }
                    }
                }
            }
        }
        if matches!(self.status, Status::Finished | Status::Aborted) {
            self.retire_bots(conn).await?;
        }
        let turn = self.platform.turn_timeout_secs;
        self.deadline_at = match stop {
            Stop::Idle => None,
            Stop::Turn => Some(self.now + secs(self.state.wait_secs(turn))),
            Stop::Paced => Some(self.now + secs(autoplay::PACE_SECS.min(turn))),
            Stop::Paused => Some(entered_pause.unwrap_or(self.now + secs(autoplay::PAUSE_SECS))),
            Stop::Bound => Some(self.now),
        };
        Ok(())
    }

    pub(super) async fn deal(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        let next = self.shuffle_next()?;
        let hand_no = next.hand_no;
        if let Some(room) = &self.platform.room
            && room.room_fee > 0
            && (hand_no - 1).is_multiple_of(room.hands_per_game)
        {
            let meta = TxMeta {
                reason: Reason::RoomFee,
                match_id: Some(self.id),
                tournament_id: self.tournament_id,
                hand_no: Some(hand_no as i32),
                note: Some(format!("局 {}", (hand_no - 1) / room.hands_per_game + 1)),
            };
            let mut legs: Vec<(Party, i64)> = next
                .users
                .iter()
                .map(|&u| (Party::User(u), -room.room_fee))
                .collect();
            legs.push((Party::House, room.room_fee * next.users.len() as i64));
            self.transfer(conn, &meta, &legs).await?;
        }
        let start_state = self.state.save();
        let commit = commitment(&next.seed);
        // The hand that ended last is settled by the same statement, so the wallets and 积分
        // the new hand starts from are those after it.
        let (wallets, scores) = self
            .settle_and_deal(
                conn,
                &next.users,
                NewHand {
                    hand_no: hand_no as i32,
                    seed: (!next.deck_fixed).then(|| next.seed.to_vec()),
                    commitment: &commit,
                    deck: json!({ "cards": next.deck, "fixed": next.deck_fixed }),
                    start_state: &start_state,
                    start_ms: self.ctx().now_ms,
                },
            )
            .await?;
        let outcome = self.start_next(next, commit, wallets, scores);
        self.carry_out(conn, outcome).await
    }

    /// The next hand's seed and deck, and the players dealt in (by seat: a hand is dealt only
    /// at a full table).
    fn shuffle_next(&self) -> Result<NextHand, ApiError> {
        let hand_no = self.state.hand_no() + 1;
        let seed: Seed = match &self.fixed_seed {
            Some(s) => {
                let fixed: Seed = s.as_slice().try_into().map_err(|_| {
                    ApiError::Internal(anyhow::anyhow!(
                        "match {}: stored seed is not 32 bytes",
                        self.id
                    ))
                })?;
                hand_seed(&fixed, hand_no)
            }
            None => {
                let mut seed = [0u8; 32];
                getrandom::fill(&mut seed)
                    .map_err(|e| ApiError::Internal(anyhow::anyhow!("OS randomness: {e}")))?;
                seed
            }
        };
        let (deck, deck_fixed) = match (&self.fixed_deck, hand_no) {
            (Some(d), 1) => (d.clone(), true),
            _ => {
                let mut d = self
                    .game
                    .deck(&PlatformOptions::game_part(&self.options))
                    .map_err(|e| ApiError::Internal(anyhow::anyhow!(e)))?;
                shuffle(&mut d, &seed);
                (d, false)
            }
        };
        Ok(NextHand {
            hand_no,
            seed,
            deck,
            deck_fixed,
            users: self.seated_users(),
        })
    }

    /// Starts the hand `next` from the players' wallets and 积分 (its `hands` row written or
    /// pending), under the shuffle's `commit`; returns the engine's outcome of the deal.
    fn start_next(
        &mut self,
        next: NextHand,
        commit: String,
        wallets: Vec<i64>,
        scores: Vec<i64>,
    ) -> Outcome {
        // As the row's `users` records them.
        self.dealt_in = next.users.into_iter().map(Some).collect();
        self.purse = Some(Purse {
            wallets: wallets.clone(),
            scores: scores.clone(),
        });
        let outcome = self.state.start_hand(HandStart {
            deck: next.deck,
            ctx: self.ctx(),
            wallets,
            scores,
        });
        self.version += 1;
        self.note(
            None,
            events::ShuffleCommitted {
                hand_no: next.hand_no,
                shuffle_commitment: &commit,
            },
        );
        self.commitment = Some(commit);
        outcome
    }
}

/// A hand about to be dealt: [`Table::shuffle_next`].
struct NextHand {
    hand_no: u32,
    seed: Seed,
    deck: Vec<Card>,
    deck_fixed: bool,
    users: Vec<Uuid>,
}

/// What [`Table::act_in_memory`] made of a client's action.
pub enum InMemory {
    /// A move that one save statement commits ([`save_many`]).
    Move(Table),
    /// A move that ended the hand, the next to be dealt at once. `dealt`: the next hand dealt
    /// over the end already ([`Table::deal_over_end`]), which one [`Table::end_if_unmoved`]
    /// commits with the move and the end, or nothing when the wallets or 积分 it was dealt
    /// from are not the ledger's. Otherwise (or then) [`Table::end_if_unmoved`] commits
    /// `between`, the table between hands, and [`Table::deal_in_memory`] deals the next hand
    /// from the wallets and 积分 it returns.
    HandEnd {
        between: Table,
        dealt: Option<Box<Table>>,
    },
}

/// How long a table left between hands by a hand's end on the fast path waits for its deal's
/// statement before the sweeper deals.
const DEAL_WITHIN_SECS: u32 = 1;

/// Whether a client's action is `resume` (the platform's, not the game's).
fn is_resume(action: &Value) -> bool {
    action.get("type").and_then(Value::as_str) == Some("resume")
}
