//! The seed's follow tables in its own cards (eight-card, two-quad and six-card leads) and the
//! partition reading of a set. Shared fixtures are `tests`'.

// Fixtures are written with `hand!`, which builds a Vec: borrowing one reads best.
#![allow(clippy::useless_vec)]

use super::tests::{SHENGJI, hearts, sc};
use super::*;
use crate::cards::Suit;
use crate::hand;

/// One example set per row of the seed's eight-card table below row 1 (the seed names the rows'
/// shapes, not their cards), highest first, in spades.
fn eight_card_rows() -> Vec<(&'static str, Vec<Card>)> {
    vec![
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
    ]
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
    let rows = eight_card_rows();
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
    // Each row is what a hand holding that row and one more spade must play: its structure is
    // the best the hand allows.
    for (name, set) in &rows {
        let hand = with_a_spare_spade(&o, set);
        let req = requirement(&o, &hand, &lead);
        assert_eq!(
            req,
            Requirement::Structure {
                count: 8,
                suit: EffSuit::Plain(Suit::S),
                score: follow::score(&o, set)
            },
            "{name}"
        );
        assert!(req.check(&o, &hand, set).is_ok(), "{name}: {req:?}");
    }
}

/// `set` and one more spade that adds no structure to it: a face it lacks, beside no face it
/// holds twice. (Cards of another suit would leave the hand short of spades, which must then
/// all be played whatever their structure.)
fn with_a_spare_spade(o: &Order, set: &[Card]) -> Vec<Card> {
    let twice = |p: u8| {
        set.iter()
            .any(|&x| o.pos(x) == p && set.iter().filter(|&&y| y == x).count() >= 2)
    };
    let spare = (3..=crate::cards::ACE)
        .map(|r| Card::new(r, Suit::S))
        .find(|&x| {
            !set.contains(&x) && !twice(o.pos(x) + 1) && (o.pos(x) == 0 || !twice(o.pos(x) - 1))
        })
        .expect("a spare spade");
    let mut hand = set.to_vec();
    hand.push(spare);
    hand
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
/// rows of the eight-card table (the seed lists the same rows after 1连4).
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
    // Then each row of the eight-card table, ordered as there (step 3): a hand holding a row and
    // one more low card plays that row.
    let rows = eight_card_rows();
    for (name, set) in &rows {
        let hand = with_a_spare_spade(&o, set);
        assert_eq!(
            requirement(&o, &hand, &lead),
            Requirement::Structure {
                count: 8,
                suit: EffSuit::Plain(Suit::S),
                score: follow::score(&o, set)
            },
            "{name}"
        );
    }
}

/// Spades trump: hearts are a plain suit, as in the issue's ♥ examples.
fn spades() -> Order {
    Order::new(SHENGJI, Some(Suit::S))
}

/// The seed's six-card table in its own cards (首家出667788): 667788 or JJJQQQ at choice
/// (出牌可选), then 4个+1个对子 (AAAA+QQ), then 拖拉机+1个对子 (7788+JJ). Each row is what a hand
/// holding it and the rows below must play; a lower row is refused, naming the rule.
#[test]
fn seed_six_card_table_in_the_seeds_cards() {
    let o = spades();
    let lead = hand!["6H", "6H", "7H", "7H", "8H", "8H"];
    let row1 = [
        hand!["6H", "6H", "7H", "7H", "8H", "8H"],
        hand!["JH", "JH", "JH", "QH", "QH", "QH"],
    ];
    let quad_pair = hand!["AH", "AH", "AH", "AH", "QH", "QH"];
    let tractor_pair = hand!["7H", "7H", "8H", "8H", "JH", "JH"];
    // Row 1: holding both, either may go; nothing else.
    let both = hand![
        "6H", "6H", "7H", "7H", "8H", "8H", "JH", "JH", "JH", "QH", "QH", "QH", "3H"
    ];
    for play in &row1 {
        assert!(is_legal_follow(&o, &both, &lead, play).is_ok(), "{play:?}");
    }
    assert!(matches!(
        is_legal_follow(&o, &both, &lead, &hand!["6H", "6H", "7H", "7H", "JH", "JH"]),
        Err(FollowError::MustPlayFormation { .. })
    ));
    // Row 2: ♥AAAA QQ 7788 and no six-card tractor: the quad with a pair, not 7788 + a pair.
    let hand = hand![
        "AH", "AH", "AH", "AH", "QH", "QH", "7H", "7H", "8H", "8H", "JH", "JH", "3H"
    ];
    assert_eq!(
        requirement(&o, &hand, &lead),
        Requirement::QuadAndPair {
            count: 6,
            suit: EffSuit::Plain(Suit::H)
        }
    );
    assert!(is_legal_follow(&o, &hand, &lead, &quad_pair).is_ok());
    assert!(
        is_legal_follow(&o, &hand, &lead, &hand!["AH", "AH", "AH", "AH", "7H", "7H"]).is_ok(),
        "any pair goes with the quad"
    );
    let err = is_legal_follow(&o, &hand, &lead, &tractor_pair).unwrap_err();
    assert_eq!(err, FollowError::MustPlayQuadAndPair);
    assert!(err.to_string().contains("4个+1个对子"), "{err}");
    // The automatic follow: the lowest quad and the lowest pair held exactly twice.
    assert_eq!(
        best_follow(&o, &hand, &lead),
        hand!["AH", "AH", "AH", "AH", "7H", "7H"]
    );
    // Row 3: no quad: 7788 + JJ, the shorter tractor with a pair.
    let hand = hand!["7H", "7H", "8H", "8H", "JH", "JH", "3H", "5H"];
    assert_eq!(
        requirement(&o, &hand, &lead),
        Requirement::Structure {
            count: 6,
            suit: EffSuit::Plain(Suit::H),
            score: sc(4, 0, 0, 3)
        }
    );
    assert!(is_legal_follow(&o, &hand, &lead, &tractor_pair).is_ok());
}

/// Against a six-card triple-tractor lead (JJJQQQ) the pair-tractor 667788 is no step-1
/// formation, but it is a six-card tractor: it still comes before the quad with a pair.
#[test]
fn a_six_card_tractor_comes_before_a_quad_with_a_pair() {
    let o = spades();
    let lead = hand!["JH", "JH", "JH", "QH", "QH", "QH"];
    let hand = hand![
        "6H", "6H", "7H", "7H", "8H", "8H", "AH", "AH", "AH", "AH", "QH", "QH", "3H"
    ];
    let req = requirement(&o, &hand, &lead);
    assert!(
        matches!(req, Requirement::Structure { score, .. } if score.tractor == 6),
        "{req:?}"
    );
    assert!(is_legal_follow(&o, &hand, &lead, &hand!["6H", "6H", "7H", "7H", "8H", "8H"]).is_ok());
    assert!(matches!(
        is_legal_follow(&o, &hand, &lead, &hand!["AH", "AH", "AH", "AH", "QH", "QH"]),
        Err(FollowError::MustKeepStructure { .. })
    ));
}

/// A set is read as a partition, each card in one part: 33344+X is the tractor 3344 with two
/// singles (or 333+44 with one), never a tractor, a triple and a pair at once. So a follower
/// holding 333 44 99 plays 4433+99, a tractor and a pair.
#[test]
fn a_set_is_read_as_a_partition_so_a_tractor_and_a_pair_beat_a_triple_inside_a_tractor() {
    let o = spades();
    assert_eq!(
        follow::score(&o, &hand!["3H", "3H", "3H", "4H", "4H", "9H"]),
        sc(4, 0, 0, 2)
    );
    assert_eq!(
        follow::score(&o, &hand!["4H", "4H", "3H", "3H", "9H", "9H"]),
        sc(4, 0, 0, 3)
    );
    // A quad beside a pair: the tractor 3344 and the quad's other pair.
    assert_eq!(
        follow::score(&o, &hand!["3H", "3H", "3H", "3H", "4H", "4H"]),
        sc(4, 0, 0, 3)
    );
    let lead = hand!["JH", "JH", "QH", "QH", "KH", "KH"];
    let hand = hand!["3H", "3H", "3H", "4H", "4H", "9H", "9H", "5D"];
    assert!(is_legal_follow(&o, &hand, &lead, &hand!["4H", "4H", "3H", "3H", "9H", "9H"]).is_ok());
    let err =
        is_legal_follow(&o, &hand, &lead, &hand!["3H", "3H", "3H", "4H", "4H", "9H"]).unwrap_err();
    assert_eq!(
        err,
        FollowError::MustKeepStructure {
            need: sc(4, 0, 0, 3)
        }
    );
    assert_eq!(
        best_follow(&o, &hand, &lead),
        hand!["3H", "3H", "4H", "4H", "9H", "9H"]
    );
}
