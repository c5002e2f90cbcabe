//! Every refusal names its rule (a code of `Chexuan::rule_codes`), the offending cards and a
//! Chinese sentence. `Table::refuse` checks the shape of every refusal and that it names no
//! card the seat may not see.

use serde_json::json;

use super::tests::{Table, betting_table, cards, opts, random_any, seed_abc, split_of};
use super::*;
use crate::engine::RuleErrorKind;
use crate::engine::checks::random_refusals;
use crate::test_rng::Rng;

fn check(e: &RuleError, kind: RuleErrorKind, rule: &str) {
    assert_eq!((e.kind, e.rule), (kind, rule), "{}", e.detail);
    assert!(e.cards.is_empty(), "{rule} names no cards");
}

#[test]
fn bobo_refusals_name_their_rules() {
    let mut t = Table::new(opts(json!({})), vec![1000, 500]);
    t.deal(deck_cards());
    let e = t.refuse(1, Action::SetBobo { amount: 99 });
    check(&e, RuleErrorKind::Illegal, "bobo_below_min");
    assert!(e.detail_zh.contains("簸簸"), "{}", e.detail_zh);
    let e = t.refuse(1, Action::SetBobo { amount: 501 });
    check(&e, RuleErrorKind::InsufficientCoins, "bobo_over_wallet");
    let e = t.refuse(1, Action::Check {});
    check(&e, RuleErrorKind::Illegal, "action_not_in_phase");
    t.act(1, Action::SetBobo { amount: 500 });
    let e = t.refuse(1, Action::SetBobo { amount: 100 });
    check(&e, RuleErrorKind::NotYourTurn, "not_your_turn");
}

#[test]
fn betting_refusals_name_their_rules() {
    let mut t = betting_table(2);
    assert_eq!(t.turn(), 1);
    let e = t.refuse(1, Action::Raise { to: 9 });
    check(&e, RuleErrorKind::Illegal, "raise_too_small");
    assert!(e.detail_zh.contains("大"), "{}", e.detail_zh);
    let e = t.refuse(1, Action::Raise { to: 91 });
    check(&e, RuleErrorKind::InsufficientCoins, "raise_over_bobo");
    let e = t.refuse(1, Action::Call {});
    check(&e, RuleErrorKind::Illegal, "nothing_to_call");
    let e = t.refuse(1, split_of(&cards(&["QH", "QD", "2D", "4S"])));
    check(&e, RuleErrorKind::Illegal, "action_not_in_phase");
    let e = t.refuse(0, Action::Fold {});
    check(&e, RuleErrorKind::NotYourTurn, "not_your_turn");
    t.act(1, Action::Raise { to: 10 });
    let e = t.refuse(0, Action::Check {});
    check(&e, RuleErrorKind::Illegal, "cannot_check_after_bet");
    assert!(e.detail_zh.contains("休"), "{}", e.detail_zh);
}

#[test]
fn a_call_or_raise_beyond_the_bobo_names_its_rule() {
    let mut t = Table::new(opts(json!({})), vec![1000; 2]);
    t.deal(deck_cards());
    t.bobos(&[100, 300]);
    t.act(1, Action::Raise { to: 200 });
    let e = t.refuse(0, Action::Call {});
    check(&e, RuleErrorKind::InsufficientCoins, "call_over_bobo");
    assert!(e.detail_zh.contains("敲"), "{}", e.detail_zh);
    t.act(0, Action::AllIn {});

    let mut t = Table::new(opts(json!({})), vec![1000; 2]);
    t.deal(deck_cards());
    t.bobos(&[300, 100]);
    t.act(1, Action::AllIn {});
    let e = t.refuse(0, Action::Raise { to: 200 });
    check(&e, RuleErrorKind::Illegal, "raise_unanswerable");
}

#[test]
fn a_split_of_cards_not_held_names_them() {
    let hands = seed_abc();
    let mut t = Table::new(opts(json!({})), vec![1000; 3]);
    t.deal(deck_for_hands(&hands));
    t.bobos(&[100, 100, 100]);
    while t.state.phase() == Phase::Betting {
        let s = t.turn();
        t.act(s, Action::AllIn {});
    }
    // Seat 0 holds QH QD 2D 4S: a second QH is not held.
    let e = t.refuse(0, split_of(&cards(&["QH", "QH", "2D", "4S"])));
    assert_eq!(e.rule, "not_in_hand");
    assert_eq!(e.cards, cards(&["QH"]));
    assert!(!e.detail_zh.is_empty());
    let e = t.refuse(0, Action::Check {});
    check(&e, RuleErrorKind::Illegal, "action_not_in_phase");
    assert!(e.detail_zh.contains("头牌"), "{}", e.detail_zh);
}

#[test]
fn between_hands_a_refusal_says_no_hand_is_in_play() {
    let mut t = Table::new(opts(json!({})), vec![1000; 2]);
    let e = t.refuse(0, Action::Fold {});
    check(&e, RuleErrorKind::NotYourTurn, "no_hand_in_play");
}

#[test]
fn every_refusal_of_random_actions_has_a_listed_code() {
    let mut rng = Rng(0xc4e5_c0de);
    let mut seen = std::collections::BTreeSet::new();
    for seats in [2, 3, 6] {
        let options = opts(json!({ "ante": 10, "min_bobo": 100 }));
        seen.extend(random_refusals::<Chexuan>(
            options,
            seats,
            60,
            &mut rng,
            |_, _, rng| random_any(rng, seats).1,
        ));
    }
    // Bad input, options and the time between hands are not random actions; a seat with an
    // empty 簸簸 is never asked to act; the largest 簸簸 is beyond any wallet.
    let elsewhere = [
        "bad_action",
        "bad_option",
        "bad_seat_count",
        "no_hand_in_play",
        "bobo_empty",
        "bobo_over_max",
    ];
    for code in Chexuan::rule_codes() {
        assert!(
            seen.contains(code) || elsewhere.contains(&code),
            "{code} never refused: {seen:?}"
        );
    }
}
