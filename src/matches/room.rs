//! 金币场 arithmetic: a hand's units × stake become coin movements between wallets.

/// Coin change per seat for a hand whose zero-sum `units` are multiplied by `stake`, given each
/// seat's wallet. A loser pays what it owes or everything it has (coins never go below zero);
/// the winners share what the losers paid in proportion to what each won, rounding by largest
/// remainder (ties to the lower seat). The result always sums to zero.
pub fn coin_deltas(units: &[i64], stake: i64, wallets: &[i64]) -> Vec<i64> {
    let n = units.len();
    let mut deltas = vec![0i64; n];
    let mut collected: i128 = 0;
    for i in 0..n {
        if units[i] < 0 {
            let owed = (-units[i] as i128) * stake as i128;
            let paid = owed.min(wallets.get(i).copied().unwrap_or(0).max(0) as i128);
            deltas[i] = -(paid as i64);
            collected += paid;
        }
    }
    let claims: Vec<i128> = units
        .iter()
        .map(|&u| if u > 0 { u as i128 * stake as i128 } else { 0 })
        .collect();
    let total_claims: i128 = claims.iter().sum();
    if total_claims == 0 {
        // Nobody won anything, so nobody may pay either.
        return vec![0; n];
    }
    let mut remainders = Vec::new();
    let mut given: i128 = 0;
    for i in 0..n {
        if claims[i] > 0 {
            let exact = collected * claims[i];
            let share = exact / total_claims;
            deltas[i] = share as i64;
            given += share;
            remainders.push((exact % total_claims, i));
        }
    }
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, i) in remainders.into_iter().take((collected - given) as usize) {
        deltas[i] += 1;
    }
    deltas
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn everyone_pays_in_full_when_they_can() {
        assert_eq!(
            coin_deltas(&[3, 3, -3, -3], 10, &[0, 0, 100, 100]),
            vec![30, 30, -30, -30]
        );
    }

    #[test]
    fn a_short_loser_pays_what_it_has_and_winners_share_pro_rata() {
        // Seat 2 owes 60 but holds 20; seat 3 pays 30 in full: 50 shared 2:1.
        assert_eq!(
            coin_deltas(&[4, 2, -6, -3], 10, &[0, 0, 20, 500]),
            vec![33, 17, -20, -30]
        );
    }

    #[test]
    fn nothing_moves_on_a_zero_hand() {
        assert_eq!(
            coin_deltas(&[0, 0, 0, 0], 7, &[5, 5, 5, 5]),
            vec![0, 0, 0, 0]
        );
    }

    proptest! {
        #[test]
        fn deltas_sum_to_zero_and_never_overdraw(
            raw in proptest::collection::vec(-50i64..50, 4),
            stake in 1i64..1000,
            wallets in proptest::collection::vec(0i64..100_000, 4),
        ) {
            // Make the units zero-sum as a game's are.
            let mut units = raw.clone();
            let s: i64 = units.iter().sum();
            units[0] -= s;
            let d = coin_deltas(&units, stake, &wallets);
            prop_assert_eq!(d.iter().sum::<i64>(), 0);
            for i in 0..4 {
                prop_assert!(wallets[i] + d[i] >= 0);
                if units[i] > 0 { prop_assert!(d[i] >= 0 && d[i] <= units[i] * stake); }
                if units[i] < 0 { prop_assert!(d[i] <= 0 && -d[i] <= -units[i] * stake); }
                if units[i] == 0 { prop_assert_eq!(d[i], 0); }
            }
        }
    }
}
