//! What each seat may see, what it may do, and how a hand is summed up. A seat sees its own
//! hand, every played card, counts of the others' cards, and the standing declaration's suit only
//! when it is its own, until the declaration phase ends.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::declare::{self, Declaration};
use super::{HandState, Phase, Played, SEATS, State};
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

/// The settlement of a hand (`last_result`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Summary {
    /// A hand played out.
    Played {
        /// The hand's number in the match, from 1.
        hand_no: u32,
        /// The hand's dealer (庄家).
        dealer: SeatNo,
        /// The hand's trump suit.
        trump: Suit,
        /// The declaration that stood; null when nobody declared.
        declaration: Option<Declaration>,
        /// Card points the defenders (抓分方) took.
        defenders_points: u32,
        /// The team that gained `levels_gained` (0 when the defenders only took the deal).
        gaining_team: usize,
        levels_gained: u8,
        /// Each team's level before the hand.
        levels_before: [u8; 2],
        /// Each team's level after the hand.
        levels_after: [u8; 2],
        /// The dealer of the next hand.
        next_dealer: SeatNo,
        /// Set when a team passed A.
        match_winner: Option<usize>,
        /// Each seat's points for the hand.
        points: Vec<i64>,
    },
    /// 逃跑: the leaver's team lost the match.
    Escape {
        /// The hand's number in the match, from 1.
        hand_no: u32,
        /// The seat that escaped.
        seat: SeatNo,
        /// How long the hand had lasted, in milliseconds.
        lasted_ms: i64,
        /// The others gained 1 point each: the hand had lasted 30 s.
        bonus: bool,
        /// The team that won the match: the leaver's opponents.
        match_winner: usize,
        /// Each seat's points: the leaver pays each other seat 3 (plus the bonus).
        points: Vec<i64>,
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

/// Data of the events (`Event::data`), one type per shape, and the schema of each kind's data:
/// small typed records, never a card a receiver may not see. Events are public unless said.
pub mod events {
    use std::collections::BTreeMap;

    use serde_json::Value;

    use super::*;
    use crate::engine::written_schema;

    /// Cards: `dealt`, private to its seat (the seat's dealt hand, strongest first), and `play`,
    /// public (the cards the seat played).
    #[derive(Serialize, JsonSchema)]
    pub struct Cards<'a> {
        /// The cards.
        pub cards: &'a [Card],
    }

    /// `hand_start`: a hand is dealt and the declaration phase begins.
    #[derive(Serialize, JsonSchema)]
    pub struct HandBegins {
        /// The hand's number in the match, from 1.
        pub hand_no: u32,
        /// Each team's level, 2..=14 (14 = A); team 0 is seats 0 and 2.
        pub levels: [u8; 2],
        /// Known from hand 2 on; hand 1's dealer is the final declarer (反底反桩).
        pub dealer: Option<SeatNo>,
        /// The seat that may declare first.
        pub first_to_declare: SeatNo,
    }

    /// `declare`: the seat showed 2s to declare a trump suit (暗叫): the table sees how many,
    /// not the suit.
    #[derive(Serialize, JsonSchema)]
    pub struct Declared {
        /// How many identical 2s the seat showed (1 to 4).
        pub count: u8,
    }

    /// `trump`: the declaration phase is over; its seat is the final declarer, if any.
    #[derive(Serialize, JsonSchema)]
    pub struct TrumpChosen {
        /// The trump suit (spades when nobody declared).
        pub trump: Suit,
        /// The declaration that stood; null when nobody declared.
        pub declaration: Option<Declaration>,
        /// The dealer (庄家) of the hand, who leads the first trick.
        pub dealer: SeatNo,
    }

    /// `trick`: a trick is complete; its seat is the winner.
    #[derive(Serialize, JsonSchema)]
    pub struct TrickWon {
        /// The seat that won the trick and leads the next.
        pub winner: SeatNo,
        /// Card points in the trick.
        pub points: u32,
        /// Card points the defenders (抓分方) have taken this hand, this trick included.
        pub defenders_points: u32,
    }

    /// Events whose kind and seat say it all: `pass` (the seat passed in the declaration
    /// phase) and `left` (the seat left between hands; after the first hand its team loses
    /// the match).
    #[derive(Serialize, JsonSchema)]
    pub struct Nothing {}

    /// Every event kind's data schema (`Game::event_schemas`). `escape` carries the hand's
    /// summary (its `escape` kind), as `hand_end` does after it.
    pub fn schemas() -> BTreeMap<&'static str, Value> {
        BTreeMap::from([
            ("dealt", written_schema::<Cards<'static>>()),
            ("hand_start", written_schema::<HandBegins>()),
            ("declare", written_schema::<Declared>()),
            ("pass", written_schema::<Nothing>()),
            ("trump", written_schema::<TrumpChosen>()),
            ("play", written_schema::<Cards<'static>>()),
            ("trick", written_schema::<TrickWon>()),
            ("escape", written_schema::<Summary>()),
            ("left", written_schema::<Nothing>()),
            ("hand_end", written_schema::<Summary>()),
        ])
    }
}
