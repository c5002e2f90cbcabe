//! Golden JSON for a fixed deck: the views (for every seat and a spectator), the legal actions,
//! the events and the hand summary of one whole hand, as the text a client receives. The HTTP
//! contract was written against this JSON, so the typed surfaces must keep it byte for byte.

use serde_json::json;

use super::*;
use crate::engine::parse_options;
use crate::golden;

const SEATS: usize = 3;

fn ctx() -> Ctx {
    Ctx {
        now_ms: 1_700_000_000_000,
    }
}

fn render(state: &State, text: &mut String) {
    golden::render::<Chexuan>(state, SEATS, text);
}

/// The events, the coin movements and the settlement of one step.
fn record(out: &Outcome, text: &mut String) {
    golden::record_events(out, text);
    *text += &format!("money {:?}\n", out.money);
    golden::record_end(out, text);
}

#[test]
fn a_whole_hand_serializes_as_the_golden_json() {
    let opts = parse_options::<Chexuan>(SEATS, &json!({})).unwrap();
    let mut st = Chexuan::new_match(opts, SEATS);
    let mut text = String::new();
    render(&st, &mut text);
    let hands = [
        crate::hand!["QH", "QD", "2D", "4S"],
        crate::hand!["8H", "8D", "2H", "5S"],
        crate::hand!["9S", "9C", "5C", "7S"],
    ];
    let out = Chexuan::start_hand(
        &mut st,
        HandStart {
            deck: deck_for_hands(&hands),
            ctx: ctx(),
            wallets: vec![1000; SEATS],
            scores: vec![0, 1500, 0],
        },
    );
    record(&out, &mut text);
    render(&st, &mut text);
    let steps = [
        (0, Action::SetBobo { amount: 150 }),
        (1, Action::SetBobo { amount: 200 }),
        (2, Action::SetBobo { amount: 100 }),
        (1, Action::Raise { to: 20 }),
        (2, Action::Call {}),
        (0, Action::Raise { to: 40 }),
        (1, Action::Call {}),
        (2, Action::Call {}),
        (1, Action::AllIn {}),
        (2, Action::Fold {}),
        (0, Action::AllIn {}),
        (
            0,
            Action::Split {
                head: [hands[0][2], hands[0][3]],
                tail: [hands[0][0], hands[0][1]],
            },
        ),
        (
            1,
            Action::Split {
                head: [hands[1][0], hands[1][1]],
                tail: [hands[1][2], hands[1][3]],
            },
        ),
    ];
    for (seat, action) in steps {
        text += &format!("apply {seat} {}\n", serde_json::to_string(&action).unwrap());
        let out = Chexuan::apply(&mut st, seat, action, ctx()).unwrap();
        record(&out, &mut text);
        render(&st, &mut text);
    }
    assert_eq!(Chexuan::stage(&st), Stage::NeedsDeal);
    assert_eq!(text, include_str!("golden/hand.txt"));
}

/// The API document's schemas are derived from these same types.
#[test]
fn the_schemas_describe_the_typed_surfaces() {
    use crate::engine::{DynGame, Registered};
    let s = Registered::<Chexuan>::new().schemas();
    assert!(s.state["properties"]["seats"].is_object(), "{}", s.state);
    assert_eq!(s.legal_action["oneOf"].as_array().map(Vec::len), Some(8));
    assert!(
        s.last_result["properties"]["transfers"].is_object(),
        "{}",
        s.last_result
    );
    assert_eq!(s.events["left"]["properties"]["escape"]["type"], "boolean");
    assert_eq!(s.events["settlement"], s.last_result);
}
