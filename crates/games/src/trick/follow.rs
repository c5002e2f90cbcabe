//! Following with structure. A follower holding enough cards of the led suit must play the
//! best-structured set the hand allows: (1) the led formation or a stronger one of the same card
//! count, any of them; (2) against a six-card lead, failing a six-card tractor, a quad with a
//! pair (the seed's six-card table; only where tractors count, `Ranks::tractors_first`);
//! otherwise (3) the set that is best by its longest tractor in cards, then quads, triples and
//! pairs, a set read as its best partition (each card in one part). The best set is built from
//! the hand's groups (the longest tractor first, then a small knapsack over the faces for the
//! group counts), never by listing subsets, so a 54-card hand against a long tractor costs
//! microseconds.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::formation::{classify, common_suit, face_counts};
use super::{EffSuit, FACES, Formation, Order, face};
use crate::cards::{Card, holds_all};

/// The structure of a set of cards of one suit, compared field by field (priority step 3). A
/// set is read as a partition, each card in one part only: at most one tractor, then groups,
/// then singles; the tractor's own groups count as groups, and the set counts as its best
/// partition. So 33344+X is the tractor 3344 and two singles, not a tractor, a triple and a pair.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct Score {
    /// Cards in the tractor of the set's best partition: its longest (0 without one).
    pub tractor: u8,
    pub quads: u8,
    pub triples: u8,
    pub pairs: u8,
}

/// What the follow rule asks of one follower's play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Requirement {
    /// Void in the led suit: any cards (trumps may beat, 毙).
    Free { count: usize },
    /// Fewer cards of the led suit than were led: all of them, then any others.
    AllOfSuit {
        count: usize,
        suit: EffSuit,
        held: usize,
    },
    /// One of these formations of the led suit, each of which the hand holds (step 1).
    Formation {
        count: usize,
        suit: EffSuit,
        allowed: Vec<Formation>,
    },
    /// A six-card lead the hand answers with no six-card tractor: a quad of the led suit with a
    /// pair of another face (step 2, the seed's 4个+1个对子 before 拖拉机+1个对子).
    QuadAndPair { count: usize, suit: EffSuit },
    /// Cards of the led suit whose structure is exactly this, the best the hand allows.
    Structure {
        count: usize,
        suit: EffSuit,
        score: Score,
    },
}

/// Why a follow was refused, in words a player can act on. It names only the follower's own
/// cards and the lead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FollowError {
    WrongCount {
        need: usize,
    },
    NotInHand,
    /// Cards of the led suit were held back.
    MustFollowSuit,
    MustPlayFormation {
        allowed: Vec<Formation>,
    },
    MustPlayQuadAndPair,
    MustKeepStructure {
        need: Score,
    },
}

pub(crate) fn describe(f: Formation) -> String {
    let group = |size: u8| match size {
        1 => "single",
        2 => "pair",
        3 => "triple",
        _ => "quad",
    };
    match f {
        Formation::Group { size } => format!("a {}", group(size)),
        Formation::Tractor { size, groups } => {
            format!("a tractor of {groups} {}s", group(size))
        }
        Formation::Quads { groups } => format!("{groups} quads"),
    }
}

impl fmt::Display for FollowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FollowError::WrongCount { need } => write!(f, "play {need} cards, as many as were led"),
            FollowError::NotInHand => f.write_str("you do not hold those cards"),
            FollowError::MustFollowSuit => {
                f.write_str("you must play your cards of the led suit first")
            }
            FollowError::MustPlayFormation { allowed } => {
                let names: Vec<String> = allowed.iter().map(|&a| describe(a)).collect();
                write!(
                    f,
                    "you hold a matching formation of the led suit: play {}",
                    names.join(" or ")
                )
            }
            FollowError::MustPlayQuadAndPair => f.write_str(
                "you hold a quad and a pair of the led suit: against a six-card lead, without a \
                 six-card tractor, play a quad with a pair (4个+1个对子 comes before a shorter \
                 tractor)",
            ),
            FollowError::MustKeepStructure { need } => write!(
                f,
                "play the best structure your cards of the led suit allow: a tractor of {} cards, \
                 {} quads, {} triples, {} pairs",
                need.tractor, need.quads, need.triples, need.pairs
            ),
        }
    }
}

/// Positions are below this in every order (jokers of shengji sit at 15).
const POSITIONS: usize = 32;

/// The score of a set of cards of one suit: its best partition.
pub fn score(order: &Order, cards: &[Card]) -> Score {
    score_counts(order, &face_counts(cards))
}

/// Quads, triples and pairs: what `n` identical cards make as one group.
fn group(n: u8) -> [i32; 3] {
    match n {
        4 => [1, 0, 0],
        3 => [0, 1, 0],
        2 => [0, 0, 1],
        _ => [0, 0, 0],
    }
}

fn add(a: [i32; 3], b: [i32; 3]) -> [i32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// The best partition of the cards counted in `counts` (one suit): no tractor and every face a
/// group, or one tractor of groups of `h` at consecutive positions (one face at each), each
/// face's cards left over a group of their own. Arrays compare lexicographically, so the
/// tractor's length, then quads, triples and pairs decide.
fn score_counts(order: &Order, counts: &[u8; FACES]) -> Score {
    let base = counts.iter().fold([0; 3], |acc, &n| add(acc, group(n)));
    let mut best = (0u8, base);
    if order.ranks.tractors_first {
        for h in 2..=4u8 {
            // What taking a group of `h` for the tractor at each position changes, from the
            // face there that changes it best.
            let mut delta: [Option<[i32; 3]>; POSITIONS] = [None; POSITIONS];
            for (f, &n) in counts.iter().enumerate() {
                if n < h {
                    continue;
                }
                let [a, b, c] = add(group(h), group(n - h));
                let [x, y, z] = group(n);
                let d = [a - x, b - y, c - z];
                let at = &mut delta[usize::from(order.pos[f])];
                if at.is_none_or(|o| d > o) {
                    *at = Some(d);
                }
            }
            for start in 0..POSITIONS {
                let mut sum = base;
                for (len, d) in (1u8..).zip(delta[start..].iter().map_while(|d| *d)) {
                    sum = add(sum, d);
                    if len >= 2 && (h * len, sum) > best {
                        best = (h * len, sum);
                    }
                }
            }
        }
    }
    let [quads, triples, pairs] = best.1.map(|n| n as u8);
    Score {
        tractor: best.0,
        quads,
        triples,
        pairs,
    }
}

/// One face of the led suit in the follower's hand.
#[derive(Clone, Copy, Debug)]
struct Slot {
    face: usize,
    card: Card,
    pos: u8,
    held: u8,
}

/// The follower's cards of `suit`, weakest first.
fn slots(order: &Order, hand: &[Card], suit: EffSuit) -> Vec<Slot> {
    let counts = face_counts(hand);
    let mut out: Vec<Slot> = hand
        .iter()
        .filter(|&&c| order.eff(c) == Some(suit))
        .filter_map(|&c| face(c).map(|f| (f, c)))
        .map(|(f, card)| Slot {
            face: f,
            card,
            pos: order.pos[f],
            held: counts[f],
        })
        .collect();
    out.sort_by_key(|s| (s.pos, s.face));
    out.dedup_by_key(|s| s.face);
    out
}

/// Runs of consecutive positions where some face is held at least `h` times: for each position
/// of the run, the faces that qualify (weakest first).
fn runs(slots: &[Slot], h: u8) -> Vec<Vec<Vec<usize>>> {
    let mut out: Vec<Vec<Vec<usize>>> = Vec::new();
    let mut last: Option<u8> = None;
    for (i, s) in slots.iter().enumerate() {
        if s.held < h {
            continue;
        }
        match (last, out.last_mut()) {
            (Some(p), Some(run)) if p == s.pos => {
                if let Some(at) = run.last_mut() {
                    at.push(i);
                }
            }
            (Some(p), Some(run)) if p + 1 == s.pos => run.push(vec![i]),
            _ => out.push(vec![vec![i]]),
        }
        last = Some(s.pos);
    }
    out
}

/// The lowest instance of `f` among `slots`: (slot index, cards taken) pairs.
fn find(slots: &[Slot], f: Formation) -> Option<Vec<(usize, u8)>> {
    match f {
        Formation::Group { size } => slots
            .iter()
            .position(|s| s.held >= size)
            .map(|i| vec![(i, size)]),
        Formation::Tractor { size, groups } => {
            let n = usize::from(groups);
            runs(slots, size)
                .into_iter()
                .find(|r| r.len() >= n)
                .map(|r| r[..n].iter().map(|at| (at[0], size)).collect())
        }
        Formation::Quads { groups } => {
            let quads: Vec<(usize, u8)> = (0..slots.len())
                .filter(|&i| slots[i].held == 4)
                .take(usize::from(groups))
                .map(|i| (i, 4))
                .collect();
            (quads.len() == usize::from(groups)).then_some(quads)
        }
    }
}

/// The best-structured `count` cards among `slots` (which hold more than `count`), lowest cards
/// first among equals: the score and the cards taken from each slot.
fn best_set(order: &Order, slots: &[Slot], count: usize) -> (Score, Vec<u8>) {
    // Every way to lay down a longest tractor: its group size and the slot at each position.
    let mut tractors: Vec<(u8, Vec<usize>)> = Vec::new();
    if order.ranks.tractors_first {
        let mut longest = 0usize;
        let mut found: Vec<(u8, usize, Vec<Vec<usize>>)> = Vec::new();
        for h in 2..=4u8 {
            for run in runs(slots, h) {
                let n = run.len().min(count / usize::from(h));
                if n >= 2 {
                    longest = longest.max(n * usize::from(h));
                    found.push((h, n, run));
                }
            }
        }
        for (h, n, run) in found {
            if n * usize::from(h) != longest {
                continue;
            }
            for start in 0..=run.len() - n {
                let mut picks: Vec<Vec<usize>> = vec![Vec::new()];
                for at in &run[start..start + n] {
                    picks = picks
                        .iter()
                        .flat_map(|p| {
                            at.iter().map(move |&i| {
                                let mut q = p.clone();
                                q.push(i);
                                q
                            })
                        })
                        .collect();
                }
                tractors.extend(picks.into_iter().map(|p| (h, p)));
            }
        }
    }
    if tractors.is_empty() {
        tractors.push((0, Vec::new()));
    }
    let mut best: Option<(Score, i64, Vec<u8>)> = None;
    for (h, picked) in tractors {
        let mut floor = vec![0u8; slots.len()];
        for &i in &picked {
            floor[i] = h;
        }
        let Some(take) = fill(slots, &floor, count) else {
            continue;
        };
        let mut counts = [0u8; FACES];
        let mut cost = 0i64;
        for (s, &k) in slots.iter().zip(&take) {
            counts[s.face] = k;
            cost += i64::from(k) * i64::from(s.pos);
        }
        let sc = score_counts(order, &counts);
        if best
            .as_ref()
            .is_none_or(|(bs, bc, _)| (sc, -cost) > (*bs, -*bc))
        {
            best = Some((sc, cost, take));
        }
    }
    best.map(|(s, _, t)| (s, t)).unwrap_or_default()
}

/// How many cards to take from each slot, at least `floor` (the tractor's group) and at most
/// held, `count` in all, for the most quads, then triples, then pairs among the cards taken
/// beyond the floor (each face's extra cards one group, as in a partition), then the lowest
/// cards.
fn fill(slots: &[Slot], floor: &[u8], count: usize) -> Option<Vec<u8>> {
    type Value = (u8, u8, u8, i64);
    let mut dp: Vec<Option<Value>> = vec![None; count + 1];
    dp[0] = Some((0, 0, 0, 0));
    let mut choice: Vec<Vec<u8>> = Vec::with_capacity(slots.len());
    for (s, &lo) in slots.iter().zip(floor) {
        let mut next: Vec<Option<Value>> = vec![None; count + 1];
        let mut took = vec![0u8; count + 1];
        for (used, v) in dp.iter().enumerate() {
            let Some(v) = *v else { continue };
            for k in lo..=s.held {
                let u = used + usize::from(k);
                if u > count {
                    break;
                }
                let extra = k - lo;
                let w = (
                    v.0 + u8::from(extra == 4),
                    v.1 + u8::from(extra == 3),
                    v.2 + u8::from(extra == 2),
                    v.3 - i64::from(k) * i64::from(s.pos),
                );
                if next[u].is_none_or(|n| w > n) {
                    next[u] = Some(w);
                    took[u] = k;
                }
            }
        }
        dp = next;
        choice.push(took);
    }
    dp[count]?;
    let mut take = vec![0u8; slots.len()];
    let mut left = count;
    for i in (0..slots.len()).rev() {
        take[i] = choice[i][left];
        left -= usize::from(take[i]);
    }
    Some(take)
}

/// What the follow rule asks of a follower holding `hand` against the valid lead `lead`.
pub fn requirement(order: &Order, hand: &[Card], lead: &[Card]) -> Requirement {
    let count = lead.len();
    let Some(suit) = common_suit(order, lead) else {
        return Requirement::Free { count };
    };
    let slots = slots(order, hand, suit);
    let held: usize = slots.iter().map(|s| usize::from(s.held)).sum();
    if held == 0 {
        return Requirement::Free { count };
    }
    if held <= count {
        return Requirement::AllOfSuit { count, suit, held };
    }
    if let Some((lead_form, _)) = classify(order, lead) {
        let allowed: Vec<Formation> = lead_form
            .answers()
            .into_iter()
            .filter(|&f| find(&slots, f).is_some())
            .collect();
        if !allowed.is_empty() {
            return Requirement::Formation {
                count,
                suit,
                allowed,
            };
        }
    }
    let (score, _) = best_set(order, &slots, count);
    if order.ranks.tractors_first
        && count == SIX
        && score.tractor < 6
        && quad_and_pair(&slots).is_some()
    {
        return Requirement::QuadAndPair { count, suit };
    }
    Requirement::Structure { count, suit, score }
}

/// The card count of the lead the seed's third table is for (667788, JJJQQQ).
const SIX: usize = 6;

/// A quad and a pair of another face among `slots`, keeping the most structure: the lowest
/// quad, and the lowest pair held exactly twice, else the lowest pair taken from a larger group.
fn quad_and_pair(slots: &[Slot]) -> Option<Vec<(usize, u8)>> {
    let quad = slots.iter().position(|s| s.held == 4)?;
    let pair = (0..slots.len())
        .filter(|&i| i != quad && slots[i].held >= 2)
        .min_by_key(|&i| slots[i].held != 2)?;
    Some(vec![(quad, 4), (pair, 2)])
}

/// Whether `cards` are one quad and one pair (of another face).
fn is_quad_and_pair(cards: &[Card]) -> bool {
    let mut groups: Vec<u8> = face_counts(cards).into_iter().filter(|&n| n > 0).collect();
    groups.sort_unstable();
    groups == [2, 4]
}

impl Requirement {
    pub fn count(&self) -> usize {
        match *self {
            Requirement::Free { count }
            | Requirement::AllOfSuit { count, .. }
            | Requirement::Formation { count, .. }
            | Requirement::QuadAndPair { count, .. }
            | Requirement::Structure { count, .. } => count,
        }
    }

    /// Checks a play from `hand` against this requirement.
    pub fn check(&self, order: &Order, hand: &[Card], play: &[Card]) -> Result<(), FollowError> {
        if play.len() != self.count() {
            return Err(FollowError::WrongCount { need: self.count() });
        }
        if !holds_all(hand, play) {
            return Err(FollowError::NotInHand);
        }
        let in_suit = |suit: EffSuit| play.iter().filter(|&&c| order.eff(c) == Some(suit)).count();
        match self {
            Requirement::Free { .. } => Ok(()),
            Requirement::AllOfSuit { suit, held, .. } => {
                if in_suit(*suit) == *held {
                    Ok(())
                } else {
                    Err(FollowError::MustFollowSuit)
                }
            }
            Requirement::Formation { suit, allowed, .. } => {
                if in_suit(*suit) != play.len() {
                    return Err(FollowError::MustFollowSuit);
                }
                match classify(order, play) {
                    Some((f, _)) if allowed.contains(&f) => Ok(()),
                    _ => Err(FollowError::MustPlayFormation {
                        allowed: allowed.clone(),
                    }),
                }
            }
            Requirement::QuadAndPair { suit, .. } => {
                if in_suit(*suit) != play.len() {
                    return Err(FollowError::MustFollowSuit);
                }
                if is_quad_and_pair(play) {
                    Ok(())
                } else {
                    Err(FollowError::MustPlayQuadAndPair)
                }
            }
            Requirement::Structure {
                suit, score: need, ..
            } => {
                if in_suit(*suit) != play.len() {
                    return Err(FollowError::MustFollowSuit);
                }
                if score(order, play) == *need {
                    Ok(())
                } else {
                    Err(FollowError::MustKeepStructure { need: *need })
                }
            }
        }
    }
}

/// Whether `play` from `hand` is a legal follow to the valid lead `lead`; the error names the
/// rule broken.
pub fn is_legal_follow(
    order: &Order,
    hand: &[Card],
    lead: &[Card],
    play: &[Card],
) -> Result<(), FollowError> {
    requirement(order, hand, lead).check(order, hand, play)
}

/// The lowest `n` cards of `cards`, weakest first: plain cards by rank across their suits,
/// trumps last.
fn lowest(order: &Order, cards: &[Card], n: usize) -> Vec<Card> {
    let mut v = cards.to_vec();
    v.sort_by_key(|&c| (order.is_trump(c), order.pos(c), order.key(c)));
    v.truncate(n);
    v
}

/// The follow auto-play makes: legal, keeping the most structure in hand, lowest cards first.
/// With a formation to show it shows the lead's own kind if it can (the weakest that answers);
/// a quad with a pair when step 2 binds (the lowest quad, a pair that breaks no group if it
/// can); otherwise the best-structured set the rule demands; when short or void, the lowest
/// cards.
pub fn best_follow(order: &Order, hand: &[Card], lead: &[Card]) -> Vec<Card> {
    let req = requirement(order, hand, lead);
    match &req {
        Requirement::Free { count } => lowest(order, hand, *count),
        Requirement::AllOfSuit { count, suit, held } => {
            let (mut mine, others): (Vec<Card>, Vec<Card>) =
                hand.iter().partition(|&&c| order.eff(c) == Some(*suit));
            mine.extend(lowest(order, &others, count - held));
            mine
        }
        Requirement::Formation { suit, allowed, .. } => {
            let slots = slots(order, hand, *suit);
            let take = allowed
                .iter()
                .find_map(|&f| find(&slots, f))
                .unwrap_or_default();
            take.iter()
                .flat_map(|&(i, k)| std::iter::repeat_n(slots[i].card, usize::from(k)))
                .collect()
        }
        Requirement::QuadAndPair { suit, .. } => {
            let slots = slots(order, hand, *suit);
            quad_and_pair(&slots)
                .unwrap_or_default()
                .iter()
                .flat_map(|&(i, k)| std::iter::repeat_n(slots[i].card, usize::from(k)))
                .collect()
        }
        Requirement::Structure { count, suit, .. } => {
            let slots = slots(order, hand, *suit);
            let (_, take) = best_set(order, &slots, *count);
            slots
                .iter()
                .zip(&take)
                .flat_map(|(s, &k)| std::iter::repeat_n(s.card, usize::from(k)))
                .collect()
        }
    }
}
