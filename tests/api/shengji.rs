//! 四副牌升级 through the HTTP server: a table of absent players is played out by deadlines and
//! 托管, and a refused action says which rule it broke.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{assert_problem, spawn_app};

#[tokio::test]
async fn absent_players_finish_a_hand_and_the_points_are_zero_sum() {
    spawn_app()
        .await
        .absent_players_play_out("shengji", 216)
        .await;
}

#[tokio::test]
async fn each_seat_is_dealt_54_cards_and_declares_first() {
    let app = spawn_app().await;
    let (id, players) = app
        .table_of_four("sj", 0, "shengji", json!({"turn_timeout_secs": 60}))
        .await;
    let v = app.view(&id, &players[0]).await;
    assert_eq!(v["phase"], "declaring", "{v}");
    assert_eq!(
        v["state"]["hand"].as_array().map(Vec::len),
        Some(54),
        "each seat holds 54 cards: {v}"
    );
}

#[tokio::test]
async fn a_declaration_without_twos_is_refused_with_the_rule() {
    let app = spawn_app().await;
    let (id, players) = app
        .table_of_four("sj", 0, "shengji", json!({"turn_timeout_secs": 60}))
        .await;
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
