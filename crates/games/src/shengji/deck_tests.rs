//! Whole hands from fixed decks, dealt as a `deck` option is over HTTP (card i to seat i mod 4):
//! each shows one rule with the deck and the actions an HTTP test can send as they are.

use super::*;
use crate::cards::canonical;
use crate::fixtures::QUAD_PAIR_DECK;

fn cards(list: &[&str]) -> Vec<Card> {
    list.iter().map(|c| Card::parse(c).unwrap()).collect()
}

fn act(s: &mut State, seat: SeatNo, action: Action) -> Result<Outcome, RuleError> {
    Shengji::apply(s, seat, action, Ctx { now_ms: 1 })
}

fn play(list: &[&str]) -> Action {
    Action::Play { cards: cards(list) }
}

/// Four passes (spades trump, seat 0 deals and leads), seat 0 leads ♥667788: seat 1 is shown
/// the quad-with-a-pair shape, its 7788+QQ is refused naming the rule, and AAAA+QQ is taken.
#[test]
fn a_six_card_follow_of_a_shorter_tractor_is_refused_for_a_held_quad_and_pair() {
    let deck = cards(&QUAD_PAIR_DECK);
    assert_eq!(
        canonical(&deck),
        canonical(&Shengji::deck(&Options::default()))
    );
    let mut s = Shengji::new_match(Options::default(), 4);
    Shengji::start_hand(
        &mut s,
        HandStart {
            deck,
            ctx: Ctx { now_ms: 0 },
            wallets: vec![0; 4],
            scores: vec![0; 4],
        },
    );
    for seat in 0..4 {
        act(&mut s, seat, Action::Pass {}).unwrap();
    }
    act(&mut s, 0, play(&["6H", "6H", "7H", "7H", "8H", "8H"])).unwrap();
    assert_eq!(
        Shengji::legal_actions(&s, 1),
        vec![Legal::Play {
            count: Some(6),
            lead: false,
            shapes: vec![Shape::QuadAndPair {}],
        }]
    );
    let json = serde_json::to_value(Shengji::legal_actions(&s, 1)).unwrap();
    assert_eq!(json[0]["shapes"][0]["shape"], "quad_and_pair");
    let before = serde_json::to_string(&s).unwrap();
    let err = act(&mut s, 1, play(&["7H", "7H", "8H", "8H", "QH", "QH"])).unwrap_err();
    assert_eq!(err.kind, crate::engine::RuleErrorKind::Illegal);
    assert!(err.detail.contains("4个+1个对子"), "{}", err.detail);
    assert_eq!(
        serde_json::to_string(&s).unwrap(),
        before,
        "a refusal changes nothing"
    );
    act(&mut s, 1, play(&["AH", "AH", "AH", "AH", "QH", "QH"])).unwrap();
    assert_eq!(Shengji::to_act(&s), vec![2]);
}
