//! 永州扯胡子 (chehuzi): three players, paper cards small 一…十 and big 壹…拾 with two or four
//! 王霸 (W), melds claimed from discards and draws, a win of 7 门子 and at least 15 胡息.
//!
//! The rules as run here, with every choice the rulings leave open, are in
//! `docs/rules/chehuzi.md`. `melds` knows faces and 胡息, `win` splits hands into 门子,
//! `scoring` picks the best-scoring win and settles hands. `deal` deals a hand, `turn` runs
//! discards and draws (with the 偎, 提 and 跑 they force), `claims` the claim windows on a shown
//! card, `ending` a win, 荒庄 or escape, and `view` decides what each seat may see.
//!
//! The match is an enum of phases (`Table`): code that needs the hand gets it from the variant
//! that holds one. It is stored as the fields it always had (`Stored`).

mod bot;
#[cfg(test)]
mod claim_tests;
mod claims;
mod deal;
mod ending;
mod events;
mod melds;
#[cfg(test)]
mod mingtang_tests;
#[cfg(test)]
mod rule_tests;
mod rules;
mod scoring;
#[cfg(test)]
mod stored_tests;
#[cfg(test)]
mod tests;
mod turn;
mod view;
mod win;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cards::Card;
use crate::engine::{
    Ctx, Event, Game, HandStart, Outcome, RuleError, SeatNo, Shared, Stage, check_range, codes_of,
    data, with_shared_codes,
};
use crate::progress::Progress;

use claims::{Answer, Source, Window, placed_window};
use melds::{Kind, bit, card_of, face_of};
pub use rules::Rule;
pub use scoring::{End, Mingtang, Summary, WinMeld, WinSummary, self_draw_score};
use turn::{auto_discard, other_discards};
pub use view::{ClaimView, Legal, MeldView, SeatView, View};

pub struct Chehuzi;

const SEATS: usize = 3;

/// 翻醒 or 跟醒.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Xing {
    /// 翻醒: the 醒 card follows the next stock card.
    #[default]
    Fan,
    /// 跟醒: the winning card is the 醒 card.
    Gen,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Number of 王霸: 2 (82 cards, 荒庄 base 5) or 4 (84 cards, base 10).
    #[serde(default = "default_kings")]
    pub kings: i64,
    #[serde(default)]
    pub xing: Xing,
    /// 房间倍率: multiplies every amount.
    #[serde(default = "default_rate")]
    pub rate: i64,
    /// Seconds a claim window waits, capped by the turn timeout.
    #[serde(default = "default_claim_timeout")]
    pub claim_timeout_secs: i64,
}

fn default_kings() -> i64 {
    2
}
fn default_rate() -> i64 {
    1
}
fn default_claim_timeout() -> i64 {
    8
}

impl Options {
    /// 王霸牌基础倍率.
    fn base(&self) -> i64 {
        if self.kings == 4 { 10 } else { 5 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    Discard {
        card: Card,
    },
    /// Whole melds, the first holding the claimed card, each further one more copy of that face
    /// from the hand (比牌).
    Chi {
        melds: Vec<Vec<Card>>,
    },
    Peng {},
    Hu {},
    Pass {},
}

/// Stored as `Stored`, the fields it has always had, so that stored matches and hands load and
/// save byte for byte as before.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "Stored", into = "Stored")]
pub struct State {
    opts: Options,
    hand_no: u32,
    dealer: SeatNo,
    table: Table,
}

/// Where the match stands ([`Progress`]: the hand in play, the last hand's summary).
type Table = Progress<HandState, Summary>;

/// The state as it is stored (`matches.state`, `hands.start_state`): these fields, in this
/// order, are the JSON of every stored chehuzi match.
#[derive(Serialize, Deserialize)]
struct Stored {
    opts: Options,
    hand_no: u32,
    dealer: SeatNo,
    /// Set by an escape: the match is over.
    finished: bool,
    hand: Option<Box<HandState>>,
    last: Option<Summary>,
}

impl TryFrom<Stored> for State {
    type Error = &'static str;

    fn try_from(s: Stored) -> Result<State, Self::Error> {
        let table = Table::from_stored(s.finished.then_some(()), s.hand, s.last)?;
        Ok(State {
            opts: s.opts,
            hand_no: s.hand_no,
            dealer: s.dealer,
            table,
        })
    }
}

impl From<State> for Stored {
    fn from(s: State) -> Stored {
        let (ended, hand, last) = s.table.into_stored();
        Stored {
            opts: s.opts,
            hand_no: s.hand_no,
            dealer: s.dealer,
            finished: ended.is_some(),
            hand,
            last,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct TableMeld {
    kind: Kind,
    faces: Vec<u8>,
    /// Face down for the other seats (偎, and 提 made from a draw).
    hidden: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct HandState {
    started_ms: i64,
    dealer: SeatNo,
    hands: [Vec<u8>; SEATS],
    melds: [Vec<TableMeld>; SEATS],
    /// Discards and drawn cards nobody took, by the seat they came from.
    passed: [Vec<u8>; SEATS],
    stock: Vec<u8>,
    /// Index of the next stock card.
    next: usize,
    /// 跑 and 提 made by each seat (dealt 提 included): from the second on, no discard (重跑).
    paos: [u8; SEATS],
    /// 过张: faces (bit per face) a seat may no longer 吃 or 碰.
    blocked: [u32; SEATS],
    /// Faces a seat declined to 碰: a later 偎 of them is a 臭偎.
    declined_peng: [u32; SEATS],
    phase: Phase,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
enum Phase {
    Discard { seat: SeatNo },
    Claim(Window),
}

/// The next step of a turn: a seat discards, or a seat draws from the stock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Step {
    Discard(SeatNo),
    Draw(SeatNo),
}

/// What happens next in a hand.
enum Next {
    Step(Step),
    Window(Window),
    Win { seat: SeatNo, window: Window },
    Huang,
}

/// The face of `card`, refused when it is not a 扯胡子 card.
fn face(card: Card) -> Result<u8, RuleError> {
    face_of(card).ok_or_else(|| {
        RuleError::invalid(
            Rule::ForeignCard,
            format!("{card} is not a 扯胡子 card"),
            format!("{card} 不是扯胡子的牌"),
        )
        .with_cards([card])
    })
}

impl Game for Chehuzi {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;
    type Legal = Legal;
    type Summary = Summary;

    const NAME: &'static str = "chehuzi";
    const TITLE: &'static str = "永州扯胡子";
    const SEATS: std::ops::RangeInclusive<usize> = 3..=3;
    const COIN_ROOMS: bool = true;

    fn rule_codes() -> Vec<&'static str> {
        with_shared_codes(codes_of::<Rule>())
    }

    fn check_options(opts: &mut Options, _seats: usize) -> Result<(), RuleError> {
        if opts.kings != 2 && opts.kings != 4 {
            let kings = opts.kings;
            return Err(RuleError::invalid(
                Shared::BadOption,
                format!("options.kings must be 2 or 4, got {kings}"),
                format!("选项 options.kings 只能是 2 或 4，现在是 {kings}"),
            ));
        }
        check_range("rate", opts.rate, 1..=1_000_000)?;
        check_range("claim_timeout_secs", opts.claim_timeout_secs, 1..=3600)
    }

    fn deck(opts: &Options) -> Vec<Card> {
        let mut deck = Vec::with_capacity(84);
        for big in [false, true] {
            for n in 1..=10 {
                deck.extend(std::iter::repeat_n(Card::Paper { big, n }, 4));
            }
        }
        deck.extend(std::iter::repeat_n(Card::Wild, opts.kings as usize));
        deck
    }

    fn new_match(opts: Options, _seats: usize) -> State {
        State {
            opts,
            hand_no: 0,
            dealer: 0,
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
            Table::Waiting | Table::Between { .. } => "between_hands",
            Table::InHand { hand: h, .. } => match &h.phase {
                // A drawn W's own window is the drawer's discard turn to everyone else.
                Phase::Discard { .. } => "discard",
                Phase::Claim(w) if matches!(w.source, Source::Placed { .. }) => "discard",
                Phase::Claim(_) => "claim",
            },
        }
    }

    fn to_act(state: &State) -> Vec<SeatNo> {
        match state.table.hand().map(|h| &h.phase) {
            None => Vec::new(),
            Some(Phase::Discard { seat }) => vec![*seat],
            Some(Phase::Claim(w)) => w.waiting(),
        }
    }

    /// A claim window asks exactly the seats that can claim its card (a pair or a 坎 of it for
    /// 碰/跑, a 吃, a win): who is asked stays each seat's own (rulings § Claim windows).
    /// A drawn W's window asks its drawer only, who must act either way (win or discard): not
    /// hidden, and shown as the drawer's discard turn.
    fn to_act_hidden(state: &State) -> bool {
        matches!(state.table.hand().map(|h| &h.phase), Some(Phase::Claim(_)))
            && placed_window(state).is_none()
    }

    fn wait_secs(state: &State, turn_secs: u32) -> u32 {
        match state.table.hand().map(|h| &h.phase) {
            Some(Phase::Claim(w)) if !matches!(w.source, Source::Placed { .. }) => {
                turn_secs.min(state.opts.claim_timeout_secs as u32)
            }
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
        let dealer = state.dealer;
        let hand = deal::deal(dealer, &start.deck, start.ctx.now_ms, &mut out);
        state.table = Table::InHand { hand, last };
        state.advance(Next::Step(Step::Discard(dealer)), &mut out);
        out
    }

    fn apply(
        state: &mut State,
        seat: SeatNo,
        action: Action,
        _ctx: Ctx,
    ) -> Result<Outcome, RuleError> {
        // The drawer of a W it could win with discards instead: it passes on the win and
        // discards in one action, so the table sees one discard turn whether or not the W
        // made a win (a window of its own would tell).
        if let (Some(w), Action::Pass {}) = (placed_window(state), &action)
            && w.owner == seat
            && state
                .table
                .hand()
                .is_some_and(|h| !h.discardable(seat).is_empty())
        {
            // A pass, then a discard, would show the table a step a plain turn does not have.
            return Err(RuleError::illegal(
                Rule::MustWinOrDiscard,
                "win with the 王霸 or discard a card (the discard passes on the win)",
                "请用王霸胡牌，或者打出一张牌（打牌就是不胡）",
            ));
        }
        if let (Some(w), Action::Discard { .. }) = (placed_window(state), &action)
            && w.owner == seat
        {
            let mut w = w.clone();
            w.answers[seat] = Some(Answer::Pass);
            let mut next = state.clone();
            let mut out = Outcome::default();
            next.advance(Next::Window(w), &mut out);
            let discarded = Self::apply(&mut next, seat, action, _ctx)?;
            out.merge(discarded);
            *state = next;
            return Ok(out);
        }
        let opts = state.opts.clone();
        let Some(h) = state.table.hand_mut() else {
            return Err(RuleError::not_your_turn(
                Shared::NoHandInPlay,
                "no hand is being played",
                "现在没有正在进行的牌局",
            ));
        };
        let mut out = Outcome::default();
        let next = match (&mut h.phase, action) {
            (Phase::Discard { seat: turn }, Action::Discard { card }) => {
                if *turn != seat {
                    return Err(other_discards());
                }
                h.discard(seat, card, &opts, &mut out)?
            }
            (Phase::Discard { .. }, _) => {
                return Err(if Self::to_act(state).contains(&seat) {
                    RuleError::illegal(
                        Rule::ActionNotInPhase,
                        "you must discard a card",
                        "你须打出一张牌",
                    )
                } else {
                    other_discards()
                });
            }
            (Phase::Claim(w), action) => {
                let answer = w.answer_of(seat, action)?;
                // 过张 and 忍碰: passing up a 吃 or 碰 blocks that face for the rest of the hand.
                if answer != Answer::Peng && w.peng[seat] {
                    h.declined_peng[seat] |= bit(w.card);
                }
                if answer == Answer::Pass && (w.peng[seat] || !w.chi[seat].is_empty()) {
                    h.blocked[seat] |= bit(w.card);
                }
                if answer == Answer::Pass {
                    // Only the seat knows it had a claim to pass on.
                    out.events
                        .push(Event::private("pass", seat, data(&events::Nothing {})));
                }
                w.answers[seat] = Some(answer);
                Next::Window(w.clone())
            }
        };
        state.advance(next, &mut out);
        Ok(out)
    }

    fn auto_action(state: &State, seat: SeatNo) -> Action {
        let Some(h) = state.table.hand() else {
            return Action::Pass {};
        };
        match &h.phase {
            Phase::Claim(w) if w.hu[seat] => Action::Hu {},
            Phase::Claim(_) => Action::Pass {},
            Phase::Discard { .. } => match auto_discard(h, seat) {
                Some(c) => Action::Discard { card: card_of(c) },
                None => Action::Pass {},
            },
        }
    }

    /// The bot: 胡 whenever it may, 碰, a 吃 that adds 胡息, and the discard least useful to
    /// melds (`bot`).
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
            Table::InHand { .. } => state.escape(seat, ctx, &mut out),
            Table::Waiting | Table::Between { .. } => {
                out.events
                    .push(Event::public("left", Some(seat), data(&events::Nothing {})))
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
