//! 永州扯胡子 (chehuzi): three players, paper cards small 一…十 and big 壹…拾 with two or four
//! 王霸 (W), melds claimed from discards and draws, a win of 7 门子 and at least 15 胡息.
//!
//! The rules as run here, with every choice the rulings leave open, are in
//! `docs/rules/chehuzi.md`. `melds` knows faces and 胡息, `win` splits hands into 门子,
//! `scoring` picks the best-scoring win and settles hands, `claims` lists 吃 and orders claims.
//!
//! The match is an enum of phases (`Table`): code that needs the hand gets it from the variant
//! that holds one. It is stored as the fields it always had (`Stored`).

mod bot;
#[cfg(test)]
mod claim_tests;
mod claims;
mod events;
mod melds;
#[cfg(test)]
mod mingtang_tests;
#[cfg(test)]
mod rule_tests;
mod rules;
mod scoring;
#[cfg(test)]
mod stored_tests;
#[cfg(test)]
mod tests;
mod win;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cards::Card;
use crate::engine::{
    Ctx, Event, Game, HandStart, Outcome, RuleError, SeatInfo, SeatNo, Shared, Stage, Visibility,
    check_range, codes_of, data, with_shared_codes,
};

use claims::{ChiMelds, canonical_chi, chi_options, in_turn_from};
use melds::{FACES, Kind, W, card_of, cards_of, face_of, is_big, number, sort_hand};
pub use rules::Rule;
pub use scoring::Mingtang;
use scoring::{Taken, WinCase, best_win, escape, fan_xing, huangzhuang};

pub struct Chehuzi;

/// The score (before `rate`, 醒 not counted) of the best win of a concealed `hand` (table
/// empty) completed by its holder's own draw of `card`, if it wins: the win search as every
/// draw runs it.
pub fn self_draw_score(hand: &[Card], card: Card, kings: u8) -> Option<i64> {
    let mut hand: Vec<u8> = hand.iter().filter_map(|&c| face_of(c)).collect();
    let card = face_of(card)?;
    if card == W {
        // A drawn W goes into the hand before the win is looked for.
        hand.push(W);
    }
    let case = WinCase {
        hand: &hand,
        table: &[],
        card,
        taken: if card == W {
            Taken::Placed
        } else {
            Taken::OwnDraw
        },
        xing: None,
        kings,
    };
    best_win(&case).map(|w| w.score)
}

const SEATS: usize = 3;
/// An escape from a hand that lasted this long also gives the others one point each.
const ESCAPE_BONUS_AFTER_MS: i64 = 30_000;
/// Cards dealt: 20 to each seat and one more to the dealer.
const DEALT: usize = 61;

/// 翻醒 or 跟醒.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Xing {
    /// 翻醒: the 醒 card follows the next stock card.
    #[default]
    Fan,
    /// 跟醒: the winning card is the 醒 card.
    Gen,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Number of 王霸: 2 (82 cards, 荒庄 base 5) or 4 (84 cards, base 10).
    #[serde(default = "default_kings")]
    pub kings: i64,
    #[serde(default)]
    pub xing: Xing,
    /// 房间倍率: multiplies every amount.
    #[serde(default = "default_rate")]
    pub rate: i64,
    /// Seconds a claim window waits, capped by the turn timeout.
    #[serde(default = "default_claim_timeout")]
    pub claim_timeout_secs: i64,
}

fn default_kings() -> i64 {
    2
}
fn default_rate() -> i64 {
    1
}
fn default_claim_timeout() -> i64 {
    8
}

impl Options {
    /// 王霸牌基础倍率.
    fn base(&self) -> i64 {
        if self.kings == 4 { 10 } else { 5 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    Discard {
        card: Card,
    },
    /// Whole melds, the first holding the claimed card, each further one more copy of that face
    /// from the hand (比牌).
    Chi {
        melds: Vec<Vec<Card>>,
    },
    Peng {},
    Hu {},
    Pass {},
}

/// Stored as `Stored`, the fields it has always had, so that stored matches and hands load and
/// save byte for byte as before.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "Stored", into = "Stored")]
pub struct State {
    opts: Options,
    hand_no: u32,
    dealer: SeatNo,
    table: Table,
}

/// Where the match stands: code that needs the hand gets it from the variant that holds one.
/// The summary of the last hand stays on show until the next one ends.
#[derive(Clone, Debug)]
enum Table {
    /// Before the first hand.
    Waiting,
    InHand {
        hand: Box<HandState>,
        last: Option<Summary>,
    },
    /// Between hands.
    Between { last: Summary },
    /// An escape ended the match.
    Finished { last: Summary },
}

impl Table {
    /// The hand in play.
    fn hand(&self) -> Option<&HandState> {
        match self {
            Table::InHand { hand, .. } => Some(hand),
            Table::Waiting | Table::Between { .. } | Table::Finished { .. } => None,
        }
    }

    fn hand_mut(&mut self) -> Option<&mut HandState> {
        match self {
            Table::InHand { hand, .. } => Some(hand),
            Table::Waiting | Table::Between { .. } | Table::Finished { .. } => None,
        }
    }

    /// The summary of the last hand.
    fn last(&self) -> Option<&Summary> {
        match self {
            Table::Waiting => None,
            Table::InHand { last, .. } => last.as_ref(),
            Table::Between { last } | Table::Finished { last } => Some(last),
        }
    }
}

/// The state as it is stored (`matches.state`, `hands.start_state`): these fields, in this
/// order, are the JSON of every stored chehuzi match.
#[derive(Serialize, Deserialize)]
struct Stored {
    opts: Options,
    hand_no: u32,
    dealer: SeatNo,
    /// Set by an escape: the match is over.
    finished: bool,
    hand: Option<Box<HandState>>,
    last: Option<Summary>,
}

impl TryFrom<Stored> for State {
    type Error = &'static str;

    fn try_from(s: Stored) -> Result<State, Self::Error> {
        let table = match (s.finished, s.hand, s.last) {
            (false, None, None) => Table::Waiting,
            (false, Some(hand), last) => Table::InHand { hand, last },
            (false, None, Some(last)) => Table::Between { last },
            (true, None, Some(last)) => Table::Finished { last },
            (true, Some(_), _) => return Err("a finished chehuzi match has no hand in play"),
            (true, None, None) => return Err("a finished chehuzi match shows the escape"),
        };
        Ok(State {
            opts: s.opts,
            hand_no: s.hand_no,
            dealer: s.dealer,
            table,
        })
    }
}

impl From<State> for Stored {
    fn from(s: State) -> Stored {
        let (finished, hand, last) = match s.table {
            Table::Waiting => (false, None, None),
            Table::InHand { hand, last } => (false, Some(hand), last),
            Table::Between { last } => (false, None, Some(last)),
            Table::Finished { last } => (true, None, Some(last)),
        };
        Stored {
            opts: s.opts,
            hand_no: s.hand_no,
            dealer: s.dealer,
            finished,
            hand,
            last,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct TableMeld {
    kind: Kind,
    faces: Vec<u8>,
    /// Face down for the other seats (偎, and 提 made from a draw).
    hidden: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct HandState {
    started_ms: i64,
    dealer: SeatNo,
    hands: [Vec<u8>; SEATS],
    melds: [Vec<TableMeld>; SEATS],
    /// Discards and drawn cards nobody took, by the seat they came from.
    passed: [Vec<u8>; SEATS],
    stock: Vec<u8>,
    /// Index of the next stock card.
    next: usize,
    /// 跑 and 提 made by each seat (dealt 提 included): from the second on, no discard (重跑).
    paos: [u8; SEATS],
    /// 过张: faces (bit per face) a seat may no longer 吃 or 碰.
    blocked: [u32; SEATS],
    /// Faces a seat declined to 碰: a later 偎 of them is a 臭偎.
    declined_peng: [u32; SEATS],
    phase: Phase,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
enum Phase {
    Discard { seat: SeatNo },
    Claim(Window),
}

/// The open window of a W its drawer drew and may win with, if that is the wait.
fn placed_window(state: &State) -> Option<&Window> {
    match &state.table.hand()?.phase {
        Phase::Claim(w) if matches!(w.source, Source::Placed { .. }) => Some(w),
        _ => None,
    }
}

/// Where the card of a claim window comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Source {
    Discard,
    Draw,
    /// A drawn W, shown and already in the drawer's hand: only the drawer may claim, with 胡
    /// (王钓王, 王闯王, 三王闯王), and then the turn goes on with `after`. (A card a forced 偎 or
    /// 提 puts down opens no window: 不能胡任何人提或偎的牌.)
    Placed {
        after: Step,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Step {
    Discard(SeatNo),
    Draw(SeatNo),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Answer {
    Hu,
    Peng,
    Chi(ChiMelds),
    Pass,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Window {
    card: u8,
    owner: SeatNo,
    source: Source,
    hu: [bool; SEATS],
    peng: [bool; SEATS],
    chi: [Vec<ChiMelds>; SEATS],
    /// The seat whose 跑 is forced if no one wins.
    pao: Option<SeatNo>,
    answers: [Option<Answer>; SEATS],
}

impl Window {
    fn has_claim(&self, s: SeatNo) -> bool {
        self.hu[s] || self.peng[s] || !self.chi[s].is_empty()
    }

    fn waiting(&self) -> Vec<SeatNo> {
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
}

/// What happens next in a hand.
enum Next {
    Step(Step),
    Window(Window),
    Win { seat: SeatNo, window: Window },
    Huang,
}

fn bit(face: u8) -> u32 {
    1 << face
}

fn count(hand: &[u8], face: u8) -> usize {
    hand.iter().filter(|&&f| f == face).count()
}

fn remove_n(hand: &mut Vec<u8>, face: u8, n: usize) {
    for _ in 0..n {
        if let Some(i) = hand.iter().position(|&f| f == face) {
            hand.remove(i);
        }
    }
}

impl HandState {
    fn table_of(&self, s: SeatNo) -> Vec<(Kind, Vec<u8>)> {
        self.melds[s]
            .iter()
            .map(|m| (m.kind, m.faces.clone()))
            .collect()
    }

    /// The 醒 card if `seat` won now with `card`.
    fn xing_card(&self, opts: &Options, card: u8) -> Option<u8> {
        match opts.xing {
            Xing::Gen => Some(card),
            Xing::Fan => self.stock.get(self.next).map(|&c| fan_xing(c)),
        }
    }

    fn win_case<'a>(
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
    fn open(&self, card: u8, owner: SeatNo, source: Source, opts: &Options) -> Window {
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

    /// Cards `s` may discard: never W, and never from a 坎 unless nothing else is left.
    fn discardable(&self, s: SeatNo) -> Vec<u8> {
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
    fn pao(&mut self, s: SeatNo, card: u8, out: &mut Outcome) -> Next {
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
    fn draw(&mut self, s: SeatNo, opts: &Options, out: &mut Outcome) -> Next {
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

    /// Settles a window once the answers it needs are in; `None` while waiting.
    fn resolve(&mut self, w: &Window, out: &mut Outcome) -> Option<Next> {
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

impl State {
    /// Runs the hand forward from `next` until a seat must act or the hand ends.
    fn advance(&mut self, mut next: Next, out: &mut Outcome) {
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

    fn win(&mut self, seat: SeatNo, w: &Window, out: &mut Outcome) {
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

    fn huang(&mut self, out: &mut Outcome) {
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
}

/// How a hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// A seat won (胡).
    Win,
    /// 荒庄: the stock ran out with no winner.
    Huangzhuang,
    /// A seat left during the hand (逃跑).
    Escape,
}

/// A meld of the winning hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WinMeld {
    /// What kind of 门子 it is.
    pub kind: Kind,
    /// The cards, W included.
    pub cards: Vec<Card>,
    /// What the cards stand for (a W as the card it completes).
    pub stands_for: Vec<Card>,
}

/// How the winner won.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WinSummary {
    /// The card the hand won on.
    pub card: Card,
    /// Won on the winner's own draw.
    pub self_drawn: bool,
    /// The 7 门子.
    pub melds: Vec<WinMeld>,
    /// 胡息 of the 7 门子 (at least 15).
    pub huxi: u32,
    /// Red cards among the 7 门子 (W as what it stands for).
    pub reds: u32,
    /// 囤 the 胡息 are worth.
    pub tun: i64,
    /// The 醒 card: the next number after the stock's next card (翻醒), or the winning card
    /// itself (跟醒); null when 翻醒 found the stock empty.
    pub xing_card: Option<Card>,
    /// 醒: copies of the 醒 card in the 7 门子.
    pub xing: i64,
    /// The 名堂 the win scored.
    pub mingtang: Vec<Mingtang>,
    /// The product of the 名堂.
    pub fan: i64,
    /// What each other player pays: (囤 + 醒) × 番 × rate.
    pub score: i64,
}

/// The settlement of a hand, shown to everyone as `last_result`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// The hand's number in the match, from 1.
    pub hand_no: u32,
    /// The hand's dealer (庄家).
    pub dealer: SeatNo,
    /// How the hand ended.
    pub end: End,
    /// The seat that won; null unless `end` is `win`.
    pub winner: Option<SeatNo>,
    /// How the winner won; null unless `end` is `win`.
    pub win: Option<WinSummary>,
    /// 荒庄: the W each seat held.
    pub wilds: Option<Vec<i64>>,
    /// The seat that escaped; null unless `end` is `escape`.
    pub escaped: Option<SeatNo>,
    /// How long the hand had lasted when the seat escaped, in milliseconds; null otherwise.
    pub lasted_ms: Option<i64>,
    /// Points of each seat (escape bonus included).
    pub points: Vec<i64>,
}

/// A meld on the table as the viewer sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MeldView {
    pub kind: Kind,
    /// `null` when face down for this viewer (another seat's 偎 or drawn 提).
    pub cards: Option<Vec<Card>>,
    pub size: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeatView {
    pub seat: SeatNo,
    /// Cards in hand.
    pub cards: usize,
    pub melds: Vec<MeldView>,
    /// Discards and drawn cards nobody took.
    pub passed: Vec<Card>,
}

/// The card of an open claim window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ClaimView {
    /// The card (always shown: a card put down face down opens no window).
    pub card: Option<Card>,
    pub from: SeatNo,
    /// `discard`, `draw`, or `placed`: a W the viewer drew and may win with (shown to the
    /// drawer only; the others see the drawer's discard turn).
    pub source: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct View {
    pub kings: i64,
    pub xing: Xing,
    pub rate: i64,
    pub hand_no: u32,
    pub dealer: SeatNo,
    /// The viewer's hand, strongest first (`null` for spectators and between hands).
    pub hand: Option<Vec<Card>>,
    pub seats: Vec<SeatView>,
    /// Cards left in the stock.
    pub stock: usize,
    /// The seat that must discard.
    pub turn: Option<SeatNo>,
    pub claim: Option<ClaimView>,
    pub last_result: Option<Summary>,
}

impl SeatInfo for View {}

/// One entry of `legal_actions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Legal {
    Discard { cards: Vec<Card> },
    Chi { options: Vec<Vec<Vec<Card>>> },
    Peng {},
    Hu {},
    Pass {},
}

/// Refuses a discard from a seat whose turn it is not.
fn other_discards() -> RuleError {
    RuleError::not_your_turn(
        Shared::NotYourTurn,
        "another seat must discard",
        "现在该别的玩家打牌",
    )
}

fn face(card: Card) -> Result<u8, RuleError> {
    face_of(card).ok_or_else(|| {
        RuleError::invalid(
            Rule::ForeignCard,
            format!("{card} is not a 扯胡子 card"),
            format!("{card} 不是扯胡子的牌"),
        )
        .with_cards([card])
    })
}

/// The auto discard: a card in no pair or sequence (highest first), else the highest single,
/// else the highest card allowed.
fn auto_discard(h: &HandState, s: SeatNo) -> Option<u8> {
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

impl Game for Chehuzi {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;
    type Legal = Legal;
    type Summary = Summary;

    const NAME: &'static str = "chehuzi";
    const SEATS: std::ops::RangeInclusive<usize> = 3..=3;
    const COIN_ROOMS: bool = true;

    fn rule_codes() -> Vec<&'static str> {
        with_shared_codes(codes_of::<Rule>())
    }

    fn check_options(opts: &mut Options, _seats: usize) -> Result<(), RuleError> {
        if opts.kings != 2 && opts.kings != 4 {
            let kings = opts.kings;
            return Err(RuleError::invalid(
                Shared::BadOption,
                format!("options.kings must be 2 or 4, got {kings}"),
                format!("选项 options.kings 只能是 2 或 4，现在是 {kings}"),
            ));
        }
        check_range("rate", opts.rate, 1..=1_000_000)?;
        check_range("claim_timeout_secs", opts.claim_timeout_secs, 1..=3600)
    }

    fn deck(opts: &Options) -> Vec<Card> {
        let mut deck = Vec::with_capacity(84);
        for big in [false, true] {
            for n in 1..=10 {
                deck.extend(std::iter::repeat_n(Card::Paper { big, n }, 4));
            }
        }
        deck.extend(std::iter::repeat_n(Card::Wild, opts.kings as usize));
        deck
    }

    fn new_match(opts: Options, _seats: usize) -> State {
        State {
            opts,
            hand_no: 0,
            dealer: 0,
            table: Table::Waiting,
        }
    }

    fn stage(state: &State) -> Stage {
        match state.table {
            Table::Waiting | Table::Between { .. } => Stage::NeedsDeal,
            Table::InHand { .. } => Stage::InHand,
            Table::Finished { .. } => Stage::Finished,
        }
    }

    fn hand_no(state: &State) -> u32 {
        state.hand_no
    }

    fn phase(state: &State) -> &'static str {
        match &state.table {
            Table::Finished { .. } => "finished",
            Table::Waiting | Table::Between { .. } => "between_hands",
            Table::InHand { hand: h, .. } => match &h.phase {
                // A drawn W's own window is the drawer's discard turn to everyone else.
                Phase::Discard { .. } => "discard",
                Phase::Claim(w) if matches!(w.source, Source::Placed { .. }) => "discard",
                Phase::Claim(_) => "claim",
            },
        }
    }

    fn to_act(state: &State) -> Vec<SeatNo> {
        match state.table.hand().map(|h| &h.phase) {
            None => Vec::new(),
            Some(Phase::Discard { seat }) => vec![*seat],
            Some(Phase::Claim(w)) => w.waiting(),
        }
    }

    /// A claim window asks exactly the seats that can claim its card (a pair or a 坎 of it for
    /// 碰/跑, a 吃, a win): who is asked stays each seat's own (rulings § Claim windows).
    /// A drawn W's window asks its drawer only, who must act either way (win or discard): not
    /// hidden, and shown as the drawer's discard turn.
    fn to_act_hidden(state: &State) -> bool {
        matches!(state.table.hand().map(|h| &h.phase), Some(Phase::Claim(_)))
            && placed_window(state).is_none()
    }

    fn wait_secs(state: &State, turn_secs: u32) -> u32 {
        match state.table.hand().map(|h| &h.phase) {
            Some(Phase::Claim(w)) if !matches!(w.source, Source::Placed { .. }) => {
                turn_secs.min(state.opts.claim_timeout_secs as u32)
            }
            _ => turn_secs,
        }
    }

    fn start_hand(state: &mut State, start: HandStart) -> Outcome {
        let mut out = Outcome::default();
        let last = match std::mem::replace(&mut state.table, Table::Waiting) {
            Table::Waiting => None,
            Table::Between { last } => Some(last),
            // The service deals only between hands.
            other @ (Table::InHand { .. } | Table::Finished { .. }) => {
                state.table = other;
                return out;
            }
        };
        state.hand_no += 1;
        let dealer = state.dealer;
        let cards: Vec<u8> = start.deck.iter().filter_map(|&c| face_of(c)).collect();
        let mut hands: [Vec<u8>; SEATS] = Default::default();
        for (i, &c) in cards.iter().take(DEALT).enumerate() {
            // Cards 0..59 round the table from the dealer; card 60 is the dealer's 21st.
            let seat = if i == DEALT - 1 {
                dealer
            } else {
                (dealer + i) % SEATS
            };
            hands[seat].push(c);
        }
        let stock = cards.iter().skip(DEALT).copied().collect();
        let mut h = Box::new(HandState {
            started_ms: start.ctx.now_ms,
            dealer,
            hands,
            melds: Default::default(),
            passed: Default::default(),
            stock,
            next: 0,
            paos: [0; SEATS],
            blocked: [0; SEATS],
            declined_peng: [0; SEATS],
            phase: Phase::Discard { seat: dealer },
        });
        out.events.push(Event::public(
            "deal",
            None,
            data(&events::Deal {
                dealer,
                stock: h.stock.len(),
            }),
        ));
        for s in 0..SEATS {
            sort_hand(&mut h.hands[s]);
            out.events.push(Event::private(
                "hand",
                s,
                data(&events::Hand {
                    cards: &cards_of(&h.hands[s]),
                }),
            ));
            // 起手提: four identical dealt cards go down at once, 三张暗一张明.
            for f in 0..FACES as u8 {
                if count(&h.hands[s], f) == 4 {
                    remove_n(&mut h.hands[s], f, 4);
                    h.melds[s].push(TableMeld {
                        kind: Kind::Ti,
                        faces: vec![f; 4],
                        hidden: false,
                    });
                    h.paos[s] += 1;
                    out.events.push(Event::public(
                        "ti",
                        Some(s),
                        data(&events::Laid {
                            card: Some(card_of(f)),
                            dealt: true,
                        }),
                    ));
                }
            }
        }
        state.table = Table::InHand { hand: h, last };
        state.advance(Next::Step(Step::Discard(dealer)), &mut out);
        out
    }

    fn apply(
        state: &mut State,
        seat: SeatNo,
        action: Action,
        _ctx: Ctx,
    ) -> Result<Outcome, RuleError> {
        // The drawer of a W it could win with discards instead: it passes on the win and
        // discards in one action, so the table sees one discard turn whether or not the W
        // made a win (a window of its own would tell).
        if let (Some(w), Action::Pass {}) = (placed_window(state), &action)
            && w.owner == seat
            && state
                .table
                .hand()
                .is_some_and(|h| !h.discardable(seat).is_empty())
        {
            // A pass, then a discard, would show the table a step a plain turn does not have.
            return Err(RuleError::illegal(
                Rule::MustWinOrDiscard,
                "win with the 王霸 or discard a card (the discard passes on the win)",
                "请用王霸胡牌，或者打出一张牌（打牌就是不胡）",
            ));
        }
        if let (Some(w), Action::Discard { .. }) = (placed_window(state), &action)
            && w.owner == seat
        {
            let mut w = w.clone();
            w.answers[seat] = Some(Answer::Pass);
            let mut next = state.clone();
            let mut out = Outcome::default();
            next.advance(Next::Window(w), &mut out);
            let discarded = Self::apply(&mut next, seat, action, _ctx)?;
            out.merge(discarded);
            *state = next;
            return Ok(out);
        }
        let opts = state.opts.clone();
        let Some(h) = state.table.hand_mut() else {
            return Err(RuleError::not_your_turn(
                Shared::NoHandInPlay,
                "no hand is being played",
                "现在没有正在进行的牌局",
            ));
        };
        let mut out = Outcome::default();
        let next = match (&mut h.phase, action) {
            (Phase::Discard { seat: turn }, Action::Discard { card }) => {
                if *turn != seat {
                    return Err(other_discards());
                }
                let c = face(card)?;
                if c == W {
                    return Err(RuleError::illegal(
                        Rule::WangNeverDiscarded,
                        "a 王霸 is never discarded",
                        "王霸不能打出",
                    )
                    .with_cards([card]));
                }
                if !h.hands[seat].contains(&c) {
                    return Err(RuleError::illegal(
                        Shared::NotInHand,
                        format!("{card} is not in your hand"),
                        format!("你手里没有 {card}"),
                    )
                    .with_cards([card]));
                }
                if !h.discardable(seat).contains(&c) {
                    return Err(RuleError::illegal(
                        Rule::KanStaysWhole,
                        format!("{card} belongs to a 坎, which stays whole"),
                        format!("{card} 在一坎里，坎不能拆开打"),
                    )
                    .with_cards([card]));
                }
                remove_n(&mut h.hands[seat], c, 1);
                out.events.push(Event::public(
                    "discard",
                    Some(seat),
                    data(&events::OneCard { card }),
                ));
                let w = h.open(c, seat, Source::Discard, &opts);
                Next::Window(w)
            }
            (Phase::Discard { .. }, _) => {
                return Err(if Self::to_act(state).contains(&seat) {
                    RuleError::illegal(
                        Rule::ActionNotInPhase,
                        "you must discard a card",
                        "你须打出一张牌",
                    )
                } else {
                    other_discards()
                });
            }
            (Phase::Claim(w), action) => {
                if !w.waiting().contains(&seat) {
                    return Err(RuleError::not_your_turn(
                        Shared::NotYourTurn,
                        "you have no claim to answer on this card",
                        "这张牌没有要你应的",
                    ));
                }
                let answer = match action {
                    Action::Hu {} if w.hu[seat] => Answer::Hu,
                    Action::Hu {} => {
                        return Err(RuleError::illegal(
                            Rule::NoWinOnCard,
                            "this card does not make your hand win",
                            "这张牌胡不了",
                        ));
                    }
                    Action::Peng {} if w.peng[seat] => Answer::Peng,
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
                        if w.chi[seat].is_empty() {
                            return Err(RuleError::illegal(
                                Rule::CannotChi,
                                "you may not 吃 this card",
                                "这张牌你不能吃",
                            )
                            .with_cards(melds.concat()));
                        }
                        if !w.chi[seat].contains(&faces) {
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
                };
                // 过张 and 忍碰: passing up a 吃 or 碰 blocks that face for the rest of the hand.
                if answer != Answer::Peng && w.peng[seat] {
                    h.declined_peng[seat] |= bit(w.card);
                }
                if answer == Answer::Pass && (w.peng[seat] || !w.chi[seat].is_empty()) {
                    h.blocked[seat] |= bit(w.card);
                }
                if answer == Answer::Pass {
                    // Only the seat knows it had a claim to pass on.
                    out.events
                        .push(Event::private("pass", seat, data(&events::Nothing {})));
                }
                w.answers[seat] = Some(answer);
                Next::Window(w.clone())
            }
        };
        state.advance(next, &mut out);
        Ok(out)
    }

    fn auto_action(state: &State, seat: SeatNo) -> Action {
        let Some(h) = state.table.hand() else {
            return Action::Pass {};
        };
        match &h.phase {
            Phase::Claim(w) if w.hu[seat] => Action::Hu {},
            Phase::Claim(_) => Action::Pass {},
            Phase::Discard { .. } => match auto_discard(h, seat) {
                Some(c) => Action::Discard { card: card_of(c) },
                None => Action::Pass {},
            },
        }
    }

    /// The bot: 胡 whenever it may, 碰, a 吃 that adds 胡息, and the discard least useful to
    /// melds (`bot`).
    fn bot_action(state: &State, seat: SeatNo) -> Action {
        bot::bot_action(state, seat)
    }

    fn leave(state: &mut State, seat: SeatNo, ctx: Ctx, _wallet: i64) -> Outcome {
        let mut out = Outcome::default();
        if seat >= SEATS {
            return out;
        }
        match &state.table {
            Table::Finished { .. } => {}
            Table::InHand { hand: h, .. } => {
                let lasted = ctx.now_ms.saturating_sub(h.started_ms);
                let bonus = lasted >= ESCAPE_BONUS_AFTER_MS;
                let (points, units) = escape(seat, state.opts.base(), state.opts.rate, bonus);
                let summary = Summary {
                    hand_no: state.hand_no,
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
                out.end_hand_with_points(state.hand_no, points.to_vec(), units.to_vec(), &summary);
                state.table = Table::Finished { last: summary };
            }
            Table::Waiting | Table::Between { .. } => {
                out.events
                    .push(Event::public("left", Some(seat), data(&events::Nothing {})))
            }
        }
        out
    }

    fn view(state: &State, viewer: Option<SeatNo>) -> View {
        let o = &state.opts;
        let mut v = View {
            kings: o.kings,
            xing: o.xing,
            rate: o.rate,
            hand_no: state.hand_no,
            dealer: state.dealer,
            hand: None,
            seats: Vec::new(),
            stock: 0,
            turn: None,
            claim: None,
            last_result: state.table.last().cloned(),
        };
        let Some(h) = state.table.hand() else {
            return v;
        };
        v.dealer = h.dealer;
        v.hand = viewer.filter(|&s| s < SEATS).map(|s| cards_of(&h.hands[s]));
        v.stock = h.stock.len() - h.next;
        v.seats = (0..SEATS)
            .map(|s| SeatView {
                seat: s,
                cards: h.hands[s].len(),
                melds: h.melds[s]
                    .iter()
                    .map(|m| MeldView {
                        kind: m.kind,
                        cards: (!m.hidden || viewer == Some(s)).then(|| cards_of(&m.faces)),
                        size: m.faces.len(),
                    })
                    .collect(),
                passed: cards_of(&h.passed[s]),
            })
            .collect();
        match &h.phase {
            Phase::Discard { seat } => v.turn = Some(*seat),
            // A drawn W that could win: the drawer's discard turn, its 胡 the drawer's own.
            Phase::Claim(w) if matches!(w.source, Source::Placed { .. }) => {
                v.turn = Some(w.owner);
                if viewer == Some(w.owner) {
                    v.claim = Some(ClaimView {
                        card: Some(card_of(w.card)),
                        from: w.owner,
                        source: "placed",
                    });
                }
            }
            Phase::Claim(w) => {
                let source = if w.source == Source::Discard {
                    "discard"
                } else {
                    "draw"
                };
                v.claim = Some(ClaimView {
                    card: Some(card_of(w.card)),
                    from: w.owner,
                    source,
                });
            }
        }
        v
    }

    fn legal_actions(state: &State, seat: SeatNo) -> Vec<Legal> {
        let Some(h) = state.table.hand() else {
            return Vec::new();
        };
        if !Self::to_act(state).contains(&seat) {
            return Vec::new();
        }
        match &h.phase {
            Phase::Discard { .. } => vec![Legal::Discard {
                cards: cards_of(&h.discardable(seat)),
            }],
            // The drawer's discard stands for passing on the win (or, with nothing it may
            // discard, a pass: the next seat draws).
            Phase::Claim(w) if matches!(w.source, Source::Placed { .. }) => {
                let cards = h.discardable(seat);
                vec![
                    Legal::Hu {},
                    if cards.is_empty() {
                        Legal::Pass {}
                    } else {
                        Legal::Discard {
                            cards: cards_of(&cards),
                        }
                    },
                ]
            }
            Phase::Claim(w) => {
                let mut out = Vec::new();
                if w.hu[seat] {
                    out.push(Legal::Hu {});
                }
                if w.peng[seat] {
                    out.push(Legal::Peng {});
                }
                if !w.chi[seat].is_empty() {
                    out.push(Legal::Chi {
                        options: w.chi[seat]
                            .iter()
                            .map(|ms| ms.iter().map(|m| cards_of(m)).collect())
                            .collect(),
                    });
                }
                out.push(Legal::Pass {});
                out
            }
        }
    }

    fn event_schemas() -> BTreeMap<&'static str, Value> {
        events::schemas()
    }
}
