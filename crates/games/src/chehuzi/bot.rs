//! The server-side bot of 扯胡子 (`Game::bot_action`, also the 提示 shown to a human).
//!
//! It reads only its own hand and the claims the window offers its seat (what `legal_actions`
//! lists to it). `docs/rules/chehuzi.md` § Bots and hints describes the policy.

use super::claims::ChiMelds;
use super::melds::{Kind, cards_of, chi_kind, count, huxi, is_big, number};
use super::{Action, Chehuzi, HandState, Phase, State, Window, card_of};
use crate::engine::{Game, SeatNo};

pub(super) fn bot_action(state: &State, seat: SeatNo) -> Action {
    let Some(h) = state.table.hand() else {
        return Chehuzi::auto_action(state, seat);
    };
    if !Chehuzi::to_act(state).contains(&seat) {
        return Chehuzi::auto_action(state, seat);
    }
    match &h.phase {
        Phase::Claim(w) => claim(w, seat),
        Phase::Discard { .. } => match discard(h, seat) {
            Some(f) => Action::Discard { card: card_of(f) },
            None => Chehuzi::auto_action(state, seat),
        },
    }
}

/// 胡息 a 吃 lays down.
pub(super) fn chi_huxi(melds: &ChiMelds) -> u32 {
    melds
        .iter()
        .map(|m| u32::from(huxi(chi_kind(m).unwrap_or(Kind::Ju), m)))
        .sum()
}

/// 胡 whenever offered; else 碰 (it always adds 胡息); else the 吃 adding the most 胡息, if it
/// adds any; else pass.
fn claim(w: &Window, seat: SeatNo) -> Action {
    if w.hu[seat] {
        return Action::Hu {};
    }
    if w.peng[seat] {
        return Action::Peng {};
    }
    let best = w.chi[seat]
        .iter()
        .filter(|m| chi_huxi(m) > 0)
        .max_by_key(|m| (chi_huxi(m), std::cmp::Reverse(m.len())));
    match best {
        Some(melds) => Action::Chi {
            melds: melds.iter().map(|m| cards_of(m)).collect(),
        },
        None => Action::Pass {},
    }
}

/// How much a face helps the hand toward melds: copies of it (碰, 偎, 坎), neighbours of its
/// case (句), the other members of 二七十 of its case, and the same number in the other case (绞).
pub(super) fn usefulness(hand: &[u8], f: u8) -> u32 {
    let held = |g: u8| u32::try_from(count(hand, g)).unwrap_or(u32::MAX);
    let case = if is_big(f) { 10 } else { 0 };
    let n = number(f);
    let mut u = 4 * held(f).saturating_sub(1);
    for (d, weight) in [(1u8, 2u32), (2, 1)] {
        if n > d {
            u += weight * held(case + n - d - 1).min(1);
        }
        if n + d <= 10 {
            u += weight * held(case + n + d - 1).min(1);
        }
    }
    if matches!(n, 2 | 7 | 10) {
        for m in [2u8, 7, 10].into_iter().filter(|&m| m != n) {
            u += 2 * held(case + m - 1).min(1);
        }
    }
    let other_case = if is_big(f) { f - 10 } else { f + 10 };
    u += 2 * held(other_case).min(2);
    u
}

/// The discard: the allowed card least useful to melds, small before big (big melds are worth
/// more 胡息), then the higher number.
fn discard(h: &HandState, seat: SeatNo) -> Option<u8> {
    let hand = &h.hands[seat];
    h.discardable(seat)
        .into_iter()
        .min_by_key(|&f| (usefulness(hand, f), is_big(f), std::cmp::Reverse(f)))
}
