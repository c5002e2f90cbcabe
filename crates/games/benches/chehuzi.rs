//! 扯胡子 win search, run on every draw for every seat: the worst case is a full hand of 21
//! cards holding all four W, where the W can stand for any card in any meld.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use games::cards::Card;
use games::chehuzi::self_draw_score;

fn cards(cs: &[&str]) -> Vec<Card> {
    cs.iter().map(|c| Card::parse(c).unwrap()).collect()
}

fn win_search(c: &mut Criterion) {
    // Three W in hand and a fourth drawn: wins many ways (三王闯王 among them).
    let winning = cards(&[
        "b1", "b1", "b1", "b3", "b3", "b3", "b4", "b4", "b4", "s3", "s4", "s5", "s4", "s5", "s6",
        "s9", "s9", "W", "W", "W",
    ]);
    // Scattered cards with three W and a drawn W: no win, so every split is tried.
    let scattered = cards(&[
        "s1", "s3", "s5", "s7", "s9", "b2", "b4", "b6", "b8", "b10", "s2", "s6", "b1", "b5", "b9",
        "s10", "b3", "W", "W", "W",
    ]);
    let wild = Card::Wild;
    assert!(self_draw_score(&winning, wild, 4).is_some());
    c.bench_function("chehuzi_win_21_cards_4w_winning", |b| {
        b.iter(|| self_draw_score(black_box(&winning), wild, 4))
    });
    c.bench_function("chehuzi_win_21_cards_4w_scattered", |b| {
        b.iter(|| self_draw_score(black_box(&scattered), wild, 4))
    });
}

criterion_group!(benches, win_search);
criterion_main!(benches);
