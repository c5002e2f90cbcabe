//! 定庄: bidding down to 5 in both modes, 限级's base score, and the all-pass redeal inside the
//! hand. `DECK` is the deck an HTTP test can deal (`"deck"`: cards 0..83 to seat i mod 4, 84..91
//! the bottom) to send the same calls.

use serde_json::json;

use super::tests::{
    T0, act, banker_to_decide, bidding, cards, dealt_hand, limited, new_hand, refused, unlimited,
};
use super::*;
use crate::engine::{RuleErrorKind, Visibility};

/// The game's own deck order (`Game::deck`): two decks of S H D C (2, 5…A), RJ, BJ.
const DECK: [&str; 92] = [
    "2S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS", "2H", "5H", "6H", "7H",
    "8H", "9H", "10H", "JH", "QH", "KH", "AH", "2D", "5D", "6D", "7D", "8D", "9D", "10D", "JD",
    "QD", "KD", "AD", "2C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "RJ",
    "BJ", "2S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS", "2H", "5H", "6H",
    "7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH", "2D", "5D", "6D", "7D", "8D", "9D", "10D",
    "JD", "QD", "KD", "AD", "2C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC",
    "RJ", "BJ",
];

/// Seat 0's cards after all four passed on `DECK`'s deal (the second deal of hand 1).
const REDEALT_SEAT_0: [&str; 21] = [
    "7S", "7H", "7D", "7C", "2S", "2D", "2C", "5S", "AH", "QH", "JH", "6H", "6H", "5H", "QD", "JD",
    "5D", "JC", "10C", "6C", "5C",
];

#[test]
fn first_bid_is_90_and_each_later_bid_is_the_standing_bid_less_5() {
    let mut st = dealt_hand();
    let e = refused(&mut st, 0, Action::Bid { value: 85 });
    assert!(e.detail.contains("90"), "{}", e.detail);
    act(&mut st, 0, Action::Bid { value: 90 });
    for wrong in [90, 80, 75, 86] {
        let e = refused(&mut st, 1, Action::Bid { value: wrong });
        assert_eq!(e.kind, RuleErrorKind::Illegal);
    }
    act(&mut st, 1, Action::Bid { value: 85 });
    assert_eq!(
        Sandaha::legal_actions(&st, 2),
        vec![Legal::Bid { value: 80 }, Legal::Pass {}]
    );
}

#[test]
fn a_seat_that_passed_is_out_of_the_bidding() {
    let mut st = dealt_hand();
    act(&mut st, 0, Action::Pass {});
    act(&mut st, 1, Action::Bid { value: 90 });
    act(&mut st, 2, Action::Bid { value: 85 });
    act(&mut st, 3, Action::Pass {});
    let e = refused(&mut st, 0, Action::Bid { value: 80 });
    assert_eq!(e.kind, RuleErrorKind::NotYourTurn);
    assert_eq!(Sandaha::to_act(&st), vec![1]);
    act(&mut st, 1, Action::Pass {});
    // Seats 0, 1 and 3 passed: seat 2 is the banker at 85.
    let v = Sandaha::view(&st, None);
    assert_eq!(
        (v.banker, v.bid, v.base_score),
        (Some(2), Some(85), Some(2))
    );
}

/// Bidding goes down to 5 in both modes (限级 limits the levels, not the bids), and ends at once
/// when 5 is bid.
#[test]
fn bidding_goes_on_below_70_in_both_modes_and_ends_at_once_at_5() {
    for opts in [limited(), unlimited()] {
        let (mut st, _) = new_hand(opts.clone(), Sandaha::deck(&opts));
        for (i, value) in (1..=17).rev().map(|n| 5 * n + 5).enumerate() {
            act(&mut st, i % 4, Action::Bid { value });
            assert_eq!(Sandaha::phase(&st), "bidding", "{value}");
        }
        assert_eq!(Sandaha::legal_actions(&st, 1)[0], Legal::Bid { value: 5 });
        act(&mut st, 1, Action::Bid { value: 5 });
        let v = Sandaha::view(&st, None);
        assert_eq!(v.lowest_bid, 5);
        let base = if opts.limit { 5 } else { 18 };
        assert_eq!(
            (v.banker, v.bid, v.base_score),
            (Some(1), Some(5), Some(base))
        );
        assert_eq!(Sandaha::phase(&st), "trump");
    }
}

/// The seed's example (限级): 叫分60 → 基础分 5 (70分为最低分（喊到70分以下时，也按70分算）); the
/// defenders' target stays the 60 called: 60 points win them the hand (垮庄), 55 do not.
#[test]
fn a_limited_bid_of_60_counts_as_70_for_the_base_score_and_keeps_its_target() {
    let mut st = dealt_hand();
    for (i, value) in [90, 85, 80, 75, 70, 65, 60].into_iter().enumerate() {
        act(&mut st, i % 4, Action::Bid { value });
    }
    for s in [3, 0, 1] {
        act(&mut st, s, Action::Pass {});
    }
    let v = Sandaha::view(&st, None);
    assert_eq!(
        (v.banker, v.bid, v.base_score),
        (Some(2), Some(60), Some(5))
    );
    assert_eq!(limited().base_score(60), 5);
    assert_eq!(unlimited().base_score(60), 7);
    assert_eq!(
        scoring::settle(2, 60, 5, 60),
        (Verdict::Kuazhuang, [5, 5, -15, 5])
    );
    assert_eq!(
        scoring::settle(2, 60, 5, 55),
        (Verdict::Guozhuang, [-10, -10, 30, -10])
    );
}

/// The order of every bidding table: 90 (seat 0), 85, 80, 75, 70, 65 (seat 1), then three passes
/// make seat 1 the banker at 65: base 5 limited (65 counts as 70), 6 unlimited. The `banker`
/// event and the view carry it. An HTTP test can send the same calls on any deck.
#[test]
fn a_65_bid_makes_a_banker_with_base_5_limited_and_6_unlimited() {
    for (opts, base) in [(limited(), 5), (unlimited(), 6)] {
        let (mut st, _) = new_hand(opts, cards(&DECK));
        for (i, value) in [90, 85, 80, 75, 70, 65].into_iter().enumerate() {
            act(&mut st, i % 4, Action::Bid { value });
        }
        act(&mut st, 2, Action::Pass {});
        act(&mut st, 3, Action::Pass {});
        let out = act(&mut st, 0, Action::Pass {});
        let banker = out.events.iter().find(|e| e.kind == "banker").unwrap();
        assert_eq!(banker.seat, Some(1));
        assert_eq!(banker.data["bid"], 65);
        assert_eq!(banker.data["base_score"], base);
        let v = Sandaha::view(&st, Some(1));
        assert_eq!(
            (v.banker, v.bid, v.base_score),
            (Some(1), Some(65), Some(base))
        );
    }
}

#[test]
fn unlimited_bidding_goes_below_70_and_60_is_worth_7() {
    let (mut st, _) = new_hand(unlimited(), Sandaha::deck(&unlimited()));
    for (i, value) in [90, 85, 80, 75, 70, 65, 60].into_iter().enumerate() {
        act(&mut st, i % 4, Action::Bid { value });
    }
    assert_eq!(Sandaha::phase(&st), "bidding");
    for s in [3, 0, 1] {
        act(&mut st, s, Action::Pass {});
    }
    let v = Sandaha::view(&st, None);
    assert_eq!(
        (v.banker, v.bid, v.base_score),
        (Some(2), Some(60), Some(7))
    );
}

#[test]
fn banker_takes_the_bottom_and_only_the_banker_sees_it() {
    let mut st = dealt_hand();
    let bottom = st.table.hand().unwrap().bottom.clone();
    act(&mut st, 0, Action::Bid { value: 90 });
    act(&mut st, 1, Action::Pass {});
    act(&mut st, 2, Action::Pass {});
    let out = act(&mut st, 3, Action::Pass {});
    let shown: Vec<&Event> = out.events.iter().filter(|e| e.kind == "bottom").collect();
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].to, Visibility::Seats(vec![0]));
    assert_eq!(shown[0].data["cards"], json!(bottom));
    assert_eq!(
        Sandaha::view(&st, Some(0)).card_counts,
        vec![29, 21, 21, 21]
    );
}

/// All four pass: the cards are dealt again within the hand (same hand number, no hand end),
/// the same seat bidding first; each seat sees only its own new cards.
#[test]
fn all_four_passing_deals_again_within_the_hand() {
    let (mut st, _) = new_hand(limited(), cards(&DECK));
    assert_eq!(cards(&DECK), Sandaha::deck(&limited()));
    let before = st.table.hand().unwrap().hands.clone();
    let mut out = Outcome::default();
    for s in 0..4 {
        out = act(&mut st, s, Action::Pass {});
    }
    assert!(out.hand_end.is_none(), "a redeal is not a hand's end");
    assert_eq!(Sandaha::stage(&st), Stage::InHand);
    assert_eq!(Sandaha::hand_no(&st), 1);
    assert_eq!(Sandaha::to_act(&st), vec![0]);
    let v = Sandaha::view(&st, Some(0));
    assert_eq!(
        (v.deal, v.first_bidder, v.phase.as_str()),
        (2, 0, "bidding")
    );
    assert!(v.bids.is_empty() && v.standing_bid.is_none());
    let redeal = out.events.iter().find(|e| e.kind == "redeal").unwrap();
    assert_eq!(redeal.to, Visibility::All);
    assert_eq!(redeal.data["deal"], 2);
    let dealt: Vec<&Event> = out.events.iter().filter(|e| e.kind == "dealt").collect();
    assert_eq!(dealt.len(), 4);
    let h = st.table.hand().unwrap();
    for e in dealt {
        let seat = e.seat.unwrap();
        assert_eq!(e.to, Visibility::Seats(vec![seat]));
        assert_eq!(e.data["cards"], json!(h.hands[seat]));
    }
    // The same 92 cards, dealt anew: 21 to each seat, 8 to the bottom.
    let mut all: Vec<Card> = h.hands.iter().flatten().chain(&h.bottom).copied().collect();
    all.sort();
    let mut deck = cards(&DECK);
    deck.sort();
    assert_eq!(all, deck);
    assert!(h.hands.iter().all(|c| c.len() == 21) && h.bottom.len() == 8);
    assert_ne!(h.hands, before);
    // The new deal follows from the old one alone: the replay deals it again.
    assert_eq!(h.hands[0], cards(&REDEALT_SEAT_0));
    let mut again = new_hand(limited(), cards(&DECK)).0;
    for s in 0..4 {
        act(&mut again, s, Action::Pass {});
    }
    assert_eq!(again.table.hand(), st.table.hand());
}

/// A match of `hands: 1` as the service runs it: it deals while `Stage::NeedsDeal` and
/// `hand_no` is below 1, and finishes at `NeedsDeal` once `hand_no` reaches 1. Two all-pass
/// redeals keep the hand going (`InHand`, hand 1); the one hand ends only once played out with a
/// banker.
#[test]
fn a_one_hand_match_keeps_dealing_until_a_hand_has_a_banker() {
    let (mut st, _) = new_hand(limited(), cards(&DECK));
    for _ in 0..2 {
        for s in 0..4 {
            assert!(act(&mut st, s, Action::Pass {}).hand_end.is_none());
        }
        assert_eq!(
            (Sandaha::stage(&st), Sandaha::hand_no(&st)),
            (Stage::InHand, 1)
        );
    }
    let mut t = T0.now_ms;
    let end = loop {
        let seat = Sandaha::to_act(&st)[0];
        let a = Sandaha::auto_action(&st, seat);
        t += 1;
        let out = Sandaha::apply(&mut st, seat, a, Ctx { now_ms: t }).unwrap();
        if let Some(end) = out.hand_end {
            break end;
        }
    };
    assert_eq!(end.hand_no, 1);
    let summary: Summary = serde_json::from_value(end.detail).unwrap();
    assert!(
        matches!(summary, Summary::Played { bid: 90, .. }),
        "{summary:?}"
    );
    assert_eq!(
        (Sandaha::stage(&st), Sandaha::hand_no(&st)),
        (Stage::NeedsDeal, 1)
    );
}

#[test]
fn next_hand_is_bid_first_by_the_seat_after_the_banker() {
    let mut st = banker_to_decide(2);
    act(&mut st, 2, Action::Surrender {});
    assert_eq!(Sandaha::view(&st, None).first_bidder, 3);
}

#[test]
fn timeout_in_bidding_bids_90_for_the_first_bidder_and_passes_otherwise() {
    let mut st = dealt_hand();
    assert_eq!(Sandaha::auto_action(&st, 0), Action::Bid { value: 90 });
    act(&mut st, 0, Action::Bid { value: 90 });
    assert_eq!(Sandaha::auto_action(&st, 1), Action::Pass {});
    assert_eq!(bidding(&st).next_bid(), 85);
}

/// A match stored while a redeal still ended its hand (`last_result` `{"end":"redeal",…}`, a
/// bidding with its mode's lowest bid, no `deal`) loads: that result read as none, deal 1.
#[test]
fn a_state_stored_with_a_redeal_result_still_loads() {
    let (mut st, _) = new_hand(limited(), cards(&DECK));
    act(&mut st, 0, Action::Bid { value: 90 });
    let mut stored = serde_json::to_value(&st).unwrap();
    stored["last_result"] =
        json!({"end": "redeal", "hand_no": 1, "first_bidder": 0, "points": [0, 0, 0, 0]});
    stored["hand"]["phase"]["lowest"] = json!(70);
    stored["hand"].as_object_mut().unwrap().remove("deal");
    let loaded: State = serde_json::from_value(stored).unwrap();
    assert_eq!(loaded.table.last(), None);
    assert_eq!(loaded.table.hand(), st.table.hand());
}

/// A redeal is not worked out from what the seats hold: two decks that deal every seat the same
/// cards and the same bottom, in another order within one seat's cards, deal again differently
/// (three seats together cannot predict the fourth's new hand from their own).
#[test]
fn a_redeal_follows_from_the_deal_order_not_from_the_hands() {
    let deck = cards(&DECK);
    let mut swapped = deck.clone();
    // Cards 0 and 4 both go to seat 0.
    swapped.swap(0, 4);
    assert_ne!(deck[0], deck[4], "the swap changes the order");
    let (mut a, mut b) = (new_hand(limited(), deck).0, new_hand(limited(), swapped).0);
    assert_eq!(
        a.table.hand().unwrap().hands,
        b.table.hand().unwrap().hands,
        "the same sorted hands"
    );
    for s in 0..4 {
        act(&mut a, s, Action::Pass {});
        act(&mut b, s, Action::Pass {});
    }
    assert_ne!(a.table.hand().unwrap().hands, b.table.hand().unwrap().hands);
}
