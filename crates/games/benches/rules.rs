//! Hot rules paths: 扯旋 hand comparison (the server's split) and settlement, 打炸 combination
//! detection and legal-move listing, and a state's JSON round trip (done on every move).

use games::engine::parse_options;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use games::cards::Card;
use games::chexuan::Chexuan;
use games::dazha::{self, Dazha, Mode};
use games::engine::{Ctx, Game, HandStart, Stage};
use games::shuffle::shuffle;
use serde_json::json;

fn cards(cs: &[&str]) -> Vec<Card> {
    cs.iter().map(|c| Card::parse(c).unwrap()).collect()
}

/// A six-seat 扯旋 hand where everyone went all in: the state waits for the splits.
fn chexuan_showdown() -> <Chexuan as Game>::State {
    let opts = parse_options::<Chexuan>(6, &json!({})).unwrap();
    let mut deck = Chexuan::deck(&opts);
    shuffle(&mut deck, &[3; 32]);
    let mut s = Chexuan::new_match(opts, 6);
    let ctx = Ctx { now_ms: 0 };
    Chexuan::start_hand(
        &mut s,
        HandStart {
            deck,
            ctx,
            wallets: vec![1000; 6],
            scores: vec![0; 6],
        },
    );
    for seat in 0..6 {
        let a =
            serde_json::from_value(json!({"type": "set_bobo", "amount": 100 + 50 * seat})).unwrap();
        Chexuan::apply(&mut s, seat, a, ctx).unwrap();
    }
    let all_in = serde_json::from_value(json!({"type": "all_in"})).unwrap();
    while Chexuan::phase(&s) == "betting" {
        let seat = Chexuan::to_act(&s)[0];
        Chexuan::apply(&mut s, seat, Clone::clone(&all_in), ctx).unwrap();
    }
    assert_eq!(Chexuan::phase(&s), "showdown");
    s
}

fn chexuan(c: &mut Criterion) {
    let showdown = chexuan_showdown();
    c.bench_function("chexuan/server_split", |b| {
        b.iter(|| Chexuan::auto_action(black_box(&showdown), 0))
    });
    // Everyone but seat 5 has split: the last split compares all hands and settles 尾大吃皮.
    let mut last = showdown.clone();
    for seat in 0..5 {
        let a = Chexuan::auto_action(&last, seat);
        Chexuan::apply(&mut last, seat, a, Ctx { now_ms: 1 }).unwrap();
    }
    let final_split = Chexuan::auto_action(&last, 5);
    c.bench_function("chexuan/last_split_and_settlement_6_seats", |b| {
        b.iter_batched(
            || last.clone(),
            |mut s| {
                let o = Chexuan::apply(&mut s, 5, final_split.clone(), Ctx { now_ms: 2 }).unwrap();
                assert!(o.hand_end.is_some());
                o
            },
            criterion::BatchSize::SmallInput,
        )
    });
    let text = serde_json::to_string(&showdown).unwrap();
    c.bench_function("chexuan/state_json_round_trip", |b| {
        b.iter(|| {
            let s: <Chexuan as Game>::State = serde_json::from_str(black_box(&text)).unwrap();
            serde_json::to_string(&s).unwrap()
        })
    });
}

fn dazha_hand(seed: u8) -> Vec<Card> {
    let opts = parse_options::<Dazha>(4, &json!({})).unwrap();
    let mut deck = Dazha::deck(&opts);
    shuffle(&mut deck, &[seed; 32]);
    let mut hand: Vec<Card> = deck.into_iter().step_by(4).collect();
    dazha::sort_strongest_first(&mut hand);
    hand
}

fn dazha(c: &mut Criterion) {
    let plays = [
        ("single", cards(&["9S"])),
        ("pairs_run", cards(&["5S", "5H", "6S", "6D", "7C", "7C"])),
        (
            "straight",
            cards(&["3S", "4H", "5D", "6C", "7S", "8H", "9D"]),
        ),
        (
            "triples_with_twos",
            cards(&["8S", "8H", "8D", "9S", "9H", "9C", "3S", "4D", "KH", "KS"]),
        ),
        (
            "bomb_with_jokers",
            cards(&["QS", "QH", "QD", "QC", "RJ", "BJ"]),
        ),
        ("wushik", cards(&["5H", "10H", "KH"])),
    ];
    for (name, cs) in &plays {
        c.bench_function(&format!("dazha/readings/{name}"), |b| {
            b.iter(|| dazha::readings(black_box(cs), 27, Mode::Normal).unwrap())
        });
    }
    let hand = dazha_hand(7);
    c.bench_function("dazha/legal_plays/lead_27_cards", |b| {
        b.iter(|| dazha::hand_plays(black_box(&hand), None, Mode::Normal))
    });
    let pair = dazha::readings(&cards(&["4S", "4H"]), 27, Mode::Normal).unwrap()[0];
    c.bench_function("dazha/legal_plays/follow_a_pair_27_cards", |b| {
        b.iter(|| dazha::hand_plays(black_box(&hand), Some(&pair), Mode::Normal))
    });
    // A whole hand by automatic play, and the JSON round trip of a state mid-hand.
    let opts = parse_options::<Dazha>(4, &json!({})).unwrap();
    c.bench_function("dazha/auto_played_hand", |b| {
        b.iter(|| {
            let mut s = Dazha::new_match(opts.clone(), 4);
            let mut deck = Dazha::deck(&opts);
            shuffle(&mut deck, &[9; 32]);
            let ctx = Ctx { now_ms: 0 };
            Dazha::start_hand(
                &mut s,
                HandStart {
                    deck,
                    ctx,
                    wallets: vec![0; 4],
                    scores: vec![0; 4],
                },
            );
            while Dazha::stage(&s) == Stage::InHand {
                let seat = Dazha::to_act(&s)[0];
                let a = Dazha::auto_action(&s, seat);
                Dazha::apply(&mut s, seat, a, ctx).unwrap();
            }
            s
        })
    });
    let mut mid = Dazha::new_match(opts.clone(), 4);
    let mut deck = Dazha::deck(&opts);
    shuffle(&mut deck, &[11; 32]);
    Dazha::start_hand(
        &mut mid,
        HandStart {
            deck,
            ctx: Ctx { now_ms: 0 },
            wallets: vec![0; 4],
            scores: vec![0; 4],
        },
    );
    let text = serde_json::to_string(&mid).unwrap();
    c.bench_function("dazha/state_json_round_trip", |b| {
        b.iter(|| {
            let s: <Dazha as Game>::State = serde_json::from_str(black_box(&text)).unwrap();
            serde_json::to_string(&s).unwrap()
        })
    });
}

criterion_group!(benches, chexuan, dazha);
criterion_main!(benches);
