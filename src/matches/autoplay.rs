//! 托管 (automatic play) policy, in one place: when a seat enters it, and what a table whose
//! players are all in it does between hands. The loop that plays automatic seats is
//! `Table::advance`; the sweeper plays overdue seats through the same `Table::apply`.
//!
//! A table where everyone is away (docs/rules/README.md § Tables nobody plays):
//! - with a hand limit (tournament tables, matches created with `hands`) it plays out, one hand
//!   per transaction and at most one hand per `PACE_SECS`, so that it finishes without flooding
//!   the database;
//! - without one it pauses at the start of the next 局 (the next hand where there are no 局):
//!   any player's `resume` goes on; after `PAUSE_SECS` the sweeper ends the match.

use super::options::PlatformOptions;

/// A seat that timed out this many times in a row is put in 托管.
pub const TIMEOUTS_TO_AUTO: i32 = 2;

/// The pause between hands that play out with nobody acting (every seat in 托管, or seats that
/// sit out at once): short, but enough that such a table writes boundedly.
pub const PACE_SECS: u32 = 1;

/// How long a table whose players are all away waits for one of them before it ends.
pub const PAUSE_SECS: u32 = 600;

/// Whether a full table at `Stage::NeedsDeal` deals now: after a hand that this transaction
/// dealt and automatic actions alone played out, the next waits `PACE_SECS`, whoever sits
/// there.
pub fn deal_now(played_out_automatically: bool) -> bool {
    !played_out_automatically
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    Deal,
    /// Wait for a `resume`, until the pause ends.
    Pause,
    /// The pause is over: end the match.
    Abandon,
}

/// What a full table whose players are all in 托管 does after `hands_done` hands. `due`: the
/// table's deadline had passed when this transaction began (the sweeper is here for it).
pub fn between_hands(platform: &PlatformOptions, hands_done: u32, due: bool) -> Next {
    let plays_out = platform.hands.is_some();
    let new_ju = match &platform.room {
        Some(room) => hands_done.is_multiple_of(room.hands_per_game),
        None => true,
    };
    match (!plays_out && new_ju, due) {
        (true, true) => Next::Abandon,
        (true, false) => Next::Pause,
        (false, _) => Next::Deal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::options::CoinRoom;

    fn platform(hands: Option<u32>, room: Option<CoinRoom>) -> PlatformOptions {
        PlatformOptions {
            turn_timeout_secs: 1,
            hands,
            buy_in: 0,
            room,
        }
    }

    #[test]
    fn a_table_with_a_hand_limit_plays_on() {
        let p = platform(Some(10), None);
        assert_eq!(between_hands(&p, 3, false), Next::Deal);
        assert_eq!(between_hands(&p, 3, true), Next::Deal);
    }

    #[test]
    fn a_table_without_a_limit_pauses_then_ends() {
        let p = platform(None, None);
        assert_eq!(between_hands(&p, 1, false), Next::Pause);
        assert_eq!(between_hands(&p, 1, true), Next::Abandon);
    }

    #[test]
    fn a_coin_room_finishes_its_ju_before_pausing() {
        let p = platform(None, Some(CoinRoom::with_stake(5)));
        assert_eq!(between_hands(&p, 3, true), Next::Deal);
        assert_eq!(between_hands(&p, 10, false), Next::Pause);
        assert_eq!(between_hands(&p, 10, true), Next::Abandon);
    }

    #[test]
    fn a_hand_played_out_by_automatic_actions_alone_waits_before_the_next() {
        assert!(deal_now(false));
        assert!(!deal_now(true));
    }
}
