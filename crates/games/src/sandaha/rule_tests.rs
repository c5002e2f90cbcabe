//! Every refusal names its rule (a code of `Sandaha::rule_codes`), the offending cards and a
//! Chinese sentence. `refused` checks the shape of every refusal.

use super::tests::{
    act, at_play, banker_named, cards, dealt_hand, limited, play, random_play, random_subset,
    refused, throw_table, tricks_mut,
};
use super::*;
use crate::engine::checks::{has_cjk, random_refusals};
use crate::test_rng::Rng;

fn check(e: &RuleError, rule: &str, offending: &[&str]) {
    assert_eq!(e.rule, rule, "{}", e.detail);
    assert_eq!(e.cards, cards(offending), "{rule}");
    assert!(has_cjk(&e.detail_zh), "{rule}");
}

fn play_of(list: &[&str]) -> Action {
    Action::Play { cards: cards(list) }
}

#[test]
fn a_follow_off_the_led_suit_names_the_cards_off_it() {
    let mut st = at_play(
        [&["AS", "5D"], &["9S", "RJ"], &["KD", "6S"], &["8C", "QC"]],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    play(&mut st, 0, &["AS"]);
    let e = refused(&mut st, 1, play_of(&["RJ"]));
    check(&e, "must_follow_suit", &["RJ"]);
    assert!(e.detail.starts_with("有牌必跟"), "{}", e.detail);
    assert!(e.detail_zh.starts_with("有牌必跟"), "{}", e.detail_zh);
    let e = refused(&mut st, 1, play_of(&["9S", "RJ"]));
    check(&e, "must_play_as_many_as_led", &["9S", "RJ"]);
    let e = refused(&mut st, 2, play_of(&["6S"]));
    check(&e, "not_your_turn", &[]);
}

#[test]
fn throws_name_their_rules_and_cards() {
    let mut st = throw_table();
    let e = refused(&mut st, 0, play_of(&["RJ", "7H", "2S", "AH"]));
    check(&e, "throw_not_allowed", &["RJ", "7H", "2S", "AH"]);
    assert!(e.detail_zh.contains("甩牌"), "{}", e.detail_zh);
    let e = refused(&mut st, 0, play_of(&["RJ", "AS"]));
    check(&e, "lead_one_suit", &["RJ", "AS"]);
    let e = refused(&mut st, 0, play_of(&["AH", "AS"]));
    check(&e, "lead_one_suit", &["AH", "AS"]);
    let e = refused(&mut st, 0, play_of(&[]));
    check(&e, "empty_play", &[]);

    let mut st = at_play(
        [
            &["RJ", "7H", "2S", "AS"],
            &["5S"; 4],
            &["6C"; 4],
            &["6D"; 4],
        ],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    tricks_mut(&mut st).void_in_trumps = [false, true, true, true];
    let e = refused(&mut st, 0, play_of(&["RJ", "7H"]));
    check(&e, "throw_all_trumps", &["RJ", "7H"]);
}

#[test]
fn bidding_burying_and_surrender_refusals_name_their_rules() {
    let mut st = dealt_hand();
    let e = refused(&mut st, 0, Action::Bid { value: 85 });
    check(&e, "bid_must_be_next", &[]);
    assert!(e.detail_zh.contains("叫"), "{}", e.detail_zh);
    check(&refused(&mut st, 1, Action::Pass {}), "not_your_turn", &[]);
    check(
        &refused(&mut st, 0, play_of(&["RJ"])),
        "action_not_in_phase",
        &[],
    );

    let mut st = banker_named(0);
    check(
        &refused(&mut st, 0, Action::Surrender {}),
        "surrender_after_bury",
        &[],
    );
    act(&mut st, 0, Action::Trump { suit: None });
    let hand = st.table.hand().unwrap().hands[0].clone();
    let seven = Action::Bury {
        cards: hand[..7].to_vec(),
    };
    let e = refused(&mut st, 0, seven);
    assert_eq!(e.rule, "must_bury_eight");
    assert_eq!(e.cards, hand[..7].to_vec());
    assert!(e.detail_zh.contains("埋底"), "{}", e.detail_zh);
    // Eight 大王 sent: the ones not held are named in `cards` only.
    let held = hand.iter().filter(|&&c| c == Card::BigJoker).count();
    let e = refused(
        &mut st,
        0,
        Action::Bury {
            cards: vec![Card::BigJoker; 8],
        },
    );
    assert_eq!(e.rule, "not_in_hand");
    assert_eq!(e.cards, vec![Card::BigJoker; 8 - held]);
    assert!(!e.detail.contains("RJ") && !e.detail_zh.contains("RJ"));
}

/// An action that is often refused: one of the phase's own, or another phase's.
fn random_action(st: &State, seat: SeatNo, rng: &mut Rng) -> Action {
    let Some(h) = st.table.hand() else {
        return Action::Pass {};
    };
    let hand = &h.hands[seat];
    if rng.chance(10) || hand.is_empty() {
        return match rng.below(7) {
            0 => Action::Bid {
                value: 5 * rng.below(21) as u32,
            },
            1 => Action::Pass {},
            2 => Action::Trump { suit: None },
            3 => Action::Bury { cards: Vec::new() },
            4 => Action::Surrender {},
            5 => Action::PlayOn {},
            _ => Action::Play { cards: Vec::new() },
        };
    }
    match &h.phase {
        Phase::Bidding(b) => match rng.below(4) {
            0 => Action::Pass {},
            1 => Action::Bid {
                value: b.next_bid(),
            },
            _ => Action::Bid {
                value: 5 * rng.below(21) as u32,
            },
        },
        Phase::Trump { .. } => Action::Trump {
            suit: Suit::ALL.get(rng.below(5)).copied(),
        },
        Phase::Bury { .. } => {
            let n = 7 + rng.below(3);
            let mut cards = random_subset(rng, hand, n);
            if rng.chance(30) {
                cards[0] = Card::SmallJoker;
            }
            Action::Bury { cards }
        }
        Phase::Decide { .. } => {
            if rng.chance(90) {
                Action::PlayOn {}
            } else {
                Action::Surrender {}
            }
        }
        Phase::Tricks { trump, play, .. } => {
            let leading = play.current.plays.is_empty();
            let mut cards = match rng.below(5) {
                0 if leading => tractor(&order(*trump), hand).unwrap_or_default(),
                1 if leading => {
                    // All the trumps but one: a throw short of all of them.
                    let mut trumps: Vec<Card> = hand
                        .iter()
                        .copied()
                        .filter(|&c| order(*trump).is_trump(c))
                        .collect();
                    trumps.pop();
                    trumps
                }
                0 | 1 => random_play(rng, st, seat),
                2 => {
                    let n = 1 + rng.below(4);
                    random_subset(rng, hand, n)
                }
                _ => {
                    let mut p = random_play(rng, st, seat);
                    p.pop();
                    p
                }
            };
            if rng.chance(10) {
                cards.push(Card::Paper { big: true, n: 1 });
            }
            Action::Play { cards }
        }
    }
}

/// A tractor of two pairs from `hand`, if it holds one: a lead that followers must answer with
/// as many pairs as they can.
fn tractor(order: &trick::Order, hand: &[Card]) -> Option<Vec<Card>> {
    let pairs: Vec<Card> = hand
        .iter()
        .copied()
        .filter(|&c| hand.iter().filter(|&&d| d == c).count() >= 2)
        .collect();
    pairs.iter().find_map(|&a| {
        pairs.iter().find_map(|&b| {
            let cards = vec![a, a, b, b];
            matches!(
                trick::classify(order, &cards),
                Some((trick::Formation::Tractor { .. }, _))
            )
            .then_some(cards)
        })
    })
}

#[test]
fn every_refusal_of_random_actions_has_a_listed_code() {
    let mut rng = Rng(0x5ad4_c0de);
    let seen = random_refusals::<Sandaha>(limited(), 4, 60, &mut rng, random_action);
    // Bad input, options and the time between hands are not random actions; a play is only
    // ever checked in the trick phase; the follow rule's quad-and-pair step is 升级's alone
    // (`tractors_first`); a lead of several formations is a throw here.
    let elsewhere = [
        "bad_action",
        "bad_option",
        "bad_seat_count",
        "no_hand_in_play",
        "must_play_quad_and_pair",
    ];
    for code in Sandaha::rule_codes() {
        assert!(
            seen.contains(code) || elsewhere.contains(&code),
            "{code} never refused: {seen:?}"
        );
    }
}
