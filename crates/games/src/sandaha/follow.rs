//! Tricks: what may be led, how the others must follow (有牌必跟 with structure), which play
//! wins, and the automatic play.
//!
//! Written inside sandaha because the shared trick-taking module was not there in time; it
//! knows nothing of seats or phases, only cards, an [`Order`] and the lead.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::order::{Lane, Order};
use crate::cards::Card;
use crate::engine::RuleError;

/// The structure of a play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    Single,
    /// Two identical cards.
    Pair,
    /// `pairs` ≥ 2 pairs on consecutive levels of one lane.
    Tractor {
        pairs: usize,
    },
    /// 甩牌: the banker's remaining trumps at once, once every defender has shown void in trumps.
    Throw {
        cards: usize,
    },
}

impl Shape {
    pub fn cards(self) -> usize {
        match self {
            Shape::Single => 1,
            Shape::Pair => 2,
            Shape::Tractor { pairs } => 2 * pairs,
            Shape::Throw { cards } => cards,
        }
    }

    /// Pairs a follower must keep together when it can.
    fn pairs(self) -> usize {
        match self {
            Shape::Pair => 1,
            Shape::Tractor { pairs } => pairs,
            Shape::Single | Shape::Throw { .. } => 0,
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

/// The lead of a trick: its lane and structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lead {
    pub lane: Lane,
    pub shape: Shape,
}

/// How many copies of each face `cards` holds.
fn faces(cards: &[Card]) -> BTreeMap<Card, usize> {
    let mut m = BTreeMap::new();
    for &c in cards {
        *m.entry(c).or_insert(0) += 1;
    }
    m
}

/// Disjoint pairs among `cards` (identical cards only: two decks give at most one per face).
fn pair_count(cards: &[Card]) -> usize {
    faces(cards).values().map(|n| n / 2).sum()
}

/// Levels at which `cards` hold a pair, ascending, without repeats.
fn pair_levels(order: Order, cards: &[Card]) -> Vec<u8> {
    let mut levels: Vec<u8> = faces(cards)
        .into_iter()
        .filter(|&(_, n)| n >= 2)
        .map(|(c, _)| order.level(c))
        .collect();
    levels.sort_unstable();
    levels.dedup();
    levels
}

/// The lowest level starting a run of `pairs` consecutive pair levels, if any.
fn lowest_tractor(levels: &[u8], pairs: usize) -> Option<u8> {
    levels
        .windows(pairs)
        .find(|w| w.windows(2).all(|p| p[1] == p[0] + 1))
        .map(|w| w[0])
}

/// Reads `cards` as a single, pair or tractor of one lane: its lane, shape and top level.
pub fn shape_of(order: Order, cards: &[Card]) -> Option<(Lane, Shape, u8)> {
    let lane = order.lane(*cards.first()?);
    if cards.iter().any(|&c| order.lane(c) != lane) {
        return None;
    }
    let top = cards.iter().map(|&c| order.level(c)).max()?;
    let counts = faces(cards);
    let shape = match cards.len() {
        1 => Shape::Single,
        2 if counts.len() == 1 => Shape::Pair,
        n if n >= 4 && n % 2 == 0 && counts.values().all(|&k| k == 2) => {
            let levels = pair_levels(order, cards);
            if levels.len() != n / 2 || lowest_tractor(&levels, n / 2).is_none() {
                return None;
            }
            Shape::Tractor { pairs: n / 2 }
        }
        _ => return None,
    };
    Some((lane, shape, top))
}

fn in_lane(order: Order, cards: &[Card], lane: Lane) -> Vec<Card> {
    cards
        .iter()
        .copied()
        .filter(|&c| order.lane(c) == lane)
        .collect()
}

/// Checks a lead of `cards` from `hand` (the cards are held; the caller checked). `may_throw`:
/// the leader is the banker and every defender has shown void in trumps.
pub fn check_lead(
    order: Order,
    hand: &[Card],
    cards: &[Card],
    may_throw: bool,
) -> Result<Lead, RuleError> {
    if let Some((lane, shape, _)) = shape_of(order, cards) {
        return Ok(Lead { lane, shape });
    }
    let trumps = in_lane(order, hand, Lane::Trump).len();
    let all_trumps = cards.iter().all(|&c| order.is_trump(c));
    if all_trumps && may_throw && cards.len() == trumps {
        return Ok(Lead {
            lane: Lane::Trump,
            shape: Shape::Throw { cards: trumps },
        });
    }
    Err(RuleError::illegal(if !all_trumps {
        "a lead must be a single, a pair or a tractor of one suit (trumps are one suit)"
    } else if !may_throw {
        "甩牌 is only for the banker, once every defender has shown void in trumps: lead a \
         single, a pair or a tractor"
    } else {
        "甩牌 plays all of your remaining trumps at once"
    }))
}

/// Checks a follow of `cards` from `hand` to `lead` (the cards are held; the caller checked).
pub fn check_follow(
    order: Order,
    hand: &[Card],
    lead: Lead,
    cards: &[Card],
) -> Result<(), RuleError> {
    let n = lead.shape.cards();
    if cards.len() != n {
        return Err(RuleError::illegal(format!(
            "follow with as many cards as were led: {n}"
        )));
    }
    let held = in_lane(order, hand, lead.lane);
    let played = in_lane(order, cards, lead.lane);
    if played.len() < n.min(held.len()) {
        return Err(RuleError::illegal(
            "有牌必跟: follow with the led suit (trumps are one suit) while you hold it",
        ));
    }
    if let Shape::Tractor { pairs } = lead.shape
        && lowest_tractor(&pair_levels(order, &held), pairs).is_some()
        && shape_of(order, cards).map(|(_, s, _)| s) != Some(lead.shape)
    {
        return Err(RuleError::illegal(
            "有牌必跟: you hold a tractor of that length in the led suit, so play one",
        ));
    }
    let pairs = lead.shape.pairs().min(pair_count(&held));
    if pair_count(&played) < pairs {
        return Err(RuleError::illegal(format!(
            "有牌必跟: keep pairs of the led suit together: this lead needs {pairs} pair(s) from you"
        )));
    }
    Ok(())
}

/// The strength of a play in this trick, if it contends: the led lane or, for a follower void
/// in it, all trumps, with the led structure. A throw is never contended: only defenders void
/// in trumps follow it.
pub fn contends(order: Order, lead: Lead, cards: &[Card]) -> Option<(bool, u8)> {
    if matches!(lead.shape, Shape::Throw { .. }) {
        return None;
    }
    let (lane, shape, top) = shape_of(order, cards)?;
    (shape == lead.shape && (lane == lead.lane || lane == Lane::Trump))
        .then_some((lane == Lane::Trump, top))
}

/// The index of the winning play among `plays` (the lead first): the strongest contending play,
/// the earlier among equals.
pub fn winner(order: Order, lead: Lead, plays: &[&[Card]]) -> usize {
    let lead_key = match lead.shape {
        Shape::Throw { .. } => (true, u8::MAX),
        _ => plays
            .first()
            .and_then(|p| shape_of(order, p))
            .map_or((false, 0), |(lane, _, top)| (lane == Lane::Trump, top)),
    };
    let mut best = (0, lead_key);
    for (i, p) in plays.iter().enumerate().skip(1) {
        if let Some(key) = contends(order, lead, p)
            && key > best.1
        {
            best = (i, key);
        }
    }
    best.0
}

/// Cards sorted for giving away: weakest first, cards that keep a pair together last.
fn weakest_first(order: Order, cards: &[Card]) -> Vec<Card> {
    let counts = faces(cards);
    let mut v = cards.to_vec();
    v.sort_by_key(|&c| (order.is_trump(c), counts[&c] >= 2, order.level(c), c));
    v
}

fn take(from: &mut Vec<Card>, card: Card) {
    if let Some(i) = from.iter().position(|&c| c == card) {
        from.remove(i);
    }
}

/// The automatic lead: the weakest card that breaks no pair, else the weakest pair.
pub fn auto_lead(order: Order, hand: &[Card]) -> Vec<Card> {
    let counts = faces(hand);
    let mut v = hand.to_vec();
    v.sort_by_key(|&c| (order.is_trump(c), order.level(c), c));
    match v.iter().find(|c| counts[c] == 1) {
        Some(&c) => vec![c],
        None => v.first().map(|&c| vec![c, c]).unwrap_or_default(),
    }
}

/// The automatic follow: the legal play keeping the most structure with the lowest cards.
pub fn auto_follow(order: Order, hand: &[Card], lead: Lead) -> Vec<Card> {
    let n = lead.shape.cards();
    let mut held = in_lane(order, hand, lead.lane);
    let mut play = Vec::with_capacity(n);
    if held.len() > n {
        let levels = pair_levels(order, &held);
        let mut pair_faces: Vec<Card> = faces(&held)
            .into_iter()
            .filter(|&(_, k)| k >= 2)
            .map(|(c, _)| c)
            .collect();
        pair_faces.sort_by_key(|&c| (order.level(c), c));
        let tractor = match lead.shape {
            Shape::Tractor { pairs } => lowest_tractor(&levels, pairs).map(|low| (low, pairs)),
            _ => None,
        };
        let chosen: Vec<Card> = match tractor {
            Some((low, pairs)) => (low..low + pairs as u8)
                .filter_map(|l| pair_faces.iter().copied().find(|&c| order.level(c) == l))
                .collect(),
            None => pair_faces.into_iter().take(lead.shape.pairs()).collect(),
        };
        for c in chosen {
            play.extend([c, c]);
            take(&mut held, c);
            take(&mut held, c);
        }
        play.extend(weakest_first(order, &held).into_iter().take(n - play.len()));
    } else {
        play.append(&mut held);
        let mut rest = hand.to_vec();
        for &c in &play {
            take(&mut rest, c);
        }
        play.extend(weakest_first(order, &rest).into_iter().take(n - play.len()));
    }
    play
}

/// The shapes `hand` can lead now: a single, a pair if it holds one, each tractor length it
/// holds in some lane, and the throw when allowed.
pub fn lead_shapes(order: Order, hand: &[Card], may_throw: bool) -> Vec<Shape> {
    let mut shapes = vec![Shape::Single];
    if pair_count(hand) > 0 {
        shapes.push(Shape::Pair);
    }
    let mut lanes: Vec<Lane> = hand.iter().map(|&c| order.lane(c)).collect();
    lanes.sort();
    lanes.dedup();
    let longest = lanes
        .iter()
        .map(|&lane| {
            let levels = pair_levels(order, &in_lane(order, hand, lane));
            (2..=levels.len())
                .take_while(|&k| lowest_tractor(&levels, k).is_some())
                .last()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0);
    shapes.extend((2..=longest).map(|pairs| Shape::Tractor { pairs }));
    let trumps = in_lane(order, hand, Lane::Trump).len();
    if may_throw && trumps > 0 {
        shapes.push(Shape::Throw { cards: trumps });
    }
    shapes
}
