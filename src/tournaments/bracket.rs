//! The bracket as pure code: how many registrants a field keeps, who advances from a finished
//! table, how a round's players sit, and how the final table shares the pool
//! (docs/tournaments.md; rulings: shared/rules/tournaments.md 3–6).
//!
//! Most games advance one player per table. A game with fixed partners (四副牌升级: partners sit
//! opposite, seats `s` and `s + 2`, for the whole match, and always score alike) advances the
//! winning **pair**: two players per table, who stay partners in the next round and share the
//! pool if they win the final.

/// A tournament's shape: players per table, and how many of them advance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub table_size: usize,
    /// 1, or 2 for a pair of fixed partners (opposite seats).
    pub advance: usize,
}

/// One player at a finished tournament table, as the bracket judges them.
#[derive(Clone, Copy, Debug)]
pub struct Contender {
    pub score: i64,
    pub reg_no: i32,
    pub escaped: bool,
}

impl Format {
    /// The format of `game`'s tournaments; `None` for a game without a fixed table size.
    pub fn of(game: &dyn games::DynGame) -> Option<Format> {
        let table_size = game.table_size()?;
        let pairs = game.fixed_partners() && table_size == 4;
        Some(Format {
            table_size,
            advance: if pairs { 2 } else { 1 },
        })
    }

    /// The field for `n` able registrants: the largest `table_size × (table_size / advance)^k`
    /// not above `n` (powers of 4 for four seats and one winner, of 3 for three seats, 4·2^k
    /// for pairs); 0 when a single table cannot be filled.
    pub fn field_size(&self, n: usize) -> usize {
        let growth = (self.table_size / self.advance).max(2);
        let mut f = 0;
        let mut p = self.table_size.max(2);
        while p <= n {
            f = p;
            p = p.saturating_mul(growth);
        }
        f
    }

    /// The seats, in order, of one table's `group` of the round's order. The order lists the
    /// advancing units one after another (a pair as its two players); a pair's two players sit
    /// opposite: `[a0, a1, b0, b1]` sits as `[a0, b0, a1, b1]`.
    pub fn seating<T: Copy>(&self, group: &[T]) -> Vec<T> {
        match group {
            &[a0, a1, b0, b1] if self.advance == 2 => vec![a0, b0, a1, b1],
            _ => group.to_vec(),
        }
    }

    /// The seats that advance from a finished table, in the order the next round lists them
    /// (a pair: seat `s`, then `s + 2`). One player: the highest score among the players who
    /// did not escape, ties going to the earlier registration. A pair: the pair with the
    /// higher score (partners score alike; their sum is compared), ties going to the pair whose
    /// earlier member registered first; the pair with fewer escapers goes before the other.
    /// If every unit escaped, the best of them still fills the bracket slot so that the
    /// tournament ends (an escaper in it is eliminated all the same, and [`prize_winners`]
    /// pays it nothing). `None` for an empty table.
    pub fn advancers(&self, table: &[Contender]) -> Option<Vec<usize>> {
        let units: Vec<Vec<usize>> = if self.advance == 2 && table.len() == 4 {
            vec![vec![0, 2], vec![1, 3]]
        } else {
            (0..table.len()).map(|i| vec![i]).collect()
        };
        let escaped = |u: &Vec<usize>| u.iter().filter(|&&i| table[i].escaped).count();
        let fewest = units.iter().map(escaped).min()?;
        units
            .into_iter()
            .filter(|u| escaped(u) == fewest)
            .max_by_key(|u| {
                let score: i64 = u.iter().map(|&i| table[i].score).sum();
                let first = u.iter().map(|&i| table[i].reg_no).min().unwrap_or(i32::MAX);
                (score, std::cmp::Reverse(first))
            })
    }
}

/// Who of the final's winners shares the prize: those who did not escape (an escaper is
/// eliminated at once, even when its pair filled the bracket slot), or, when every one of
/// them escaped, all of them (the pool is paid out either way).
pub fn prize_winners<T: Copy>(winners: &[(T, bool)]) -> Vec<T> {
    let stayed: Vec<T> = winners.iter().filter(|w| !w.1).map(|w| w.0).collect();
    if stayed.is_empty() {
        winners.iter().map(|w| w.0).collect()
    } else {
        stayed
    }
}

/// The prize pool shared equally by the final's winners, listed earliest registration first:
/// a remainder that does not divide goes one coin each to the earliest registrants.
pub fn shares(pool: i64, winners: usize) -> Vec<i64> {
    let n = winners.max(1) as i64;
    (0..n).map(|i| pool / n + i64::from(i < pool % n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE_OF_FOUR: Format = Format {
        table_size: 4,
        advance: 1,
    };
    const PAIRS: Format = Format {
        table_size: 4,
        advance: 2,
    };

    #[test]
    fn the_field_is_the_largest_power_of_three_at_three_seat_tables() {
        let f = Format {
            table_size: 3,
            advance: 1,
        };
        for (n, want) in [
            (2, 0),
            (3, 3),
            (8, 3),
            (9, 9),
            (26, 9),
            (27, 27),
            (81, 81),
            (242, 81),
        ] {
            assert_eq!(f.field_size(n), want, "{n}");
        }
    }

    #[test]
    fn the_field_is_the_largest_power_of_four() {
        for (n, want) in [
            (0, 0),
            (3, 0),
            (4, 4),
            (15, 4),
            (16, 16),
            (17, 16),
            (63, 16),
            (64, 64),
            (255, 64),
            (256, 256),
            (1100, 1024),
        ] {
            assert_eq!(ONE_OF_FOUR.field_size(n), want, "{n}");
        }
    }

    #[test]
    fn a_field_of_pairs_is_four_times_a_power_of_two() {
        for (n, want) in [
            (3, 0),
            (4, 4),
            (7, 4),
            (8, 8),
            (15, 8),
            (16, 16),
            (31, 16),
            (32, 32),
            (100, 64),
        ] {
            assert_eq!(PAIRS.field_size(n), want, "{n}");
        }
    }

    fn c(score: i64, reg_no: i32, escaped: bool) -> Contender {
        Contender {
            score,
            reg_no,
            escaped,
        }
    }

    #[test]
    fn the_highest_score_advances() {
        let t = [
            c(-10, 1, false),
            c(30, 4, false),
            c(-10, 2, false),
            c(-10, 3, false),
        ];
        assert_eq!(ONE_OF_FOUR.advancers(&t), Some(vec![1]));
    }

    #[test]
    fn a_tie_goes_to_the_earlier_registration_wherever_it_sits() {
        // 打炸 partners score alike: seats 1 and 3 tie, seat 3 registered first.
        let t = [
            c(-20, 2, false),
            c(20, 9, false),
            c(-20, 1, false),
            c(20, 5, false),
        ];
        assert_eq!(ONE_OF_FOUR.advancers(&t), Some(vec![3]));
        // Everyone level: the earliest registrant of the table.
        let three = Format {
            table_size: 3,
            advance: 1,
        };
        let t = [c(0, 7, false), c(0, 3, false), c(0, 12, false)];
        assert_eq!(three.advancers(&t), Some(vec![1]));
    }

    #[test]
    fn an_escaper_never_advances_unless_everyone_escaped() {
        let t = [
            c(50, 1, true),
            c(-10, 2, false),
            c(-20, 3, false),
            c(-20, 4, false),
        ];
        assert_eq!(ONE_OF_FOUR.advancers(&t), Some(vec![1]));
        let t = [c(-5, 4, true), c(5, 3, true), c(5, 2, true), c(-5, 1, true)];
        assert_eq!(ONE_OF_FOUR.advancers(&t), Some(vec![2]));
        assert_eq!(ONE_OF_FOUR.advancers(&[]), None);
    }

    #[test]
    fn the_winning_pair_advances_together() {
        // 升级: seats 0 and 2 against 1 and 3; partners score alike.
        let t = [
            c(3, 5, false),
            c(-3, 1, false),
            c(3, 8, false),
            c(-3, 2, false),
        ];
        assert_eq!(PAIRS.advancers(&t), Some(vec![0, 2]));
        // Level: the pair whose earlier member registered first (reg 1, seat 1).
        let t = [
            c(0, 5, false),
            c(0, 1, false),
            c(0, 8, false),
            c(0, 9, false),
        ];
        assert_eq!(PAIRS.advancers(&t), Some(vec![1, 3]));
        // A pair with an escaper loses to one without, whatever the score.
        let t = [
            c(9, 5, true),
            c(-9, 6, false),
            c(9, 7, false),
            c(-9, 8, false),
        ];
        assert_eq!(PAIRS.advancers(&t), Some(vec![1, 3]));
    }

    #[test]
    fn with_an_escaper_in_each_pair_the_pair_advances_and_only_its_stayer_is_paid() {
        let t = [
            c(9, 5, true),
            c(-9, 6, false),
            c(9, 7, false),
            c(-9, 8, true),
        ];
        assert_eq!(
            PAIRS.advancers(&t),
            Some(vec![0, 2]),
            "level on escapes: the score"
        );
        let t = [
            c(9, 5, true),
            c(-9, 6, false),
            c(9, 7, true),
            c(-9, 8, true),
        ];
        assert_eq!(
            PAIRS.advancers(&t),
            Some(vec![1, 3]),
            "fewer escapers first"
        );
        assert_eq!(prize_winners(&[("a", true), ("b", false)]), ["b"]);
        assert_eq!(prize_winners(&[("a", true), ("b", true)]), ["a", "b"]);
        assert_eq!(prize_winners(&[("a", false), ("b", false)]), ["a", "b"]);
    }

    #[test]
    fn pairs_sit_opposite_their_partners() {
        assert_eq!(
            PAIRS.seating(&["a0", "a1", "b0", "b1"]),
            ["a0", "b0", "a1", "b1"]
        );
        assert_eq!(
            ONE_OF_FOUR.seating(&["a", "b", "c", "d"]),
            ["a", "b", "c", "d"]
        );
        // Whatever a table's seating, its advancing pair is listed as the next round's unit,
        // and seated opposite again.
        let seated = PAIRS.seating(&[1, 2, 3, 4]);
        let table: Vec<Contender> = seated
            .iter()
            .map(|&p| c(if p <= 2 { 5 } else { -5 }, p, false))
            .collect();
        let pair: Vec<i32> = PAIRS
            .advancers(&table)
            .unwrap()
            .iter()
            .map(|&s| seated[s])
            .collect();
        assert_eq!(pair, [1, 2]);
    }

    #[test]
    fn the_final_pair_shares_the_pool_and_nothing_is_lost() {
        assert_eq!(shares(800, 2), [400, 400]);
        assert_eq!(shares(801, 2), [401, 400]);
        assert_eq!(shares(0, 2), [0, 0]);
        assert_eq!(shares(77, 1), [77]);
        for pool in 0..50 {
            for n in 1..5 {
                assert_eq!(shares(pool, n).iter().sum::<i64>(), pool);
            }
        }
    }
}
