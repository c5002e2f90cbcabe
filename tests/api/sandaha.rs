//! 衡阳三打哈 through the HTTP server: absent players bid, bury and play a hand out by
//! deadlines and 托管, and a refused bid says which rule it broke.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{assert_problem, spawn_app};

#[tokio::test]
async fn absent_players_finish_a_hand_and_the_points_are_zero_sum() {
    let app = spawn_app().await;
    let v = app.absent_players_play_out("sandaha", 92).await;
    assert!(
        !v.to_string().contains("\"bottom\":["),
        "no seat sees the bottom: {v}"
    );
}

#[tokio::test]
async fn a_bid_that_is_not_the_next_step_is_refused_with_the_rule() {
    let app = spawn_app().await;
    let (id, players) = app
        .table_of_four("sd", 0, "sandaha", json!({"turn_timeout_secs": 60}))
        .await;
    // Seat 0 bids first in hand 1; the only legal first bid is 90.
    let (s, b) = app
        .act(&id, &players[0], json!({"type": "bid", "value": 80}))
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains("90"), "{b}");
    let (s, b) = app.act(&id, &players[1], json!({"type": "pass"})).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
}
