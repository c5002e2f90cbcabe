//! The rule corrections of the second review (升级 following, 三打哈 bidding, 扯胡子 claims),
//! each played over HTTP from a fixed deck: the same decks and actions as the engines' unit
//! tests (`shengji/deck_tests.rs`, `sandaha/bidding_tests.rs`, `chehuzi/claim_tests.rs`).

use games::fixtures::{QUAD_PAIR_DECK, WEI_DECK, ZIMO_DECK};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, game_deck, spawn_app};

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
    // The refusal names its rule for programs, and speaks Chinese to a Chinese client.
    assert_eq!(b["rule"], "must_play_quad_and_pair", "{b}");
    let english = b["detail"].as_str().unwrap().to_string();
    let version = app.view(&id, &p[1]).await["version"].clone();
    let res = app
        .client
        .post(format!("{}/v1/matches/{id}/actions", app.address))
        .bearer_auth(&p[1].token)
        .header("Accept-Language", "zh-CN,zh;q=0.9,en;q=0.5")
        .json(&json!({"version": version,
                      "action": {"type": "play", "cards": ["7H", "7H", "8H", "8H", "QH", "QH"]}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(res.headers()["content-language"], "zh");
    assert_eq!(res.headers()["vary"], "Accept-Language");
    let zh: Value = res.json().await.unwrap();
    assert_eq!((&zh["code"], &zh["rule"]), (&b["code"], &b["rule"]), "{zh}");
    let detail = zh["detail"].as_str().unwrap();
    assert!(
        detail != english
            && detail
                .chars()
                .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "{zh}"
    );
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
