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
    /// The head (头), the stronger half, strongest card first.
    pub head: Vec<Card>,
    /// The head's name: a named pair (`天牌`, `天杠`, …) or its points (`9点`).
    pub head_name: String,
    /// The server swapped the halves because the head sent was the weaker.
    pub swapped: bool,
    /// The tail (尾), the weaker half, strongest card first.
    pub tail: Vec<Card>,
    /// The tail's name: a named pair (`天牌`, `天杠`, …) or its points (`9点`).
    pub tail_name: String,
}

/// A hand revealed at the showdown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ShownHand {
    #[serde(flatten)]
    pub split: SplitView,
    /// `三花十` or `三花六` when the four cards make one (compared with nobody); else null.
    pub sanhua: Option<&'static str>,
    /// The seat that held the hand.
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
    /// 基本积分 of the hand.
    pub base_points: i64,
    /// Every (winner, loser) pair, whether or not coins moved between them.
    pub beats: Vec<Beat>,
    /// The seat that dealt the hand.
    pub dealer: SeatNo,
    /// Whether the hand ended as a draw (a round everyone checked, or fewer than two seats left
    /// to play): every 簸簸 goes back.
    pub draw: bool,
    /// How the hand ended.
    pub ending: Ending,
    /// The escape that ended the hand, if one did.
    pub escape: Option<Escape>,
    /// The hands revealed at a showdown; empty without one.
    pub hands: Vec<ShownHand>,
    /// Each seat's net coin change.
    pub net: Vec<i64>,
    /// The seat that deals the next hand (尾大吃皮: the first to collect).
    pub next_dealer: SeatNo,
    /// Each seat's 积分 change.
    pub points: Vec<i64>,
    /// What each seat put in during the hand, ante included.
    pub put_in: Vec<i64>,
    /// What each collected from each.
    pub transfers: Vec<Transfer>,
}

/// One seat beating another in the settlement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Beat {
    /// The seat beaten.
    pub loser: SeatNo,
    /// The seat that beat it.
    pub winner: SeatNo,
}

/// An escape (逃跑): the leaver pays the table total.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Escape {
    /// 积分 each other seat still in the hand gains (the hand had lasted 30 s), else 0.
    pub bonus_points: i64,
    /// Coins of the penalty taken from the leaver's 簸簸.
    pub from_bobo: i64,
    /// Coins of the penalty taken from the leaver's wallet, after the 簸簸 ran out.
    pub from_wallet: i64,
    /// The seat that escaped.
    pub seat: SeatNo,
    /// Everything put in at the table when it left: the penalty due.
    pub table_total: i64,
}

/// Data of the events (`Event::data`), one type per shape. Events are public unless said.
pub mod events {
    use std::collections::BTreeMap;

    use serde_json::Value;

    use super::*;
    use crate::engine::written_schema;

    /// Events whose kind and seat say it all: `bobo_set` (the seat set its 簸簸; the amount
    /// stays hidden until every seat has set), `sat_out` (the seat sits this hand out) and
    /// `split` (the seat has sent its split; the halves stay hidden until the showdown).
    #[derive(Serialize, JsonSchema)]
    pub struct Nothing {}

    /// `hand_start`: a hand begins; every seat with `playing` true now sets its 簸簸 or sits out.
    #[derive(Serialize, JsonSchema)]
    pub struct HandStart {
        /// 基本积分 of this hand: what one level of 积分 is worth.
        pub base_points: i64,
        /// The seat that deals this hand and is dealt first.
        pub dealer: SeatNo,
        /// The hand's number in the match, from 1.
        pub hand_no: u32,
        /// By seat: whether the seat's wallet holds at least `min_bobo`, so it may play.
        pub playing: Vec<bool>,
    }

    /// `match_over`: no hand can be dealt because fewer than two seats hold `min_bobo` coins.
    #[derive(Serialize, JsonSchema)]
    pub struct MatchOver {
        /// By seat: whether the seat could still have played.
        pub playing: Vec<bool>,
        /// Why the match is over, in words.
        pub reason: &'static str,
    }

    /// `antes`: every seat has set its 簸簸 (now shown) and each playing seat posts the ante
    /// from it.
    #[derive(Serialize, JsonSchema)]
    pub struct Antes {
        /// The ante (底皮) each playing seat put in.
        pub ante: i64,
        /// By seat: the 簸簸 it set; null for a seat not in the hand.
        pub bobos: Vec<Option<i64>>,
    }

    /// `dealt`, private to its seat: the seat's two hidden cards.
    #[derive(Serialize, JsonSchema)]
    pub struct Dealt {
        /// The hidden cards, strongest first.
        pub cards: Vec<Card>,
    }

    /// `hidden_dealt`: everyone sees that the hidden cards were dealt, and to whom.
    #[derive(Serialize, JsonSchema)]
    pub struct HiddenDealt {
        /// Hidden cards dealt to each seat (2).
        pub count: usize,
        /// The seats dealt in, in dealing order (the dealer first).
        pub order: Vec<SeatNo>,
    }

    /// `round`: a betting round opens.
    #[derive(Serialize, JsonSchema)]
    pub struct Round {
        /// The betting round, 1 to 3.
        pub round: u8,
        /// The seat that speaks first.
        pub turn: Option<SeatNo>,
    }

    /// A betting action, its kind the action taken: `check` (休), `raise` (大), `call` (跟),
    /// `all_in` (敲) or `fold` (丢), its seat the seat that acted.
    #[derive(Serialize, JsonSchema)]
    pub struct Bet {
        /// Coins the action put in (`raise`, `call`, `all_in`); absent for `check` and `fold`.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub amount: Option<i64>,
        /// The seat's 簸簸 left after the action.
        pub left: i64,
        /// All the seat has put in this hand, ante included.
        pub put_in: i64,
        /// The seat's total for this round after a `raise` or `all_in`; absent otherwise.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub to: Option<i64>,
    }

    /// `face_up`: a card dealt face up to the event's seat between betting rounds.
    #[derive(Serialize, JsonSchema)]
    pub struct FaceUp {
        /// The card, seen by everyone.
        pub card: Card,
        /// Which of the seat's four cards it is: 3 or 4.
        pub card_no: u8,
    }

    /// `showdown_begins`: the betting is over; the seats still in must split their cards.
    #[derive(Serialize, JsonSchema)]
    pub struct ShowdownBegins {
        /// The seats that must split.
        pub seats: Vec<SeatNo>,
    }

    /// `showdown`: every split is in and the hands are revealed.
    #[derive(Serialize, JsonSchema)]
    pub struct Showdown<'a> {
        /// Each revealed hand, in seat order.
        pub hands: &'a [ShownHand],
    }

    /// `left`: the event's seat left the table.
    #[derive(Serialize, JsonSchema)]
    pub struct Left {
        /// Whether it left a hand it was still in (逃跑), which ends the hand as an escape.
        pub escape: bool,
    }

    /// Every event kind's data schema (`Game::event_schemas`).
    pub fn schemas() -> BTreeMap<&'static str, Value> {
        let mut m = BTreeMap::from([
            ("match_over", written_schema::<MatchOver>()),
            ("hand_start", written_schema::<HandStart>()),
            ("bobo_set", written_schema::<Nothing>()),
            ("sat_out", written_schema::<Nothing>()),
            ("antes", written_schema::<Antes>()),
            ("dealt", written_schema::<Dealt>()),
            ("hidden_dealt", written_schema::<HiddenDealt>()),
            ("round", written_schema::<Round>()),
            ("face_up", written_schema::<FaceUp>()),
            ("showdown_begins", written_schema::<ShowdownBegins>()),
            ("split", written_schema::<Nothing>()),
            ("showdown", written_schema::<Showdown<'static>>()),
            ("settlement", written_schema::<Summary>()),
            ("left", written_schema::<Left>()),
        ]);
        for kind in ["check", "raise", "call", "all_in", "fold"] {
            m.insert(kind, written_schema::<Bet>());
        }
        m
    }
}
