//! What clients see of a chehuzi match: the view of the state for one viewer and the
//! templates of `legal_actions`. A seat sees its own hand and melds; the others' face-down melds
//! (偎, a drawn 提) show only their size, and a drawn W's window only to its drawer.

use schemars::JsonSchema;
use serde::Serialize;

use super::claims::Source;
use super::melds::{Kind, card_of, cards_of};
use super::{Chehuzi, Phase, SEATS, State, Summary, Xing};
use crate::cards::Card;
use crate::engine::{Game, SeatInfo, SeatNo};

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

/// The match as `viewer` (a seat, or a spectator) may see it.
pub(super) fn view(state: &State, viewer: Option<SeatNo>) -> View {
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

/// What `seat` may do now (`Game::legal_actions`).
pub(super) fn legal(state: &State, seat: SeatNo) -> Vec<Legal> {
    let Some(h) = state.table.hand() else {
        return Vec::new();
    };
    if !Chehuzi::to_act(state).contains(&seat) {
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
