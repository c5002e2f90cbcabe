// Fixtures are written with `hand!`, which builds a Vec: borrowing one reads best.
#![allow(clippy::useless_vec)]

use super::*;
use crate::cards::Suit;
use crate::hand;
use crate::test_rng::Rng;

pub(super) const SHENGJI: Ranks = Ranks {
    fixed: &[2],
    removed: &[],
    tractors_first: true,
};
const SANDAHA: Ranks = Ranks {
    fixed: &[7, 2],
    removed: &[3, 4],
    tractors_first: false,
};

pub(super) fn hearts() -> Order {
    Order::new(SHENGJI, Some(Suit::H))
}

fn c(s: &str) -> Card {
    Card::parse(s).unwrap()
}

pub(super) fn sc(tractor: u8, quads: u8, triples: u8, pairs: u8) -> Score {
    Score {
        tractor,
        quads,
        triples,
        pairs,
    }
}

#[test]
fn trump_order_is_jokers_then_main_two_then_other_twos_then_trump_suit() {
    let o = hearts();
    let mut cards = hand!["3S", "AH", "2S", "RJ", "2H", "BJ", "3H", "AS", "2C"];
    o.sort_strongest_first(&mut cards);
    assert_eq!(
        cards,
        hand!["RJ", "BJ", "2H", "2S", "2C", "AH", "3H", "AS", "3S"]
    );
    assert_eq!(o.pos(c("2S")), o.pos(c("2D")), "副2s are equal");
    assert_eq!(o.pos(c("AH")) + 1, o.pos(c("2C")));
    assert_eq!(o.pos(c("2D")) + 1, o.pos(c("2H")));
    assert_eq!(o.pos(c("2H")) + 1, o.pos(c("BJ")));
    assert_eq!(o.eff(c("2S")), Some(EffSuit::Trump));
    assert_eq!(o.eff(c("AS")), Some(EffSuit::Plain(Suit::S)));
}

#[test]
fn sandaha_order_joins_eight_and_six_and_ranks_sevens_above_twos() {
    let o = Order::new(SANDAHA, Some(Suit::S));
    assert_eq!(o.pos(c("6H")) + 1, o.pos(c("8H")));
    assert_eq!(o.pos(c("5D")), 0);
    let mut cards = hand!["2S", "7H", "7S", "2D", "AS", "RJ"];
    o.sort_strongest_first(&mut cards);
    assert_eq!(cards, hand!["RJ", "7S", "7H", "2S", "2D", "AS"]);
    let none = Order::new(SANDAHA, None);
    assert_eq!(none.pos(c("7S")), none.pos(c("7H")));
    assert_eq!(none.pos(c("2C")) + 1, none.pos(c("7D")));
    assert!(!none.is_trump(c("AS")));
    let (f, _) = classify(&none, &hand!["7S", "7S", "2H", "2H"]).unwrap();
    assert_eq!(f, Formation::Tractor { size: 2, groups: 2 });
}

#[test]
fn tractor_runs_across_trump_positions() {
    let o = hearts();
    let tractor = |cards: &[Card]| classify(&o, cards).map(|(f, _)| f);
    assert_eq!(
        tractor(&hand!["BJ", "BJ", "2H", "2H"]),
        Some(Formation::Tractor { size: 2, groups: 2 })
    );
    assert_eq!(
        tractor(&hand!["2H", "2H", "2S", "2S", "AH", "AH"]),
        Some(Formation::Tractor { size: 2, groups: 3 })
    );
    assert_eq!(
        tractor(&hand!["RJ", "RJ", "RJ", "BJ", "BJ", "BJ"]),
        Some(Formation::Tractor { size: 3, groups: 2 })
    );
    // 2S and 2C stand at the same position: a tractor uses one of them.
    assert_eq!(tractor(&hand!["2S", "2S", "2C", "2C"]), None);
    assert_eq!(tractor(&hand!["2C", "2C", "KH", "KH"]), None);
}

#[test]
fn other_suit_twos_of_different_suits_never_pair() {
    let o = hearts();
    assert_eq!(classify(&o, &hand!["2S", "2D"]), None);
    // A pair lead: the follower with 2S 2D and no real pair plays any two trumps.
    let hand = hand!["2S", "2D", "3H", "9C"];
    let req = requirement(&o, &hand, &hand!["5H", "5H"]);
    assert_eq!(
        req,
        Requirement::Structure {
            count: 2,
            suit: EffSuit::Trump,
            score: sc(0, 0, 0, 0)
        }
    );
    assert!(is_legal_follow(&o, &hand, &hand!["5H", "5H"], &hand!["2S", "3H"]).is_ok());
}

#[test]
fn leads_are_one_formation_of_one_suit() {
    let o = hearts();
    let hand = hand!["3S", "3S", "4S", "4S", "5S", "KH", "AS", "AS"];
    assert_eq!(
        check_lead(&o, &hand, &hand!["3S", "3S", "4S", "4S"]),
        Ok(Formation::Tractor { size: 2, groups: 2 })
    );
    assert_eq!(
        check_lead(&o, &hand, &hand!["3S", "5S"]),
        Err(LeadError::NotOneFormation)
    );
    assert_eq!(
        check_lead(&o, &hand, &hand!["3S", "3S", "AS", "AS"]),
        Err(LeadError::NotOneFormation),
        "甩牌 is not allowed"
    );
    assert_eq!(
        check_lead(&o, &hand, &hand!["5S", "KH"]),
        Err(LeadError::MixedSuits)
    );
    assert_eq!(
        check_lead(&o, &hand, &hand!["QS"]),
        Err(LeadError::NotInHand)
    );
}

#[test]
fn too_few_of_the_led_suit_means_all_of_them_then_anything() {
    let o = hearts();
    let lead = hand!["4S", "4S", "5S", "5S"];
    let hand = hand!["9S", "KS", "3D", "RJ", "AC"];
    assert!(is_legal_follow(&o, &hand, &lead, &hand!["9S", "KS", "3D", "AC"]).is_ok());
    assert_eq!(
        is_legal_follow(&o, &hand, &lead, &hand!["9S", "3D", "AC", "RJ"]),
        Err(FollowError::MustFollowSuit)
    );
    assert_eq!(best_follow(&o, &hand, &lead), hand!["9S", "KS", "3D", "AC"]);
}

#[test]
fn a_void_follower_trumps_and_beats_the_led_suit() {
    let o = hearts();
    let plays = vec![
        hand!["AS", "AS"],
        hand!["3H", "3H"],
        hand!["KS", "KS"],
        hand!["4H", "4H"],
    ];
    assert_eq!(trick_winner(&o, &plays), 3);
    // A trump play without the led structure does not contend.
    let plays = vec![
        hand!["QS", "QS"],
        hand!["3H", "4H"],
        hand!["KS", "KS"],
        hand!["2C", "5D"],
    ];
    assert_eq!(trick_winner(&o, &plays), 2);
}

#[test]
fn an_earlier_equal_play_wins() {
    let o = hearts();
    let plays = vec![hand!["3H"], hand!["2S"], hand!["2D"], hand!["AH"]];
    assert_eq!(trick_winner(&o, &plays), 1);
    let plays = vec![hand!["AS"], hand!["AS"], hand!["3S"], hand!["AS"]];
    assert_eq!(trick_winner(&o, &plays), 0);
}

#[test]
fn quads_beat_a_pair_tractor_and_quad_tractors_beat_quads() {
    let o = hearts();
    let lead = hand!["JS", "JS", "QS", "QS", "KS", "KS", "AS", "AS"];
    let quads = hand!["3S", "3S", "3S", "3S", "6S", "6S", "6S", "6S"];
    let quad_tractor = hand!["4S", "4S", "4S", "4S", "5S", "5S", "5S", "5S"];
    assert_eq!(trick_winner(&o, &[lead.clone(), quads.clone()]), 1);
    assert_eq!(
        trick_winner(&o, &[lead.clone(), quads.clone(), quad_tractor]),
        2
    );
    // A quad against a two-pair tractor; a triple tractor against a three-pair tractor.
    let plays = vec![hand!["KS", "KS", "AS", "AS"], hand!["3S", "3S", "3S", "3S"]];
    assert_eq!(trick_winner(&o, &plays), 1);
    let plays = vec![
        hand!["QS", "QS", "KS", "KS", "AS", "AS"],
        hand!["3S", "3S", "3S", "4S", "4S", "4S"],
    ];
    assert_eq!(trick_winner(&o, &plays), 1);
}

#[test]
fn point_cards_are_fives_tens_and_kings() {
    assert_eq!(points(&hand!["5S", "10H", "KD", "QS", "RJ"]), 25);
}

/// Every subset of `pool` with `n` cards (pool is small).
fn subsets(pool: &[Card], n: usize) -> Vec<Vec<Card>> {
    let mut out = Vec::new();
    for mask in 0u32..(1 << pool.len()) {
        if mask.count_ones() as usize == n {
            out.push(
                (0..pool.len())
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| pool[i])
                    .collect(),
            );
        }
    }
    out
}

/// Against every subset of small random hands, the follow check agrees with the priority
/// written out directly (the partition reading and the six-card step included), and the
/// auto-play follow is always accepted.
#[test]
fn follow_check_matches_brute_force_priority_on_small_hands() {
    let faces = hand![
        "3S", "4S", "5S", "6S", "8S", "2S", "2D", "2H", "AH", "KH", "BJ"
    ];
    let leads = [
        hand!["9S", "9S", "10S", "10S"],
        hand!["9S", "9S", "10S", "10S", "JS", "JS"],
        hand!["9S", "9S"],
        hand!["9S", "9S", "9S"],
        hand!["QH", "QH", "JH", "JH"],
        hand!["9H", "9H", "9H", "10H", "10H", "10H"],
        hand!["9S", "9S", "9S", "9S", "10S", "10S", "10S", "10S"],
    ];
    let quad_pairs = brute_force(&hearts(), &faces, &leads, 4, 7);
    assert!(quad_pairs > 0, "the six-card step was exercised");
}

/// The same for sandaha's order (two decks, so at most pairs; 8 and 6 neighbours; no tractor
/// counted before pairs, no six-card step).
#[test]
fn sandaha_follow_check_matches_brute_force_priority_on_small_hands() {
    let faces = hand![
        "5D", "6D", "8D", "9D", "7D", "7H", "2D", "2C", "AS", "KS", "RJ"
    ];
    let plain = [
        hand!["QD", "QD", "KD", "KD"],
        hand!["10D", "10D", "JD", "JD", "QD", "QD"],
        hand!["JD", "JD"],
    ];
    let mut spades = plain.to_vec();
    spades.push(hand!["7S", "7S", "7C", "7C"]);
    spades.push(hand!["2C", "2C", "AS", "AS"]);
    assert_eq!(
        brute_force(&Order::new(SANDAHA, Some(Suit::S)), &faces, &spades, 2, 8),
        0
    );
    let mut no_trump = plain.to_vec();
    no_trump.push(hand!["7S", "7S", "2C", "2C"]);
    no_trump.push(hand!["RJ", "RJ", "BJ", "BJ"]);
    assert_eq!(
        brute_force(&Order::new(SANDAHA, None), &faces, &no_trump, 2, 9),
        0
    );
}

/// The sizes of the groups of identical cards in `cards`, smallest first.
fn groups_of(cards: &[Card]) -> Vec<usize> {
    let mut faces = cards.to_vec();
    faces.sort_by_key(|&x| (x.suit(), x.rank()));
    faces.dedup();
    let mut sizes: Vec<usize> = faces
        .iter()
        .map(|&f| cards.iter().filter(|&&x| x == f).count())
        .collect();
    sizes.sort_unstable();
    sizes
}

/// The rule's reading of a set of one suit, written out: every way to take one tractor out of
/// it (a group size, faces at consecutive positions, one at each, each holding that many), the
/// cards left grouped face by face; the best by tractor cards, quads, triples, pairs.
fn partition_score(o: &Order, set: &[Card]) -> Score {
    let mut faces = set.to_vec();
    faces.sort_by_key(|&x| (x.suit(), x.rank()));
    faces.dedup();
    let held = |f: Card| set.iter().filter(|&&x| x == f).count() as u8;
    let grouped = |taken: &[(Card, u8)]| {
        let mut s = Score::default();
        for &f in &faces {
            let used = taken.iter().find(|t| t.0 == f).map_or(0, |t| t.1);
            for n in [used, held(f) - used] {
                match n {
                    4 => s.quads += 1,
                    3 => s.triples += 1,
                    2 => s.pairs += 1,
                    _ => {}
                }
            }
        }
        s
    };
    let mut best = grouped(&[]);
    if !o.ranks.tractors_first {
        return best;
    }
    let multi: Vec<Card> = faces.iter().copied().filter(|&f| held(f) >= 2).collect();
    for mask in 1u32..(1 << multi.len()) {
        let chosen: Vec<Card> = (0..multi.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| multi[i])
            .collect();
        let mut pos: Vec<u8> = chosen.iter().map(|&f| o.pos(f)).collect();
        pos.sort_unstable();
        if chosen.len() < 2 || !pos.windows(2).all(|w| w[1] == w[0] + 1) {
            continue;
        }
        for h in 2..=4u8 {
            if chosen.iter().any(|&f| held(f) < h) {
                continue;
            }
            let taken: Vec<(Card, u8)> = chosen.iter().map(|&f| (f, h)).collect();
            let s = Score {
                tractor: h * chosen.len() as u8,
                ..grouped(&taken)
            };
            best = best.max(s);
        }
    }
    best
}

/// Checks 300 random hands against `leads`; returns how many times the six-card step bound.
fn brute_force(o: &Order, faces: &[Card], leads: &[Vec<Card>], copies: usize, seed: u64) -> usize {
    let mut rng = Rng(seed);
    let mut quad_pairs = 0;
    for _ in 0..300 {
        let n = 8 + rng.below(5);
        let hand: Vec<Card> =
            (0..n)
                .map(|_| faces[rng.below(faces.len())])
                .fold(Vec::new(), |mut h, card| {
                    if h.iter().filter(|&&x| x == card).count() < copies {
                        h.push(card);
                    }
                    h
                });
        for lead in leads {
            let (lead_form, _) = classify(o, lead).unwrap();
            let suit = o.eff(lead[0]).unwrap();
            let in_suit: Vec<Card> = hand
                .iter()
                .copied()
                .filter(|&x| o.eff(x) == Some(suit))
                .collect();
            let all = subsets(&hand, lead.len());
            let answers = lead_form.answers();
            let is_answer = |p: &[Card]| {
                classify(o, p).is_some_and(|(f, _)| answers.contains(&f))
                    && p.iter().all(|&x| o.eff(x) == Some(suit))
            };
            let any_answer = all.iter().any(|p| is_answer(p));
            let all_in_suit = |p: &[Card]| p.iter().all(|&x| o.eff(x) == Some(suit));
            let mut scores = std::collections::HashMap::new();
            let mut score_of = |p: &[Card]| {
                let mut key = p.to_vec();
                key.sort_by_key(|&x| o.key(x));
                *scores
                    .entry(key)
                    .or_insert_with_key(|k| partition_score(o, k))
            };
            let best = all
                .iter()
                .filter(|p| all_in_suit(p))
                .map(|p| score_of(p))
                .max();
            // Step 2, the seed's six-card table: a quad with a pair before a shorter tractor.
            let quad_pair = o.ranks.tractors_first
                && lead.len() == 6
                && best.is_some_and(|b| b.tractor < 6)
                && all.iter().any(|p| all_in_suit(p) && groups_of(p) == [2, 4]);
            quad_pairs += usize::from(quad_pair && in_suit.len() > lead.len() && !any_answer);
            for p in &all {
                let expected = if in_suit.is_empty() {
                    true
                } else if in_suit.len() <= lead.len() {
                    p.iter().filter(|&&x| o.eff(x) == Some(suit)).count() == in_suit.len()
                } else if any_answer {
                    is_answer(p)
                } else if quad_pair {
                    all_in_suit(p) && groups_of(p) == [2, 4]
                } else {
                    all_in_suit(p) && Some(score_of(p)) == best
                };
                assert_eq!(
                    is_legal_follow(o, &hand, lead, p).is_ok(),
                    expected,
                    "hand {hand:?} lead {lead:?} play {p:?}"
                );
            }
            if hand.len() >= lead.len() {
                let auto = best_follow(o, &hand, lead);
                assert_eq!(
                    is_legal_follow(o, &hand, lead, &auto),
                    Ok(()),
                    "{hand:?} {lead:?}"
                );
            }
        }
    }
    quad_pairs
}
