//! The result table (大光 … 大倒) with 双进单出, surrender and escape payments.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::SEATS;
use crate::engine::SeatNo;

/// The defenders' points at which a banker's win stops being 小光 (seed: 小于25分).
const XIAOGUANG_BELOW: u32 = 25;
/// Points over the bid from which the defenders' win is 小倒, and 大倒.
const XIAODAO_FROM: u32 = 40;
const DADAO_FROM: u32 = 80;

/// The name of a played hand's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// 大光: the defenders took no point.
    Daguang,
    /// 小光: 1–24 points.
    Xiaoguang,
    /// 过庄: 25 points up to below the bid.
    Guozhuang,
    /// 垮庄: the bid up to 35 over it.
    Kuazhuang,
    /// 小倒: 40 to 75 over the bid.
    Xiaodao,
    /// 大倒: 80 or more over the bid.
    Dadao,
}

impl Verdict {
    pub fn of(points: u32, bid: u32) -> Verdict {
        if points >= bid {
            match points - bid {
                p if p >= DADAO_FROM => Verdict::Dadao,
                p if p >= XIAODAO_FROM => Verdict::Xiaodao,
                _ => Verdict::Kuazhuang,
            }
        } else if points == 0 {
            Verdict::Daguang
        } else if points < XIAOGUANG_BELOW {
            Verdict::Xiaoguang
        } else {
            Verdict::Guozhuang
        }
    }

    /// Units of base score each defender wins (+) or pays (−). The banker's wins are doubled
    /// (双进单出); its losses are not.
    pub fn per_defender(self) -> i64 {
        match self {
            Verdict::Daguang => -2 * 4,
            Verdict::Xiaoguang => -2 * 2,
            Verdict::Guozhuang => -2,
            Verdict::Kuazhuang => 1,
            Verdict::Xiaodao => 2,
            Verdict::Dadao => 4,
        }
    }
}

/// Each defender receives `each` (negative: pays) from the banker; zero-sum.
pub fn banker_against_all(banker: SeatNo, each: i64) -> [i64; SEATS] {
    std::array::from_fn(|s| {
        if s == banker {
            -each * (SEATS as i64 - 1)
        } else {
            each
        }
    })
}

/// Points of a played hand: the row from the defenders' `points` against the bid called, paid
/// in base scores `u` (限级 counts a bid under 70 as 70 for `u` only).
pub fn settle(banker: SeatNo, bid: u32, u: i64, points: u32) -> (Verdict, [i64; SEATS]) {
    let verdict = Verdict::of(points, bid);
    let each = verdict.per_defender() * u;
    (verdict, banker_against_all(banker, each))
}

/// 投降: each defender wins 1 point from the banker, whatever the bid.
pub fn surrender(banker: SeatNo) -> [i64; SEATS] {
    banker_against_all(banker, 1)
}

/// 逃跑: the zero-sum part, in base scores `u`. The leaver pays what its role loses at worst: a
/// banker (or, before a banker is known, any seat) as in 大倒 to each other seat, a defender
/// its 大光 share to the banker.
pub fn escape(leaver: SeatNo, banker: Option<SeatNo>, u: i64) -> [i64; SEATS] {
    match banker {
        Some(b) if b != leaver => {
            let pay = -Verdict::Daguang.per_defender() * u;
            std::array::from_fn(|s| match s {
                s if s == leaver => -pay,
                s if s == b => pay,
                _ => 0,
            })
        }
        _ => banker_against_all(leaver, Verdict::Dadao.per_defender() * u),
    }
}
