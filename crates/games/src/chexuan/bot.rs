//! The server-side bot of 扯旋 (`Game::bot_action`, also the 提示 shown to a human).
//!
//! It reads only its own seat: its wallet, its hidden and face-up cards, and the amounts on the
//! table. `docs/rules/chexuan.md` § Bots and hints describes the policy.

use super::betting::bet_options;
use super::ranking::{PairRank, pair_rank, sanhua, server_split};
use super::{Action, Chexuan, Hand, HandPhase, MAX_BOBO, State, Table};
use crate::cards::Card;
use crate::engine::{Game, SeatNo};

/// The 簸簸 a bot puts up from `wallet`: a quarter of it, at least `min_bobo` and at most three
/// times it, so that one hand never risks most of the wallet.
pub(super) fn bobo_for(wallet: i64, min_bobo: i64) -> i64 {
    (wallet / 4)
        .clamp(min_bobo, min_bobo.saturating_mul(3))
        .min(wallet)
        .min(MAX_BOBO)
}

/// How a bot judges the cards it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Strength {
    Weak,
    Medium,
    Strong,
    /// 三花: the seat neither wins nor loses, so staying in costs nothing.
    Sanhua,
}

/// A two-card hand on one scale: 散牌 by points (0..=8), named hands above them (11..=27).
fn value(r: PairRank) -> u8 {
    if r.class > 0 { 10 + r.class } else { r.points }
}

/// The best two-card hand among `cards`.
fn best_pair(cards: &[Card]) -> u8 {
    let mut best = 0;
    for i in 0..cards.len() {
        for j in i + 1..cards.len() {
            best = best.max(value(pair_rank([cards[i], cards[j]])));
        }
    }
    best
}

/// Named hands from 天杠 up: the pairs, 奶狗 and the 杠.
const NAMED_HIGH: u8 = 10 + 8;

/// The strength of a seat's own cards (2, 3 or 4 of them). With four cards the tail of the
/// best split decides (尾大吃皮); with fewer the best two-card hand they hold.
pub(super) fn strength(cards: &[Card]) -> Strength {
    match cards.len() {
        4 => {
            if sanhua(cards).is_some() {
                return Strength::Sanhua;
            }
            let four: [Card; 4] = [cards[0], cards[1], cards[2], cards[3]];
            let split = server_split(four);
            let (head, tail) = (value(split.head_rank()), value(split.tail_rank()));
            if tail >= 7 {
                Strength::Strong
            } else if tail >= 4 || head >= NAMED_HIGH {
                Strength::Medium
            } else {
                Strength::Weak
            }
        }
        3 => match best_pair(cards) {
            v if v >= NAMED_HIGH => Strength::Strong,
            v if v >= 7 => Strength::Medium,
            _ => Strength::Weak,
        },
        _ => match best_pair(cards) {
            // 8 points or any named hand.
            v if v >= 8 => Strength::Strong,
            v if v >= 5 => Strength::Medium,
            _ => Strength::Weak,
        },
    }
}

pub(super) fn bot_action(state: &State, seat: SeatNo) -> Action {
    let Table::InHand { phase, hand: h } = &state.table else {
        return Chexuan::auto_action(state, seat);
    };
    let Some(sh) = h.seats.get(seat) else {
        return Chexuan::auto_action(state, seat);
    };
    match phase {
        HandPhase::Bobo if sh.wallet >= state.opts.min_bobo => Action::SetBobo {
            amount: bobo_for(sh.wallet, state.opts.min_bobo),
        },
        HandPhase::Bobo => Action::SitOut {},
        HandPhase::Betting => bet(h, seat, state.opts.ante),
        // The server's split keeps the strongest tail, then the strongest head.
        HandPhase::Showdown => Chexuan::auto_action(state, seat),
    }
}

/// A betting decision from the seat's own cards and the amounts on the table.
fn bet(h: &Hand, seat: SeatNo, ante: i64) -> Action {
    let sh = &h.seats[seat];
    let o = bet_options(h, seat, ante);
    let call_or_all_in = || {
        if o.call.is_some() {
            Action::Call {}
        } else if o.all_in.is_some() {
            Action::AllIn {}
        } else {
            Action::Fold {}
        }
    };
    if o.check {
        // Nobody has bet: a strong hand opens, any other checks for free.
        return match (strength(&sh.cards()), o.raise) {
            (Strength::Strong, Some((min, max))) => Action::Raise {
                to: (min + ante).min(max),
            },
            _ => Action::Check {},
        };
    }
    if o.to_call <= 0 {
        // Level matched already (only an all-in short of a raise can leave it so).
        return match o.raise {
            Some((min, _)) => Action::Raise { to: min },
            None => Action::Fold {},
        };
    }
    match strength(&sh.cards()) {
        Strength::Sanhua => call_or_all_in(),
        Strength::Strong => match o.raise {
            // Raise while the round is young; a raising war ends in calls.
            Some((min, max)) if h.level < 3 * ante => Action::Raise {
                to: (min + ante).min(max),
            },
            _ => call_or_all_in(),
        },
        // A middling hand calls a bet it can afford without risking much of its 簸簸.
        Strength::Medium if o.call.is_some() && o.to_call <= (2 * ante).max(sh.left / 4) => {
            Action::Call {}
        }
        _ => Action::Fold {},
    }
}
