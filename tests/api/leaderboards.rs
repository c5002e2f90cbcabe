//! `GET /v1/leaderboards/{game}`: 积分 best first, ties sharing a rank, paged, with the
//! caller's own place; bots and deleted accounts left out.

use reqwest::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{TestApp, assert_problem, spawn_app};

async fn set_points(app: &TestApp, user: Uuid, game: &str, points: i64) {
    sqlx::query("INSERT INTO scores (user_id, game, points) VALUES ($1, $2, $3)")
        .bind(user)
        .bind(game)
        .bind(points)
        .execute(&app.pool)
        .await
        .unwrap();
}

fn rows(page: &Value) -> Vec<(i64, String, i64)> {
    page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["rank"].as_i64().unwrap(),
                e["username"].as_str().unwrap().to_string(),
                e["points"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_board_ranks_ties_together_pages_and_places_the_caller() {
    let app = spawn_app().await;
    let mut players = Vec::new();
    for (name, points) in [
        ("dora", 5),
        ("carl", 12),
        ("anna", 37),
        ("bert", 12),
        ("emil", -3),
        ("fred", 12),
    ] {
        let p = app.register(name).await;
        set_points(&app, p.id, "dazha", points).await;
        players.push(p);
    }
    // Another game's 积分, a bot's and a deleted account's are not on the board.
    set_points(&app, players[0].id, "shengji", 99).await;
    let gone = app.register("gone").await;
    set_points(&app, gone.id, "dazha", 50).await;
    app.delete_account(&gone).await;
    let (s, v) = app
        .post(
            "/v1/matches",
            &players[0].token,
            json!({"game": "shengji", "bots": 3, "options": {"turn_timeout_secs": 600}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let bot: Uuid = v["seats"][3]["user_id"].as_str().unwrap().parse().unwrap();
    set_points(&app, bot, "dazha", 80).await;
    let newcomer = app.register("gina").await;

    let dora = &players[0].token;
    let (s, all) = app.get("/v1/leaderboards/dazha", dora).await;
    assert_eq!(s, StatusCode::OK, "{all}");
    assert_eq!(all["game"], "dazha");
    let want = vec![
        (1, "anna".to_string(), 37),
        (2, "bert".to_string(), 12),
        (2, "carl".to_string(), 12),
        (2, "fred".to_string(), 12),
        (5, "dora".to_string(), 5),
        (6, "emil".to_string(), -3),
    ];
    assert_eq!(rows(&all), want);
    assert_eq!(all["next_cursor"], Value::Null);
    assert_eq!(all["me"], json!({"rank": 5, "points": 5}));
    assert_eq!(all["entries"][0]["user_id"], json!(players[2].id));

    // Pages of two, through the tie: the same entries in the same order.
    let mut paged = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/leaderboards/dazha?limit=2&cursor={c}"),
            None => "/v1/leaderboards/dazha?limit=2".to_string(),
        };
        let (s, page) = app.get(&path, &players[4].token).await;
        assert_eq!(s, StatusCode::OK, "{page}");
        assert_eq!(page["me"], json!({"rank": 6, "points": -3}));
        paged.extend(rows(&page));
        pages += 1;
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!((paged, pages), (want, 3));

    // Someone without 积分 in the game sees the board, and no place of their own.
    let (s, page) = app
        .get("/v1/leaderboards/dazha?limit=1", &newcomer.token)
        .await;
    assert_eq!(s, StatusCode::OK, "{page}");
    assert_eq!(page["me"], Value::Null);
    assert_eq!(rows(&page), vec![(1, "anna".to_string(), 37)]);
    let (s, page) = app.get("/v1/leaderboards/chehuzi", dora).await;
    assert_eq!(s, StatusCode::OK, "{page}");
    assert_eq!((&page["entries"], &page["me"]), (&json!([]), &Value::Null));
}

#[tokio::test]
async fn the_board_refuses_what_it_cannot_serve() {
    let app = spawn_app().await;
    let p = app.register("hana").await;
    let (s, b) = app.get("/v1/leaderboards/poker", &p.token).await;
    assert_problem(s, &b, StatusCode::NOT_FOUND, "not_found");
    for q in [
        "limit=0",
        "limit=101",
        "limit=x",
        "cursor=nonsense",
        "order=asc",
    ] {
        let (s, b) = app
            .get(&format!("/v1/leaderboards/dazha?{q}"), &p.token)
            .await;
        assert_problem(s, &b, StatusCode::BAD_REQUEST, "validation_failed");
    }
    let (s, b) = app
        .call(reqwest::Method::GET, "/v1/leaderboards/dazha", None, None)
        .await;
    assert_problem(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
}
