//! Combinations of 上饶打炸: reading played cards, comparing them, and listing the legal plays of
//! a hand.
//!
//! Everything works on rank *orders* rather than card ranks, because the game's order puts 2 above
//! A: order 0 is 3, 11 is A and 12 is 2. Runs (straights, pairs runs, runs of triples) may use
//! orders 0..=11 only.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::Rule;
use crate::cards::{Card, Rank, Suit, rank_str};
use crate::engine::RuleError;

use super::Mode;

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

/// A legal play: the cards to send and how they read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Play {
    pub cards: Vec<Card>,
    pub combo: Combo,
}

/// The legal plays of `hand` now: on a lead (`top` None) every combination, when following those
/// that beat `top`. One play per distinct combination (the same single from two suits is listed
/// once); kickers of 三带二 and 连三带二 are the lowest cards that keep the hand's jokers playable,
/// though any kickers are legal when sent.
pub fn legal_plays<'a>(hand: &'a [Card], top: Option<&'a Combo>, mode: Mode) -> Vec<Play> {
    let mut g = Generator::new(hand, top, mode);
    g.run();
    g.out
}

/// Builds plays out of the hand sorted strongest first: the 大王s, the 小王s, then the naturals
/// from 2 down to 3, cards of order `o` being `sorted[start[o]..start[o] + c.n[o]]`.
struct Generator<'a> {
    sorted: Cow<'a, [Card]>,
    start: [usize; RANKS],
    c: Counts,
    held: usize,
    top: Option<&'a Combo>,
    mode: Mode,
    out: Vec<Play>,
}

impl<'a> Generator<'a> {
    fn new(hand: &'a [Card], top: Option<&'a Combo>, mode: Mode) -> Self {
        // Hands in a game state are kept sorted: only other callers pay for a sort.
        let sorted = if hand.is_sorted_by_key(|&c| strongest_first(c)) {
            Cow::Borrowed(hand)
        } else {
            let mut v = hand.to_vec();
            sort_strongest_first(&mut v);
            Cow::Owned(v)
        };
        let c = Counts::of(hand);
        let mut start = [0usize; RANKS];
        let mut at = (c.rj + c.bj) as usize;
        for o in (0..RANKS).rev() {
            start[o] = at;
            at += c.n[o] as usize;
        }
        Generator {
            sorted,
            start,
            c,
            held: hand.len(),
            top,
            mode,
            out: Vec::new(),
        }
    }

    /// Whether plays of `kind` can be legal now at all (saves building plays that cannot beat).
    fn wants(&self, kind: Kind) -> bool {
        match self.top {
            None => true,
            Some(top) if top.kind.is_bomb() => kind.is_bomb(),
            Some(top) => match top.kind {
                Kind::WushikSuited => kind.is_bomb(),
                Kind::WushikMixed => kind == Kind::WushikSuited || kind.is_bomb(),
                Kind::Triple => kind == Kind::Triple || kind.is_bomb(),
                k => kind == k || kind.is_wushik() || kind.is_bomb(),
            },
        }
    }

    fn run(&mut self) {
        self.same_rank_groups();
        if self.wants(Kind::Straight) {
            self.runs(Kind::Straight, 1, 5);
        }
        if self.wants(Kind::PairsRun) {
            self.runs(Kind::PairsRun, 2, 2);
        }
        if self.wants(Kind::TripleWithTwo) {
            self.triples_with_kickers(1);
        }
        if self.wants(Kind::TriplesWithTwos) {
            for k in 2..=(self.c.naturals() / 5).min(RUN_TOP as usize + 1) {
                self.triples_with_kickers(k as u8);
            }
        }
        if self.wants(Kind::WushikMixed) || self.wants(Kind::WushikSuited) {
            self.wushik();
        }
        if self.wants(Kind::Bomb) {
            self.bombs();
            self.joker_bombs();
        }
    }

    /// Offers the play taking `take[o]` naturals of each order and `bj`/`rj` jokers, if it beats
    /// the top and keeps the remaining jokers playable.
    fn offer(&mut self, take: &[u8; RANKS], bj: u8, rj: u8, combo: Combo) -> bool {
        if self.top.is_some_and(|top| !combo.beats(top)) {
            return false;
        }
        let mut rest = self.c;
        for (left, &t) in rest.n.iter_mut().zip(take) {
            *left -= t;
        }
        rest.bj -= bj;
        rest.rj -= rj;
        if !jokers_playable(&rest, self.mode) {
            return false;
        }
        let mut cards = Vec::with_capacity(take.iter().map(|&k| k as usize).sum::<usize>() + 2);
        cards.extend_from_slice(&self.sorted[..rj as usize]);
        cards.extend_from_slice(&self.sorted[self.c.rj as usize..][..bj as usize]);
        for o in (0..RANKS).rev() {
            cards.extend_from_slice(&self.sorted[self.start[o]..][..take[o] as usize]);
        }
        self.out.push(Play { cards, combo });
        true
    }

    fn same_rank_groups(&mut self) {
        let kinds = [(1, Kind::Single), (2, Kind::Pair), (3, Kind::Triple)];
        for (size, kind) in kinds {
            // The hand-size limit of a bare triple binds only a lead.
            let lead_limit = self.top.is_none() && self.held >= 5;
            if !self.wants(kind) || (kind == Kind::Triple && lead_limit) {
                continue;
            }
            for o in 0..RANKS {
                if self.c.n[o] >= size {
                    let mut take = [0u8; RANKS];
                    take[o] = size;
                    self.offer(&take, 0, 0, Combo::new(kind, o as u8, 1));
                }
            }
        }
    }

    /// Straights (`width` 1, at least 5 ranks) and pairs runs (`width` 2, at least 2 ranks).
    fn runs(&mut self, kind: Kind, width: u8, min_len: usize) {
        for lo in 0..=RUN_TOP as usize {
            let mut take = [0u8; RANKS];
            for hi in lo..=RUN_TOP as usize {
                if self.c.n[hi] < width {
                    break;
                }
                take[hi] = width;
                let ranks = hi - lo + 1;
                if ranks >= min_len {
                    // Straights count cards, pairs runs count pairs: both are `ranks`.
                    self.offer(&take, 0, 0, Combo::new(kind, hi as u8, ranks as u8));
                }
            }
        }
    }

    /// 三带二 (`k` = 1) and 连三带二 of `k` triples, with the lowest 2k kickers that keep the
    /// jokers playable.
    fn triples_with_kickers(&mut self, k: u8) {
        if self.held < 5 * k as usize {
            return;
        }
        let (kind, max_top) = if k == 1 {
            (Kind::TripleWithTwo, TWO)
        } else {
            (Kind::TriplesWithTwos, RUN_TOP)
        };
        for top in (k - 1)..=max_top {
            let lo = top + 1 - k;
            if (lo..=top).any(|o| self.c.n[o as usize] < 3) {
                continue;
            }
            let mut take = [0u8; RANKS];
            for o in lo..=top {
                take[o as usize] = 3;
            }
            if self.add_kickers(&mut take, 2 * k) {
                self.offer(&take, 0, 0, Combo::new(kind, top, k));
            }
        }
    }

    /// Adds the `need` lowest natural cards not yet taken; when the jokers need a natural bomb to
    /// be played with, keeps 4 cards of the largest remaining rank.
    fn add_kickers(&self, take: &mut [u8; RANKS], mut need: u8) -> bool {
        let mut keep = [0u8; RANKS];
        if self.c.jokers() > 0 && !jokers_self_playable(self.c.bj, self.c.rj, self.mode) {
            let left = |o: usize| self.c.n[o] - take[o];
            match (0..RANKS).max_by_key(|&o| left(o)) {
                Some(o) if left(o) >= 4 => keep[o] = 4,
                _ => return false,
            }
        }
        for o in 0..RANKS {
            let spare = self.c.n[o] - take[o] - keep[o];
            let t = spare.min(need);
            take[o] += t;
            need -= t;
            if need == 0 {
                return true;
            }
        }
        false
    }

    fn wushik(&mut self) {
        let of = |o: u8| &self.sorted[self.start[o as usize]..][..self.c.n[o as usize] as usize];
        let (fives, tens, kings) = (of(FIVE), of(TEN), of(KING));
        if fives.is_empty() || tens.is_empty() || kings.is_empty() {
            return;
        }
        let mut found: Vec<(Vec<Card>, Kind)> = Vec::new();
        for suit in Suit::ALL {
            let pick = |cards: &[Card]| cards.iter().copied().find(|c| c.suit() == Some(suit));
            if let (Some(k), Some(t), Some(f)) = (pick(kings), pick(tens), pick(fives)) {
                found.push((vec![k, t, f], Kind::WushikSuited));
            }
        }
        let mixed = kings.iter().find_map(|&k| {
            tens.iter().find_map(|&t| {
                fives
                    .iter()
                    .find(|f| !(f.suit() == k.suit() && t.suit() == k.suit()))
                    .map(|&f| vec![k, t, f])
            })
        });
        if let Some(cards) = mixed {
            found.push((cards, Kind::WushikMixed));
        }
        let mut rest = self.c;
        for o in [FIVE, TEN, KING] {
            rest.n[o as usize] -= 1;
        }
        if !jokers_playable(&rest, self.mode) {
            return;
        }
        for (cards, kind) in found {
            let combo = Combo::new(kind, 0, 1);
            if self.top.is_none_or(|top| combo.beats(top)) {
                self.out.push(Play { cards, combo });
            }
        }
    }

    /// One play per (rank, size): as many naturals as the size allows, else all the jokers.
    fn bombs(&mut self) {
        let jokers = self.c.jokers();
        for o in 0..RANKS {
            let n = self.c.n[o];
            if n < 4 {
                continue;
            }
            for size in 4..=n + jokers {
                let combo = Combo::new(Kind::Bomb, o as u8, size);
                let most = n.min(size);
                let (bj, rj) = self.pick_jokers(size - most);
                let mut take = [0u8; RANKS];
                take[o] = most;
                if self.offer(&take, bj, rj, combo) {
                    continue;
                }
                if size >= jokers + 4 && size - jokers < most {
                    take[o] = size - jokers;
                    self.offer(&take, self.c.bj, self.c.rj, combo);
                }
            }
        }
    }

    /// Which `k` jokers to put in a bomb: 小王 first, unless that breaks a set of six 小王 the
    /// 大王 do not form.
    fn pick_jokers(&self, k: u8) -> (u8, u8) {
        let (bj, rj) = (self.c.bj, self.c.rj);
        if self.mode == Mode::Zhashen12 && bj == 6 && rj != 6 {
            let r = k.min(rj);
            (k - r, r)
        } else {
            let b = k.min(bj);
            (b, k - b)
        }
    }

    fn joker_bombs(&mut self) {
        let none = [0u8; RANKS];
        let (bj, rj) = (self.c.bj, self.c.rj);
        match self.mode {
            Mode::Normal => {
                if bj == 2 && rj == 2 {
                    self.offer(&none, 2, 2, Combo::new(Kind::JokerBomb, 0, 4));
                }
            }
            Mode::Zhashen12 => {
                if bj >= 6 {
                    self.offer(&none, 6, 0, Combo::new(Kind::SmallJokerBomb, 0, 6));
                }
                if rj >= 6 {
                    self.offer(&none, 0, 6, Combo::new(Kind::BigJokerBomb, 0, 6));
                }
            }
        }
    }
}
