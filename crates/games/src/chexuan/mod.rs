//! 扯旋 (chexuan): the Sichuan 32-card game of 簸簸, three betting rounds and a head/tail split,
//! settled by 尾大吃皮. `docs/rules/chexuan.md` is the rules page this module implements.
//!
//! Coins are the players' own wallets: a seat's 簸簸 is staked into the match escrow when it is
//! set and whatever the seat ends the hand with is paid back when the hand ends, so the escrow
//! is empty between hands.
//!
//! The match is an enum of phases (`Table`): code that needs the hand gets it from the variant
//! that holds one, as a `Play`. `deal` runs 簸簸 and the deal, `betting` the three betting rounds,
//! `ending` the end of a hand (showdown, uncontested, draw, escape) on top of `settle`'s
//! arithmetic, and `view` decides what each seat may see.

mod betting;
mod bot;
mod deal;
mod ending;
#[cfg(test)]
mod golden_tests;
mod ranking;
#[cfg(test)]
mod review_tests;
#[cfg(test)]
mod rule_tests;
mod rules;
mod settle;
#[cfg(test)]
mod tests;
mod view;

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cards::Card;
use crate::engine::{
    Ctx, Event, Game, HandStart, Money, Outcome, RuleError, SeatNo, Shared, Stage, check_range,
    codes_of, data, with_shared_codes,
};
use betting::bet_options;
pub use deal::deck_for_hands;
use ranking::{Split, deck_cards, server_split, sorted};
pub use rules::Rule;
use settle::base_points;
pub use view::{Beat, Escape, HandSeat, Legal, SeatView, ShownHand, SplitView, Summary, View};
use view::{events, seat_view};

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

impl Game for Chexuan {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;
    type Legal = Legal;
    type Summary = Summary;

    const NAME: &'static str = "chexuan";
    const TITLE: &'static str = "扯旋";
    const SEATS: RangeInclusive<usize> = 2..=6;
    const ESCAPE_TAKES_WALLET: bool = true;
    const DEAL_READS_PURSE: bool = true;

    fn check_options(opts: &mut Options, _seats: usize) -> Result<(), RuleError> {
        check_range("ante", opts.ante, 1..=MAX_OPTION)?;
        check_range("min_bobo", opts.min_bobo, opts.ante..=MAX_OPTION)?;
        check_range("score_unit", opts.score_unit, 0..=MAX_OPTION)
    }

    fn rule_codes() -> Vec<&'static str> {
        with_shared_codes(codes_of::<Rule>())
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
            return Err(match (state.phase(), turn) {
                (Phase::Betting, Some(t)) => RuleError::not_your_turn(
                    Shared::NotYourTurn,
                    format!("it is seat {t}'s turn to speak"),
                    format!("现在轮到 {t} 号座位发话"),
                ),
                (Phase::Bobo | Phase::Betting | Phase::Showdown, _) => RuleError::not_your_turn(
                    Shared::NotYourTurn,
                    format!("seat {seat} has nothing to do now"),
                    format!("{seat} 号座位现在没有要做的"),
                ),
                (Phase::Waiting | Phase::Settled | Phase::Finished, _) => RuleError::not_your_turn(
                    Shared::NoHandInPlay,
                    format!("seat {seat} has nothing to do now"),
                    format!("现在没有正在进行的牌局，{seat} 号座位没有要做的"),
                ),
            });
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

    /// The bot: a 簸簸 it can afford, bets by the strength of its own cards, the best split
    /// (`bot`).
    fn bot_action(state: &State, seat: SeatNo) -> Action {
        bot::bot_action(state, seat)
    }

    fn leave(state: &mut State, seat: SeatNo, ctx: Ctx, wallet: i64) -> Outcome {
        let mut out = Outcome::default();
        if seat >= state.seats {
            return out;
        }
        let mut escaping = false;
        if let Some(mut play) = state.play() {
            let sh = &mut play.h.seats[seat];
            if sh.playing && !sh.folded {
                escaping = true;
                let over = play.escape(seat, ctx, wallet, &mut out);
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
                .map(|s| seat_view(state, s, viewer))
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

    fn event_schemas() -> BTreeMap<&'static str, Value> {
        events::schemas()
    }
}
