//! The three betting rounds: what a seat may bet, its bet, and the cards dealt between rounds.

use super::view::events;
use super::{Action, Hand, HandOver, HandPhase, Play, Rule, data};
use crate::engine::{Event, Outcome, RuleError, SeatNo};

/// What a seat may do in a betting round.
pub(super) struct BetOptions {
    pub(super) check: bool,
    pub(super) to_call: i64,
    pub(super) call: Option<i64>,
    pub(super) raise: Option<(i64, i64)>,
    pub(super) all_in: Option<i64>,
    /// Another seat could still answer a bet.
    pub(super) answerable: bool,
}

pub(super) fn bet_options(h: &Hand, seat: SeatNo, ante: i64) -> BetOptions {
    let sh = &h.seats[seat];
    let to_call = h.level - sh.round_bet;
    let answerable = h
        .seats
        .iter()
        .enumerate()
        .any(|(i, s)| i != seat && s.active());
    let min_to = h.level + ante;
    let max_to = sh.round_bet + sh.left;
    BetOptions {
        check: h.level == 0,
        to_call,
        call: (to_call > 0 && to_call <= sh.left).then_some(to_call),
        raise: (answerable && max_to >= min_to).then_some((min_to, max_to)),
        // 敲 is open whenever bobo is left, even past what the others could answer: each winner
        // then collects from it up to its own stake, so several winners can share the excess.
        all_in: (sh.left > 0).then_some(sh.left),
        answerable,
    }
}

impl Play<'_> {
    /// Opens betting round `round`, or skips it (dealing on) when fewer than two seats can bet.
    pub(super) fn begin_round(&mut self, round: u8, out: &mut Outcome) {
        let dealer = self.dealer;
        let h = &mut *self.h;
        h.round = round;
        h.level = 0;
        h.all_checked = true;
        for sh in &mut h.seats {
            sh.round_bet = 0;
            sh.acted = false;
        }
        if h.active_count() >= 2 {
            h.turn = h
                .order_from(dealer + 1)
                .into_iter()
                .find(|&s| h.seats[s].active());
            out.events.push(Event::public(
                "round",
                None,
                data(&events::Round {
                    round,
                    turn: h.turn,
                }),
            ));
        } else {
            h.turn = None;
            self.end_round(out);
        }
    }

    /// After a completed round: the next face-up card and round, or the showdown after round 3.
    pub(super) fn end_round(&mut self, out: &mut Outcome) {
        let dealer = self.dealer;
        let h = &mut *self.h;
        h.turn = None;
        if h.round >= 3 {
            let seats: Vec<SeatNo> = (0..h.n()).filter(|&s| h.seats[s].in_hand()).collect();
            *self.phase = HandPhase::Showdown;
            out.events.push(Event::public(
                "showdown_begins",
                None,
                data(&events::ShowdownBegins { seats }),
            ));
            return;
        }
        let round = h.round;
        for s in h.dealing_order(dealer) {
            let card = h.deal(s, false);
            out.events.push(Event::public(
                "face_up",
                Some(s),
                data(&events::FaceUp {
                    card,
                    card_no: round + 2,
                }),
            ));
        }
        self.begin_round(round + 1, out);
    }

    pub(super) fn apply_bet(
        &mut self,
        seat: SeatNo,
        action: Action,
        out: &mut Outcome,
    ) -> Result<Option<HandOver>, RuleError> {
        let ante = self.opts.ante;
        let h = &mut *self.h;
        let o = bet_options(h, seat, ante);
        let left = h.seats[seat].left;
        // Validate completely before touching the state.
        match &action {
            Action::Check {} if !o.check => {
                return Err(RuleError::illegal(
                    Rule::CannotCheckAfterBet,
                    "you can check (休) only while nobody has bet this round",
                    "本轮有人下注后就不能休",
                ));
            }
            Action::Raise { to } => match o.raise {
                Some((min, _)) if *to < min => {
                    return Err(RuleError::illegal(
                        Rule::RaiseTooSmall,
                        format!(
                            "a raise (大) must make your total for this round at least the level plus the ante ({min})"
                        ),
                        format!("大：你本轮的总注至少要到当前注额加底皮（{min}）"),
                    ));
                }
                Some((_, max)) if *to > max => {
                    return Err(RuleError::insufficient_coins(
                        Rule::RaiseOverBobo,
                        format!("your 簸簸 allows a total of at most {max} this round"),
                        format!("你的簸簸本轮最多只够下到 {max}"),
                    ));
                }
                Some(_) => {}
                None if !o.answerable => {
                    return Err(RuleError::illegal(
                        Rule::RaiseUnanswerable,
                        "nobody left in the hand can answer a raise",
                        "场上已经没有人能跟你的大了",
                    ));
                }
                None => {
                    let smallest = h.level + ante;
                    return Err(RuleError::insufficient_coins(
                        Rule::RaiseOverBobo,
                        format!(
                            "your 簸簸 cannot cover the smallest raise (to {smallest}): call, all_in (敲) or fold"
                        ),
                        format!("你的簸簸不够最小的大（到 {smallest}）：请跟、敲或丢"),
                    ));
                }
            },
            Action::Call {} if o.call.is_none() => {
                return Err(if o.to_call <= 0 {
                    RuleError::illegal(
                        Rule::NothingToCall,
                        "nothing to call: nobody has put in more than you this round",
                        "没有可跟的：本轮没有人比你下得多",
                    )
                } else {
                    let need = o.to_call;
                    RuleError::insufficient_coins(
                        Rule::CallOverBobo,
                        format!(
                            "calling needs {need} but your 簸簸 has {left} left: all_in (敲) instead"
                        ),
                        format!("跟需要 {need}，你的簸簸只剩 {left}：请敲"),
                    )
                });
            }
            Action::AllIn {} if o.all_in.is_none() => {
                return Err(RuleError::illegal(
                    Rule::BoboEmpty,
                    "your 簸簸 has nothing left to put in",
                    "你的簸簸已经没有可下的了",
                ));
            }
            Action::SetBobo { .. } | Action::SitOut {} | Action::Split { .. } => {
                return Err(RuleError::illegal(
                    Rule::ActionNotInPhase,
                    "this is a betting round: check, raise, call, all_in or fold",
                    "现在是发话下注：请休、大、跟、敲或丢",
                ));
            }
            _ => {}
        }
        let level = h.level;
        // (kind, to, amount) of the event.
        let (kind, to, amount) = match action {
            Action::Check {} => ("check", None, None),
            Action::Raise { to } => {
                let amount = to - h.seats[seat].round_bet;
                h.seats[seat].put(amount);
                h.level = to;
                for sh in &mut h.seats {
                    sh.acted = false;
                }
                ("raise", Some(to), Some(amount))
            }
            Action::Call {} => {
                h.seats[seat].put(o.to_call);
                ("call", None, Some(o.to_call))
            }
            Action::AllIn {} => {
                h.seats[seat].put(left);
                let to = h.seats[seat].round_bet;
                if to > level {
                    h.level = to;
                    for sh in &mut h.seats {
                        sh.acted = false;
                    }
                }
                ("all_in", Some(to), Some(left))
            }
            // Only fold is left: set_bobo and split were refused above.
            _ => {
                h.seats[seat].folded = true;
                ("fold", None, None)
            }
        };
        if kind != "check" {
            h.all_checked = false;
        }
        h.seats[seat].acted = true;
        let bet = events::Bet {
            amount,
            left: h.seats[seat].left,
            put_in: h.seats[seat].put_in,
            to,
        };
        out.events.push(Event::public(kind, Some(seat), data(&bet)));

        let still_in: Vec<SeatNo> = (0..h.n()).filter(|&s| h.seats[s].in_hand()).collect();
        if let [winner] = still_in[..] {
            return Ok(Some(self.settle_uncontested(winner, out)));
        }
        if let Some(next) = h
            .order_from(seat + 1)
            .into_iter()
            .find(|&s| h.needs_action(s))
        {
            h.turn = Some(next);
        } else if h.all_checked {
            return Ok(Some(self.settle_draw(out)));
        } else {
            self.end_round(out);
        }
        Ok(None)
    }
}
