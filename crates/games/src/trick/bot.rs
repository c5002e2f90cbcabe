//! The card play of the 升级 and 三打哈 bots: cheap rules over what one seat sees (its hand and
//! the cards played), no search.
//!
//! - Lead: a sure winner of a plain suit (no card of that suit still unseen is higher, and no
//!   opponent has shown void in it), every copy held; with trumps for at least half the hand, a
//!   sure-winning trump the same way; else the lowest plain card without points (every copy
//!   held, so no group is broken).
//! - Follow: among legal plays (the engine's own `best_follow`, every group of the led size,
//!   and the suit's cards filled up with point cards), give points to a partner who is winning;
//!   take a trick that holds points (or for free with a plain card, or as the last to play) with
//!   the cheapest winning play; else play the cheapest cards, points last.

use super::{
    EffSuit, FACES, Formation, Order, Requirement, best_follow, card_points, classify, face,
    points, requirement, trick_winner,
};
use crate::cards::Card;
use crate::engine::SeatNo;

/// Copies of each face still unseen by a seat: in `deck` but not in its `hand` and not among the
/// cards it has seen played (or buried itself).
pub fn unseen<'a>(
    deck: &[Card],
    hand: &'a [Card],
    seen: impl IntoIterator<Item = &'a Card>,
) -> [u8; FACES] {
    let mut n = [0u8; FACES];
    for &c in deck {
        if let Some(f) = face(c) {
            n[f] += 1;
        }
    }
    for &c in hand.iter().chain(seen) {
        if let Some(f) = face(c) {
            n[f] = n[f].saturating_sub(1);
        }
    }
    n
}

fn suit_index(s: EffSuit) -> usize {
    match s {
        EffSuit::Trump => 0,
        EffSuit::Plain(p) => 1 + p as usize,
    }
}

/// The effective suits each seat has shown void in: it played another suit to a lead of it.
pub fn voids(order: &Order, seats: usize, tricks: &[Vec<(SeatNo, &[Card])>]) -> Vec<[bool; 5]> {
    let mut v = vec![[false; 5]; seats];
    for t in tricks {
        let Some(led) = t
            .first()
            .and_then(|(_, c)| c.first())
            .and_then(|&c| order.eff(c))
        else {
            continue;
        };
        for &(seat, cards) in t.iter().skip(1) {
            if seat < seats && cards.iter().any(|&c| order.eff(c) != Some(led)) {
                v[seat][suit_index(led)] = true;
            }
        }
    }
    v
}

/// What the bot of one seat knows when it plays.
pub struct Seen<'a> {
    pub order: &'a Order,
    pub hand: &'a [Card],
    pub unseen: [u8; FACES],
    /// Suits some opponent of the seat has shown void in (index: trumps 0, then S H D C).
    pub opponent_void: [bool; 5],
}

impl Seen<'_> {
    fn copies(&self, card: Card) -> Vec<Card> {
        self.hand.iter().copied().filter(|&c| c == card).collect()
    }

    /// Whether no unseen card of `card`'s suit is higher than it.
    fn sure_winner(&self, card: Card) -> bool {
        let Some(suit) = self.order.eff(card) else {
            return false;
        };
        let pos = self.order.pos(card);
        self.unseen.iter().enumerate().all(|(f, &n)| {
            n == 0 || {
                let other = face_card(f);
                self.order.eff(other) != Some(suit) || self.order.pos(other) <= pos
            }
        })
    }

    /// The highest card held of `suit`.
    fn top_of(&self, suit: EffSuit) -> Option<Card> {
        self.hand
            .iter()
            .copied()
            .filter(|&c| self.order.eff(c) == Some(suit))
            .max_by_key(|&c| self.order.key(c))
    }
}

/// The card of a face index (inverse of `face`).
fn face_card(f: usize) -> Card {
    match f {
        52 => Card::SmallJoker,
        53 => Card::BigJoker,
        _ => {
            let suit = crate::cards::Suit::ALL[f % 4];
            Card::new((f / 4) as u8 + 2, suit)
        }
    }
}

/// The lead: every copy of one card, so always one formation.
pub fn lead(seen: &Seen) -> Vec<Card> {
    let order = seen.order;
    let mut winners: Vec<Card> = crate::cards::Suit::ALL
        .iter()
        .map(|&s| EffSuit::Plain(s))
        .filter(|&s| !seen.opponent_void[suit_index(s)])
        .filter_map(|s| seen.top_of(s))
        .filter(|&c| seen.sure_winner(c))
        .collect();
    let trumps = seen.hand.iter().filter(|&&c| order.is_trump(c)).count();
    if trumps * 2 >= seen.hand.len() {
        winners.extend(seen.top_of(EffSuit::Trump).filter(|&c| seen.sure_winner(c)));
    }
    // Plain winners before trumps; the most copies; then cash points.
    let best = winners.into_iter().max_by_key(|&c| {
        (
            !order.is_trump(c),
            seen.copies(c).len(),
            card_points(c),
            order.key(c),
        )
    });
    if let Some(c) = best {
        return seen.copies(c);
    }
    let low = seen.hand.iter().copied().min_by_key(|&c| {
        (
            order.is_trump(c),
            card_points(c) > 0,
            order.pos(c),
            order.key(c),
        )
    });
    low.map(|c| seen.copies(c)).unwrap_or_default()
}

/// Cards of a play that are trumps, and the sum of their positions: what the play costs.
fn cost(order: &Order, cards: &[Card]) -> (usize, u32) {
    (
        cards.iter().filter(|&&c| order.is_trump(c)).count(),
        cards.iter().map(|&c| u32::from(order.pos(c))).sum(),
    )
}

/// The legal follows the bot weighs against `lead`.
fn candidates(order: &Order, hand: &[Card], lead: &[Card]) -> Vec<Vec<Card>> {
    let req = requirement(order, hand, lead);
    let mut out = vec![best_follow(order, hand, lead)];
    if let Some((Formation::Group { size }, _)) = classify(order, lead) {
        let mut faces: Vec<Card> = hand.to_vec();
        faces.sort_by_key(|&c| order.key(c));
        faces.dedup();
        for c in faces {
            if hand.iter().filter(|&&d| d == c).count() >= usize::from(size) {
                out.push(vec![c; usize::from(size)]);
            }
        }
    }
    // Short of (or void in) the led suit: its cards, filled up with point cards.
    let must: Option<(usize, Option<EffSuit>)> = match req {
        Requirement::Free { count } => Some((count, None)),
        Requirement::AllOfSuit { count, suit, .. } => Some((count, Some(suit))),
        _ => None,
    };
    if let Some((count, suit)) = must {
        let (mut play, mut rest): (Vec<Card>, Vec<Card>) = hand
            .iter()
            .partition(|&&c| suit.is_some() && order.eff(c) == suit);
        rest.sort_by_key(|&c| {
            (
                std::cmp::Reverse(card_points(c)),
                order.is_trump(c),
                order.pos(c),
            )
        });
        play.extend(rest.into_iter().take(count.saturating_sub(play.len())));
        out.push(play);
    }
    out.retain(|p| req.check(order, hand, p).is_ok());
    out.dedup();
    out
}

/// The follow of `me` to the trick `plays` (the lead first), `partner` telling which seats play
/// on its side and `last` whether it is the last to play.
pub fn follow(
    seen: &Seen,
    me: SeatNo,
    plays: &[(SeatNo, Vec<Card>)],
    partner: impl Fn(SeatNo) -> bool,
    last: bool,
) -> Vec<Card> {
    let order = seen.order;
    let Some((_, lead)) = plays.first() else {
        return self::lead(seen);
    };
    let cands = candidates(order, seen.hand, lead);
    let Some(default) = cands.first().cloned() else {
        return best_follow(order, seen.hand, lead);
    };
    let cards: Vec<Vec<Card>> = plays.iter().map(|(_, c)| c.clone()).collect();
    let winning = plays[trick_winner(order, &cards)].0;
    let wins = |p: &Vec<Card>| {
        let mut all = cards.clone();
        all.push(p.clone());
        trick_winner(order, &all) == cards.len()
    };
    let on_table: u32 = cards.iter().map(|c| points(c)).sum();
    if partner(winning) && winning != me {
        // Feed the partner points, without spending trumps on it.
        return cands
            .into_iter()
            .max_by_key(|p| {
                let (trumps, pos) = cost(order, p);
                (std::cmp::Reverse(trumps), points(p), std::cmp::Reverse(pos))
            })
            .unwrap_or(default);
    }
    let winners: Vec<&Vec<Card>> = cands.iter().filter(|p| wins(p)).collect();
    let cheapest = winners.iter().min_by_key(|p| cost(order, p)).copied();
    if let Some(w) = cheapest {
        let free = cost(order, w).0 == 0;
        if last {
            // Sure to win: take it with the most points on top.
            return winners
                .into_iter()
                .max_by_key(|p| {
                    let (trumps, pos) = cost(order, p);
                    (std::cmp::Reverse(trumps), points(p), std::cmp::Reverse(pos))
                })
                .cloned()
                .unwrap_or(default);
        }
        if on_table > 0 || free {
            return w.clone();
        }
    }
    cands
        .into_iter()
        .min_by_key(|p| (points(p), cost(order, p)))
        .unwrap_or(default)
}
