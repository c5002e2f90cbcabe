//! 衡阳三打哈 (sandaha): four seats, three defenders against the banker who bid lowest, two
//! decks without 3s and 4s, fixed trumps 7 and 2.
//!
//! The rules as run here, with every choice the rulings leave open, are in
//! `docs/rules/sandaha.md`. The card order, following with structure and the trick winner are
//! the shared `trick` module's; `follow` adds sandaha's 甩牌 and automatic lead, `bidding` runs
//! 定庄, `scoring` the result table, `view` the client types.
//!
//! The match is an enum of phases (`Table`): code that needs the hand gets it from the variant
//! that holds one. It is stored as the fields it always had (`Stored`).

mod act;
mod bidding;
#[cfg(test)]
mod bidding_tests;
mod bot;
mod deal;
mod follow;
mod play;
#[cfg(test)]
mod result_tests;
#[cfg(test)]
mod rule_tests;
mod rules;
mod scoring;
#[cfg(test)]
mod stored_tests;
#[cfg(test)]
mod tests;
mod view;

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cards::{Card, Suit, standard_deck};
use crate::engine::{
    Ctx, Event, Game, HandStart, Outcome, RuleError, SeatNo, Shared, Stage, codes_of, data,
    with_shared_codes,
};
use crate::progress::Progress;
use crate::trick::{self, Order};

pub use bidding::{Bidding, Call, LIMITED_FLOOR, LOWEST_BID, OPENING_BID, base_score};
pub use follow::{RANKS, Shape, order};
pub use rules::Rule;
pub use scoring::Verdict;
use view::events;
pub use view::{BottomCapture, Legal, Summary, Trick, TrickPlay, View};

pub struct Sandaha;

pub const SEATS: usize = 4;
/// Cards in the bottom (底牌), and cards the banker buries.
pub const BOTTOM: usize = 8;
/// An escape from a hand that lasted this long also gives each other seat 1 point.
const ESCAPE_BONUS_AFTER_MS: i64 = 30_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// 限级 (the default): bids go down to 5, but a bid under 70 counts as 70 for the base score
    /// (at most 5); the defenders' target stays the bid called. `false`: 不限级, every level
    /// counts (60 → 7).
    #[serde(default = "limited")]
    pub limit: bool,
}

fn limited() -> bool {
    true
}

impl Default for Options {
    fn default() -> Self {
        Options { limit: limited() }
    }
}

impl Options {
    /// The lowest bid whose level counts: 70 限级, 5 不限级.
    pub fn level_floor(&self) -> u32 {
        if self.limit {
            LIMITED_FLOOR
        } else {
            LOWEST_BID
        }
    }

    /// The base score (基础分) of `bid`: 限级 counts a bid under 70 as 70 (叫分60 → 基础分 5).
    pub fn base_score(&self, bid: u32) -> i64 {
        base_score(bid.max(self.level_floor()))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    Bid {
        value: u32,
    },
    // Struct variants so that `deny_unknown_fields` refuses stray fields here too.
    Pass {},
    /// A trump suit, or null for only the fixed trumps.
    Trump {
        suit: Option<Suit>,
    },
    Bury {
        cards: Vec<Card>,
    },
    Surrender {},
    PlayOn {},
    Play {
        cards: Vec<Card>,
    },
}

/// Stored as `Stored`, the fields it has always had, so that stored matches and hands load and
/// save byte for byte as before.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Stored", into = "Stored")]
pub struct State {
    opts: Options,
    hand_no: u32,
    /// Who bids first in the next deal.
    next_first: SeatNo,
    table: Table,
}

/// Where the match stands ([`Progress`]: the hand in play, the last hand's summary).
type Table = Progress<HandState, Summary>;

/// The state as it is stored (`matches.state`, `hands.start_state`): these fields, in this
/// order, are the JSON of every stored sandaha match.
#[derive(Serialize, Deserialize)]
struct Stored {
    opts: Options,
    hand_no: u32,
    /// Set by an escape: the match is over.
    finished: bool,
    next_first: SeatNo,
    hand: Option<Box<HandState>>,
    #[serde(default, deserialize_with = "readable_summary")]
    last_result: Option<Summary>,
}

impl TryFrom<Stored> for State {
    type Error = &'static str;

    fn try_from(s: Stored) -> Result<State, Self::Error> {
        let table = Table::from_stored(s.finished.then_some(()), s.hand, s.last_result)?;
        Ok(State {
            opts: s.opts,
            hand_no: s.hand_no,
            next_first: s.next_first,
            table,
        })
    }
}

impl From<State> for Stored {
    fn from(s: State) -> Stored {
        let (ended, hand, last_result) = s.table.into_stored();
        Stored {
            opts: s.opts,
            hand_no: s.hand_no,
            finished: ended.is_some(),
            next_first: s.next_first,
            hand,
            last_result,
        }
    }
}

/// A stored `last_result` of a kind no hand ends with any more (`{"end":"redeal"}`, from before
/// an all-pass redeal stayed inside its hand) reads as none, so that such a match still loads.
fn readable_summary<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Summary>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    Ok(serde_json::from_value(v).ok())
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct HandState {
    started_ms: i64,
    first_bidder: SeatNo,
    /// The deal of this hand: 1, and one more each time all four passed.
    #[serde(default = "first_deal")]
    deal: u32,
    /// Each seat's cards, strongest first.
    hands: [Vec<Card>; SEATS],
    /// The dealt bottom until the banker takes it, then (after burying) the buried cards.
    bottom: Vec<Card>,
    bids: Vec<Call>,
    phase: Phase,
    /// A digest of the deck as dealt (card by card, in dealing order), which no seat can work
    /// out from what it holds: a redeal's shuffle is seeded with it (`deal::redeal_deck`), so
    /// three seats together cannot predict the fourth's new hand. Never in a view.
    #[serde(default)]
    dealt_digest: [u8; 32],
}

fn first_deal() -> u32 {
    1
}

/// The banker and its bid.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Contract {
    banker: SeatNo,
    bid: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
enum Phase {
    Bidding(Bidding),
    /// The banker has taken the bottom and names the trump.
    Trump {
        contract: Contract,
    },
    Bury {
        contract: Contract,
        trump: Option<Suit>,
    },
    /// Surrender or play on.
    Decide {
        contract: Contract,
        trump: Option<Suit>,
    },
    Tricks {
        contract: Contract,
        trump: Option<Suit>,
        play: Tricks,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Tricks {
    turn: SeatNo,
    current: Trick,
    done: Vec<Trick>,
    /// The defenders' points (上分, and 扣底 at the end).
    points: u32,
    /// Seats that played a non-trump to a trump lead (报副).
    void_in_trumps: [bool; SEATS],
}

impl Phase {
    fn contract(&self) -> Option<Contract> {
        match self {
            Phase::Bidding(_) => None,
            Phase::Trump { contract }
            | Phase::Bury { contract, .. }
            | Phase::Decide { contract, .. }
            | Phase::Tricks { contract, .. } => Some(*contract),
        }
    }

    /// The trump suit once named (`Some(None)`: no trump suit).
    fn trump(&self) -> Option<Option<Suit>> {
        match self {
            Phase::Bidding(_) | Phase::Trump { .. } => None,
            Phase::Bury { trump, .. }
            | Phase::Decide { trump, .. }
            | Phase::Tricks { trump, .. } => Some(*trump),
        }
    }

    fn turn(&self) -> SeatNo {
        match self {
            Phase::Bidding(b) => b.turn,
            Phase::Trump { contract }
            | Phase::Bury { contract, .. }
            | Phase::Decide { contract, .. } => contract.banker,
            Phase::Tricks { play, .. } => play.turn,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Phase::Bidding(_) => "bidding",
            Phase::Trump { .. } => "trump",
            Phase::Bury { .. } => "bury",
            Phase::Decide { .. } => "decide",
            Phase::Tricks { .. } => "play",
        }
    }
}

fn next_seat(seat: SeatNo) -> SeatNo {
    (seat + 1) % SEATS
}

impl State {
    /// Ends the hand with `summary`, on show between hands.
    fn end_hand(&mut self, summary: Summary, points: [i64; SEATS], units: [i64; SEATS]) -> Outcome {
        let mut out = Outcome::default();
        out.end_hand_with_points(self.hand_no, points.to_vec(), units.to_vec(), &summary);
        self.table = Table::Between { last: summary };
        out
    }
}

/// Refuses cards the seat lacks without naming any of them in the sentences (`cards` holds
/// those sent but not held).
fn not_held(hand: &[Card], cards: &[Card]) -> RuleError {
    RuleError::not_in_hand("you do not hold all of these cards", hand, cards)
}

/// Refuses an action between hands.
fn no_hand() -> RuleError {
    RuleError::not_your_turn(
        Shared::NoHandInPlay,
        "no hand is being played",
        "现在没有正在进行的牌局",
    )
}

/// Applies a bidding call and what follows from it.
fn after_bidding(state: &mut State, after: bidding::After, out: &mut Outcome) -> Option<Outcome> {
    let h = state.table.hand_mut()?;
    match after {
        bidding::After::Continues => None,
        bidding::After::AllPassed => {
            deal::redeal(h, out);
            None
        }
        bidding::After::Banker { seat, bid } => {
            let bottom = std::mem::take(&mut h.bottom);
            h.hands[seat].extend(bottom.iter().copied());
            order(None).sort_strongest_first(&mut h.hands[seat]);
            out.events.push(Event::public(
                "banker",
                Some(seat),
                data(&events::Banker {
                    bid,
                    base_score: state.opts.base_score(bid),
                    bottom_taken: bottom.len(),
                }),
            ));
            out.events.push(Event::private(
                "bottom",
                seat,
                data(&events::Cards { cards: &bottom }),
            ));
            h.phase = Phase::Trump {
                contract: Contract { banker: seat, bid },
            };
            None
        }
    }
}

impl Tricks {
    /// The trick phase as it opens: the banker leads, no trick played, no point taken.
    fn open(banker: SeatNo) -> Tricks {
        Tricks {
            turn: banker,
            current: Trick::new(banker),
            done: Vec::new(),
            points: 0,
            void_in_trumps: [false; SEATS],
        }
    }

    /// 甩牌 is open to `seat` when it is the banker and every defender has shown void in trumps.
    fn may_throw(&self, seat: SeatNo, banker: SeatNo) -> bool {
        seat == banker && (0..SEATS).all(|s| s == banker || self.void_in_trumps[s])
    }
}

/// The suit the banker holds most of (fixed trumps not counted), S H D C on ties.
fn most_held_suit(hand: &[Card]) -> Option<Suit> {
    let count = |s: Suit| {
        hand.iter()
            .filter(|&&c| c.suit() == Some(s) && !matches!(c.rank(), Some(7 | 2)))
            .count()
    };
    let mut best: Option<(Suit, usize)> = None;
    for s in Suit::ALL {
        let n = count(s);
        if n > 0 && best.is_none_or(|(_, b)| n > b) {
            best = Some((s, n));
        }
    }
    best.map(|(s, _)| s)
}

/// The 8 lowest non-point cards, lowest first (point cards only when there are not enough).
fn lowest_to_bury(order: &Order, hand: &[Card]) -> Vec<Card> {
    let mut v = hand.to_vec();
    v.sort_by_key(|&c| {
        (
            trick::card_points(c) > 0,
            order.is_trump(c),
            order.pos(c),
            order.key(c),
        )
    });
    v.truncate(BOTTOM);
    v
}

impl Game for Sandaha {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;
    type Legal = Legal;
    type Summary = Summary;

    const NAME: &'static str = "sandaha";
    const TITLE: &'static str = "衡阳三打哈";
    const SEATS: RangeInclusive<usize> = 4..=4;
    const COIN_ROOMS: bool = true;

    fn rule_codes() -> Vec<&'static str> {
        with_shared_codes(codes_of::<Rule>().chain(codes_of::<trick::Rule>()))
    }

    fn deck(_opts: &Options) -> Vec<Card> {
        let one: Vec<Card> = standard_deck(true)
            .into_iter()
            .filter(|c| !matches!(c.rank(), Some(3 | 4)))
            .collect();
        [one.clone(), one].concat()
    }

    fn new_match(opts: Options, _seats: usize) -> State {
        State {
            opts,
            hand_no: 0,
            next_first: 0,
            table: Table::Waiting,
        }
    }

    fn stage(state: &State) -> Stage {
        state.table.stage()
    }

    fn hand_no(state: &State) -> u32 {
        state.hand_no
    }

    fn phase(state: &State) -> &'static str {
        match &state.table {
            Table::Finished { .. } => "finished",
            Table::Waiting | Table::Between { .. } => "waiting",
            Table::InHand { hand, .. } => hand.phase.name(),
        }
    }

    fn to_act(state: &State) -> Vec<SeatNo> {
        state.table.hand().iter().map(|h| h.phase.turn()).collect()
    }

    /// **Choice:** burying gets twice the turn: it is the hand's biggest decision.
    fn wait_secs(state: &State, turn_secs: u32) -> u32 {
        match state.table.hand().map(|h| &h.phase) {
            Some(Phase::Bury { .. }) => turn_secs.saturating_mul(2),
            _ => turn_secs,
        }
    }

    fn start_hand(state: &mut State, start: HandStart) -> Outcome {
        let mut out = Outcome::default();
        // The service deals only between hands.
        let Some(last) = state.table.take_for_deal() else {
            return out;
        };
        state.hand_no += 1;
        let (hands, bottom) = deal::deal(&start.deck, &mut out);
        let dealt_digest = deal::digest(&start.deck);
        let first = state.next_first;
        out.events.push(Event::public(
            "hand_started",
            None,
            data(&events::HandStarted {
                hand_no: state.hand_no,
                first_bidder: first,
                bottom_count: bottom.len(),
            }),
        ));
        let hand = Box::new(HandState {
            started_ms: start.ctx.now_ms,
            first_bidder: first,
            deal: first_deal(),
            hands,
            bottom,
            bids: Vec::new(),
            phase: Phase::Bidding(Bidding::new(first)),
            dealt_digest,
        });
        state.table = Table::InHand { hand, last };
        out
    }

    fn apply(
        state: &mut State,
        seat: SeatNo,
        action: Action,
        _ctx: Ctx,
    ) -> Result<Outcome, RuleError> {
        act::apply(state, seat, action)
    }

    fn auto_action(state: &State, seat: SeatNo) -> Action {
        let Some(h) = state.table.hand() else {
            return Action::Pass {};
        };
        match &h.phase {
            Phase::Bidding(b) if b.standing.is_none() && seat == b.first => {
                Action::Bid { value: OPENING_BID }
            }
            Phase::Bidding(_) => Action::Pass {},
            Phase::Trump { .. } => Action::Trump {
                suit: most_held_suit(&h.hands[seat]),
            },
            Phase::Bury { trump, .. } => Action::Bury {
                cards: lowest_to_bury(&order(*trump), &h.hands[seat]),
            },
            Phase::Decide { .. } => Action::PlayOn {},
            Phase::Tricks { trump, play, .. } => Action::Play {
                cards: match play.current.plays.first() {
                    None => follow::auto_lead(&order(*trump), &h.hands[seat]),
                    Some(lead) => trick::best_follow(&order(*trump), &h.hands[seat], &lead.cards),
                },
            },
        }
    }

    /// The bot: bids by counting trumps and aces, buries cards without points, leads sure
    /// winners, feeds a winning partner points and otherwise plays cheap (`bot`, `trick::bot`).
    fn bot_action(state: &State, seat: SeatNo) -> Action {
        bot::bot_action(state, seat)
    }

    fn leave(state: &mut State, seat: SeatNo, ctx: Ctx, _wallet: i64) -> Outcome {
        if seat >= SEATS {
            return Outcome::default();
        }
        let h = match &state.table {
            Table::Finished { .. } => return Outcome::default(),
            Table::InHand { hand, .. } => hand,
            Table::Waiting | Table::Between { .. } => {
                // Between hands nobody is playing: no penalty, the seat waits for a new player.
                let mut out = Outcome::default();
                out.events
                    .push(Event::public("left", Some(seat), data(&events::Nothing {})));
                return out;
            }
        };
        let banker = h.phase.contract().map(|c| c.banker);
        let bid = match &h.phase {
            Phase::Bidding(b) => b.standing.map_or(OPENING_BID, |(_, bid)| bid),
            phase => phase.contract().map_or(OPENING_BID, |c| c.bid),
        };
        let lasted_ms = ctx.now_ms.saturating_sub(h.started_ms);
        let bonus = lasted_ms >= ESCAPE_BONUS_AFTER_MS;
        let units = scoring::escape(seat, banker, state.opts.base_score(bid));
        let points: [i64; SEATS] =
            std::array::from_fn(|s| units[s] + i64::from(bonus && s != seat));
        let mut out = Outcome::default();
        out.events.push(Event::public(
            "escape",
            Some(seat),
            data(&events::Escape { lasted_ms, bonus }),
        ));
        let summary = Summary::Escape {
            hand_no: state.hand_no,
            seat,
            banker,
            bid,
            lasted_ms,
            bonus,
            points: points.to_vec(),
        };
        out.end_hand_with_points(state.hand_no, points.to_vec(), units.to_vec(), &summary);
        state.table = Table::Finished {
            last: summary,
            winner: (),
        };
        out
    }

    fn view(state: &State, viewer: Option<SeatNo>) -> View {
        let h = state.table.hand();
        let phase = h.map(|h| &h.phase);
        let contract = phase.and_then(Phase::contract);
        let trump = phase.and_then(Phase::trump);
        let tricks = match phase {
            Some(Phase::Tricks { play, .. }) => Some(play),
            _ => None,
        };
        let bidding = match phase {
            Some(Phase::Bidding(b)) => Some(b),
            _ => None,
        };
        let mine = viewer.filter(|&s| s < SEATS);
        View {
            hand_no: state.hand_no,
            limit: state.opts.limit,
            lowest_bid: LOWEST_BID,
            phase: Self::phase(state).to_string(),
            turn: h.map(|h| h.phase.turn()),
            deal: h.map_or(0, |h| h.deal),
            first_bidder: h.map_or(state.next_first, |h| h.first_bidder),
            bids: h.map(|h| h.bids.clone()).unwrap_or_default(),
            standing_bid: bidding.and_then(|b| b.standing.map(|(_, bid)| bid)),
            banker: contract.map(|c| c.banker),
            bid: contract.map(|c| c.bid),
            base_score: contract.map(|c| state.opts.base_score(c.bid)),
            trump_chosen: trump.is_some(),
            trump: trump.flatten(),
            hand: mine.and_then(|s| h.map(|h| h.hands[s].clone())),
            buried: match (h, contract) {
                (Some(h), Some(c))
                    if mine == Some(c.banker)
                        && matches!(h.phase, Phase::Decide { .. } | Phase::Tricks { .. }) =>
                {
                    Some(h.bottom.clone())
                }
                _ => None,
            },
            card_counts: (0..SEATS)
                .map(|s| h.map_or(0, |h| h.hands[s].len()))
                .collect(),
            bottom_count: h.map_or(0, |h| h.bottom.len()),
            defenders_points: tricks.map_or(0, |t| t.points),
            void_in_trumps: (0..SEATS)
                .map(|s| tricks.is_some_and(|t| t.void_in_trumps[s]))
                .collect(),
            trick: tricks.map(|t| t.current.clone()),
            tricks: tricks.map(|t| t.done.clone()).unwrap_or_default(),
            last_result: state.table.last().cloned(),
        }
    }

    fn legal_actions(state: &State, seat: SeatNo) -> Vec<Legal> {
        let Some(h) = state.table.hand().filter(|h| h.phase.turn() == seat) else {
            return Vec::new();
        };
        match &h.phase {
            Phase::Bidding(b) => vec![
                Legal::Bid {
                    value: b.next_bid(),
                },
                Legal::Pass {},
            ],
            Phase::Trump { .. } => vec![Legal::Trump {
                suits: Suit::ALL.iter().copied().map(Some).chain([None]).collect(),
            }],
            Phase::Bury { .. } => vec![Legal::Bury { count: BOTTOM }],
            Phase::Decide { .. } => vec![Legal::Surrender {}, Legal::PlayOn {}],
            Phase::Tricks {
                contract,
                trump,
                play,
            } => vec![match play.current.shape {
                Some(shape) => Legal::Play {
                    lead: false,
                    count: Some(shape.cards()),
                    shapes: vec![shape],
                },
                None => Legal::Play {
                    lead: true,
                    count: None,
                    shapes: follow::lead_shapes(
                        &order(*trump),
                        &h.hands[seat],
                        play.may_throw(seat, contract.banker),
                    ),
                },
            }],
        }
    }

    fn event_schemas() -> BTreeMap<&'static str, Value> {
        events::schemas()
    }
}
