//! What the trick-taking games (升级 shengji, 三打哈 sandaha) share: the order of the cards under a
//! trump suit and a game's fixed trump ranks, formations (groups of identical cards and
//! tractors), following with structure, the winner of a trick and the point cards.
//!
//! A game describes its cards with one [`Ranks`] value; [`Order`] turns it and the hand's trump
//! suit into an "effective suit" and a position for every card, so that neighbours (for
//! tractors) are positions one apart, whatever ranks were taken out of the suits.

pub mod bot;
mod follow;
#[cfg(test)]
mod follow_tests;
mod formation;
mod rules;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cards::{ACE, Card, KING, Rank, Suit};

pub use follow::{
    FollowError, Requirement, Score, best_follow, is_legal_follow, requirement,
    score as follow_score,
};
pub use formation::{Formation, LeadError, check_lead, classify, contends, trick_winner};
pub use rules::Rule;

/// The ranks a game treats specially, the same in every hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ranks {
    /// Fixed trump ranks below the jokers, strongest first (shengji `[2]`, sandaha `[7, 2]`).
    /// Each gives two positions in trumps when there is a trump suit: the trump suit's card
    /// (主) above the other suits' cards (副, equal to each other); one position without one.
    pub fixed: &'static [Rank],
    /// Ranks left out of the deck (sandaha: 3 and 4), so that their neighbours meet.
    pub removed: &'static [Rank],
    /// Whether a follower must keep the longest tractor before counting groups (shengji's
    /// priority step 2). Sandaha's "as many pairs as possible" does without it.
    pub tractors_first: bool,
}

/// Which suit a card plays in: trumps are one suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EffSuit {
    Trump,
    Plain(Suit),
}

/// Number of distinct poker faces with jokers: the size of the per-face tables below.
pub(crate) const FACES: usize = 54;

/// The index of a poker face in the per-face tables; `None` for paper cards.
pub(crate) fn face(card: Card) -> Option<usize> {
    match card {
        Card::Suited { rank, suit } if (2..=ACE).contains(&rank) => {
            Some(usize::from(rank - 2) * 4 + suit_index(suit))
        }
        Card::SmallJoker => Some(52),
        Card::BigJoker => Some(53),
        _ => None,
    }
}

fn suit_index(s: Suit) -> usize {
    match s {
        Suit::S => 0,
        Suit::H => 1,
        Suit::D => 2,
        Suit::C => 3,
    }
}

/// The card order of one hand: the effective suit and position (0 = weakest of its suit) of
/// every face. Cheap to build; games rebuild it from the trump suit when they need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    pub ranks: Ranks,
    pub trump: Option<Suit>,
    suit: [Option<EffSuit>; FACES],
    pos: [u8; FACES],
}

impl Order {
    pub fn new(ranks: Ranks, trump: Option<Suit>) -> Order {
        let mut suit = [None; FACES];
        let mut pos = [0u8; FACES];
        let plain: Vec<Rank> = (2..=ACE)
            .filter(|r| !ranks.fixed.contains(r) && !ranks.removed.contains(r))
            .collect();
        for s in Suit::ALL {
            let eff = if Some(s) == trump {
                EffSuit::Trump
            } else {
                EffSuit::Plain(s)
            };
            for (p, &r) in plain.iter().enumerate() {
                let f = face(Card::new(r, s)).expect("poker face");
                suit[f] = Some(eff);
                pos[f] = p as u8;
            }
        }
        // Trump positions above the trump suit's plain ranks: each fixed rank from the weakest,
        // 副 then 主, then the two jokers.
        let mut next = plain.len() as u8;
        for &r in ranks.fixed.iter().rev() {
            for s in Suit::ALL {
                let f = face(Card::new(r, s)).expect("poker face");
                suit[f] = Some(EffSuit::Trump);
                pos[f] = if trump.is_some() && Some(s) == trump {
                    next + 1
                } else {
                    next
                };
            }
            next += if trump.is_some() { 2 } else { 1 };
        }
        suit[52] = Some(EffSuit::Trump);
        pos[52] = next;
        suit[53] = Some(EffSuit::Trump);
        pos[53] = next + 1;
        Order {
            ranks,
            trump,
            suit,
            pos,
        }
    }

    /// The card's effective suit; `None` for a card of no poker deck.
    pub fn eff(&self, card: Card) -> Option<EffSuit> {
        face(card).and_then(|f| self.suit[f])
    }

    /// The card's position within its effective suit, 0 the weakest; neighbours differ by one.
    pub fn pos(&self, card: Card) -> u8 {
        face(card).map_or(0, |f| self.pos[f])
    }

    pub fn is_trump(&self, card: Card) -> bool {
        self.eff(card) == Some(EffSuit::Trump)
    }

    /// A total strength key: trumps above every plain suit, then position, then a fixed suit
    /// order so that equal cards (副2s) sort together.
    pub fn key(&self, card: Card) -> (u8, u8, u8) {
        let class = match self.eff(card) {
            Some(EffSuit::Trump) => 5,
            Some(EffSuit::Plain(s)) => 4 - suit_index(s) as u8,
            None => 0,
        };
        let tie = card.suit().map_or(0, |s| 4 - suit_index(s) as u8);
        (class, self.pos(card), tie)
    }

    /// Sorts cards strongest first, trumps first and then each plain suit.
    pub fn sort_strongest_first(&self, cards: &mut [Card]) {
        cards.sort_by_key(|&c| std::cmp::Reverse(self.key(c)));
    }
}

/// Card points: 5 counts 5, 10 and K count 10.
pub fn card_points(card: Card) -> u32 {
    match card.rank() {
        Some(5) => 5,
        Some(10) | Some(KING) => 10,
        _ => 0,
    }
}

pub fn points(cards: &[Card]) -> u32 {
    cards.iter().map(|&c| card_points(c)).sum()
}
