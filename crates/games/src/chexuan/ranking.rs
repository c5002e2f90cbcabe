//! How 扯旋 hands compare: the rulings' table of the 32 cards, single cards, two-card hands (头
//! and 尾), splits of four cards into a head and a tail, the server's own split and the 三花
//! hands (rulings § Two-card hands).

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::cards::{Card, JACK, QUEEN};

/// A card as the game sees it: only its colour and face matter (suits of one colour are equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Face {
    Red(u8),
    Black(u8),
    Joker,
}

fn face(card: Card) -> Face {
    match card {
        Card::Suited { rank, suit } if suit.is_red() => Face::Red(rank),
        Card::Suited { rank, .. } => Face::Black(rank),
        _ => Face::Joker,
    }
}

/// The 32 cards of the rulings' table, in its order.
pub(super) fn deck_cards() -> Vec<Card> {
    crate::hand![
        "QH", "QD", "2H", "2D", "8H", "8D", "4H", "4D", "10S", "10C", "4S", "4C", "6S", "6C", "JS",
        "JC", "10H", "10D", "6H", "6D", "7H", "7D", "5S", "5C", "7S", "7C", "8S", "8C", "9S", "9C",
        "3H", "RJ"
    ]
}

/// The single-card order used only to break ties between 散牌 of equal points:
/// 红Q > 红2 > 红8 > 红4 > (黑10 = 黑4 = 黑6) > (黑J = 红10 = 红6 = 红7) > (黑5 = 黑7 = 黑8 = 黑9 = 3H = RJ).
pub fn single_order(card: Card) -> u8 {
    match face(card) {
        Face::Red(QUEEN) => 6,
        Face::Red(2) => 5,
        Face::Red(8) => 4,
        Face::Red(4) => 3,
        Face::Black(10 | 4 | 6) => 2,
        Face::Black(JACK) | Face::Red(10 | 6 | 7) => 1,
        _ => 0,
    }
}

/// Cards as api.md wants a hand shown: strongest first by the single-card order, ties in the
/// rulings' table order.
pub(super) fn sorted(cards: &[Card]) -> Vec<Card> {
    let table = deck_cards();
    let mut v = cards.to_vec();
    v.sort_by_key(|c| {
        (
            std::cmp::Reverse(single_order(*c)),
            table.iter().position(|t| t == c),
        )
    });
    v
}

/// Points of one card: Q is 2, J is 1, the big joker 6, 10 is 0, the others their face.
pub fn card_points(card: Card) -> u8 {
    match face(card) {
        Face::Joker => 6,
        Face::Red(r) | Face::Black(r) => match r {
            QUEEN => 2,
            JACK => 1,
            10 => 0,
            n => n,
        },
    }
}

/// The strength of a two-card hand. `class` 0 is 散牌, ordered by points then the higher and the
/// lower single card; every named hand has a class above it and no further tie-break, so hands
/// the rulings list as equal (梅十 = 板凳 = 长三, 天杠 with any 8, …) compare equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PairRank {
    pub class: u8,
    pub points: u8,
    pub high: u8,
    pub low: u8,
}

/// The class of each named hand, strongest first (rulings 1–17); 散牌 is 0.
fn named(x: Face, y: Face) -> Option<(u8, &'static str)> {
    use Face::{Black, Joker, Red};
    Some(match (x, y) {
        (Red(3), Joker) => (17, "丁皇"),
        (Red(QUEEN), Red(QUEEN)) => (16, "天牌"),
        (Red(2), Red(2)) => (15, "地牌"),
        (Red(8), Red(8)) => (14, "人牌"),
        (Red(4), Red(4)) => (13, "和牌"),
        (Black(10), Black(10)) => (12, "梅十"),
        (Black(4), Black(4)) => (12, "板凳"),
        (Black(6), Black(6)) => (12, "长三"),
        (Black(JACK), Black(JACK)) => (11, "虎头"),
        (Red(10), Red(10)) => (11, "苕十"),
        (Red(6), Red(6)) => (11, "猫猫"),
        (Red(7), Red(7)) => (11, "膏药"),
        (Black(a), Black(b)) if a == b && matches!(a, 5 | 7 | 8 | 9) => (10, "杂对"),
        (Red(QUEEN), Black(9)) => (9, "奶狗"),
        (Red(QUEEN), Red(8) | Black(8)) => (8, "天杠"),
        (Red(2), Red(8) | Black(8)) => (7, "地杠"),
        (Red(QUEEN), Red(7) | Black(7)) => (6, "天关九"),
        (Red(2), Red(7) | Black(7)) => (5, "地关九"),
        (Red(8), Black(JACK)) => (4, "灯笼九"),
        (Red(4), Black(5)) => (3, "和五九"),
        (Black(4), Black(5)) => (2, "板五九"),
        (Red(3), Black(6)) => (2, "丁长九"),
        (Black(10), Black(9)) => (2, "梅十九"),
        (Red(3), Red(6)) => (1, "丁猫九"),
        (Black(8), Black(JACK)) => (1, "乌龙九"),
        (Red(10), Black(9)) => (1, "苕十九"),
        _ => return None,
    })
}

/// Ranks a two-card hand and names it (散牌 are named by their points, "8点").
pub fn rank_pair(a: Card, b: Card) -> (PairRank, String) {
    if let Some((class, name)) = named(face(a), face(b)).or_else(|| named(face(b), face(a))) {
        let rank = PairRank {
            class,
            points: 0,
            high: 0,
            low: 0,
        };
        return (rank, name.to_string());
    }
    let points = (card_points(a) + card_points(b)) % 10;
    let (sa, sb) = (single_order(a), single_order(b));
    let rank = PairRank {
        class: 0,
        points,
        high: sa.max(sb),
        low: sa.min(sb),
    };
    (rank, format!("{points}点"))
}

pub fn pair_rank(cards: [Card; 2]) -> PairRank {
    rank_pair(cards[0], cards[1]).0
}

/// Four cards split into a head (头) and a tail (尾); the head is never weaker than the tail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Split {
    pub head: [Card; 2],
    pub tail: [Card; 2],
}

impl Split {
    /// Orders the two halves so that the head is the stronger one (the seed: 服务器直接按该分牌自动排列);
    /// says whether it had to swap them.
    pub fn arranged(head: [Card; 2], tail: [Card; 2]) -> (Split, bool) {
        if pair_rank(head) < pair_rank(tail) {
            (
                Split {
                    head: tail,
                    tail: head,
                },
                true,
            )
        } else {
            (Split { head, tail }, false)
        }
    }

    pub fn head_rank(&self) -> PairRank {
        pair_rank(self.head)
    }

    pub fn tail_rank(&self) -> PairRank {
        pair_rank(self.tail)
    }
}

/// X beats Y when one half is stronger and the other stronger or equal; one stronger and one
/// weaker, or both equal, is a tie (the seed's example 2).
pub fn versus(x: (PairRank, PairRank), y: (PairRank, PairRank)) -> Ordering {
    use Ordering::{Equal, Greater, Less};
    match (x.0.cmp(&y.0), x.1.cmp(&y.1)) {
        (Greater, Greater | Equal) | (Equal, Greater) => Greater,
        (Less, Less | Equal) | (Equal, Less) => Less,
        _ => Equal,
    }
}

/// The split the server makes for a seat that did not split in time: of the three ways to pair
/// four cards, the one whose weaker half is strongest, then whose stronger half is strongest
/// (the first such pairing in a fixed enumeration when several are equal).
pub fn server_split(cards: [Card; 4]) -> Split {
    let [a, b, c, d] = cards;
    let candidates = [([a, b], [c, d]), ([a, c], [b, d]), ([a, d], [b, c])];
    let mut best: Option<(Split, (PairRank, PairRank))> = None;
    for (x, y) in candidates {
        let (split, _) = Split::arranged(x, y);
        let key = (split.tail_rank(), split.head_rank());
        if best.as_ref().is_none_or(|(_, k)| key > *k) {
            best = Some((split, key));
        }
    }
    best.map(|(s, _)| s).unwrap_or(Split {
        head: [a, b],
        tail: [c, d],
    })
}

/// 三花十 (黑10 + 红10 + 黑J + any) or 三花六 (黑6 + 红6 + RJ + any): that player neither wins nor
/// loses the hand.
pub fn sanhua(cards: &[Card]) -> Option<&'static str> {
    let has = |f: Face| cards.iter().any(|&c| face(c) == f);
    if has(Face::Black(10)) && has(Face::Red(10)) && has(Face::Black(JACK)) {
        Some("三花十")
    } else if has(Face::Black(6)) && has(Face::Red(6)) && has(Face::Joker) {
        Some("三花六")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hand;

    fn pair(a: &str, b: &str) -> PairRank {
        let v = hand![a, b];
        pair_rank([v[0], v[1]])
    }

    fn split(head: [&str; 2], tail: [&str; 2]) -> (PairRank, PairRank) {
        (pair(head[0], head[1]), pair(tail[0], tail[1]))
    }

    /// Every class of the rulings' list, strongest first; each inner list is one group of equal
    /// hands, written as every card combination the deck allows where that is short.
    fn classes() -> Vec<Vec<[&'static str; 2]>> {
        vec![
            vec![["3H", "RJ"]],
            vec![["QH", "QD"]],
            vec![["2H", "2D"]],
            vec![["8H", "8D"]],
            vec![["4H", "4D"]],
            vec![["10S", "10C"], ["4S", "4C"], ["6S", "6C"]],
            vec![["JS", "JC"], ["10H", "10D"], ["6H", "6D"], ["7H", "7D"]],
            vec![["5S", "5C"], ["7S", "7C"], ["8S", "8C"], ["9S", "9C"]],
            vec![["QH", "9S"], ["QD", "9C"]],
            vec![["QH", "8H"], ["QD", "8S"], ["8C", "QH"]],
            vec![["2H", "8D"], ["2D", "8C"]],
            vec![["QH", "7D"], ["QD", "7S"]],
            vec![["2H", "7H"], ["7C", "2D"]],
            vec![["8H", "JS"], ["8D", "JC"]],
            vec![["4H", "5S"], ["4D", "5C"]],
            vec![["4S", "5S"], ["3H", "6S"], ["10C", "9S"]],
            vec![["3H", "6H"], ["8S", "JC"], ["10H", "9C"]],
            // The best 散牌 (8 points) is still below every named hand.
            vec![["QH", "6S"]],
        ]
    }

    #[test]
    fn two_card_classes_are_ordered_as_the_rulings_list_and_groups_are_equal() {
        let classes = classes();
        for (i, group) in classes.iter().enumerate() {
            let first = pair(group[0][0], group[0][1]);
            for p in group {
                assert_eq!(pair(p[0], p[1]), first, "{p:?} equals {:?}", group[0]);
                assert_eq!(
                    pair(p[1], p[0]),
                    first,
                    "order of the two cards is irrelevant"
                );
            }
            if let Some(next) = classes.get(i + 1) {
                for p in group {
                    for q in next {
                        assert!(pair(p[0], p[1]) > pair(q[0], q[1]), "{p:?} beats {q:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn two_card_names_follow_the_rulings() {
        let names = [
            (["3H", "RJ"], "丁皇"),
            (["QD", "QH"], "天牌"),
            (["9C", "QD"], "奶狗"),
            (["QH", "8S"], "天杠"),
            (["2D", "8H"], "地杠"),
            (["QH", "7C"], "天关九"),
            (["2H", "7S"], "地关九"),
            (["8D", "JS"], "灯笼九"),
            (["4H", "5C"], "和五九"),
            (["4S", "5C"], "板五九"),
            (["6C", "3H"], "丁长九"),
            (["10S", "9C"], "梅十九"),
            (["6D", "3H"], "丁猫九"),
            (["JC", "8C"], "乌龙九"),
            (["10D", "9S"], "苕十九"),
            (["5S", "7S"], "2点"),
        ];
        for (cards, name) in names {
            let v = hand![cards[0], cards[1]];
            assert_eq!(rank_pair(v[0], v[1]).1, name, "{cards:?}");
        }
    }

    #[test]
    fn sanpai_ranks_by_points_nine_highest_zero_lowest() {
        // 8 points beats 7 beats … beats 0, whatever the single cards.
        let by_points = [
            ["RJ", "2H"],  // 8
            ["5S", "2D"],  // 7
            ["2H", "4S"],  // 6
            ["QH", "3H"],  // 5
            ["QD", "2H"],  // 4
            ["JS", "2D"],  // 3
            ["QH", "10S"], // 2
            ["JS", "10H"], // 1
            ["4S", "6H"],  // 0
        ];
        for w in by_points.windows(2) {
            assert!(pair(w[0][0], w[0][1]) > pair(w[1][0], w[1][1]), "{w:?}");
        }
    }

    #[test]
    fn sanpai_ties_are_broken_by_the_higher_then_the_lower_single_card() {
        // Points first: 8 points (红2 + RJ) beat 7 points even with a 红Q (红Q + 黑5).
        assert!(pair("RJ", "2H") > pair("QH", "5S"));
        // 6 points each: the higher single card decides, 红Q (红Q + 黑4) over 红2 (红2 + 黑4).
        assert!(pair("QH", "4S") > pair("2H", "4C"));
        // 7 points each: 黑10 + 黑7 over 红10 + 黑7 (黑10 is the stronger single card).
        assert!(pair("10S", "7S") > pair("10H", "7C"));
        // 4 points each, same higher card 红4: the lower card decides, 黑10 over 红10.
        assert!(pair("4H", "10S") > pair("4D", "10H"));
        // Same points and same single cards: equal.
        assert_eq!(pair("5S", "2H"), pair("5C", "2D"));
        assert_eq!(pair("7S", "9S"), pair("7C", "9C"));
    }

    #[test]
    fn single_card_order_matches_the_rulings() {
        let order: Vec<Vec<&str>> = vec![
            vec!["QH", "QD"],
            vec!["2H", "2D"],
            vec!["8H", "8D"],
            vec!["4H", "4D"],
            vec!["10S", "10C", "4S", "4C", "6S", "6C"],
            vec!["JS", "JC", "10H", "10D", "6H", "6D", "7H", "7D"],
            vec!["5S", "5C", "7S", "7C", "8S", "8C", "9S", "9C", "3H", "RJ"],
        ];
        for (i, group) in order.iter().enumerate() {
            for c in group {
                let card = Card::parse(c).unwrap();
                assert_eq!(single_order(card) as usize, 6 - i, "{c}");
            }
        }
    }

    fn sanhua_of(cards: [&str; 4]) -> Option<&'static str> {
        sanhua(&cards.map(|c| Card::parse(c).unwrap()))
    }

    #[test]
    fn sanhua_shi_and_sanhua_liu_are_recognised() {
        assert_eq!(sanhua_of(["10S", "10H", "JC", "QH"]), Some("三花十"));
        assert_eq!(sanhua_of(["10C", "10D", "JS", "2H"]), Some("三花十"));
        assert_eq!(sanhua_of(["6S", "6H", "RJ", "3H"]), Some("三花六"));
        assert_eq!(sanhua_of(["6C", "6D", "RJ", "9S"]), Some("三花六"));
        assert_eq!(sanhua_of(["10S", "10C", "JC", "QH"]), None);
        assert_eq!(sanhua_of(["6S", "6C", "RJ", "QH"]), None);
        assert_eq!(sanhua_of(["10S", "10H", "7C", "QH"]), None);
    }

    #[test]
    fn seed_split_example_1_both_halves_stronger_wins() {
        // a: head 天杠 (红Q+黑8), tail 9 (黑4+黑5 = 板五九); b: head 地杠 (红2+黑8), tail 8 (红4+黑4).
        let a = split(["QH", "8S"], ["4S", "5S"]);
        let b = split(["2H", "8C"], ["4H", "4C"]);
        assert_eq!(versus(a, b), Ordering::Greater);
        assert_eq!(versus(b, a), Ordering::Less);
    }

    #[test]
    fn seed_split_example_2_one_stronger_one_weaker_ties() {
        // a: 红2 pair, 黑7, 红8; b: 红Q, 黑7, 黑8, 黑J.
        let a_digang_9 = split(["2H", "8H"], ["2D", "7S"]);
        let b_tiangang_8 = split(["QH", "8S"], ["7C", "JS"]);
        let b_9_9 = split(["QH", "7C"], ["8S", "JS"]);
        // 地杠 < 天杠 but 9 > 8: a tie.
        assert_eq!(versus(a_digang_9, b_tiangang_8), Ordering::Equal);
        // 地杠 > 天关九 and 9 (地关九) > 9 (乌龙九): b loses both halves.
        assert_eq!(versus(a_digang_9, b_9_9), Ordering::Greater);
        assert_eq!(versus(b_9_9, a_digang_9), Ordering::Less);
        // The other split of a: head 地牌 pair, tail 5 (红8+黑7).
        let a_pair_5 = split(["2H", "2D"], ["8H", "7S"]);
        assert_eq!(a_pair_5.1.points, 5);
        assert_eq!(versus(a_pair_5, b_tiangang_8), Ordering::Equal);
    }

    #[test]
    fn one_half_stronger_and_the_other_equal_wins_and_both_equal_ties() {
        let x = split(["QH", "QD"], ["5S", "2H"]);
        let y = split(["2H", "2D"], ["5C", "2D"]);
        assert_eq!(versus(x, y), Ordering::Greater);
        let z = split(["10S", "10C"], ["5S", "2H"]);
        let w = split(["4S", "4C"], ["5C", "2D"]);
        assert_eq!(versus(z, w), Ordering::Equal);
    }

    #[test]
    fn head_weaker_than_tail_is_swapped_automatically() {
        let v = hand!["5S", "2H", "QH", "QD"];
        let (s, swapped) = Split::arranged([v[0], v[1]], [v[2], v[3]]);
        assert!(swapped);
        assert_eq!(s.head, [v[2], v[3]]);
        assert_eq!(s.tail, [v[0], v[1]]);
        let (s2, swapped2) = Split::arranged([v[2], v[3]], [v[0], v[1]]);
        assert!(!swapped2);
        assert_eq!(s2, s);
    }

    #[test]
    fn server_split_maximises_the_weaker_half_then_the_stronger() {
        // 红2 pair, 黑7, 红8: 2H+2D / 8H+7S gives (地牌, 5); 2H+8H / 2D+7S gives (地杠, 地关九).
        // The weaker halves: 5 points vs 地关九 vs (2H+7S 地关九 / 2D+8H 地杠): the best weaker
        // half is 地关九, and both pairings with it have 地杠 as the stronger half.
        let s = server_split(hand!["2H", "2D", "7S", "8H"].try_into().unwrap());
        assert_eq!(pair_rank(s.head).class, 7); // 地杠
        assert_eq!(pair_rank(s.tail).class, 5); // 地关九
        // 红Q, 黑7, 黑8, 黑J: (天关九, 乌龙九) beats (天杠, 8点) and (5点, 3点) on the weaker half.
        let s = server_split(hand!["QH", "7S", "8S", "JS"].try_into().unwrap());
        assert_eq!(s.head_rank(), pair("QH", "7S"));
        assert_eq!(s.tail_rank(), pair("8S", "JS"));
        assert!(s.head_rank() >= s.tail_rank());
    }
}
