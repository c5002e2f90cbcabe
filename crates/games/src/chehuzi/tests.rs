//! Rule tests: each names the rule it checks. Fixtures are readable card lists.

use serde_json::{Value, json};

use super::claims::chi_options;
use super::melds::{W, chi_kind, huxi, sort_hand};
use super::scoring::{Taken, WinCase, best_win, fan_xing, huangzhuang, tun};
use super::*;
use crate::engine::{RuleErrorKind, Visibility, parse_options};
use crate::event_check::{EventCheck, Plan, play_match};
use crate::shuffle::shuffle;
use crate::test_rng::Rng;

pub(super) const T0: Ctx = Ctx { now_ms: 1_000_000 };

fn f(list: &[&str]) -> Vec<u8> {
    list.iter()
        .map(|c| face_of(Card::parse(c).expect("fixture card")).expect("paper card"))
        .collect()
}

fn c1(card: &str) -> u8 {
    f(&[card])[0]
}

pub(super) fn opts(extra: Value) -> Options {
    parse_options::<Chehuzi>(3, &extra).unwrap()
}

/// The best win of `hand` with `card`, no table, no 醒.
fn win_of(hand: &[&str], card: &str, taken: Taken, kings: u8) -> Option<scoring::Win> {
    let mut hand = f(hand);
    if taken == Taken::Placed {
        hand.push(c1(card));
    }
    best_win(&WinCase {
        hand: &hand,
        table: &[],
        card: c1(card),
        taken,
        xing: None,
        kings,
    })
}

/// 18 胡息 of black cards: three big 坎, two small 句 and two 绞; the drawn s6 completes it.
const BLACK: &[&str] = &[
    "b1", "b1", "b1", "b3", "b3", "b3", "b4", "b4", "b4", "s3", "s4", "s5", "s4", "s5", "s9", "s9",
    "b9", "s8", "b8", "b8",
];

#[test]
fn huxi_table_follows_the_rulings() {
    let s = |k, l: &[&str]| huxi(k, &f(l));
    assert_eq!(s(Kind::Peng, &["s5", "s5", "s5"]), 1);
    assert_eq!(s(Kind::Peng, &["b5", "b5", "b5"]), 3);
    for k in [Kind::Kan, Kind::Wei, Kind::ChouWei] {
        assert_eq!(s(k, &["s5", "s5", "s5"]), 3);
        assert_eq!(s(k, &["b5", "b5", "b5"]), 6);
    }
    assert_eq!(s(Kind::Pao, &["s5"; 4]), 6);
    assert_eq!(s(Kind::Pao, &["b5"; 4]), 9);
    assert_eq!(s(Kind::Ti, &["s5"; 4]), 9);
    assert_eq!(s(Kind::Ti, &["b5"; 4]), 12);
    assert_eq!(s(Kind::Ju, &["s1", "s2", "s3"]), 3);
    assert_eq!(s(Kind::Ju, &["b1", "b2", "b3"]), 6);
    assert_eq!(s(Kind::Ju, &["s2", "s7", "s10"]), 3);
    assert_eq!(s(Kind::Ju, &["b2", "b7", "b10"]), 6);
    assert_eq!(s(Kind::Ju, &["s4", "s5", "s6"]), 0);
    assert_eq!(s(Kind::Jiao, &["s4", "s4", "b4"]), 0);
    assert_eq!(s(Kind::Jiang, &["b4", "b4"]), 0);
}

#[test]
fn ju_and_jiao_are_the_only_chi_melds() {
    assert_eq!(chi_kind(&f(&["s8", "s9", "s10"])), Some(Kind::Ju));
    assert_eq!(chi_kind(&f(&["b10", "b2", "b7"])), Some(Kind::Ju));
    assert_eq!(chi_kind(&f(&["s9", "b9", "s9"])), Some(Kind::Jiao));
    assert_eq!(chi_kind(&f(&["s9", "b9", "b9"])), Some(Kind::Jiao));
    assert_eq!(chi_kind(&f(&["s9", "s9", "s9"])), None);
    assert_eq!(chi_kind(&f(&["s8", "s9", "b10"])), None);
    assert_eq!(chi_kind(&f(&["s9", "s10", "s1"])), None);
}

#[test]
fn tun_counts_every_full_three_huxi_above_fifteen() {
    assert_eq!(tun(15), 1);
    assert_eq!(tun(17), 1);
    assert_eq!(tun(18), 2);
    assert_eq!(tun(20), 2);
    assert_eq!(tun(21), 3);
}

#[test]
fn heihu_and_zimo_multiply() {
    let w = win_of(BLACK, "s6", Taken::OwnDraw, 2).expect("wins");
    assert_eq!(w.huxi, 18);
    assert_eq!(w.melds.len(), 7);
    assert_eq!(w.names, vec![Mingtang::HeiHu, Mingtang::ZiMo]);
    assert_eq!(w.score, 2 * 8);
}

#[test]
fn a_win_on_another_draw_is_not_zimo() {
    let w = win_of(BLACK, "s6", Taken::OtherDraw, 2).expect("wins");
    assert_eq!(w.names, vec![Mingtang::HeiHu]);
    assert_eq!(w.score, 2 * 4);
}

#[test]
fn yidianzhu_is_exactly_one_red() {
    let mut hand = BLACK.to_vec();
    // s4 s5 s6 becomes s5 s6 s7: one red card.
    let i = hand.iter().rposition(|&c| c == "s4").unwrap();
    hand[i] = "s7";
    let w = win_of(&hand, "s6", Taken::OwnDraw, 2).expect("wins");
    assert_eq!(w.reds, 1);
    assert_eq!(w.names, vec![Mingtang::YiDianZhu, Mingtang::ZiMo]);
    assert_eq!(w.score, 2 * 6);
}

#[test]
fn honghu_needs_ten_red() {
    let hand = [
        "b2", "b7", "b10", "s2", "s7", "s10", "s10", "s10", "s10", "b1", "b1", "b1", "s7", "s8",
        "s9", "s3", "s4", "s5", "s4", "s5",
    ];
    let w = win_of(&hand, "s6", Taken::OtherDraw, 2).expect("wins");
    assert_eq!(w.reds, 10);
    assert_eq!(w.names, vec![Mingtang::HongHu]);
    assert_eq!(w.score, tun(w.huxi) * 2);
}

#[test]
fn hongzhuandian_is_thirteen_to_fifteen_red() {
    let hand = [
        "b2", "b7", "b10", "s2", "s7", "s10", "s10", "s10", "s10", "b7", "b7", "b7", "s7", "s8",
        "s9", "s3", "s4", "b4", "b5", "b6",
    ];
    let w = win_of(&hand, "s5", Taken::OtherDraw, 2).expect("wins");
    assert_eq!(w.reds, 13);
    assert_eq!(w.names, vec![Mingtang::HongZhuanDian]);
    assert_eq!(w.score, tun(w.huxi) * 3);
}

#[test]
fn hongzhuanhei_is_sixteen_red_or_more() {
    let hand = [
        "b2", "b7", "b10", "s2", "s7", "s10", "s10", "s10", "s10", "b7", "b7", "b7", "b10", "b10",
        "b10", "s7", "s8", "s9", "s3", "s4",
    ];
    let w = win_of(&hand, "s5", Taken::OtherDraw, 2).expect("wins");
    assert_eq!(w.reds, 16);
    assert_eq!(w.huxi, 24);
    assert_eq!(w.names, vec![Mingtang::HongZhuanHei]);
    assert_eq!(w.score, 4 * 4);
}

#[test]
fn fewer_than_fifteen_huxi_does_not_win() {
    // b1 b1 b1 becomes a 0-胡息 绞 (s1 s1 b1): 12 胡息.
    let mut hand = BLACK.to_vec();
    hand[0] = "s1";
    hand[1] = "s1";
    assert!(win_of(&hand, "s6", Taken::OwnDraw, 2).is_none());
}

#[test]
fn a_pao_or_ti_needs_exactly_one_jiang() {
    // With a 提 on the table, five melds and a pair in hand make 7 门子.
    let table = vec![(Kind::Ti, f(&["b1"; 4]))];
    let hand = f(&[
        "b3", "b3", "b3", "b4", "b4", "b4", "s3", "s4", "s5", "s4", "s5", "s9", "s9", "b9", "s8",
        "s8",
    ]);
    let case = |hand: &[u8]| {
        best_win(&WinCase {
            hand,
            table: &table,
            card: c1("s6"),
            taken: Taken::OwnDraw,
            xing: None,
            kings: 2,
        })
    };
    let w = case(&hand).expect("wins with the s8 pair as 将");
    assert!(w.melds.iter().any(|m| m.kind == Kind::Jiang));
    // Without the pair there are only 6 门子.
    assert!(case(&hand[..14]).is_none());
}

#[test]
fn wangdiao_pairs_the_drawn_card_with_a_lone_w() {
    let table = vec![(Kind::Ti, f(&["b1"; 4]))];
    let hand = f(&[
        "b3", "b3", "b3", "b4", "b4", "b4", "s3", "s4", "s5", "s4", "s5", "s6", "s9", "s9", "b9",
        "W",
    ]);
    let w = best_win(&WinCase {
        hand: &hand,
        table: &table,
        card: c1("s8"),
        taken: Taken::OwnDraw,
        xing: None,
        kings: 2,
    })
    .expect("wins");
    assert_eq!(w.huxi, 24);
    assert_eq!(w.names, vec![Mingtang::HeiHu, Mingtang::WangDiao]);
    assert_eq!(w.score, 4 * 16);
}

#[test]
fn wangdiaowang_is_wangdiao_on_a_drawn_w() {
    let table = vec![(Kind::Ti, f(&["b1"; 4]))];
    let mut hand = f(&[
        "b3", "b3", "b3", "b4", "b4", "b4", "s3", "s4", "s5", "s4", "s5", "s6", "s9", "s9", "b9",
        "W",
    ]);
    hand.push(W);
    let w = best_win(&WinCase {
        hand: &hand,
        table: &table,
        card: W,
        taken: Taken::Placed,
        xing: None,
        kings: 2,
    })
    .expect("wins");
    assert_eq!(w.names, vec![Mingtang::HeiHu, Mingtang::WangDiaoWang]);
    assert_eq!(w.score, 4 * 32);
}

/// Six 门子 (three big 坎) and a pair of W.
const CHUANG: &[&str] = &[
    "b1", "b1", "b1", "b3", "b3", "b3", "b4", "b4", "b4", "s3", "s4", "s5", "s4", "s5", "s6", "s9",
    "s9", "b9", "W", "W",
];

#[test]
fn wangchuang_makes_a_kan_of_the_w_pair() {
    let w = win_of(CHUANG, "s8", Taken::OwnDraw, 2).expect("wins");
    assert_eq!(w.huxi, 21);
    assert_eq!(w.names, vec![Mingtang::HeiHu, Mingtang::WangChuang]);
    assert_eq!(w.score, 3 * 32);
}

#[test]
fn wangchuangwang_needs_four_kings() {
    let w = win_of(CHUANG, "W", Taken::Placed, 4).expect("wins");
    assert_eq!(w.names, vec![Mingtang::HeiHu, Mingtang::WangChuangWang]);
    assert_eq!(w.huxi, 24, "the W 坎 stands for a big card");
    assert_eq!(w.score, 4 * 64);
    // With two kings a third W cannot be drawn; the same hand scores no 王闯王 then.
    let two = win_of(CHUANG, "W", Taken::Placed, 2).expect("wins");
    assert!(!two.names.contains(&Mingtang::WangChuangWang));
}

#[test]
fn sanwangchuangwang_makes_four_of_the_w_kan() {
    let hand = [
        "b1", "b1", "b1", "b3", "b3", "b3", "b4", "b4", "b4", "s3", "s4", "s5", "s4", "s5", "s6",
        "s9", "s9", "W", "W", "W",
    ];
    let w = win_of(&hand, "W", Taken::Placed, 4).expect("wins");
    assert_eq!(w.huxi, 30);
    assert_eq!(w.names, vec![Mingtang::HeiHu, Mingtang::SanWangChuangWang]);
    assert_eq!(w.score, 6 * 128);
}

#[test]
fn w_counts_as_the_colour_it_stands_for() {
    // W stands for s7 in s5 s6 W: one red card, 一点朱.
    let mut hand = BLACK.to_vec();
    let i = hand.iter().rposition(|&c| c == "s4").unwrap();
    hand[i] = "W";
    let w = win_of(&hand, "s6", Taken::OwnDraw, 2).expect("wins");
    assert!(!w.names.contains(&Mingtang::ZiMo), "no 自摸 holding a W");
    assert!(w.names.contains(&Mingtang::HeiHu) || w.names.contains(&Mingtang::YiDianZhu));
}

#[test]
fn fan_xing_is_the_next_number_of_the_case() {
    assert_eq!(fan_xing(c1("s3")), c1("s4"));
    assert_eq!(fan_xing(c1("s10")), c1("s1"));
    assert_eq!(fan_xing(c1("b10")), c1("b1"));
    assert_eq!(fan_xing(c1("b9")), c1("b10"));
    assert_eq!(fan_xing(W), W);
}

#[test]
fn xing_adds_one_tun_per_copy_in_the_seven_melds() {
    let hand = f(BLACK);
    let case = |xing| {
        best_win(&WinCase {
            hand: &hand,
            table: &[],
            card: c1("s6"),
            taken: Taken::OwnDraw,
            xing,
            kings: 2,
        })
        .expect("wins")
    };
    // b1 ×3 in the hand: three 醒.
    let w = case(Some(c1("b1")));
    assert_eq!((w.xing, w.score), (3, (2 + 3) * 8));
    // 跟醒 on s6: one copy.
    assert_eq!(case(Some(c1("s6"))).xing, 1);
    assert_eq!(case(Some(c1("s10"))).xing, 0);
}

#[test]
fn a_w_xing_counts_the_w_themselves() {
    let hand = f(CHUANG);
    let w = best_win(&WinCase {
        hand: &hand,
        table: &[],
        card: c1("s8"),
        taken: Taken::OwnDraw,
        xing: Some(W),
        kings: 2,
    })
    .expect("wins");
    assert_eq!(w.xing, 2);
    assert_eq!(w.score, (3 + 2) * 32);
}

#[test]
fn huangzhuang_pays_by_w_held() {
    assert_eq!(huangzhuang([2, 1, 0], 5, 1), [-15, 0, 15]);
    assert_eq!(huangzhuang([2, 1, 0], 10, 1), [-30, 0, 30]);
    assert_eq!(huangzhuang([4, 0, 0], 5, 1), [-40, 20, 20]);
    assert_eq!(huangzhuang([4, 0, 0], 10, 2), [-160, 80, 80]);
    assert_eq!(huangzhuang([1, 1, 1], 10, 1), [0, 0, 0]);
}

#[test]
fn chi_must_meld_every_copy_bipai() {
    // The seed's example: holding s1 s2 s3 s4 s5, 吃 s3 with s4 s5 also lays s1 s2 s3.
    let hand = f(&["s1", "s2", "s3", "s4", "s5", "b9"]);
    let opts = chi_options(&hand, c1("s3"));
    assert!(opts.contains(&vec![f(&["s3", "s4", "s5"]), f(&["s1", "s2", "s3"])]));
    assert!(opts.iter().all(|o| o.len() == 2), "{opts:?}");
}

#[test]
fn kan_cards_cannot_be_used_to_chi() {
    let hand = f(&["s4", "s4", "s4", "s6"]);
    assert!(chi_options(&hand, c1("s5")).is_empty());
}

/// Puts `hand` in play.
pub(super) fn put_hand(st: &mut State, hand: HandState) {
    st.table = Table::InHand {
        hand: Box::new(hand),
        last: None,
    };
}

/// A hand in progress: the given hands, an empty table, `stock` next, `seat` to discard.
pub(super) fn table(o: Options, hands: [&[&str]; 3], stock: &[&str], seat: SeatNo) -> State {
    let mut st = Chehuzi::new_match(o, 3);
    st.hand_no = 1;
    put_hand(
        &mut st,
        HandState {
            started_ms: T0.now_ms,
            dealer: 0,
            hands: hands.map(|h| {
                let mut c = f(h);
                sort_hand(&mut c);
                c
            }),
            melds: Default::default(),
            passed: Default::default(),
            stock: f(stock),
            next: 0,
            paos: [0; 3],
            blocked: [0; 3],
            declined_peng: [0; 3],
            phase: Phase::Discard { seat },
        },
    );
    st
}

pub(super) fn act(st: &mut State, seat: SeatNo, a: Action) -> Outcome {
    let dbg = format!("{a:?}");
    Chehuzi::apply(st, seat, a, T0).unwrap_or_else(|e| panic!("seat {seat} {dbg}: {}", e.detail))
}

pub(super) fn discard(card: &str) -> Action {
    Action::Discard {
        card: Card::parse(card).unwrap(),
    }
}

pub(super) fn chi(melds: &[&[&str]]) -> Action {
    Action::Chi {
        melds: melds
            .iter()
            .map(|m| m.iter().map(|c| Card::parse(c).unwrap()).collect())
            .collect(),
    }
}

#[test]
fn peng_beats_the_next_seats_chi() {
    let mut st = table(
        opts(json!({})),
        [&["s5", "b9"], &["s4", "s6", "b1"], &["s5", "s5", "b2"]],
        &["b3", "b4", "b5"],
        0,
    );
    act(&mut st, 0, discard("s5"));
    assert_eq!(Chehuzi::to_act(&st), vec![1, 2]);
    act(&mut st, 1, chi(&[&["s4", "s5", "s6"]]));
    assert_eq!(Chehuzi::to_act(&st), vec![2], "the 吃 waits for the 碰");
    act(&mut st, 2, Action::Peng {});
    let h = st.table.hand().unwrap();
    assert_eq!(h.melds[2][0].kind, Kind::Peng);
    assert!(h.melds[1].is_empty());
    assert!(matches!(h.phase, Phase::Discard { seat: 2 }));
}

#[test]
fn chi_goes_through_when_the_peng_is_declined() {
    let mut st = table(
        opts(json!({})),
        [&["s5", "b9"], &["s4", "s6", "b1"], &["s5", "s5", "b2"]],
        &["b3", "b4", "b5"],
        0,
    );
    act(&mut st, 0, discard("s5"));
    act(&mut st, 2, Action::Pass {});
    act(&mut st, 1, chi(&[&["s6", "s5", "s4"]]));
    let h = st.table.hand().unwrap();
    assert_eq!(h.melds[1][0].kind, Kind::Ju);
    assert!(matches!(h.phase, Phase::Discard { seat: 1 }));
    assert_ne!(h.declined_peng[2] & bit(c1("s5")), 0, "忍碰 recorded");
}

#[test]
fn guozhang_refuses_a_later_chi_of_that_face() {
    let mut st = table(
        opts(json!({})),
        [
            &["s5", "s5", "b9", "b8"],
            &["s4", "s6", "b1", "b2"],
            &["b3", "b3"],
        ],
        &["b6", "b4", "b5", "b7", "b10"],
        0,
    );
    act(&mut st, 0, discard("s5"));
    assert_eq!(Chehuzi::to_act(&st), vec![1]);
    act(&mut st, 1, Action::Pass {});
    // Seat 1 draws b6 (nobody claims it), seat 2 draws b4: b3 b3 … no claim; seat 0 draws b5.
    let h = st.table.hand().unwrap();
    assert!(h.blocked[1] & bit(c1("s5")) != 0);
    // Put seat 0 back to discard the second s5: seat 1 has no claim on it now.
    let mut st2 = st.clone();
    let h2 = st2.table.hand_mut().unwrap();
    h2.phase = Phase::Discard { seat: 0 };
    act(&mut st2, 0, discard("s5"));
    assert!(!Chehuzi::to_act(&st2).contains(&1));
    assert!(Chehuzi::legal_actions(&st2, 1).is_empty());
}

#[test]
fn two_hu_claims_on_a_draw_go_to_the_drawer_first() {
    let mut st = table(
        opts(json!({})),
        [&["s1", "s1"], BLACK, BLACK],
        &["s6", "s2", "s2"],
        0,
    );
    act(&mut st, 0, discard("s1"));
    // Seat 1 draws s6; seats 1 and 2 win with it. The drawer's 自摸 comes first.
    assert_eq!(Chehuzi::phase(&st), "claim");
    let w = match &st.table.hand().unwrap().phase {
        Phase::Claim(w) => w.clone(),
        _ => unreachable!(),
    };
    assert!(w.hu[1] && w.hu[2]);
    act(&mut st, 2, Action::Hu {});
    assert!(
        st.table.hand().is_some(),
        "the next seat's 胡 waits for the drawer's"
    );
    let out = act(&mut st, 1, Action::Hu {});
    let r = out.hand_end.expect("hand over");
    assert_eq!(st.table.last().unwrap().winner, Some(1));
    assert_eq!(r.points.iter().sum::<i64>(), 0);
    // 黑胡 ×4 and 自摸 ×2: (2 囤 + 1 醒: s2 turned, one s3) × 8, paid by both others.
    assert_eq!(r.points[1], 2 * (2 + 1) * 8);
}

#[test]
fn a_w_holder_wins_only_on_its_own_draw() {
    let mut st = table(
        opts(json!({})),
        [&["s1", "s1"], &["b2", "b5"], CHUANG],
        &["s8", "s8", "b10"],
        0,
    );
    act(&mut st, 0, discard("s1"));
    // Seat 1 drew s8: seat 2 (holding W) would win with it but was not asked; the card passed.
    let h = st.table.hand().unwrap();
    assert_eq!(h.passed[1], f(&["s8"]));
    // Seat 2 then drew the other s8 itself, and may win on it.
    let Phase::Claim(w) = &h.phase else {
        panic!("a claim window")
    };
    assert_eq!((w.owner, w.source), (2, Source::Draw));
    assert_eq!(Chehuzi::to_act(&st), vec![2]);
    assert!(Chehuzi::legal_actions(&st, 2).contains(&Legal::Hu {}));
    let out = act(&mut st, 2, Action::Hu {});
    let r = out.hand_end.expect("won");
    // 王闯 ×8 and 黑胡 ×4; 3 囤 + 3 醒 (b10 turned: 醒 b1, three b1 in the hand).
    assert_eq!(r.points[2], 2 * (3 + 3) * 32);
    assert_eq!(st.dealer, 2, "the winner deals next");
}

#[test]
fn no_win_on_a_discard() {
    let mut st = table(
        opts(json!({})),
        [&["s6", "b10"], BLACK, &["b2"]],
        &["s2", "s2", "s2"],
        0,
    );
    act(&mut st, 0, discard("s6"));
    assert!(!Chehuzi::legal_actions(&st, 1).contains(&Legal::Hu {}));
}

#[test]
fn a_drawn_card_making_a_kan_four_is_a_forced_hidden_ti() {
    let mut st = table(
        opts(json!({})),
        [&["s1", "b10"], &["s9", "s9", "s9", "b2", "b5"], &["b3"]],
        &["s9", "b6", "b6"],
        0,
    );
    let out = act(&mut st, 0, discard("s1"));
    let h = st.table.hand().unwrap();
    assert_eq!(h.melds[1][0].kind, Kind::Ti);
    assert!(h.melds[1][0].hidden);
    assert!(
        matches!(h.phase, Phase::Discard { seat: 1 }),
        "first 提: discard"
    );
    // Others never see its face.
    let seat0 = serde_json::to_string(&Chehuzi::view(&st, Some(0))).unwrap();
    assert!(!seat0.contains("s9"), "{seat0}");
    for e in &out.events {
        if e.kind == "ti" && e.to != Visibility::Seats(vec![1]) {
            assert_eq!(e.data, json!({}));
        }
    }
}

#[test]
fn a_second_pao_draws_instead_of_discarding() {
    let mut st = table(
        opts(json!({})),
        [
            &["s7", "b10"],
            &["s7", "s7", "s7", "b2", "b5"],
            &["b3", "b3", "b9"],
        ],
        &["b3", "b6", "b8"],
        0,
    );
    st.table.hand_mut().unwrap().paos[1] = 1;
    act(&mut st, 0, discard("s7"));
    let h = st.table.hand().unwrap();
    assert_eq!(h.melds[1][0].kind, Kind::Pao);
    // 重跑: seat 1 did not discard; seat 2 drew b3 at once (a 偎) and discards.
    assert_eq!(h.hands[1].len(), 2);
    assert_eq!(h.melds[2][0].kind, Kind::Wei);
    assert!(matches!(h.phase, Phase::Discard { seat: 2 }));
}

#[test]
fn a_declined_peng_makes_a_later_wei_chou_and_shown() {
    let mut st = table(
        opts(json!({})),
        [&["s5", "b10", "b9"], &["b1", "b3"], &["s5", "s5", "b2"]],
        &["b2", "s8", "s5"],
        0,
    );
    act(&mut st, 0, discard("s5"));
    act(&mut st, 2, Action::Pass {});
    // Seat 1 drew b2 and may 吃 it: the hand waits there.
    let h = st.table.hand().unwrap();
    assert!(h.declined_peng[2] & bit(c1("s5")) != 0);
    let mut st = table(
        opts(json!({})),
        [&["b9"], &["b1"], &["s5", "s5", "b2"]],
        &["s5"],
        1,
    );
    st.table.hand_mut().unwrap().declined_peng[2] = bit(c1("s5"));
    act(&mut st, 1, discard("b1"));
    let h = st.table.hand().unwrap();
    assert_eq!(h.melds[2][0].kind, Kind::ChouWei);
    assert!(!h.melds[2][0].hidden);
}

#[test]
fn the_deck_is_dealt_one_at_a_time_from_the_dealer() {
    let o = opts(json!({}));
    let deck = Chehuzi::deck(&o);
    assert_eq!(deck.len(), 82);
    assert_eq!(Chehuzi::deck(&opts(json!({"kings": 4}))).len(), 84);
    let mut st = Chehuzi::new_match(o, 3);
    st.dealer = 1;
    // Spread faces so that nobody is dealt four alike.
    let mut d = deck.clone();
    d.sort_by_key(|c| format!("{c}"));
    let mut spread = Vec::new();
    for i in 0..4 {
        spread.extend(d.iter().skip(i).step_by(4).copied());
    }
    spread.truncate(82);
    let out = Chehuzi::start_hand(
        &mut st,
        HandStart {
            deck: spread.clone(),
            ctx: T0,
            wallets: vec![0; 3],
            scores: vec![0; 3],
        },
    );
    assert!(!out.events.is_empty());
    let h = st.table.hand().unwrap();
    assert_eq!(h.hands[1].len() + h.melds[1].len() * 4, 21);
    assert_eq!(h.hands[2].len() + h.melds[2].len() * 4, 20);
    assert_eq!(h.stock.len(), 21);
    assert_eq!(h.stock[0], face_of(spread[61]).unwrap());
    assert!(h.hands[1].contains(&face_of(spread[0]).unwrap()));
    assert!(h.hands[1].contains(&face_of(spread[60]).unwrap()));
    assert_eq!(Chehuzi::to_act(&st), vec![1]);
}

#[test]
fn options_are_checked() {
    assert!(parse_options::<Chehuzi>(3, &json!({"kings": 3})).is_err());
    assert!(parse_options::<Chehuzi>(3, &json!({"rate": 0})).is_err());
    assert!(parse_options::<Chehuzi>(3, &json!({"xing": "gen"})).is_ok());
    assert!(parse_options::<Chehuzi>(3, &json!({"bogus": 1})).is_err());
    assert!(parse_options::<Chehuzi>(2, &json!({})).is_err());
}

#[test]
fn a_claim_window_is_shorter_than_a_turn() {
    let mut st = table(
        opts(json!({"claim_timeout_secs": 5})),
        [&["s5", "b9"], &["s4", "s6", "b1"], &["b2"]],
        &["b3"],
        0,
    );
    assert_eq!(Chehuzi::wait_secs(&st, 20), 20);
    act(&mut st, 0, discard("s5"));
    assert_eq!(Chehuzi::wait_secs(&st, 20), 5);
    assert_eq!(Chehuzi::wait_secs(&st, 3), 3);
}

#[test]
fn escape_pays_ten_base_to_each_and_ends_the_match() {
    let mut st = table(opts(json!({})), [&["s5"], &["s4"], &["b2"]], &["b3"], 0);
    let out = Chehuzi::leave(
        &mut st,
        1,
        Ctx {
            now_ms: T0.now_ms + 31_000,
        },
        0,
    );
    let r = out.hand_end.unwrap();
    assert_eq!(r.units, vec![50, -100, 50]);
    assert_eq!(r.points, vec![51, -100, 51]);
    assert_eq!(Chehuzi::stage(&st), Stage::Finished);
    let mut st = table(
        opts(json!({"kings": 4})),
        [&["s5"], &["s4"], &["b2"]],
        &["b3"],
        0,
    );
    let r = Chehuzi::leave(&mut st, 0, T0, 0).hand_end.unwrap();
    assert_eq!(r.points, vec![-200, 100, 100]);
}

#[test]
fn an_illegal_discard_is_refused_unchanged() {
    let mut st = table(
        opts(json!({})),
        [&["s5", "W"], &["s4"], &["b2"]],
        &["b3"],
        0,
    );
    let before = serde_json::to_value(&st).unwrap();
    let e = Chehuzi::apply(&mut st, 0, discard("W"), T0).unwrap_err();
    assert_eq!(e.kind, RuleErrorKind::Illegal);
    let e = Chehuzi::apply(&mut st, 0, discard("s9"), T0).unwrap_err();
    assert_eq!(e.kind, RuleErrorKind::Illegal);
    let e = Chehuzi::apply(&mut st, 1, discard("s4"), T0).unwrap_err();
    assert_eq!(e.kind, RuleErrorKind::NotYourTurn);
    assert_eq!(serde_json::to_value(&st).unwrap(), before);
}

#[test]
fn huangzhuang_ends_the_hand_when_the_stock_runs_out() {
    let mut st = table(
        opts(json!({"kings": 4})),
        [&["s1", "b10", "W", "W"], &["b5", "W"], &["b9", "b8"]],
        &[],
        0,
    );
    let out = act(&mut st, 0, discard("s1"));
    let r = out.hand_end.expect("荒庄");
    // W held (2, 1, 0) at base 10.
    assert_eq!(r.points, vec![-30, 0, 30]);
    assert_eq!(r.units, r.points);
    assert_eq!(st.table.last().unwrap().end, End::Huangzhuang);
    assert_eq!(st.dealer, 1, "the deal passes to the next seat");
    assert_eq!(Chehuzi::stage(&st), Stage::NeedsDeal);
}

#[test]
fn genxing_counts_the_winning_card() {
    let mut st = table(
        opts(json!({"xing": "gen"})),
        [&["s1", "s1"], BLACK, &["b2", "b5"]],
        &["s6", "b10"],
        0,
    );
    act(&mut st, 0, discard("s1"));
    // Seat 1 draws s6 and wins: 黑胡 ×4 and 自摸 ×2, 2 囤 + 1 醒 (one s6).
    let out = act(&mut st, 1, Action::Hu {});
    let r = out.hand_end.expect("won");
    assert_eq!(r.points, vec![-24, 48, -24]);
    let win = st.table.last().unwrap().win.clone().unwrap();
    assert_eq!(win.xing_card, Some(Card::parse("s6").unwrap()));
    assert_eq!(win.mingtang, vec![Mingtang::HeiHu, Mingtang::ZiMo]);
}

#[test]
fn a_chi_that_skips_bipai_is_refused() {
    let mut st = table(
        opts(json!({})),
        [
            &["s3", "b9"],
            &["s1", "s2", "s3", "s4", "s5", "b1"],
            &["b2"],
        ],
        &["b3"],
        0,
    );
    act(&mut st, 0, discard("s3"));
    let e = Chehuzi::apply(&mut st, 1, chi(&[&["s3", "s4", "s5"]]), T0).unwrap_err();
    assert_eq!(e.kind, RuleErrorKind::Illegal);
    act(&mut st, 1, chi(&[&["s3", "s4", "s5"], &["s1", "s2", "s3"]]));
    assert_eq!(st.table.hand().unwrap().melds[1].len(), 2);
}

// ---------------------------------------------------------------- random play

/// Every card of a hand in progress: hands, table, passed piles, the stock left, and a shown
/// card waiting in a claim window.
fn all_cards(h: &HandState) -> Vec<u8> {
    let mut all: Vec<u8> = Vec::new();
    for s in 0..3 {
        all.extend(&h.hands[s]);
        for m in &h.melds[s] {
            all.extend(&m.faces);
        }
        all.extend(&h.passed[s]);
    }
    all.extend(&h.stock[h.next..]);
    if let Phase::Claim(w) = &h.phase
        && matches!(w.source, Source::Discard | Source::Draw)
    {
        all.push(w.card);
    }
    all.sort_unstable();
    all
}

/// The same state with everything `viewer` may not see changed: the other hands and the stock
/// reshuffled among themselves, the faces of others' face-down melds replaced.
fn scrambled(st: &State, viewer: SeatNo, rng: &mut Rng) -> State {
    let mut st = st.clone();
    let h = st.table.hand_mut().unwrap();
    let others: Vec<SeatNo> = (0..3).filter(|&s| s != viewer).collect();
    let mut pool: Vec<u8> = h.stock[h.next..].to_vec();
    for &s in &others {
        pool.extend(&h.hands[s]);
    }
    for i in (1..pool.len()).rev() {
        pool.swap(i, rng.below(i + 1));
    }
    let mut it = pool.into_iter();
    let next = h.next;
    for x in h.stock[next..].iter_mut() {
        *x = it.next().unwrap();
    }
    for &s in &others {
        for x in h.hands[s].iter_mut() {
            *x = it.next().unwrap();
        }
        sort_hand(&mut h.hands[s]);
        for m in h.melds[s].iter_mut().filter(|m| m.hidden) {
            let g = (m.faces[0] + 7) % 20;
            m.faces.iter_mut().for_each(|x| *x = g);
        }
    }
    st
}

/// Deals the next hand of `st` from its deck shuffled with a seed drawn from `rng`; returns the
/// deck as dealt and the deal's outcome.
pub(super) fn deal_shuffled(st: &mut State, rng: &mut Rng) -> (Vec<Card>, Outcome) {
    let mut deck = Chehuzi::deck(&st.opts);
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&rng.next().to_le_bytes());
    shuffle(&mut deck, &seed);
    let out = Chehuzi::start_hand(
        st,
        HandStart {
            deck: deck.clone(),
            ctx: T0,
            wallets: vec![0; 3],
            scores: vec![0; 3],
        },
    );
    (deck, out)
}

fn random_action(st: &State, seat: SeatNo, rng: &mut Rng) -> Action {
    let legal = Chehuzi::legal_actions(st, seat);
    assert!(!legal.is_empty(), "seat {seat} to act has actions");
    match &legal[rng.below(legal.len())] {
        Legal::Discard { cards } => Action::Discard {
            card: cards[rng.below(cards.len())],
        },
        Legal::Chi { options } => Action::Chi {
            melds: options[rng.below(options.len())].clone(),
        },
        Legal::Peng {} => Action::Peng {},
        Legal::Hu {} => Action::Hu {},
        Legal::Pass {} => Action::Pass {},
    }
}

#[test]
fn random_hands_keep_every_invariant() {
    let mut rng = Rng(0xc4e2);
    let mut wins = 0;
    let mut hands = 0;
    let mut steps = 0;
    while hands < 10_000 {
        let kings = if rng.chance(50) { 2 } else { 4 };
        let xing = if rng.chance(50) { "fan" } else { "gen" };
        let o = opts(json!({"kings": kings, "xing": xing}));
        let mut st = Chehuzi::new_match(o, 3);
        st.dealer = rng.below(3);
        let (deck, out) = deal_shuffled(&mut st, &mut rng);
        let mut full: Vec<u8> = deck.iter().map(|&c| face_of(c).unwrap()).collect();
        full.sort_unstable();
        check_events(&st, &out);
        hands += 1;
        while let Some(h) = st.table.hand() {
            assert_eq!(all_cards(h), full, "cards conserved");
            let to_act = Chehuzi::to_act(&st);
            assert!(!to_act.is_empty());
            // Views and legal actions do not change when hidden cards do.
            if steps % 7 == 0 {
                let viewer = rng.below(3);
                let other = scrambled(&st, viewer, &mut rng);
                assert_eq!(
                    serde_json::to_string(&Chehuzi::view(&st, Some(viewer))).unwrap(),
                    serde_json::to_string(&Chehuzi::view(&other, Some(viewer))).unwrap(),
                    "view of seat {viewer} leaks"
                );
                assert_eq!(
                    serde_json::to_string(&Chehuzi::legal_actions(&st, viewer)).unwrap(),
                    serde_json::to_string(&Chehuzi::legal_actions(&other, viewer)).unwrap(),
                );
            }
            steps += 1;
            let seat = to_act[rng.below(to_act.len())];
            let action = if rng.chance(20) {
                Chehuzi::auto_action(&st, seat)
            } else {
                random_action(&st, seat, &mut rng)
            };
            let out = Chehuzi::apply(&mut st, seat, action.clone(), T0)
                .unwrap_or_else(|e| panic!("{action:?} refused: {}", e.detail));
            check_events(&st, &out);
            if let Some(r) = out.hand_end {
                assert_eq!(r.units.iter().sum::<i64>(), 0, "zero-sum");
                assert_eq!(r.points, r.units);
                if st.table.last().unwrap().end == End::Win {
                    wins += 1;
                }
            }
        }
        assert_eq!(Chehuzi::stage(&st), Stage::NeedsDeal);
    }
    assert!(wins > 100, "only {wins} wins in {hands} hands");
}

/// A deadline can always move a hand on (what the server relies on for timeouts and 托管): in
/// every wait, the automatic action of every seat in `to_act` is accepted, and hands played by
/// automatic actions alone end.
#[test]
fn every_automatic_action_is_accepted_in_every_wait() {
    let mut rng = Rng(0x7a11_c0de);
    let mut waits = 0;
    for n in 0..1_000 {
        let kings = if rng.chance(50) { 2 } else { 4 };
        let o = opts(json!({"kings": kings}));
        let mut st = Chehuzi::new_match(o, 3);
        st.dealer = rng.below(3);
        deal_shuffled(&mut st, &mut rng);
        // Half the hands are played by automatic actions alone, half by random ones.
        let all_auto = n % 2 == 0;
        let mut steps = 0;
        while st.table.hand().is_some() {
            let to_act = Chehuzi::to_act(&st);
            assert!(!to_act.is_empty(), "a hand in play waits for someone");
            for &seat in &to_act {
                let auto = Chehuzi::auto_action(&st, seat);
                let mut probe = st.clone();
                Chehuzi::apply(&mut probe, seat, auto.clone(), T0).unwrap_or_else(|e| {
                    panic!("automatic {auto:?} of seat {seat} refused: {}", e.detail)
                });
                waits += 1;
            }
            let seat = to_act[rng.below(to_act.len())];
            let action = if all_auto {
                Chehuzi::auto_action(&st, seat)
            } else {
                random_action(&st, seat, &mut rng)
            };
            Chehuzi::apply(&mut st, seat, action, T0).unwrap();
            steps += 1;
            assert!(steps < 1_000, "a hand ends");
        }
    }
    assert!(waits > 10_000, "only {waits} waits checked");
}

/// Events for seats other than the actor never name a card of a face-down meld.
fn check_events(st: &State, out: &Outcome) {
    for e in &out.events {
        if e.kind == "hand" {
            assert!(matches!(&e.to, Visibility::Seats(v) if v.len() == 1));
        }
        let seen_by_others = e.seat.is_some_and(|s| e.to != Visibility::Seats(vec![s]));
        if (e.kind == "ti" || e.kind == "wei")
            && seen_by_others
            && let Some(card) = e.data.get("card")
        {
            let s = e.seat.unwrap();
            let face = face_of(serde_json::from_value(card.clone()).unwrap()).unwrap();
            let shown = st
                .table
                .hand()
                .is_none_or(|h| h.melds[s].iter().any(|m| m.faces[0] == face && !m.hidden));
            assert!(shown, "{e:?} names a face-down card");
        }
    }
}

// ---------------------------------------------------------------- bots

#[test]
fn bot_takes_a_hu_when_offered() {
    let mut st = table(
        opts(json!({})),
        [&["s1", "s1"], BLACK, BLACK],
        &["s6", "s2", "s2"],
        0,
    );
    act(&mut st, 0, discard("s1"));
    assert_eq!(Chehuzi::to_act(&st), vec![1, 2]);
    assert_eq!(Chehuzi::bot_action(&st, 1), Action::Hu {});
    assert_eq!(Chehuzi::bot_action(&st, 2), Action::Hu {});
}

#[test]
fn bot_pengs_and_eats_only_for_huxi() {
    let mut st = table(
        opts(json!({})),
        [&["s5", "b9"], &["s4", "s6", "b1"], &["s5", "s5", "b2"]],
        &["b3", "b4", "b5"],
        0,
    );
    act(&mut st, 0, discard("s5"));
    // 碰 always adds 胡息; 四五六 adds none, so seat 1 lets it go.
    assert_eq!(Chehuzi::bot_action(&st, 2), Action::Peng {});
    assert_eq!(Chehuzi::bot_action(&st, 1), Action::Pass {});
    let mut st = table(
        opts(json!({})),
        [&["s3", "b9"], &["s1", "s2", "b1"], &["b7", "b8", "b2"]],
        &["b3", "b4", "b5"],
        0,
    );
    act(&mut st, 0, discard("s3"));
    // 一二三 is worth 3 胡息.
    assert_eq!(Chehuzi::bot_action(&st, 1), chi(&[&["s1", "s2", "s3"]]));
    let eat = Chehuzi::bot_action(&st, 1);
    act(&mut st, 1, eat);
    assert_eq!(st.table.hand().unwrap().melds[1][0].kind, Kind::Ju);
}

#[test]
fn bot_discards_the_card_least_useful_to_melds() {
    let st = table(
        opts(json!({})),
        [&["s2", "s3", "b5", "b5", "s9"], &["b1"], &["b2"]],
        &["b3"],
        0,
    );
    assert_eq!(Chehuzi::bot_action(&st, 0), discard("s9"));
    // A pair is kept, and so are both halves of a 二七十 start.
    let st = table(
        opts(json!({})),
        [&["s2", "s7", "b5", "b5", "b8"], &["b1"], &["b2"]],
        &["b3"],
        0,
    );
    assert_eq!(Chehuzi::bot_action(&st, 0), discard("b8"));
}

// ---------------------------------------------------------------- event schemas

/// A random legal move of `seat`: the bot's, or one of its legal actions made concrete.
fn random_move(st: &State, seat: SeatNo, rng: &mut Rng) -> Action {
    if rng.chance(40) {
        return Chehuzi::bot_action(st, seat);
    }
    let legal = Chehuzi::legal_actions(st, seat);
    match &legal[rng.below(legal.len())] {
        Legal::Discard { cards } => Action::Discard {
            card: cards[rng.below(cards.len())],
        },
        Legal::Chi { options } => Action::Chi {
            melds: options[rng.below(options.len())].clone(),
        },
        Legal::Peng {} => Action::Peng {},
        Legal::Hu {} => Action::Hu {},
        Legal::Pass {} => Action::Pass {},
    }
}

/// Whole matches of random legal moves, escapes and leaves, with 2 and 4 王霸 and both kinds of
/// 醒: every event's kind has a schema in `event_schemas`, its data is valid against it, and
/// every kind is seen.
#[test]
fn every_event_of_random_matches_matches_its_schema() {
    let mut check = EventCheck::new::<Chehuzi>();
    let mut rng = Rng(13);
    for m in 0..16 {
        let o = opts(json!({
            "kings": if m % 2 == 0 { 2 } else { 4 },
            "xing": if m % 4 < 2 { "fan" } else { "gen" },
        }));
        let plan = Plan {
            options: &o,
            seats: 3,
            hands: 4,
            leaves: true,
        };
        play_match::<Chehuzi>(&mut check, &mut rng, plan, random_move, |_, _| vec![0; 3]);
    }
    check.all_seen(&[]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 64,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Three bots play whole hands: every bot action is accepted, every hand ends, cards are
    /// conserved, no event names a face-down card, results are zero-sum; and a seat's bot
    /// decides the same when everything it may not see is scrambled.
    #[test]
    fn bots_play_whole_hands_legally_and_see_only_their_own_cards(
        seed in proptest::prelude::any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let kings = if rng.chance(50) { 2 } else { 4 };
        let xing = if rng.chance(50) { "fan" } else { "gen" };
        let o = opts(json!({"kings": kings, "xing": xing}));
        let mut st = Chehuzi::new_match(o.clone(), 3);
        st.dealer = rng.below(3);
        for _ in 0..2 {
            let mut deck = Chehuzi::deck(&o);
            let mut shuffle_seed = [0u8; 32];
            shuffle_seed[..8].copy_from_slice(&rng.next().to_le_bytes());
            shuffle(&mut deck, &shuffle_seed);
            let mut full: Vec<u8> = deck.iter().map(|&c| face_of(c).unwrap()).collect();
            full.sort_unstable();
            let out = Chehuzi::start_hand(
                &mut st,
                HandStart {
                    deck,
                    ctx: T0,
                    wallets: vec![0; 3],
                    scores: vec![0; 3],
                },
            );
            check_events(&st, &out);
            let mut steps = 0;
            while let Some(h) = st.table.hand() {
                assert_eq!(all_cards(h), full, "cards conserved");
                steps += 1;
                assert!(steps < 1_000, "a hand ends");
                let seat = Chehuzi::to_act(&st)[0];
                let action = Chehuzi::bot_action(&st, seat);
                let blind = scrambled(&st, seat, &mut rng);
                assert_eq!(Chehuzi::bot_action(&blind, seat), action.clone(), "hidden cards moved");
                let out = Chehuzi::apply(&mut st, seat, action.clone(), T0)
                    .unwrap_or_else(|e| panic!("{action:?} refused: {}", e.detail));
                check_events(&st, &out);
                if let Some(r) = out.hand_end {
                    assert_eq!(r.units.iter().sum::<i64>(), 0, "zero-sum");
                    assert_eq!(r.points, r.units);
                }
            }
        }
    }
}
