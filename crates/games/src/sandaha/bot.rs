//! The server-side bot of 三打哈 (`Game::bot_action`, also the 提示 shown to a human).
//!
//! It reads only its own hand, the bids, the cards played and, as the banker, the bottom it
//! took and buried. `docs/rules/sandaha.md` § Bots and hints describes the policy; the card play
//! is `trick::bot`'s.

use super::{Action, Bidding, Phase, SEATS, Sandaha, State, lowest_to_bury, most_held_suit, order};
use crate::cards::{ACE, Card, Suit};
use crate::engine::{Game, SeatNo};
use crate::trick::bot::{self, Seen};

/// The hand strength from which the bot bids at all (an average hand scores about 17).
pub(super) const BID_FROM: u32 = 18;

/// How good a hand is for taking the contract: 3 per joker, 2 per 7 and per 2 (the fixed
/// trumps), 1 per card of its longest suit besides them (its trump suit to be), 1 per ace.
pub(super) fn strength(hand: &[Card]) -> u32 {
    let fixed = |c: &Card| matches!(c.rank(), Some(7 | 2));
    let jokers = hand.iter().filter(|c| c.rank().is_none()).count() as u32;
    let fixed_trumps = hand.iter().filter(|c| fixed(c)).count() as u32;
    let longest = Suit::ALL
        .iter()
        .map(|&s| {
            hand.iter()
                .filter(|c| c.suit() == Some(s) && !fixed(c))
                .count() as u32
        })
        .max()
        .unwrap_or(0);
    let aces = hand.iter().filter(|c| c.rank() == Some(ACE)).count() as u32;
    3 * jokers + 2 * fixed_trumps + longest + aces
}

/// The lowest bid the bot takes on with a hand of `strength`: none below `BID_FROM`, 90 at it,
/// 5 lower for every 2 points more, never below `floor`, the lowest bid whose level counts (a
/// lower one would only lower the defenders' target).
pub(super) fn lowest_bid_for(strength: u32, floor: u32) -> Option<u32> {
    let over = strength.checked_sub(BID_FROM)?;
    Some(90u32.saturating_sub(5 * (over / 2)).max(floor))
}

fn bid(b: &Bidding, hand: &[Card], floor: u32) -> Action {
    let next = b.next_bid();
    match lowest_bid_for(strength(hand), floor) {
        Some(floor) if next >= floor => Action::Bid { value: next },
        _ => Action::Pass {},
    }
}

pub(super) fn bot_action(state: &State, seat: SeatNo) -> Action {
    let Some(h) = state.table.hand().filter(|h| h.phase.turn() == seat) else {
        return Sandaha::auto_action(state, seat);
    };
    let hand = &h.hands[seat];
    match &h.phase {
        Phase::Bidding(b) => bid(b, hand, state.opts.level_floor()),
        Phase::Trump { .. } => Action::Trump {
            suit: most_held_suit(hand),
        },
        // The lowest cards without points go under.
        Phase::Bury { trump, .. } => Action::Bury {
            cards: lowest_to_bury(&order(*trump), hand),
        },
        Phase::Decide { .. } => Action::PlayOn {},
        Phase::Tricks {
            contract,
            trump,
            play,
        } => {
            let banker = contract.banker;
            let order = order(*trump);
            let tricks: Vec<Vec<(SeatNo, &[Card])>> = play
                .done
                .iter()
                .chain(std::iter::once(&play.current))
                .map(|t| t.plays.iter().map(|p| (p.seat, &p.cards[..])).collect())
                .collect();
            let played = tricks.iter().flatten().flat_map(|(_, c)| c.iter());
            // The banker buried the bottom itself; the defenders never see it.
            let buried: &[Card] = if seat == banker { &h.bottom } else { &[] };
            let unseen = bot::unseen(
                &Sandaha::deck(&state.opts),
                hand,
                played.chain(buried.iter()),
            );
            let voids = bot::voids(&order, SEATS, &tricks);
            let opponent = |s: SeatNo| s != seat && (seat == banker || s == banker);
            let mut opponent_void = [false; 5];
            for s in (0..SEATS).filter(|&s| opponent(s)) {
                for (o, v) in opponent_void.iter_mut().zip(voids[s]) {
                    *o |= v;
                }
            }
            let seen = Seen {
                order: &order,
                hand,
                unseen,
                opponent_void,
            };
            let cards = if play.current.plays.is_empty() {
                bot::lead(&seen)
            } else {
                let plays: Vec<(SeatNo, Vec<Card>)> = play
                    .current
                    .plays
                    .iter()
                    .map(|p| (p.seat, p.cards.clone()))
                    .collect();
                bot::follow(
                    &seen,
                    seat,
                    &plays,
                    |s| !opponent(s),
                    plays.len() == SEATS - 1,
                )
            };
            Action::Play { cards }
        }
    }
}
