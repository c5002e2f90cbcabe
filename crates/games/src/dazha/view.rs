//! What clients see of a dazha match: the view of the state for one viewer, the templates of
//! `legal_actions` and the data of the events (the hand summary is `scoring::Summary`). The
//! view is the one place that decides what a seat may see: its own hand, and the others' card
//! counts only once they are reported (报牌).
//!
//! Struct fields are declared in alphabetical order because the contract's JSON was first
//! produced from sorted JSON maps: keeping the order keeps the text byte for byte (the golden
//! test in `tests.rs`).

use schemars::JsonSchema;
use serde::Serialize;

use super::Mode;
use super::combos::ComboView;
use super::scoring::{Summary, Teams};
use crate::cards::Card;
use crate::engine::{SeatInfo, SeatNo};

/// The match as one seat (or a spectator) may see it. The hand fields are null between hands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct View {
    pub base: i64,
    pub bomb_cap: u8,
    /// The bombs played this hand.
    pub bombs: Option<Vec<PlayView>>,
    /// The viewer's own cards, strongest first; absent for a spectator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<Vec<Card>>,
    pub hand_no: u32,
    pub last_hand: Option<Summary>,
    pub leader: Option<SeatNo>,
    pub mode: Mode,
    /// Seats in the order they went out.
    pub order_out: Option<Vec<SeatNo>>,
    pub round: Option<RoundView>,
    pub seats: Option<Vec<SeatView>>,
    pub team_points: Option<[u32; 2]>,
    pub teams: Option<Teams>,
    pub turn: Option<SeatNo>,
}

/// Nothing is staked on a dazha table: coins move between wallets after each hand.
impl SeatInfo for View {}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeatView {
    /// Card points won in rounds.
    pub captured: u32,
    /// Exact for the viewer's own seat and once at most 10 are left (报牌); else null.
    pub cards_left: Option<usize>,
    /// 1 for 上游, 2 for 二游, …; null while holding cards.
    pub place: Option<usize>,
    pub seat: SeatNo,
    pub team: u8,
}

/// Cards played by a seat, read as one combination.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PlayView {
    pub cards: Vec<Card>,
    pub combo: ComboView,
    pub seat: SeatNo,
}

/// The round being played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RoundView {
    pub leader: SeatNo,
    pub plays: Vec<RoundEntry>,
    /// Card points played in the round so far.
    pub points: u32,
    /// The play to beat; null on a lead.
    pub top: Option<PlayView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RoundEntry {
    Play(PlayView),
    /// `pass` is always true.
    Pass {
        pass: bool,
        seat: SeatNo,
    },
}

/// One entry of `legal_actions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Legal {
    Play {
        /// The combination to beat when following.
        #[serde(skip_serializing_if = "Option::is_none")]
        beat: Option<ComboView>,
        /// Whether any play of the hand beats it (when following).
        #[serde(skip_serializing_if = "Option::is_none")]
        can_beat: Option<bool>,
        lead: bool,
        min_cards: usize,
    },
    Pass,
}

/// Data of the events (`Event::data`), one type per shape, and the schema of each kind's data.
/// Events are public unless said.
pub mod events {
    use std::collections::BTreeMap;

    use serde_json::Value;

    use super::super::scoring::{Escape, Shown};
    use super::*;
    use crate::engine::written_schema;

    /// Events whose kind and seat say it all: `pass` (the seat passed on the round) and `left`
    /// (the seat left between hands; partners are drawn afresh for the next hand).
    #[derive(Serialize, JsonSchema)]
    pub struct Nothing {}

    /// `dealt`, private to its seat: the seat's dealt hand.
    #[derive(Serialize, JsonSchema)]
    pub struct Dealt<'a> {
        /// The cards, strongest first.
        pub cards: &'a [Card],
    }

    /// `tanpai`: seats had to show their hands right after the deal (摊牌); the hand is not
    /// played, and `hand_end` follows.
    #[derive(Serialize, JsonSchema)]
    pub struct Tanpai<'a> {
        /// Each seat that showed, in seat order.
        pub shown: &'a [Shown],
    }

    /// How the partners of a hand came about.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum Partners {
        /// The two seats dealt a 3S play together; the one dealt the first 3S leads.
        SpadeThreeHolders,
        /// One seat was dealt both 3S: opposite seats play together and it leads.
        OneSeatHoldsBoth,
        /// The partners of the last hand played play on; its 上游 leads.
        Kept,
    }

    /// `hand_started`: the hand is played, with these partners.
    #[derive(Serialize, JsonSchema)]
    pub struct HandStarted {
        /// The hand's number in the match, from 1.
        pub hand_no: u32,
        /// The seat that leads the first round.
        pub leader: SeatNo,
        /// How partners came about.
        pub partners: Partners,
        /// The seats of team 0 and of team 1.
        pub teams: Teams,
    }

    /// `play`: the seat played cards.
    #[derive(Serialize, JsonSchema)]
    pub struct Play<'a> {
        /// The cards played.
        pub cards: &'a [Card],
        /// Cards the seat has left; null until it is down to 10 and must tell (报牌).
        pub cards_left: Option<usize>,
        /// The combination the cards were read as.
        pub combo: ComboView,
    }

    /// `out`: the seat played its last card.
    #[derive(Serialize, JsonSchema)]
    pub struct Out {
        /// The order it went out in: 1 for 上游, 2 for 二游, 3.
        pub place: usize,
    }

    /// `round_won`: everyone else passed; the seat wins the round and its card points.
    #[derive(Serialize, JsonSchema)]
    pub struct RoundWon {
        /// All the card points the seat has won this hand.
        pub captured: u32,
        /// The seat that leads the next round (the partner, 接风, when the winner is out).
        pub leads_next: SeatNo,
        /// Card points of the round.
        pub points: u32,
    }

    /// `jiefeng`: the round's winner has gone out, so the seat (its partner, or the next seat
    /// holding cards) leads the next round in its place (接风).
    #[derive(Serialize, JsonSchema)]
    pub struct Jiefeng {
        /// The seat that won the round and is out.
        pub from: SeatNo,
    }

    /// Every event kind's data schema (`Game::event_schemas`).
    pub fn schemas() -> BTreeMap<&'static str, Value> {
        BTreeMap::from([
            ("dealt", written_schema::<Dealt<'static>>()),
            ("tanpai", written_schema::<Tanpai<'static>>()),
            ("hand_started", written_schema::<HandStarted>()),
            ("play", written_schema::<Play<'static>>()),
            ("pass", written_schema::<Nothing>()),
            ("out", written_schema::<Out>()),
            ("round_won", written_schema::<RoundWon>()),
            ("jiefeng", written_schema::<Jiefeng>()),
            ("escape", written_schema::<Escape>()),
            ("left", written_schema::<Nothing>()),
            ("hand_end", written_schema::<Summary>()),
        ])
    }
}
