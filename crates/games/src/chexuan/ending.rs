//! How a hand ends, by showdown, by everyone else folding, as a draw or by an escape: the
//! payouts, the 积分 and the summary.

use super::ranking::{Split, sanhua};
use super::settle::{self, Standing, settle};
use super::view::{Beat, Escape, ShownHand, Summary, events, split_view};
use super::{Action, ESCAPE_BONUS_AFTER_MS, Ending, Hand, HandOver, Play, Rule, data};
use crate::cards::remove_cards;
use crate::engine::{Ctx, Event, HandResult, Money, Outcome, RuleError, SeatNo};

/// The settlement summary (`HandResult::detail`) with the parts every ending shares; showdowns
/// and escapes fill in their own parts.
fn summary(
    h: &Hand,
    ending: Ending,
    dealer: SeatNo,
    next_dealer: SeatNo,
    net: &[i64],
    points: &[i64],
) -> Summary {
    Summary {
        ending,
        dealer,
        next_dealer,
        put_in: h.seats.iter().map(|s| s.put_in).collect(),
        net: net.to_vec(),
        points: points.to_vec(),
        base_points: h.base_points,
        beats: Vec::new(),
        transfers: Vec::new(),
        hands: Vec::new(),
        draw: ending == Ending::Draw,
        escape: None,
    }
}

impl Play<'_> {
    pub(super) fn apply_split(
        &mut self,
        seat: SeatNo,
        action: Action,
        out: &mut Outcome,
    ) -> Result<Option<HandOver>, RuleError> {
        let Action::Split { head, tail } = action else {
            return Err(RuleError::illegal(
                Rule::ActionNotInPhase,
                "the betting is over: split your four cards into a head and a tail",
                "发话已经结束：请把四张牌分成头牌和尾牌",
            ));
        };
        let h = &mut *self.h;
        let mut rest = h.seats[seat].cards();
        let sent = [head[0], head[1], tail[0], tail[1]];
        if remove_cards(&mut rest, &sent).is_none() {
            return Err(RuleError::not_in_hand(
                "a split must use exactly your four cards, each once",
                &h.seats[seat].cards(),
                &sent,
            ));
        }
        let (split, swapped) = Split::arranged(head, tail);
        h.seats[seat].split = Some(split);
        h.seats[seat].swapped = swapped;
        out.events.push(Event::public(
            "split",
            Some(seat),
            data(&events::Nothing {}),
        ));
        if h.seats.iter().all(|s| !s.in_hand() || s.split.is_some()) {
            return Ok(Some(self.settle_showdown(out)));
        }
        Ok(None)
    }

    pub(super) fn settle_showdown(&mut self, out: &mut Outcome) -> HandOver {
        let h = &mut *self.h;
        h.ending = Some(Ending::Showdown);
        let mut shown = Vec::new();
        let standing: Vec<Standing> = (0..h.n())
            .map(|s| {
                let sh = &h.seats[s];
                match sh.split {
                    _ if !sh.playing => Standing::Out,
                    _ if sh.folded => Standing::Folded,
                    Some(split) => {
                        let three = sanhua(&sh.cards());
                        shown.push(ShownHand {
                            split: split_view(&split, sh.swapped),
                            sanhua: three,
                            seat: s,
                        });
                        match three {
                            Some(_) => Standing::Sanhua,
                            None => Standing::Shown {
                                head: split.head_rank(),
                                tail: split.tail_rank(),
                            },
                        }
                    }
                    // Every seat still in has split by now.
                    None => Standing::Folded,
                }
            })
            .collect();
        out.events.push(Event::public(
            "showdown",
            None,
            data(&events::Showdown { hands: &shown }),
        ));
        self.finish_with(&standing, Ending::Showdown, shown, out)
    }

    pub(super) fn settle_uncontested(&mut self, winner: SeatNo, out: &mut Outcome) -> HandOver {
        let h = &mut *self.h;
        h.ending = Some(Ending::Uncontested);
        let standing: Vec<Standing> = (0..h.n())
            .map(|s| match &h.seats[s] {
                sh if !sh.playing => Standing::Out,
                _ if s == winner => Standing::Uncontested,
                _ => Standing::Folded,
            })
            .collect();
        self.finish_with(&standing, Ending::Uncontested, Vec::new(), out)
    }

    /// Pays out a settled hand, scores it and ends it.
    pub(super) fn finish_with(
        &mut self,
        standing: &[Standing],
        ending: Ending,
        hands: Vec<ShownHand>,
        out: &mut Outcome,
    ) -> HandOver {
        let dealer = self.dealer;
        let ante = self.opts.ante;
        let h = &mut *self.h;
        let put_in: Vec<i64> = h.seats.iter().map(|s| s.put_in).collect();
        let settled = settle(&put_in, standing, dealer);
        let net = settled.net(&put_in);
        let points = settle::points(&net, ante, h.base_points, dealer);
        for (seat, sh) in h.seats.iter().enumerate() {
            let amount = sh.bobo.unwrap_or(0) - sh.withdrawn + net[seat];
            if amount > 0 {
                out.money.push(Money::Payout { seat, amount });
            }
        }
        // 尾大吃皮: the first to collect deals next; with nobody collecting the dealer stays.
        let next_dealer = match ending {
            Ending::Showdown => settled.first_collector.unwrap_or(dealer),
            _ => dealer,
        };
        let mut detail = summary(h, ending, dealer, next_dealer, &net, &points);
        detail.beats = settled
            .beats
            .iter()
            .map(|&(winner, loser)| Beat { winner, loser })
            .collect();
        detail.transfers = settled.transfers;
        detail.hands = hands;
        self.end_hand(next_dealer, points, net, detail, out)
    }

    pub(super) fn settle_draw(&mut self, out: &mut Outcome) -> HandOver {
        let dealer = self.dealer;
        let h = &mut *self.h;
        h.ending = Some(Ending::Draw);
        let n = h.n();
        for (seat, sh) in h.seats.iter().enumerate() {
            let amount = sh.bobo.unwrap_or(0) - sh.withdrawn;
            if amount > 0 {
                out.money.push(Money::Payout { seat, amount });
            }
        }
        let detail = summary(h, Ending::Draw, dealer, dealer, &vec![0; n], &vec![0; n]);
        self.end_hand(dealer, vec![0; n], vec![0; n], detail, out)
    }

    /// 逃跑 by seat `e`, whose wallet holds `wallet` now: the table total is taken from its
    /// bobo, then from that wallet, stopping at 0 (it may have been spent at another table
    /// since the deal), and the record says what was taken.
    pub(super) fn escape(
        &mut self,
        e: SeatNo,
        ctx: Ctx,
        wallet: i64,
        out: &mut Outcome,
    ) -> HandOver {
        let dealer = self.dealer;
        let ante = self.opts.ante;
        let vacated = self.vacated;
        let h = &mut *self.h;
        h.ending = Some(Ending::Escape);
        h.turn = None;
        let n = h.n();
        let table = h.pot();
        let bobo = h.seats[e].bobo.unwrap_or(0);
        let from_bobo = table.min(bobo);
        let from_wallet = (table - from_bobo).min(wallet).max(0);
        if from_bobo > 0 {
            out.money.push(Money::Forfeit {
                seat: e,
                amount: from_bobo,
            });
        }
        if from_wallet > 0 {
            out.money.push(Money::Penalty {
                seat: e,
                amount: from_wallet,
            });
        }
        for (seat, sh) in h.seats.iter().enumerate() {
            let amount =
                sh.bobo.unwrap_or(0) - sh.withdrawn - if seat == e { from_bobo } else { 0 };
            if amount > 0 {
                out.money.push(Money::Payout { seat, amount });
            }
        }
        let paid = from_bobo + from_wallet;
        let mut net = vec![0; n];
        net[e] = -paid;
        let mut points = vec![0; n];
        // The rulings count the table total itself, not what the escaper could pay of it.
        points[e] = -settle::loss_points(table, ante, h.base_points);
        let bonus = if ctx.now_ms - h.started_ms >= ESCAPE_BONUS_AFTER_MS {
            h.base_points
        } else {
            0
        };
        for (seat, sh) in h.seats.iter().enumerate() {
            // A folded seat that already left the table is no longer kept waiting by the escape.
            if seat != e && sh.playing && !vacated[seat] {
                points[seat] = bonus;
            }
        }
        let mut detail = summary(h, Ending::Escape, dealer, dealer, &net, &points);
        detail.escape = Some(Escape {
            seat: e,
            table_total: table,
            from_bobo,
            from_wallet,
            bonus_points: bonus,
        });
        self.end_hand(dealer, points, net, detail, out)
    }

    pub(super) fn end_hand(
        &mut self,
        next_dealer: SeatNo,
        points: Vec<i64>,
        coins: Vec<i64>,
        detail: Summary,
        out: &mut Outcome,
    ) -> HandOver {
        let n = self.h.n();
        self.h.turn = None;
        let detail = data(&detail);
        out.events
            .push(Event::public("settlement", None, detail.clone()));
        out.hand_end = Some(HandResult {
            hand_no: self.hand_no,
            points,
            units: vec![0; n],
            coins,
            detail,
        });
        HandOver { next_dealer }
    }
}
