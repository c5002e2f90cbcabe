//! The table's one step, and nothing but it: given a table, an [`Input`] and the step's givens
//! (the table's clock `now`, its `entropy` for shuffles, and the wallets and 积分 read for it,
//! if any), the next table and everything it writes — events, the action log, seat flags,
//! ledger movements, hands ended and dealt ([`Pending`]). No IO: the executor
//! (`exec.rs`) commits what a step leaves, by one statement or in a transaction.
//!
//! A step that needs the players' wallets or 积分 and was not given them halts with
//! [`Halt::Needs`]: the executor reads them, locked (or, on the one-statement path, assumes
//! those the process knows, which the statement checks), and runs the step again from the
//! start.
//! Only these read them: a 扯旋 deal (`DynGame::deal_reads_purse`), a 扯旋 escape, a 逃跑
//! penalty taken from the wallet, a coin room's settlement and its check between hands, and
//! the return of a finished table's bots' coins. Every other step (a plain move, a stake, a
//! hand's end and the next deal of every other game) needs none.

use super::pending::{PendingAction, PendingHand};
use super::*;

/// Bound on automatic steps in one step, so that one request or sweep does bounded work; a
/// table stopped by it is due at once and the sweeper goes on with it.
const MAX_AUTO_STEPS: usize = 2_000;

/// What a step is asked to do.
#[derive(Clone, Debug)]
pub enum Input {
    /// A client's action for `seat`, or its `resume`; then everything that follows without a
    /// client.
    Act { seat: SeatNo, action: Value },
    /// The deadline passed: every seat still to act plays its automatic action; then
    /// everything that follows.
    Deadline,
    /// The player of `seat` leaves: 逃跑 once the match has started (the seat's row is deleted
    /// by the caller); then everything that follows.
    Leave(SeatNo),
    /// Everything that happens without a client: dealing when every seat is taken, playing
    /// seats in 托管 at once, finishing.
    Advance,
}

/// Why a step stopped short; nothing of it stands.
#[derive(Debug)]
pub enum Halt {
    /// Refused, with the answer for the client.
    Refused(ApiError),
    /// The step needs the wallets and 积分 of the table's players, which it was not given.
    Needs,
}

impl From<ApiError> for Halt {
    fn from(e: ApiError) -> Halt {
        Halt::Refused(e)
    }
}

/// Why `play_on` stopped, which decides the deadline it leaves.
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

/// How an action came to be applied; stored with it for replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ActionKind {
    Client,
    Timeout,
    Auto,
}

impl ActionKind {
    fn as_str(self) -> &'static str {
        match self {
            ActionKind::Client => "action",
            ActionKind::Timeout => "timeout",
            ActionKind::Auto => "auto",
        }
    }
}

fn secs(n: u32) -> chrono::Duration {
    chrono::Duration::seconds(n.into())
}

/// Whether a client's action is `resume` (the platform's, not the game's).
fn is_resume(action: &Value) -> bool {
    action.get("type").and_then(Value::as_str) == Some("resume")
}

impl Table {
    /// The step: carries out `input` on this table, leaving what it writes pending. On a halt
    /// the table is left half-changed: the executor runs steps on a copy
    /// ([`Table::fork_pending`]) and drops it then.
    pub(super) fn step(&mut self, input: &Input) -> Result<(), Halt> {
        match input {
            Input::Act { seat, action } => self.act(*seat, action)?,
            Input::Deadline => self.time_out()?,
            Input::Leave(seat) => {
                if self.leave(*seat)? == Status::Aborted {
                    return Ok(());
                }
            }
            Input::Advance => {}
        }
        self.play_on()
    }

    /// A client's action for `seat`, or its `resume`: either ends the seat's 托管 and its count
    /// of timeouts in a row.
    fn act(&mut self, seat: SeatNo, action: &Value) -> Result<(), Halt> {
        if self.status != Status::Playing {
            let status = self.status.as_str();
            return Err(Halt::Refused(ApiError::refused(
                crate::api_types::PlatformRule::MatchNotPlaying,
                format!("the match is {status}, not playing"),
                format!("牌局不在进行中（{status}），不能出牌"),
            )));
        }
        if is_resume(action) {
            self.resume(seat)?;
        } else {
            if self.hand_player(seat) != self.seat(seat).map(|s| s.user_id) {
                return Err(Halt::Refused(ApiError::NotYourTurn(
                    "the hand at your seat was dealt to the player who left it; you play from \
                     the next hand"
                        .into(),
                )));
            }
            self.apply(seat, action.clone(), ActionKind::Client)?;
        }
        self.seat_acted(seat);
        Ok(())
    }

    /// `resume`: ends the seat's 托管; refused when it is not in it.
    fn resume(&mut self, seat: SeatNo) -> Result<(), Halt> {
        if !self.seat(seat).is_some_and(|s| s.auto) {
            return Err(Halt::Refused(ApiError::refused(
                crate::api_types::PlatformRule::NotInAuto,
                "resume ends automatic play (托管), and your seat is not in it".into(),
                "你的座位没有在托管，无需取消托管".into(),
            )));
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
        let now_ms = self.ctx().now_ms;
        self.pending.actions.push(PendingAction {
            hand_no,
            seat: seat as i32,
            kind,
            action,
            now_ms,
        });
        self.version += 1;
    }

    /// The deadline passed: every seat still to act plays its automatic action, and a seat
    /// that timed out `TIMEOUTS_TO_AUTO` times in a row enters 托管.
    fn time_out(&mut self) -> Result<(), Halt> {
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
            self.apply(seat, action, ActionKind::Timeout)?;
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

    /// Applies one action for `seat` through the engine and carries out its outcome.
    fn apply(&mut self, seat: SeatNo, action: Value, kind: ActionKind) -> Result<(), Halt> {
        let hand_no = self.hand_no();
        let outcome = self
            .state
            .apply(seat, &action, self.ctx())
            .map_err(ApiError::from)?;
        self.log_action(hand_no, seat, kind.as_str(), Some(action));
        self.carry_out(outcome)
    }

    /// The player of `seat` leaves: before the first deal the seat is simply freed (and a
    /// table left to bots alone is aborted, its bots' coins returned); after it, 逃跑 (the
    /// engine's `leave` first). Returns the table's status after it.
    fn leave(&mut self, seat: SeatNo) -> Result<Status, Halt> {
        let Some(user) = self.seat(seat).map(|s| s.user_id) else {
            return Ok(self.status);
        };
        let started = self.started();
        if started {
            self.escape(seat)?;
        }
        self.seats[seat] = None;
        if started {
            let escaped = events::Escaped {
                user_id: user,
                eliminated: None,
            };
            self.record(Some(seat), escaped);
        } else {
            self.record(Some(seat), events::Left { user_id: user });
        }
        // Bots do not keep a table nobody plays at.
        if !started && self.seats.iter().flatten().all(|s| s.bot) {
            self.status = Status::Aborted;
            self.retire_bots()?;
        }
        Ok(self.status)
    }

    /// 逃跑: a seated player leaves a match in progress.
    fn escape(&mut self, seat: SeatNo) -> Result<(), Halt> {
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
                let wallet = self.wallet(user)?;
                (wallet, Some(json!({ "wallet": wallet })))
            }
            _ if self.game.escape_takes_wallet() => (0, Some(json!({ "wallet": 0 }))),
            _ => (0, None),
        };
        let outcome = self.state.leave(seat, self.ctx(), wallet);
        self.log_action(hand_no, seat, "leave", logged);
        self.carry_out(outcome)
    }

    /// Everything that happens without a client: dealing when every seat is taken, playing
    /// seats in 托管 (and empty seats) at once, finishing. Then sets the deadline.
    ///
    /// Every way out leaves a table whose play is not over with a deadline the sweeper follows
    /// (docs/rules/README.md § Tables nobody plays): a seat's turn, the next hand of a table
    /// where everyone is in 托管 (one hand per step, paced by the turn time), the end of a
    /// pause, or "now" when one step's bound on automatic steps was reached.
    fn play_on(&mut self) -> Result<(), Halt> {
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
                        && self.room_must_dissolve(&room)?
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
                    self.deal()?;
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
                            self.apply(seat, action, ActionKind::Auto)?;
                            auto_played = true;
                        }
                    }
                }
            }
        }
        if matches!(self.status, Status::Finished | Status::Aborted) {
            self.retire_bots()?;
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

    /// Deals the next hand: a coin room's fee at the first hand of each 局, the `hands` row,
    /// and the engine's deal from the players' wallets and 积分 (read only for a game whose
    /// deal reads them; zeros otherwise).
    fn deal(&mut self) -> Result<(), Halt> {
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
            self.move_coins(meta, &legs)?;
        }
        let reads_purse = self.game.deal_reads_purse();
        let (wallets, scores): (Vec<i64>, Vec<i64>) = if reads_purse {
            let wallets = next.users.iter().map(|&u| self.wallet(u));
            let scores = next.users.iter().map(|&u| self.score(u));
            (
                wallets.collect::<Result<_, _>>()?,
                scores.collect::<Result<_, _>>()?,
            )
        } else {
            (vec![0; next.users.len()], vec![0; next.users.len()])
        };
        let commit = commitment(&next.seed);
        self.pending.deals.push(PendingHand {
            hand_no: hand_no as i32,
            seed: (!next.deck_fixed).then(|| next.seed.to_vec()),
            commitment: commit.clone(),
            deck: json!({ "cards": next.deck, "fixed": next.deck_fixed }),
            start_state: self.state.save(),
            start_ms: self.ctx().now_ms,
            users: next.users.clone(),
            money_before: self.pending.money.len(),
            ends_before: self.pending.ends.len(),
            dealt_from: reads_purse.then(|| (wallets.clone(), scores.clone())),
        });
        // As the row's `users` records them.
        self.dealt_in = next.users.into_iter().map(Some).collect();
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
                hand_no,
                shuffle_commitment: &commit,
            },
        );
        self.commitment = Some(commit);
        self.carry_out(outcome)
    }

    /// The next hand's seed and deck, and the players dealt in (by seat: a hand is dealt only
    /// at a full table). The seed is the match's fixed seed's for the hand, or the step's
    /// entropy's.
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
            None => hand_seed(&self.entropy, hand_no),
        };
        let (deck, deck_fixed) = match (&self.fixed_deck, hand_no) {
            (Some(d), 1) => (d.clone(), true),
            _ => {
                let options = self.options.value().map_err(|e| {
                    ApiError::Internal(anyhow::anyhow!("match {}: options: {e}", self.id))
                })?;
                let mut d = self
                    .game
                    .deck(&PlatformOptions::game_part(&options))
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

    /// The players whose wallets and 积分 a step may need: those seated and those dealt into
    /// the hand.
    pub(super) fn purse_users(&self) -> Vec<Uuid> {
        let mut users = self.seated_users();
        for u in self.dealt_in.iter().flatten() {
            if !users.contains(u) {
                users.push(*u);
            }
        }
        users
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
