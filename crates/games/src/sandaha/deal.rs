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
    let deck = redeal_deck(&h.dealt_digest, h.deal);
    h.dealt_digest = digest(&deck);
    (h.hands, h.bottom) = deal(&deck, out);
    h.bids.clear();
    h.phase = Phase::Bidding(Bidding::new(h.first_bidder));
}

/// The SHA-256 of `deck` in its dealing order: what a redeal's shuffle is seeded with.
pub(super) fn digest(deck: &[Card]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"paiju sandaha dealt");
    for c in deck {
        h.update(c.to_string().as_bytes());
        h.update(b",");
    }
    h.finalize().into()
}

/// The deck of deal number `deal` of a hand whose last deal had the digest `dealt`
/// ([`digest`]). The engine draws no randomness: the same 92 cards, in the game's fixed order,
/// go through the platform's shuffle (`shuffle::shuffle`) seeded with the SHA-256 of that
/// digest and the deal's number. The passed deal followed from the hand's committed seed, so
/// the new one does too, and the hand's replay gives it again. No seat can work it out: the
/// digest is of the deck card by card in dealing order, which the sorted hands do not tell
/// (three seats together still miss the order of every hand and of the bottom).
fn redeal_deck(dealt: &[u8; 32], deal: u32) -> Vec<Card> {
    let mut h = Sha256::new();
    h.update(b"paiju sandaha redeal");
    h.update(deal.to_be_bytes());
    h.update(dealt);
    let seed: Seed = h.finalize().into();
    let mut deck = Sandaha::deck(&Options::default());
    shuffle(&mut deck, &seed);
    deck
}
