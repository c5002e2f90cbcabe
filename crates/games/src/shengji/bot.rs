//! The server-side bot of 升级 (`Game::bot_action`, also the 提示 shown to a human).
//!
//! It reads only its own hand, the public declarations (who showed how many 2s, never the suit
//! before the phase ends) and the cards played. `docs/rules/shengji.md` § Bots and hints
//! describes the policy; the card play is `trick::bot`'s.

use super::declare::{self, Declaring};
use super::{Action, Options, Phase, Playing, SEATS, Shengji, State, team};
use crate::cards::{Card, Suit};
use crate::engine::{Game, SeatNo};
use crate::trick::bot::{self, Seen};

/// Cards of one suit besides its 2s from which the bot declares that suit: a hand of 54 holds
/// 12 of a suit on average.
pub(super) const LONG_SUIT: usize = 14;

pub(super) fn bot_action(state: &State, seat: SeatNo) -> Action {
    let Some(h) = state.table.hand() else {
        return Shengji::auto_action(state, seat);
    };
    if !Shengji::to_act(state).contains(&seat) {
        return Shengji::auto_action(state, seat);
    }
    match &h.phase {
        Phase::Declaring(d) => declaration(d, &h.hands[seat], seat),
        Phase::Playing(p) => Action::Play {
            cards: play(p, &h.hands[seat], seat),
        },
    }
}

/// Cards of `suit` in `hand` that are not 2s.
fn suit_length(hand: &[Card], suit: Suit) -> usize {
    hand.iter()
        .filter(|c| c.suit() == Some(suit) && c.rank() != Some(2))
        .count()
}

/// Declares its longest suit (with every 2 of it held, so that it is hard to override) when it
/// is long and no partner's declaration stands; else passes.
fn declaration(d: &Declaring, hand: &[Card], seat: SeatNo) -> Action {
    if d.standing.is_some_and(|s| team(s.seat) == team(seat)) {
        return Action::Pass {};
    }
    let best = declare::options(d, hand, seat)
        .into_iter()
        .filter_map(|(suit, counts)| Some((suit_length(hand, suit), *counts.last()?, suit)))
        .max_by_key(|&(len, n, _)| (len, n));
    match best {
        Some((len, n, suit)) if len >= LONG_SUIT => Action::Declare {
            cards: vec![Card::new(2, suit); usize::from(n)],
        },
        _ => Action::Pass {},
    }
}

fn play(p: &Playing, hand: &[Card], seat: SeatNo) -> Vec<Card> {
    let order = p.order();
    let tricks: Vec<Vec<(SeatNo, &[Card])>> = p
        .tricks
        .iter()
        .map(|t| t.plays.iter().map(|x| (x.seat, &x.cards[..])).collect())
        .chain(std::iter::once(
            p.trick.iter().map(|x| (x.seat, &x.cards[..])).collect(),
        ))
        .collect();
    let played = tricks.iter().flatten().flat_map(|(_, c)| c.iter());
    let unseen = bot::unseen(&Shengji::deck(&Options {}), hand, played);
    let voids = bot::voids(&order, SEATS, &tricks);
    let mut opponent_void = [false; 5];
    for s in (0..SEATS).filter(|&s| team(s) != team(seat)) {
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
    if p.trick.is_empty() {
        return bot::lead(&seen);
    }
    let plays: Vec<(SeatNo, Vec<Card>)> =
        p.trick.iter().map(|x| (x.seat, x.cards.clone())).collect();
    bot::follow(
        &seen,
        seat,
        &plays,
        |s| team(s) == team(seat),
        p.trick.len() == SEATS - 1,
    )
}
