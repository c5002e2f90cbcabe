//! The rules a 扯旋 refusal names.

use crate::engine::RuleCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// An action of another phase (簸簸, betting, splitting).
    ActionNotInPhase,
    /// A 簸簸 below the table's `min_bobo`.
    BoboBelowMin,
    /// A 簸簸 above what the wallet holds.
    BoboOverWallet,
    /// A 簸簸 above the largest the game allows.
    BoboOverMax,
    /// 休 (check) after someone has bet this round (如果有玩家下注，就不能休).
    CannotCheckAfterBet,
    /// A 大 (raise) to less than the level plus the ante.
    RaiseTooSmall,
    /// A 大 (raise) beyond what the seat's 簸簸 can put in.
    RaiseOverBobo,
    /// A 大 (raise) when nobody left in the hand could answer it.
    RaiseUnanswerable,
    /// 跟 (call) with nothing to call.
    NothingToCall,
    /// 跟 (call) of more than the 簸簸 holds (敲 instead).
    CallOverBobo,
    /// 敲 (all in) with an empty 簸簸.
    BoboEmpty,
}

impl RuleCode for Rule {
    const ALL: &'static [Rule] = &[
        Rule::ActionNotInPhase,
        Rule::BoboBelowMin,
        Rule::BoboOverWallet,
        Rule::BoboOverMax,
        Rule::CannotCheckAfterBet,
        Rule::RaiseTooSmall,
        Rule::RaiseOverBobo,
        Rule::RaiseUnanswerable,
        Rule::NothingToCall,
        Rule::CallOverBobo,
        Rule::BoboEmpty,
    ];
    fn code(self) -> &'static str {
        match self {
            Rule::ActionNotInPhase => "action_not_in_phase",
            Rule::BoboBelowMin => "bobo_below_min",
            Rule::BoboOverWallet => "bobo_over_wallet",
            Rule::BoboOverMax => "bobo_over_max",
            Rule::CannotCheckAfterBet => "cannot_check_after_bet",
            Rule::RaiseTooSmall => "raise_too_small",
            Rule::RaiseOverBobo => "raise_over_bobo",
            Rule::RaiseUnanswerable => "raise_unanswerable",
            Rule::NothingToCall => "nothing_to_call",
            Rule::CallOverBobo => "call_over_bobo",
            Rule::BoboEmpty => "bobo_empty",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rule;

    #[test]
    fn all_lists_every_rule_once() {
        crate::engine::checks::rule_set::<Rule>(|r| match r {
            Rule::ActionNotInPhase => 0,
            Rule::BoboBelowMin => 1,
            Rule::BoboOverWallet => 2,
            Rule::BoboOverMax => 3,
            Rule::CannotCheckAfterBet => 4,
            Rule::RaiseTooSmall => 5,
            Rule::RaiseOverBobo => 6,
            Rule::RaiseUnanswerable => 7,
            Rule::NothingToCall => 8,
            Rule::CallOverBobo => 9,
            Rule::BoboEmpty => 10,
        });
    }
}
