//! What clients see of a chexuan match: the view of the state for one viewer, the templates of
//! `legal_actions`, the hand summary (`last_result`) and the data of the events. The view is the
//! one place that decides what a seat may see; the platform's `coins_at_table` is read from it.
//!
//! Struct fields are declared in alphabetical order because the contract's JSON was first
//! produced from sorted JSON maps: keeping the order keeps the text byte for byte (the golden
//! test in `golden_tests.rs`).

use schemars::JsonSchema;
use serde::Serialize;

use super::ranking::{Split, rank_pair, sanhua};
use super::settle::Transfer;
use super::{Ending, Phase, State, sorted};
use crate::cards::Card;
use crate::engine::{SeatInfo, SeatNo};

/// The state as one seat (or a spectator) may see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct View {
    pub ante: i64,
    /// 基本积分 of the current (or last) hand.
    pub base_points: Option<i64>,
    /// Between hands: the dealer of the next hand.
    pub dealer: SeatNo,
    pub ending: Option<Ending>,
    pub hand_no: u32,
    /// The betting round's level, during betting only.
    pub level: Option<i64>,
    pub min_bobo: i64,
    pub phase: Phase,
    pub pot: Option<i64>,
    /// The betting round 1..=3, during betting only.
    pub round: Option<u8>,
    pub seats: Vec<SeatView>,
    pub turn: Option<SeatNo>,
}

/// One seat as the viewer may see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum SeatView {
    /// A seat in the current (or last) hand.
    Hand(Box<HandSeat>),
    /// With no hand to show (before hand 1, after the match finished): `playing` is false.
    NoHand {
        playing: bool,
        seat: SeatNo,
        vacated: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HandSeat {
    pub all_in: bool,
    /// Others see it only once every seat has set its bobo (the phase is simultaneous).
    pub bobo: Option<i64>,
    /// The bobo still on the table, hidden like `bobo`.
    pub bobo_left: Option<i64>,
    pub bobo_set: bool,
    /// In dealing order: the third card, then the fourth.
    pub face_up: Vec<Card>,
    pub folded: bool,
    /// The seat's own; everyone's that was not folded after a showdown. Strongest first.
    pub hidden: Option<Vec<Card>>,
    pub hidden_count: usize,
    pub playing: bool,
    pub put_in: i64,
    pub round_bet: i64,
    /// `三花十` or `三花六` after a showdown.
    pub sanhua: Option<&'static str>,
    pub seat: SeatNo,
    /// The seat's own as soon as it is sent; everyone's once all have split.
    pub split: Option<SplitView>,
    pub split_submitted: bool,
    pub vacated: bool,
}

/// A split as shown: each half strongest first, with its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SplitView {
    pub head: Vec<Card>,
    pub head_name: String,
    /// The server swapped the halves because the head sent was the weaker.
    pub swapped: bool,
    pub tail: Vec<Card>,
    pub tail_name: String,
}

/// A hand revealed at the showdown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ShownHand {
    #[serde(flatten)]
    pub split: SplitView,
    pub sanhua: Option<&'static str>,
    pub seat: SeatNo,
}

impl SeatInfo for View {
    /// The seat's 簸簸 left on the table during a hand, where this view shows it.
    fn coins_at_table(&self, seat: SeatNo) -> Option<i64> {
        if !self.phase.in_hand() {
            return None;
        }
        match self.seats.get(seat)? {
            SeatView::Hand(h) => h.bobo_left,
            SeatView::NoHand { .. } => None,
        }
    }
}

pub(super) fn split_view(split: &Split, swapped: bool) -> SplitView {
    SplitView {
        head: sorted(&split.head),
        tail: sorted(&split.tail),
        head_name: rank_pair(split.head[0], split.head[1]).1,
        tail_name: rank_pair(split.tail[0], split.tail[1]).1,
        swapped,
    }
}

pub(super) fn seat_view(state: &State, s: SeatNo, viewer: Option<SeatNo>) -> SeatView {
    let vacated = state.vacated.get(s).copied().unwrap_or(false);
    let Some(h) = state.hand() else {
        return SeatView::NoHand {
            seat: s,
            vacated,
            playing: false,
        };
    };
    let sh = &h.seats[s];
    let own = viewer == Some(s);
    let revealed = h.revealed(s);
    let bobo_public = own || state.phase() != Phase::Bobo;
    SeatView::Hand(Box::new(HandSeat {
        seat: s,
        vacated,
        playing: sh.playing,
        bobo_set: sh.bobo.is_some(),
        bobo: sh.bobo.filter(|_| bobo_public),
        bobo_left: sh.bobo.filter(|_| bobo_public).map(|_| sh.left),
        put_in: sh.put_in,
        round_bet: sh.round_bet,
        folded: sh.folded,
        all_in: sh.all_in,
        face_up: sh.face_up.clone(),
        hidden: (own || revealed).then(|| sorted(&sh.hidden)),
        hidden_count: sh.hidden.len(),
        split_submitted: sh.split.is_some(),
        split: sh
            .split
            .filter(|_| own || revealed)
            .map(|split| split_view(&split, sh.swapped)),
        sanhua: revealed.then(|| sanhua(&sh.cards())).flatten(),
    }))
}

/// One entry of `legal_actions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Legal {
    SetBobo {
        max: i64,
        min: i64,
    },
    SitOut,
    Check,
    /// `amount`: what the call adds.
    Call {
        amount: i64,
    },
    /// The seat's round total after the raise.
    Raise {
        max: i64,
        min: i64,
    },
    /// `amount`: the whole bobo left.
    AllIn {
        amount: i64,
    },
    Fold,
    Split,
}

/// The settlement of a hand (`HandResult::detail`, the `settlement` event, `last_result`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Summary {
    pub base_points: i64,
    /// Every (winner, loser) pair, whether or not coins moved between them.
    pub beats: Vec<Beat>,
    pub dealer: SeatNo,
    pub draw: bool,
    pub ending: Ending,
    pub escape: Option<Escape>,
    /// The hands revealed at a showdown; empty without one.
    pub hands: Vec<ShownHand>,
    /// Each seat's net coin change.
    pub net: Vec<i64>,
    pub next_dealer: SeatNo,
    pub points: Vec<i64>,
    pub put_in: Vec<i64>,
    /// What each collected from each.
    pub transfers: Vec<Transfer>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Beat {
    pub loser: SeatNo,
    pub winner: SeatNo,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Escape {
    pub bonus_points: i64,
    pub from_bobo: i64,
    pub from_wallet: i64,
    pub seat: SeatNo,
    pub table_total: i64,
}

/// Data of the events (`Event::data`), one type per shape.
pub mod events {
    use super::*;

    /// Events whose seat says it all (`bobo_set`, `sat_out`, `check`, `fold`, `split`).
    #[derive(Serialize)]
    pub struct Nothing {}

    #[derive(Serialize)]
    pub struct HandStart {
        pub base_points: i64,
        pub dealer: SeatNo,
        pub hand_no: u32,
        pub playing: Vec<bool>,
    }

    #[derive(Serialize)]
    pub struct MatchOver {
        pub playing: Vec<bool>,
        pub reason: &'static str,
    }

    #[derive(Serialize)]
    pub struct Antes {
        pub ante: i64,
        pub bobos: Vec<Option<i64>>,
    }

    #[derive(Serialize)]
    pub struct Dealt {
        pub cards: Vec<Card>,
    }

    #[derive(Serialize)]
    pub struct HiddenDealt {
        pub count: usize,
        pub order: Vec<SeatNo>,
    }

    #[derive(Serialize)]
    pub struct Round {
        pub round: u8,
        pub turn: Option<SeatNo>,
    }

    /// A betting action: `to` for a raise or 敲, `amount` for what it put in.
    #[derive(Serialize)]
    pub struct Bet {
        #[serde(skip_serializing_if = "Option::is_none")]
        pub amount: Option<i64>,
        pub left: i64,
        pub put_in: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub to: Option<i64>,
    }

    #[derive(Serialize)]
    pub struct FaceUp {
        pub card: Card,
        pub card_no: u8,
    }

    #[derive(Serialize)]
    pub struct ShowdownBegins {
        pub seats: Vec<SeatNo>,
    }

    #[derive(Serialize)]
    pub struct Showdown<'a> {
        pub hands: &'a [ShownHand],
    }

    #[derive(Serialize)]
    pub struct Left {
        pub escape: bool,
    }
}
