//! 扯旋 (chexuan): the Sichuan 32-card game of 簸簸, three betting rounds and a head/tail split,
//! settled by 尾大吃皮. `docs/rules/chexuan.md` is the rules page this module implements.
//!
//! Coins are the players' own wallets: a seat's 簸簸 is staked into the match escrow when it is
//! set and whatever the seat ends the hand with is paid back when the hand ends, so the escrow
//! is empty between hands.

#[cfg(test)]
mod golden_tests;
mod ranking;
#[cfg(test)]
mod review_tests;
mod settle;
#[cfg(test)]
mod tests;
mod view;

use std::ops::RangeInclusive;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cards::{Card, remove_cards};
use crate::engine::{
    Ctx, Event, Game, HandResult, HandStart, Money, Outcome, RuleError, SeatNo, Stage, check_range,
};
use ranking::{Split, rank_pair, sanhua, server_split, single_order};
use settle::{Standing, base_points, settle};
use view::events;
pub use view::{Beat, Escape, HandSeat, Legal, SeatView, ShownHand, SplitView, Summary, View};

pub struct Chexuan;

const MAX_OPTION: i64 = 1_000_000_000;
/// The largest 簸簸: six of them, and every sum of a settlement, stay within i64.
const MAX_BOBO: i64 = 1_000_000_000_000_000_000;
/// A hand must have lasted this long for the other seats to earn the escape bonus (the seed's
/// 如果时间足够).
const ESCAPE_BONUS_AFTER_MS: i64 = 30_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// 底皮: posted by every playing seat from its 簸簸 before the deal; also the 底注 of 积分.
    #[serde(default = "default_ante")]
    pub ante: i64,
    /// The smallest 簸簸; a seat whose wallet holds less sits the hand out.
    #[serde(default = "default_min_bobo")]
    pub min_bobo: i64,
    /// 积分 per level in 基本积分.
    #[serde(default = "default_score_unit")]
    pub score_unit: i64,
}

fn default_ante() -> i64 {
    10
}
fn default_min_bobo() -> i64 {
    100
}
fn default_score_unit() -> i64 {
    10
}

/// A player's action. Unit-like actions are empty structs so that `deny_unknown_fields` also
/// rejects stray fields on them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    SetBobo {
        amount: i64,
    },
    /// Sits this hand out during the 簸簸 phase: no bobo, no ante, not dealt in. The automatic
    /// action of the phase, because it stakes nothing and so can never fail for want of coins.
    SitOut {},
    /// 休
    Check {},
    /// 大: this seat's total for the round becomes `to`.
    Raise {
        to: i64,
    },
    /// 跟
    Call {},
    /// 敲
    AllIn {},
    /// 丢
    Fold {},
    Split {
        head: [Card; 2],
        tail: [Card; 2],
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Before the first hand.
    Waiting,
    Bobo,
    Betting,
    Showdown,
    /// Between hands.
    Settled,
    Finished,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Waiting => "waiting",
            Phase::Bobo => "bobo",
            Phase::Betting => "betting",
            Phase::Showdown => "showdown",
            Phase::Settled => "settled",
            Phase::Finished => "finished",
        }
    }

    fn in_hand(self) -> bool {
        matches!(self, Phase::Bobo | Phase::Betting | Phase::Showdown)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    Showdown,
    /// Everyone else folded.
    Uncontested,
    /// Every seat that acted in a round checked.
    Draw,
    Escape,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct State {
    opts: Options,
    seats: usize,
    hand_no: u32,
    dealer: SeatNo,
    /// Seats left during the match and not yet refilled (the service refills before a deal).
    vacated: Vec<bool>,
    table: Table,
}

/// Where the match stands: code that needs a hand gets it from the variant that holds one.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Table {
    /// Before the first hand.
    Waiting,
    InHand {
        phase: HandPhase,
        hand: Hand,
    },
    /// Between hands: the last hand stays on show.
    Between {
        last: Hand,
    },
    /// Fewer than two seats could stake 簸簸: no hand is shown.
    Finished,
}

/// The phases of a hand in play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum HandPhase {
    Bobo,
    Betting,
    Showdown,
}

impl Table {
    /// The phase as clients see it.
    fn phase(&self) -> Phase {
        match self {
            Table::Waiting => Phase::Waiting,
            Table::InHand { phase, .. } => match phase {
                HandPhase::Bobo => Phase::Bobo,
                HandPhase::Betting => Phase::Betting,
                HandPhase::Showdown => Phase::Showdown,
            },
            Table::Between { .. } => Phase::Settled,
            Table::Finished => Phase::Finished,
        }
    }

    /// The hand in play, or the last one between hands.
    fn hand(&self) -> Option<&Hand> {
        match self {
            Table::InHand { hand, .. } | Table::Between { last: hand } => Some(hand),
            Table::Waiting | Table::Finished => None,
        }
    }
}

impl State {
    /// The phase as clients see it.
    fn phase(&self) -> Phase {
        self.table.phase()
    }

    /// The hand in play, or the last one between hands.
    fn hand(&self) -> Option<&Hand> {
        self.table.hand()
    }

    /// The hand in play with what of the match its rules read; None when no hand is in play.
    fn play(&mut self) -> Option<Play<'_>> {
        match &mut self.table {
            Table::InHand { phase, hand } => Some(Play {
                opts: &self.opts,
                hand_no: self.hand_no,
                dealer: self.dealer,
                vacated: &self.vacated,
                phase,
                h: hand,
            }),
            _ => None,
        }
    }

    /// Moves on from a hand that has ended: the next dealer is set and the hand stays on show.
    fn close_hand(&mut self, over: HandOver) {
        self.dealer = over.next_dealer;
        self.table = match std::mem::replace(&mut self.table, Table::Waiting) {
            Table::InHand { hand, .. } => Table::Between { last: hand },
            other => other,
        };
    }
}

/// A hand in play, with what of the match its rules read.
struct Play<'a> {
    opts: &'a Options,
    hand_no: u32,
    dealer: SeatNo,
    vacated: &'a [bool],
    phase: &'a mut HandPhase,
    h: &'a mut Hand,
}

/// A hand has just ended; `State::close_hand` moves the match on.
#[must_use]
struct HandOver {
    next_dealer: SeatNo,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Hand {
    started_ms: i64,
    base_points: i64,
    deck: Vec<Card>,
    /// Cards dealt so far from the front of `deck`.
    dealt: usize,
    /// Betting round 1..=3.
    round: u8,
    /// The highest total any seat has put in this round.
    level: i64,
    turn: Option<SeatNo>,
    /// True while every action of this round has been a check.
    all_checked: bool,
    ending: Option<Ending>,
    seats: Vec<SeatHand>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct SeatHand {
    playing: bool,
    wallet: i64,
    bobo: Option<i64>,
    /// 簸簸 not yet put in.
    left: i64,
    /// Part of the bobo already paid back to the wallet: a folded seat that left the table takes
    /// its unused bobo with it, so the end of the hand pays it only the rest.
    #[serde(default)]
    withdrawn: i64,
    /// Ante and bets this hand.
    put_in: i64,
    round_bet: i64,
    /// Has acted since the level last rose.
    acted: bool,
    folded: bool,
    all_in: bool,
    hidden: Vec<Card>,
    face_up: Vec<Card>,
    split: Option<Split>,
    swapped: bool,
}

impl SeatHand {
    fn in_hand(&self) -> bool {
        self.playing && !self.folded
    }

    fn active(&self) -> bool {
        self.in_hand() && !self.all_in
    }

    fn cards(&self) -> Vec<Card> {
        self.hidden.iter().chain(&self.face_up).copied().collect()
    }

    fn put(&mut self, amount: i64) {
        self.left -= amount;
        self.put_in += amount;
        self.round_bet += amount;
        if self.left == 0 {
            self.all_in = true;
        }
    }
}

impl Hand {
    fn n(&self) -> usize {
        self.seats.len()
    }

    /// Seats in play order starting at `start` (inclusive).
    fn order_from(&self, start: SeatNo) -> Vec<SeatNo> {
        let n = self.n();
        (0..n).map(|k| (start + k) % n).collect()
    }

    fn active_count(&self) -> usize {
        self.seats.iter().filter(|s| s.active()).count()
    }

    fn needs_action(&self, s: SeatNo) -> bool {
        let sh = &self.seats[s];
        sh.active() && (sh.round_bet < self.level || (!sh.acted && self.active_count() >= 2))
    }

    fn deal(&mut self, seat: SeatNo, hidden: bool) -> Card {
        let card = self.deck[self.dealt];
        self.dealt += 1;
        if hidden {
            self.seats[seat].hidden.push(card);
        } else {
            self.seats[seat].face_up.push(card);
        }
        card
    }

    /// The seats still in the hand, dealer first (dealing order).
    fn dealing_order(&self, dealer: SeatNo) -> Vec<SeatNo> {
        self.order_from(dealer)
            .into_iter()
            .filter(|&s| self.seats[s].in_hand())
            .collect()
    }

    fn pot(&self) -> i64 {
        self.seats.iter().map(|s| s.put_in).sum()
    }

    fn revealed(&self, s: SeatNo) -> bool {
        self.ending == Some(Ending::Showdown) && self.seats[s].in_hand()
    }
}

/// What a seat may do in a betting round.
struct BetOptions {
    check: bool,
    to_call: i64,
    call: Option<i64>,
    raise: Option<(i64, i64)>,
    all_in: Option<i64>,
    /// Another seat could still answer a bet.
    answerable: bool,
}

fn bet_options(h: &Hand, seat: SeatNo, ante: i64) -> BetOptions {
    let sh = &h.seats[seat];
    let to_call = h.level - sh.round_bet;
    let answerable = h
        .seats
        .iter()
        .enumerate()
        .any(|(i, s)| i != seat && s.active());
    let min_to = h.level + ante;
    let max_to = sh.round_bet + sh.left;
    BetOptions {
        check: h.level == 0,
        to_call,
        call: (to_call > 0 && to_call <= sh.left).then_some(to_call),
        raise: (answerable && max_to >= min_to).then_some((min_to, max_to)),
        // 敲 is open whenever bobo is left, even past what the others could answer: each winner
        // then collects from it up to its own stake, so several winners can share the excess.
        all_in: (sh.left > 0).then_some(sh.left),
        answerable,
    }
}

/// The 32 cards of the rulings' table, in its order.
fn deck_cards() -> Vec<Card> {
    crate::hand![
        "QH", "QD", "2H", "2D", "8H", "8D", "4H", "4D", "10S", "10C", "4S", "4C", "6S", "6C", "JS",
        "JC", "10H", "10D", "6H", "6D", "7H", "7D", "5S", "5C", "7S", "7C", "8S", "8C", "9S", "9C",
        "3H", "RJ"
    ]
}

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

/// Cards as api.md wants a hand shown: strongest first by the single-card order, ties in the
/// rulings' table order.
fn sorted(cards: &[Card]) -> Vec<Card> {
    let table = deck_cards();
    let mut v = cards.to_vec();
    v.sort_by_key(|c| {
        (
            std::cmp::Reverse(single_order(*c)),
            table.iter().position(|t| t == c),
        )
    });
    v
}

fn split_view(split: &Split, swapped: bool) -> SplitView {
    SplitView {
        head: sorted(&split.head),
        tail: sorted(&split.tail),
        head_name: rank_pair(split.head[0], split.head[1]).1,
        tail_name: rank_pair(split.tail[0], split.tail[1]).1,
        swapped,
    }
}

/// An event's data as JSON.
fn data<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("event data serializes to JSON")
}

/// The settlement summary (`HandResult::detail`) with the parts every ending shares; showdowns
/// and escapes fill in their own parts.
fn summary(
    h: &Hand,
    ending: Ending,
    dealer: SeatNo,
    next_dealer: SeatNo,
    net: &[i64],
    points: &[i64],
) -> Summary {
    Summary {
        ending,
        dealer,
        next_dealer,
        put_in: h.seats.iter().map(|s| s.put_in).collect(),
        net: net.to_vec(),
        points: points.to_vec(),
        base_points: h.base_points,
        beats: Vec::new(),
        transfers: Vec::new(),
        hands: Vec::new(),
        draw: ending == Ending::Draw,
        escape: None,
    }
}

impl Play<'_> {
    fn apply_bobo(
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
                    "every player first sets 簸簸 (set_bobo) or sits the hand out (sit_out); \
                     cards are dealt once all have",
                ));
            }
        };
        let min = self.opts.min_bobo;
        let h = &mut *self.h;
        let wallet = h.seats[seat].wallet;
        if amount < min {
            return Err(RuleError::illegal(format!(
                "簸簸 must be at least min_bobo ({min})"
            )));
        }
        if amount > wallet {
            return Err(RuleError::insufficient_coins(format!(
                "簸簸 can be at most what your wallet holds ({wallet})"
            )));
        }
        if amount > MAX_BOBO {
            return Err(RuleError::illegal(format!(
                "簸簸 can be at most {MAX_BOBO}"
            )));
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
    fn bobo_phase_done(&mut self, out: &mut Outcome) -> Option<HandOver> {
        let h = &*self.h;
        if h.seats.iter().filter(|s| s.playing).count() < 2 {
            return Some(self.settle_draw(out));
        }
        if h.seats.iter().all(|s| !s.playing || s.bobo.is_some()) {
            self.post_antes_and_deal(out);
        }
        None
    }

    fn post_antes_and_deal(&mut self, out: &mut Outcome) {
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

    /// Opens betting round `round`, or skips it (dealing on) when fewer than two seats can bet.
    fn begin_round(&mut self, round: u8, out: &mut Outcome) {
        let dealer = self.dealer;
        let h = &mut *self.h;
        h.round = round;
        h.level = 0;
        h.all_checked = true;
        for sh in &mut h.seats {
            sh.round_bet = 0;
            sh.acted = false;
        }
        if h.active_count() >= 2 {
            h.turn = h
                .order_from(dealer + 1)
                .into_iter()
                .find(|&s| h.seats[s].active());
            out.events.push(Event::public(
                "round",
                None,
                data(&events::Round {
                    round,
                    turn: h.turn,
                }),
            ));
        } else {
            h.turn = None;
            self.end_round(out);
        }
    }

    /// After a completed round: the next face-up card and round, or the showdown after round 3.
    fn end_round(&mut self, out: &mut Outcome) {
        let dealer = self.dealer;
        let h = &mut *self.h;
        h.turn = None;
        if h.round >= 3 {
            let seats: Vec<SeatNo> = (0..h.n()).filter(|&s| h.seats[s].in_hand()).collect();
            *self.phase = HandPhase::Showdown;
            out.events.push(Event::public(
                "showdown_begins",
                None,
                data(&events::ShowdownBegins { seats }),
            ));
            return;
        }
        let round = h.round;
        for s in h.dealing_order(dealer) {
            let card = h.deal(s, false);
            out.events.push(Event::public(
                "face_up",
                Some(s),
                data(&events::FaceUp {
                    card,
                    card_no: round + 2,
                }),
            ));
        }
        self.begin_round(round + 1, out);
    }

    fn apply_bet(
        &mut self,
        seat: SeatNo,
        action: Action,
        out: &mut Outcome,
    ) -> Result<Option<HandOver>, RuleError> {
        let ante = self.opts.ante;
        let h = &mut *self.h;
        let o = bet_options(h, seat, ante);
        let left = h.seats[seat].left;
        // Validate completely before touching the state.
        match &action {
            Action::Check {} if !o.check => {
                return Err(RuleError::illegal(
                    "you can check (休) only while nobody has bet this round",
                ));
            }
            Action::Raise { to } => match o.raise {
                Some((min, _)) if *to < min => {
                    return Err(RuleError::illegal(format!(
                        "a raise (大) must make your total for this round at least the level plus the ante ({min})"
                    )));
                }
                Some((_, max)) if *to > max => {
                    return Err(RuleError::insufficient_coins(format!(
                        "your 簸簸 allows a total of at most {max} this round"
                    )));
                }
                Some(_) => {}
                None if !o.answerable => {
                    return Err(RuleError::illegal(
                        "nobody left in the hand can answer a raise",
                    ));
                }
                None => {
                    return Err(RuleError::insufficient_coins(format!(
                        "your 簸簸 cannot cover the smallest raise (to {}): call, all_in (敲) or fold",
                        h.level + ante
                    )));
                }
            },
            Action::Call {} if o.call.is_none() => {
                return Err(if o.to_call <= 0 {
                    RuleError::illegal(
                        "nothing to call: nobody has put in more than you this round",
                    )
                } else {
                    RuleError::insufficient_coins(format!(
                        "calling needs {} but your 簸簸 has {left} left: all_in (敲) instead",
                        o.to_call
                    ))
                });
            }
            Action::AllIn {} if o.all_in.is_none() => {
                return Err(RuleError::illegal("your 簸簸 has nothing left to put in"));
            }
            Action::SetBobo { .. } | Action::SitOut {} | Action::Split { .. } => {
                return Err(RuleError::illegal(
                    "this is a betting round: check, raise, call, all_in or fold",
                ));
            }
            _ => {}
        }
        let level = h.level;
        // (kind, to, amount) of the event.
        let (kind, to, amount) = match action {
            Action::Check {} => ("check", None, None),
            Action::Raise { to } => {
                let amount = to - h.seats[seat].round_bet;
                h.seats[seat].put(amount);
                h.level = to;
                for sh in &mut h.seats {
                    sh.acted = false;
                }
                ("raise", Some(to), Some(amount))
            }
            Action::Call {} => {
                h.seats[seat].put(o.to_call);
                ("call", None, Some(o.to_call))
            }
            Action::AllIn {} => {
                h.seats[seat].put(left);
                let to = h.seats[seat].round_bet;
                if to > level {
                    h.level = to;
                    for sh in &mut h.seats {
                        sh.acted = false;
                    }
                }
                ("all_in", Some(to), Some(left))
            }
            // Only fold is left: set_bobo and split were refused above.
            _ => {
                h.seats[seat].folded = true;
                ("fold", None, None)
            }
        };
        if kind != "check" {
            h.all_checked = false;
        }
        h.seats[seat].acted = true;
        let bet = events::Bet {
            amount,
            left: h.seats[seat].left,
            put_in: h.seats[seat].put_in,
            to,
        };
        out.events.push(Event::public(kind, Some(seat), data(&bet)));

        let still_in: Vec<SeatNo> = (0..h.n()).filter(|&s| h.seats[s].in_hand()).collect();
        if let [winner] = still_in[..] {
            return Ok(Some(self.settle_uncontested(winner, out)));
        }
        if let Some(next) = h
            .order_from(seat + 1)
            .into_iter()
            .find(|&s| h.needs_action(s))
        {
            h.turn = Some(next);
        } else if h.all_checked {
            return Ok(Some(self.settle_draw(out)));
        } else {
            self.end_round(out);
        }
        Ok(None)
    }

    fn apply_split(
        &mut self,
        seat: SeatNo,
        action: Action,
        out: &mut Outcome,
    ) -> Result<Option<HandOver>, RuleError> {
        let Action::Split { head, tail } = action else {
            return Err(RuleError::illegal(
                "the betting is over: split your four cards into a head and a tail",
            ));
        };
        let h = &mut *self.h;
        let mut rest = h.seats[seat].cards();
        if remove_cards(&mut rest, &[head[0], head[1], tail[0], tail[1]]).is_none() {
            return Err(RuleError::illegal(
                "a split must use exactly your four cards, each once",
            ));
        }
        let (split, swapped) = Split::arranged(head, tail);
        h.seats[seat].split = Some(split);
        h.seats[seat].swapped = swapped;
        out.events.push(Event::public(
            "split",
            Some(seat),
            data(&events::Nothing {}),
        ));
        if h.seats.iter().all(|s| !s.in_hand() || s.split.is_some()) {
            return Ok(Some(self.settle_showdown(out)));
        }
        Ok(None)
    }

    fn settle_showdown(&mut self, out: &mut Outcome) -> HandOver {
        let h = &mut *self.h;
        h.ending = Some(Ending::Showdown);
        let mut shown = Vec::new();
        let standing: Vec<Standing> = (0..h.n())
            .map(|s| {
                let sh = &h.seats[s];
                match sh.split {
                    _ if !sh.playing => Standing::Out,
                    _ if sh.folded => Standing::Folded,
                    Some(split) => {
                        let three = sanhua(&sh.cards());
                        shown.push(ShownHand {
                            split: split_view(&split, sh.swapped),
                            sanhua: three,
                            seat: s,
                        });
                        match three {
                            Some(_) => Standing::Sanhua,
                            None => Standing::Shown {
                                head: split.head_rank(),
                                tail: split.tail_rank(),
                            },
                        }
                    }
                    // Every seat still in has split by now.
                    None => Standing::Folded,
                }
            })
            .collect();
        out.events.push(Event::public(
            "showdown",
            None,
            data(&events::Showdown { hands: &shown }),
        ));
        self.finish_with(&standing, Ending::Showdown, shown, out)
    }

    fn settle_uncontested(&mut self, winner: SeatNo, out: &mut Outcome) -> HandOver {
        let h = &mut *self.h;
        h.ending = Some(Ending::Uncontested);
        let standing: Vec<Standing> = (0..h.n())
            .map(|s| match &h.seats[s] {
                sh if !sh.playing => Standing::Out,
                _ if s == winner => Standing::Uncontested,
                _ => Standing::Folded,
            })
            .collect();
        self.finish_with(&standing, Ending::Uncontested, Vec::new(), out)
    }

    /// Pays out a settled hand, scores it and ends it.
    fn finish_with(
        &mut self,
        standing: &[Standing],
        ending: Ending,
        hands: Vec<ShownHand>,
        out: &mut Outcome,
    ) -> HandOver {
        let dealer = self.dealer;
        let ante = self.opts.ante;
        let h = &mut *self.h;
        let put_in: Vec<i64> = h.seats.iter().map(|s| s.put_in).collect();
        let settled = settle(&put_in, standing, dealer);
        let net = settled.net(&put_in);
        let points = settle::points(&net, ante, h.base_points, dealer);
        for (seat, sh) in h.seats.iter().enumerate() {
            let amount = sh.bobo.unwrap_or(0) - sh.withdrawn + net[seat];
            if amount > 0 {
                out.money.push(Money::Payout { seat, amount });
            }
        }
        // 尾大吃皮: the first to collect deals next; with nobody collecting the dealer stays.
        let next_dealer = match ending {
            Ending::Showdown => settled.first_collector.unwrap_or(dealer),
            _ => dealer,
        };
        let mut detail = summary(h, ending, dealer, next_dealer, &net, &points);
        detail.beats = settled
            .beats
            .iter()
            .map(|&(winner, loser)| Beat { winner, loser })
            .collect();
        detail.transfers = settled.transfers;
        detail.hands = hands;
        self.end_hand(next_dealer, points, net, detail, out)
    }

    fn settle_draw(&mut self, out: &mut Outcome) -> HandOver {
        let dealer = self.dealer;
        let h = &mut *self.h;
        h.ending = Some(Ending::Draw);
        let n = h.n();
        for (seat, sh) in h.seats.iter().enumerate() {
            let amount = sh.bobo.unwrap_or(0) - sh.withdrawn;
            if amount > 0 {
                out.money.push(Money::Payout { seat, amount });
            }
        }
        let detail = summary(h, Ending::Draw, dealer, dealer, &vec![0; n], &vec![0; n]);
        self.end_hand(dealer, vec![0; n], vec![0; n], detail, out)
    }

    fn escape(&mut self, e: SeatNo, ctx: Ctx, out: &mut Outcome) -> HandOver {
        let dealer = self.dealer;
        let ante = self.opts.ante;
        let vacated = self.vacated;
        let h = &mut *self.h;
        h.ending = Some(Ending::Escape);
        h.turn = None;
        let n = h.n();
        let table = h.pot();
        let bobo = h.seats[e].bobo.unwrap_or(0);
        let from_bobo = table.min(bobo);
        let from_wallet = (table - from_bobo).min(h.seats[e].wallet - bobo).max(0);
        if from_bobo > 0 {
            out.money.push(Money::Forfeit {
                seat: e,
                amount: from_bobo,
            });
        }
        if from_wallet > 0 {
            out.money.push(Money::Penalty {
                seat: e,
                amount: from_wallet,
            });
        }
        for (seat, sh) in h.seats.iter().enumerate() {
            let amount =
                sh.bobo.unwrap_or(0) - sh.withdrawn - if seat == e { from_bobo } else { 0 };
            if amount > 0 {
                out.money.push(Money::Payout { seat, amount });
            }
        }
        let paid = from_bobo + from_wallet;
        let mut net = vec![0; n];
        net[e] = -paid;
        let mut points = vec![0; n];
        // The rulings count the table total itself, not what the escaper could pay of it.
        points[e] = -settle::loss_points(table, ante, h.base_points);
        let bonus = if ctx.now_ms - h.started_ms >= ESCAPE_BONUS_AFTER_MS {
            h.base_points
        } else {
            0
        };
        for (seat, sh) in h.seats.iter().enumerate() {
            // A folded seat that already left the table is no longer kept waiting by the escape.
            if seat != e && sh.playing && !vacated[seat] {
                points[seat] = bonus;
            }
        }
        let mut detail = summary(h, Ending::Escape, dealer, dealer, &net, &points);
        detail.escape = Some(Escape {
            seat: e,
            table_total: table,
            from_bobo,
            from_wallet,
            bonus_points: bonus,
        });
        self.end_hand(dealer, points, net, detail, out)
    }

    fn end_hand(
        &mut self,
        next_dealer: SeatNo,
        points: Vec<i64>,
        coins: Vec<i64>,
        detail: Summary,
        out: &mut Outcome,
    ) -> HandOver {
        let n = self.h.n();
        self.h.turn = None;
        let detail = data(&detail);
        out.events
            .push(Event::public("settlement", None, detail.clone()));
        out.hand_end = Some(HandResult {
            hand_no: self.hand_no,
            points,
            units: vec![0; n],
            coins,
            detail,
        });
        HandOver { next_dealer }
    }
}

impl Chexuan {
    fn seat_view(state: &State, s: SeatNo, viewer: Option<SeatNo>) -> SeatView {
        let vacated = state.vacated.get(s).copied().unwrap_or(false);
        let Some(h) = state.hand() else {
            return SeatView::NoHand {
                seat: s,
                vacated,
                playing: false,
            };
        };
        let sh = &h.seats[s];
        let own = viewer == Some(s);
        let revealed = h.revealed(s);
        let bobo_public = own || state.phase() != Phase::Bobo;
        SeatView::Hand(Box::new(HandSeat {
            seat: s,
            vacated,
            playing: sh.playing,
            bobo_set: sh.bobo.is_some(),
            bobo: sh.bobo.filter(|_| bobo_public),
            bobo_left: sh.bobo.filter(|_| bobo_public).map(|_| sh.left),
            put_in: sh.put_in,
            round_bet: sh.round_bet,
            folded: sh.folded,
            all_in: sh.all_in,
            face_up: sh.face_up.clone(),
            hidden: (own || revealed).then(|| sorted(&sh.hidden)),
            hidden_count: sh.hidden.len(),
            split_submitted: sh.split.is_some(),
            split: sh
                .split
                .filter(|_| own || revealed)
                .map(|split| split_view(&split, sh.swapped)),
            sanhua: revealed.then(|| sanhua(&sh.cards())).flatten(),
        }))
    }
}

impl Game for Chexuan {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;
    type Legal = Legal;
    type Summary = Summary;

    const NAME: &'static str = "chexuan";
    const SEATS: RangeInclusive<usize> = 2..=6;

    fn check_options(opts: &mut Options, _seats: usize) -> Result<(), RuleError> {
        check_range("ante", opts.ante, 1..=MAX_OPTION)?;
        check_range("min_bobo", opts.min_bobo, opts.ante..=MAX_OPTION)?;
        check_range("score_unit", opts.score_unit, 0..=MAX_OPTION)
    }

    fn deck(_opts: &Options) -> Vec<Card> {
        deck_cards()
    }

    fn new_match(opts: Options, seats: usize) -> State {
        State {
            opts,
            seats,
            hand_no: 0,
            dealer: 0,
            vacated: vec![false; seats],
            table: Table::Waiting,
        }
    }

    fn stage(state: &State) -> Stage {
        match state.table {
            Table::Waiting | Table::Between { .. } => Stage::NeedsDeal,
            Table::Finished => Stage::Finished,
            Table::InHand { .. } => Stage::InHand,
        }
    }

    fn hand_no(state: &State) -> u32 {
        state.hand_no
    }

    fn phase(state: &State) -> &'static str {
        state.phase().name()
    }

    fn to_act(state: &State) -> Vec<SeatNo> {
        let Table::InHand { phase, hand: h } = &state.table else {
            return Vec::new();
        };
        match phase {
            HandPhase::Bobo => (0..h.n())
                .filter(|&s| h.seats[s].playing && h.seats[s].bobo.is_none())
                .collect(),
            HandPhase::Betting => h.turn.into_iter().collect(),
            HandPhase::Showdown => (0..h.n())
                .filter(|&s| h.seats[s].in_hand() && h.seats[s].split.is_none())
                .collect(),
        }
    }

    fn start_hand(state: &mut State, start: HandStart) -> Outcome {
        let n = state.seats;
        let mut out = Outcome::default();
        if Self::stage(state) != Stage::NeedsDeal {
            // Dealing over a hand in play would lose its coins; the service never asks for it.
            return out;
        }
        state.vacated = vec![false; n];
        let wallet = |s: SeatNo| start.wallets.get(s).copied().unwrap_or(0);
        let playing: Vec<bool> = (0..n).map(|s| wallet(s) >= state.opts.min_bobo).collect();
        if playing.iter().filter(|&&p| p).count() < 2 {
            state.table = Table::Finished;
            out.events.push(Event::public(
                "match_over",
                None,
                data(&events::MatchOver {
                    reason: "fewer than two seats hold min_bobo coins",
                    playing,
                }),
            ));
            return out;
        }
        state.hand_no += 1;
        let seats = (0..n)
            .map(|s| SeatHand {
                playing: playing[s],
                wallet: wallet(s),
                ..SeatHand::default()
            })
            .collect();
        let base = base_points(state.opts.score_unit, &start.scores);
        let hand = Hand {
            started_ms: start.ctx.now_ms,
            base_points: base,
            deck: start.deck,
            dealt: 0,
            round: 0,
            level: 0,
            turn: None,
            all_checked: true,
            ending: None,
            seats,
        };
        state.table = Table::InHand {
            phase: HandPhase::Bobo,
            hand,
        };
        out.events.push(Event::public(
            "hand_start",
            None,
            data(&events::HandStart {
                hand_no: state.hand_no,
                dealer: state.dealer,
                playing,
                base_points: base,
            }),
        ));
        out
    }

    fn apply(
        state: &mut State,
        seat: SeatNo,
        action: Action,
        _ctx: Ctx,
    ) -> Result<Outcome, RuleError> {
        if !Self::to_act(state).contains(&seat) {
            let turn = state.hand().and_then(|h| h.turn);
            return Err(RuleError::not_your_turn(match (state.phase(), turn) {
                (Phase::Betting, Some(t)) => format!("it is seat {t}'s turn to speak"),
                _ => format!("seat {seat} has nothing to do now"),
            }));
        }
        let mut out = Outcome::default();
        // A seat has something to do only while a hand is in play.
        let Some(mut play) = state.play() else {
            return Ok(out);
        };
        let over = match *play.phase {
            HandPhase::Bobo => play.apply_bobo(seat, action, &mut out)?,
            HandPhase::Betting => play.apply_bet(seat, action, &mut out)?,
            HandPhase::Showdown => play.apply_split(seat, action, &mut out)?,
        };
        if let Some(over) = over {
            state.close_hand(over);
        }
        Ok(out)
    }

    fn auto_action(state: &State, seat: SeatNo) -> Action {
        match &state.table {
            // An absent player is not staked: its wallet may have been spent meanwhile.
            Table::InHand {
                phase: HandPhase::Bobo,
                ..
            } => Action::SitOut {},
            Table::InHand {
                phase: HandPhase::Showdown,
                hand: h,
            } => match <[Card; 4]>::try_from(h.seats[seat].cards()) {
                Ok(cards) => {
                    let s = server_split(cards);
                    Action::Split {
                        head: s.head,
                        tail: s.tail,
                    }
                }
                Err(_) => Action::Fold {},
            },
            _ => Action::Fold {},
        }
    }

    fn leave(state: &mut State, seat: SeatNo, ctx: Ctx) -> Outcome {
        let mut out = Outcome::default();
        if seat >= state.seats {
            return out;
        }
        let mut escaping = false;
        if let Some(mut play) = state.play() {
            let sh = &mut play.h.seats[seat];
            if sh.playing && !sh.folded {
                escaping = true;
                let over = play.escape(seat, ctx, &mut out);
                state.close_hand(over);
            } else if sh.playing {
                // A folded seat is out of the hand: what it put in stays in the settlement as a
                // folded stake, the rest of its bobo goes home with it and the others play on.
                let amount = sh.left;
                sh.withdrawn += amount;
                sh.left = 0;
                if amount > 0 {
                    out.money.push(Money::Payout { seat, amount });
                }
            }
        }
        state.vacated[seat] = true;
        out.events.insert(
            0,
            Event::public("left", Some(seat), data(&events::Left { escape: escaping })),
        );
        out
    }

    fn view(state: &State, viewer: Option<SeatNo>) -> View {
        let h = state.hand();
        let betting = state.phase() == Phase::Betting;
        View {
            hand_no: state.hand_no,
            dealer: state.dealer,
            phase: state.phase(),
            ante: state.opts.ante,
            min_bobo: state.opts.min_bobo,
            round: h.filter(|_| betting).map(|h| h.round),
            level: h.filter(|_| betting).map(|h| h.level),
            turn: h.and_then(|h| h.turn),
            base_points: h.map(|h| h.base_points),
            pot: h.map(|h| h.pot()),
            ending: h.and_then(|h| h.ending),
            seats: (0..state.seats)
                .map(|s| Self::seat_view(state, s, viewer))
                .collect(),
        }
    }

    fn legal_actions(state: &State, seat: SeatNo) -> Vec<Legal> {
        let Table::InHand { phase, hand: h } = &state.table else {
            return Vec::new();
        };
        if !Self::to_act(state).contains(&seat) {
            return Vec::new();
        }
        match phase {
            HandPhase::Bobo => vec![
                Legal::SetBobo {
                    min: state.opts.min_bobo,
                    max: h.seats[seat].wallet.min(MAX_BOBO),
                },
                Legal::SitOut,
            ],
            HandPhase::Betting => {
                let o = bet_options(h, seat, state.opts.ante);
                let mut v = Vec::new();
                if o.check {
                    v.push(Legal::Check);
                }
                if let Some(amount) = o.call {
                    v.push(Legal::Call { amount });
                }
                if let Some((min, max)) = o.raise {
                    v.push(Legal::Raise { min, max });
                }
                if let Some(amount) = o.all_in {
                    v.push(Legal::AllIn { amount });
                }
                v.push(Legal::Fold);
                v
            }
            HandPhase::Showdown => vec![Legal::Split],
        }
    }
}
