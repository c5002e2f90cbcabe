//! Sandaha's tricks on the shared `trick` module: its card order (7s and 2s fixed trumps, no 3s
//! and 4s), the banker's 甩牌, the shapes shown to clients, and the automatic lead.
//!
//! Following with structure, contending and the trick winner are `trick`'s; sandaha's
//! "as many pairs as possible" is its `tractors_first: false`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Rule;
use crate::cards::{Card, Suit};
use crate::engine::RuleError;
use crate::trick::{self, EffSuit, Formation, LeadError, Order, Ranks};

/// 恒主 7 above 2; 3 and 4 are not in the deck, so 6 and 8 neighbour.
pub const RANKS: Ranks = Ranks {
    fixed: &[7, 2],
    removed: &[3, 4],
    tractors_first: false,
};

/// The order of a hand whose trump suit is `trump` (None: only the fixed trumps).
pub fn order(trump: Option<Suit>) -> Order {
    Order::new(RANKS, trump)
}

/// The structure of a lead, as clients see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    Single,
    /// Two identical cards.
    Pair,
    /// `pairs` ≥ 2 pairs on consecutive positions of one suit.
    Tractor {
        pairs: u8,
    },
    /// 甩牌: the banker's remaining trumps at once, once every defender has shown void in trumps.
    Throw {
        cards: usize,
    },
}

impl Shape {
    /// Two decks hold at most two identical cards, so a formation is a single, a pair or a
    /// tractor of pairs.
    pub fn of(f: Formation) -> Shape {
        match f {
            Formation::Group { size: 1 } => Shape::Single,
            Formation::Group { .. } => Shape::Pair,
            Formation::Tractor { groups, .. } | Formation::Quads { groups } => {
                Shape::Tractor { pairs: groups }
            }
        }
    }

    pub fn cards(self) -> usize {
        match self {
            Shape::Single => 1,
            Shape::Pair => 2,
            Shape::Tractor { pairs } => 2 * usize::from(pairs),
            Shape::Throw { cards } => cards,
        }
    }

    /// The 扣底 multiple of a last trick won with this structure.
    pub fn bottom_multiple(self) -> u32 {
        match self {
            Shape::Single => 1,
            Shape::Pair => 2,
            Shape::Tractor { .. } | Shape::Throw { .. } => 4,
        }
    }
}

fn trumps(order: &Order, hand: &[Card]) -> usize {
    hand.iter().filter(|&&c| order.is_trump(c)).count()
}

/// Checks a lead of `cards` from `hand`. `may_throw`: the leader is the banker and every
/// defender has shown void in trumps, so all of its remaining trumps may go at once.
pub fn check_lead(
    order: &Order,
    hand: &[Card],
    cards: &[Card],
    may_throw: bool,
) -> Result<Shape, RuleError> {
    let err = match trick::check_lead(order, hand, cards) {
        Ok(f) => return Ok(Shape::of(f)),
        Err(e) => e,
    };
    if !matches!(err, LeadError::NotOneFormation) {
        return Err(err.refusal(hand, cards));
    }
    // The shared message forbids 甩牌 outright; here the banker may throw its trumps.
    if !cards.iter().all(|&c| order.is_trump(c)) {
        return Err(RuleError::illegal(
            trick::Rule::LeadOneFormation,
            "a lead is a single, a pair or a tractor of one suit; only the banker may throw \
             (甩牌), and only all of its trumps",
            "首家出牌须是同一门花色的单张、对子或拖拉机；只有庄家可以甩牌，而且只能甩全部主牌",
        )
        .with_cards(cards));
    }
    if !may_throw {
        return Err(RuleError::illegal(
            Rule::ThrowNotAllowed,
            "甩牌 is only for the banker, once every defender has shown void in trumps: lead a \
             single, a pair or a tractor",
            "只有在闲家都没有主牌（报副）以后，庄家才可以甩牌：请出单张、对子或拖拉机",
        )
        .with_cards(cards));
    }
    let held = trumps(order, hand);
    if cards.len() != held {
        return Err(RuleError::illegal(
            Rule::ThrowAllTrumps,
            "甩牌 plays all of your remaining trumps at once",
            "甩牌要把手里剩下的主牌一次全部打出",
        )
        .with_cards(cards));
    }
    Ok(Shape::Throw { cards: held })
}

/// Positions at which `hand` holds a pair in `suit`, ascending, without repeats.
fn pair_positions(order: &Order, hand: &[Card], suit: EffSuit) -> Vec<u8> {
    let mut v: Vec<u8> = hand
        .iter()
        .filter(|&&c| order.eff(c) == Some(suit))
        .filter(|&&c| hand.iter().filter(|&&d| d == c).count() >= 2)
        .map(|&c| order.pos(c))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The pairs in the longest run of consecutive pair positions.
fn longest_run(positions: &[u8]) -> u8 {
    let (mut best, mut run) = (0u8, 0u8);
    for (i, &p) in positions.iter().enumerate() {
        run = if i > 0 && positions[i - 1] + 1 == p {
            run + 1
        } else {
            1
        };
        best = best.max(run);
    }
    best
}

/// The shapes `hand` can lead now: a single, a pair if it holds one, each tractor length it
/// holds in some suit, and the throw when allowed.
pub fn lead_shapes(order: &Order, hand: &[Card], may_throw: bool) -> Vec<Shape> {
    let mut suits: Vec<EffSuit> = Vec::new();
    for s in hand.iter().filter_map(|&c| order.eff(c)) {
        if !suits.contains(&s) {
            suits.push(s);
        }
    }
    let runs: Vec<u8> = suits
        .iter()
        .map(|&s| pair_positions(order, hand, s))
        .filter(|p| !p.is_empty())
        .map(|p| longest_run(&p))
        .collect();
    let mut shapes = vec![Shape::Single];
    if !runs.is_empty() {
        shapes.push(Shape::Pair);
    }
    let longest = runs.iter().copied().max().unwrap_or(0);
    shapes.extend((2..=longest).map(|pairs| Shape::Tractor { pairs }));
    let held = trumps(order, hand);
    if may_throw && held > 0 {
        shapes.push(Shape::Throw { cards: held });
    }
    shapes
}

/// The automatic lead: the weakest card that breaks no pair, else the weakest pair.
pub fn auto_lead(order: &Order, hand: &[Card]) -> Vec<Card> {
    let mut v = hand.to_vec();
    v.sort_by_key(|&c| (order.is_trump(c), order.pos(c), order.key(c)));
    let single = v
        .iter()
        .copied()
        .find(|&c| hand.iter().filter(|&&d| d == c).count() == 1);
    match (single, v.first()) {
        (Some(c), _) => vec![c],
        (None, Some(&c)) => vec![c, c],
        (None, None) => Vec::new(),
    }
}
