//! Settlement of a hand by 尾大吃皮 and the 积分 it is worth (rulings § Settlement, § 积分).

use serde::Serialize;

use super::ranking::{PairRank, versus};
use crate::engine::SeatNo;

/// How a seat ends a hand, as far as settlement cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Not dealt into this hand.
    Out,
    /// Folded: beaten by every seat that collects.
    Folded,
    /// At showdown holding 三花十 or 三花六: compared with nobody, so it neither wins nor loses.
    Sanhua,
    /// At showdown with this split.
    Shown { head: PairRank, tail: PairRank },
    /// The only seat left after everyone else folded: it beats every folded seat.
    Uncontested,
}

/// Coins one seat collected from another in the settlement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Transfer {
    /// The seat that paid.
    pub from: SeatNo,
    /// The seat that collected.
    pub to: SeatNo,
    /// Coins moved.
    pub amount: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settlement {
    /// What each seat gets back of what it put in (`left[p]` of the rulings).
    pub returned: Vec<i64>,
    /// What each seat took from the seats it beat.
    pub collected: Vec<i64>,
    pub transfers: Vec<Transfer>,
    /// Every (winner, loser) pair, whether or not coins moved between them.
    pub beats: Vec<(SeatNo, SeatNo)>,
    /// The seat that collected first (it deals the next hand), if anyone collected.
    pub first_collector: Option<SeatNo>,
}

impl Settlement {
    /// Each seat's net coin change: what came back plus what it collected minus what it put in.
    pub fn net(&self, put_in: &[i64]) -> Vec<i64> {
        (0..put_in.len())
            .map(|p| self.returned[p] + self.collected[p] - put_in[p])
            .collect()
    }
}

/// Seats in the order "nearest the dealer's left" first: the seats after the dealer in play order
/// (seat + 1, seat + 2, …), the dealer last.
pub fn from_dealers_left(dealer: SeatNo, n: usize) -> Vec<SeatNo> {
    (1..=n).map(|k| (dealer + k) % n).collect()
}

fn beats(w: Standing, l: Standing) -> bool {
    match (w, l) {
        (Standing::Shown { .. } | Standing::Uncontested, Standing::Folded) => true,
        (Standing::Shown { head: wh, tail: wt }, Standing::Shown { head: lh, tail: lt }) => {
            versus((wh, wt), (lh, lt)) == std::cmp::Ordering::Greater
        }
        _ => false,
    }
}

/// 尾大吃皮: the collecting seats in groups ordered by tail, then head, strongest first; each member
/// of a group takes from every seat it beats at most what it put in itself, several members
/// beating the same seat share what that seat has left equally.
pub fn settle(put_in: &[i64], standing: &[Standing], dealer: SeatNo) -> Settlement {
    let n = put_in.len();
    let order = from_dealers_left(dealer, n);
    let key = |s: SeatNo| match standing[s] {
        Standing::Shown { head, tail } => Some((tail, head)),
        _ => None,
    };
    let mut collectors: Vec<SeatNo> = order
        .iter()
        .copied()
        .filter(|&s| matches!(standing[s], Standing::Shown { .. } | Standing::Uncontested))
        .collect();
    // Stable, so that members of one group stay in dealer's-left order.
    collectors.sort_by_key(|&s| std::cmp::Reverse(key(s)));
    let groups: Vec<&[SeatNo]> = collectors.chunk_by(|&a, &b| key(a) == key(b)).collect();

    let mut left = put_in.to_vec();
    let mut collected = vec![0i64; n];
    let mut transfers = Vec::new();
    for group in &groups {
        for &l in &order {
            let members: Vec<SeatNo> = group
                .iter()
                .copied()
                .filter(|&w| beats(standing[w], standing[l]))
                .collect();
            if members.is_empty() || left[l] == 0 {
                continue;
            }
            let caps: Vec<i64> = members.iter().map(|&w| put_in[w]).collect();
            let shares = share(left[l], &caps);
            for (&w, amount) in members.iter().zip(shares) {
                if amount > 0 {
                    left[l] -= amount;
                    collected[w] += amount;
                    transfers.push(Transfer {
                        from: l,
                        to: w,
                        amount,
                    });
                }
            }
        }
    }
    let first_collector = collectors.iter().copied().find(|&w| collected[w] > 0);
    let beats = collectors
        .iter()
        .flat_map(|&w| order.iter().map(move |&l| (w, l)))
        .filter(|&(w, l)| beats(standing[w], standing[l]))
        .collect();
    Settlement {
        returned: left,
        collected,
        transfers,
        beats,
        first_collector,
    }
}

/// Splits `available` equally among members each capped at `caps[i]` (water-filling: what a
/// capped member cannot take goes to the others); odd chips go to the earliest members, which the
/// caller lists nearest the dealer's left first.
fn share(mut available: i64, caps: &[i64]) -> Vec<i64> {
    let mut given = vec![0i64; caps.len()];
    let mut open: Vec<usize> = (0..caps.len()).collect();
    while !open.is_empty() && available > 0 {
        let fair = available / open.len() as i64;
        let (full, rest): (Vec<usize>, Vec<usize>) =
            open.iter().partition(|&&i| caps[i] - given[i] <= fair);
        if !full.is_empty() {
            for i in full {
                available -= caps[i] - given[i];
                given[i] = caps[i];
            }
            open = rest;
            continue;
        }
        // Every open member can take more than the fair share, so each takes it and the odd
        // chips (fewer than the members) go one each to the first ones.
        for &i in &open {
            given[i] += fair;
        }
        available -= fair * open.len() as i64;
        for &i in open.iter().take(available as usize) {
            given[i] += 1;
        }
        available = 0;
    }
    given
}

/// Largest 积分 a seat can lose in one hand: keeps every sum within i64 and every value exact in
/// JSON clients that use doubles.
const MAX_POINTS: i128 = 1 << 53;

/// floor(coins / 底注 × 基本积分): what losing `coins` (in a settlement or as an escape penalty)
/// costs in 积分.
pub fn loss_points(coins: i64, ante: i64, base: i64) -> i64 {
    (coins as i128 * base as i128 / ante as i128).min(MAX_POINTS) as i64
}

/// 积分 of a settled hand: a losing seat loses floor(coins lost / 底注 × 基本积分); the winners share
/// exactly that total in proportion to the coins each won, the rounding remainder going to the
/// largest fractional parts (ties: nearest the dealer's left).
pub fn points(net: &[i64], ante: i64, base: i64, dealer: SeatNo) -> Vec<i64> {
    let n = net.len();
    let mut pts = vec![0i64; n];
    let mut total: i128 = 0;
    for (p, &c) in net.iter().enumerate() {
        if c < 0 {
            let lost = loss_points(-c, ante, base);
            pts[p] = -lost;
            total += lost as i128;
        }
    }
    let won: i128 = net.iter().filter(|&&c| c > 0).map(|&c| c as i128).sum();
    if total == 0 || won == 0 {
        return pts;
    }
    let mut handed: i128 = 0;
    let mut remainders = Vec::new();
    for p in from_dealers_left(dealer, n) {
        if net[p] > 0 {
            let exact = total * net[p] as i128;
            pts[p] = (exact / won) as i64;
            handed += exact / won;
            remainders.push((exact % won, p));
        }
    }
    // Stable: equal remainders keep dealer's-left order.
    remainders.sort_by_key(|&(r, _)| std::cmp::Reverse(r));
    for &(_, p) in remainders.iter().take((total - handed) as usize) {
        pts[p] += 1;
    }
    pts
}

/// 基本积分: score_unit × the mean level of the seated players, rounded half up; a level is
/// 1 + floor(积分 / 1000), kept within 1..=10.
pub fn base_points(score_unit: i64, scores: &[i64]) -> i64 {
    if scores.is_empty() {
        return 0;
    }
    let levels: i128 = scores.iter().map(|&s| level(s) as i128).sum();
    let n = scores.len() as i128;
    ((2 * score_unit as i128 * levels + n) / (2 * n)) as i64
}

pub fn level(score: i64) -> i64 {
    (1 + score.div_euclid(1000)).clamp(1, 10)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chexuan::ranking::pair_rank;
    use crate::hand;

    fn shown(head: [&str; 2], tail: [&str; 2]) -> Standing {
        let h = hand![head[0], head[1]];
        let t = hand![tail[0], tail[1]];
        let (head, tail) = (pair_rank([h[0], h[1]]), pair_rank([t[0], t[1]]));
        assert!(head >= tail, "fixture heads are the stronger half");
        Standing::Shown { head, tail }
    }

    /// The seed's first example: a and b tie, both beat c; tails 6, 7, 2.
    fn tie_abc() -> Vec<Standing> {
        vec![
            // a: head 天牌, tail 6 (红2 + 黑4).
            shown(["QH", "QD"], ["2D", "4S"]),
            // b: head 人牌, tail 7 (红2 + 黑5): weaker head, stronger tail than a.
            shown(["8H", "8D"], ["2H", "5S"]),
            // c: head 杂对, tail 2 (黑5 + 黑7): loses both halves to a and to b.
            shown(["9S", "9C"], ["5C", "7S"]),
        ]
    }

    fn transfer(from: SeatNo, to: SeatNo, amount: i64) -> Transfer {
        Transfer { from, to, amount }
    }

    #[test]
    fn seed_example_tail_order_b_collects_first_and_a_gets_nothing() {
        let put_in = [100, 100, 100];
        let s = settle(&put_in, &tie_abc(), 0);
        assert_eq!(s.transfers, vec![transfer(2, 1, 100)]);
        assert_eq!(s.net(&put_in), vec![0, 100, -100]);
        assert_eq!(s.first_collector, Some(1));
        assert!(s.beats.contains(&(0, 2)) && s.beats.contains(&(1, 2)));
        assert!(!s.beats.contains(&(0, 1)) && !s.beats.contains(&(1, 0)));
    }

    #[test]
    fn seed_example_with_c_at_150_a_wins_the_remaining_50() {
        let put_in = [100, 100, 150];
        let s = settle(&put_in, &tie_abc(), 0);
        assert_eq!(s.transfers, vec![transfer(2, 1, 100), transfer(2, 0, 50)]);
        assert_eq!(s.net(&put_in), vec![50, 100, -150]);
    }

    #[test]
    fn seed_example_equal_tails_share_the_loser_equally() {
        // a and b equal in both halves (梅十 = 板凳, 7 points with the same single cards).
        let standing = vec![
            shown(["10S", "10C"], ["2D", "5S"]),
            shown(["4S", "4C"], ["2H", "5C"]),
            shown(["9S", "9C"], ["3H", "7S"]),
        ];
        let put_in = [100, 100, 100];
        let s = settle(&put_in, &standing, 0);
        assert_eq!(s.net(&put_in), vec![50, 50, -100]);
        // An odd chip goes to the member nearest the dealer's left: with seat 0 dealing, seat 1.
        let put_in = [100, 100, 101];
        let s = settle(&put_in, &standing, 0);
        assert_eq!(s.collected, vec![50, 51, 0]);
        // With seat 1 dealing, seat 2 then seat 0 come first: seat 0 gets the odd chip.
        let s = settle(&put_in, &standing, 1);
        assert_eq!(s.collected, vec![51, 50, 0]);
    }

    #[test]
    fn shared_loser_respects_each_members_own_cap() {
        let standing = vec![
            shown(["10S", "10C"], ["2D", "5S"]),
            shown(["4S", "4C"], ["2H", "5C"]),
            shown(["9S", "9C"], ["3H", "7S"]),
        ];
        // Seat 0 put in only 30: it takes 30, seat 1 takes the other 170 up to its 200.
        let put_in = [30, 200, 200];
        let s = settle(&put_in, &standing, 0);
        assert_eq!(s.collected, vec![30, 170, 0]);
        assert_eq!(s.net(&put_in), vec![30, 170, -200]);
    }

    #[test]
    fn seed_example_50_200_150_a_wins_50_from_each_and_b_wins_100_from_c() {
        // a > b > c in both halves.
        let standing = vec![
            shown(["QH", "QD"], ["2D", "5S"]), // 天牌, 7 points
            shown(["8H", "8D"], ["4S", "2H"]), // 人牌, 6 points
            shown(["9S", "9C"], ["3H", "7S"]), // 杂对, 0 points
        ];
        let put_in = [50, 200, 150];
        let s = settle(&put_in, &standing, 0);
        let mut t = s.transfers.clone();
        t.sort_by_key(|t| (t.to, t.from));
        assert_eq!(
            t,
            vec![transfer(1, 0, 50), transfer(2, 0, 50), transfer(2, 1, 100)]
        );
        assert_eq!(s.net(&put_in), vec![100, 50, -150]);
        assert_eq!(s.returned, vec![50, 150, 0]);
    }

    #[test]
    fn folded_seats_pay_the_strongest_tail_first() {
        let standing = vec![
            shown(["QH", "QD"], ["2D", "4S"]), // tail 6
            shown(["8H", "8D"], ["2H", "5S"]), // tail 7
            Standing::Folded,
            Standing::Out,
        ];
        let put_in = [60, 60, 100, 0];
        let s = settle(&put_in, &standing, 0);
        // b (tail 7) takes 60 of the folded 100, a the remaining 40; a and b tie each other.
        assert_eq!(s.collected, vec![40, 60, 0, 0]);
        assert_eq!(s.returned, vec![60, 60, 0, 0]);
    }

    #[test]
    fn sanhua_neither_wins_nor_loses() {
        let standing = vec![
            shown(["QH", "QD"], ["2D", "4S"]),
            Standing::Sanhua,
            Standing::Folded,
        ];
        let put_in = [50, 80, 30];
        let s = settle(&put_in, &standing, 0);
        assert_eq!(s.net(&put_in), vec![30, 0, -30]);
    }

    #[test]
    fn last_man_standing_collects_up_to_his_own_stake_from_each_folded_seat() {
        let standing = vec![Standing::Folded, Standing::Uncontested, Standing::Folded];
        let put_in = [200, 120, 30];
        let s = settle(&put_in, &standing, 2);
        assert_eq!(s.collected, vec![0, 150, 0]);
        assert_eq!(s.returned, vec![80, 120, 0]);
        assert_eq!(s.first_collector, Some(1));
    }

    #[test]
    fn ties_everywhere_move_no_coins_and_nobody_collects_first() {
        let standing = vec![
            shown(["QH", "QD"], ["2D", "4S"]),
            shown(["8H", "8D"], ["2H", "5S"]),
        ];
        let s = settle(&[90, 90], &standing, 0);
        assert!(s.transfers.is_empty());
        assert_eq!(s.first_collector, None);
    }

    #[test]
    fn share_is_equal_capped_and_gives_odd_chips_to_the_first() {
        assert_eq!(share(100, &[100, 100]), vec![50, 50]);
        assert_eq!(share(101, &[100, 100, 100]), vec![34, 34, 33]);
        assert_eq!(share(100, &[10, 100, 100]), vec![10, 45, 45]);
        assert_eq!(share(5, &[100, 100]), vec![3, 2]);
        assert_eq!(share(300, &[10, 20, 500]), vec![10, 20, 270]);
    }

    #[test]
    fn points_losers_pay_by_coins_over_ante_and_winners_share_in_proportion() {
        // base 10, ante 10: losing 100 coins costs 100 points; 3 winners share 100 ∝ 1:1:1.
        let pts = points(&[-100, 40, 30, 30], 10, 10, 0);
        assert_eq!(pts.iter().sum::<i64>(), 0);
        assert_eq!(pts, vec![-100, 40, 30, 30]);
        // 100 points over 1:1:1 — the odd point goes to the largest remainder, ties nearest the
        // dealer's left (seat 1 with seat 0 dealing).
        let pts = points(&[-30, 10, 10, 10], 3, 10, 0);
        assert_eq!(pts, vec![-100, 34, 33, 33]);
        // Loss is floored: 15 coins / ante 10 × 10 = 15; 7 / 10 × 3 = 2.1 → 2.
        assert_eq!(points(&[-7, 7], 10, 3, 0), vec![-2, 2]);
    }

    #[test]
    fn base_points_are_the_rounded_mean_level_times_the_unit() {
        assert_eq!(level(0), 1);
        assert_eq!(level(-500), 1);
        assert_eq!(level(999), 1);
        assert_eq!(level(1000), 2);
        assert_eq!(level(50_000), 10);
        // Levels 1 and 2: mean 1.5 × 10 = 15.
        assert_eq!(base_points(10, &[0, 1000]), 15);
        // Levels 1, 1, 2: mean 4/3 × 10 = 13.33 → 13.
        assert_eq!(base_points(10, &[0, 0, 1500]), 13);
        // Levels 1, 2, 2: 5/3 × 10 = 16.67 → 17.
        assert_eq!(base_points(10, &[0, 1000, 1999]), 17);
        assert_eq!(base_points(0, &[0, 1000]), 0);
    }
}
