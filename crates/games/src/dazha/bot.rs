//! The server-side bot of 打炸 (`Game::bot_action`, also the 提示 shown to a human).
//!
//! It reads only what its seat sees: its own hand, the round on the table, the teams and the
//! card counts the table is told (报牌, at most 10 cards). `docs/rules/dazha.md` § Bots and hints
//! describes the policy.

use std::cmp::Reverse;

use super::combos::{self, Combo, Kind, Play, RANKS, TWO, strength};
use super::{Action, Dazha, HandState, State, reported};
use crate::cards::Card;
use crate::engine::{Game, SeatNo};

/// An opponent reporting this many cards or fewer is close to going out: the bot then spends a
/// 五十K, a bomb or a card of a bomb to beat it.
pub(super) const CLOSE_TO_OUT: usize = 5;
/// A round holding this many card points is also worth a 五十K or a bomb.
pub(super) const WORTH_A_BOMB: u32 = 30;

/// Card counts of each natural rank order in `hand`.
fn rank_counts(hand: &[Card]) -> [u8; RANKS] {
    let mut n = [0u8; RANKS];
    for &c in hand {
        if c.rank().is_some() {
            n[usize::from(strength(c))] += 1;
        }
    }
    n
}

/// How precious a play is, cheapest first: ordinary plays, ordinary plays that take a card out
/// of a bomb the hand holds (four or more of a rank), 五十K (mixed before suited), bombs.
fn class(p: &Play, held: &[u8; RANKS]) -> u8 {
    match p.combo.kind {
        k if k.is_bomb() => 4,
        Kind::WushikMixed => 2,
        Kind::WushikSuited => 3,
        _ if breaks_bomb(p, held) => 1,
        _ => 0,
    }
}

fn breaks_bomb(p: &Play, held: &[u8; RANKS]) -> bool {
    p.cards
        .iter()
        .any(|&c| c.rank().is_some() && held[usize::from(strength(c))] >= 4)
}

/// The lowest rank a play gets rid of: the bottom of a run, else its deciding rank.
fn low_end(c: &Combo) -> u8 {
    match c.kind {
        Kind::Straight | Kind::PairsRun | Kind::TriplesWithTwos => {
            (c.rank + 1).saturating_sub(c.len)
        }
        _ => c.rank,
    }
}

/// Bombs from the smallest: natural bombs by size then rank, four jokers as an 8-card bomb
/// above the 8 twos, the 12炸神 six-joker bombs last.
fn bomb_key(c: &Combo) -> (u8, u8, u8) {
    match c.kind {
        Kind::JokerBomb => (0, 8, TWO + 1),
        Kind::SmallJokerBomb => (1, 0, 0),
        Kind::BigJokerBomb => (1, 0, 1),
        _ => (0, c.len, c.rank),
    }
}

fn to_action(p: &Play) -> Action {
    Action::Play {
        cards: p.cards.clone(),
        reading: Some(p.combo.kind),
    }
}

pub(super) fn bot_action(state: &State, seat: SeatNo) -> Action {
    let Some(h) = state.table.hand().filter(|h| h.turn == seat) else {
        return Action::Pass {};
    };
    let hand = &h.hands[seat];
    let top = h.round.top();
    let plays = combos::legal_plays(hand, top.map(|(_, c)| c).as_ref(), state.opts.mode);
    // Going out is always right: it takes a place and can leave the others holding cards.
    if let Some(p) = plays.iter().find(|p| p.cards.len() == hand.len()) {
        return to_action(p);
    }
    let held = rank_counts(hand);
    let chosen = match top {
        None => lead(&plays, &held),
        Some((played, combo)) => follow(h, seat, played.seat, &combo, &plays, &held),
    };
    match chosen {
        Some(p) => to_action(p),
        // A leader always has a play; a follower with nothing sensible passes.
        None if top.is_some() => Action::Pass {},
        None => Dazha::auto_action(state, seat),
    }
}

/// The lead: the play getting rid of the lowest cards, as many of them as one play takes
/// (a run from the bottom before a pair before a single), never a bomb or 五十K while an
/// ordinary play exists.
fn lead<'a>(plays: &'a [Play], held: &[u8; RANKS]) -> Option<&'a Play> {
    plays.iter().min_by_key(|p| {
        let c = &p.combo;
        let strong = if c.kind.is_bomb() {
            bomb_key(c)
        } else {
            (0, 0, 0)
        };
        (
            class(p, held),
            strong,
            low_end(c),
            Reverse(p.cards.len()),
            c.rank,
        )
    })
}

/// Whether an opponent of `seat` has told the table it holds at most `CLOSE_TO_OUT` cards.
fn opponent_close_to_out(h: &HandState, seat: SeatNo) -> bool {
    (0..h.hands.len()).any(|s| {
        h.team_of[s] != h.team_of[seat]
            && reported(h.hands[s].len()).is_some_and(|n| n > 0 && n <= CLOSE_TO_OUT)
    })
}

/// The follow: pass on the partner's play; else the cheapest play of the same kind that beats
/// the top; a 五十K, a bomb or a card of a bomb only when an opponent is close to going out or
/// the round is worth it; else pass.
fn follow<'a>(
    h: &HandState,
    seat: SeatNo,
    top_seat: SeatNo,
    top: &Combo,
    plays: &'a [Play],
    held: &[u8; RANKS],
) -> Option<&'a Play> {
    if h.team_of[top_seat] == h.team_of[seat] {
        return None;
    }
    let ordinary = plays
        .iter()
        .filter(|p| p.combo.kind == top.kind && class(p, held) == 0)
        .min_by_key(|p| (p.combo.rank, p.cards.len()));
    if ordinary.is_some() {
        return ordinary;
    }
    if !(opponent_close_to_out(h, seat) || h.round.points >= WORTH_A_BOMB) {
        return None;
    }
    plays.iter().min_by_key(|p| {
        let c = &p.combo;
        let strong = if c.kind.is_bomb() {
            bomb_key(c)
        } else {
            (0, 0, 0)
        };
        (class(p, held), strong, c.rank)
    })
}
