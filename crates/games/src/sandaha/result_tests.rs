//! The result table (大光 … 大倒) against the seed's own figures, with 双进单出, and the seed's
//! scoring example in its own cards.

use super::*;

/// Each defender's points per row, for a bid: (P, verdict, each defender's points).
fn table_rows(bid: u32) -> Vec<(u32, Verdict, i64)> {
    let u = base_score(bid);
    vec![
        (0, Verdict::Daguang, -8 * u),
        (5, Verdict::Xiaoguang, -4 * u),
        (20, Verdict::Xiaoguang, -4 * u),
        (25, Verdict::Guozhuang, -2 * u),
        (bid - 5, Verdict::Guozhuang, -2 * u),
        (bid, Verdict::Kuazhuang, u),
        (bid + 35, Verdict::Kuazhuang, u),
        (bid + 40, Verdict::Xiaodao, 2 * u),
        (bid + 75, Verdict::Xiaodao, 2 * u),
        (bid + 80, Verdict::Dadao, 4 * u),
        (bid + 200, Verdict::Dadao, 4 * u),
    ]
}

#[test]
fn result_table_at_bid_90() {
    assert_eq!(base_score(90), 1);
    for (p, verdict, each) in table_rows(90) {
        let (v, pts) = scoring::settle(0, 90, 1, p);
        assert_eq!(
            (v, pts),
            (verdict, [-3 * each, each, each, each]),
            "P = {p}"
        );
    }
}

#[test]
fn result_table_at_bid_85() {
    assert_eq!(base_score(85), 2);
    for (p, verdict, each) in table_rows(85) {
        let (v, pts) = scoring::settle(2, 85, 2, p);
        assert_eq!(
            (v, pts),
            (verdict, [each, each, -3 * each, each]),
            "P = {p}"
        );
    }
}

#[test]
fn result_table_at_bid_70() {
    assert_eq!(base_score(70), 5);
    for (p, verdict, each) in table_rows(70) {
        let (v, pts) = scoring::settle(3, 70, 5, p);
        assert_eq!(
            (v, pts),
            (verdict, [each, each, each, -3 * each]),
            "P = {p}"
        );
    }
}

#[test]
fn result_table_at_unlimited_bid_60() {
    assert_eq!(base_score(60), 7);
    for (p, verdict, each) in table_rows(60) {
        let (v, pts) = scoring::settle(1, 60, 7, p);
        assert_eq!(
            (v, pts),
            (verdict, [each, -3 * each, each, each]),
            "P = {p}"
        );
    }
}

/// The seed's own figures at a bid of 80 (90分起叫，85分就是2分起，80分就是3分起: u = 3), and where
/// 双进单出 doubles them (若赢了此局，则闲家出双倍分给庄家; 若输了此局，庄家只需要按一倍的分出给闲家).
/// The seed's 大光 and 小光 examples swap their numbers; its definitions rule (大光 ×4, 小光 ×2).
#[test]
fn the_seeds_figures_at_bid_80_and_the_doubling_of_the_bankers_wins() {
    assert_eq!(base_score(80), 3);
    // (P, row, the seed's figure per defender, whether the banker won)
    let rows = [
        // 大光: 其余三个玩家每人出12分给庄家, doubled to 24.
        (0, Verdict::Daguang, 12, true),
        // 小光: 6, doubled to 12.
        (20, Verdict::Xiaoguang, 6, true),
        // 过庄: 由其余闲家各出1分, 每降一级各多出1分: 3, doubled to 6.
        (40, Verdict::Guozhuang, 3, true),
        // 垮庄: 与过庄相反, 庄家出相应的分数: 3 to each defender, not doubled.
        (80, Verdict::Kuazhuang, 3, false),
        // 小倒: 庄家每人出6分给其余三个玩家.
        (120, Verdict::Xiaodao, 6, false),
        // 大倒: 庄家每人出12分给其余三个玩家.
        (160, Verdict::Dadao, 12, false),
    ];
    for (p, row, seed, banker_won) in rows {
        let each = if banker_won { -2 * seed } else { seed };
        assert_eq!(
            scoring::settle(0, 80, 3, p),
            (row, [-3 * each, each, each, each]),
            "P = {p}"
        );
    }
}

/// 小光: the defenders took 1 to 24 points (闲家得分低于25分) and the banker won: each defender
/// pays 2 × 2u. At 25 it is 过庄; with nothing taken, 大光; at or over the bid, the defenders'
/// win, even when the bid is 25 or less.
#[test]
fn xiaoguang_is_a_banker_win_with_1_to_24_points() {
    for p in [5, 10, 20] {
        assert_eq!(
            scoring::settle(1, 80, 3, p),
            (Verdict::Xiaoguang, [-12, 36, -12, -12]),
            "P = {p}"
        );
    }
    assert_eq!(Verdict::of(25, 80), Verdict::Guozhuang);
    assert_eq!(Verdict::of(0, 80), Verdict::Daguang);
    assert_eq!(Verdict::of(20, 20), Verdict::Kuazhuang);
    assert_eq!(Verdict::of(15, 20), Verdict::Xiaoguang);
}

/// The seed's 上分 example in its own cards: A 梅花5, B 梅花6 (B the banker), C 梅花8, D 梅花7 (主牌,
/// a 副7): D takes A's 5, 闲家得分计为5分, and D leads the next round. The banker takes the last
/// trick, so the hand ends at 5 points: 小光 at a bid of 80, each defender paying 2 × 2 × 3.
#[test]
fn seed_example_club_seven_takes_the_five_and_the_defenders_score_5() {
    let mut st = tests::at_play(
        [&["5C", "9D"], &["6C", "AD"], &["8C", "6D"], &["7C", "8D"]],
        &["6S", "6S", "8S", "8S", "9S", "9S", "JS", "JS"],
        1,
        80,
        Some(Suit::H),
    );
    tests::lead_from(&mut st, 0, 0);
    tests::play(&mut st, 0, &["5C"]);
    tests::play(&mut st, 1, &["6C"]);
    tests::play(&mut st, 2, &["8C"]);
    let out = tests::play(&mut st, 3, &["7C"]);
    let won = out.events.iter().find(|e| e.kind == "trick_won").unwrap();
    assert_eq!(won.seat, Some(3));
    assert_eq!(won.data["defenders_points"], 5, "闲家得分计为5分");
    assert_eq!(Sandaha::view(&st, None).defenders_points, 5);
    assert_eq!(Sandaha::to_act(&st), vec![3], "下一轮由玩家D出牌");
    tests::play(&mut st, 3, &["8D"]);
    tests::play(&mut st, 0, &["9D"]);
    tests::play(&mut st, 1, &["AD"]);
    let out = tests::play(&mut st, 2, &["6D"]);
    let (points, verdict, capture, pts) = tests::played(&out);
    assert_eq!((points, verdict, capture), (5, Verdict::Xiaoguang, None));
    assert_eq!(pts, vec![-12, 36, -12, -12]);
}
