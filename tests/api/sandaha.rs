//! 衡阳三打哈 through the HTTP server: absent players bid, bury and play a hand out by
//! deadlines and 托管, and a refused bid says which rule it broke.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{Player, TestApp, assert_problem, spawn_app};

async fn table(app: &TestApp) -> (String, Vec<Player>) {
    let mut players = Vec::new();
    for name in ["ann", "ben", "cat", "dan"] {
        players.push(app.player(name, 0).await);
    }
    let (s, v) = app
        .post(
            "/v1/matches",
            &players[0].token,
            json!({"game": "sandaha", "options": {"turn_timeout_secs": 1, "hands": 1}}),
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
    let (id, players) = table(&app).await;
    let v = app.view(&id, &players[1]).await;
    assert!(
        !v.to_string().contains("bottom\":["),
        "no seat sees the bottom: {v}"
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
    assert_eq!(replay["hands"][0]["deck"].as_array().unwrap().len(), 92);
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn a_bid_that_is_not_the_next_step_is_refused_with_the_rule() {
    let app = spawn_app().await;
    let (id, players) = table(&app).await;
    // Seat 0 bids first in hand 1; the only legal first bid is 90.
    let (s, b) = app
        .act(&id, &players[0], json!({"type": "bid", "value": 80}))
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains("90"), "{b}");
    let (s, b) = app.act(&id, &players[1], json!({"type": "pass"})).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
}
