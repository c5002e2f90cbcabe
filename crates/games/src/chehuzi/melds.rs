//! Faces, melds (门子) and their 胡息.
//!
//! Inside the engine a card is its face, a `u8`: small 一…十 are 0..=9, big 壹…拾 are 10..=19
//! and 王霸 is [`W`]. Identical cards are interchangeable, so hands are multisets of faces.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cards::Card;

/// 王霸.
pub const W: u8 = 20;
/// Faces of paper cards (W excluded).
pub const FACES: usize = 20;

pub fn face_of(card: Card) -> Option<u8> {
    match card {
        Card::Paper { big, n } if (1..=10).contains(&n) => Some(u8::from(big) * 10 + n - 1),
        Card::Wild => Some(W),
        _ => None,
    }
}

pub fn card_of(face: u8) -> Card {
    if face == W {
        Card::Wild
    } else {
        Card::Paper {
            big: face >= 10,
            n: face % 10 + 1,
        }
    }
}

pub fn is_big(face: u8) -> bool {
    (10..W).contains(&face)
}

/// The number 1..=10 of a paper face.
pub fn number(face: u8) -> u8 {
    face % 10 + 1
}

/// Red cards: 2, 7 and 10 of both cases.
pub fn is_red(face: u8) -> bool {
    face != W && matches!(number(face), 2 | 7 | 10)
}

/// Hand order as api.md asks (strongest first): W, then big 拾…壹, then small 十…一.
pub fn sort_hand(hand: &mut [u8]) {
    hand.sort_unstable_by(|a, b| b.cmp(a));
}

pub fn cards_of(faces: &[u8]) -> Vec<Card> {
    faces.iter().map(|&f| card_of(f)).collect()
}

/// Kinds of 门子.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// 句: three consecutive numbers of one case, or 二七十 of one case.
    Ju,
    /// 绞: three of one number mixing cases.
    Jiao,
    /// 坎: three identical cards in hand.
    Kan,
    /// 偎 (啸): a pair in hand plus one's own draw, face down.
    Wei,
    /// 臭偎: a 偎 of a face one declined to 碰, shown.
    ChouWei,
    /// 碰: a pair plus another player's card.
    Peng,
    /// 跑: four identical with another's card, or on top of one's 碰/偎.
    Pao,
    /// 提 (倾): four identical of one's own.
    Ti,
    /// 将: a pair, a 门子 only beside a 跑 or 提.
    Jiang,
}

impl Kind {
    /// 跑 and 提 make a 将 necessary.
    pub fn is_quad(self) -> bool {
        matches!(self, Kind::Pao | Kind::Ti)
    }
}

/// 胡息 of a meld whose cards stand for `faces` (a W counts as what it stands for).
pub fn huxi(kind: Kind, faces: &[u8]) -> u8 {
    let big = faces.first().is_some_and(|&f| is_big(f));
    let (small, large) = match kind {
        Kind::Peng => (1, 3),
        Kind::Kan | Kind::Wei | Kind::ChouWei => (3, 6),
        Kind::Pao => (6, 9),
        Kind::Ti => (9, 12),
        Kind::Ju => {
            let mut n: Vec<u8> = faces.iter().map(|&f| number(f)).collect();
            n.sort_unstable();
            if n == [1, 2, 3] || n == [2, 7, 10] {
                (3, 6)
            } else {
                (0, 0)
            }
        }
        Kind::Jiao | Kind::Jiang => (0, 0),
    };
    if big { large } else { small }
}

/// Whether three faces (no W) form a meld that may be laid down by 吃: a 句 or a 绞.
pub fn chi_kind(faces: &[u8]) -> Option<Kind> {
    if faces.len() != 3 || faces.contains(&W) {
        return None;
    }
    let mut f = faces.to_vec();
    f.sort_unstable();
    let same_case = f.iter().all(|&x| is_big(x) == is_big(f[0]));
    let mut n: Vec<u8> = f.iter().map(|&x| number(x)).collect();
    n.sort_unstable();
    if same_case && ((n[1] == n[0] + 1 && n[2] == n[1] + 1) || n == [2, 7, 10]) {
        return Some(Kind::Ju);
    }
    let bigs = f.iter().filter(|&&x| is_big(x)).count();
    if n[0] == n[2] && (bigs == 1 || bigs == 2) {
        return Some(Kind::Jiao);
    }
    None
}

/// A meld shape the win search may lay over the hand: faces it stands for, with multiplicity.
#[derive(Clone, Debug)]
pub struct Template {
    pub kind: Kind,
    /// The faces the meld stands for, e.g. `[3, 4, 5]` or `[7, 7, 17]`.
    pub faces: Vec<u8>,
    /// Distinct faces with their multiplicity.
    pub parts: Vec<(u8, u8)>,
}

impl Template {
    fn new(kind: Kind, faces: Vec<u8>) -> Template {
        let mut parts: Vec<(u8, u8)> = Vec::new();
        for &f in &faces {
            match parts.iter_mut().find(|(g, _)| *g == f) {
                Some(p) => p.1 += 1,
                None => parts.push((f, 1)),
            }
        }
        Template { kind, faces, parts }
    }
}

/// Every meld a hand can hold: 句, 绞, 坎, four identical (`quad`: 提 or 跑 by how the hand
/// was won) and 将.
pub fn templates(quad: Kind) -> Vec<Template> {
    let mut t = Vec::new();
    for case in [0u8, 10] {
        for n in 0..8 {
            t.push(Template::new(
                Kind::Ju,
                vec![case + n, case + n + 1, case + n + 2],
            ));
        }
        t.push(Template::new(Kind::Ju, vec![case + 1, case + 6, case + 9]));
    }
    for n in 0..10u8 {
        t.push(Template::new(Kind::Jiao, vec![n, n, n + 10]));
        t.push(Template::new(Kind::Jiao, vec![n, n + 10, n + 10]));
    }
    for f in 0..FACES as u8 {
        t.push(Template::new(Kind::Kan, vec![f; 3]));
        t.push(Template::new(quad, vec![f; 4]));
        t.push(Template::new(Kind::Jiang, vec![f; 2]));
    }
    t
}

/// The bit of `face` in a set of faces.
pub fn bit(face: u8) -> u32 {
    1 << face
}

/// Copies of `face` in `hand`.
pub fn count(hand: &[u8], face: u8) -> usize {
    hand.iter().filter(|&&f| f == face).count()
}

/// Takes `n` copies of `face` out of `hand` (as many as it holds).
pub fn remove_n(hand: &mut Vec<u8>, face: u8, n: usize) {
    for _ in 0..n {
        if let Some(i) = hand.iter().position(|&f| f == face) {
            hand.remove(i);
        }
    }
}
