//! The declaration phase (叫主 / 反主), played in the dark (暗叫): seats in turn show k identical
//! 2s of one suit or pass; a later declaration needs more cards and never overrides the seat's
//! own; three passes after the last declaration (or four with none) end it.

use serde::{Deserialize, Serialize};

use super::events;
use super::{Declaration, Phase, Playing, Rule, SEATS, State, data, no_hand};
use crate::cards::{Card, Suit, holds_all};
use crate::engine::{Event, Outcome, RuleError, SeatNo};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Declaring {
    pub turn: SeatNo,
    /// Passes in a row since the last declaration (or since the start).
    pub passes: u8,
    pub standing: Option<Declaration>,
}

/// Spades are trump when nobody declares (若发牌结束仍无人亮牌,则以黑桃花色作为主牌花色).
const DEFAULT_TRUMP: Suit = Suit::S;
/// Hand 1's dealer when nobody declares.
const DEFAULT_DEALER: SeatNo = 0;

impl Declaring {
    pub fn new(first: SeatNo) -> Declaring {
        Declaring {
            turn: first,
            passes: 0,
            standing: None,
        }
    }
}

/// The suit and count `cards` declare, if they are 1..4 identical 2s.
pub(super) fn reading(cards: &[Card]) -> Option<(Suit, u8)> {
    let first = *cards.first()?;
    let Card::Suited { rank: 2, suit } = first else {
        return None;
    };
    (cards.len() <= 4 && cards.iter().all(|&c| c == first)).then_some((suit, cards.len() as u8))
}

/// The declarations `seat` could make now: for each suit, the counts it may show.
pub(super) fn options(d: &Declaring, hand: &[Card], seat: SeatNo) -> Vec<(Suit, Vec<u8>)> {
    if d.standing.is_some_and(|s| s.seat == seat) {
        return Vec::new();
    }
    let beat = d.standing.map_or(0, |s| s.count);
    Suit::ALL
        .iter()
        .filter_map(|&suit| {
            let held = hand.iter().filter(|&&c| c == Card::new(2, suit)).count() as u8;
            let counts: Vec<u8> = (beat + 1..=held).collect();
            (!counts.is_empty()).then_some((suit, counts))
        })
        .collect()
}

/// `seat` shows `cards` to declare.
pub(super) fn declare(
    state: &mut State,
    seat: SeatNo,
    cards: &[Card],
    out: &mut Outcome,
) -> Result<(), RuleError> {
    let Some(h) = state.table.hand_mut() else {
        return Err(no_hand());
    };
    let Phase::Declaring(d) = &mut h.phase else {
        return Err(RuleError::illegal(
            Rule::ActionNotInPhase,
            "the declaration phase is over: play your cards",
            "叫主已经结束：请出牌",
        ));
    };
    let (suit, count) = reading(cards).ok_or_else(|| {
        RuleError::illegal(
            Rule::DeclareIdenticalTwos,
            "a declaration shows 1 to 4 identical 2s of one suit",
            "叫主要亮出同一花色的 1 到 4 张相同的 2",
        )
        .with_cards(cards)
    })?;
    if !holds_all(&h.hands[seat], cards) {
        return Err(RuleError::not_in_hand(
            "you do not hold those cards",
            &h.hands[seat],
            cards,
        ));
    }
    if let Some(s) = d.standing {
        if s.seat == seat {
            return Err(RuleError::illegal(
                Rule::NoSelfOverride,
                "you may not override your own declaration (不能自反主)",
                "不能反自己叫的主（不能自反主）",
            )
            .with_cards(cards));
        }
        if count <= s.count {
            return Err(RuleError::illegal(
                Rule::DeclareMoreToOverride,
                format!(
                    "the standing declaration shows {} cards: show more to override it",
                    s.count
                ),
                format!("现在的主亮了 {} 张：要反主须亮出更多张", s.count),
            )
            .with_cards(cards));
        }
    }
    d.standing = Some(Declaration { seat, suit, count });
    d.passes = 0;
    d.turn = (seat + 1) % SEATS;
    out.events.push(Event::public(
        "declare",
        Some(seat),
        data(&events::Declared { count }),
    ));
    Ok(())
}

/// `seat` passes; the phase may end.
pub(super) fn pass(state: &mut State, seat: SeatNo, out: &mut Outcome) -> Result<(), RuleError> {
    let hand_no = state.hand_no;
    let known_dealer = state.next_dealer;
    let Some(h) = state.table.hand_mut() else {
        return Err(no_hand());
    };
    let Phase::Declaring(d) = &mut h.phase else {
        return Err(RuleError::illegal(
            Rule::ActionNotInPhase,
            "passing is only for the declaration phase: play your cards",
            "只有叫主时才能不叫：请出牌",
        ));
    };
    d.passes += 1;
    out.events
        .push(Event::public("pass", Some(seat), data(&events::Nothing {})));
    let needed = if d.standing.is_some() {
        SEATS - 1
    } else {
        SEATS
    };
    if usize::from(d.passes) < needed {
        d.turn = (seat + 1) % SEATS;
        return Ok(());
    }
    let standing = d.standing;
    let trump = standing.map_or(DEFAULT_TRUMP, |s| s.suit);
    // 反底反桩: hand 1's dealer is the final declarer; later dealers follow the results.
    let dealer = match known_dealer {
        Some(dealer) if hand_no > 1 => dealer,
        _ => standing.map_or(DEFAULT_DEALER, |s| s.seat),
    };
    let playing = Playing {
        trump,
        declaration: standing,
        dealer,
        turn: dealer,
        trick: Vec::new(),
        tricks: Vec::new(),
        defenders_points: 0,
    };
    let order = playing.order();
    for hand in &mut h.hands {
        order.sort_strongest_first(hand);
    }
    h.phase = Phase::Playing(playing);
    out.events.push(Event::public(
        "trump",
        standing.map(|s| s.seat),
        data(&events::TrumpChosen {
            trump,
            declaration: standing,
            dealer,
        }),
    ));
    Ok(())
}
