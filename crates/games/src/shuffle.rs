//! The committed shuffle: a 32-byte seed drawn by the service, its SHA-256 shown from the deal on,
//! the seed revealed after the hand. The order is our own Fisher–Yates over ChaCha20 so that a
//! replay gives the same deal for as long as this code exists (rand's `shuffle` is not stable
//! across versions).

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

pub type Seed = [u8; 32];

/// Shuffles `items` in place, determined entirely by `seed`.
pub fn shuffle<T>(items: &mut [T], seed: &Seed) {
    let mut rng = ChaCha20Rng::from_seed(*seed);
    for i in (1..items.len()).rev() {
        let j = uniform_below(&mut rng, i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

/// Unbiased draw in `0..n` by rejection sampling (Lemire's multiply-shift would be faster but
/// this is clearer and a deal needs at most a few hundred draws).
fn uniform_below(rng: &mut ChaCha20Rng, n: u64) -> u64 {
    let zone = u64::MAX - (u64::MAX % n);
    loop {
        let x = rng.next_u64();
        if x < zone {
            return x % n;
        }
    }
}

/// The seed of hand `hand_no` of a match whose seed was fixed by an admin:
/// SHA-256("paiju hand seed" ‖ match seed ‖ hand number). One-way, so the seed `/replay` reveals
/// after a hand says nothing about the seeds of the hands after it.
pub fn hand_seed(match_seed: &Seed, hand_no: u32) -> Seed {
    let mut h = Sha256::new();
    h.update(b"paiju hand seed");
    h.update(match_seed);
    h.update(hand_no.to_be_bytes());
    h.finalize().into()
}

/// Lower-case hex SHA-256 of the seed: the commitment shown before the seed is revealed.
pub fn commitment(seed: &Seed) -> String {
    to_hex(&Sha256::digest(seed))
}

pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Parses 64 hex digits into a seed.
pub fn parse_seed(hex: &str) -> Result<Seed, String> {
    let bytes = hex.as_bytes();
    if bytes.len() != 64 {
        return Err(format!(
            "seed must be 64 hex digits (32 bytes), got {} characters",
            bytes.len()
        ));
    }
    let mut seed = [0u8; 32];
    for (i, pair) in bytes.chunks(2).enumerate() {
        let digit = |c: u8| {
            (c as char)
                .to_digit(16)
                .ok_or("seed must contain only hex digits")
        };
        seed[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Ok(seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_is_a_permutation_fixed_by_the_seed() {
        let seed = [7u8; 32];
        let mut a: Vec<u32> = (0..108).collect();
        let mut b = a.clone();
        shuffle(&mut a, &seed);
        shuffle(&mut b, &seed);
        assert_eq!(a, b);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..108).collect::<Vec<_>>());
        let mut c: Vec<u32> = (0..108).collect();
        shuffle(&mut c, &[8u8; 32]);
        assert_ne!(a, c);
    }

    #[test]
    fn shuffle_output_never_changes() {
        // Replays of stored hands depend on this exact order: if this test fails, old replays
        // would deal different cards.
        let mut v: Vec<u32> = (0..10).collect();
        shuffle(&mut v, &[1u8; 32]);
        assert_eq!(v, GOLDEN);
    }
    const GOLDEN: [u32; 10] = [7, 3, 8, 2, 4, 9, 6, 5, 1, 0];

    #[test]
    fn a_revealed_hand_seed_does_not_predict_the_next() {
        let fixed = [0x42u8; 32];
        let one = hand_seed(&fixed, 1);
        let two = hand_seed(&fixed, 2);
        assert_ne!(one, two);
        assert_ne!(one, fixed, "the match seed itself is never a hand's seed");
        // The old derivation XORed the hand number into the fixed seed, so hand 1's revealed
        // seed gave hand 2's: flipping those bits of a revealed seed must give nothing now.
        let mut guess = one;
        guess[0] ^= 1 ^ 2;
        assert_ne!(guess, two);
        assert_eq!(hand_seed(&fixed, 2), two, "derivation is deterministic");
    }

    #[test]
    fn commitment_is_sha256_hex_and_seed_hex_round_trips() {
        let seed = [0u8; 32];
        assert_eq!(
            commitment(&seed),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
        assert_eq!(parse_seed(&to_hex(&[0xab; 32])).unwrap(), [0xab; 32]);
        assert!(parse_seed("zz").is_err());
        assert!(parse_seed(&"g".repeat(64)).is_err());
    }
}
