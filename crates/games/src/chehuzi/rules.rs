//! The rules a 扯胡子 refusal names.

use crate::engine::RuleCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A card that is not of the 扯胡子 deck.
    ForeignCard,
    /// An action of another moment of the turn: a claim while a card must be discarded, a
    /// discard while a claim waits for an answer.
    ActionNotInPhase,
    /// A pass by the drawer of a 王霸 who may discard: it wins or discards (the discard passes on
    /// the win).
    MustWinOrDiscard,
    /// A 王霸 is never discarded.
    WangNeverDiscarded,
    /// A card of a 坎 is discarded (a 坎 stays whole).
    KanStaysWhole,
    /// 胡 on a card that does not make the hand win.
    NoWinOnCard,
    /// 碰 of a card the seat may not 碰.
    CannotPeng,
    /// 吃 of a card the seat may not 吃.
    CannotChi,
    /// 吃 with melds that are not a 吃 of the card (its card, cards outside 坎, every copy of the
    /// face: 比牌).
    WrongChiMelds,
}

impl RuleCode for Rule {
    const ALL: &'static [Rule] = &[
        Rule::ForeignCard,
        Rule::ActionNotInPhase,
        Rule::MustWinOrDiscard,
        Rule::WangNeverDiscarded,
        Rule::KanStaysWhole,
        Rule::NoWinOnCard,
        Rule::CannotPeng,
        Rule::CannotChi,
        Rule::WrongChiMelds,
    ];
    fn code(self) -> &'static str {
        match self {
            Rule::ForeignCard => "foreign_card",
            Rule::ActionNotInPhase => "action_not_in_phase",
            Rule::MustWinOrDiscard => "must_win_or_discard",
            Rule::WangNeverDiscarded => "wang_never_discarded",
            Rule::KanStaysWhole => "kan_stays_whole",
            Rule::NoWinOnCard => "no_win_on_card",
            Rule::CannotPeng => "cannot_peng",
            Rule::CannotChi => "cannot_chi",
            Rule::WrongChiMelds => "wrong_chi_melds",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rule;

    #[test]
    fn all_lists_every_rule_once() {
        crate::engine::checks::rule_set::<Rule>(|r| match r {
            Rule::ForeignCard => 0,
            Rule::ActionNotInPhase => 1,
            Rule::MustWinOrDiscard => 2,
            Rule::WangNeverDiscarded => 3,
            Rule::KanStaysWhole => 4,
            Rule::NoWinOnCard => 5,
            Rule::CannotPeng => 6,
            Rule::CannotChi => 7,
            Rule::WrongChiMelds => 8,
        });
    }
}
