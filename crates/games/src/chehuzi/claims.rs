//! 吃 with 比牌, and the order in which claims on one card are settled.

use super::melds::{FACES, W, chi_kind};

/// One 吃: its melds, the first holding the claimed card, each further one another copy of that
/// face from the hand (比牌). Melds are sorted, and the further ones sorted among themselves, so
/// that two spellings of one 吃 compare equal.
pub type ChiMelds = Vec<Vec<u8>>;

pub fn canonical_chi(melds: &[Vec<u8>]) -> ChiMelds {
    let mut out: ChiMelds = melds
        .iter()
        .map(|m| {
            let mut m = m.clone();
            m.sort_unstable();
            m
        })
        .collect();
    if out.len() > 1 {
        out[1..].sort();
    }
    out
}

/// Every 吃 of `card` a hand allows. 坎 cards (three of a face) and W never take part, and every
/// copy of `card` in the hand must be melded too; a hand holding a 坎 of `card` 跑s instead.
pub fn chi_options(hand: &[u8], card: u8) -> Vec<ChiMelds> {
    let mut avail = [0u8; FACES];
    for &f in hand {
        if f != W {
            avail[f as usize] += 1;
        }
    }
    if avail[card as usize] >= 3 {
        return Vec::new();
    }
    for n in avail.iter_mut() {
        if *n >= 3 {
            *n = 0;
        }
    }
    let mut out = Vec::new();
    for (a, b) in pairs(&avail) {
        if chi_kind(&[card, a, b]).is_some() {
            let mut rest = avail;
            rest[a as usize] -= 1;
            rest[b as usize] -= 1;
            further(&rest, card, vec![vec![card, a, b]], &mut out);
        }
    }
    let mut out: Vec<ChiMelds> = out.iter().map(|m| canonical_chi(m)).collect();
    out.sort();
    out.dedup();
    out
}

/// Melds the copies of `card` still in `avail` (比牌), one meld each.
fn further(avail: &[u8; FACES], card: u8, melds: ChiMelds, out: &mut Vec<ChiMelds>) {
    if avail[card as usize] == 0 {
        out.push(melds);
        return;
    }
    let mut rest = *avail;
    rest[card as usize] -= 1;
    for (a, b) in pairs(&rest) {
        if chi_kind(&[card, a, b]).is_some() {
            let mut r = rest;
            r[a as usize] -= 1;
            r[b as usize] -= 1;
            let mut m = melds.clone();
            m.push(vec![card, a, b]);
            further(&r, card, m, out);
        }
    }
}

/// Unordered pairs of cards available in `avail` (a pair of one face needs two copies).
fn pairs(avail: &[u8; FACES]) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    for (a, &na) in avail.iter().enumerate() {
        if na == 0 {
            continue;
        }
        for (b, &nb) in avail.iter().enumerate().skip(a) {
            if nb > u8::from(a == b) {
                out.push((a as u8, b as u8));
            }
        }
    }
    out
}

/// Seats in the order equal claims are settled: the card's owner first (the drawer of a stock
/// card, 自摸; no one claims its own discard), then the seats after it in turn.
pub fn in_turn_from(owner: usize) -> [usize; 3] {
    [owner, (owner + 1) % 3, (owner + 2) % 3]
}
