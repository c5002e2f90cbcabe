//! 四副牌升级 (shengji, four-deck tractor): four players in two teams, 216 cards, no kitty,
//! trumps declared in the dark (暗叫), levels 2 → A.
//!
//! The rules as run here, with every choice the rulings leave open, are in
//! `docs/rules/shengji.md`. `declare` runs the declaration phase, `levels` the level table and
//! a hand's settlement, `view` what each seat may see, `events` the data of the events; the
//! card order and following with structure are the shared `trick` module's.
//!
//! The match is an enum of phases (`Table`): code that needs the hand gets it from the variant
//! that holds one. It is stored as the fields it always had (`Stored`).

mod bot;
#[cfg(test)]
mod deck_tests;
mod declare;
mod events;
mod levels;
#[cfg(test)]
mod rule_tests;
mod rules;
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

use crate::cards::{Card, Suit, remove_cards, standard_deck};
use crate::engine::{
    Ctx, Event, Game, HandStart, Outcome, RuleError, SeatNo, Shared, Stage, codes_of, data,
    with_shared_codes,
};
use crate::progress::Progress;
use crate::trick::{self, Order, Ranks};

pub use levels::{STEP, Summary, level_change, next_dealer, team};
pub use rules::Rule;
pub use view::{DeclareOption, Legal, Shape, TrickView, View};

pub struct Shengji;

/// The fixed trump rank is 2 in every hand; no rank leaves the deck; followers keep tractors
/// before groups (the seed's eight-card table).
pub const RANKS: Ranks = Ranks {
    fixed: &[2],
    removed: &[],
    tractors_first: true,
};
const SEATS: usize = 4;
const DECKS: usize = 4;
/// Levels start at 2; a team that would pass A (14) wins the match.
const START_LEVEL: u8 = 2;
/// An escape from a hand that lasted this long also gives the others 1 point each.
const ESCAPE_BONUS_AFTER_MS: i64 = 30_000;
/// What a leaver pays each other player.
const ESCAPE_PAYS: i64 = 3;

/// Nothing to choose: the rulings fix the whole game.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Show k identical 2s of one suit (k = 1..4) to declare that suit trump.
    Declare {
        cards: Vec<Card>,
    },
    // A struct variant so that `deny_unknown_fields` also refuses `{"type":"pass","cards":[…]}`.
    Pass {},
    Play {
        cards: Vec<Card>,
    },
}

/// Stored as `Stored`, the fields it has always had, so that stored matches and hands load and
/// save byte for byte as before.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "Stored", into = "Stored")]
pub struct State {
    hand_no: u32,
    /// Each team's level, 2..=14 (A); team 0 is seats 0 and 2.
    levels: [u8; 2],
    /// The dealer of the coming hand, once a hand has been played.
    next_dealer: Option<SeatNo>,
    /// The dealer of the last hand: the seat after it declares first.
    last_dealer: Option<SeatNo>,
    table: Table,
}

/// Where the match stands ([`Progress`]: the hand in play, the last hand's summary, the winning team once over).
type Table = Progress<HandState, Summary, usize>;

/// The state as it is stored (`matches.state`, `hands.start_state`): these fields, in this
/// order, are the JSON of every stored shengji match.
#[derive(Serialize, Deserialize)]
struct Stored {
    hand_no: u32,
    levels: [u8; 2],
    next_dealer: Option<SeatNo>,
    last_dealer: Option<SeatNo>,
    /// Set when the match is over (a team passed A, or someone left).
    finished: bool,
    /// The team that won the match.
    winner: Option<usize>,
    hand: Option<Box<HandState>>,
    last_result: Option<Summary>,
}

impl TryFrom<Stored> for State {
    type Error = &'static str;

    fn try_from(s: Stored) -> Result<State, Self::Error> {
        let ended = match (s.finished, s.winner) {
            (false, None) => None,
            (true, Some(winner)) => Some(winner),
            (false, Some(_)) => return Err("a shengji match under way has no winner"),
            (true, None) => return Err("a finished shengji match has a winner"),
        };
        let table = Table::from_stored(ended, s.hand, s.last_result)?;
        Ok(State {
            hand_no: s.hand_no,
            levels: s.levels,
            next_dealer: s.next_dealer,
            last_dealer: s.last_dealer,
            table,
        })
    }
}

impl From<State> for Stored {
    fn from(s: State) -> Stored {
        let (winner, hand, last_result) = s.table.into_stored();
        Stored {
            hand_no: s.hand_no,
            levels: s.levels,
            next_dealer: s.next_dealer,
            last_dealer: s.last_dealer,
            finished: winner.is_some(),
            winner,
            hand,
            last_result,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct HandState {
    started_ms: i64,
    hands: [Vec<Card>; SEATS],
    phase: Phase,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
enum Phase {
    Declaring(declare::Declaring),
    Playing(Playing),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Playing {
    trump: Suit,
    declaration: Option<Declaration>,
    dealer: SeatNo,
    turn: SeatNo,
    /// The current trick: seats and cards in playing order, the leader first.
    trick: Vec<Played>,
    tricks: Vec<TrickView>,
    defenders_points: u32,
}

/// The standing declaration: who showed how many 2s of which suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Declaration {
    /// The declarer.
    pub seat: SeatNo,
    /// The suit declared trump.
    pub suit: Suit,
    /// How many identical 2s of the suit it showed (1 to 4).
    pub count: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Played {
    pub seat: SeatNo,
    pub cards: Vec<Card>,
}

impl Playing {
    fn order(&self) -> Order {
        Order::new(RANKS, Some(self.trump))
    }
}

impl HandState {
    fn order(&self) -> Order {
        match &self.phase {
            Phase::Playing(p) => p.order(),
            // No trump is known while declaring: 2s sort together.
            Phase::Declaring(_) => Order::new(RANKS, None),
        }
    }
}

/// Refuses an action between hands.
fn no_hand() -> RuleError {
    RuleError::illegal(
        Shared::NoHandInPlay,
        "no hand is being played",
        "现在没有正在进行的牌局",
    )
}

impl State {
    /// Plays `cards` for `seat` in the playing phase.
    fn play(&mut self, seat: SeatNo, cards: Vec<Card>, out: &mut Outcome) -> Result<(), RuleError> {
        let Some(h) = self.table.hand_mut() else {
            return Err(no_hand());
        };
        let Phase::Playing(p) = &mut h.phase else {
            return Err(RuleError::illegal(
                Rule::ActionNotInPhase,
                "trumps are still being declared: declare or pass",
                "还在叫主：请叫主或不叫",
            ));
        };
        let order = p.order();
        let hand = &h.hands[seat];
        match p.trick.first() {
            None => {
                trick::check_lead(&order, hand, &cards).map_err(|e| e.refusal(hand, &cards))?;
            }
            Some(lead) => {
                trick::is_legal_follow(&order, hand, &lead.cards, &cards)
                    .map_err(|e| e.refusal(&order, hand, &lead.cards, &cards))?;
            }
        }
        remove_cards(&mut h.hands[seat], &cards).expect("checked above");
        out.events.push(Event::public(
            "play",
            Some(seat),
            data(&events::Cards { cards: &cards }),
        ));
        p.trick.push(Played { seat, cards });
        if p.trick.len() < SEATS {
            p.turn = (seat + 1) % SEATS;
            return Ok(());
        }
        let plays: Vec<Vec<Card>> = p.trick.iter().map(|x| x.cards.clone()).collect();
        let winner = p.trick[trick::trick_winner(&order, &plays)].seat;
        let points: u32 = plays.iter().map(|c| trick::points(c)).sum();
        if team(winner) != team(p.dealer) {
            p.defenders_points += points;
        }
        out.events.push(Event::public(
            "trick",
            Some(winner),
            data(&events::TrickWon {
                winner,
                points,
                defenders_points: p.defenders_points,
            }),
        ));
        p.tricks.push(TrickView {
            plays: std::mem::take(&mut p.trick),
            winner,
            points,
        });
        p.turn = winner;
        if h.hands.iter().all(|x| x.is_empty()) {
            self.finish_hand(out);
        }
        Ok(())
    }

    /// Scores a hand played out: levels, next dealer, match end.
    fn finish_hand(&mut self, out: &mut Outcome) {
        let Some(HandState {
            phase: Phase::Playing(p),
            ..
        }) = self.table.hand()
        else {
            return;
        };
        let (dealers_won, gain) = level_change(p.defenders_points);
        let gaining_team = if dealers_won {
            team(p.dealer)
        } else {
            1 - team(p.dealer)
        };
        let levels_before = self.levels;
        let mut match_winner = None;
        match levels::raise(self.levels[gaining_team], gain) {
            Some(l) => self.levels[gaining_team] = l,
            None => match_winner = Some(gaining_team),
        }
        let points = levels::hand_points(gaining_team, gain);
        let dealer = next_dealer(p.dealer, dealers_won);
        self.last_dealer = Some(p.dealer);
        self.next_dealer = Some(dealer);
        let summary = Summary::Played {
            hand_no: self.hand_no,
            dealer: p.dealer,
            trump: p.trump,
            declaration: p.declaration,
            defenders_points: p.defenders_points,
            gaining_team,
            levels_gained: gain,
            levels_before,
            levels_after: self.levels,
            next_dealer: dealer,
            match_winner,
            points: points.clone(),
        };
        self.end_hand(points.clone(), points, summary, match_winner, out);
    }

    /// Ends the hand with `summary`, on show from now on; `winner`, when set, won the match.
    fn end_hand(
        &mut self,
        points: Vec<i64>,
        units: Vec<i64>,
        summary: Summary,
        winner: Option<usize>,
        out: &mut Outcome,
    ) {
        out.end_hand_with_points(self.hand_no, points, units, &summary);
        self.table = match winner {
            Some(winner) => Table::Finished {
                winner,
                last: summary,
            },
            None => Table::Between { last: summary },
        };
    }
}

/// The lead auto-play makes: every copy of the lowest card held (plain cards before trumps),
/// so no group is broken.
fn auto_lead(order: &Order, hand: &[Card]) -> Vec<Card> {
    let Some(&low) = hand
        .iter()
        .min_by_key(|&&c| (order.is_trump(c), order.pos(c), order.key(c)))
    else {
        return Vec::new();
    };
    hand.iter().copied().filter(|&c| c == low).collect()
}

impl Game for Shengji {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;
    type Legal = Legal;
    type Summary = Summary;

    const NAME: &'static str = "shengji";
    const TITLE: &'static str = "四副牌升级";
    const SEATS: RangeInclusive<usize> = 4..=4;
    const COIN_ROOMS: bool = true;
    const FIXED_PARTNERS: bool = true;

    fn rule_codes() -> Vec<&'static str> {
        with_shared_codes(codes_of::<Rule>().chain(codes_of::<trick::Rule>()))
    }

    fn deck(_opts: &Options) -> Vec<Card> {
        (0..DECKS).flat_map(|_| standard_deck(true)).collect()
    }

    fn new_match(_opts: Options, _seats: usize) -> State {
        State {
            hand_no: 0,
            levels: [START_LEVEL; 2],
            next_dealer: None,
            last_dealer: None,
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
            Table::InHand { hand, .. } => match hand.phase {
                Phase::Declaring(_) => "declaring",
                Phase::Playing(_) => "playing",
            },
            Table::Finished { .. } => "finished",
            Table::Waiting | Table::Between { .. } => "between_hands",
        }
    }

    fn to_act(state: &State) -> Vec<SeatNo> {
        match state.table.hand().map(|h| &h.phase) {
            Some(Phase::Declaring(d)) => vec![d.turn],
            Some(Phase::Playing(p)) => vec![p.turn],
            None => Vec::new(),
        }
    }

    fn start_hand(state: &mut State, start: HandStart) -> Outcome {
        let mut out = Outcome::default();
        // The service deals only between hands.
        let Some(last) = state.table.take_for_deal() else {
            return out;
        };
        state.hand_no += 1;
        let mut hands: [Vec<Card>; SEATS] = Default::default();
        for (i, &c) in start.deck.iter().enumerate() {
            hands[i % SEATS].push(c);
        }
        let first = state.last_dealer.map_or(0, |d| (d + 1) % SEATS);
        let order = Order::new(RANKS, None);
        for (seat, hand) in hands.iter_mut().enumerate() {
            order.sort_strongest_first(hand);
            out.events.push(Event::private(
                "dealt",
                seat,
                data(&events::Cards { cards: hand }),
            ));
        }
        out.events.push(Event::public(
            "hand_start",
            None,
            data(&events::HandBegins {
                hand_no: state.hand_no,
                levels: state.levels,
                dealer: state.next_dealer,
                first_to_declare: first,
            }),
        ));
        let hand = Box::new(HandState {
            started_ms: start.ctx.now_ms,
            hands,
            phase: Phase::Declaring(declare::Declaring::new(first)),
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
        if !Self::to_act(state).contains(&seat) {
            return Err(RuleError::not_your_turn(
                Shared::NotYourTurn,
                format!("it is not seat {seat}'s turn"),
                format!("现在不轮到 {seat} 号座位"),
            ));
        }
        let mut out = Outcome::default();
        match action {
            Action::Declare { cards } => declare::declare(state, seat, &cards, &mut out)?,
            Action::Pass {} => declare::pass(state, seat, &mut out)?,
            Action::Play { cards } => state.play(seat, cards, &mut out)?,
        }
        Ok(out)
    }

    fn auto_action(state: &State, seat: SeatNo) -> Action {
        let Some(h) = state.table.hand() else {
            return Action::Pass {};
        };
        match &h.phase {
            Phase::Declaring(_) => Action::Pass {},
            Phase::Playing(p) => {
                let order = p.order();
                let hand = &h.hands[seat];
                let cards = match p.trick.first() {
                    None => auto_lead(&order, hand),
                    Some(lead) => trick::best_follow(&order, hand, &lead.cards),
                };
                Action::Play { cards }
            }
        }
    }

    /// The bot: declares a long suit, leads sure winners, feeds a winning partner points and
    /// otherwise plays cheap (`bot`, `trick::bot`).
    fn bot_action(state: &State, seat: SeatNo) -> Action {
        bot::bot_action(state, seat)
    }

    fn leave(state: &mut State, seat: SeatNo, ctx: Ctx, _wallet: i64) -> Outcome {
        let mut out = Outcome::default();
        if seat >= SEATS {
            return out;
        }
        let left = || Event::public("left", Some(seat), data(&events::Nothing {}));
        match &state.table {
            Table::Finished { .. } => {}
            Table::InHand { hand: h, .. } => {
                let lasted_ms = ctx.now_ms.saturating_sub(h.started_ms);
                let bonus = lasted_ms >= ESCAPE_BONUS_AFTER_MS;
                let units: Vec<i64> = (0..SEATS)
                    .map(|s| {
                        if s == seat {
                            -ESCAPE_PAYS * (SEATS as i64 - 1)
                        } else {
                            ESCAPE_PAYS
                        }
                    })
                    .collect();
                let points: Vec<i64> = units
                    .iter()
                    .enumerate()
                    .map(|(s, &u)| u + i64::from(bonus && s != seat))
                    .collect();
                let summary = Summary::Escape {
                    hand_no: state.hand_no,
                    seat,
                    lasted_ms,
                    bonus,
                    match_winner: 1 - team(seat),
                    points: points.clone(),
                };
                out.events
                    .push(Event::public("escape", Some(seat), data(&summary)));
                state.end_hand(points, units, summary, Some(1 - team(seat)), &mut out);
            }
            // Between hands no hand is running, so nothing is paid; once a hand has been played
            // the match cannot go on without the team, which loses it.
            Table::Waiting => out.events.push(left()),
            Table::Between { last } => {
                state.table = Table::Finished {
                    winner: 1 - team(seat),
                    last: last.clone(),
                };
                out.events.push(left());
            }
        }
        out
    }

    fn view(state: &State, viewer: Option<SeatNo>) -> View {
        view::view(state, viewer)
    }

    fn legal_actions(state: &State, seat: SeatNo) -> Vec<Legal> {
        view::legal(state, seat)
    }

    fn event_schemas() -> BTreeMap<&'static str, Value> {
        events::schemas()
    }
}
