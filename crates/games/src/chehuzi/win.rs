//! Win finding: every way a hand splits into 门子 (W standing for any card), memoised.
//!
//! The score of a win is not additive over melds (囤 comes from the 胡息 total, the 红胡 family
//! from the red count, 醒 adds), so the search does not keep one best split per sub-hand: it
//! keeps the set of reachable totals ([`Acc`]) and the caller scores each total. Sub-hands are
//! keyed by their face counts, which makes the search polynomial in practice (the bench's worst
//! case, 21 cards with four W, stays far below a millisecond).

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

use super::melds::{FACES, Kind, Template, W, huxi, is_red, templates};

/// Totals of a set of melds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Acc {
    pub huxi: u8,
    pub reds: u8,
    /// Copies of the 醒 face.
    pub xing: u8,
    pub melds: u8,
    /// 跑 and 提.
    pub quads: u8,
    /// 将.
    pub pairs: u8,
}

impl Acc {
    pub fn add(self, o: Acc) -> Acc {
        Acc {
            huxi: self.huxi + o.huxi,
            reds: self.reds + o.reds,
            xing: self.xing + o.xing,
            melds: self.melds + o.melds,
            quads: self.quads + o.quads,
            pairs: self.pairs + o.pairs,
        }
    }

    fn sub(self, o: Acc) -> Option<Acc> {
        Some(Acc {
            huxi: self.huxi.checked_sub(o.huxi)?,
            reds: self.reds.checked_sub(o.reds)?,
            xing: self.xing.checked_sub(o.xing)?,
            melds: self.melds.checked_sub(o.melds)?,
            quads: self.quads.checked_sub(o.quads)?,
            pairs: self.pairs.checked_sub(o.pairs)?,
        })
    }

    /// The totals of one meld standing for `faces`.
    pub fn of_meld(kind: Kind, faces: &[u8], xing: Option<u8>) -> Acc {
        Acc {
            huxi: huxi(kind, faces),
            reds: faces.iter().filter(|&&f| is_red(f)).count() as u8,
            xing: faces.iter().filter(|&&f| Some(f) == xing).count() as u8,
            melds: 1,
            quads: u8::from(kind.is_quad()),
            pairs: u8::from(kind == Kind::Jiang),
        }
    }
}

/// A meld of the hand in a found split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandMeld {
    pub kind: Kind,
    /// What the cards stand for.
    pub faces: Vec<u8>,
    /// The cards themselves: `faces` with W where a W stands in.
    pub cards: Vec<u8>,
}

struct Table {
    templates: Vec<Template>,
    /// Templates holding each face.
    by_face: Vec<Vec<usize>>,
}

fn table(quad: Kind) -> &'static Table {
    static TI: OnceLock<Table> = OnceLock::new();
    static PAO: OnceLock<Table> = OnceLock::new();
    let cell = if quad == Kind::Ti { &TI } else { &PAO };
    cell.get_or_init(|| {
        let templates = templates(quad);
        let by_face = (0..FACES as u8)
            .map(|f| {
                (0..templates.len())
                    .filter(|&i| templates[i].faces.contains(&f))
                    .collect()
            })
            .collect();
        Table { templates, by_face }
    })
}

/// What a search is asked.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// How four identical cards in the hand count: 提 on one's own draw, else 跑.
    pub quad: Kind,
    /// A face that may not make 坎 or four identical in the hand: a pair completed by another
    /// player's card is a 碰, which the caller lays down itself.
    pub no_kan: Option<u8>,
    /// The 醒 face whose copies count (a W 醒 is counted by the caller).
    pub xing: Option<u8>,
    /// At most this many melds in the hand (7 minus those on the table).
    pub max_melds: u8,
}

type Counts = [u8; FACES];

pub struct Search {
    params: Params,
    table: &'static Table,
    memo: HashMap<u64, Rc<[Acc]>>,
}

fn key(c: &Counts, w: u8) -> u64 {
    c.iter()
        .fold(u64::from(w), |k, &n| (k << 3) | u64::from(n))
}

/// One way to lay a template over the hand: the counts left, the W left, the cards used.
struct Placement {
    template: usize,
    counts: Counts,
    w: u8,
    cards: Vec<u8>,
}

impl Search {
    pub fn new(params: Params) -> Search {
        Search {
            params,
            table: table(params.quad),
            memo: HashMap::new(),
        }
    }

    /// Every set of totals the hand (`counts` real cards and `w` W) splits into.
    pub fn totals(&mut self, counts: &Counts, w: u8) -> Rc<[Acc]> {
        let k = key(counts, w);
        if let Some(r) = self.memo.get(&k) {
            return r.clone();
        }
        let mut out: Vec<Acc> = Vec::new();
        if counts.iter().all(|&n| n == 0) && w == 0 {
            out.push(Acc::default());
        } else {
            for p in self.placements(counts, w) {
                let t = &self.table.templates[p.template];
                let here = Acc::of_meld(t.kind, &t.faces, self.params.xing);
                let rest = self.totals(&p.counts, p.w);
                for a in rest.iter() {
                    let n = a.add(here);
                    if n.pairs <= 1 && n.melds <= self.params.max_melds {
                        out.push(n);
                    }
                }
            }
            out.sort_unstable();
            out.dedup();
        }
        let r: Rc<[Acc]> = out.into();
        self.memo.insert(k, r.clone());
        r
    }

    /// The melds of one split reaching exactly `target` (one of [`Search::totals`]).
    pub fn split(&mut self, counts: &Counts, w: u8, target: Acc) -> Option<Vec<HandMeld>> {
        if counts.iter().all(|&n| n == 0) && w == 0 {
            return (target == Acc::default()).then(Vec::new);
        }
        for p in self.placements(counts, w) {
            let t = &self.table.templates[p.template];
            let here = Acc::of_meld(t.kind, &t.faces, self.params.xing);
            let Some(rest) = target.sub(here) else {
                continue;
            };
            if self.totals(&p.counts, p.w).binary_search(&rest).is_ok() {
                let mut melds = self.split(&p.counts, p.w, rest)?;
                melds.push(HandMeld {
                    kind: t.kind,
                    faces: t.faces.clone(),
                    cards: p.cards,
                });
                return Some(melds);
            }
        }
        None
    }

    /// The melds that can hold the lowest real card (every real card must be in one), or, with
    /// only W left, any meld made of W alone.
    fn placements(&self, counts: &Counts, w: u8) -> Vec<Placement> {
        let mut out = Vec::new();
        let lowest = counts.iter().position(|&n| n > 0);
        let candidates: Vec<usize> = match lowest {
            Some(f) => self.table.by_face[f].clone(),
            None => (0..self.table.templates.len()).collect(),
        };
        for ti in candidates {
            let t = &self.table.templates[ti];
            if t.faces.len() > (w as usize) + counts.iter().map(|&n| n as usize).sum::<usize>() {
                continue;
            }
            if matches!(t.kind, Kind::Kan | Kind::Ti | Kind::Pao)
                && self.params.no_kan == Some(t.faces[0])
            {
                continue;
            }
            // Choose how many real cards fill each distinct face of the template.
            let parts = &t.parts;
            let mut real = vec![0u8; parts.len()];
            loop {
                let ok = parts.iter().zip(&real).all(|(&(f, m), &r)| {
                    r <= m && r <= counts[f as usize] && (Some(f as usize) != lowest || r >= 1)
                });
                let wild: u8 = parts.iter().zip(&real).map(|(&(_, m), &r)| m - r).sum();
                if ok && wild <= w {
                    let mut c = *counts;
                    let mut cards = Vec::with_capacity(t.faces.len());
                    for (&(f, m), &r) in parts.iter().zip(&real) {
                        c[f as usize] -= r;
                        cards.extend(std::iter::repeat_n(f, r as usize));
                        cards.extend(std::iter::repeat_n(W, (m - r) as usize));
                    }
                    out.push(Placement {
                        template: ti,
                        counts: c,
                        w: w - wild,
                        cards,
                    });
                }
                // Next combination (odometer over 0..=multiplicity).
                let mut i = 0;
                loop {
                    if i == parts.len() {
                        break;
                    }
                    if real[i] < parts[i].1 {
                        real[i] += 1;
                        break;
                    }
                    real[i] = 0;
                    i += 1;
                }
                if i == parts.len() {
                    break;
                }
            }
        }
        out
    }
}

/// Splits a hand given as a face list into counts and W.
pub fn counts_of(hand: &[u8]) -> (Counts, u8) {
    let mut c = [0u8; FACES];
    let mut w = 0;
    for &f in hand {
        if f == W {
            w += 1;
        } else {
            c[f as usize] += 1;
        }
    }
    (c, w)
}
