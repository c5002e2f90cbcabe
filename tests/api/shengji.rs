//! 四副牌升级 through the HTTP server: a table of absent players is played out by deadlines and
//! 托管, and a refused action says which rule it broke.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{Player, TestApp, assert_problem, spawn_app};

async fn table(app: &TestApp, hands: u32) -> (String, Vec<Player>) {
    let mut players = Vec::new();
    for name in ["ann", "ben", "cat", "dan"] {
        players.push(app.player(name, 0).await);
    }
    let (s, v) = app
        .post(
            "/v1/matches",
            &players[0].token,
            json!({"game": "shengji", "options": {"turn_timeout_secs": 1, "hands": hands}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    for p in &players[1..] {
        let (s, v) = app
            .post(&format!("/v1/matches/{id}/join"), &p.token, json!({}))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    (id, players)
}

#[tokio::test]
async fn absent_players_finish_a_hand_and_the_points_are_zero_sum() {
    let app = spawn_app().await;
    let (id, players) = table(&app, 1).await;
    let v = app.view(&id, &players[0]).await;
    assert_eq!(v["phase"], "declaring", "{v}");
    assert_eq!(
        v["state"]["hand"].as_array().map(Vec::len),
        Some(54),
        "each seat holds 54 cards: {v}"
    );
    let v = app
        .wait_for(&id, &players[0], 120, |v| v["status"] == "finished")
        .await;
    let points: i64 = v["last_result"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .sum();
    assert_eq!(points, 0, "{v}");
    let (s, replay) = app
        .get(&format!("/v1/matches/{id}/replay"), &players[1].token)
        .await;
    assert_eq!(s, StatusCode::OK, "{replay}");
    assert_eq!(replay["hands"][0]["deck"].as_array().unwrap().len(), 216);
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn a_declaration_without_twos_is_refused_with_the_rule() {
    let app = spawn_app().await;
    let (id, players) = table(&app, 1).await;
    let v = app.view(&id, &players[0]).await;
    let seat = v["to_act"][0].as_u64().unwrap() as usize;
    let p = players
        .iter()
        .find(|p| p.id.to_string() == v["seats"][seat]["user_id"].as_str().unwrap())
        .unwrap();
    let mine = app.view(&id, p).await;
    let not_two = mine["state"]["hand"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| !c.as_str().unwrap().starts_with('2') && !c.as_str().unwrap().ends_with('J'))
        .unwrap()
        .clone();
    let (s, b) = app
        .act(&id, p, json!({"type": "declare", "cards": [not_two]}))
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains('2'), "{b}");
}
