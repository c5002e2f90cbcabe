use super::*;
use crate::cards::Suit;
use crate::hand;
use crate::test_rng::Rng;

const SHENGJI: Ranks = Ranks {
    fixed: &[2],
    removed: &[],
    tractors_first: true,
};
const SANDAHA: Ranks = Ranks {
    fixed: &[7, 2],
    removed: &[3, 4],
    tractors_first: false,
};

fn hearts() -> Order {
    Order::new(SHENGJI, Some(Suit::H))
}

fn c(s: &str) -> Card {
    Card::parse(s).unwrap()
}

fn sc(tractor: u8, quads: u8, triples: u8, pairs: u8) -> Score {
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

/// The seed's eight-card table (首家出连四 44556677), row by row: each row's example set scores
/// strictly below the row above it; row 1 is the step-(1) formations.
#[test]
fn seed_eight_card_table_orders_every_row() {
    let o = hearts();
    let lead = hand!["4S", "4S", "5S", "5S", "6S", "6S", "7S", "7S"];
    let (lead_form, _) = classify(&o, &lead).unwrap();
    let answers = lead_form.answers();
    for row1 in [
        hand!["8S", "8S", "9S", "9S", "10S", "10S", "JS", "JS"],
        hand!["3S", "3S", "3S", "3S", "QS", "QS", "QS", "QS"],
        hand!["QS", "QS", "QS", "QS", "KS", "KS", "KS", "KS"],
    ] {
        let (f, _) = classify(&o, &row1).unwrap();
        assert!(answers.contains(&f), "row 1 (连4或2个4张): {f:?}");
    }
    let rows = [
        (
            "连3+1对子",
            hand!["8S", "8S", "9S", "9S", "10S", "10S", "QS", "QS"],
        ),
        (
            "连3+2单张",
            hand!["8S", "8S", "9S", "9S", "10S", "10S", "QS", "AS"],
        ),
        (
            "连队+两对子",
            hand!["8S", "8S", "9S", "9S", "JS", "JS", "KS", "KS"],
        ),
        (
            "连队+1对子+2单张",
            hand!["8S", "8S", "9S", "9S", "JS", "JS", "KS", "3S"],
        ),
        (
            "连队+4单张",
            hand!["8S", "8S", "9S", "9S", "JS", "KS", "3S", "5S"],
        ),
        (
            "4张+2对子",
            hand!["8S", "8S", "8S", "8S", "JS", "JS", "KS", "KS"],
        ),
        (
            "4张+1对子+2单张",
            hand!["8S", "8S", "8S", "8S", "JS", "JS", "KS", "3S"],
        ),
        (
            "4张+4单张",
            hand!["8S", "8S", "8S", "8S", "JS", "KS", "3S", "5S"],
        ),
        (
            "2个3张+2单张",
            hand!["8S", "8S", "8S", "JS", "JS", "JS", "KS", "3S"],
        ),
        (
            "3张+2对子+1单张",
            hand!["8S", "8S", "8S", "JS", "JS", "KS", "KS", "3S"],
        ),
        (
            "3张+1对子+3单张",
            hand!["8S", "8S", "8S", "JS", "JS", "KS", "3S", "5S"],
        ),
        (
            "3张+5单张",
            hand!["8S", "8S", "8S", "JS", "KS", "3S", "5S", "6S"],
        ),
        (
            "4个对子",
            hand!["8S", "8S", "JS", "JS", "KS", "KS", "3S", "3S"],
        ),
        (
            "3个对子+2单张",
            hand!["8S", "8S", "JS", "JS", "KS", "KS", "3S", "5S"],
        ),
        (
            "2个对子+4单张",
            hand!["8S", "8S", "JS", "JS", "KS", "3S", "5S", "AS"],
        ),
        (
            "1个对子+6单张",
            hand!["8S", "8S", "JS", "QS", "KS", "3S", "5S", "AS"],
        ),
        (
            "8单张",
            hand!["8S", "10S", "JS", "QS", "KS", "3S", "5S", "AS"],
        ),
    ];
    for (name, set) in &rows {
        let f = classify(&o, set).map(|(f, _)| f);
        assert!(
            f.is_none_or(|f| !answers.contains(&f)),
            "{name} is not a step-1 formation"
        );
    }
    for w in rows.windows(2) {
        let (hi, lo) = (&w[0], &w[1]);
        assert!(
            follow::score(&o, &hi.1) > follow::score(&o, &lo.1),
            "{} must rank above {}",
            hi.0,
            lo.0
        );
    }
    // Each row is what a hand holding exactly that row and one more low card must play.
    for (name, set) in &rows {
        let mut hand = set.clone();
        hand.push(c("9C"));
        let req = requirement(&o, &hand, &lead);
        assert!(req.check(&o, &hand, set).is_ok(), "{name}: {req:?}");
    }
}

#[test]
fn eight_card_table_refuses_a_lower_row_when_a_higher_one_is_held() {
    let o = hearts();
    let lead = hand!["4S", "4S", "5S", "5S", "6S", "6S", "7S", "7S"];
    // Holds 连3 (8899TT) and two quads' worth of nothing: 连3+1对子 beats 4张+2对子.
    let hand = hand![
        "8S", "8S", "9S", "9S", "10S", "10S", "QS", "QS", "3S", "3S", "3S", "3S", "AS"
    ];
    assert!(
        is_legal_follow(
            &o,
            &hand,
            &lead,
            &hand!["8S", "8S", "9S", "9S", "10S", "10S", "QS", "QS"]
        )
        .is_ok()
    );
    assert!(
        is_legal_follow(
            &o,
            &hand,
            &lead,
            &hand!["8S", "8S", "9S", "9S", "10S", "10S", "3S", "3S"]
        )
        .is_ok(),
        "the pair may come from the quad"
    );
    let err = is_legal_follow(
        &o,
        &hand,
        &lead,
        &hand!["3S", "3S", "3S", "3S", "QS", "QS", "AS", "8S"],
    )
    .unwrap_err();
    assert!(
        matches!(err, FollowError::MustKeepStructure { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("tractor of 6 cards"));
}

#[test]
fn eight_card_lead_may_be_answered_by_two_quads_or_a_longer_tractor_at_choice() {
    let o = hearts();
    let lead = hand!["4S", "4S", "5S", "5S", "6S", "6S", "7S", "7S"];
    let hand = hand![
        "8S", "8S", "9S", "9S", "10S", "10S", "JS", "JS", "3S", "3S", "3S", "3S", "QS", "QS", "QS",
        "QS", "AS"
    ];
    for play in [
        hand!["8S", "8S", "9S", "9S", "10S", "10S", "JS", "JS"],
        hand!["3S", "3S", "3S", "3S", "QS", "QS", "QS", "QS"],
    ] {
        assert!(is_legal_follow(&o, &hand, &lead, &play).is_ok(), "{play:?}");
    }
    let err = is_legal_follow(
        &o,
        &hand,
        &lead,
        &hand!["3S", "3S", "3S", "3S", "8S", "8S", "9S", "9S"],
    )
    .unwrap_err();
    assert!(matches!(err, FollowError::MustPlayFormation { .. }));
}

/// The seed's second table (首家出44445555): two quads first, then a 4-pair tractor, then the
/// eight-card table.
#[test]
fn seed_two_quad_table_takes_two_quads_then_a_four_pair_tractor() {
    let o = hearts();
    let lead = hand!["4S", "4S", "4S", "4S", "5S", "5S", "5S", "5S"];
    let quads = hand![
        "3S", "3S", "3S", "3S", "QS", "QS", "QS", "QS", "8S", "8S", "9S", "9S", "10S", "10S", "JS",
        "JS"
    ];
    assert!(
        is_legal_follow(
            &o,
            &quads,
            &lead,
            &hand!["3S", "3S", "3S", "3S", "QS", "QS", "QS", "QS"]
        )
        .is_ok()
    );
    assert!(
        is_legal_follow(
            &o,
            &quads,
            &lead,
            &hand!["8S", "8S", "9S", "9S", "10S", "10S", "JS", "JS"]
        )
        .is_err()
    );
    let tractor = hand![
        "8S", "8S", "9S", "9S", "10S", "10S", "JS", "JS", "3S", "3S", "3S", "KS"
    ];
    let req = requirement(&o, &tractor, &lead);
    assert!(matches!(
        req,
        Requirement::Structure { score, .. } if score == sc(8, 0, 0, 4)
    ));
    assert!(
        req.check(
            &o,
            &tractor,
            &hand!["8S", "8S", "9S", "9S", "10S", "10S", "JS", "JS"]
        )
        .is_ok()
    );
}

/// The seed's six-card table as far as it goes (首家出667788): 667788 or JJJQQQ at choice, then
/// 4张+对子 (AAAA+KK), then 拖拉机+对子 (7788+JJ).
#[test]
fn seed_six_card_table_as_far_as_it_goes() {
    let o = hearts();
    let lead = hand!["6S", "6S", "7S", "7S", "8S", "8S"];
    let both = hand![
        "9S", "9S", "10S", "10S", "JS", "JS", "QS", "QS", "QS", "KS", "KS", "KS", "3S"
    ];
    for play in [
        hand!["9S", "9S", "10S", "10S", "JS", "JS"],
        hand!["QS", "QS", "QS", "KS", "KS", "KS"],
        hand!["10S", "10S", "JS", "JS", "QS", "QS"],
    ] {
        assert!(is_legal_follow(&o, &both, &lead, &play).is_ok(), "{play:?}");
    }
    let quad_pair = hand![
        "AS", "AS", "AS", "AS", "KS", "KS", "7S", "7S", "8S", "8S", "JS", "JS", "3S"
    ];
    assert!(
        is_legal_follow(
            &o,
            &quad_pair,
            &lead,
            &hand!["AS", "AS", "AS", "AS", "KS", "KS"]
        )
        .is_ok()
    );
    assert!(
        is_legal_follow(
            &o,
            &quad_pair,
            &lead,
            &hand!["7S", "7S", "8S", "8S", "JS", "JS"]
        )
        .is_err()
    );
    let tractor_pair = hand!["7S", "7S", "8S", "8S", "JS", "JS", "3S", "5S"];
    assert!(
        is_legal_follow(
            &o,
            &tractor_pair,
            &lead,
            &hand!["7S", "7S", "8S", "8S", "JS", "JS"]
        )
        .is_ok()
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
/// written out directly, and the auto-play follow is always accepted.
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
    brute_force(&hearts(), &faces, &leads, 4, 7);
}

/// The same for sandaha's order (two decks, so at most pairs; 8 and 6 neighbours; no step 2).
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
    brute_force(&Order::new(SANDAHA, Some(Suit::S)), &faces, &spades, 2, 8);
    let mut no_trump = plain.to_vec();
    no_trump.push(hand!["7S", "7S", "2C", "2C"]);
    no_trump.push(hand!["RJ", "RJ", "BJ", "BJ"]);
    brute_force(&Order::new(SANDAHA, None), &faces, &no_trump, 2, 9);
}

fn brute_force(o: &Order, faces: &[Card], leads: &[Vec<Card>], copies: usize, seed: u64) {
    let mut rng = Rng(seed);
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
            let best = all
                .iter()
                .filter(|p| p.iter().all(|&x| o.eff(x) == Some(suit)))
                .map(|p| follow::score(o, p))
                .max();
            for p in &all {
                let expected = if in_suit.is_empty() {
                    true
                } else if in_suit.len() <= lead.len() {
                    p.iter().filter(|&&x| o.eff(x) == Some(suit)).count() == in_suit.len()
                } else if any_answer {
                    is_answer(p)
                } else {
                    p.iter().all(|&x| o.eff(x) == Some(suit)) && Some(follow::score(o, p)) == best
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
}
