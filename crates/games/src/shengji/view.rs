//! What each seat may see and what it may do. A seat sees its own
//! hand, every played card, counts of the others' cards, and the standing declaration's suit only
//! when it is its own, until the declaration phase ends.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::declare;
use super::{HandState, Phase, Played, SEATS, State, Summary};
use crate::cards::{Card, Suit};
use crate::engine::{SeatInfo, SeatNo};
use crate::trick::{self, EffSuit, Formation, Requirement, Score};

/// One finished trick, in playing order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TrickView {
    pub plays: Vec<Played>,
    pub winner: SeatNo,
    /// Card points in the trick (counted for the defenders when one of them won it).
    pub points: u32,
}

/// The standing declaration as a viewer may see it: the suit is `null` to other seats until
/// the phase ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DeclarationView {
    pub seat: SeatNo,
    pub count: u8,
    pub suit: Option<Suit>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct View {
    pub hand_no: u32,
    /// Each team's level, 2..=14 (14 = A); team 0 is seats 0 and 2, team 1 seats 1 and 3.
    pub levels: [u8; 2],
    /// This hand's dealer (庄家) once known; before the first hand's declaration ends, `null`.
    pub dealer: Option<SeatNo>,
    /// The trump suit once the declaration phase has ended.
    pub trump: Option<Suit>,
    pub declaration: Option<DeclarationView>,
    /// The seat to act.
    pub turn: Option<SeatNo>,
    /// The viewer's own cards, strongest first (`null` for spectators and between hands).
    pub hand: Option<Vec<Card>>,
    /// Cards each seat holds.
    pub cards_left: Vec<usize>,
    /// The trick being played, the leader first.
    pub trick: Vec<Played>,
    /// Every finished trick of this hand, in order.
    pub tricks: Vec<TrickView>,
    /// Card points the defenders (抓分方) have taken this hand.
    pub defenders_points: u32,
    /// The team that won the match, once over.
    pub winner: Option<usize>,
    pub last_result: Option<Summary>,
}

/// Nothing is staked on the table: the platform moves coins after each hand.
impl SeatInfo for View {}

/// One suit a seat may declare, with the counts it may show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DeclareOption {
    pub suit: Suit,
    pub counts: Vec<u8>,
}

/// What a follower's play must look like, where the structure rule binds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum Shape {
    /// One of these formations of the led suit (the led one or a stronger one).
    Formation { formation: Formation },
    /// Against a six-card lead, without a six-card tractor: a quad of the led suit with a pair
    /// of another face, any of them (the seed's 4个+1个对子).
    QuadAndPair {},
    /// Cards of the led suit with exactly this structure, the set read as its best partition
    /// (each card in one part): the tractor's length in cards, then quads, triples and pairs.
    Structure { score: Score },
    /// Every card of the led suit the seat holds, then any others.
    AllOfSuit { suit: EffSuit, held: usize },
}

/// One entry of `legal_actions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Legal {
    Declare {
        options: Vec<DeclareOption>,
    },
    Pass {},
    Play {
        /// Cards to play; `null` when leading (any one formation of one suit).
        count: Option<usize>,
        lead: bool,
        /// Empty when any cards of that count will do.
        shapes: Vec<Shape>,
    },
}

pub(super) fn view(state: &State, viewer: Option<SeatNo>) -> View {
    let mut v = View {
        hand_no: state.hand_no,
        levels: state.levels,
        dealer: None,
        trump: None,
        declaration: None,
        turn: None,
        hand: None,
        cards_left: vec![0; SEATS],
        trick: Vec::new(),
        tricks: Vec::new(),
        defenders_points: 0,
        winner: state.table.winner(),
        last_result: state.table.last().cloned(),
    };
    let Some(h) = state.table.hand() else {
        return v;
    };
    v.cards_left = h.hands.iter().map(Vec::len).collect();
    if let Some(seat) = viewer.filter(|&s| s < SEATS) {
        let mut mine = h.hands[seat].clone();
        h.order().sort_strongest_first(&mut mine);
        v.hand = Some(mine);
    }
    match &h.phase {
        Phase::Declaring(d) => {
            v.dealer = (state.hand_no > 1).then_some(state.next_dealer).flatten();
            v.turn = Some(d.turn);
            v.declaration = d.standing.map(|s| DeclarationView {
                seat: s.seat,
                count: s.count,
                suit: (viewer == Some(s.seat)).then_some(s.suit),
            });
        }
        Phase::Playing(p) => {
            v.dealer = Some(p.dealer);
            v.trump = Some(p.trump);
            v.turn = Some(p.turn);
            v.declaration = p.declaration.map(|s| DeclarationView {
                seat: s.seat,
                count: s.count,
                suit: Some(s.suit),
            });
            v.trick = p.trick.clone();
            v.tricks = p.tricks.clone();
            v.defenders_points = p.defenders_points;
        }
    }
    v
}

fn shapes(req: Requirement) -> Vec<Shape> {
    match req {
        Requirement::Free { .. } => Vec::new(),
        Requirement::AllOfSuit { suit, held, .. } => vec![Shape::AllOfSuit { suit, held }],
        Requirement::Formation { allowed, .. } => allowed
            .into_iter()
            .map(|formation| Shape::Formation { formation })
            .collect(),
        Requirement::QuadAndPair { .. } => vec![Shape::QuadAndPair {}],
        Requirement::Structure { score, .. } => vec![Shape::Structure { score }],
    }
}

pub(super) fn legal(state: &State, seat: SeatNo) -> Vec<Legal> {
    let Some(h) = state.table.hand() else {
        return Vec::new();
    };
    if seat >= SEATS {
        return Vec::new();
    }
    match &h.phase {
        Phase::Declaring(d) if d.turn == seat => {
            let options: Vec<DeclareOption> = declare::options(d, &h.hands[seat], seat)
                .into_iter()
                .map(|(suit, counts)| DeclareOption { suit, counts })
                .collect();
            let mut out = Vec::new();
            if !options.is_empty() {
                out.push(Legal::Declare { options });
            }
            out.push(Legal::Pass {});
            out
        }
        Phase::Playing(p) if p.turn == seat => vec![follow_legal(h, p, seat)],
        _ => Vec::new(),
    }
}

fn follow_legal(h: &HandState, p: &super::Playing, seat: SeatNo) -> Legal {
    match p.trick.first() {
        None => Legal::Play {
            count: None,
            lead: true,
            shapes: Vec::new(),
        },
        Some(lead) => {
            let req = trick::requirement(&p.order(), &h.hands[seat], &lead.cards);
            Legal::Play {
                count: Some(req.count()),
                lead: false,
                shapes: shapes(req),
            }
        }
    }
}
