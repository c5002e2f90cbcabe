//! What clients see: the view of the state, the legal-action templates and the hand summary.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::bidding::Call;
use super::follow::Shape;
use super::scoring::Verdict;
use crate::cards::{Card, Suit};
use crate::engine::{SeatInfo, SeatNo};

/// One seat's play in a trick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TrickPlay {
    pub seat: SeatNo,
    pub cards: Vec<Card>,
}

/// A trick, current or finished (查牌).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Trick {
    pub leader: SeatNo,
    /// The structure of the lead, once led.
    pub shape: Option<Shape>,
    pub plays: Vec<TrickPlay>,
    /// Set when the trick is finished.
    pub winner: Option<SeatNo>,
    /// Card points in the trick (they count for the defenders only when a defender wins it).
    pub points: u32,
}

impl Trick {
    pub fn new(leader: SeatNo) -> Trick {
        Trick {
            leader,
            shape: None,
            plays: Vec::new(),
            winner: None,
            points: 0,
        }
    }
}

/// 扣底: what the last trick added to the defenders' points.
/// Also the data of the `bottom_captured` event, which everyone sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BottomCapture {
    /// × 1 single, × 2 pair, × 4 tractor.
    pub multiple: u32,
    /// The buried points times the multiple.
    pub points: u32,
}

/// How a hand ended, shown to everyone as `last_result`. Never names a buried card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "end", rename_all = "snake_case")]
pub enum Summary {
    /// Played out: the result table.
    Played {
        /// The hand's number in the match, from 1.
        hand_no: u32,
        /// The seat that won the bidding.
        banker: SeatNo,
        /// The banker's winning bid.
        bid: u32,
        /// The base score the bid was played for.
        base_score: i64,
        /// Points the defenders took, the bottom's included.
        defenders_points: u32,
        /// The result's name.
        verdict: Verdict,
        /// 扣底, when the defenders won the last trick with trumps.
        bottom_capture: Option<BottomCapture>,
        /// Each seat's points for the hand.
        points: Vec<i64>,
    },
    /// 投降: each defender won 1 from the banker.
    Surrendered {
        /// The hand's number in the match, from 1.
        hand_no: u32,
        /// The seat that won the bidding and surrendered.
        banker: SeatNo,
        /// The banker's winning bid.
        bid: u32,
        /// Each seat's points for the hand.
        points: Vec<i64>,
    },
    /// 逃跑: the leaver paid; `bonus`: the others also gained 1 for a hand of 30 s or more.
    Escape {
        /// The hand's number in the match, from 1.
        hand_no: u32,
        /// The seat that escaped.
        seat: SeatNo,
        /// The banker, once the bidding had found one.
        banker: Option<SeatNo>,
        /// The bid the penalty was counted from: the banker's, or the standing (else opening)
        /// bid during the bidding.
        bid: u32,
        /// How long the hand had lasted, in milliseconds.
        lasted_ms: i64,
        /// Whether the others also gained 1 (the hand lasted 30 s or more).
        bonus: bool,
        /// Each seat's points for the hand.
        points: Vec<i64>,
    },
}

/// The state as one seat (or a spectator) may see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct View {
    pub hand_no: u32,
    /// 限级: a bid under 70 counts as 70 for the base score; else every level counts.
    pub limit: bool,
    /// The lowest bid: 5 in both modes.
    pub lowest_bid: u32,
    /// bidding, trump, bury, decide, play; waiting between hands; finished.
    pub phase: String,
    pub turn: Option<SeatNo>,
    /// The deal of this hand: 1, and one more each time all four passed and the cards were
    /// dealt again (same hand number, same first bidder); 0 between hands.
    pub deal: u32,
    /// The seat that bids first in this hand, or in the next deal between hands.
    pub first_bidder: SeatNo,
    /// Every call of this hand's bidding, in order.
    pub bids: Vec<Call>,
    pub standing_bid: Option<u32>,
    pub banker: Option<SeatNo>,
    /// The banker's winning bid.
    pub bid: Option<u32>,
    /// The base score of the banker's bid (限级: at most 5, a bid under 70 counting as 70).
    pub base_score: Option<i64>,
    /// Whether the banker has named the trump (a suit, or none).
    pub trump_chosen: bool,
    /// The trump suit; null with `trump_chosen` means only the fixed trumps.
    pub trump: Option<Suit>,
    /// The viewer's own cards, strongest first.
    pub hand: Option<Vec<Card>>,
    /// The cards the viewer buried (the banker only).
    pub buried: Option<Vec<Card>>,
    /// Cards in each seat's hand.
    pub card_counts: Vec<usize>,
    /// Cards in the bottom: 8 before the banker takes them and after it buries.
    pub bottom_count: usize,
    /// Points the defenders have taken so far.
    pub defenders_points: u32,
    /// Seats that have shown void in trumps (报副).
    pub void_in_trumps: Vec<bool>,
    pub trick: Option<Trick>,
    /// Every finished trick of the hand, in order (查牌).
    pub tricks: Vec<Trick>,
    pub last_result: Option<Summary>,
}

/// Nothing is staked on a sandaha table: points move after each hand.
impl SeatInfo for View {}

/// An action the seat may send now, as a template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Legal {
    /// The only bid allowed: 90 first, then the standing bid less 5.
    Bid {
        value: u32,
    },
    Pass {},
    /// Each suit, or null for no trump suit.
    Trump {
        suits: Vec<Option<Suit>>,
    },
    /// Bury this many cards of your hand.
    Bury {
        count: usize,
    },
    Surrender {},
    PlayOn {},
    /// Play `count` cards (any of `shapes` when leading; following, as many as were led in
    /// the led shape when the hand allows).
    Play {
        lead: bool,
        count: Option<usize>,
        shapes: Vec<Shape>,
    },
}

/// Data of the events (`Event::data`), one type per shape, and the schema of each kind's data.
/// Events are public unless said.
pub mod events {
    use std::collections::BTreeMap;

    use serde_json::Value;

    use super::*;
    use crate::engine::written_schema;

    /// Events whose kind and seat say it all: `pass` (the seat passed in the bidding),
    /// `void_in_trumps` (报副: a defender followed a trump lead with a plain card, so it holds
    /// no trumps), `surrender` (the banker gave up the hand: 投降), `play_on` (the banker chose
    /// to play the hand out) and `left` (the seat left between hands). Everyone sees them.
    #[derive(Serialize, JsonSchema)]
    pub struct Nothing {}

    /// Cards only their seat sees: `dealt` (the seat's dealt hand), `bottom` (the 8 bottom
    /// cards the banker takes) and `buried_cards` (the cards the banker buried). Private to the
    /// seat.
    #[derive(Serialize, JsonSchema)]
    pub struct Cards<'a> {
        /// The cards, strongest first.
        pub cards: &'a [Card],
    }

    /// `hand_started`: a hand is dealt. Everyone sees it.
    #[derive(Serialize, JsonSchema)]
    pub struct HandStarted {
        /// The hand's number in the match, from 1.
        pub hand_no: u32,
        /// The seat that bids first.
        pub first_bidder: SeatNo,
        /// Cards in the bottom (8).
        pub bottom_count: usize,
    }

    /// `bid`: the seat bid. Everyone sees it.
    #[derive(Serialize, JsonSchema)]
    pub struct Bid {
        /// The bid: the banker undertakes to hold the defenders below this many points (90
        /// first, then each bid 5 lower).
        pub value: u32,
    }

    /// `redeal`, when all four passed: everyone sees it. The new deal follows in the same
    /// hand, each seat's new cards in a private `dealt` event.
    #[derive(Serialize, JsonSchema)]
    pub struct Redeal {
        /// The seat that bids first again.
        pub first_bidder: SeatNo,
        /// The new deal's number in the hand (2 after the first all-pass).
        pub deal: u32,
        /// Why, in words.
        pub reason: &'static str,
    }

    /// `banker`, the seat that won the bidding: everyone sees it, with only the count of the
    /// bottom cards it took.
    #[derive(Serialize, JsonSchema)]
    pub struct Banker {
        /// The winning bid.
        pub bid: u32,
        /// The base score the bid is played for.
        pub base_score: i64,
        /// Bottom cards the banker took into its hand.
        pub bottom_taken: usize,
    }

    /// `trump`: the banker named the trump. Everyone sees it.
    #[derive(Serialize, JsonSchema)]
    pub struct Trump {
        /// Null for no trump suit (only the fixed trumps).
        pub suit: Option<Suit>,
    }

    /// `buried`: everyone sees how many cards the banker buried, never which.
    #[derive(Serialize, JsonSchema)]
    pub struct Buried {
        /// Cards buried (8).
        pub count: usize,
    }

    /// `play`: the seat played cards. Everyone sees it.
    #[derive(Serialize, JsonSchema)]
    pub struct Play<'a> {
        /// Sorted strongest first.
        pub cards: &'a [Card],
        /// The lead's structure; null when following.
        pub shape: Option<Shape>,
    }

    /// `trick_won`, its seat the winner: everyone sees it.
    #[derive(Serialize, JsonSchema)]
    pub struct TrickWon {
        /// The trick's card points.
        pub points: u32,
        /// The defenders' points after the trick.
        pub defenders_points: u32,
    }

    /// `escape`: the seat left during a hand (逃跑), which ends the hand and the match.
    /// Everyone sees it.
    #[derive(Serialize, JsonSchema)]
    pub struct Escape {
        /// How long the hand had lasted, in milliseconds.
        pub lasted_ms: i64,
        /// Whether the others also gain 1 (the hand lasted 30 s or more).
        pub bonus: bool,
    }

    /// Every event kind's data schema (`Game::event_schemas`).
    pub fn schemas() -> BTreeMap<&'static str, Value> {
        BTreeMap::from([
            ("hand_started", written_schema::<HandStarted>()),
            ("dealt", written_schema::<Cards<'static>>()),
            ("bid", written_schema::<Bid>()),
            ("pass", written_schema::<Nothing>()),
            ("redeal", written_schema::<Redeal>()),
            ("banker", written_schema::<Banker>()),
            ("bottom", written_schema::<Cards<'static>>()),
            ("trump", written_schema::<Trump>()),
            ("buried", written_schema::<Buried>()),
            ("buried_cards", written_schema::<Cards<'static>>()),
            ("surrender", written_schema::<Nothing>()),
            ("play_on", written_schema::<Nothing>()),
            ("play", written_schema::<Play<'static>>()),
            ("void_in_trumps", written_schema::<Nothing>()),
            ("trick_won", written_schema::<TrickWon>()),
            ("bottom_captured", written_schema::<BottomCapture>()),
            ("escape", written_schema::<Escape>()),
            ("left", written_schema::<Nothing>()),
            ("hand_end", written_schema::<Summary>()),
        ])
    }
}
