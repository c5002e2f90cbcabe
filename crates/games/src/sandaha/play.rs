//! The trick phase: a seat's play checked (有牌必跟, 甩牌 for the banker once every defender
//! showed void in trumps), the trick's winner and its points, 扣底, and the hand's end.

use crate::cards::{Card, holds_all, remove_cards};
use crate::engine::{Event, Outcome, RuleError, SeatNo, data};
use crate::trick;

use super::{
    BottomCapture, Phase, Rule, SEATS, Shape, State, Summary, Trick, TrickPlay, events, follow,
    next_seat, no_hand, not_held, order, scoring,
};

/// Plays `cards` for `seat` in the trick phase.
pub(super) fn play_cards(
    state: &mut State,
    seat: SeatNo,
    cards: Vec<Card>,
    out: &mut Outcome,
) -> Result<Option<Outcome>, RuleError> {
    let hand_no = state.hand_no;
    let h = state.table.hand_mut().ok_or_else(no_hand)?;
    let Phase::Tricks {
        contract,
        trump,
        play,
    } = &mut h.phase
    else {
        return Err(RuleError::illegal(
            Rule::ActionNotInPhase,
            "it is not the time to play cards",
            "现在还不是出牌的时候",
        ));
    };
    let (contract, order) = (*contract, order(*trump));
    if cards.is_empty() {
        return Err(RuleError::illegal(
            trick::Rule::EmptyPlay,
            "a play needs at least one card",
            "出牌至少要出一张牌",
        ));
    }
    if !holds_all(&h.hands[seat], &cards) {
        return Err(not_held(&h.hands[seat], &cards));
    }
    let hand = &h.hands[seat];
    let shape = match (play.current.shape, play.current.plays.first()) {
        (Some(shape), Some(lead)) => {
            trick::is_legal_follow(&order, hand, &lead.cards, &cards).map_err(|e| {
                let mut refusal = e.refusal(&order, hand, &lead.cards, &cards);
                refusal.detail = format!("有牌必跟: {}", refusal.detail);
                refusal.detail_zh = format!("有牌必跟：{}", refusal.detail_zh);
                refusal
            })?;
            if order.is_trump(lead.cards[0])
                && seat != contract.banker
                && cards.iter().any(|&c| !order.is_trump(c))
                && !play.void_in_trumps[seat]
            {
                play.void_in_trumps[seat] = true;
                out.events.push(Event::public(
                    "void_in_trumps",
                    Some(seat),
                    data(&events::Nothing {}),
                ));
            }
            shape
        }
        _ => {
            let may_throw = play.may_throw(seat, contract.banker);
            let shape = follow::check_lead(&order, hand, &cards, may_throw)?;
            play.current.shape = Some(shape);
            shape
        }
    };
    remove_cards(&mut h.hands[seat], &cards);
    let mut cards = cards;
    order.sort_strongest_first(&mut cards);
    let leading = play.current.plays.is_empty();
    out.events.push(Event::public(
        "play",
        Some(seat),
        data(&events::Play {
            cards: &cards,
            shape: leading.then_some(shape),
        }),
    ));
    play.current.points += trick::points(&cards);
    play.current.plays.push(TrickPlay { seat, cards });
    if play.current.plays.len() < SEATS {
        play.turn = next_seat(seat);
        return Ok(None);
    }
    let plays: Vec<Vec<Card>> = play.current.plays.iter().map(|p| p.cards.clone()).collect();
    let won = &play.current.plays[trick::trick_winner(&order, &plays)];
    let winner = won.seat;
    // 扣底 needs the winning play all trumps; its structure sets the multiple.
    let trump_shape = won
        .cards
        .iter()
        .all(|&c| order.is_trump(c))
        .then(|| trick::classify(&order, &won.cards).map(|(f, _)| Shape::of(f)))
        .flatten();
    if winner != contract.banker {
        play.points += play.current.points;
    }
    play.current.winner = Some(winner);
    out.events.push(Event::public(
        "trick_won",
        Some(winner),
        data(&events::TrickWon {
            points: play.current.points,
            defenders_points: play.points,
        }),
    ));
    let finished = std::mem::replace(&mut play.current, Trick::new(winner));
    play.done.push(finished);
    play.turn = winner;
    if h.hands.iter().any(|c| !c.is_empty()) {
        return Ok(None);
    }
    let mut bottom_capture = None;
    if let Some(shape) = trump_shape.filter(|_| winner != contract.banker) {
        let multiple = shape.bottom_multiple();
        let points = trick::points(&h.bottom) * multiple;
        play.points += points;
        let capture = BottomCapture { multiple, points };
        out.events.push(Event::public(
            "bottom_captured",
            Some(winner),
            data(&capture),
        ));
        bottom_capture = Some(capture);
    }
    let defenders_points = play.points;
    let u = state.opts.base_score(contract.bid);
    let (verdict, points) = scoring::settle(contract.banker, contract.bid, u, defenders_points);
    let summary = Summary::Played {
        hand_no,
        banker: contract.banker,
        bid: contract.bid,
        base_score: state.opts.base_score(contract.bid),
        defenders_points,
        verdict,
        bottom_capture,
        points: points.to_vec(),
    };
    state.next_first = next_seat(contract.banker);
    Ok(Some(state.end_hand(summary, points, points)))
}
