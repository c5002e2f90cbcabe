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

/// Data of the events (`Event::data`), one type per shape.
pub mod events {
    use super::*;

    /// Events whose seat says it all (`pass`, `left`).
    #[derive(Serialize)]
    pub struct Nothing {}

    #[derive(Serialize)]
    pub struct Dealt<'a> {
        pub cards: &'a [Card],
    }

    #[derive(Serialize)]
    pub struct Tanpai<'a> {
        pub shown: &'a [super::super::scoring::Shown],
    }

    #[derive(Serialize)]
    pub struct HandStarted {
        pub hand_no: u32,
        pub leader: SeatNo,
        /// How partners came about: `spade_three_holders`, `one_seat_holds_both` or `kept`.
        pub partners: &'static str,
        pub teams: Teams,
    }

    #[derive(Serialize)]
    pub struct Play<'a> {
        pub cards: &'a [Card],
        /// Null until the seat reports its count (报牌).
        pub cards_left: Option<usize>,
        pub combo: ComboView,
    }

    #[derive(Serialize)]
    pub struct Out {
        pub place: usize,
    }

    #[derive(Serialize)]
    pub struct RoundWon {
        pub captured: u32,
        pub leads_next: SeatNo,
        pub points: u32,
    }

    #[derive(Serialize)]
    pub struct Jiefeng {
        pub from: SeatNo,
    }
}
