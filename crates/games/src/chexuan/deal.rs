//! 簸簸 and the deal: from the start of a hand to the first betting round; and a deck that deals
//! given hands.

use super::ranking::{deck_cards, sorted};
use super::view::events;
use super::{Action, Chexuan, HandOver, HandPhase, MAX_BOBO, Play, Rule, data};
use crate::cards::{Card, remove_cards};
use crate::engine::{Event, Game, Money, Outcome, RuleError, SeatNo};

/// A full deck array that deals `hands[i]` to seat i when seat 0 deals hand 1 and nobody folds
/// before the third card: `hands[i][0..2]` hidden, `[2]` the third card, `[3]` the fourth; the
/// unused cards follow in the rulings' order.
///
/// # Panics
/// When there are not 2 to 6 hands of 4 chexuan cards each, all different (a test fixture error).
pub fn deck_for_hands(hands: &[Vec<Card>]) -> Vec<Card> {
    assert!(
        Chexuan::SEATS.contains(&hands.len()),
        "chexuan is dealt to 2..=6 seats, got {}",
        hands.len()
    );
    let mut rest = deck_cards();
    let mut deck = Vec::with_capacity(rest.len());
    for pass in 0..4 {
        for (seat, hand) in hands.iter().enumerate() {
            assert_eq!(hand.len(), 4, "seat {seat} needs 4 cards");
            let card = hand[pass];
            assert!(
                remove_cards(&mut rest, &[card]).is_some(),
                "{card} is not a chexuan card or is used twice"
            );
            deck.push(card);
        }
    }
    let used = deck.clone();
    deck.extend(deck_cards().into_iter().filter(|c| !used.contains(c)));
    deck
}

impl Play<'_> {
    pub(super) fn apply_bobo(
        &mut self,
        seat: SeatNo,
        action: Action,
        out: &mut Outcome,
    ) -> Result<Option<HandOver>, RuleError> {
        let amount = match action {
            Action::SetBobo { amount } => amount,
            Action::SitOut {} => {
                self.h.seats[seat].playing = false;
                out.events.push(Event::public(
                    "sat_out",
                    Some(seat),
                    data(&events::Nothing {}),
                ));
                return Ok(self.bobo_phase_done(out));
            }
            _ => {
                return Err(RuleError::illegal(
                    Rule::ActionNotInPhase,
                    "every player first sets 簸簸 (set_bobo) or sits the hand out (sit_out); \
                     cards are dealt once all have",
                    "每位玩家先设置簸簸或这一局不玩；大家都设好后才发牌",
                ));
            }
        };
        let min = self.opts.min_bobo;
        let h = &mut *self.h;
        let wallet = h.seats[seat].wallet;
        if amount < min {
            return Err(RuleError::illegal(
                Rule::BoboBelowMin,
                format!("簸簸 must be at least min_bobo ({min})"),
                format!("簸簸至少要 {min}（min_bobo）"),
            ));
        }
        if amount > wallet {
            return Err(RuleError::insufficient_coins(
                Rule::BoboOverWallet,
                format!("簸簸 can be at most what your wallet holds ({wallet})"),
                format!("簸簸最多只能是你钱包里的金币数（{wallet}）"),
            ));
        }
        if amount > MAX_BOBO {
            return Err(RuleError::illegal(
                Rule::BoboOverMax,
                format!("簸簸 can be at most {MAX_BOBO}"),
                format!("簸簸最多是 {MAX_BOBO}"),
            ));
        }
        let sh = &mut h.seats[seat];
        sh.bobo = Some(amount);
        sh.left = amount;
        out.money.push(Money::Stake { seat, amount });
        // The amount stays hidden until everyone has set: choosing 簸簸 is simultaneous.
        out.events.push(Event::public(
            "bobo_set",
            Some(seat),
            data(&events::Nothing {}),
        ));
        Ok(self.bobo_phase_done(out))
    }

    /// Once every playing seat has set its bobo: deals, or, when sitting out has left fewer than
    /// two seats to play, ends the hand as a draw that returns every bobo.
    pub(super) fn bobo_phase_done(&mut self, out: &mut Outcome) -> Option<HandOver> {
        let h = &*self.h;
        if h.seats.iter().filter(|s| s.playing).count() < 2 {
            return Some(self.settle_draw(out));
        }
        if h.seats.iter().all(|s| !s.playing || s.bobo.is_some()) {
            self.post_antes_and_deal(out);
        }
        None
    }

    pub(super) fn post_antes_and_deal(&mut self, out: &mut Outcome) {
        let ante = self.opts.ante;
        let dealer = self.dealer;
        let h = &mut *self.h;
        for sh in h.seats.iter_mut().filter(|s| s.playing) {
            // A bobo is at least min_bobo ≥ ante, so the ante always fits (possibly all of it).
            sh.left -= ante;
            sh.put_in += ante;
            if sh.left == 0 {
                sh.all_in = true;
            }
        }
        let bobos: Vec<Option<i64>> = h.seats.iter().map(|s| s.bobo).collect();
        out.events.push(Event::public(
            "antes",
            None,
            data(&events::Antes { ante, bobos }),
        ));
        let order = h.dealing_order(dealer);
        for _ in 0..2 {
            for &s in &order {
                h.deal(s, true);
            }
        }
        for &s in &order {
            out.events.push(Event::private(
                "dealt",
                s,
                data(&events::Dealt {
                    cards: sorted(&h.seats[s].hidden),
                }),
            ));
        }
        out.events.push(Event::public(
            "hidden_dealt",
            None,
            data(&events::HiddenDealt { order, count: 2 }),
        ));
        *self.phase = HandPhase::Betting;
        self.begin_round(1, out);
    }
}
