//! The rule corrections of the second review (升级 following, 三打哈 bidding, 扯胡子 claims),
//! each played over HTTP from a fixed deck: the same decks and actions as the engines' unit
//! tests (`shengji/deck_tests.rs`, `sandaha/bidding_tests.rs`, `chehuzi/claim_tests.rs`).

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, game_deck, spawn_app};

/// Seat 0 holds ♥66 77 88; seat 1 ♥AAAA QQ 77 88 and no six-card tractor.
const QUAD_PAIR_DECK: [&str; 216] = [
    "6H", "AH", "2H", "4H", "6H", "AH", "9H", "10H", "7H", "AH", "KH", "2H", "7H", "AH", "4H",
    "5H", "8H", "QH", "10H", "JH", "8H", "QH", "2H", "3H", "5H", "7H", "5H", "6H", "JH", "7H",
    "10H", "JH", "3H", "8H", "KH", "2H", "9H", "8H", "4H", "5H", "KH", "3H", "9H", "10H", "4H",
    "KC", "QH", "KH", "9H", "AC", "RJ", "BJ", "QH", "RJ", "BJ", "2S", "3H", "BJ", "2S", "3S", "6H",
    "2S", "3S", "4S", "JH", "3S", "4S", "5S", "2S", "4S", "5S", "6S", "3S", "5S", "6S", "7S", "4S",
    "6S", "7S", "8S", "5S", "7S", "8S", "9S", "6S", "8S", "9S", "10S", "7S", "9S", "10S", "JS",
    "8S", "10S", "JS", "QS", "9S", "JS", "QS", "KS", "10S", "QS", "KS", "AS", "JS", "KS", "AS",
    "2D", "QS", "AS", "2D", "3D", "KS", "2D", "3D", "4D", "AS", "3D", "4D", "5D", "2D", "4D", "5D",
    "6D", "3D", "5D", "6D", "7D", "4D", "6D", "7D", "8D", "5D", "7D", "8D", "9D", "6D", "8D", "9D",
    "10D", "7D", "9D", "10D", "JD", "8D", "10D", "JD", "QD", "9D", "JD", "QD", "KD", "10D", "QD",
    "KD", "AD", "JD", "KD", "AD", "2C", "QD", "AD", "2C", "3C", "KD", "2C", "3C", "4C", "AD", "3C",
    "4C", "5C", "2C", "4C", "5C", "6C", "3C", "5C", "6C", "7C", "4C", "6C", "7C", "8C", "5C", "7C",
    "8C", "9C", "6C", "8C", "9C", "10C", "7C", "9C", "10C", "JC", "8C", "10C", "JC", "QC", "9C",
    "JC", "QC", "KC", "10C", "QC", "KC", "AC", "JC", "KC", "AC", "RJ", "QC", "AC", "RJ", "BJ",
];

/// Seat 1 wins once s8 s8 becomes a 偎 of s8: it draws s8 after seat 0's b2.
const WEI_DECK: [&str; 82] = [
    "b2", "b1", "s1", "s1", "b1", "s2", "s1", "b1", "s7", "s1", "b3", "s9", "s2", "b3", "s9", "s2",
    "b3", "s10", "s2", "b4", "s10", "s3", "b4", "s10", "s3", "b4", "b1", "s3", "s3", "b2", "s4",
    "s4", "b3", "s4", "s5", "b4", "s5", "s4", "b5", "s5", "s5", "b5", "s6", "s6", "b5", "s6", "s9",
    "b6", "s6", "s9", "b6", "s7", "b9", "b6", "s7", "s8", "b7", "s7", "s8", "b7", "s8", "s8",
    "s10", "b2", "b2", "b5", "b6", "b7", "b7", "b8", "b8", "b8", "b8", "b9", "b9", "b9", "b10",
    "b10", "b10", "b10", "W", "W",
];

/// Seats 1 and 2 both win with s6, which seat 1 draws after seat 0's b2.
const ZIMO_DECK: [&str; 82] = [
    "b2", "b1", "b5", "s1", "b1", "b5", "s1", "b1", "b5", "s1", "b3", "b6", "s2", "b3", "b6", "s2",
    "b3", "b6", "s2", "b4", "b9", "s3", "b4", "b9", "s3", "b4", "b9", "s4", "s3", "s7", "s5", "s4",
    "s8", "s6", "s5", "s9", "s7", "s4", "s1", "s7", "s5", "s2", "s7", "s9", "s3", "s8", "s9", "s4",
    "s8", "b9", "s5", "s9", "s8", "s10", "s10", "b8", "s10", "s10", "b8", "b10", "b1", "s6", "s6",
    "s6", "b2", "b2", "b2", "b3", "b4", "b5", "b6", "b7", "b7", "b7", "b7", "b8", "b8", "b10",
    "b10", "b10", "W", "W",
];

async fn act_ok(app: &TestApp, id: &str, p: &Player, action: Value) -> Value {
    let (s, v) = app.act(id, p, action.clone()).await;
    assert_eq!(s, StatusCode::OK, "{action}: {v}");
    v
}

/// 升级: after a lead of ♥667788 a follower holding ♥AAAA QQ 7788 (no six-card tractor) must
/// play the quad and the pair (the seed's six-card table); the shorter tractor and a pair is
/// refused with the rule named.
#[tokio::test]
async fn a_shengji_follow_that_breaks_the_six_card_table_is_refused_with_the_rule() {
    let app = spawn_app().await;
    let (id, p) = app
        .admin_table_of_four(
            "sj",
            "shengji",
            json!({"turn_timeout_secs": 600}),
            &QUAD_PAIR_DECK,
        )
        .await;
    for player in &p {
        act_ok(&app, &id, player, json!({"type": "pass"})).await;
    }
    act_ok(
        &app,
        &id,
        &p[0],
        json!({"type": "play", "cards": ["6H", "6H", "7H", "7H", "8H", "8H"]}),
    )
    .await;
    let v = app.view(&id, &p[1]).await;
    assert_eq!(
        v["legal_actions"],
        json!([{"type": "play", "count": 6, "lead": false,
                "shapes": [{"shape": "quad_and_pair"}]}]),
        "{v}"
    );
    let (s, b) = app
        .act(
            &id,
            &p[1],
            json!({"type": "play", "cards": ["7H", "7H", "8H", "8H", "QH", "QH"]}),
        )
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains("4个+1个对子"), "{b}");
    let v = act_ok(
        &app,
        &id,
        &p[1],
        json!({"type": "play", "cards": ["AH", "AH", "AH", "AH", "QH", "QH"]}),
    )
    .await;
    assert_eq!(v["to_act"], json!([2]), "{v}");
}

/// 三打哈 限级: bids go on below 70; a 65 makes a banker whose base score counts it as 70 (5),
/// while the defenders' target stays 65. An all-pass redeal stays inside the hand: a one-hand
/// match deals again and finishes only after a hand with a banker.
#[tokio::test]
async fn a_sandaha_bid_of_65_makes_a_banker_with_base_5_and_a_redeal_stays_in_the_hand() {
    let app = spawn_app().await;
    let options = json!({"turn_timeout_secs": 600, "hands": 1});
    let deck = game_deck("sandaha", json!({}));
    let (id, p) = app
        .admin_table_of_four("sdh", "sandaha", options.clone(), &deck)
        .await;
    for (seat, value) in [(0, 90), (1, 85), (2, 80), (3, 75), (0, 70), (1, 65)] {
        act_ok(&app, &id, &p[seat], json!({"type": "bid", "value": value})).await;
    }
    for seat in [2, 3, 0] {
        act_ok(&app, &id, &p[seat], json!({"type": "pass"})).await;
    }
    let v = app.view(&id, &p[1]).await;
    let st = &v["state"];
    assert_eq!(
        (st["banker"].clone(), st["bid"].clone()),
        (json!(1), json!(65)),
        "{v}"
    );
    assert_eq!(
        st["base_score"], 5,
        "限级: 65 counts as 70 for the base: {v}"
    );

    // The same deck, four passes: dealt again inside hand 1, and the match goes on.
    let (id, p) = app
        .admin_table_of_four("rdl", "sandaha", options, &deck)
        .await;
    for player in &p {
        act_ok(&app, &id, player, json!({"type": "pass"})).await;
    }
    let v = app.view(&id, &p[0]).await;
    assert_eq!(v["status"], "playing", "{v}");
    assert_eq!(v["hand_no"], 1, "{v}");
    assert_eq!(v["phase"], "bidding", "{v}");
    assert_eq!(v["state"]["deal"], 2, "{v}");
    assert_eq!(v["to_act"], json!([0]), "{v}");
    assert!(v["last_result"].is_null(), "no hand ended: {v}");
}

/// 扯胡子: a card a forced 偎 puts down is no one's to 胡, the drawer's included: the drawer
/// goes on with its discard, and no 胡 is offered.
#[tokio::test]
async fn a_chehuzi_wei_draw_is_followed_by_the_drawers_discard_with_no_hu_offered() {
    let app = spawn_app().await;
    let options = json!({"turn_timeout_secs": 600, "claim_timeout_secs": 600, "hands": 1});
    let (id, p) = app
        .admin_table(3, "wei", "chehuzi", options, &WEI_DECK)
        .await;
    let v = act_ok(&app, &id, &p[0], json!({"type": "discard", "card": "b2"})).await;
    assert_eq!(v["phase"], "discard", "{v}");
    let v1 = app.view(&id, &p[1]).await;
    assert_eq!(v1["to_act"], json!([1]), "{v1}");
    assert_eq!(
        v1["legal_actions"],
        json!([{"type": "discard", "cards": ["b9", "s9", "s6", "s5", "s4", "s3"]}]),
        "no 胡 on a card put down by a forced 偎: {v1}"
    );
    let v = act_ok(&app, &id, &p[1], json!({"type": "discard", "card": "s6"})).await;
    assert_eq!(v["status"], "playing", "{v}");
}

/// 扯胡子: two seats may 胡 on the card seat 1 drew; the drawer's 自摸 comes first, so seat 2's
/// 胡 (sent first) waits, and seat 1's wins the hand.
#[tokio::test]
async fn a_chehuzi_drawers_zimo_beats_another_seats_hu_on_the_same_card() {
    let app = spawn_app().await;
    let options = json!({"turn_timeout_secs": 600, "claim_timeout_secs": 600, "hands": 1});
    let (id, p) = app
        .admin_table(3, "zm", "chehuzi", options, &ZIMO_DECK)
        .await;
    act_ok(&app, &id, &p[0], json!({"type": "discard", "card": "b2"})).await;
    let v2 = app.view(&id, &p[2]).await;
    assert_eq!(
        v2["state"]["claim"],
        json!({"card": "s6", "from": 1, "source": "draw"}),
        "{v2}"
    );
    assert!(
        v2["legal_actions"]
            .as_array()
            .unwrap()
            .contains(&json!({"type": "hu"})),
        "{v2}"
    );
    let v = act_ok(&app, &id, &p[2], json!({"type": "hu"})).await;
    assert_eq!(
        v["status"], "playing",
        "seat 2's 胡 waits for the drawer: {v}"
    );
    let v = act_ok(&app, &id, &p[1], json!({"type": "hu"})).await;
    assert_eq!(v["status"], "finished", "{v}");
    let r = &v["last_result"];
    assert_eq!(r["detail"]["winner"], 1, "{r}");
    assert_eq!(r["detail"]["win"]["self_drawn"], true, "{r}");
    assert_eq!(r["points"], json!([-16, 32, -16]), "{r}");
}
