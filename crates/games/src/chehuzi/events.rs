//! Data of the events (`Event::data`), one type per shape, and the schema of each kind's data.
//! Events are public unless said; a face-down 偎 or 提 is told to the other seats without its
//! card.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::Summary;
use crate::cards::Card;
use crate::engine::{SeatNo, written_schema};

/// Events whose kind and seat say it all: `pass` (private to its seat: it let a claim it had on
/// the card go) and `left` (the seat left between hands; everyone sees it).
#[derive(Serialize, JsonSchema)]
pub struct Nothing {}

/// One card, everyone sees it: `draw` (the seat turned it up from the stock, a W included),
/// `discard` (the seat discarded it), `peng` (the seat claimed it with a pair: 碰) and `pao` (the
/// seat took it as the fourth of a face it had three of: 跑).
#[derive(Serialize, JsonSchema)]
pub struct OneCard {
    pub card: Card,
}

/// `ti` (提: four of a face go down) and `wei` (偎: a drawn card goes down with a pair in hand),
/// the event's seat the one laying them down. Face up, everyone sees the card. Face down (a 偎, or a 提
/// drawn to a 坎 in hand), the seat alone is sent the card and the two other seats the event
/// without it. A 提 of four dealt cards (起手提) goes down face up at the deal, `dealt` true.
#[derive(Serialize, JsonSchema)]
pub struct Laid {
    /// The card of the face laid down; absent where it is face down to the receiver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<Card>,
    /// True for a 提 of four dealt cards (起手提); absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dealt: bool,
}

/// `chi`: the seat claimed the card into sequences (吃). Everyone sees it.
#[derive(Serialize, JsonSchema)]
pub struct Chi<'a> {
    /// The melds laid down, the first holding the claimed card; each further one uses one more
    /// copy of its face from the hand (比牌).
    pub melds: &'a [Vec<Card>],
}

/// `deal`: a hand is dealt. Everyone sees it.
#[derive(Serialize, JsonSchema)]
pub struct Deal {
    /// The dealer (庄家): dealt 21 cards, it discards first.
    pub dealer: SeatNo,
    /// Cards left in the stock after the deal.
    pub stock: usize,
}

/// `hand`: the seat's dealt hand. Private to its seat.
#[derive(Serialize, JsonSchema)]
pub struct Hand<'a> {
    /// The cards, sorted.
    pub cards: &'a [Card],
}

/// `escape`: the seat left during a hand (逃跑), which ends the hand and the match. Everyone
/// sees it.
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
        ("deal", written_schema::<Deal>()),
        ("hand", written_schema::<Hand<'static>>()),
        ("ti", written_schema::<Laid>()),
        ("wei", written_schema::<Laid>()),
        ("draw", written_schema::<OneCard>()),
        ("discard", written_schema::<OneCard>()),
        ("peng", written_schema::<OneCard>()),
        ("pao", written_schema::<OneCard>()),
        ("chi", written_schema::<Chi<'static>>()),
        ("pass", written_schema::<Nothing>()),
        ("escape", written_schema::<Escape>()),
        ("left", written_schema::<Nothing>()),
        ("hand_end", written_schema::<Summary>()),
    ])
}
