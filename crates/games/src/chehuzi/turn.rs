//! A seat's turn: its discard, the draw from the stock with the 偎, 提 and 跑 it forces, and
//! running the hand forward until a seat must act or the hand ends.

use super::claims::Source;
use super::melds::{Kind, W, bit, card_of, count, is_big, number, remove_n, sort_hand};
use super::{HandState, Next, Options, Phase, Rule, SEATS, State, Step, TableMeld, events, face};
use crate::cards::Card;
use crate::engine::{Event, Outcome, RuleError, SeatNo, Shared, Visibility, data};

impl HandState {
    /// `seat`, whose turn it is, discards `card`, which opens a claim window.
    pub(super) fn discard(
        &mut self,
        seat: SeatNo,
        card: Card,
        opts: &Options,
        out: &mut Outcome,
    ) -> Result<Next, RuleError> {
        let c = face(card)?;
        if c == W {
            return Err(RuleError::illegal(
                Rule::WangNeverDiscarded,
                "a 王霸 is never discarded",
                "王霸不能打出",
            )
            .with_cards([card]));
        }
        if !self.hands[seat].contains(&c) {
            return Err(RuleError::illegal(
                Shared::NotInHand,
                format!("{card} is not in your hand"),
                format!("你手里没有 {card}"),
            )
            .with_cards([card]));
        }
        if !self.discardable(seat).contains(&c) {
            return Err(RuleError::illegal(
                Rule::KanStaysWhole,
                format!("{card} belongs to a 坎, which stays whole"),
                format!("{card} 在一坎里，坎不能拆开打"),
            )
            .with_cards([card]));
        }
        remove_n(&mut self.hands[seat], c, 1);
        out.events.push(Event::public(
            "discard",
            Some(seat),
            data(&events::OneCard { card }),
        ));
        Ok(Next::Window(self.open(c, seat, Source::Discard, opts)))
    }

    /// Cards `s` may discard: never W, and never from a 坎 unless nothing else is left.
    pub(super) fn discardable(&self, s: SeatNo) -> Vec<u8> {
        let hand = &self.hands[s];
        let mut free: Vec<u8> = hand
            .iter()
            .copied()
            .filter(|&f| f != W && count(hand, f) < 3)
            .collect();
        if free.is_empty() {
            free = hand.iter().copied().filter(|&f| f != W).collect();
        }
        free.sort_unstable_by(|a, b| b.cmp(a));
        free.dedup();
        free
    }

    /// The forced 跑 of `s` on `card`: from a 坎 in hand or a 偎/碰 on the table.
    pub(super) fn pao(&mut self, s: SeatNo, card: u8, out: &mut Outcome) -> Next {
        if count(&self.hands[s], card) >= 3 {
            remove_n(&mut self.hands[s], card, 3);
            self.melds[s].push(TableMeld {
                kind: Kind::Pao,
                faces: vec![card; 4],
                hidden: false,
            });
        } else if let Some(m) = self.melds[s].iter_mut().find(|m| {
            m.faces[0] == card && matches!(m.kind, Kind::Wei | Kind::ChouWei | Kind::Peng)
        }) {
            m.kind = Kind::Pao;
            m.faces = vec![card; 4];
            m.hidden = false;
        }
        self.paos[s] += 1;
        out.events.push(Event::public(
            "pao",
            Some(s),
            data(&events::OneCard {
                card: card_of(card),
            }),
        ));
        Next::Step(self.after_take(s, true))
    }

    /// After taking a card: discard, except on a second or later 跑/提 (重跑).
    fn after_take(&self, s: SeatNo, quad: bool) -> Step {
        if quad && self.paos[s] >= 2 {
            Step::Draw((s + 1) % SEATS)
        } else {
            Step::Discard(s)
        }
    }

    /// `s` draws from the stock.
    pub(super) fn draw(&mut self, s: SeatNo, opts: &Options, out: &mut Outcome) -> Next {
        let Some(&c) = self.stock.get(self.next) else {
            return Next::Huang;
        };
        self.next += 1;
        if c == W {
            // A drawn W is shown and joins the hand; the drawer may win with it.
            self.hands[s].push(W);
            sort_hand(&mut self.hands[s]);
            out.events.push(Event::public(
                "draw",
                Some(s),
                data(&events::OneCard { card: card_of(W) }),
            ));
            let after = Step::Discard(s);
            return Next::Window(self.open(W, s, Source::Placed { after }, opts));
        }
        let held = count(&self.hands[s], c);
        let wei = self.melds[s]
            .iter()
            .position(|m| m.faces[0] == c && matches!(m.kind, Kind::Wei | Kind::ChouWei));
        let (kind, hidden) = if held == 3 {
            remove_n(&mut self.hands[s], c, 3);
            self.melds[s].push(TableMeld {
                kind: Kind::Ti,
                faces: vec![c; 4],
                hidden: true,
            });
            (Kind::Ti, true)
        } else if let Some(i) = wei {
            let m = &mut self.melds[s][i];
            m.kind = Kind::Ti;
            m.faces = vec![c; 4];
            (Kind::Ti, m.hidden)
        } else if held == 2 {
            remove_n(&mut self.hands[s], c, 2);
            let chou = self.declined_peng[s] & bit(c) != 0;
            let kind = if chou { Kind::ChouWei } else { Kind::Wei };
            self.melds[s].push(TableMeld {
                kind,
                faces: vec![c; 3],
                hidden: !chou,
            });
            (kind, !chou)
        } else {
            out.events.push(Event::public(
                "draw",
                Some(s),
                data(&events::OneCard { card: card_of(c) }),
            ));
            let w = self.open(c, s, Source::Draw, opts);
            return Next::Window(w);
        };
        let name = if kind == Kind::Ti { "ti" } else { "wei" };
        let shown = events::Laid {
            card: Some(card_of(c)),
            dealt: false,
        };
        if hidden {
            out.events.push(Event::private(name, s, data(&shown)));
            out.events.push(Event {
                kind: name,
                seat: Some(s),
                data: data(&events::Laid {
                    card: None,
                    dealt: false,
                }),
                to: Visibility::Seats((0..SEATS).filter(|&x| x != s).collect()),
            });
        } else {
            out.events.push(Event::public(name, Some(s), data(&shown)));
        }
        let quad = kind == Kind::Ti;
        if quad {
            self.paos[s] += 1;
        }
        // No one may win on a card a 偎 or 提 put down, the drawer included (不能胡任何人提或偎的
        // 牌): the drawer discards, or after a second 跑/提 (重跑) the next seat draws.
        Next::Step(self.after_take(s, quad))
    }
}

impl State {
    /// Runs the hand forward from `next` until a seat must act or the hand ends.
    pub(super) fn advance(&mut self, mut next: Next, out: &mut Outcome) {
        loop {
            let opts = self.opts.clone();
            let Some(h) = self.table.hand_mut() else {
                return;
            };
            next = match next {
                Next::Step(Step::Discard(s)) => {
                    if h.discardable(s).is_empty() {
                        Next::Step(Step::Draw((s + 1) % SEATS))
                    } else {
                        h.phase = Phase::Discard { seat: s };
                        return;
                    }
                }
                Next::Step(Step::Draw(s)) => h.draw(s, &opts, out),
                Next::Window(w) => match h.resolve(&w, out) {
                    Some(n) => n,
                    None => {
                        h.phase = Phase::Claim(w);
                        return;
                    }
                },
                Next::Win { seat, window } => {
                    self.win(seat, &window, out);
                    return;
                }
                Next::Huang => {
                    self.huang(out);
                    return;
                }
            };
        }
    }
}

/// Refuses a discard from a seat whose turn it is not.
pub(super) fn other_discards() -> RuleError {
    RuleError::not_your_turn(
        Shared::NotYourTurn,
        "another seat must discard",
        "现在该别的玩家打牌",
    )
}

/// The auto discard: a card in no pair or sequence (highest first), else the highest single,
/// else the highest card allowed.
pub(super) fn auto_discard(h: &HandState, s: SeatNo) -> Option<u8> {
    let hand = &h.hands[s];
    let allowed = h.discardable(s);
    let alone = |f: u8| {
        count(hand, f) == 1
            && hand.iter().all(|&g| {
                g == f
                    || g == W
                    || !((is_big(g) == is_big(f) && number(g).abs_diff(number(f)) <= 2)
                        || number(g) == number(f))
            })
    };
    allowed
        .iter()
        .copied()
        .find(|&f| alone(f))
        .or_else(|| allowed.iter().copied().find(|&f| count(hand, f) == 1))
        .or_else(|| allowed.first().copied())
}
