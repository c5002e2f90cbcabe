//! How a hand ends: a win (胡), 荒庄 or an escape (逃跑), with the summary shown for it.

use super::claims::Window;
use super::melds::{W, card_of, cards_of, count};
use super::scoring::{End, Summary, WinMeld, WinSummary, best_win, escape, huangzhuang};
use super::{SEATS, State, Table, events};
use crate::engine::{Ctx, Event, Outcome, SeatNo, data};

/// An escape from a hand that lasted this long also gives the others one point each.
const ESCAPE_BONUS_AFTER_MS: i64 = 30_000;

impl State {
    /// `seat` wins (胡) on the card of `w`: each other seat pays it the score.
    pub(super) fn win(&mut self, seat: SeatNo, w: &Window, out: &mut Outcome) {
        let Some(h) = self.table.hand() else {
            return;
        };
        let table = h.table_of(seat);
        // The window offered 胡 only where this finds a win, from the same hand and stock.
        let Some(found) = h
            .win_case(seat, w, &table, &self.opts)
            .and_then(|c| best_win(&c))
        else {
            return;
        };
        let score = found.score * self.opts.rate;
        let mut points = vec![-score; SEATS];
        points[seat] = 2 * score;
        let xing_card = h.xing_card(&self.opts, w.card).map(card_of);
        let summary = Summary {
            hand_no: self.hand_no,
            dealer: h.dealer,
            end: End::Win,
            winner: Some(seat),
            win: Some(WinSummary {
                card: card_of(w.card),
                self_drawn: w.owner == seat,
                melds: found
                    .melds
                    .iter()
                    .map(|m| WinMeld {
                        kind: m.kind,
                        cards: cards_of(&m.cards),
                        stands_for: cards_of(&m.faces),
                    })
                    .collect(),
                huxi: found.huxi,
                reds: found.reds,
                tun: found.tun,
                xing_card,
                xing: found.xing,
                mingtang: found.names.clone(),
                fan: found.fan,
                score,
            }),
            wilds: None,
            escaped: None,
            lasted_ms: None,
            points: points.clone(),
        };
        self.dealer = seat;
        self.end_hand(summary, points.clone(), points, out);
    }

    /// 荒庄: the stock ran out with no winner.
    pub(super) fn huang(&mut self, out: &mut Outcome) {
        let Some(h) = self.table.hand() else {
            return;
        };
        let wilds = [0, 1, 2].map(|s| count(&h.hands[s], W) as i64);
        let points = huangzhuang(wilds, self.opts.base(), self.opts.rate).to_vec();
        let summary = Summary {
            hand_no: self.hand_no,
            dealer: h.dealer,
            end: End::Huangzhuang,
            winner: None,
            win: None,
            wilds: Some(wilds.to_vec()),
            escaped: None,
            lasted_ms: None,
            points: points.clone(),
        };
        self.dealer = (h.dealer + 1) % SEATS;
        self.end_hand(summary, points.clone(), points, out);
    }

    /// Ends the hand with `summary`, on show between hands.
    fn end_hand(&mut self, summary: Summary, points: Vec<i64>, units: Vec<i64>, out: &mut Outcome) {
        out.end_hand_with_points(self.hand_no, points, units, &summary);
        self.table = Table::Between { last: summary };
    }

    /// `seat` left during the hand (逃跑): it pays the others, and the match is over.
    pub(super) fn escape(&mut self, seat: SeatNo, ctx: Ctx, out: &mut Outcome) {
        let Some(h) = self.table.hand() else {
            return;
        };
        let lasted = ctx.now_ms.saturating_sub(h.started_ms);
        let bonus = lasted >= ESCAPE_BONUS_AFTER_MS;
        let (points, units) = escape(seat, self.opts.base(), self.opts.rate, bonus);
        let summary = Summary {
            hand_no: self.hand_no,
            dealer: h.dealer,
            end: End::Escape,
            winner: None,
            win: None,
            wilds: None,
            escaped: Some(seat),
            lasted_ms: Some(lasted),
            points: points.to_vec(),
        };
        out.events.push(Event::public(
            "escape",
            Some(seat),
            data(&events::Escape {
                lasted_ms: lasted,
                bonus,
            }),
        ));
        out.end_hand_with_points(self.hand_no, points.to_vec(), units.to_vec(), &summary);
        self.table = Table::Finished {
            last: summary,
            winner: (),
        };
    }
}
