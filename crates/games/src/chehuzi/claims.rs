//! Claim windows: who may 胡, 跑, 碰 or 吃 a shown card, the answers, and the order in which
//! equal claims are settled; 吃 with 比牌.

use serde::{Deserialize, Serialize};

use super::melds::{self, FACES, Kind, W, bit, card_of, cards_of, chi_kind, count, remove_n};
use super::scoring::{Taken, WinCase, best_win, fan_xing};
use super::{
    Action, HandState, Next, Options, Phase, Rule, SEATS, State, Step, TableMeld, Xing, events,
    face,
};
use crate::cards::Card;
use crate::engine::{Event, Outcome, RuleError, SeatNo, Shared, data};

/// The open window of a W its drawer drew and may win with, if that is the wait.
pub(super) fn placed_window(state: &State) -> Option<&Window> {
    match &state.table.hand()?.phase {
        Phase::Claim(w) if matches!(w.source, Source::Placed { .. }) => Some(w),
        _ => None,
    }
}

/// Where the card of a claim window comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Source {
    Discard,
    Draw,
    /// A drawn W, shown and already in the drawer's hand: only the drawer may claim, with 胡
    /// (王钓王, 王闯王, 三王闯王), and then the turn goes on with `after`. (A card a forced 偎 or
    /// 提 puts down opens no window: 不能胡任何人提或偎的牌.)
    Placed {
        after: Step,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Answer {
    Hu,
    Peng,
    Chi(ChiMelds),
    Pass,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Window {
    pub(super) card: u8,
    pub(super) owner: SeatNo,
    pub(super) source: Source,
    pub(super) hu: [bool; SEATS],
    pub(super) peng: [bool; SEATS],
    pub(super) chi: [Vec<ChiMelds>; SEATS],
    /// The seat whose 跑 is forced if no one wins.
    pub(super) pao: Option<SeatNo>,
    pub(super) answers: [Option<Answer>; SEATS],
}

impl Window {
    fn has_claim(&self, s: SeatNo) -> bool {
        self.hu[s] || self.peng[s] || !self.chi[s].is_empty()
    }

    pub(super) fn waiting(&self) -> Vec<SeatNo> {
        (0..SEATS)
            .filter(|&s| self.has_claim(s) && self.answers[s].is_none())
            .collect()
    }

    /// Seats that may 吃, in their order: a drawn card goes to its drawer first.
    fn chi_order(&self) -> Vec<SeatNo> {
        match self.source {
            Source::Draw => vec![self.owner, (self.owner + 1) % SEATS],
            _ => vec![(self.owner + 1) % SEATS],
        }
    }

    /// The answer `seat` gives with `action`: one of the claims the window offers it, or a pass.
    pub(super) fn answer_of(&self, seat: SeatNo, action: Action) -> Result<Answer, RuleError> {
        if !self.waiting().contains(&seat) {
            return Err(RuleError::not_your_turn(
                Shared::NotYourTurn,
                "you have no claim to answer on this card",
                "这张牌没有要你应的",
            ));
        }
        Ok(match action {
            Action::Hu {} if self.hu[seat] => Answer::Hu,
            Action::Hu {} => {
                return Err(RuleError::illegal(
                    Rule::NoWinOnCard,
                    "this card does not make your hand win",
                    "这张牌胡不了",
                ));
            }
            Action::Peng {} if self.peng[seat] => Answer::Peng,
            Action::Peng {} => {
                return Err(RuleError::illegal(
                    Rule::CannotPeng,
                    "you may not 碰 this card",
                    "这张牌你不能碰",
                ));
            }
            Action::Chi { melds } => {
                let faces: Vec<Vec<u8>> = melds
                    .iter()
                    .map(|m| m.iter().map(|&c| face(c)).collect())
                    .collect::<Result<_, _>>()?;
                let faces = canonical_chi(&faces);
                if self.chi[seat].is_empty() {
                    return Err(RuleError::illegal(
                        Rule::CannotChi,
                        "you may not 吃 this card",
                        "这张牌你不能吃",
                    )
                    .with_cards(melds.concat()));
                }
                if !self.chi[seat].contains(&faces) {
                    return Err(RuleError::illegal(
                        Rule::WrongChiMelds,
                        "not a 吃 of this card: the melds must use the card, cards of \
                         your hand outside 坎, and every copy of its face (比牌)",
                        "不是这张牌的吃法：吃的牌要用上这张牌和你手里坎以外的牌，\
                         手里同样的字也要一起比出来（比牌）",
                    )
                    .with_cards(melds.concat()));
                }
                Answer::Chi(faces)
            }
            Action::Pass {} => Answer::Pass,
            Action::Discard { .. } => {
                return Err(RuleError::illegal(
                    Rule::ActionNotInPhase,
                    "answer the claim on the card first",
                    "请先应这张牌：胡、碰、吃或过",
                ));
            }
        })
    }
}

impl HandState {
    pub(super) fn table_of(&self, s: SeatNo) -> Vec<(Kind, Vec<u8>)> {
        self.melds[s]
            .iter()
            .map(|m| (m.kind, m.faces.clone()))
            .collect()
    }

    /// The 醒 card if `seat` won now with `card`.
    pub(super) fn xing_card(&self, opts: &Options, card: u8) -> Option<u8> {
        match opts.xing {
            Xing::Gen => Some(card),
            Xing::Fan => self.stock.get(self.next).map(|&c| fan_xing(c)),
        }
    }

    pub(super) fn win_case<'a>(
        &'a self,
        s: SeatNo,
        w: &Window,
        table: &'a [(Kind, Vec<u8>)],
        opts: &Options,
    ) -> Option<WinCase<'a>> {
        let taken = match w.source {
            Source::Discard => return None,
            Source::Placed { .. } => Taken::Placed,
            Source::Draw if s == w.owner => Taken::OwnDraw,
            Source::Draw => Taken::OtherDraw,
        };
        // 只能通过自摸进张胡牌: a seat holding W wins only on its own draw.
        if taken == Taken::OtherDraw && self.hands[s].contains(&W) {
            return None;
        }
        Some(WinCase {
            hand: &self.hands[s],
            table,
            card: w.card,
            taken,
            xing: self.xing_card(opts, w.card),
            kings: opts.kings as u8,
        })
    }

    fn can_win(&self, s: SeatNo, w: &Window, opts: &Options) -> bool {
        let table = self.table_of(s);
        self.win_case(s, w, &table, opts)
            .is_some_and(|c| best_win(&c).is_some())
    }

    /// A window on a shown card: who may 胡, 跑, 碰 or 吃 it.
    pub(super) fn open(&self, card: u8, owner: SeatNo, source: Source, opts: &Options) -> Window {
        let mut w = Window {
            card,
            owner,
            source,
            hu: [false; SEATS],
            peng: [false; SEATS],
            chi: Default::default(),
            pao: None,
            answers: Default::default(),
        };
        if let Source::Placed { .. } = source {
            w.hu[owner] = self.can_win(owner, &w, opts);
            return w;
        }
        let drawn = source == Source::Draw;
        for s in 0..SEATS {
            if drawn {
                w.hu[s] = self.can_win(s, &w, opts);
            }
            let on_table = |kinds: &[Kind]| {
                self.melds[s]
                    .iter()
                    .any(|m| m.faces[0] == card && kinds.contains(&m.kind))
            };
            let pao = if s == owner {
                // A drawer's 坎 or 偎 made a 提 before the card was shown; only a 碰 is left.
                drawn && on_table(&[Kind::Peng])
            } else {
                count(&self.hands[s], card) == 3
                    || on_table(&[Kind::Wei, Kind::ChouWei])
                    || (drawn && on_table(&[Kind::Peng]))
            };
            if pao {
                w.pao = Some(s);
            }
        }
        if w.pao.is_none() {
            for s in 0..SEATS {
                if s != owner
                    && self.blocked[s] & bit(card) == 0
                    && count(&self.hands[s], card) == 2
                {
                    w.peng[s] = true;
                }
            }
            for s in w.chi_order() {
                if self.blocked[s] & bit(card) == 0 {
                    w.chi[s] = chi_options(&self.hands[s], card);
                }
            }
        }
        w
    }

    /// Settles a window once the answers it needs are in; `None` while waiting.
    pub(super) fn resolve(&mut self, w: &Window, out: &mut Outcome) -> Option<Next> {
        let order = in_turn_from(w.owner);
        for s in order.into_iter().filter(|&s| w.hu[s]) {
            match &w.answers[s] {
                None => return None,
                Some(Answer::Hu) => {
                    return Some(Next::Win {
                        seat: s,
                        window: w.clone(),
                    });
                }
                Some(_) => {}
            }
        }
        if let Some(p) = w.pao {
            return Some(self.pao(p, w.card, out));
        }
        for s in order.into_iter().filter(|&s| w.peng[s]) {
            match &w.answers[s] {
                None => return None,
                Some(Answer::Peng) => {
                    remove_n(&mut self.hands[s], w.card, 2);
                    self.melds[s].push(TableMeld {
                        kind: Kind::Peng,
                        faces: vec![w.card; 3],
                        hidden: false,
                    });
                    out.events.push(Event::public(
                        "peng",
                        Some(s),
                        data(&events::OneCard {
                            card: card_of(w.card),
                        }),
                    ));
                    return Some(Next::Step(Step::Discard(s)));
                }
                Some(_) => {}
            }
        }
        for s in w.chi_order().into_iter().filter(|&s| !w.chi[s].is_empty()) {
            match &w.answers[s] {
                None => return None,
                Some(Answer::Chi(melds)) => {
                    let mut used: Vec<u8> = melds.concat();
                    remove_n(&mut used, w.card, 1);
                    for &f in &used {
                        remove_n(&mut self.hands[s], f, 1);
                    }
                    for m in melds {
                        self.melds[s].push(TableMeld {
                            kind: melds::chi_kind(m).unwrap_or(Kind::Ju),
                            faces: m.clone(),
                            hidden: false,
                        });
                    }
                    let shown: Vec<Vec<Card>> = melds.iter().map(|m| cards_of(m)).collect();
                    out.events.push(Event::public(
                        "chi",
                        Some(s),
                        data(&events::Chi { melds: &shown }),
                    ));
                    return Some(Next::Step(Step::Discard(s)));
                }
                Some(_) => {}
            }
        }
        Some(match w.source {
            Source::Placed { after } => Next::Step(after),
            Source::Discard | Source::Draw => {
                self.passed[w.owner].push(w.card);
                Next::Step(Step::Draw((w.owner + 1) % SEATS))
            }
        })
    }
}

/// One 吃: its melds, the first holding the claimed card, each further one another copy of that
/// face from the hand (比牌). Melds are sorted, and the further ones sorted among themselves, so
/// that two spellings of one 吃 compare equal.
pub type ChiMelds = Vec<Vec<u8>>;

pub fn canonical_chi(melds: &[Vec<u8>]) -> ChiMelds {
    let mut out: ChiMelds = melds
        .iter()
        .map(|m| {
            let mut m = m.clone();
            m.sort_unstable();
            m
        })
        .collect();
    if out.len() > 1 {
        out[1..].sort();
    }
    out
}

/// Every 吃 of `card` a hand allows. 坎 cards (three of a face) and W never take part, and every
/// copy of `card` in the hand must be melded too; a hand holding a 坎 of `card` 跑s instead.
pub fn chi_options(hand: &[u8], card: u8) -> Vec<ChiMelds> {
    let mut avail = [0u8; FACES];
    for &f in hand {
        if f != W {
            avail[f as usize] += 1;
        }
    }
    if avail[card as usize] >= 3 {
        return Vec::new();
    }
    for n in avail.iter_mut() {
        if *n >= 3 {
            *n = 0;
        }
    }
    let mut out = Vec::new();
    for (a, b) in pairs(&avail) {
        if chi_kind(&[card, a, b]).is_some() {
            let mut rest = avail;
            rest[a as usize] -= 1;
            rest[b as usize] -= 1;
            further(&rest, card, vec![vec![card, a, b]], &mut out);
        }
    }
    let mut out: Vec<ChiMelds> = out.iter().map(|m| canonical_chi(m)).collect();
    out.sort();
    out.dedup();
    out
}

/// Melds the copies of `card` still in `avail` (比牌), one meld each.
fn further(avail: &[u8; FACES], card: u8, melds: ChiMelds, out: &mut Vec<ChiMelds>) {
    if avail[card as usize] == 0 {
        out.push(melds);
        return;
    }
    let mut rest = *avail;
    rest[card as usize] -= 1;
    for (a, b) in pairs(&rest) {
        if chi_kind(&[card, a, b]).is_some() {
            let mut r = rest;
            r[a as usize] -= 1;
            r[b as usize] -= 1;
            let mut m = melds.clone();
            m.push(vec![card, a, b]);
            further(&r, card, m, out);
        }
    }
}

/// Unordered pairs of cards available in `avail` (a pair of one face needs two copies).
fn pairs(avail: &[u8; FACES]) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    for (a, &na) in avail.iter().enumerate() {
        if na == 0 {
            continue;
        }
        for (b, &nb) in avail.iter().enumerate().skip(a) {
            if nb > u8::from(a == b) {
                out.push((a as u8, b as u8));
            }
        }
    }
    out
}

/// Seats in the order equal claims are settled: the card's owner first (the drawer of a stock
/// card, 自摸; no one claims its own discard), then the seats after it in turn.
pub fn in_turn_from(owner: usize) -> [usize; 3] {
    [owner, (owner + 1) % 3, (owner + 2) % 3]
}
