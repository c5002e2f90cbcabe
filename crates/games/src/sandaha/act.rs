//! A seat's action checked and carried out: the turn, the phase it belongs to (bidding, the
//! banker's trump and bottom, the tricks), and the hand's end it may bring.

use crate::cards::{holds_all, remove_cards};
use crate::engine::{Event, Outcome, RuleError, SeatNo, Shared, data};

use super::{
    Action, BOTTOM, Call, Phase, Rule, State, Summary, Tricks, after_bidding, events, next_seat,
    no_hand, not_held, order, play, scoring,
};

/// Applies `action` for `seat`.
pub(super) fn apply(state: &mut State, seat: SeatNo, action: Action) -> Result<Outcome, RuleError> {
    let Some(h) = state.table.hand_mut() else {
        return Err(no_hand());
    };
    let turn = h.phase.turn();
    if seat != turn {
        return Err(RuleError::not_your_turn(
            Shared::NotYourTurn,
            format!("it is seat {turn}'s turn"),
            format!("现在轮到 {turn} 号座位"),
        ));
    }
    let mut out = Outcome::default();
    let ended = match (&mut h.phase, action) {
        (Phase::Bidding(b), Action::Bid { value }) => {
            let after = b.bid(seat, value)?;
            h.bids.push(Call {
                seat,
                bid: Some(value),
            });
            out.events.push(Event::public(
                "bid",
                Some(seat),
                data(&events::Bid { value }),
            ));
            after_bidding(state, after, &mut out)
        }
        (Phase::Bidding(b), Action::Pass {}) => {
            let after = b.pass(seat);
            h.bids.push(Call { seat, bid: None });
            out.events
                .push(Event::public("pass", Some(seat), data(&events::Nothing {})));
            after_bidding(state, after, &mut out)
        }
        (Phase::Trump { contract }, Action::Trump { suit }) => {
            let order = order(suit);
            for hand in &mut h.hands {
                order.sort_strongest_first(hand);
            }
            out.events.push(Event::public(
                "trump",
                Some(seat),
                data(&events::Trump { suit }),
            ));
            h.phase = Phase::Bury {
                contract: *contract,
                trump: suit,
            };
            None
        }
        (Phase::Bury { contract, trump }, Action::Bury { cards }) => {
            if cards.len() != BOTTOM {
                return Err(RuleError::illegal(
                    Rule::MustBuryEight,
                    format!("bury exactly {BOTTOM} cards, not {}", cards.len()),
                    format!("埋底须埋 {BOTTOM} 张牌，不是 {} 张", cards.len()),
                )
                .with_cards(cards));
            }
            if !holds_all(&h.hands[seat], &cards) {
                return Err(not_held(&h.hands[seat], &cards));
            }
            remove_cards(&mut h.hands[seat], &cards);
            let mut cards = cards;
            order(*trump).sort_strongest_first(&mut cards);
            out.events.push(Event::public(
                "buried",
                Some(seat),
                data(&events::Buried { count: cards.len() }),
            ));
            out.events.push(Event::private(
                "buried_cards",
                seat,
                data(&events::Cards { cards: &cards }),
            ));
            h.bottom = cards;
            h.phase = Phase::Decide {
                contract: *contract,
                trump: *trump,
            };
            None
        }
        (Phase::Decide { contract, .. }, Action::Surrender {}) => {
            let contract = *contract;
            out.events.push(Event::public(
                "surrender",
                Some(seat),
                data(&events::Nothing {}),
            ));
            let points = scoring::surrender(contract.banker);
            let summary = Summary::Surrendered {
                hand_no: state.hand_no,
                banker: contract.banker,
                bid: contract.bid,
                points: points.to_vec(),
            };
            state.next_first = next_seat(contract.banker);
            Some(state.end_hand(summary, points, points))
        }
        (Phase::Decide { contract, trump }, Action::PlayOn {}) => {
            out.events.push(Event::public(
                "play_on",
                Some(seat),
                data(&events::Nothing {}),
            ));
            let banker = contract.banker;
            h.phase = Phase::Tricks {
                contract: *contract,
                trump: *trump,
                play: Tricks::open(banker),
            };
            None
        }
        (Phase::Tricks { .. }, Action::Play { cards }) => {
            play::play_cards(state, seat, cards, &mut out)?
        }
        (Phase::Trump { .. } | Phase::Bury { .. }, Action::Surrender {}) => {
            return Err(RuleError::illegal(
                Rule::SurrenderAfterBury,
                "surrender comes after naming the trump and burying 8 cards",
                "定主并埋底 8 张以后才能投降",
            ));
        }
        (phase, _) => {
            let (en, zh) = match phase {
                Phase::Bidding(_) => ("bid or pass", "请叫分或不叫"),
                Phase::Trump { .. } => (
                    "name the trump suit (or null for none)",
                    "请定主花色（也可以不选，只有恒主）",
                ),
                Phase::Bury { .. } => ("bury 8 cards", "请埋底 8 张"),
                Phase::Decide { .. } => ("surrender or play on", "请选择投降或继续打"),
                Phase::Tricks { .. } => ("play cards", "请出牌"),
            };
            return Err(RuleError::illegal(
                Rule::ActionNotInPhase,
                format!("that action does not fit now: {en}"),
                format!("现在不能这样做：{zh}"),
            ));
        }
    };
    if let Some(end) = ended {
        out.merge(end);
    }
    Ok(out)
}
