//! 定庄: bidding down from 90 by 5 to 5, a seat that passes is out.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Rule;
use super::SEATS;
use crate::engine::{RuleError, SeatNo};

/// The first bid, and the step of every later one (每叫一次庄减5).
pub const OPENING_BID: u32 = 90;
pub const STEP: u32 = 5;
/// The lowest bid, in both modes: bidding ends at once when it is called.
pub const LOWEST_BID: u32 = 5;
/// 限级: the lowest bid whose level counts (70分为最低分（喊到70分以下时，也按70分算）).
pub const LIMITED_FLOOR: u32 = 70;

/// One call in the bidding, as everyone sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Call {
    pub seat: SeatNo,
    /// The bid, or null for a pass.
    pub bid: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bidding {
    pub first: SeatNo,
    pub turn: SeatNo,
    pub passed: [bool; SEATS],
    /// The standing bid and its bidder.
    pub standing: Option<(SeatNo, u32)>,
}

/// Where the bidding stands after a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum After {
    Continues,
    Banker {
        seat: SeatNo,
        bid: u32,
    },
    /// All four passed: the hand is dealt again.
    AllPassed,
}

/// Base score (基础分) of a bid whose every level counts: one more per 5 below 90
/// (每降一级加1基础分). 限级 counts a bid under 70 as 70 first (`Options::base_score`).
pub fn base_score(bid: u32) -> i64 {
    1 + i64::from(OPENING_BID.saturating_sub(bid) / STEP)
}

impl Bidding {
    pub fn new(first: SeatNo) -> Bidding {
        Bidding {
            first,
            turn: first,
            passed: [false; SEATS],
            standing: None,
        }
    }

    /// The only bid allowed now: 90 first, then the standing bid less 5.
    pub fn next_bid(&self) -> u32 {
        self.standing.map_or(OPENING_BID, |(_, b)| b - STEP)
    }

    pub fn bid(&mut self, seat: SeatNo, value: u32) -> Result<After, RuleError> {
        let next = self.next_bid();
        if value != next {
            return Err(RuleError::illegal(
                Rule::BidMustBeNext,
                format!(
                    "the only bid allowed now is {next}: the first bid is {OPENING_BID} and each \
                     later one is 5 below the standing bid"
                ),
                format!("现在只能叫 {next} 分：{OPENING_BID} 分起叫，之后每次比当前叫分低 5 分"),
            ));
        }
        self.standing = Some((seat, value));
        if value <= LOWEST_BID {
            return Ok(After::Banker { seat, bid: value });
        }
        Ok(self.advance(seat))
    }

    pub fn pass(&mut self, seat: SeatNo) -> After {
        self.passed[seat] = true;
        self.advance(seat)
    }

    fn advance(&mut self, from: SeatNo) -> After {
        let open: Vec<SeatNo> = (0..SEATS).filter(|&s| !self.passed[s]).collect();
        match (self.standing, open.as_slice()) {
            (None, []) => After::AllPassed,
            (Some((seat, bid)), [only]) if *only == seat => After::Banker { seat, bid },
            _ => {
                self.turn = (1..=SEATS)
                    .map(|i| (from + i) % SEATS)
                    .find(|&s| !self.passed[s])
                    .unwrap_or(from);
                After::Continues
            }
        }
    }
}
