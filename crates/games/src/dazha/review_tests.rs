//! Regression tests from the rules review.

use super::combos::{self, Combo, Counts, jokers_playable};
use super::*;
use crate::cards::Card;
use crate::test_rng::Rng;

/// A small hand rich in pairs, triples, bombs, runs and 五十K.
fn small_hand(rng: &mut Rng, len: usize, mode: Mode) -> Vec<Card> {
    let mut deck = Dazha::deck(&Options {
        mode,
        base: 1,
        bomb_cap: Some(9),
    });
    let lo = 3 + rng.below(6) as u8;
    deck.retain(|c| match c.rank() {
        Some(r) => (lo..lo + 6).contains(&r) || r == 5 || r == 10 || r == 13 || r == 2,
        None => rng.below(3) == 0,
    });
    let mut hand = Vec::new();
    while hand.len() < len && !deck.is_empty() {
        hand.push(deck.swap_remove(rng.below(deck.len())));
    }
    sort_strongest_first(&mut hand);
    hand
}

/// Whether some subset of `hand` is a legal play on `top` (brute force over every subset).
fn some_play_beats(hand: &[Card], top: Option<&Combo>, mode: Mode) -> bool {
    (1u32..1 << hand.len()).any(|mask| {
        let picked = |inside: bool| -> Vec<Card> {
            (0..hand.len())
                .filter(|i| (mask & (1 << i) != 0) == inside)
                .map(|i| hand[i])
                .collect()
        };
        let (play, rest) = (picked(true), picked(false));
        let read = match top {
            None => combos::readings(&play, hand.len(), mode),
            Some(_) => combos::follow_readings(&play, mode),
        };
        let Ok(options) = read else {
            return false;
        };
        options.iter().any(|c| top.is_none_or(|t| c.beats(t)))
            && jokers_playable(&Counts::of(&rest), mode)
    })
}

/// `can_beat` in `legal_actions` (and the automatic player) rely on the generated plays: when
/// any legal play exists, the generator must find one.
#[test]
fn generated_plays_find_a_beating_play_whenever_one_exists() {
    let mut rng = Rng(0x5eed);
    for round in 0..3000 {
        let mode = if round % 4 == 0 {
            Mode::Zhashen12
        } else {
            Mode::Normal
        };
        let other = small_hand(&mut rng, 11, mode);
        let leads = combos::legal_plays(&other, None, mode);
        if leads.is_empty() {
            continue;
        }
        let top = leads[rng.below(leads.len())].combo;
        let len = 4 + rng.below(8);
        let hand = small_hand(&mut rng, len, mode);
        if !jokers_playable(&Counts::of(&hand), mode) {
            continue;
        }
        let generated = combos::legal_plays(&hand, Some(&top), mode);
        assert_eq!(
            !generated.is_empty(),
            some_play_beats(&hand, Some(&top), mode),
            "{hand:?} on {top:?}: generated {generated:?}"
        );
    }
}
