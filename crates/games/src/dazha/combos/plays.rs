//! The legal plays of a hand: every combination it can lead, or those that beat the
//! combination on the table.

use std::borrow::Cow;

use crate::cards::{Card, Suit};

use super::super::Mode;
use super::{
    Combo, Counts, FIVE, KING, Kind, RANKS, RUN_TOP, TEN, TWO, jokers_playable,
    jokers_self_playable, sort_strongest_first, strongest_first,
};

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
