//! The rules a 升级 refusal names. Leading and following are the shared [`trick::Rule`]s.

use crate::engine::RuleCode;
#[cfg(doc)]
use crate::trick;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// An action of another phase: playing cards while trumps are declared, declaring or
    /// passing once they are.
    ActionNotInPhase,
    /// A declaration that is not 1 to 4 identical 2s of one suit.
    DeclareIdenticalTwos,
    /// A seat overrides its own declaration (不能自反主).
    NoSelfOverride,
    /// A declaration that shows no more cards than the standing one.
    DeclareMoreToOverride,
}

impl RuleCode for Rule {
    const ALL: &'static [Rule] = &[
        Rule::ActionNotInPhase,
        Rule::DeclareIdenticalTwos,
        Rule::NoSelfOverride,
        Rule::DeclareMoreToOverride,
    ];
    fn code(self) -> &'static str {
        match self {
            Rule::ActionNotInPhase => "action_not_in_phase",
            Rule::DeclareIdenticalTwos => "declare_identical_twos",
            Rule::NoSelfOverride => "no_self_override",
            Rule::DeclareMoreToOverride => "declare_more_to_override",
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
            Rule::DeclareIdenticalTwos => 1,
            Rule::NoSelfOverride => 2,
            Rule::DeclareMoreToOverride => 3,
        });
    }
}
