//! A finished hand played again step by step for its replay (api.md § Replays): the logged
//! actions re-run through the game's engine from the hand's start, and after the deal and
//! after each action the table with every hand revealed (the hand is over). Pure: the engine
//! and the stored rows, nothing else.

use games::engine::{Ctx, DynState, HandStart};
use serde::Serialize;
use serde_json::Value;

/// The most steps one hand's replay shows (the deal and 599 actions); a longer hand's steps
/// stop there (`steps_complete: false`).
pub const MAX_STEPS: usize = 600;

/// The table after the deal (`n` 0) or after the hand's `n`th action.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = ReplayStep)]
pub struct Step {
    /// 0 for the deal, then one per action of `actions`, in order.
    pub n: usize,
    /// The seat that acted; null for the deal.
    #[schema(required = true)]
    pub seat: Option<usize>,
    /// `deal`, or the action's `kind` (`action`, `timeout`, `auto`, `leave`).
    pub kind: String,
    /// The game action taken; null for the deal and for `leave`.
    #[schema(value_type = Option<crate::api_types::AnyAction>, required = true)]
    pub action: Option<Value>,
    /// The game's state after it, as a spectator sees it with what each seat alone sees
    /// filled in: every hand revealed (a seat's own cards in `hands`).
    #[schema(value_type = Object)]
    pub view: Value,
    /// Each seat's own cards after it, by seat, in games whose view shows a seat its hand as
    /// `hand` (in 扯旋 the hole cards are in `view.seats`); null for a seat without one.
    #[schema(value_type = Vec<Option<Vec<crate::api_types::Card>>>)]
    pub hands: Vec<Value>,
}

/// What a replayed hand starts from, as the `hands` row keeps it.
pub struct Start<'a> {
    pub state: &'a str,
    pub deck: &'a Value,
    pub start_ms: i64,
    pub wallets: &'a Value,
    pub scores: &'a Value,
}

/// One logged action: who, what kind, the action (or `leave`'s record) and its clock.
pub struct Logged<'a> {
    pub seat: usize,
    pub kind: &'a str,
    pub action: Option<&'a Value>,
    pub now_ms: i64,
}

/// The steps of a hand of `game` at a table of `seats`: the deal and each action, at most
/// [`MAX_STEPS`]. `Err` says why the log could not be re-run (a stored row that no longer
/// parses, an action the engine refuses): the replay then shows the steps up to there.
pub fn replay<'a>(
    game: &dyn games::DynGame,
    seats: usize,
    start: Start<'_>,
    log: impl IntoIterator<Item = Logged<'a>>,
) -> (Vec<Step>, Result<(), String>) {
    let mut steps = Vec::new();
    let result = run(game, seats, start, log, &mut steps);
    (steps, result)
}

fn run<'a>(
    game: &dyn games::DynGame,
    seats: usize,
    start: Start<'_>,
    log: impl IntoIterator<Item = Logged<'a>>,
    steps: &mut Vec<Step>,
) -> Result<(), String> {
    let mut state = game.load(start.state)?;
    let _deal = state.start_hand(HandStart {
        deck: parse("deck", start.deck)?,
        ctx: Ctx {
            now_ms: start.start_ms,
        },
        wallets: parse("wallets", start.wallets)?,
        scores: parse("scores", start.scores)?,
    });
    steps.push(step(&*state, seats, 0, None, "deal", None));
    for (i, a) in log.into_iter().enumerate() {
        if steps.len() == MAX_STEPS {
            break;
        }
        let ctx = Ctx { now_ms: a.now_ms };
        match (a.kind, a.action) {
            ("leave", logged) => {
                let wallet = logged.and_then(|l| l["wallet"].as_i64()).unwrap_or(0);
                let _left = state.leave(a.seat, ctx, wallet);
            }
            (_, Some(action)) => {
                let _applied = state
                    .apply(a.seat, action, ctx)
                    .map_err(|e| format!("action {} of seat {}: {e}", i + 1, a.seat))?;
            }
            (kind, None) => return Err(format!("action {} ({kind}) has no action", i + 1)),
        }
        let action = (a.kind != "leave").then(|| a.action.cloned()).flatten();
        steps.push(step(&*state, seats, i + 1, Some(a.seat), a.kind, action));
    }
    Ok(())
}

/// A stored field of the hand's row, read back.
fn parse<T: serde::de::DeserializeOwned>(what: &str, v: &Value) -> Result<T, String> {
    serde_json::from_value(v.clone()).map_err(|e| format!("the hand's {what}: {e}"))
}

fn step(
    state: &dyn DynState,
    seats: usize,
    n: usize,
    seat: Option<usize>,
    kind: &str,
    action: Option<Value>,
) -> Step {
    let parse = |raw: &serde_json::value::RawValue| -> Value {
        serde_json::from_str(raw.get()).unwrap_or(Value::Null)
    };
    let mut view = parse(&state.view(None).state);
    let mut hands = Vec::with_capacity(seats);
    for s in 0..seats {
        let mut own = parse(&state.view(Some(s)).state);
        hands.push(
            own.as_object_mut()
                .and_then(|o| o.remove("hand"))
                .unwrap_or(Value::Null),
        );
        reveal(&mut view, own);
    }
    Step {
        n,
        seat,
        kind: kind.to_string(),
        action,
        view,
        hands,
    }
}

/// Fills in `shown` what only a seat sees (`seen`, that seat's view): a value the spectator's
/// view leaves null or out is taken from the seat's; objects are filled key by key and
/// arrays of the same length element by element. What the spectator sees is kept as it is.
fn reveal(shown: &mut Value, seen: Value) {
    match (shown, seen) {
        (_, Value::Null) => {}
        (s @ Value::Null, seen) => *s = seen,
        (Value::Object(s), Value::Object(seen)) => {
            for (k, v) in seen {
                match s.get_mut(&k) {
                    Some(x) => reveal(x, v),
                    None => {
                        s.insert(k, v);
                    }
                }
            }
        }
        (Value::Array(s), Value::Array(seen)) if s.len() == seen.len() => {
            for (x, v) in s.iter_mut().zip(seen) {
                reveal(x, v);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_one_seat_sees_fills_what_the_spectator_does_not() {
        let mut shown = json!({
            "seats": [{"seat": 0, "cards_left": null}, {"seat": 1, "cards_left": 8}],
            "declaration": {"seat": 1, "suit": null},
            "turn": 1,
        });
        reveal(
            &mut shown,
            json!({
                "seats": [{"seat": 0, "cards_left": 27}, {"seat": 1, "cards_left": 8}],
                "declaration": {"seat": 1, "suit": "H"},
                "buried": ["3S"],
                "turn": 1,
            }),
        );
        assert_eq!(
            shown,
            json!({
                "seats": [{"seat": 0, "cards_left": 27}, {"seat": 1, "cards_left": 8}],
                "declaration": {"seat": 1, "suit": "H"},
                "buried": ["3S"],
                "turn": 1,
            })
        );
    }

    /// A 打炸 hand with a fixed deck: the deal's step shows four hands of 27 cards, each step
    /// one action, and the view holds every seat's exact count.
    #[test]
    fn a_hand_is_played_again_with_every_hand_revealed() {
        let game = games::game("dazha").unwrap();
        let options = game.options(4, &json!({})).unwrap();
        let start = game.new_match(&options, 4).unwrap();
        let mut deck = game.deck(&options).unwrap();
        games::shuffle::shuffle(&mut deck, &[3; 32]);
        // Play a few moves with the bot policy, logging them as the table would.
        let mut state = start.fork();
        state.start_hand(HandStart {
            deck: deck.clone(),
            ctx: Ctx { now_ms: 0 },
            wallets: vec![0; 4],
            scores: vec![0; 4],
        });
        let mut log = Vec::new();
        while log.len() < 12 && state.stage() == games::engine::Stage::InHand {
            let seat = state.to_act()[0];
            let action = state.bot_action(seat);
            state.apply(seat, &action, Ctx { now_ms: 1 }).unwrap();
            log.push((seat, action));
        }
        let (deck, wallets, scores) = (json!(deck), json!([0, 0, 0, 0]), json!([0, 0, 0, 0]));
        let saved = start.save();
        let (steps, done) = replay(
            game,
            4,
            Start {
                state: &saved,
                deck: &deck,
                start_ms: 0,
                wallets: &wallets,
                scores: &scores,
            },
            log.iter().map(|(seat, a)| Logged {
                seat: *seat,
                kind: "action",
                action: Some(a),
                now_ms: 1,
            }),
        );
        done.unwrap();
        assert_eq!(steps.len(), log.len() + 1);
        let first = &steps[0];
        assert_eq!((first.n, first.seat, &first.action), (0, None, &None));
        if log.is_empty() {
            return; // 摊牌: the hand ended at the deal.
        }
        assert!(
            first
                .hands
                .iter()
                .all(|h| h.as_array().unwrap().len() == 27)
        );
        for s in first.view["seats"].as_array().unwrap() {
            assert_eq!(s["cards_left"], 27, "{s}");
        }
        let last = steps.last().unwrap();
        assert_eq!(last.n, log.len());
        assert_eq!(last.action.as_ref(), Some(&log.last().unwrap().1));
        // Each seat's cards are those its own view shows, and the table is the spectator's.
        for seat in 0..4 {
            let own: Value = serde_json::from_str(state.view(Some(seat)).state.get()).unwrap();
            assert_eq!(last.hands[seat], own["hand"], "seat {seat}");
        }
        let public: Value = serde_json::from_str(state.view(None).state.get()).unwrap();
        assert_eq!(last.view["round"], public["round"]);
    }
}
