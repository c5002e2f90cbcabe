//! 上饶打炸 (dazha): four players in two teams of two, two decks with jokers, 五十K and bombs.
//!
//! The rules as run here, with every choice the rulings leave open, are in
//! `docs/rules/dazha.md`. `combos` reads and compares combinations and lists legal plays;
//! `scoring` turns a finished hand (or a 摊牌, or an escape) into points.
//!
//! The match is an enum of phases (`Table`): code that needs the hand gets it from the variant
//! that holds one. It is stored as the fields it always had (`Stored`).

mod bot;
mod combos;
mod hand;
#[cfg(test)]
mod review_tests;
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
    Ctx, Event, Game, HandStart, Outcome, RuleError, SeatNo, Shared, Stage, check_range, codes_of,
    data, with_shared_codes,
};
use crate::progress::Progress;

pub use combos::ComboView;
pub use combos::{Combo, Kind, Play, legal_plays as hand_plays, readings, sort_strongest_first};
use combos::{Counts, empty_play, jokers_playable, points_of, strands_joker};
use hand::reported;
pub use rules::Rule;
use scoring::{BombPlayed, SEATS, settle_played, settle_tanpai, tanpai, teams};
pub use scoring::{Escape, Played, ScoredBomb, Shown, Summary, Tanpai, Teams};
use view::events::{self, Partners};
pub use view::{Legal, PlayView, RoundEntry, RoundView, SeatView, View};

pub struct Dazha;

/// Cards a seat may hold before its count is announced to the table (报牌).
const REPORT_AT: usize = 10;
/// An escape from a hand that lasted this long also pays the others 1 × base each.
const ESCAPE_BONUS_AFTER_MS: i64 = 30_000;
const MAX_BASE: i64 = 1_000_000;
const CAP_RANGE: RangeInclusive<i64> = 9..=13;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Mode {
    #[serde(rename = "normal")]
    #[default]
    Normal,
    /// 12炸神: eight more jokers, six of one colour form a bomb.
    #[serde(rename = "12zhashen")]
    Zhashen12,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default)]
    pub mode: Mode,
    /// Multiplies every amount; 低分 = 3 × base.
    #[serde(default = "default_base")]
    pub base: i64,
    /// Bomb size at which rewards stop growing and a dealt bomb must be shown (摊牌); default 9,
    /// 13 in 12炸神.
    #[serde(default)]
    pub bomb_cap: Option<u8>,
}

fn default_base() -> i64 {
    1
}

impl Options {
    /// The bomb size at which rewards stop growing.
    pub fn cap(&self) -> u8 {
        self.bomb_cap.unwrap_or(match self.mode {
            Mode::Normal => 9,
            Mode::Zhashen12 => 13,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    Play {
        cards: Vec<Card>,
        /// Picks one reading when the cards fit two (five of a kind: `bomb` or
        /// `triple_with_two`); by default the strongest legal reading is taken.
        #[serde(rename = "as", default, skip_serializing_if = "Option::is_none")]
        reading: Option<Kind>,
    },
    // A struct variant so that `deny_unknown_fields` also refuses `{"type":"pass","cards":[…]}`.
    Pass {},
}

/// Stored as `Stored`, the fields it has always had, so that stored matches and hands load and
/// save byte for byte as before.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "Stored", into = "Stored")]
pub struct State {
    opts: Options,
    hand_no: u32,
    /// Team (0 or 1, seat 0 is in team 0) of each seat, kept from hand to hand.
    teams: Option<[u8; SEATS]>,
    /// The next played hand draws partners and leader by 3S (first hand, after a 双扣, after a
    /// player change).
    redraw: bool,
    /// 上游 of the last hand played out: the next hand's leader unless partners are re-drawn.
    next_leader: Option<SeatNo>,
    table: Table,
}

/// Where the match stands ([`Progress`]: the hand in play, the last hand's summary).
type Table = Progress<HandState, Summary>;

/// The state as it is stored (`matches.state`, `hands.start_state`): these fields, in this
/// order, are the JSON of every stored dazha match.
#[derive(Serialize, Deserialize)]
struct Stored {
    opts: Options,
    hand_no: u32,
    /// Set by an escape: the match is over.
    finished: bool,
    teams: Option<[u8; SEATS]>,
    redraw: bool,
    next_leader: Option<SeatNo>,
    hand: Option<Box<HandState>>,
    last_hand: Option<Summary>,
}

impl TryFrom<Stored> for State {
    type Error = &'static str;

    fn try_from(s: Stored) -> Result<State, Self::Error> {
        let table = Table::from_stored(s.finished.then_some(()), s.hand, s.last_hand)?;
        Ok(State {
            opts: s.opts,
            hand_no: s.hand_no,
            teams: s.teams,
            redraw: s.redraw,
            next_leader: s.next_leader,
            table,
        })
    }
}

impl From<State> for Stored {
    fn from(s: State) -> Stored {
        let (ended, hand, last_hand) = s.table.into_stored();
        Stored {
            opts: s.opts,
            hand_no: s.hand_no,
            finished: ended.is_some(),
            teams: s.teams,
            redraw: s.redraw,
            next_leader: s.next_leader,
            hand,
            last_hand,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct HandState {
    started_ms: i64,
    /// Each seat's cards, strongest first.
    hands: [Vec<Card>; SEATS],
    team_of: [u8; SEATS],
    leader: SeatNo,
    turn: SeatNo,
    round: Round,
    /// Card points each seat won in rounds.
    captured: [u32; SEATS],
    /// Seats in the order they went out.
    out: Vec<SeatNo>,
    bombs: Vec<BombPlayed>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Round {
    leader: SeatNo,
    plays: Vec<RoundPlay>,
    /// Who passed since the last play.
    passed: [bool; SEATS],
    /// Card points played in this round so far.
    points: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct RoundPlay {
    seat: SeatNo,
    cards: Vec<Card>,
    /// None for a pass.
    combo: Option<Combo>,
}

impl Round {
    fn new(leader: SeatNo) -> Round {
        Round {
            leader,
            plays: Vec::new(),
            passed: [false; SEATS],
            points: 0,
        }
    }

    fn top(&self) -> Option<(&RoundPlay, Combo)> {
        self.plays
            .iter()
            .rev()
            .find_map(|p| p.combo.map(|c| (p, c)))
    }
}

/// The plays `seat` may make now (besides passing, which `legal_actions` lists): empty when the
/// seat is not to act. Used by the automatic player, the random tests and load generators.
pub fn legal_plays(state: &State, seat: SeatNo) -> Vec<Play> {
    match state.table.hand() {
        Some(h) if h.turn == seat => combos::legal_plays(
            &h.hands[seat],
            h.round.top().map(|(_, c)| c).as_ref(),
            state.opts.mode,
        ),
        _ => Vec::new(),
    }
}

impl State {
    /// Settles the hand in play, which has been played out.
    fn finish_hand(&mut self, out: &mut Outcome) {
        let Some(h) = self.table.hand() else {
            return;
        };
        let leftover = h.round.points + h.hands.iter().map(|c| points_of(c)).sum::<u32>();
        let s = settle_played(
            h.team_of,
            &h.out,
            h.captured,
            leftover,
            &h.bombs,
            self.opts.base,
            self.opts.cap(),
        );
        self.next_leader = h.out.first().copied();
        if s.shuangkou {
            self.redraw = true;
        }
        self.end_hand(s.points, s.points, Summary::Played(s.detail), out);
    }

    /// Ends the hand (or the 摊牌 deal) with `summary`, on show between hands.
    fn end_hand(
        &mut self,
        points: [i64; SEATS],
        units: [i64; SEATS],
        summary: Summary,
        out: &mut Outcome,
    ) {
        out.end_hand_with_points(self.hand_no, points.to_vec(), units.to_vec(), &summary);
        self.table = Table::Between { last: summary };
    }
}

/// Partners and leader drawn by the two 3S in the dealt `deck` (card i goes to seat i mod 4):
/// their holders play together and the seat dealt the first 3S leads (谁先抓到黑桃3为先手);
/// one seat holding both makes opposite seats partners and leads itself. It reads the deck, not
/// the hands, because the hands are sorted after the deal and lose the dealing order.
fn draw_partners(deck: &[Card]) -> ([u8; SEATS], SeatNo, Partners) {
    let three_spades = Card::new(3, Suit::S);
    let holders: Vec<SeatNo> = deck
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c == three_spades)
        .map(|(i, _)| i % SEATS)
        .collect();
    let opposite = [0, 1, 0, 1];
    match holders[..] {
        [a, b] if a != b => {
            let with = |s: SeatNo| s == a || s == b;
            let team_of = std::array::from_fn(|s| u8::from(with(s) != with(0)));
            (team_of, a, Partners::SpadeThreeHolders)
        }
        [a, ..] => (opposite, a, Partners::OneSeatHoldsBoth),
        // Only a malformed fixed deck lacks the 3S; seat 0 leads then.
        [] => (opposite, 0, Partners::OneSeatHoldsBoth),
    }
}

impl Game for Dazha {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;
    type Legal = Legal;
    type Summary = Summary;

    const NAME: &'static str = "dazha";
    const TITLE: &'static str = "上饶打炸";
    const SEATS: RangeInclusive<usize> = 4..=4;
    const COIN_ROOMS: bool = true;

    fn rule_codes() -> Vec<&'static str> {
        with_shared_codes(codes_of::<Rule>())
    }

    fn check_options(opts: &mut Options, _seats: usize) -> Result<(), RuleError> {
        check_range("base", opts.base, 1..=MAX_BASE)?;
        check_range("bomb_cap", opts.cap().into(), CAP_RANGE)?;
        opts.bomb_cap = Some(opts.cap());
        Ok(())
    }

    fn deck(opts: &Options) -> Vec<Card> {
        let mut deck = standard_deck(true);
        deck.extend(standard_deck(true));
        if opts.mode == Mode::Zhashen12 {
            for _ in 0..4 {
                deck.push(Card::BigJoker);
                deck.push(Card::SmallJoker);
            }
        }
        deck
    }

    fn new_match(opts: Options, _seats: usize) -> State {
        State {
            opts,
            hand_no: 0,
            teams: None,
            redraw: true,
            next_leader: None,
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
            Table::InHand { hand, .. } if hand.round.top().is_none() => "lead",
            Table::InHand { .. } => "follow",
        }
    }

    fn to_act(state: &State) -> Vec<SeatNo> {
        state.table.hand().iter().map(|h| h.turn).collect()
    }

    fn start_hand(state: &mut State, start: HandStart) -> Outcome {
        let mut out = Outcome::default();
        // The service deals only between hands.
        let Some(last) = state.table.take_for_deal() else {
            return out;
        };
        state.hand_no += 1;
        let mut hands: [Vec<Card>; SEATS] = Default::default();
        for (i, &card) in start.deck.iter().enumerate() {
            hands[i % SEATS].push(card);
        }
        for (seat, hand) in hands.iter_mut().enumerate() {
            sort_strongest_first(hand);
            out.events.push(Event::private(
                "dealt",
                seat,
                data(&events::Dealt { cards: hand }),
            ));
        }
        let (mode, base, cap) = (state.opts.mode, state.opts.base, state.opts.cap());
        let shown = tanpai(&hands, mode, cap);
        if !shown.is_empty() {
            // The hand is not played; partners and leader stay as they were for the next one.
            let points = settle_tanpai(&shown, base);
            out.events.push(Event::public(
                "tanpai",
                None,
                data(&events::Tanpai { shown: &shown }),
            ));
            let summary = Summary::Tanpai(Tanpai {
                kind: scoring::TanpaiKind::Tanpai,
                shown,
                points,
            });
            state.end_hand(points, points, summary, &mut out);
            return out;
        }
        let (team_of, leader, partners) = match state.teams {
            Some(teams) if !state.redraw => (teams, state.next_leader.unwrap_or(0), Partners::Kept),
            _ => draw_partners(&start.deck),
        };
        state.teams = Some(team_of);
        state.redraw = false;
        out.events.push(Event::public(
            "hand_started",
            None,
            data(&events::HandStarted {
                hand_no: state.hand_no,
                leader,
                teams: teams(team_of),
                partners,
            }),
        ));
        let hand = Box::new(HandState {
            started_ms: start.ctx.now_ms,
            hands,
            team_of,
            leader,
            turn: leader,
            round: Round::new(leader),
            captured: [0; SEATS],
            out: Vec::new(),
            bombs: Vec::new(),
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
        let mode = state.opts.mode;
        let Table::InHand { hand: h, .. } = &mut state.table else {
            return Err(RuleError::not_your_turn(
                Shared::NoHandInPlay,
                "no hand is being played",
                "现在没有正在进行的牌局",
            ));
        };
        if seat != h.turn {
            return Err(RuleError::not_your_turn(
                Shared::NotYourTurn,
                format!("it is seat {}'s turn", h.turn),
                format!("现在轮到 {} 号座位出牌", h.turn),
            ));
        }
        let mut out = Outcome::default();
        match action {
            Action::Pass {} => {
                if h.round.top().is_none() {
                    return Err(RuleError::illegal(
                        Rule::CannotPassOnLead,
                        "the leader of a round must play: pass is only allowed when following",
                        "每轮首家必须出牌：只有接牌时才能不出",
                    ));
                }
                h.pass(seat, &mut out);
            }
            Action::Play { cards, reading } => {
                let (rest, combo) = h.check_play(seat, &cards, reading, mode)?;
                h.play(seat, cards, rest, combo, &mut out);
            }
        }
        if h.is_over() {
            state.finish_hand(&mut out);
        }
        Ok(out)
    }

    fn auto_action(state: &State, seat: SeatNo) -> Action {
        let leading = state
            .table
            .hand()
            .is_some_and(|h| h.turn == seat && h.round.top().is_none());
        if !leading {
            return Action::Pass {};
        }
        // The lowest single; a hand left with nothing but a bomb and the jokers it must carry
        // plays its lowest group instead.
        let plays = legal_plays(state, seat);
        let single = plays
            .iter()
            .filter(|p| p.combo.kind == Kind::Single)
            .min_by_key(|p| p.combo.rank);
        let chosen = single.or_else(|| {
            plays
                .iter()
                .min_by_key(|p| (p.combo.kind.is_bomb(), p.cards.len(), p.combo.rank))
        });
        match chosen {
            Some(p) => Action::Play {
                cards: p.cards.clone(),
                reading: Some(p.combo.kind),
            },
            None => Action::Pass {},
        }
    }

    /// The bot: the lowest plays on a lead, the cheapest beating play when following an
    /// opponent, a pass on the partner's play; bombs are kept for when they matter (`bot`).
    fn bot_action(state: &State, seat: SeatNo) -> Action {
        bot::bot_action(state, seat)
    }

    fn leave(state: &mut State, seat: SeatNo, ctx: Ctx, _wallet: i64) -> Outcome {
        let mut out = Outcome::default();
        if seat >= SEATS {
            return out;
        }
        match &state.table {
            Table::Finished { .. } => {}
            Table::InHand { hand: h, .. } => {
                let lasted = ctx.now_ms.saturating_sub(h.started_ms);
                let bonus = lasted >= ESCAPE_BONUS_AFTER_MS;
                let (points, units) = scoring::escape(seat, state.opts.base, bonus);
                let escape = Escape {
                    kind: scoring::EscapeKind::Escape,
                    seat,
                    lasted_ms: lasted,
                    bonus,
                    points,
                };
                out.events
                    .push(Event::public("escape", Some(seat), data(&escape)));
                let summary = Summary::Escape(escape);
                out.end_hand_with_points(state.hand_no, points.to_vec(), units.to_vec(), &summary);
                state.table = Table::Finished {
                    last: summary,
                    winner: (),
                };
            }
            Table::Waiting | Table::Between { .. } => {
                // Not during a hand: no penalty. 中途换人算重新开始牌局, so whoever takes the
                // seat starts afresh: partners are drawn again by 3S.
                state.teams = None;
                state.redraw = true;
                state.next_leader = None;
                out.events
                    .push(Event::public("left", Some(seat), data(&events::Nothing {})));
            }
        }
        out
    }

    fn view(state: &State, viewer: Option<SeatNo>) -> View {
        let o = &state.opts;
        let h = state.table.hand();
        let seats = h.map(|h| {
            (0..SEATS)
                .map(|s| {
                    let left = h.hands[s].len();
                    SeatView {
                        seat: s,
                        team: h.team_of[s],
                        cards_left: if viewer == Some(s) {
                            Some(left)
                        } else {
                            reported(left)
                        },
                        place: h.out.iter().position(|&x| x == s).map(|p| p + 1),
                        captured: h.captured[s],
                    }
                })
                .collect()
        });
        let bombs = h.map(|h| {
            h.bombs
                .iter()
                .map(|b| PlayView {
                    seat: b.seat,
                    cards: b.cards.clone(),
                    combo: b.combo.view(),
                })
                .collect()
        });
        // A seated viewer always gets its hand (empty between hands); a spectator none.
        let hand = viewer
            .filter(|&s| s < SEATS)
            .map(|s| h.map(|h| h.hands[s].clone()).unwrap_or_default());
        View {
            mode: o.mode,
            base: o.base,
            bomb_cap: o.cap(),
            hand_no: state.hand_no,
            teams: state.teams.map(teams),
            leader: h.map(|h| h.leader),
            turn: h.map(|h| h.turn),
            seats,
            team_points: h.map(|h| h.team_points()),
            round: h.map(|h| h.round_view()),
            order_out: h.map(|h| h.out.clone()),
            bombs,
            last_hand: state.table.last().cloned(),
            hand,
        }
    }

    fn legal_actions(state: &State, seat: SeatNo) -> Vec<Legal> {
        let Some(h) = state.table.hand().filter(|h| h.turn == seat) else {
            return Vec::new();
        };
        match h.round.top() {
            None => vec![Legal::Play {
                lead: true,
                min_cards: 1,
                beat: None,
                can_beat: None,
            }],
            Some((_, top)) => vec![
                Legal::Play {
                    lead: false,
                    min_cards: 1,
                    beat: Some(top.view()),
                    can_beat: Some(!legal_plays(state, seat).is_empty()),
                },
                Legal::Pass,
            ],
        }
    }

    fn event_schemas() -> BTreeMap<&'static str, Value> {
        events::schemas()
    }
}
