//! 升级 following with structure: checking and choosing a follow for a full 54-card hand
//! against an eight-card pair-tractor lead (the largest search the rule asks for in practice).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use games::cards::{Card, Suit};
use games::engine::Game;
use games::shengji::{Options, RANKS, Shengji};
use games::shuffle::shuffle;
use games::trick::{Order, best_follow, is_legal_follow, requirement};

fn cards(cs: &[&str]) -> Vec<Card> {
    cs.iter().map(|c| Card::parse(c).unwrap()).collect()
}

/// Seat 0's 54 cards of a shuffled four-deck pack.
fn dealt_hand(seed: u8) -> Vec<Card> {
    let mut deck = Shengji::deck(&Options::default());
    shuffle(&mut deck, &[seed; 32]);
    deck.into_iter().step_by(4).collect()
}

/// 20 spades full of short tractors, triples and gaps (no four-pair tractor, no quad), and 34
/// trumps: the structure search has many tractors to lay down and groups to fill around them.
fn spade_rich_hand() -> Vec<Card> {
    let mut hand = cards(&[
        "3S", "3S", "3S", "4S", "4S", "6S", "6S", "6S", "7S", "7S", "9S", "9S", "9S", "10S", "10S",
        "QS", "QS", "QS", "KS", "KS",
    ]);
    let trumps = [
        "RJ", "RJ", "BJ", "BJ", "2H", "2H", "2S", "2D", "2C", "AH", "AH", "KH", "KH", "QH", "QH",
        "JH", "JH", "JH", "10H", "10H", "9H", "9H", "8H", "7H", "7H", "6H", "5H", "5H", "4H", "4H",
        "3H", "3H", "3H", "3H",
    ];
    hand.extend(cards(&trumps));
    assert_eq!(hand.len(), 54);
    hand
}

fn follow(c: &mut Criterion) {
    let order = Order::new(RANKS, Some(Suit::H));
    let cases = [
        (
            "spade_rich_hand_vs_spade_tractor",
            spade_rich_hand(),
            cards(&["5S", "5S", "6S", "6S", "7S", "7S", "8S", "8S"]),
        ),
        (
            "dealt_hand_vs_trump_tractor",
            dealt_hand(7),
            cards(&["3H", "3H", "4H", "4H", "5H", "5H", "6H", "6H"]),
        ),
        (
            "dealt_hand_vs_side_tractor",
            dealt_hand(9),
            cards(&["3D", "3D", "4D", "4D", "5D", "5D", "6D", "6D"]),
        ),
    ];
    for (name, hand, lead) in &cases {
        let best = best_follow(&order, hand, lead);
        assert_eq!(is_legal_follow(&order, hand, lead, &best), Ok(()));
        c.bench_function(&format!("shengji/requirement/{name}"), |b| {
            b.iter(|| requirement(black_box(&order), black_box(hand), black_box(lead)))
        });
        c.bench_function(&format!("shengji/is_legal_follow/{name}"), |b| {
            b.iter(|| is_legal_follow(&order, black_box(hand), black_box(lead), black_box(&best)))
        });
        c.bench_function(&format!("shengji/best_follow/{name}"), |b| {
            b.iter(|| best_follow(&order, black_box(hand), black_box(lead)))
        });
    }
}

criterion_group!(benches, follow);
criterion_main!(benches);
