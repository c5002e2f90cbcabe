//! The rules a 打炸 refusal names.

use crate::engine::RuleCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A play of no cards.
    EmptyPlay,
    /// A card that is not of the game's poker decks.
    ForeignCard,
    /// A bare triple led while holding 5 cards or more (play it as a triple with two).
    BareTripleUnderFive,
    /// A 2 in a straight, pairs run or run of triples.
    NoTwoInRun,
    /// The cards form no combination.
    NotACombination,
    /// A joker outside a bomb of 4 or more natural cards (or the all-joker bombs).
    JokerOnlyInBomb,
    /// The play would leave the seat's jokers without a bomb to be played with.
    JokerWouldBeStranded,
    /// The cards cannot be read as the combination named in `as`.
    NotPlayableAs,
    /// The play does not beat the combination on the table.
    MustBeatPrevious,
    /// The leader of a round passes.
    CannotPassOnLead,
}

impl RuleCode for Rule {
    const ALL: &'static [Rule] = &[
        Rule::EmptyPlay,
        Rule::ForeignCard,
        Rule::BareTripleUnderFive,
        Rule::NoTwoInRun,
        Rule::NotACombination,
        Rule::JokerOnlyInBomb,
        Rule::JokerWouldBeStranded,
        Rule::NotPlayableAs,
        Rule::MustBeatPrevious,
        Rule::CannotPassOnLead,
    ];
    fn code(self) -> &'static str {
        match self {
            Rule::EmptyPlay => "empty_play",
            Rule::ForeignCard => "foreign_card",
            Rule::BareTripleUnderFive => "bare_triple_under_five",
            Rule::NoTwoInRun => "no_two_in_run",
            Rule::NotACombination => "not_a_combination",
            Rule::JokerOnlyInBomb => "joker_only_in_bomb",
            Rule::JokerWouldBeStranded => "joker_would_be_stranded",
            Rule::NotPlayableAs => "not_playable_as",
            Rule::MustBeatPrevious => "must_beat_previous",
            Rule::CannotPassOnLead => "cannot_pass_on_lead",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rule;

    #[test]
    fn all_lists_every_rule_once() {
        crate::engine::checks::rule_set::<Rule>(|r| match r {
            Rule::EmptyPlay => 0,
            Rule::ForeignCard => 1,
            Rule::BareTripleUnderFive => 2,
            Rule::NoTwoInRun => 3,
            Rule::NotACombination => 4,
            Rule::JokerOnlyInBomb => 5,
            Rule::JokerWouldBeStranded => 6,
            Rule::NotPlayableAs => 7,
            Rule::MustBeatPrevious => 8,
            Rule::CannotPassOnLead => 9,
        });
    }
}
