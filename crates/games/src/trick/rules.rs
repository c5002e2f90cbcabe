//! The rules a lead or a follow of the trick-taking games (升级, 三打哈) breaks: the codes of
//! their refusals, and the refusals themselves in English and Chinese.

use super::formation::common_suit;
use super::{FollowError, Formation, LeadError, Order};
use crate::cards::Card;
use crate::engine::{RuleCode, RuleError};

/// A rule of leading and following, shared by 升级 and 三打哈.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A play of no cards.
    EmptyPlay,
    /// A lead mixes suits (trumps count as one suit).
    LeadOneSuit,
    /// A lead is not one formation: a single, pair, triple, quad or tractor (no 甩牌).
    LeadOneFormation,
    /// A follow of another number of cards than were led.
    MustPlayAsManyAsLed,
    /// Cards of the led suit were held back (有牌必跟).
    MustFollowSuit,
    /// The follower holds a formation that answers the lead and did not play one.
    MustFollowFormation,
    /// Against a six-card lead without a six-card tractor, a quad with a pair must be played.
    MustPlayQuadAndPair,
    /// The follow lacks the best structure the follower's cards of the led suit allow.
    MustKeepStructure,
}

impl RuleCode for Rule {
    const ALL: &'static [Rule] = &[
        Rule::EmptyPlay,
        Rule::LeadOneSuit,
        Rule::LeadOneFormation,
        Rule::MustPlayAsManyAsLed,
        Rule::MustFollowSuit,
        Rule::MustFollowFormation,
        Rule::MustPlayQuadAndPair,
        Rule::MustKeepStructure,
    ];
    fn code(self) -> &'static str {
        match self {
            Rule::EmptyPlay => "empty_play",
            Rule::LeadOneSuit => "lead_one_suit",
            Rule::LeadOneFormation => "lead_one_formation",
            Rule::MustPlayAsManyAsLed => "must_play_as_many_as_led",
            Rule::MustFollowSuit => "must_follow_suit",
            Rule::MustFollowFormation => "must_follow_formation",
            Rule::MustPlayQuadAndPair => "must_play_quad_and_pair",
            Rule::MustKeepStructure => "must_keep_structure",
        }
    }
}

/// A formation in Chinese: 单张, 对子, 三张, 四张, 拖拉机.
fn describe_zh(f: Formation) -> String {
    let group = |size: u8| match size {
        1 => "单张",
        2 => "对子",
        3 => "三张",
        _ => "四张",
    };
    match f {
        Formation::Group { size } => group(size).to_string(),
        Formation::Tractor { size, groups } => format!("{groups} 个{}连成的拖拉机", group(size)),
        Formation::Quads { groups } => format!("{groups} 个四张"),
    }
}

impl LeadError {
    /// The refusal of a lead of `cards` from `hand`: the cards break the rule together, so all
    /// of them are named (only those not held, when some are not held).
    pub fn refusal(&self, hand: &[Card], cards: &[Card]) -> RuleError {
        let (rule, zh) = match self {
            LeadError::Empty => (Rule::EmptyPlay, "出牌至少要出一张牌"),
            LeadError::NotInHand => {
                return RuleError::not_in_hand(self.to_string(), hand, cards);
            }
            LeadError::MixedSuits => (Rule::LeadOneSuit, "首家出牌须是同一门花色（主牌算一门）"),
            LeadError::NotOneFormation => (
                Rule::LeadOneFormation,
                "首家出牌须是一种牌型：单张、对子、三张、四张或拖拉机（不许甩牌）",
            ),
        };
        RuleError::illegal(rule, self.to_string(), zh).with_cards(cards)
    }
}

impl FollowError {
    /// The refusal of a follow of `play` from `hand` to `lead`. Cards held back are never
    /// named: for 有牌必跟 the offending cards are the played cards off the led suit; for the
    /// other rules the whole play.
    pub fn refusal(&self, order: &Order, hand: &[Card], lead: &[Card], play: &[Card]) -> RuleError {
        let en = self.to_string();
        let (rule, zh, cards) = match self {
            FollowError::NotInHand => return RuleError::not_in_hand(en, hand, play),
            FollowError::WrongCount { need } => (
                Rule::MustPlayAsManyAsLed,
                format!("须出 {need} 张牌，与首家出的张数相同"),
                play.to_vec(),
            ),
            FollowError::MustFollowSuit => {
                let led = common_suit(order, lead);
                let off: Vec<Card> = play
                    .iter()
                    .copied()
                    .filter(|&c| led.is_none_or(|s| order.eff(c) != Some(s)))
                    .collect();
                (
                    Rule::MustFollowSuit,
                    "有首家花色的牌必须先跟出".to_string(),
                    off,
                )
            }
            FollowError::MustPlayFormation { allowed } => {
                let names: Vec<String> = allowed.iter().map(|&f| describe_zh(f)).collect();
                (
                    Rule::MustFollowFormation,
                    format!("你有首家花色的相应牌型，须跟出{}", names.join("或")),
                    play.to_vec(),
                )
            }
            FollowError::MustPlayQuadAndPair => (
                Rule::MustPlayQuadAndPair,
                "你有首家花色的四张和对子：首家出六张而你没有六张的拖拉机时，须跟四张加一个对子\
                 （4个+1个对子先于较短的拖拉机）"
                    .to_string(),
                play.to_vec(),
            ),
            FollowError::MustKeepStructure { need } => (
                Rule::MustKeepStructure,
                format!(
                    "须按你这门花色的牌能组成的最好牌型跟牌：{} 张的拖拉机、{} 个四张、{} 个三张、{} 个对子",
                    need.tractor, need.quads, need.triples, need.pairs
                ),
                play.to_vec(),
            ),
        };
        RuleError::illegal(rule, en, zh).with_cards(cards)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trick::follow::describe;

    #[test]
    fn all_lists_every_rule_once() {
        crate::engine::checks::rule_set::<Rule>(|r| match r {
            Rule::EmptyPlay => 0,
            Rule::LeadOneSuit => 1,
            Rule::LeadOneFormation => 2,
            Rule::MustPlayAsManyAsLed => 3,
            Rule::MustFollowSuit => 4,
            Rule::MustFollowFormation => 5,
            Rule::MustPlayQuadAndPair => 6,
            Rule::MustKeepStructure => 7,
        });
    }

    #[test]
    fn formations_have_chinese_names() {
        let f = Formation::Tractor { size: 2, groups: 3 };
        assert_eq!(describe(f), "a tractor of 3 pairs");
        assert_eq!(describe_zh(f), "3 个对子连成的拖拉机");
    }
}
