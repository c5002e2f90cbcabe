//! Every registered game, fed arbitrary JSON as actions and options and arbitrary sequences of
//! seats and actions: never a panic, a refused action leaves the state as it was, and every
//! refusal carries a code of the game's `rule_codes` and both sentences.

use games::engine::{Ctx, HandStart, RuleError, Stage};
use games::shuffle::shuffle;
use games::{DynState, game, names};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        "[a-zA-Z0-9 _]{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "QH", "10S", "RJ", "BJ", "3S", "W", "s1", "b10", "ZZ", "", "play", "pass", "fold",
            "check", "raise", "call", "all_in", "split", "set_bobo", "bomb", "single",
        ])
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// An action-shaped value: a known type name with arbitrary fields.
fn arb_action() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![
            "play", "pass", "fold", "check", "raise", "call", "all_in", "split", "set_bobo", "x",
        ]),
        prop::collection::btree_map(
            prop::sample::select(vec!["cards", "amount", "to", "head", "tail", "as", "extra"]),
            arb_json(),
            0..3,
        ),
    )
        .prop_map(|(t, fields)| {
            let mut m: Map<String, Value> = fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            m.insert("type".into(), json!(t));
            Value::Object(m)
        })
}

/// A refusal as every refusal must be: a code its game lists, a sentence in English and one in
/// Chinese.
fn listed(name: &str, e: &RuleError) -> bool {
    game(name).unwrap().rule_codes().contains(&e.rule)
        && !e.detail.is_empty()
        && e.detail_zh
            .chars()
            .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

fn started(name: &str, seats: usize, seed: u8) -> Box<dyn DynState> {
    let g = game(name).unwrap();
    let options = g.options(seats, &json!({})).unwrap();
    let mut state = g.new_match(&options, seats).unwrap();
    let mut deck = g.deck(&options).unwrap();
    shuffle(&mut deck, &[seed; 32]);
    state.start_hand(HandStart {
        deck,
        ctx: Ctx { now_ms: 0 },
        wallets: vec![10_000; seats],
        scores: vec![0; seats],
    });
    state
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_options_are_refused_or_accepted_without_panic(raw in arb_json(), seats in 0usize..8) {
        for name in names() {
            let g = game(name).unwrap();
            match g.options(seats, &raw) {
                Ok(opts) => {
                    prop_assert!(g.seats().contains(&seats));
                    prop_assert!(g.deck(&opts).is_ok());
                }
                Err(e) => prop_assert!(listed(name, &e), "{}: {:?}", name, e),
            }
        }
    }

    #[test]
    fn arbitrary_actions_never_panic_and_refusals_change_nothing(
        steps in prop::collection::vec((0usize..8, prop_oneof![arb_json(), arb_action()], any::<bool>()), 1..40),
        seed in any::<u8>(),
    ) {
        for name in names() {
            let seats = *game(name).unwrap().seats().end();
            let mut state = started(name, seats, seed);
            for (i, (seat, action, legal)) in steps.iter().enumerate() {
                if state.stage() != Stage::InHand {
                    break;
                }
                let ctx = Ctx { now_ms: i as i64 * 1000 };
                let to_act = state.to_act();
                if *legal && !to_act.is_empty() {
                    // Mix in real moves so that later phases are reached too.
                    let s = to_act[seat % to_act.len()];
                    let auto = state.auto_action(s);
                    prop_assert!(state.apply(s, &auto, ctx).is_ok(), "{name}: auto action refused");
                    continue;
                }
                let before = state.save();
                let fork = state.fork();
                prop_assert_eq!(&before, &fork.save(), "{}: a fork differs from its state", name);
                if let Err(e) = state.apply(*seat, action, ctx) {
                    prop_assert_eq!(&before, &state.save(), "{}: a refused action changed the state", name);
                    prop_assert!(listed(name, &e), "{}: {:?}", name, e);
                }
                // The server's cache hands out forks of committed states: what happens to one
                // must not reach the other.
                prop_assert_eq!(&before, &fork.save(), "{}: applying to a state changed its fork", name);
                for v in 0..seats {
                    let _ = state.view(Some(v));
                    let _ = state.legal_actions(v);
                }
                let _ = state.view(None);
            }
        }
    }
}
