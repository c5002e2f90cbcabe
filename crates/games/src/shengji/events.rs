//! Data of the events (`Event::data`), one type per shape, and the schema of each kind's data:
//! small typed records, never a card a receiver may not see. Events are public unless said.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::{Declaration, Summary};
use crate::cards::{Card, Suit};
use crate::engine::{SeatNo, written_schema};

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
