//! The seed's combined 名堂 with 红胡 and 一点朱 (四、名堂): 红胡王钓（王闯、三王闯）8（16，32）番 and
//! 点胡王钓（王闯、三王闯）12（24，48）番, each the product of its parts (the seed's 三王闯 is the
//! rulings' 王闯王, ×16, with four kings). 黑胡's are in `tests`.

use super::melds::W;
use super::scoring::{Taken, WinCase, best_win, tun};
use super::*;

fn faces(list: &[&str]) -> Vec<u8> {
    list.iter()
        .map(|c| face_of(Card::parse(c).unwrap()).unwrap())
        .collect()
}

/// The best win of `hand` (plus a drawn W, which joins the hand) on the winner's own draw of
/// `card`, beside `table`.
fn own_draw(hand: &[&str], table: &[(Kind, Vec<u8>)], card: &str, kings: u8) -> scoring::Win {
    let mut hand = faces(hand);
    let card = faces(&[card])[0];
    let taken = if card == W {
        hand.push(W);
        Taken::Placed
    } else {
        Taken::OwnDraw
    };
    best_win(&WinCase {
        hand: &hand,
        table,
        card,
        taken,
        xing: None,
        kings,
    })
    .expect("wins")
}

/// A 提 of 壹 on the table; in hand 贰柒拾, 二七十, 三四五, 柒捌玖, 六七八 and a lone W, which the
/// drawn 二 makes a 将 (王钓): 10 red (W as 二), 21 胡息.
const DIAO_RED: &[&str] = &[
    "b2", "b7", "b10", "s2", "s7", "s10", "s3", "s4", "s5", "b7", "b8", "b9", "s6", "s7", "s8", "W",
];

#[test]
fn honghu_wangdiao_is_eight_fan() {
    let table = [(Kind::Ti, faces(&["b1"; 4]))];
    let w = own_draw(DIAO_RED, &table, "s2", 2);
    assert_eq!(w.reds, 10);
    assert_eq!(w.names, vec![Mingtang::HongHu, Mingtang::WangDiao]);
    assert_eq!(w.fan, 8);
    assert_eq!(w.score, tun(w.huxi) * 8);
}

/// Six 门子 (贰柒拾, 二七十, a 坎 of 壹, 三四五, 叁肆伍, 六七八) and a W pair, which the drawn 七 makes
/// a 坎 (王闯): 10 red, 18 胡息.
const CHUANG_RED: &[&str] = &[
    "b2", "b7", "b10", "s2", "s7", "s10", "b1", "b1", "b1", "s3", "s4", "s5", "b3", "b4", "b5",
    "s6", "s7", "s8", "W", "W",
];

#[test]
fn honghu_wangchuang_is_sixteen_fan() {
    let w = own_draw(CHUANG_RED, &[], "s7", 2);
    assert_eq!(w.reds, 10);
    assert_eq!(w.names, vec![Mingtang::HongHu, Mingtang::WangChuang]);
    assert_eq!(w.fan, 16);
}

#[test]
fn honghu_wangchuangwang_is_thirty_two_fan_with_four_kings() {
    let w = own_draw(CHUANG_RED, &[], "W", 4);
    assert_eq!(w.reds, 10, "the W 坎 stands for a red card");
    assert_eq!(w.names, vec![Mingtang::HongHu, Mingtang::WangChuangWang]);
    assert_eq!(w.fan, 32);
}

/// A 提 of 壹 on the table; in hand a 坎 of 叁, 五六七, 肆伍陆, 九九玖 and 三四五 (one red: 七), and
/// a lone W, which the drawn 捌 makes a black 将 (王钓): 18 胡息.
const DIAO_ONE_RED: &[&str] = &[
    "b3", "b3", "b3", "s5", "s6", "s7", "b4", "b5", "b6", "s9", "s9", "b9", "s3", "s4", "s5", "W",
];

#[test]
fn yidianzhu_wangdiao_is_twelve_fan() {
    let table = [(Kind::Ti, faces(&["b1"; 4]))];
    let w = own_draw(DIAO_ONE_RED, &table, "b8", 2);
    assert_eq!(w.reds, 1);
    assert_eq!(w.names, vec![Mingtang::YiDianZhu, Mingtang::WangDiao]);
    assert_eq!(w.fan, 12);
    assert_eq!(w.score, tun(18) * 12);
}

/// Six 门子 (坎 of 壹, 叁, 肆, 三四五, 五六七, 九九玖: one red) and a W pair, which the drawn 八 makes a
/// black 坎 (王闯): 21 胡息.
const CHUANG_ONE_RED: &[&str] = &[
    "b1", "b1", "b1", "b3", "b3", "b3", "b4", "b4", "b4", "s3", "s4", "s5", "s5", "s6", "s7", "s9",
    "s9", "b9", "W", "W",
];

#[test]
fn yidianzhu_wangchuang_is_twenty_four_fan() {
    let w = own_draw(CHUANG_ONE_RED, &[], "s8", 2);
    assert_eq!(w.reds, 1);
    assert_eq!(w.names, vec![Mingtang::YiDianZhu, Mingtang::WangChuang]);
    assert_eq!(w.fan, 24);
    assert_eq!(w.score, tun(21) * 24);
}

#[test]
fn yidianzhu_wangchuangwang_is_forty_eight_fan_with_four_kings() {
    let w = own_draw(CHUANG_ONE_RED, &[], "W", 4);
    assert_eq!(w.reds, 1, "the W 坎 stands for a black card");
    assert_eq!(w.names, vec![Mingtang::YiDianZhu, Mingtang::WangChuangWang]);
    assert_eq!(w.fan, 48);
}
