//! Claims on drawn cards: no 胡 on a card a forced 偎 or 提 put down (the drawer included), and
//! equal claims on a stock card settled from the drawer (自摸) on in turn. The two fixed decks
//! deal as a `deck` option does over HTTP (seat 0 deals hand 1: card i < 60 to seat i mod 3,
//! card 60 to seat 0, the stock from card 61), so an HTTP test can send the same actions.

use serde_json::json;

use super::melds::sort_hand;
use super::scoring::{Taken, WinCase, best_win};
use super::tests::put_hand;
use super::*;
use crate::engine::{Visibility, parse_options};
use crate::fixtures::{WEI_DECK, ZIMO_DECK};

const T0: Ctx = Ctx { now_ms: 1_000_000 };

fn dealt(deck: &[&str]) -> State {
    let o = parse_options::<Chehuzi>(3, &json!({})).unwrap();
    let deck: Vec<Card> = deck.iter().map(|c| Card::parse(c).unwrap()).collect();
    let mut full = Chehuzi::deck(&o);
    let mut sorted = deck.clone();
    full.sort_by_key(|c| c.to_string());
    sorted.sort_by_key(|c| c.to_string());
    assert_eq!(sorted, full, "the deck holds each card of the game once");
    let mut st = Chehuzi::new_match(o, 3);
    Chehuzi::start_hand(
        &mut st,
        HandStart {
            deck,
            ctx: T0,
            wallets: vec![0; 3],
            scores: vec![0; 3],
        },
    );
    st
}

fn act(st: &mut State, seat: SeatNo, a: Action) -> Outcome {
    let dbg = format!("{a:?}");
    Chehuzi::apply(st, seat, a, T0).unwrap_or_else(|e| panic!("seat {seat} {dbg}: {}", e.detail))
}

fn discard(card: &str) -> Action {
    Action::Discard {
        card: Card::parse(card).unwrap(),
    }
}

fn faces(list: &[&str]) -> Vec<u8> {
    list.iter()
        .map(|c| face_of(Card::parse(c).unwrap()).unwrap())
        .collect()
}

fn window(st: &State) -> &Window {
    match &st.table.hand().unwrap().phase {
        Phase::Claim(w) => w,
        Phase::Discard { .. } => panic!("no claim window"),
    }
}

/// 不能胡任何人提或偎的牌: seat 1's drawn s8 goes down as a 偎 that would complete its win, yet
/// no claim window opens, not even for seat 1: it discards.
#[test]
fn no_one_wins_on_a_forced_wei_and_the_drawer_discards() {
    let mut st = dealt(&WEI_DECK);
    assert_eq!(Chehuzi::to_act(&st), vec![0]);
    let out = act(&mut st, 0, discard("b2"));
    let h = st.table.hand().unwrap();
    assert_eq!(h.melds[1].len(), 1);
    assert_eq!(
        (h.melds[1][0].kind, h.melds[1][0].faces.clone()),
        (Kind::Wei, faces(&["s8", "s8", "s8"]))
    );
    // Counted as a win on the placed card, the hand would win.
    let table = h.table_of(1);
    assert!(
        best_win(&WinCase {
            hand: &h.hands[1],
            table: &table,
            card: faces(&["s8"])[0],
            taken: Taken::Placed,
            xing: None,
            kings: 2,
        })
        .is_some()
    );
    assert_eq!(Chehuzi::phase(&st), "discard");
    assert_eq!(Chehuzi::to_act(&st), vec![1]);
    let legal = Chehuzi::legal_actions(&st, 1);
    assert!(
        matches!(legal.as_slice(), [Legal::Discard { .. }]),
        "{legal:?}"
    );
    // The 偎's card only to its drawer.
    let wei: Vec<&Event> = out.events.iter().filter(|e| e.kind == "wei").collect();
    assert_eq!(wei.len(), 2);
    assert_eq!(wei[0].to, Visibility::Seats(vec![1]));
    assert_eq!(wei[0].data, json!({"card": "s8"}));
    assert_eq!(wei[1].to, Visibility::Seats(vec![0, 2]));
    assert_eq!(wei[1].data, json!({}));
    act(&mut st, 1, discard("s6"));
}

/// A second 跑/提 (重跑) needs no discard: after a drawn 提, the next seat draws at once, and
/// no one may win on the 提's card, though it completes seat 1's hand.
#[test]
fn after_a_second_quad_drawn_as_a_ti_the_next_seat_draws() {
    let o = parse_options::<Chehuzi>(3, &json!({})).unwrap();
    let mut st = Chehuzi::new_match(o, 3);
    st.hand_no = 1;
    let mut seat1 = faces(&[
        "s9", "s9", "s9", "b3", "b3", "b3", "s3", "s4", "s5", "s4", "s5", "s6", "b6", "b7", "b8",
        "s2", "s2",
    ]);
    sort_hand(&mut seat1);
    put_hand(
        &mut st,
        HandState {
            started_ms: T0.now_ms,
            dealer: 0,
            hands: [faces(&["b10", "b9"]), seat1, faces(&["b3", "s1", "b7"])],
            melds: [
                Vec::new(),
                vec![TableMeld {
                    kind: Kind::Ti,
                    faces: faces(&["b1", "b1", "b1", "b1"]),
                    hidden: false,
                }],
                Vec::new(),
            ],
            passed: Default::default(),
            stock: faces(&["s9", "s10", "b6"]),
            next: 0,
            paos: [0, 1, 0],
            blocked: [0; 3],
            declined_peng: [0; 3],
            phase: Phase::Discard { seat: 0 },
        },
    );
    act(&mut st, 0, discard("b10"));
    let h = st.table.hand().unwrap();
    assert_eq!(h.melds[1][1].kind, Kind::Ti);
    assert_eq!(h.hands[1].len(), 14, "重跑: seat 1 did not discard");
    // Counted as a win on the placed card, seat 1 would win (two 提, a 坎, three 句, a 将).
    let table = h.table_of(1);
    assert!(
        best_win(&WinCase {
            hand: &h.hands[1],
            table: &table,
            card: faces(&["s9"])[0],
            taken: Taken::Placed,
            xing: None,
            kings: 2,
        })
        .is_some()
    );
    // Seat 2 drew s10 at once, shown: nobody took it, and seat 0 drew b6, now claimed on.
    assert_eq!(h.passed[2], faces(&["s10"]));
    assert_eq!(window(&st).owner, 0);
}

/// Equal claims on a stock card go to the drawer first (自摸): seat 2's 胡 on seat 1's s6 waits
/// for seat 1, whose 胡 then wins the hand.
#[test]
fn the_drawers_zimo_beats_another_seats_hu_on_the_same_card() {
    let mut st = dealt(&ZIMO_DECK);
    act(&mut st, 0, discard("b2"));
    let w = window(&st);
    assert_eq!(
        (w.owner, w.source, w.card),
        (1, Source::Draw, faces(&["s6"])[0])
    );
    assert_eq!(w.hu, [false, true, true]);
    assert_eq!(Chehuzi::to_act(&st), vec![1, 2]);
    act(&mut st, 2, Action::Hu {});
    assert_eq!(
        Chehuzi::to_act(&st),
        vec![1],
        "seat 2's 胡 waits for the drawer"
    );
    let out = act(&mut st, 1, Action::Hu {});
    let r = out.hand_end.expect("the hand ends");
    let win = st.table.last().unwrap();
    assert_eq!(win.winner, Some(1));
    let win = win.win.as_ref().unwrap();
    assert!(win.self_drawn);
    assert_eq!(win.mingtang, vec![Mingtang::HeiHu, Mingtang::ZiMo]);
    assert_eq!(r.points[1], 2 * win.score);
    assert_eq!(r.points.iter().sum::<i64>(), 0);
}

/// The drawer first, then the seats after it in turn: when the drawer passes, seat 2 (next
/// after seat 1) wins.
#[test]
fn when_the_drawer_passes_the_next_seat_wins() {
    let mut st = dealt(&ZIMO_DECK);
    act(&mut st, 0, discard("b2"));
    act(&mut st, 1, Action::Pass {});
    let out = act(&mut st, 2, Action::Hu {});
    out.hand_end.expect("the hand ends");
    let last = st.table.last().unwrap();
    assert_eq!(last.winner, Some(2));
    assert!(!last.win.as_ref().unwrap().self_drawn);
}

/// After the drawer, equal claims go in turn: the seat after the drawer before the one after
/// it, whoever answers first.
#[test]
fn equal_hu_claims_after_the_drawer_go_in_turn() {
    let o = parse_options::<Chehuzi>(3, &json!({})).unwrap();
    let black = faces(&[
        "b1", "b1", "b1", "b3", "b3", "b3", "b4", "b4", "b4", "s3", "s4", "s5", "s4", "s5", "s9",
        "s9", "b9", "s8", "b8", "b8",
    ]);
    let mut st = Chehuzi::new_match(o, 3);
    st.hand_no = 1;
    put_hand(
        &mut st,
        HandState {
            started_ms: T0.now_ms,
            dealer: 2,
            hands: [black.clone(), faces(&["b2", "b5", "b7"]), black],
            melds: Default::default(),
            passed: Default::default(),
            stock: faces(&["s6", "s2", "s2"]),
            next: 0,
            paos: [0; 3],
            blocked: [0; 3],
            declined_peng: [0; 3],
            phase: Phase::Discard { seat: 1 },
        },
    );
    sort_hand(&mut st.table.hand_mut().unwrap().hands[0]);
    sort_hand(&mut st.table.hand_mut().unwrap().hands[2]);
    // Seat 1 discards b2 (nobody takes it); seat 2 draws s6, with which seats 2 and 0 win.
    act(&mut st, 1, discard("b2"));
    let w = window(&st);
    assert_eq!(w.owner, 2);
    assert_eq!(w.hu, [true, false, true]);
    act(&mut st, 0, Action::Hu {});
    assert!(
        st.table.hand().is_some(),
        "seat 0 waits for the drawer, seat 2"
    );
    act(&mut st, 2, Action::Pass {});
    assert_eq!(st.table.last().unwrap().winner, Some(0));
}

/// A W its drawer could win with is the drawer's own: to everyone else the table shows the
/// drawer's discard turn (phase, `turn`, `to_act`, deadline and no claim window) exactly as
/// when the W makes no win, and the drawer's discard passes on the win in the same action, so
/// the version count does not tell either. Found in random play over many hands.
#[test]
fn a_drawn_w_that_could_win_looks_like_a_discard_turn_to_the_others() {
    use crate::test_rng::Rng;
    let mut rng = Rng(0x05ee_d0f3);
    let mut found = 0;
    for _ in 0..3_000 {
        let o = parse_options::<Chehuzi>(3, &json!({"kings": 4})).unwrap();
        let mut st = Chehuzi::new_match(o, 3);
        super::tests::deal_shuffled(&mut st, &mut rng);
        while st.table.hand().is_some() {
            if let Some(w) = placed_window(&st) {
                found += 1;
                let drawer = w.owner;
                assert_eq!(Chehuzi::phase(&st), "discard");
                assert!(!Chehuzi::to_act_hidden(&st));
                assert_eq!(Chehuzi::to_act(&st), vec![drawer]);
                assert_eq!(
                    Chehuzi::wait_secs(&st, 20),
                    20,
                    "a turn's time, not a window's"
                );
                for other in (0..3).filter(|&s| s != drawer) {
                    let v = Chehuzi::view(&st, Some(other));
                    assert_eq!((v.turn, v.claim), (Some(drawer), None));
                }
                let own = Chehuzi::view(&st, Some(drawer));
                assert_eq!(own.claim.map(|c| c.source), Some("placed"));
                let legal = Chehuzi::legal_actions(&st, drawer);
                assert_eq!(legal[0], Legal::Hu {});
                if let Legal::Discard { cards } = &legal[1] {
                    let refused = Chehuzi::apply(&mut st.clone(), drawer, Action::Pass {}, T0);
                    let e = refused.expect_err("no pass while the drawer may discard");
                    assert_eq!(e.rule, "must_win_or_discard");
                    assert!(e.detail_zh.contains("王霸"), "{}", e.detail_zh);
                    let before = st.table.hand().unwrap().stock.len();
                    let out =
                        Chehuzi::apply(&mut st, drawer, Action::Discard { card: cards[0] }, T0)
                            .unwrap();
                    assert!(
                        !out.events.iter().any(|e| e.kind == "pass"),
                        "no pass: {:?}",
                        out.events
                    );
                    assert_eq!(out.events[0].kind, "discard", "{:?}", out.events);
                    assert!(
                        st.table.hand().is_none() || st.table.hand().unwrap().stock.len() <= before
                    );
                    continue;
                }
            }
            let seat = Chehuzi::to_act(&st)[0];
            let action = Chehuzi::auto_action(&st, seat);
            // Play on past wins so that W draws come up: a win offered is passed on here.
            let action = match action {
                Action::Hu {} if placed_window(&st).is_none() => Action::Pass {},
                a => a,
            };
            if placed_window(&st).is_some() {
                // The drawer's only other choice: pass (nothing it may discard).
                Chehuzi::apply(&mut st, seat, Action::Pass {}, T0).unwrap();
                continue;
            }
            Chehuzi::apply(&mut st, seat, action, T0).unwrap();
        }
        if found >= 5 {
            break;
        }
    }
    assert!(found >= 5, "a drawn W that could win came up {found} times");
}
