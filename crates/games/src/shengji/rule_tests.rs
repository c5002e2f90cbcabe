//! Every refusal names its rule (a code of `Shengji::rule_codes`), the offending cards and a
//! Chinese sentence.

use super::tests::{at, playing, random_lead, rigged, shuffled, started};
use super::*;
use crate::engine::checks::{has_cjk, random_refusals, refusal};
use crate::fixtures::QUAD_PAIR_DECK;
use crate::test_rng::Rng;

fn cards(list: &[&str]) -> Vec<Card> {
    list.iter().map(|c| Card::parse(c).unwrap()).collect()
}

fn refused(s: &mut State, seat: SeatNo, action: Action) -> RuleError {
    let before = serde_json::to_string(&*s).unwrap();
    let e = Shengji::apply(s, seat, action, at(1)).expect_err("refused");
    assert_eq!(
        serde_json::to_string(&*s).unwrap(),
        before,
        "state unchanged"
    );
    refusal::<Shengji>(&e);
    e
}

fn check(e: &RuleError, rule: &str, offending: &[&str]) {
    assert_eq!(e.rule, rule, "{}", e.detail);
    assert_eq!(e.cards, cards(offending), "{rule}");
    assert!(has_cjk(&e.detail_zh), "{rule}");
}

fn declare(list: &[&str]) -> Action {
    Action::Declare { cards: cards(list) }
}

fn play(list: &[&str]) -> Action {
    Action::Play { cards: cards(list) }
}

#[test]
fn declaration_refusals_name_the_cards_shown() {
    let mut s = started(rigged(
        [&["2H", "2S", "3H", "3H"], &["2S", "2S"], &["2D", "2D"], &[]],
        2,
    ));
    let e = refused(&mut s, 0, declare(&["2H", "2S"]));
    check(&e, "declare_identical_twos", &["2H", "2S"]);
    assert!(e.detail_zh.contains("2"), "{}", e.detail_zh);
    let e = refused(&mut s, 0, declare(&["3H", "3H"]));
    check(&e, "declare_identical_twos", &["3H", "3H"]);
    let held = s.table.hand().unwrap().hands[0]
        .iter()
        .filter(|&&c| c == Card::new(2, Suit::H))
        .count();
    let e = refused(
        &mut s,
        0,
        Action::Declare {
            cards: vec![Card::new(2, Suit::H); 4],
        },
    );
    assert_eq!(e.rule, "not_in_hand");
    assert_eq!(e.cards, vec![Card::new(2, Suit::H); 4 - held]);
    Shengji::apply(&mut s, 0, declare(&["2H"]), at(1)).unwrap();
    Shengji::apply(&mut s, 1, declare(&["2S", "2S"]), at(1)).unwrap();
    let e = refused(&mut s, 2, declare(&["2D", "2D"]));
    check(&e, "declare_more_to_override", &["2D", "2D"]);
    assert!(e.detail_zh.contains("反主"), "{}", e.detail_zh);
    let e = refused(&mut s, 3, Action::Pass {});
    check(&e, "not_your_turn", &[]);
    // The seat standing is never asked while its own declaration stands; were it asked, it
    // could not override itself.
    let Phase::Declaring(d) = &mut s.table.hand_mut().unwrap().phase else {
        panic!("declaring")
    };
    d.turn = 1;
    let e = refused(&mut s, 1, declare(&["2S", "2S"]));
    check(&e, "no_self_override", &["2S", "2S"]);
    assert!(e.detail_zh.contains("自反主"), "{}", e.detail_zh);
}

#[test]
fn phase_and_lead_refusals_name_their_rules() {
    let mut s = started(shuffled(14));
    let e = refused(&mut s, 0, play(&[]));
    check(&e, "action_not_in_phase", &[]);
    assert!(e.detail_zh.contains("叫主"), "{}", e.detail_zh);
    for seat in 0..4 {
        Shengji::apply(&mut s, seat, Action::Pass {}, at(1)).unwrap();
    }
    check(
        &refused(&mut s, 0, Action::Pass {}),
        "action_not_in_phase",
        &[],
    );
    let hand = s.table.hand().unwrap().hands[0].clone();
    // Sorted strongest first: the first card is a trump, the last a plain card.
    let mixed = vec![hand[0], hand[53]];
    let e = refused(
        &mut s,
        0,
        Action::Play {
            cards: mixed.clone(),
        },
    );
    assert_eq!((e.rule, &e.cards), ("lead_one_suit", &mixed));
    assert!(playing(&s).order().is_trump(hand[0]));
    check(&refused(&mut s, 0, play(&[])), "empty_play", &[]);
    s.table = Table::Waiting;
    check(&refused(&mut s, 0, Action::Pass {}), "not_your_turn", &[]);
}

#[test]
fn a_six_card_follow_without_the_quad_and_pair_names_the_cards_played() {
    let mut s = Shengji::new_match(Options::default(), 4);
    Shengji::start_hand(
        &mut s,
        HandStart {
            deck: cards(&QUAD_PAIR_DECK),
            ctx: at(0),
            wallets: vec![0; 4],
            scores: vec![0; 4],
        },
    );
    for seat in 0..4 {
        Shengji::apply(&mut s, seat, Action::Pass {}, at(1)).unwrap();
    }
    Shengji::apply(
        &mut s,
        0,
        play(&["6H", "6H", "7H", "7H", "8H", "8H"]),
        at(1),
    )
    .unwrap();
    let follow = ["7H", "7H", "8H", "8H", "QH", "QH"];
    let e = refused(&mut s, 1, play(&follow));
    check(&e, "must_play_quad_and_pair", &follow);
    assert!(e.detail_zh.contains("4个+1个对子"), "{}", e.detail_zh);
    let e = refused(&mut s, 1, play(&["AH", "AH", "AH", "AH", "QH"]));
    check(
        &e,
        "must_play_as_many_as_led",
        &["AH", "AH", "AH", "AH", "QH"],
    );
    let order = playing(&s).order();
    let off: Vec<Card> = s.table.hand().unwrap().hands[1]
        .iter()
        .copied()
        .filter(|&c| order.eff(c) != Some(trick::EffSuit::Plain(Suit::H)))
        .take(2)
        .collect();
    let mut follow = cards(&["AH", "AH", "AH", "AH"]);
    follow.extend(&off);
    let e = refused(&mut s, 1, Action::Play { cards: follow });
    assert_eq!(e.rule, "must_follow_suit");
    assert_eq!(e.cards, off, "only the cards off the led suit");
}

fn random_subset(rng: &mut Rng, from: &[Card], n: usize) -> Vec<Card> {
    let mut pool = from.to_vec();
    (0..n.min(pool.len()))
        .map(|_| pool.swap_remove(rng.below(pool.len())))
        .collect()
}

/// An action that is often refused: declarations of any cards, leads of any shape, follows
/// of the led suit's cards or any others.
fn random_action(s: &State, seat: SeatNo, rng: &mut Rng) -> Action {
    let Some(h) = s.table.hand() else {
        return Action::Pass {};
    };
    let hand = &h.hands[seat];
    if hand.is_empty() || rng.chance(10) {
        return match rng.below(3) {
            0 => Action::Pass {},
            1 => Action::Declare { cards: Vec::new() },
            _ => Action::Play { cards: Vec::new() },
        };
    }
    match &h.phase {
        Phase::Declaring(_) => match rng.below(4) {
            0 => Action::Pass {},
            1 => {
                let n = 1 + rng.below(3);
                Action::Declare {
                    cards: random_subset(rng, hand, n),
                }
            }
            _ => {
                let suit = Suit::ALL[rng.below(4)];
                Action::Declare {
                    cards: vec![Card::new(2, suit); 1 + rng.below(5)],
                }
            }
        },
        Phase::Playing(p) => {
            let order = p.order();
            let cards = match p.trick.first() {
                None if rng.chance(70) => random_lead(rng, &order, hand),
                None => {
                    let n = 1 + rng.below(4);
                    random_subset(rng, hand, n)
                }
                Some(lead) if rng.chance(30) => random_subset(rng, hand, lead.cards.len()),
                Some(lead) => {
                    let n = lead.cards.len() + usize::from(rng.chance(10));
                    let suit = order.eff(lead.cards[0]);
                    let lane: Vec<Card> = hand
                        .iter()
                        .copied()
                        .filter(|&c| order.eff(c) == suit)
                        .collect();
                    let mut play = random_subset(rng, &lane, n);
                    let mut rest = hand.clone();
                    crate::cards::remove_cards(&mut rest, &play);
                    let more = n - play.len() + usize::from(rng.chance(20));
                    play.extend(random_subset(rng, &rest, more));
                    play.truncate(n);
                    play
                }
            };
            Action::Play { cards }
        }
    }
}

#[test]
fn every_refusal_of_random_actions_has_a_listed_code() {
    let mut rng = Rng(0x5e9_c0de);
    let seen = random_refusals::<Shengji>(Options::default(), 4, 20, &mut rng, random_action);
    // Bad input, options and the time between hands are not random actions (the seat to act
    // is checked first); a seat is never asked while its own declaration stands; a six-card
    // tractor led to a seat holding a quad and a pair but no six-card tractor is too rare (the
    // fixed deck above shows it).
    let elsewhere = [
        "bad_action",
        "bad_option",
        "bad_seat_count",
        "no_hand_in_play",
        "no_self_override",
        "must_play_quad_and_pair",
    ];
    for code in Shengji::rule_codes() {
        assert!(
            seen.contains(code) || elsewhere.contains(&code),
            "{code} never refused: {seen:?}"
        );
    }
}
