//! Card strength in sandaha: the fixed trumps (恒主: jokers, 7s, 2s), an optional trump suit, and
//! ranks without 3 and 4, so that 6 and 8 neighbour.
//!
//! Every card has a *lane* (trumps are one lane, each other suit its own) and a *level* within
//! it. Cards of equal strength share a level (the 副7s of three suits), and consecutive levels
//! are the neighbours that form tractors, so a 副 pair stands for its position.

use std::cmp::Reverse;

use serde::{Deserialize, Serialize};

use crate::cards::{ACE, Card, JACK, KING, QUEEN, Suit};

/// Where a card is followed: the trumps, or one side suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Lane {
    Trump,
    Side(Suit),
}

/// The order of one hand, fixed once the banker has named a trump suit or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Order {
    pub trump: Option<Suit>,
}

/// Level of the plain ranks, the same in every suit: 5 6 8 9 10 J Q K A.
fn plain_level(rank: u8) -> u8 {
    match rank {
        5 => 0,
        6 => 1,
        8 => 2,
        9 => 3,
        10 => 4,
        JACK => 5,
        QUEEN => 6,
        KING => 7,
        ACE => 8,
        // 3 and 4 are not in the deck; a foreign card sorts lowest and never neighbours 5.
        _ => 0,
    }
}

impl Order {
    pub fn is_trump(self, card: Card) -> bool {
        match card {
            Card::Suited { rank, suit } => rank == 7 || rank == 2 || Some(suit) == self.trump,
            _ => true,
        }
    }

    pub fn lane(self, card: Card) -> Lane {
        match card {
            Card::Suited { suit, .. } if !self.is_trump(card) => Lane::Side(suit),
            _ => Lane::Trump,
        }
    }

    /// Strength within the card's lane: higher is stronger, equal cards share a level, and
    /// consecutive levels neighbour in tractors. With a trump suit: trump A (8) < 副2 < 主2 <
    /// 副7 < 主7 < BJ < RJ; without: 2s < 7s < BJ < RJ right above the plain levels.
    pub fn level(self, card: Card) -> u8 {
        let fixed = |main: bool, base: u8| match self.trump {
            Some(_) => base + u8::from(main),
            None => base,
        };
        let named = self.trump.is_some();
        match card {
            Card::BigJoker => {
                if named {
                    14
                } else {
                    12
                }
            }
            Card::SmallJoker => {
                if named {
                    13
                } else {
                    11
                }
            }
            Card::Suited { rank: 7, suit } => {
                fixed(Some(suit) == self.trump, if named { 11 } else { 10 })
            }
            Card::Suited { rank: 2, suit } => fixed(Some(suit) == self.trump, 9),
            Card::Suited { rank, .. } => plain_level(rank),
            _ => 0,
        }
    }

    /// Sort key, smallest = weakest: side suits below trumps, then by level.
    pub fn strength(self, card: Card) -> (bool, u8) {
        (self.is_trump(card), self.level(card))
    }

    /// Sorts a hand strongest first: trumps by level, then each side suit (S, H, D, C) by rank.
    pub fn sort_strongest_first(self, cards: &mut [Card]) {
        cards.sort_by_key(|&c| {
            let lane = match self.lane(c) {
                Lane::Trump => 0,
                Lane::Side(s) => 1 + s as u8,
            };
            (lane, Reverse(self.level(c)), c.suit())
        });
    }
}

/// Card points: 5 = 5, 10 and K = 10.
pub fn points(card: Card) -> u32 {
    match card.rank() {
        Some(5) => 5,
        Some(10) | Some(KING) => 10,
        _ => 0,
    }
}

pub fn points_of(cards: &[Card]) -> u32 {
    cards.iter().map(|&c| points(c)).sum()
}
