//! Formations: groups of identical cards, tractors, and sets of quads; which of them contend
//! against a lead, and who wins a trick.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{EffSuit, FACES, Order, face};
use crate::cards::Card;

/// The shape of a set of cards of one effective suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Formation {
    /// `size` identical cards: a single (1), pair, triple or quad (4).
    Group { size: u8 },
    /// `groups` ≥ 2 groups of `size` ≥ 2 identical cards at consecutive positions.
    Tractor { size: u8, groups: u8 },
    /// `groups` ≥ 2 quads that are not all consecutive: only ever a follow, which the rulings let
    /// stand for a pair-tractor (or quad-tractor) lead of the same card count.
    Quads { groups: u8 },
}

impl Formation {
    pub fn cards(self) -> usize {
        match self {
            Formation::Group { size } => size.into(),
            Formation::Tractor { size, groups } => usize::from(size) * usize::from(groups),
            Formation::Quads { groups } => 4 * usize::from(groups),
        }
    }

    /// The formations a follower may answer `self` with under the structure rule's step (1):
    /// the same formation or a stronger one of the same card count.
    pub fn answers(self) -> Vec<Formation> {
        let n = self.cards() as u8;
        let mut out = vec![self];
        match self {
            Formation::Tractor { size: 2, .. } => {
                if n.is_multiple_of(4) {
                    out.push(if n == 4 {
                        Formation::Group { size: 4 }
                    } else {
                        Formation::Quads { groups: n / 4 }
                    });
                }
                if n.is_multiple_of(3) {
                    out.push(Formation::Tractor {
                        size: 3,
                        groups: n / 3,
                    });
                }
                if n.is_multiple_of(4) && n >= 8 {
                    out.push(Formation::Tractor {
                        size: 4,
                        groups: n / 4,
                    });
                }
            }
            Formation::Tractor { size: 3, .. } if n.is_multiple_of(4) => {
                out.push(Formation::Tractor {
                    size: 4,
                    groups: n / 4,
                });
            }
            Formation::Tractor { size: 4, groups } => out.push(Formation::Quads { groups }),
            _ => {}
        }
        out
    }
}

/// How strong a formation is against a lead of the same card count: pair-tractors < quads <
/// triple-tractors < quad-tractors (the seed: 3张 and 4张 tractors beat 2张 tractors of as many
/// cards, 4张 beat 2张 tractors). `None`: it does not contend against `lead`.
pub fn contends(lead: Formation, play: Formation) -> Option<u8> {
    let ok = match lead {
        // Quads answer a quad-tractor lead under the follow rule but do not beat it.
        Formation::Group { .. } | Formation::Tractor { size: 4, .. } => play == lead,
        Formation::Tractor { .. } => lead.answers().contains(&play),
        Formation::Quads { .. } => false,
    };
    let level = match play {
        Formation::Group { size: 4 } if lead != play => 2,
        Formation::Group { .. } => 0,
        Formation::Tractor { size: 2, .. } => 1,
        Formation::Quads { .. } => 2,
        Formation::Tractor { size: 3, .. } => 3,
        Formation::Tractor { .. } => 4,
    };
    ok.then_some(level)
}

/// Why a lead was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeadError {
    Empty,
    NotInHand,
    MixedSuits,
    /// Several formations at once (甩牌), or singles that do not make one.
    NotOneFormation,
}

impl fmt::Display for LeadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LeadError::Empty => "a lead needs at least one card",
            LeadError::NotInHand => "you do not hold those cards",
            LeadError::MixedSuits => "a lead is of one suit (trumps count as one suit)",
            LeadError::NotOneFormation => {
                "a lead is one formation: a single, pair, triple, quad or tractor \
                 (甩牌 is not allowed)"
            }
        })
    }
}

/// Counts of each face among `cards`.
pub(crate) fn face_counts(cards: &[Card]) -> [u8; FACES] {
    let mut counts = [0u8; FACES];
    for &c in cards {
        if let Some(f) = face(c) {
            counts[f] += 1;
        }
    }
    counts
}

/// The effective suit shared by all of `cards`, if they share one.
pub(crate) fn common_suit(order: &Order, cards: &[Card]) -> Option<EffSuit> {
    let first = order.eff(*cards.first()?)?;
    cards
        .iter()
        .all(|&c| order.eff(c) == Some(first))
        .then_some(first)
}

/// The formation `cards` make with the position of their highest group, if they make one.
pub fn classify(order: &Order, cards: &[Card]) -> Option<(Formation, u8)> {
    common_suit(order, cards)?;
    let counts = face_counts(cards);
    let mut size = 0u8;
    let mut positions = Vec::new();
    for (f, &n) in counts.iter().enumerate() {
        if n == 0 {
            continue;
        }
        if size != 0 && n != size {
            return None;
        }
        size = n;
        positions.push(order.pos[f]);
    }
    positions.sort_unstable();
    let top = *positions.last()?;
    let groups = positions.len() as u8;
    if groups == 1 {
        return Some((Formation::Group { size }, top));
    }
    if size == 1 {
        return None;
    }
    if positions.windows(2).all(|w| w[1] == w[0] + 1) {
        Some((Formation::Tractor { size, groups }, top))
    } else if size == 4 {
        Some((Formation::Quads { groups }, top))
    } else {
        None
    }
}

/// Checks a lead from `hand`: one formation of one suit, no 甩牌.
pub fn check_lead(order: &Order, hand: &[Card], cards: &[Card]) -> Result<Formation, LeadError> {
    if cards.is_empty() {
        return Err(LeadError::Empty);
    }
    if !crate::cards::holds_all(hand, cards) {
        return Err(LeadError::NotInHand);
    }
    if common_suit(order, cards).is_none() {
        return Err(LeadError::MixedSuits);
    }
    match classify(order, cards) {
        Some((f @ (Formation::Group { .. } | Formation::Tractor { .. }), _)) => Ok(f),
        _ => Err(LeadError::NotOneFormation),
    }
}

/// The index in `plays` (the lead first, then the followers in turn) of the play that wins the
/// trick: a contending trump play beats every led-suit play (毙); then formation strength, then
/// the highest group; equal plays → the earlier one.
pub fn trick_winner(order: &Order, plays: &[Vec<Card>]) -> usize {
    let Some(lead_cards) = plays.first() else {
        return 0;
    };
    let (Some(led), Some((lead, _))) =
        (common_suit(order, lead_cards), classify(order, lead_cards))
    else {
        return 0;
    };
    let mut best: Option<((bool, u8, u8), usize)> = None;
    for (i, cards) in plays.iter().enumerate() {
        let Some(suit) = common_suit(order, cards) else {
            continue;
        };
        if suit != led && suit != EffSuit::Trump {
            continue;
        }
        let Some((f, top)) = classify(order, cards) else {
            continue;
        };
        let Some(level) = contends(lead, f) else {
            continue;
        };
        let rank = (suit == EffSuit::Trump, level, top);
        if best.is_none_or(|(b, _)| rank > b) {
            best = Some((rank, i));
        }
    }
    best.map_or(0, |(_, i)| i)
}
