//! Combinations of 上饶打炸: reading played cards, comparing them, and (in `plays`) listing the legal
//! plays of a hand.
//!
//! Everything works on rank *orders* rather than card ranks, because the game's order puts 2 above
//! A: order 0 is 3, 11 is A and 12 is 2. Runs (straights, pairs runs, runs of triples) may use
//! orders 0..=11 only.

use serde::{Deserialize, Serialize};

use super::Rule;
use crate::cards::{Card, Rank, Suit, rank_str};
use crate::engine::RuleError;

use super::Mode;

mod plays;
pub use plays::{Play, legal_plays};

/// Number of natural ranks.
pub const RANKS: usize = 13;
/// Order of the 2, the highest natural rank, which never appears in a run.
pub const TWO: u8 = 12;
/// Highest order a run may reach (the ace).
const RUN_TOP: u8 = 11;
const FIVE: u8 = 2;
const TEN: u8 = 7;
const KING: u8 = 10;

/// Play order of a natural rank: 3 → 0 … A → 11, 2 → 12.
pub fn order(rank: Rank) -> u8 {
    if rank == 2 { TWO } else { rank - 3 }
}

/// The card rank of a play order.
pub fn rank_of(order: u8) -> Rank {
    if order == TWO { 2 } else { order + 3 }
}

/// Strength of a single card for sorting hands strongest first: naturals by order, then 小王,
/// then 大王.
pub fn strength(card: Card) -> u8 {
    match card {
        Card::Suited { rank, .. } => order(rank),
        Card::SmallJoker => 13,
        Card::BigJoker => 14,
        Card::Paper { .. } | Card::Wild => 0,
    }
}

/// Sorts cards strongest first (api.md: hands in responses are sorted that way); suits break ties
/// in the fixed order S, H, D, C so that equal hands always print the same.
pub fn sort_strongest_first(cards: &mut [Card]) {
    cards.sort_by_key(|&c| strongest_first(c));
}

fn strongest_first(card: Card) -> (std::cmp::Reverse<u8>, Option<Suit>) {
    (std::cmp::Reverse(strength(card)), card.suit())
}

/// The card points of the game: 5 is worth 5, 10 and K 10 each.
pub fn card_points(card: Card) -> u32 {
    match card.rank() {
        Some(5) => 5,
        Some(10) | Some(13) => 10,
        _ => 0,
    }
}

pub fn points_of(cards: &[Card]) -> u32 {
    cards.iter().map(|&c| card_points(c)).sum()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Single,
    Pair,
    /// A bare triple: led only while holding fewer than 5 cards, answered at any hand size.
    Triple,
    /// 连对.
    PairsRun,
    /// 三带二.
    TripleWithTwo,
    /// 连三带二.
    TriplesWithTwos,
    /// 顺子.
    Straight,
    /// 杂五十K.
    WushikMixed,
    /// 同花五十K.
    WushikSuited,
    /// ≥ 4 natural cards of one rank, jokers wild once there are 4 naturals.
    Bomb,
    /// All four jokers of the normal game.
    JokerBomb,
    /// 12炸神: six 大王.
    BigJokerBomb,
    /// 12炸神: six 小王.
    SmallJokerBomb,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Single => "single",
            Kind::Pair => "pair",
            Kind::Triple => "triple",
            Kind::PairsRun => "pairs_run",
            Kind::TripleWithTwo => "triple_with_two",
            Kind::TriplesWithTwos => "triples_with_twos",
            Kind::Straight => "straight",
            Kind::WushikMixed => "wushik_mixed",
            Kind::WushikSuited => "wushik_suited",
            Kind::Bomb => "bomb",
            Kind::JokerBomb => "joker_bomb",
            Kind::BigJokerBomb => "big_joker_bomb",
            Kind::SmallJokerBomb => "small_joker_bomb",
        }
    }

    /// The name in Chinese, as the seed calls it.
    pub fn name_zh(self) -> &'static str {
        match self {
            Kind::Single => "单张",
            Kind::Pair => "对子",
            Kind::Triple => "三张",
            Kind::PairsRun => "连对",
            Kind::TripleWithTwo => "三带二",
            Kind::TriplesWithTwos => "连三带二",
            Kind::Straight => "顺子",
            Kind::WushikMixed => "杂五十K",
            Kind::WushikSuited => "同花五十K",
            Kind::Bomb => "炸弹",
            Kind::JokerBomb => "四王炸",
            Kind::BigJokerBomb => "六大王炸",
            Kind::SmallJokerBomb => "六小王炸",
        }
    }

    pub fn is_bomb(self) -> bool {
        matches!(
            self,
            Kind::Bomb | Kind::JokerBomb | Kind::BigJokerBomb | Kind::SmallJokerBomb
        )
    }

    fn is_wushik(self) -> bool {
        matches!(self, Kind::WushikMixed | Kind::WushikSuited)
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One reading of a set of played cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Combo {
    pub kind: Kind,
    /// Order of the deciding rank: the rank of singles, pairs, triples, bombs and the triple of a
    /// 三带二; the highest rank of runs. 0 where it does not matter (五十K, joker bombs).
    pub rank: u8,
    /// Cards in a bomb or straight, pairs in a pairs run, triples in a run of triples; 1 for the
    /// other kinds.
    pub len: u8,
}

impl Combo {
    fn new(kind: Kind, rank: u8, len: u8) -> Combo {
        Combo { kind, rank, len }
    }

    /// Total order of the bomb kinds: natural bombs by size then rank; four jokers rank as an
    /// 8-card bomb above the 8-card 2s (so below every 9-card bomb); the 12炸神 six-joker bombs
    /// above everything, 大王 over 小王.
    fn bomb_key(&self) -> (u8, u8, u8) {
        match self.kind {
            Kind::JokerBomb => (0, 8, TWO + 1),
            Kind::SmallJokerBomb => (1, 0, 0),
            Kind::BigJokerBomb => (1, 0, 1),
            _ => (0, self.len, self.rank),
        }
    }

    /// Whether `self`, played on top of `top`, beats it.
    pub fn beats(&self, top: &Combo) -> bool {
        if self.kind.is_bomb() {
            return !top.kind.is_bomb() || self.bomb_key() > top.bomb_key();
        }
        match top.kind {
            k if k.is_bomb() => false,
            Kind::WushikSuited => false,
            Kind::WushikMixed => self.kind == Kind::WushikSuited,
            // The seed: a lone triple is answered only by a higher triple or a bomb.
            Kind::Triple => self.kind == Kind::Triple && self.rank > top.rank,
            _ if self.kind.is_wushik() => true,
            _ => self.kind == top.kind && self.len == top.len && self.rank > top.rank,
        }
    }

    /// The client-facing description: `{"type", "rank"?, "length"?, "size"?}`.
    pub fn view(&self) -> ComboView {
        let rank = Some(rank_str(rank_of(self.rank)).to_string());
        let (rank, length, size) = match self.kind {
            Kind::Single | Kind::Pair | Kind::Triple | Kind::TripleWithTwo => (rank, None, None),
            Kind::PairsRun | Kind::TriplesWithTwos | Kind::Straight => (rank, Some(self.len), None),
            Kind::WushikMixed | Kind::WushikSuited => (None, None, None),
            Kind::Bomb => (rank, None, Some(self.len)),
            Kind::JokerBomb => (None, None, Some(4)),
            Kind::BigJokerBomb | Kind::SmallJokerBomb => (None, None, Some(6)),
        };
        ComboView {
            kind: self.kind,
            rank,
            length,
            size,
        }
    }
}

/// A combination as clients see it. Fields in alphabetical order, as the sorted JSON maps this
/// replaced wrote them (the golden test keeps the text byte for byte).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ComboView {
    /// Pairs in a pairs run, triples in a run of triples, cards in a straight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u8>,
    /// The deciding rank (`"3"` … `"A"`, `"2"`); absent for 五十K and joker bombs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<String>,
    /// Cards in a bomb.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u8>,
    /// What kind of combination it is.
    #[serde(rename = "type")]
    pub kind: Kind,
}

/// A hand or a play as counts: naturals per order, and jokers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub n: [u8; RANKS],
    pub bj: u8,
    pub rj: u8,
    /// Cards that are not poker cards (never in a dazha deck; counted so they are not ignored).
    pub other: u8,
}

impl Counts {
    pub fn of(cards: &[Card]) -> Counts {
        let mut c = Counts::default();
        for &card in cards {
            match card {
                Card::Suited { rank, .. } => c.n[order(rank) as usize] += 1,
                Card::SmallJoker => c.bj += 1,
                Card::BigJoker => c.rj += 1,
                Card::Paper { .. } | Card::Wild => c.other += 1,
            }
        }
        c
    }

    pub fn jokers(&self) -> u8 {
        self.bj + self.rj
    }

    pub fn naturals(&self) -> usize {
        self.n.iter().map(|&k| k as usize).sum()
    }

    fn has_natural_bomb(&self) -> bool {
        self.n.iter().any(|&k| k >= 4)
    }
}

/// Whether jokers held without a natural bomb can still be played on their own: all four jokers
/// in the normal game, complete sets of six of one colour in 12炸神.
fn jokers_self_playable(bj: u8, rj: u8, mode: Mode) -> bool {
    match mode {
        Mode::Normal => bj == 2 && rj == 2,
        Mode::Zhashen12 => (bj == 0 || bj == 6) && (rj == 0 || rj == 6),
    }
}

/// Whether every joker of the hand can still be played: there are none, or a bomb of ≥ 4 natural
/// cards can carry them, or they form joker bombs by themselves.
pub fn jokers_playable(c: &Counts, mode: Mode) -> bool {
    c.jokers() == 0 || c.has_natural_bomb() || jokers_self_playable(c.bj, c.rj, mode)
}

/// The refusal of a play of `cards` that leaves the seat's jokers without a bomb.
pub fn strands_joker(cards: &[Card]) -> RuleError {
    RuleError::illegal(
        Rule::JokerWouldBeStranded,
        "a joker can only be played inside a bomb: this play would leave your jokers without a \
         bomb of 4 or more natural cards to be played with",
        "王只能替炸弹：这样出牌后，你手里的王就没有四张或以上相同的牌可以配成炸弹了",
    )
    .with_cards(cards)
}

/// Every reading of `cards` as one combination led by a player holding `held` cards before the
/// play. Err names the rule the cards break.
pub fn readings(cards: &[Card], held: usize, mode: Mode) -> Result<Vec<Combo>, RuleError> {
    read(cards, Some(held), mode)
}

/// Every reading of `cards` played to follow: the hand-size limit of a bare triple binds only a
/// lead (只有在手牌＜5张时才可以单出), so a follower may answer a triple with a triple.
pub fn follow_readings(cards: &[Card], mode: Mode) -> Result<Vec<Combo>, RuleError> {
    read(cards, None, mode)
}

/// `lead_held`: the cards the leader holds before the play; None when following.
fn read(cards: &[Card], lead_held: Option<usize>, mode: Mode) -> Result<Vec<Combo>, RuleError> {
    let c = Counts::of(cards);
    let total = cards.len();
    if total == 0 {
        return Err(empty_play());
    }
    if c.other > 0 {
        let foreign: Vec<Card> = cards
            .iter()
            .copied()
            .filter(|c| matches!(c, Card::Paper { .. } | Card::Wild))
            .collect();
        return Err(RuleError::illegal(
            Rule::ForeignCard,
            "dazha is played with poker cards only",
            "打炸只用扑克牌",
        )
        .with_cards(foreign));
    }
    let nat = c.naturals();
    if c.jokers() > 0 {
        return joker_readings(&c, nat, total, mode)
            .map(|r| vec![r])
            .map_err(|e| e.with_cards(jokers_of(cards)));
    }
    let ranks: Vec<u8> = (0..RANKS as u8).filter(|&o| c.n[o as usize] > 0).collect();
    let len = total as u8;
    let mut out = Vec::new();
    if let [only] = ranks[..] {
        match total {
            1 => out.push(Combo::new(Kind::Single, only, 1)),
            2 => out.push(Combo::new(Kind::Pair, only, 1)),
            3 if lead_held.is_none_or(|held| held < 5) => {
                out.push(Combo::new(Kind::Triple, only, 1));
            }
            3 => {
                return Err(RuleError::illegal(
                    Rule::BareTripleUnderFive,
                    "a triple may be led on its own only while holding fewer than 5 cards; \
                     play it as a triple with two",
                    "手牌少于 5 张时才可以单出三张；请出三带二",
                )
                .with_cards(cards));
            }
            _ => {
                out.push(Combo::new(Kind::Bomb, only, len));
                if total == 5 {
                    out.push(Combo::new(Kind::TripleWithTwo, only, 1));
                }
            }
        }
        return Ok(out);
    }
    if total == 3 && ranks == [FIVE, TEN, KING] {
        let suited = cards.iter().all(|card| card.suit() == cards[0].suit());
        let kind = if suited {
            Kind::WushikSuited
        } else {
            Kind::WushikMixed
        };
        return Ok(vec![Combo::new(kind, 0, 1)]);
    }
    if total == 5
        && let Some(&t) = ranks.iter().find(|&&o| c.n[o as usize] >= 3)
    {
        out.push(Combo::new(Kind::TripleWithTwo, t, 1));
    }
    let lo = ranks[0];
    let hi = *ranks.last().unwrap_or(&lo);
    let consecutive = (hi - lo) as usize + 1 == ranks.len();
    let mut two_in_run = false;
    if total >= 5 && consecutive && ranks.iter().all(|&o| c.n[o as usize] == 1) {
        if hi == TWO {
            two_in_run = true;
        } else {
            out.push(Combo::new(Kind::Straight, hi, len));
        }
    }
    if total >= 4 && consecutive && ranks.iter().all(|&o| c.n[o as usize] == 2) {
        if hi == TWO {
            two_in_run = true;
        } else {
            out.push(Combo::new(Kind::PairsRun, hi, len / 2));
        }
    }
    if total >= 10 && total.is_multiple_of(5) {
        let k = (total / 5) as u8;
        match triples_run_top(&c, k, RUN_TOP) {
            Some(top) => out.push(Combo::new(Kind::TriplesWithTwos, top, k)),
            None => two_in_run |= triples_run_top(&c, k, TWO).is_some(),
        }
    }
    if out.is_empty() {
        return Err(if two_in_run {
            let twos: Vec<Card> = cards
                .iter()
                .copied()
                .filter(|c| c.rank() == Some(2))
                .collect();
            RuleError::illegal(
                Rule::NoTwoInRun,
                "a 2 cannot be part of a straight, pairs run or run of triples",
                "2 不能在顺子、连对或连三中",
            )
            .with_cards(twos)
        } else {
            RuleError::illegal(
                Rule::NotACombination,
                "these cards form no combination: play a single, pair, straight (5 or more \
                 consecutive ranks), pairs run, triple with two, run of triples with twos, 五十K \
                 or a bomb",
                "这些牌组不成牌型：请出单张、对子、顺子（5 张或以上连续的牌）、连对、三带二、\
                 连三带二、五十K或炸弹",
            )
            .with_cards(cards)
        });
    }
    Ok(out)
}

/// The highest top order ≤ `max_top` of `k` consecutive ranks each held at least three times.
fn triples_run_top(c: &Counts, k: u8, max_top: u8) -> Option<u8> {
    (k - 1..=max_top)
        .rev()
        .find(|&top| (top + 1 - k..=top).all(|o| c.n[o as usize] >= 3))
}

fn joker_readings(c: &Counts, nat: usize, total: usize, mode: Mode) -> Result<Combo, RuleError> {
    if nat == 0 {
        return match mode {
            Mode::Normal if c.bj == 2 && c.rj == 2 => Ok(Combo::new(Kind::JokerBomb, 0, 4)),
            Mode::Zhashen12 if c.rj == 6 && c.bj == 0 => Ok(Combo::new(Kind::BigJokerBomb, 0, 6)),
            Mode::Zhashen12 if c.bj == 6 && c.rj == 0 => Ok(Combo::new(Kind::SmallJokerBomb, 0, 6)),
            Mode::Normal => Err(RuleError::illegal(
                Rule::JokerOnlyInBomb,
                "a joker can only be played inside a bomb of 4 or more natural cards, or as all \
                 four jokers together",
                "王只能替炸弹：要和四张或以上相同的牌一起出，或者四个王一起出",
            )),
            Mode::Zhashen12 => Err(RuleError::illegal(
                Rule::JokerOnlyInBomb,
                "a joker can only be played inside a bomb of 4 or more natural cards, or as six \
                 jokers of one colour (six mixed jokers are no bomb)",
                "王只能替炸弹：要和四张或以上相同的牌一起出，或者 6 个同色的王一起出（6 个不同的王\
                 不算炸弹）",
            )),
        };
    }
    match (0..RANKS).find(|&o| c.n[o] as usize == nat) {
        Some(o) if nat >= 4 => Ok(Combo::new(Kind::Bomb, o as u8, total as u8)),
        _ => Err(RuleError::illegal(
            Rule::JokerOnlyInBomb,
            "a joker can only be played inside a bomb: it needs at least 4 natural cards of one \
             rank beside it",
            "王只能替炸弹：旁边至少要有四张相同的牌",
        )),
    }
}

/// The refusal of a play of no cards.
pub fn empty_play() -> RuleError {
    RuleError::illegal(
        Rule::EmptyPlay,
        "a play needs at least one card",
        "出牌至少要出一张牌",
    )
}

/// The jokers among `cards`.
fn jokers_of(cards: &[Card]) -> Vec<Card> {
    cards
        .iter()
        .copied()
        .filter(|c| matches!(c, Card::SmallJoker | Card::BigJoker))
        .collect()
}
