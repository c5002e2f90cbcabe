//! Every refusal names its rule (a code of `Dazha::rule_codes`), the offending cards and a
//! Chinese sentence.

use super::tests::{AB, T0, cards, normal, play, play_action, refused, table};
use super::*;
use crate::engine::checks::{has_cjk, random_refusals, refusal};
use crate::test_rng::Rng;

fn check(e: &RuleError, rule: &str, offending: &[&str]) {
    refusal::<Dazha>(e);
    assert_eq!(e.rule, rule, "{}", e.detail);
    assert_eq!(e.cards, cards(offending), "{rule}");
    assert!(has_cjk(&e.detail_zh));
}

#[test]
fn a_follow_that_does_not_beat_names_the_cards_played() {
    let mut st = table(
        normal(),
        [&["9S", "9H", "3S"], &["5S", "5H", "KD"], &["6S"], &["7S"]],
        AB,
        0,
    );
    play(&mut st, 0, &["9S", "9H"]);
    let e = refused(&mut st, 1, play_action(&["5S", "5H"]));
    check(&e, "must_beat_previous", &["5S", "5H"]);
    assert!(e.detail_zh.contains("对子"), "{}", e.detail_zh);
    let e = refused(&mut st, 2, play_action(&["6S"]));
    check(&e, "not_your_turn", &[]);
}

#[test]
fn a_lone_joker_names_the_joker() {
    let mut st = table(
        normal(),
        [&["BJ", "3S", "4S"], &["5S"], &["6S"], &["7S"]],
        AB,
        0,
    );
    let e = refused(&mut st, 0, play_action(&["BJ"]));
    check(&e, "joker_only_in_bomb", &["BJ"]);
    assert!(e.detail_zh.contains("王") && e.detail_zh.contains("炸弹"));
    let e = refused(&mut st, 0, play_action(&["BJ", "3S"]));
    check(&e, "joker_only_in_bomb", &["BJ"]);
}

#[test]
fn a_bomb_that_strands_a_joker_is_refused_with_its_cards() {
    let mut st = table(
        normal(),
        [
            &["7S", "7H", "7D", "7C", "RJ", "3S"],
            &["5S"],
            &["6S"],
            &["8S"],
        ],
        AB,
        0,
    );
    let e = refused(&mut st, 0, play_action(&["7S", "7H", "7D", "7C"]));
    check(&e, "joker_would_be_stranded", &["7S", "7H", "7D", "7C"]);
}

#[test]
fn leading_refusals_name_their_rules() {
    let mut st = table(
        normal(),
        [
            &[
                "3S", "4S", "10D", "JD", "QD", "KD", "AD", "2D", "9C", "9C", "9H", "8S", "8H",
            ],
            &["5S"],
            &["6S"],
            &["7S"],
        ],
        AB,
        0,
    );
    check(
        &refused(&mut st, 0, Action::Pass {}),
        "cannot_pass_on_lead",
        &[],
    );
    check(&refused(&mut st, 0, play_action(&[])), "empty_play", &[]);
    // One 3S held, two sent: the one not held is the offending card; the sentences list none.
    let e = refused(&mut st, 0, play_action(&["3S", "3S"]));
    check(&e, "not_in_hand", &["3S"]);
    assert!(!e.detail.contains("3S") && !e.detail_zh.contains("3S"));
    let e = refused(&mut st, 0, play_action(&["JD", "QD", "KD", "AD", "2D"]));
    check(&e, "no_two_in_run", &["2D"]);
    let e = refused(&mut st, 0, play_action(&["9C", "9C", "9H"]));
    check(&e, "bare_triple_under_five", &["9C", "9C", "9H"]);
    let e = refused(&mut st, 0, play_action(&["3S", "8S"]));
    check(&e, "not_a_combination", &["3S", "8S"]);
    let as_straight = Action::Play {
        cards: cards(&["8S", "8H"]),
        reading: Some(Kind::Straight),
    };
    let e = refused(&mut st, 0, as_straight);
    check(&e, "not_playable_as", &["8S", "8H"]);
    assert!(e.detail_zh.contains("顺子"), "{}", e.detail_zh);
    st.table = Table::Waiting;
    check(
        &refused(&mut st, 0, Action::Pass {}),
        "no_hand_in_play",
        &[],
    );
}

#[test]
fn option_and_action_refusals_name_their_rules() {
    let e = crate::engine::parse_options::<Dazha>(4, &serde_json::json!({"base": 0})).unwrap_err();
    check(&e, "bad_option", &[]);
    let e = crate::engine::parse_options::<Dazha>(3, &serde_json::json!({})).unwrap_err();
    check(&e, "bad_seat_count", &[]);
    let g = crate::engine::Registered::<Dazha>::new();
    let mut st =
        crate::DynGame::new_match(&g, &serde_json::to_value(normal()).unwrap(), 4).unwrap();
    let e = st
        .apply(0, &serde_json::json!({"type": "play"}), T0)
        .unwrap_err();
    check(&e, "bad_action", &[]);
}

const KINDS: [Kind; 13] = [
    Kind::Single,
    Kind::Pair,
    Kind::Triple,
    Kind::PairsRun,
    Kind::TripleWithTwo,
    Kind::TriplesWithTwos,
    Kind::Straight,
    Kind::WushikMixed,
    Kind::WushikSuited,
    Kind::Bomb,
    Kind::JokerBomb,
    Kind::BigJokerBomb,
    Kind::SmallJokerBomb,
];

/// Ranks in play order, 2 above A.
fn strength(c: Card) -> u8 {
    match c.rank() {
        Some(2) => 15,
        Some(r) => r,
        None => 16,
    }
}

/// A play that is often refused: random cards of the hand, a rank's group (jokers added now
/// and then), a run, cards not held, a foreign card, nothing, or a pass.
fn random_action(st: &State, seat: SeatNo, rng: &mut Rng) -> Action {
    let hand = st
        .table
        .hand()
        .map(|h| h.hands[seat].clone())
        .unwrap_or_default();
    let reading = rng.chance(15).then(|| KINDS[rng.below(KINDS.len())]);
    let pick = |rng: &mut Rng| hand[rng.below(hand.len())];
    let cards = match rng.below(10) {
        _ if hand.is_empty() => Vec::new(),
        0 => return Action::Pass {},
        1 => Vec::new(),
        2 => vec![pick(rng), Card::Paper { big: false, n: 3 }],
        3 => {
            let deck = Dazha::deck(&st.opts);
            (0..1 + rng.below(3))
                .map(|_| deck[rng.below(deck.len())])
                .collect()
        }
        4 | 5 => {
            let r = pick(rng).rank();
            let jokers = rng.chance(30);
            hand.iter()
                .copied()
                .filter(|c| c.rank() == r || (jokers && c.rank().is_none()))
                .collect()
        }
        6 | 7 => {
            let mut ranks: Vec<Card> = Vec::new();
            for &c in &hand {
                if c.rank().is_some() && !ranks.iter().any(|d| d.rank() == c.rank()) {
                    ranks.push(c);
                }
            }
            ranks.sort_by_key(|&c| strength(c));
            let len = (5 + rng.below(4)).min(ranks.len());
            let start = rng.below(ranks.len() - len + 1);
            ranks[start..start + len].to_vec()
        }
        _ => {
            let mut rest = hand.clone();
            (0..1 + rng.below(6.min(hand.len())))
                .map(|_| rest.swap_remove(rng.below(rest.len())))
                .collect()
        }
    };
    Action::Play { cards, reading }
}

#[test]
fn every_refusal_of_random_plays_has_a_listed_code() {
    let mut rng = Rng(0xda2a_c0de);
    let mut seen = random_refusals::<Dazha>(normal(), 4, 30, &mut rng, random_action);
    let zhashen = super::tests::zhashen();
    seen.extend(random_refusals::<Dazha>(
        zhashen,
        4,
        10,
        &mut rng,
        random_action,
    ));
    // A foreign card is refused as not held before it is read; bad input, options and the
    // time between hands are not random plays.
    let elsewhere = [
        "foreign_card",
        "bad_action",
        "bad_option",
        "bad_seat_count",
        "no_hand_in_play",
    ];
    for code in Dazha::rule_codes() {
        assert!(
            seen.contains(code) || elsewhere.contains(&code),
            "{code} never refused: {seen:?}"
        );
    }
}
