//! Data of the events (`Event::data`), one type per shape. Events are public unless said; a
//! face-down 偎 or 提 is told to the others without its card (`Nothing`).

use serde::Serialize;

use crate::cards::Card;
use crate::engine::SeatNo;

/// Events whose kind and seat say it all: `pass`, `left` (a seat left between hands), and a
/// face-down `wei` or `ti` as the two other seats see it. Seen by everyone, except that face-down
/// `wei` / `ti`, which only the other seats get.
#[derive(Serialize)]
pub struct Nothing {}

/// One card: `draw` (a shown card or W), `discard`, `peng`, `pao`, and `ti` / `wei` — public when
/// face up, private to their seat when face down.
#[derive(Serialize)]
pub struct OneCard {
    pub card: Card,
}

/// `ti` of four identical dealt cards (起手提), face up: everyone sees it.
#[derive(Serialize)]
pub struct DealtTi {
    pub card: Card,
    /// Always true: the 提 was dealt, not drawn.
    pub dealt: bool,
}

/// `chi`: the melds the seat laid down, the claimed card among them. Everyone sees it.
#[derive(Serialize)]
pub struct Chi<'a> {
    pub melds: &'a [Vec<Card>],
}

/// `deal`: the dealer and the stock's size. Everyone sees it.
#[derive(Serialize)]
pub struct Deal {
    pub dealer: SeatNo,
    pub stock: usize,
}

/// `hand`: the dealt hand, sorted. Private to its seat.
#[derive(Serialize)]
pub struct Hand<'a> {
    pub cards: &'a [Card],
}

/// `escape`: the seat left during a hand (逃跑). Everyone sees it.
#[derive(Serialize)]
pub struct Escape {
    pub lasted_ms: i64,
    /// Whether the others also gain 1 (the hand lasted 30 s or more).
    pub bonus: bool,
}
