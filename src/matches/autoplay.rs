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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    Deal,
    /// Deal at the next deadline, `PACE_SECS` away.
    Pace,
    /// Wait for a `resume`, until the pause ends.
    Pause,
    /// The pause is over: end the match.
    Abandon,
}

/// A full table between hands, as the policy needs to see it.
#[derive(Clone, Copy, Debug)]
pub struct Between {
    pub hands_done: u32,
    /// Every seated player is in 托管 (after the first hand).
    pub everyone_away: bool,
    /// This transaction dealt the hand just ended and automatic actions alone played it.
    pub played_out_automatically: bool,
    /// The table's deadline had passed when this transaction began (the sweeper came for it).
    pub due: bool,
}

/// What a full table does between hands: a table of absent players pauses at the start of a
/// 局 unless it has a hand limit, and ends when the pause is over; a hand played out by
/// automatic actions alone is followed by the next only at the next deadline, whoever sits
/// there.
pub fn between_hands(platform: &PlatformOptions, t: Between) -> Next {
    let new_ju = match &platform.room {
        Some(room) => t.hands_done.is_multiple_of(room.hands_per_game),
        None => true,
    };
    if t.everyone_away && platform.hands.is_none() && new_ju {
        if t.due { Next::Abandon } else { Next::Pause }
    } else if t.played_out_automatically {
        Next::Pace
    } else {
        Next::Deal
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

    fn away(hands_done: u32, played_out_automatically: bool, due: bool) -> Between {
        Between {
            hands_done,
            everyone_away: true,
            played_out_automatically,
            due,
        }
    }

    #[test]
    fn a_table_with_a_hand_limit_plays_on_one_hand_per_deadline() {
        let p = platform(Some(10), None);
        assert_eq!(between_hands(&p, away(3, false, false)), Next::Deal);
        assert_eq!(between_hands(&p, away(3, false, true)), Next::Deal);
        assert_eq!(between_hands(&p, away(3, true, false)), Next::Pace);
    }

    #[test]
    fn a_table_without_a_limit_pauses_then_ends() {
        let p = platform(None, None);
        assert_eq!(between_hands(&p, away(1, true, false)), Next::Pause);
        assert_eq!(between_hands(&p, away(1, false, false)), Next::Pause);
        assert_eq!(between_hands(&p, away(1, false, true)), Next::Abandon);
    }

    #[test]
    fn a_coin_room_finishes_its_ju_before_pausing() {
        let p = platform(None, Some(CoinRoom::with_stake(5)));
        assert_eq!(between_hands(&p, away(3, false, true)), Next::Deal);
        assert_eq!(between_hands(&p, away(3, true, true)), Next::Pace);
        assert_eq!(between_hands(&p, away(10, true, false)), Next::Pause);
        assert_eq!(between_hands(&p, away(10, false, true)), Next::Abandon);
    }

    #[test]
    fn a_hand_played_out_by_automatic_actions_alone_waits_before_the_next() {
        let p = platform(None, None);
        let present = |played_out_automatically| Between {
            hands_done: 4,
            everyone_away: false,
            played_out_automatically,
            due: false,
        };
        assert_eq!(between_hands(&p, present(false)), Next::Deal);
        assert_eq!(between_hands(&p, present(true)), Next::Pace);
    }
}
