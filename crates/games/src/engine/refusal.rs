//! Refusals: why an action or option set was refused, and the stable rule codes a client
//! keys on.

use crate::cards::Card;

/// Why an action or option set was refused. `detail` and `detail_zh` are shown to the player, so
/// they must name the rule broken and never reveal a card the player may not see; `rule` is the
/// stable code a client keys on, and `cards` the offending cards of the action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    pub kind: RuleErrorKind,
    /// Stable snake_case code of the rule broken; clients key on it. Never changes once shipped.
    /// Always one of the refusing game's [`Game::rule_codes`](super::Game::rule_codes).
    pub rule: &'static str,
    /// The offending cards of the action (the cards played, discarded or named that break the
    /// rule), empty when the refusal is not about particular cards. Only cards the actor
    /// submitted or holds: never a card the actor may not see.
    pub cards: Vec<Card>,
    /// The refusal in English.
    pub detail: String,
    /// The same in Chinese (simplified), in the game's own terms.
    pub detail_zh: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleErrorKind {
    /// The input has the wrong shape (unknown action type, bad field, bad option value).
    Invalid,
    /// Well formed, but the rules do not allow it now.
    Illegal,
    /// The seat is not among those to act.
    NotYourTurn,
    /// The seat does not have the coins the action needs.
    InsufficientCoins,
}

/// A set of rule codes: each game's `Rule` enum, the trick-taking games' [`crate::trick::Rule`]
/// and the [`Shared`] codes. Only such enums name a refusal's rule, so every code a game can
/// yield is declared once and listed by its [`Game::rule_codes`](super::Game::rule_codes).
pub trait RuleCode: Copy + 'static {
    /// Every rule of the set, each once.
    const ALL: &'static [Self];
    /// The stable snake_case code.
    fn code(self) -> &'static str;
}

/// The codes of every rule of `R`.
pub fn codes_of<R: RuleCode>() -> impl Iterator<Item = &'static str> {
    R::ALL.iter().map(|r| r.code())
}

/// A game's [`Game::rule_codes`](super::Game::rule_codes): `codes` and the [`Shared`] ones,
/// sorted, without repeats.
pub fn with_shared_codes(codes: impl IntoIterator<Item = &'static str>) -> Vec<&'static str> {
    let mut all: Vec<&'static str> = codes.into_iter().chain(codes_of::<Shared>()).collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// Rules every game can refuse by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shared {
    /// The action JSON does not fit the game's actions (unknown type, missing or unknown field,
    /// wrong type).
    BadAction,
    /// An option is unknown, of the wrong type or out of its range.
    BadOption,
    /// The game is not played by that many seats.
    BadSeatCount,
    /// The seat is not among those to act now.
    NotYourTurn,
    /// No hand is in play: the table waits for the next deal or the match is over.
    NoHandInPlay,
    /// The action names cards the seat does not hold.
    NotInHand,
}

impl RuleCode for Shared {
    const ALL: &'static [Shared] = &[
        Shared::BadAction,
        Shared::BadOption,
        Shared::BadSeatCount,
        Shared::NotYourTurn,
        Shared::NoHandInPlay,
        Shared::NotInHand,
    ];
    fn code(self) -> &'static str {
        match self {
            Shared::BadAction => "bad_action",
            Shared::BadOption => "bad_option",
            Shared::BadSeatCount => "bad_seat_count",
            Shared::NotYourTurn => "not_your_turn",
            Shared::NoHandInPlay => "no_hand_in_play",
            Shared::NotInHand => "not_in_hand",
        }
    }
}

impl RuleError {
    pub fn new(
        kind: RuleErrorKind,
        rule: impl RuleCode,
        detail: impl Into<String>,
        detail_zh: impl Into<String>,
    ) -> Self {
        RuleError {
            kind,
            rule: rule.code(),
            cards: Vec::new(),
            detail: detail.into(),
            detail_zh: detail_zh.into(),
        }
    }
    pub fn invalid(
        rule: impl RuleCode,
        detail: impl Into<String>,
        detail_zh: impl Into<String>,
    ) -> Self {
        Self::new(RuleErrorKind::Invalid, rule, detail, detail_zh)
    }
    pub fn illegal(
        rule: impl RuleCode,
        detail: impl Into<String>,
        detail_zh: impl Into<String>,
    ) -> Self {
        Self::new(RuleErrorKind::Illegal, rule, detail, detail_zh)
    }
    pub fn not_your_turn(
        rule: impl RuleCode,
        detail: impl Into<String>,
        detail_zh: impl Into<String>,
    ) -> Self {
        Self::new(RuleErrorKind::NotYourTurn, rule, detail, detail_zh)
    }
    pub fn insufficient_coins(
        rule: impl RuleCode,
        detail: impl Into<String>,
        detail_zh: impl Into<String>,
    ) -> Self {
        Self::new(RuleErrorKind::InsufficientCoins, rule, detail, detail_zh)
    }
    /// The offending cards: only cards the actor submitted or holds.
    pub fn with_cards(mut self, cards: impl Into<Vec<Card>>) -> Self {
        self.cards = cards.into();
        self
    }
    /// [`Shared::NotInHand`]: `cards` sent from `hand` are not all held. The cards held too few
    /// times are the offending cards; the sentences name none of them (nor the hand).
    pub fn not_in_hand(detail: impl Into<String>, hand: &[Card], cards: &[Card]) -> Self {
        Self::illegal(Shared::NotInHand, detail, "你手里没有这些牌")
            .with_cards(missing(hand, cards))
    }
}

/// The cards of `cards` beyond what `hand` holds (a card sent twice but held once is missing
/// once).
pub(super) fn missing(hand: &[Card], cards: &[Card]) -> Vec<Card> {
    let mut rest = hand.to_vec();
    cards
        .iter()
        .filter(|c| match rest.iter().position(|h| h == *c) {
            Some(i) => {
                rest.swap_remove(i);
                false
            }
            None => true,
        })
        .copied()
        .collect()
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}
