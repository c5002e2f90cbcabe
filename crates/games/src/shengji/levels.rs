//! The level table and who deals next: what a hand's defender points are worth, and the
//! settlement of a hand (`Summary`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Declaration;
use crate::cards::{ACE, Suit};
use crate::engine::SeatNo;

/// Points between level steps: 20 per deck, four decks.
pub const STEP: u32 = 80;
/// The defenders' points that take the deal from the dealers.
pub const TAKE_OVER: u32 = 2 * STEP;

/// Team of a seat: partners sit opposite (0 + 2, 1 + 3).
pub fn team(seat: SeatNo) -> usize {
    seat % 2
}

/// Who gains levels for `defenders_points`: `(dealers_won, levels)`. P = 0 → dealers +3;
/// 5–75 → +2; 80–155 → +1; 160–235 → defenders take the deal, +0; 240–315 → defenders +1;
/// each further 80 → +1 more.
pub fn level_change(defenders_points: u32) -> (bool, u8) {
    match defenders_points {
        0 => (true, 3),
        p if p < STEP => (true, 2),
        p if p < TAKE_OVER => (true, 1),
        p => (false, ((p - TAKE_OVER) / STEP) as u8),
    }
}

/// The dealer of the next hand: the dealer's partner when the dealers won, else the
/// previous dealer's next seat (下家).
pub fn next_dealer(dealer: SeatNo, dealers_won: bool) -> SeatNo {
    if dealers_won {
        (dealer + 2) % 4
    } else {
        (dealer + 1) % 4
    }
}

/// A team's level after gaining `gain`; `None` when it passes A and wins the match.
pub fn raise(level: u8, gain: u8) -> Option<u8> {
    let next = level + gain;
    (next <= ACE).then_some(next)
}

/// 积分 of one hand: each player of the team that gained levels gains that many points, each
/// opponent loses as many.
pub fn hand_points(gaining_team: usize, gain: u8) -> Vec<i64> {
    (0..4)
        .map(|s| {
            if team(s) == gaining_team {
                i64::from(gain)
            } else {
                -i64::from(gain)
            }
        })
        .collect()
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
