//! Regression tests from the rules review.

use crate::engine::{parse_options, view_json};
use serde_json::json;

use super::*;
use crate::engine::Ctx;

const T0: i64 = 1_700_000_000_000;

fn ctx() -> Ctx {
    Ctx { now_ms: T0 }
}

/// Wallets near i64::MAX: the table total, a winner's payout and the settlement sums must not
/// overflow (a panic in debug builds, wrapped coin amounts in release builds).
#[test]
fn huge_wallets_settle_without_overflow() {
    let opts = parse_options::<Chexuan>(2, &json!({})).unwrap();
    let mut st = Chexuan::new_match(opts, 2);
    Chexuan::start_hand(
        &mut st,
        HandStart {
            deck: deck_for_hands(&[
                crate::hand!["QH", "QD", "2H", "2D"],
                crate::hand!["5S", "7S", "9C", "JS"],
            ]),
            ctx: ctx(),
            wallets: vec![i64::MAX, i64::MAX],
            scores: vec![0, 0],
        },
    );
    for seat in 0..2 {
        let Legal::SetBobo { max, .. } = Chexuan::legal_actions(&st, seat)[0] else {
            panic!("the 簸簸 phase offers set_bobo first");
        };
        Chexuan::apply(&mut st, seat, Action::SetBobo { amount: max }, ctx()).unwrap();
    }
    let mut result = None;
    for _ in 0..20 {
        let _ = view_json::<Chexuan>(&st, None);
        let Some(&seat) = Chexuan::to_act(&st).first() else {
            break;
        };
        let action = match Chexuan::phase(&st) {
            "betting"
                if Chexuan::legal_actions(&st, seat)
                    .iter()
                    .any(|a| matches!(a, Legal::AllIn { .. })) =>
            {
                Action::AllIn {}
            }
            "betting" => Action::Call {},
            _ => Chexuan::auto_action(&st, seat),
        };
        let out = Chexuan::apply(&mut st, seat, action, ctx()).unwrap();
        if out.hand_end.is_some() {
            result = out.hand_end;
            break;
        }
    }
    let r = result.expect("the hand ends at the showdown");
    assert_eq!(r.coins.iter().sum::<i64>(), 0);
    assert!(r.coins[0] > 0, "天牌/地牌 beats the 杂 hand: {:?}", r.coins);
}
