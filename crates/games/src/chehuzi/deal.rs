//! Dealing a hand: from the dealer on, 20 cards to each seat and a 21st to the dealer, the rest
//! the stock; four identical dealt cards go down at once (起手提).

use super::melds::{FACES, Kind, card_of, cards_of, count, face_of, remove_n, sort_hand};
use super::{HandState, Phase, SEATS, TableMeld, events};
use crate::cards::Card;
use crate::engine::{Event, Outcome, SeatNo, data};

/// Cards dealt: 20 to each seat and one more to the dealer.
const DEALT: usize = 61;

/// The hand `deck` deals with `dealer` dealing, before the dealer's first discard.
pub(super) fn deal(
    dealer: SeatNo,
    deck: &[Card],
    started_ms: i64,
    out: &mut Outcome,
) -> Box<HandState> {
    let cards: Vec<u8> = deck.iter().filter_map(|&c| face_of(c)).collect();
    let mut hands: [Vec<u8>; SEATS] = Default::default();
    for (i, &c) in cards.iter().take(DEALT).enumerate() {
        // Cards 0..59 round the table from the dealer; card 60 is the dealer's 21st.
        let seat = if i == DEALT - 1 {
            dealer
        } else {
            (dealer + i) % SEATS
        };
        hands[seat].push(c);
    }
    let stock = cards.iter().skip(DEALT).copied().collect();
    let mut h = Box::new(HandState {
        started_ms,
        dealer,
        hands,
        melds: Default::default(),
        passed: Default::default(),
        stock,
        next: 0,
        paos: [0; SEATS],
        blocked: [0; SEATS],
        declined_peng: [0; SEATS],
        phase: Phase::Discard { seat: dealer },
    });
    out.events.push(Event::public(
        "deal",
        None,
        data(&events::Deal {
            dealer,
            stock: h.stock.len(),
        }),
    ));
    for s in 0..SEATS {
        sort_hand(&mut h.hands[s]);
        out.events.push(Event::private(
            "hand",
            s,
            data(&events::Hand {
                cards: &cards_of(&h.hands[s]),
            }),
        ));
        // 起手提: four identical dealt cards go down at once, 三张暗一张明.
        for f in 0..FACES as u8 {
            if count(&h.hands[s], f) == 4 {
                remove_n(&mut h.hands[s], f, 4);
                h.melds[s].push(TableMeld {
                    kind: Kind::Ti,
                    faces: vec![f; 4],
                    hidden: false,
                });
                h.paos[s] += 1;
                out.events.push(Event::public(
                    "ti",
                    Some(s),
                    data(&events::Laid {
                        card: Some(card_of(f)),
                        dealt: true,
                    }),
                ));
            }
        }
    }
    h
}
