//! Whole hands from fixed decks, dealt as a `deck` option is over HTTP (card i to seat i mod 4):
//! each shows one rule with the deck and the actions an HTTP test can send as they are.

use super::*;
use crate::cards::canonical;

/// Seat 0 holds ♥66 77 88; seat 1 holds exactly ♥AAAA QQ 77 88 3 of hearts (no six-card
/// tractor), the rest spread in the deck's order.
const QUAD_PAIR_DECK: [&str; 216] = [
    "6H", "AH", "2H", "4H", "6H", "AH", "9H", "10H", "7H", "AH", "KH", "2H", "7H", "AH", "4H",
    "5H", "8H", "QH", "10H", "JH", "8H", "QH", "2H", "3H", "5H", "7H", "5H", "6H", "JH", "7H",
    "10H", "JH", "3H", "8H", "KH", "2H", "9H", "8H", "4H", "5H", "KH", "3H", "9H", "10H", "4H",
    "KC", "QH", "KH", "9H", "AC", "RJ", "BJ", "QH", "RJ", "BJ", "2S", "3H", "BJ", "2S", "3S", "6H",
    "2S", "3S", "4S", "JH", "3S", "4S", "5S", "2S", "4S", "5S", "6S", "3S", "5S", "6S", "7S", "4S",
    "6S", "7S", "8S", "5S", "7S", "8S", "9S", "6S", "8S", "9S", "10S", "7S", "9S", "10S", "JS",
    "8S", "10S", "JS", "QS", "9S", "JS", "QS", "KS", "10S", "QS", "KS", "AS", "JS", "KS", "AS",
    "2D", "QS", "AS", "2D", "3D", "KS", "2D", "3D", "4D", "AS", "3D", "4D", "5D", "2D", "4D", "5D",
    "6D", "3D", "5D", "6D", "7D", "4D", "6D", "7D", "8D", "5D", "7D", "8D", "9D", "6D", "8D", "9D",
    "10D", "7D", "9D", "10D", "JD", "8D", "10D", "JD", "QD", "9D", "JD", "QD", "KD", "10D", "QD",
    "KD", "AD", "JD", "KD", "AD", "2C", "QD", "AD", "2C", "3C", "KD", "2C", "3C", "4C", "AD", "3C",
    "4C", "5C", "2C", "4C", "5C", "6C", "3C", "5C", "6C", "7C", "4C", "6C", "7C", "8C", "5C", "7C",
    "8C", "9C", "6C", "8C", "9C", "10C", "7C", "9C", "10C", "JC", "8C", "10C", "JC", "QC", "9C",
    "JC", "QC", "KC", "10C", "QC", "KC", "AC", "JC", "KC", "AC", "RJ", "QC", "AC", "RJ", "BJ",
];

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
