//! The rules a 三打哈 refusal names. Leading and following are the shared [`trick::Rule`]s.

use crate::engine::RuleCode;
#[cfg(doc)]
use crate::trick;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A bid other than the only one allowed now: 90 first, then 5 below the standing bid.
    BidMustBeNext,
    /// The banker buries another number of cards than 8 (埋底).
    MustBuryEight,
    /// 甩牌 by a defender, or by the banker before every defender has shown void in trumps.
    ThrowNotAllowed,
    /// The banker's 甩牌 does not play all of its remaining trumps.
    ThrowAllTrumps,
    /// Surrender (投降) before the trump is named and 8 cards are buried.
    SurrenderAfterBury,
    /// An action of another phase (bidding, naming the trump, burying, deciding, playing).
    ActionNotInPhase,
}

impl RuleCode for Rule {
    const ALL: &'static [Rule] = &[
        Rule::BidMustBeNext,
        Rule::MustBuryEight,
        Rule::ThrowNotAllowed,
        Rule::ThrowAllTrumps,
        Rule::SurrenderAfterBury,
        Rule::ActionNotInPhase,
    ];
    fn code(self) -> &'static str {
        match self {
            Rule::BidMustBeNext => "bid_must_be_next",
            Rule::MustBuryEight => "must_bury_eight",
            Rule::ThrowNotAllowed => "throw_not_allowed",
            Rule::ThrowAllTrumps => "throw_all_trumps",
            Rule::SurrenderAfterBury => "surrender_after_bury",
            Rule::ActionNotInPhase => "action_not_in_phase",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rule;

    #[test]
    fn all_lists_every_rule_once() {
        crate::engine::checks::rule_set::<Rule>(|r| match r {
            Rule::BidMustBeNext => 0,
            Rule::MustBuryEight => 1,
            Rule::ThrowNotAllowed => 2,
            Rule::ThrowAllTrumps => 3,
            Rule::SurrenderAfterBury => 4,
            Rule::ActionNotInPhase => 5,
        });
    }
}
