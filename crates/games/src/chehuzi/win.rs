//! Win finding: every way a hand splits into 门子 (W standing for any card), memoised.
//!
//! The score of a win is not additive over melds (囤 comes from the 胡息 total, the 红胡 family
//! from the red count, 醒 adds), so the search does not keep one best split per sub-hand: it
//! keeps the set of reachable totals ([`Acc`]) and the caller scores each total. Sub-hands are
//! keyed by their face counts, which makes the search polynomial in practice (the bench's worst
//! case, 21 cards with four W, stays far below a millisecond).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;
use std::sync::OnceLock;

use super::melds::{FACES, Kind, Template, W, huxi, is_red, templates};

/// Totals of a set of melds. Fields are in the order [`pareto`] needs: the kinds that must
/// match exactly first, then the two that only count more-is-better.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Acc {
    pub reds: u8,
    pub melds: u8,
    /// 跑 and 提: only whether there is one (it calls for a 将).
    pub quads: u8,
    /// 将.
    pub pairs: u8,
    pub huxi: u8,
    /// Copies of the 醒 face.
    pub xing: u8,
}

impl Acc {
    pub fn add(self, o: Acc) -> Acc {
        Acc {
            huxi: self.huxi + o.huxi,
            reds: self.reds + o.reds,
            xing: self.xing + o.xing,
            melds: self.melds + o.melds,
            // Only whether there is a 跑 or 提 matters (it calls for a 将).
            quads: (self.quads + o.quads).min(1),
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
}

type Counts = [u8; FACES];

/// A win has exactly 7 门子; a hand with more melds than that never wins.
const MELDS: u8 = 7;

/// The memo's keys are already well mixed face counts: a multiply-shift hash is enough and much
/// cheaper than SipHash on this hot path.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
}

pub struct Search {
    params: Params,
    table: &'static Table,
    /// The totals of each template under these params.
    worth: Vec<Acc>,
    /// Melds of W alone, one per distinct size and totals (which face they stand for matters
    /// only through those).
    wild_melds: Vec<(u8, Acc)>,
    memo: HashMap<u64, Rc<[Acc]>, BuildHasherDefault<KeyHasher>>,
}

/// Where the count of W and of each face sit in a memo key.
const W_SHIFT: u32 = 3 * FACES as u32;
fn shift(face: u8) -> u32 {
    3 * (FACES as u32 - 1 - u32::from(face))
}

fn key(c: &Counts, w: u8) -> u64 {
    c.iter().fold(u64::from(w), |k, &n| (k << 3) | u64::from(n))
}

/// One way to lay a template over the hand: the counts left, the W left, the cards used.
struct Placement {
    template: usize,
    counts: Counts,
    w: u8,
    key: u64,
    cards: [u8; 4],
}

impl Search {
    pub fn new(params: Params) -> Search {
        let table = table(params.quad);
        let worth: Vec<Acc> = table
            .templates
            .iter()
            .map(|t| Acc::of_meld(t.kind, &t.faces, params.xing))
            .collect();
        let mut wild_melds: Vec<(u8, Acc)> = table
            .templates
            .iter()
            .zip(&worth)
            .map(|(t, &a)| (t.faces.len() as u8, a))
            .collect();
        wild_melds.sort_unstable();
        wild_melds.dedup();
        Search {
            params,
            table,
            worth,
            wild_melds,
            memo: HashMap::with_capacity_and_hasher(1024, Default::default()),
        }
    }

    /// Every set of totals the hand (`counts` real cards and `w` W) splits into.
    pub fn totals(&mut self, counts: &Counts, w: u8) -> Rc<[Acc]> {
        self.totals_keyed(counts, w, key(counts, w))
    }

    fn totals_keyed(&mut self, counts: &Counts, w: u8, k: u64) -> Rc<[Acc]> {
        if let Some(r) = self.memo.get(&k) {
            return r.clone();
        }
        let mut out: Vec<Acc> = Vec::new();
        if counts.iter().all(|&n| n == 0) && w == 0 {
            out.push(Acc::default());
        } else if counts.iter().all(|&n| n == 0) {
            for i in 0..self.wild_melds.len() {
                let (size, here) = self.wild_melds[i];
                if size > w {
                    continue;
                }
                let rest = self.totals_keyed(counts, w - size, k - (u64::from(size) << W_SHIFT));
                for a in rest.iter() {
                    let n = a.add(here);
                    if n.pairs <= 1 && n.melds <= MELDS {
                        out.push(n);
                    }
                }
            }
            out = pareto(out);
        } else if wilds_needed(counts) <= w {
            let (table, no_kan) = (self.table, self.params.no_kan);
            place(table, no_kan, counts, w, k, &mut |p| {
                let here = self.worth[p.template];
                let rest = self.totals_keyed(&p.counts, p.w, p.key);
                for a in rest.iter() {
                    let n = a.add(here);
                    if n.pairs <= 1 && n.melds <= MELDS {
                        out.push(n);
                    }
                }
            });
            out = pareto(out);
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
        let mut all = Vec::new();
        place(
            self.table,
            self.params.no_kan,
            counts,
            w,
            key(counts, w),
            &mut |p| all.push(p),
        );
        for p in all {
            let t = &self.table.templates[p.template];
            let here = self.worth[p.template];
            let Some(rest) = target.sub(here) else {
                continue;
            };
            let totals = self.totals_keyed(&p.counts, p.w, p.key);
            // 跑/提 are counted as present or not, so a 4-of-a-kind here may have another below.
            let rest = [rest, Acc { quads: 1, ..rest }]
                .into_iter()
                .find(|r| r.quads <= target.quads && totals.binary_search(r).is_ok());
            if let Some(rest) = rest {
                let mut melds = self.split(&p.counts, p.w, rest)?;
                melds.push(HandMeld {
                    kind: t.kind,
                    faces: t.faces.clone(),
                    cards: p.cards[..t.faces.len()].to_vec(),
                });
                return Some(melds);
            }
        }
        None
    }
}

/// The melds that can hold the lowest real card (every real card must be in one), or, with
/// only W left, any meld made of W alone.
fn place(
    table: &'static Table,
    no_kan: Option<u8>,
    counts: &Counts,
    w: u8,
    key: u64,
    emit: &mut impl FnMut(Placement),
) {
    let lowest = counts.iter().position(|&n| n > 0);
    let held = w as usize + counts.iter().map(|&n| n as usize).sum::<usize>();
    let all: Vec<usize>;
    let candidates: &[usize] = match lowest {
        Some(f) => &table.by_face[f],
        None => {
            all = (0..table.templates.len()).collect();
            &all
        }
    };
    for &ti in candidates {
        let t = &table.templates[ti];
        if t.faces.len() > held
            || (matches!(t.kind, Kind::Kan | Kind::Ti | Kind::Pao) && no_kan == Some(t.faces[0]))
        {
            continue;
        }
        // Choose how many real cards fill each distinct face of the template.
        let parts = &t.parts;
        let mut real = [0u8; 3];
        loop {
            let mut ok = true;
            let mut wild = 0;
            for (i, &(f, m)) in parts.iter().enumerate() {
                let r = real[i];
                ok &= r <= counts[f as usize] && (Some(f as usize) != lowest || r >= 1);
                wild += m - r;
            }
            if ok && wild <= w {
                let mut c = *counts;
                let mut cards = [W; 4];
                let mut k = 0;
                let mut child = key - (u64::from(wild) << W_SHIFT);
                for (i, &(f, _)) in parts.iter().enumerate() {
                    c[f as usize] -= real[i];
                    child -= u64::from(real[i]) << shift(f);
                    for _ in 0..real[i] {
                        cards[k] = f;
                        k += 1;
                    }
                }
                emit(Placement {
                    template: ti,
                    counts: c,
                    w: w - wild,
                    key: child,
                    cards,
                });
            }
            // Next combination (odometer over 0..=multiplicity).
            let mut i = 0;
            while i < parts.len() {
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
}

/// A lower bound of the W a hand needs: a card no other real card can share a meld with needs
/// two W, or one as the single 将.
fn wilds_needed(c: &Counts) -> u8 {
    let mut alone = 0u8;
    for f in 0..FACES {
        if c[f] != 1 {
            continue;
        }
        let n = f % 10;
        let case = f - n;
        let other = if case == 0 { f + 10 } else { f - 10 };
        let near = (n.saturating_sub(2)..=(n + 2).min(9)).any(|m| m != n && c[case + m] > 0);
        let erqishi =
            [1, 6, 9].contains(&n) && [1, 6, 9].iter().any(|&m| m != n && c[case + m] > 0);
        if !near && !erqishi && c[other] == 0 {
            alone += 1;
        }
    }
    (2 * alone).saturating_sub(1)
}

/// Drops totals another total beats on both 胡息 and 醒 with the same red count, meld count,
/// 跑/提 and 将: more of either never scores less. Returns the rest in `Acc` order.
fn pareto(mut v: Vec<Acc>) -> Vec<Acc> {
    v.sort_unstable();
    let mut out: Vec<Acc> = Vec::with_capacity(v.len());
    let mut group = None;
    let mut best_xing = 0;
    // From the highest 胡息 down: keep a total only if its 醒 beats every higher one's.
    for &a in v.iter().rev() {
        let g = (a.reds, a.melds, a.quads, a.pairs);
        if group != Some(g) {
            group = Some(g);
            best_xing = a.xing;
            out.push(a);
        } else if a.xing > best_xing {
            best_xing = a.xing;
            out.push(a);
        }
    }
    out.reverse();
    out
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
