//! 胡息 totals, 名堂 (番), 囤, 醒, and the settlements: a win, 荒庄 and 逃跑.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::melds::{Kind, W, face_of, number};
use super::win::{Acc, HandMeld, Params, Search, counts_of};
use crate::cards::Card;
use crate::engine::SeatNo;

/// 名堂 of a win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mingtang {
    /// 红胡: ten or more red cards, ×2.
    HongHu,
    /// 红转点: 13 to 15 red cards, ×3.
    HongZhuanDian,
    /// 红转黑: 16 or more red cards, ×4.
    HongZhuanHei,
    /// 一点朱: exactly one red card, ×3.
    YiDianZhu,
    /// 黑胡: no red card, ×4.
    HeiHu,
    /// 自摸: won on one's own draw holding no W, ×2.
    ZiMo,
    /// 王钓: a drawn card pairs a lone W as 将, ×4.
    WangDiao,
    /// 王钓王: 王钓 with a drawn W, ×8.
    WangDiaoWang,
    /// 王闯: a drawn card makes a 坎 with a pair of W, ×8.
    WangChuang,
    /// 王闯王: a drawn W makes a 坎 with a pair of W, ×16.
    WangChuangWang,
    /// 三王闯王: a drawn W makes four with a 坎 of W, ×32.
    SanWangChuangWang,
}

impl Mingtang {
    pub fn fan(self) -> i64 {
        match self {
            Mingtang::HongHu | Mingtang::ZiMo => 2,
            Mingtang::HongZhuanDian | Mingtang::YiDianZhu => 3,
            Mingtang::HongZhuanHei | Mingtang::HeiHu | Mingtang::WangDiao => 4,
            Mingtang::WangDiaoWang | Mingtang::WangChuang => 8,
            Mingtang::WangChuangWang => 16,
            Mingtang::SanWangChuangWang => 32,
        }
    }
}

/// The colour 名堂 of a red count: the highest of the 红胡 family, 一点朱 or 黑胡.
pub fn colour(reds: u8) -> Option<Mingtang> {
    match reds {
        0 => Some(Mingtang::HeiHu),
        1 => Some(Mingtang::YiDianZhu),
        10..=12 => Some(Mingtang::HongHu),
        13..=15 => Some(Mingtang::HongZhuanDian),
        16.. => Some(Mingtang::HongZhuanHei),
        _ => None,
    }
}

/// 囤 = 1 + floor((胡息 − 15) / 3).
pub fn tun(huxi: u32) -> i64 {
    1 + (i64::from(huxi) - 15) / 3
}

/// The 醒 card of 翻醒: the next number of the turned card's case (十 wraps to 一), W for W.
pub fn fan_xing(turned: u8) -> u8 {
    if turned == W {
        W
    } else if number(turned) == 10 {
        turned - 9
    } else {
        turned + 1
    }
}

/// A meld on the winner's table: its kind and faces.
pub type TableMeld = (Kind, Vec<u8>);

/// How the winning card reached the winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// A W drawn by the winner, already in its hand: the hand and table are final.
    Placed,
    /// Drawn by the winner and shown.
    OwnDraw,
    /// Drawn by another player and shown.
    OtherDraw,
}

/// What is known when a seat claims 胡.
pub struct WinCase<'a> {
    /// The winner's hand, without the winning card unless `Taken::Placed`.
    pub hand: &'a [u8],
    pub table: &'a [TableMeld],
    pub card: u8,
    pub taken: Taken,
    /// The 醒 card (W for a W 醒), none when 翻醒 finds the stock empty.
    pub xing: Option<u8>,
    pub kings: u8,
}

/// A found win, scored (before `rate`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Win {
    /// The 7 门子: table melds as laid, then the hand's.
    pub melds: Vec<HandMeld>,
    pub huxi: u32,
    pub reds: u32,
    pub tun: i64,
    pub xing: i64,
    pub names: Vec<Mingtang>,
    pub fan: i64,
    pub score: i64,
}

/// One way of counting the win: a hand left to split, the table as it then stands, melds the
/// winning card made outside the hand, and the 名堂 this way carries.
struct Way {
    hand: Vec<u8>,
    table: Vec<TableMeld>,
    fixed: Vec<HandMeld>,
    names: Vec<Mingtang>,
    no_kan: Option<u8>,
}

fn remove(hand: &[u8], face: u8, n: usize) -> Option<Vec<u8>> {
    let mut h = hand.to_vec();
    for _ in 0..n {
        let i = h.iter().position(|&f| f == face)?;
        h.remove(i);
    }
    Some(h)
}

fn meld(kind: Kind, faces: Vec<u8>, cards: Vec<u8>) -> HandMeld {
    HandMeld { kind, faces, cards }
}

/// The ways a W-based 名堂 can read a hand won with `card` on one's own draw. `pre` is the
/// hand before the card joined it. A W pair, 坎 or four of W stands for whichever face scores
/// most, so each face is one way.
fn wild_ways(pre: &[u8], table: &[TableMeld], card: u8, kings: u8, xing: Option<u8>) -> Vec<Way> {
    let mut ways = Vec::new();
    let w = pre.iter().filter(|&&f| f == W).count();
    // Faces only differ by case (胡息), colour and being the 醒: two of each kind stand for
    // all (one of them is not the 醒), and the 醒 itself.
    let faces: Vec<u8> = if card == W {
        let mut f = vec![0, 2, 10, 12, 1, 6, 11, 16];
        f.extend(xing.filter(|&x| x != W));
        f
    } else {
        vec![card]
    };
    let mut push = |n: usize, kind: Kind, size: usize, name: Mingtang| {
        if let Some(rest) = remove(pre, W, n) {
            for &x in &faces {
                let mut cards = vec![W; n];
                cards.push(card);
                ways.push(Way {
                    hand: rest.clone(),
                    table: table.to_vec(),
                    fixed: vec![meld(kind, vec![x; size], cards)],
                    names: vec![name],
                    no_kan: None,
                });
            }
        }
    };
    if w >= 1 {
        let name = if card == W {
            Mingtang::WangDiaoWang
        } else {
            Mingtang::WangDiao
        };
        push(1, Kind::Jiang, 2, name);
    }
    if w >= 2 {
        if card != W {
            push(2, Kind::Kan, 3, Mingtang::WangChuang);
        } else if kings == 4 {
            push(2, Kind::Kan, 3, Mingtang::WangChuangWang);
        }
    }
    if w >= 3 && card == W && kings == 4 {
        push(3, Kind::Ti, 4, Mingtang::SanWangChuangWang);
    }
    ways
}

/// The table with one 碰/偎 of `card` turned into a 跑 by it.
fn upgraded(table: &[TableMeld], card: u8, own: bool) -> Option<Vec<TableMeld>> {
    let i = table.iter().position(|(k, f)| {
        f[0] == card
            && match k {
                Kind::Peng => true,
                Kind::Wei | Kind::ChouWei => !own,
                _ => false,
            }
    })?;
    let mut t = table.to_vec();
    t[i] = (Kind::Pao, vec![card; 4]);
    Some(t)
}

fn ways(case: &WinCase) -> Vec<Way> {
    let plain = |hand: Vec<u8>, no_kan| Way {
        hand,
        table: case.table.to_vec(),
        fixed: Vec::new(),
        names: Vec::new(),
        no_kan,
    };
    let mut ways = Vec::new();
    match case.taken {
        Taken::Placed => {
            ways.push(plain(case.hand.to_vec(), None));
            if case.card == W
                && let Some(pre) = remove(case.hand, W, 1)
            {
                ways.extend(wild_ways(&pre, case.table, W, case.kings, case.xing));
            }
        }
        Taken::OwnDraw | Taken::OtherDraw => {
            let own = case.taken == Taken::OwnDraw;
            let mut with = case.hand.to_vec();
            with.push(case.card);
            let held = case.hand.iter().filter(|&&f| f == case.card).count();
            let no_kan = (!own && held == 2).then_some(case.card);
            ways.push(plain(with, no_kan));
            if let Some(table) = upgraded(case.table, case.card, own) {
                ways.push(Way {
                    table,
                    ..plain(case.hand.to_vec(), None)
                });
            }
            if !own && held == 2 {
                let rest = remove(case.hand, case.card, 2).unwrap_or_default();
                ways.push(Way {
                    fixed: vec![meld(Kind::Peng, vec![case.card; 3], vec![case.card; 3])],
                    ..plain(rest, None)
                });
            }
            if own {
                ways.extend(wild_ways(
                    case.hand, case.table, case.card, case.kings, case.xing,
                ));
            }
        }
    }
    ways
}

/// The winning arrangement that scores most, if the hand wins: exactly 7 门子, one 将 exactly
/// when there is a 跑 or 提, 胡息 ≥ 15.
pub fn best_win(case: &WinCase) -> Option<Win> {
    let quad = if case.taken == Taken::OtherDraw {
        Kind::Pao
    } else {
        Kind::Ti
    };
    let xing_face = case.xing.filter(|&x| x != W);
    let mut searches: Vec<(Option<u8>, Search)> = Vec::new();
    let mut best: Option<(Win, Way, Acc)> = None;
    for way in ways(case) {
        let idx = match searches.iter().position(|(k, _)| *k == way.no_kan) {
            Some(i) => i,
            None => {
                searches.push((
                    way.no_kan,
                    Search::new(Params {
                        quad,
                        no_kan: way.no_kan,
                        xing: xing_face,
                    }),
                ));
                searches.len() - 1
            }
        };
        let search = &mut searches[idx].1;
        let mut outside = Acc::default();
        for (k, f) in &way.table {
            outside = outside.add(Acc::of_meld(*k, f, xing_face));
        }
        for m in &way.fixed {
            outside = outside.add(Acc::of_meld(m.kind, &m.faces, xing_face));
        }
        let wilds = way.hand.iter().filter(|&&f| f == W).count()
            + way
                .fixed
                .iter()
                .map(|m| m.cards.iter().filter(|&&f| f == W).count())
                .sum::<usize>();
        let w_xing = if case.xing == Some(W) {
            wilds as i64
        } else {
            0
        };
        let own = case.taken != Taken::OtherDraw;
        let (counts, w) = counts_of(&way.hand);
        for &acc in search.totals(&counts, w).iter() {
            let total = acc.add(outside);
            if total.melds != 7 || total.pairs != u8::from(total.quads > 0) || total.huxi < 15 {
                continue;
            }
            let mut names = Vec::new();
            names.extend(colour(total.reds));
            if own && wilds == 0 {
                names.push(Mingtang::ZiMo);
            }
            names.extend(way.names.iter().copied());
            let fan: i64 = names.iter().map(|m| m.fan()).product();
            let tun = tun(u32::from(total.huxi));
            let xing = i64::from(total.xing) + w_xing;
            let score = (tun + xing) * fan;
            let better = match &best {
                None => true,
                Some((b, _, _)) => (score, total.huxi as u32) > (b.score, b.huxi),
            };
            if better {
                let win = Win {
                    melds: Vec::new(),
                    huxi: u32::from(total.huxi),
                    reds: u32::from(total.reds),
                    tun,
                    xing,
                    names,
                    fan,
                    score,
                };
                best = Some((
                    win,
                    Way {
                        hand: way.hand.clone(),
                        table: way.table.clone(),
                        fixed: way.fixed.clone(),
                        names: way.names.clone(),
                        no_kan: way.no_kan,
                    },
                    acc,
                ));
            }
        }
    }
    let (mut win, way, acc) = best?;
    let search = &mut searches
        .iter_mut()
        .find(|(k, _)| *k == way.no_kan)
        .expect("the way's search exists")
        .1;
    let (counts, w) = counts_of(&way.hand);
    let hand_melds = search.split(&counts, w, acc)?;
    win.melds = way
        .table
        .iter()
        .map(|(k, f)| meld(*k, f.clone(), f.clone()))
        .chain(way.fixed)
        .chain(hand_melds)
        .collect();
    Some(win)
}

/// 荒庄: seat i receives Σ_{j≠i} (s_j − s_i) × rate × base; `wilds` are the W each seat holds.
pub fn huangzhuang(wilds: [i64; 3], base: i64, rate: i64) -> [i64; 3] {
    let mut out = [0; 3];
    for i in 0..3 {
        out[i] = (0..3)
            .filter(|&j| j != i)
            .map(|j| (wilds[j] - wilds[i]) * rate * base)
            .sum();
    }
    out
}

/// 逃跑: the leaver pays each other player 10 × base × rate (`units`, zero-sum); each other
/// player also gains one point when the hand had lasted 30 s (`points` only).
pub fn escape(leaver: usize, base: i64, rate: i64, bonus: bool) -> ([i64; 3], [i64; 3]) {
    let fine = 10 * base * rate;
    let mut units = [fine; 3];
    units[leaver] = -2 * fine;
    let mut points = units;
    if bonus {
        for (s, p) in points.iter_mut().enumerate() {
            if s != leaver {
                *p += 1;
            }
        }
    }
    (points, units)
}

/// The score (before `rate`, 醒 not counted) of the best win of a concealed `hand` (table
/// empty) completed by its holder's own draw of `card`, if it wins: the win search as every
/// draw runs it.
pub fn self_draw_score(hand: &[Card], card: Card, kings: u8) -> Option<i64> {
    let mut hand: Vec<u8> = hand.iter().filter_map(|&c| face_of(c)).collect();
    let card = face_of(card)?;
    if card == W {
        // A drawn W goes into the hand before the win is looked for.
        hand.push(W);
    }
    let case = WinCase {
        hand: &hand,
        table: &[],
        card,
        taken: if card == W {
            Taken::Placed
        } else {
            Taken::OwnDraw
        },
        xing: None,
        kings,
    };
    best_win(&case).map(|w| w.score)
}

/// How a hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// A seat won (胡).
    Win,
    /// 荒庄: the stock ran out with no winner.
    Huangzhuang,
    /// A seat left during the hand (逃跑).
    Escape,
}

/// A meld of the winning hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WinMeld {
    /// What kind of 门子 it is.
    pub kind: Kind,
    /// The cards, W included.
    pub cards: Vec<Card>,
    /// What the cards stand for (a W as the card it completes).
    pub stands_for: Vec<Card>,
}

/// How the winner won.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WinSummary {
    /// The card the hand won on.
    pub card: Card,
    /// Won on the winner's own draw.
    pub self_drawn: bool,
    /// The 7 门子.
    pub melds: Vec<WinMeld>,
    /// 胡息 of the 7 门子 (at least 15).
    pub huxi: u32,
    /// Red cards among the 7 门子 (W as what it stands for).
    pub reds: u32,
    /// 囤 the 胡息 are worth.
    pub tun: i64,
    /// The 醒 card: the next number after the stock's next card (翻醒), or the winning card
    /// itself (跟醒); null when 翻醒 found the stock empty.
    pub xing_card: Option<Card>,
    /// 醒: copies of the 醒 card in the 7 门子.
    pub xing: i64,
    /// The 名堂 the win scored.
    pub mingtang: Vec<Mingtang>,
    /// The product of the 名堂.
    pub fan: i64,
    /// What each other player pays: (囤 + 醒) × 番 × rate.
    pub score: i64,
}

/// The settlement of a hand, shown to everyone as `last_result`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// The hand's number in the match, from 1.
    pub hand_no: u32,
    /// The hand's dealer (庄家).
    pub dealer: SeatNo,
    /// How the hand ended.
    pub end: End,
    /// The seat that won; null unless `end` is `win`.
    pub winner: Option<SeatNo>,
    /// How the winner won; null unless `end` is `win`.
    pub win: Option<WinSummary>,
    /// 荒庄: the W each seat held.
    pub wilds: Option<Vec<i64>>,
    /// The seat that escaped; null unless `end` is `escape`.
    pub escaped: Option<SeatNo>,
    /// How long the hand had lasted when the seat escaped, in milliseconds; null otherwise.
    pub lasted_ms: Option<i64>,
    /// Points of each seat (escape bonus included).
    pub points: Vec<i64>,
}
