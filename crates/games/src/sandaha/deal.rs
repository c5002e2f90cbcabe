//! Dealing a hand's cards, and dealing them again when all four passed. A redeal stays inside
//! the hand (one hand number, no hand end): a match of `hands: N` plays N hands that reached a
//! banker, and the service, which counts hands by the engine's hand number, deals no new deck.

use sha2::{Digest, Sha256};

use super::view::events;
use super::{Bidding, Game, HandState, Options, Phase, SEATS, Sandaha, order};
use crate::cards::Card;
use crate::engine::{Event, Outcome, data};
use crate::shuffle::{Seed, shuffle};

/// Cards 0..DEALT of a deck go to the seats in turn, the rest (8) to the bottom.
const DEALT: usize = 84;

/// The seats' hands of `deck`, each sorted strongest first, and its bottom; a private `dealt`
/// event to each seat with its hand.
pub(super) fn deal(deck: &[Card], out: &mut Outcome) -> ([Vec<Card>; SEATS], Vec<Card>) {
    let mut hands: [Vec<Card>; SEATS] = Default::default();
    for (i, &card) in deck.iter().take(DEALT).enumerate() {
        hands[i % SEATS].push(card);
    }
    let bottom: Vec<Card> = deck.iter().skip(DEALT).copied().collect();
    for (seat, hand) in hands.iter_mut().enumerate() {
        order(None).sort_strongest_first(hand);
        out.events.push(Event::private(
            "dealt",
            seat,
            data(&events::Cards { cards: hand }),
        ));
    }
    (hands, bottom)
}

/// All four passed: the cards are dealt again within the hand (no hand end, the same hand
/// number), the same seat bidding first. A public `redeal` event, then each seat's `dealt`.
pub(super) fn redeal(h: &mut HandState, out: &mut Outcome) {
    h.deal += 1;
    out.events.push(Event::public(
        "redeal",
        None,
        data(&events::Redeal {
            first_bidder: h.first_bidder,
            deal: h.deal,
            reason: "all four passed: the cards are dealt again",
        }),
    ));
    let deck = redeal_deck(&h.hands, &h.bottom, h.deal);
    (h.hands, h.bottom) = deal(&deck, out);
    h.bids.clear();
    h.phase = Phase::Bidding(Bidding::new(h.first_bidder));
}

/// The deck of deal number `deal` of a hand, after all four passed on the deal of `hands` and
/// `bottom`. The engine draws no randomness: the same 92 cards, in the game's fixed order, go
/// through the platform's shuffle (`shuffle::shuffle`) seeded with the SHA-256 of the deal that
/// was passed (every hand, sorted, and the bottom) and the deal's number. That deal followed
/// from the hand's committed seed, so the new one does too, and the hand's replay gives it again;
/// no seat can work it out, as no seat saw the other hands or the bottom it comes from.
fn redeal_deck(hands: &[Vec<Card>; SEATS], bottom: &[Card], deal: u32) -> Vec<Card> {
    let mut h = Sha256::new();
    h.update(b"paiju sandaha redeal");
    h.update(deal.to_be_bytes());
    for cards in hands.iter().map(Vec::as_slice).chain([bottom]) {
        for c in cards {
            h.update(c.to_string().as_bytes());
            h.update(b",");
        }
        h.update(b";");
    }
    let seed: Seed = h.finalize().into();
    let mut deck = Sandaha::deck(&Options::default());
    shuffle(&mut deck, &seed);
    deck
}
