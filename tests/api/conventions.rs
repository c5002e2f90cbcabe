//! HTTP conventions a proxy, a browser or an operator's script relies on: weak validators,
//! private caching of views, 405 with `Allow`, `Location` on every create, and cursors on
//! every list.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app};

/// Sends a request and returns the status, the headers and the JSON body.
async fn raw(
    app: &TestApp,
    method: Method,
    path: &str,
    token: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let mut req = app
        .client
        .request(method, format!("{}{path}", app.address))
        .bearer_auth(token);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.unwrap();
    let (status, headers) = (res.status(), res.headers().clone());
    let text = res.text().await.unwrap();
    (
        status,
        headers,
        serde_json::from_str(&text).unwrap_or(Value::Null),
    )
}

fn header<'a>(h: &'a reqwest::header::HeaderMap, name: &str) -> &'a str {
    h.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}

#[tokio::test]
async fn views_are_private_and_revalidate_with_a_weak_validator() {
    let app = spawn_app().await;
    let p = app.player("etag", 100).await;
    let (s, h, v) = raw(
        &app,
        Method::POST,
        "/v1/matches",
        &p.token,
        &[],
        Some(json!({"game": "chexuan", "seats": 2})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap();
    assert_eq!(header(&h, "location"), format!("/v1/matches/{id}"));
    assert_eq!(header(&h, "cache-control"), "private, no-cache");
    let path = format!("/v1/matches/{id}");
    let (s, h, _) = raw(&app, Method::GET, &path, &p.token, &[], None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(header(&h, "cache-control"), "private, no-cache");
    let etag = header(&h, "etag").to_string();
    assert_eq!(etag, format!("\"{}\"", v["version"]));
    // A proxy that compresses the body weakens the validator it hands back.
    let weak = format!("W/{etag}");
    let (s, h, _) = raw(
        &app,
        Method::GET,
        &path,
        &p.token,
        &[("If-None-Match", &weak)],
        None,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_MODIFIED);
    assert_eq!(header(&h, "etag"), etag);
    let (s, _, _) = raw(
        &app,
        Method::GET,
        &path,
        &p.token,
        &[("If-None-Match", "W/\"999\"")],
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn a_wrong_method_is_405_with_allow() {
    let app = spawn_app().await;
    let p = app.register("method").await;
    let (s, h, b) = raw(&app, Method::PATCH, "/v1/me", &p.token, &[], None).await;
    assert_problem(s, &b, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    assert_eq!(header(&h, "allow"), "GET, DELETE");
    let id = uuid::Uuid::new_v4();
    let (s, h, b) = raw(
        &app,
        Method::PUT,
        &format!("/v1/tournaments/{id}/register"),
        &p.token,
        &[],
        None,
    )
    .await;
    assert_problem(s, &b, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    assert_eq!(header(&h, "allow"), "POST, DELETE");
    let (s, _, b) = raw(&app, Method::GET, "/v1/nowhere", &p.token, &[], None).await;
    assert_problem(s, &b, StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn every_create_answers_201_with_a_location_that_reads_it() {
    let app = spawn_app().await;
    let (s, h, b) = raw(
        &app,
        Method::POST,
        "/v1/auth/register",
        "",
        &[],
        Some(json!({"username": "located", "password": "password123"})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    assert_eq!(header(&h, "location"), "/v1/me");
    let user = b["user"]["id"].as_str().unwrap().to_string();

    let (s, h, b) = raw(
        &app,
        Method::POST,
        "/v1/admin/grants",
        &app.admin_token,
        &[],
        Some(json!({"user_id": user, "amount": 300})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let location = header(&h, "location").to_string();
    assert_eq!(location, format!("/v1/admin/users/{user}"));
    let (s, who) = app.get(&location, &app.admin_token).await;
    assert_eq!((s, &who["coins"]), (StatusCode::OK, &json!(300)), "{who}");

    let org = app.organiser("organiser").await;
    let starts_at = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let (s, h, t) = raw(
        &app,
        Method::POST,
        "/v1/tournaments",
        &org.token,
        &[],
        Some(
            json!({"game": "dazha", "entry_fee": 10, "starts_at": starts_at, "hands_per_round": 4}),
        ),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{t}");
    let tid = t["id"].as_str().unwrap();
    assert_eq!(header(&h, "location"), format!("/v1/tournaments/{tid}"));
    let p = app.player("entrant", 50).await;
    let (s, h, _) = raw(
        &app,
        Method::POST,
        &format!("/v1/tournaments/{tid}/register"),
        &p.token,
        &[],
        Some(json!({})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(header(&h, "location"), format!("/v1/tournaments/{tid}"));

    let q = app.player("queued", 100).await;
    let (s, h, b) = raw(
        &app,
        Method::POST,
        "/v1/lobby/dazha/queue",
        &q.token,
        &[],
        Some(json!({"stake": 1})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let (s, entry) = app.get(header(&h, "location"), &q.token).await;
    assert_eq!((s, &entry["status"]), (StatusCode::OK, &json!("queued")));
}

#[tokio::test]
async fn lists_page_with_cursors_instead_of_capping() {
    let app = spawn_app().await;
    let p = app.player("pager", 0).await;
    for amount in [1, 2, 3] {
        let (s, _) = app
            .post(
                "/v1/admin/grants",
                &app.admin_token,
                json!({"user_id": p.id, "amount": amount}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED);
    }
    let (_, page) = app.get("/v1/me/ledger?limit=2", &p.token).await;
    let amounts: Vec<i64> = page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["amount"].as_i64().unwrap())
        .collect();
    assert_eq!(amounts, [3, 2]);
    assert_eq!(page["has_more"], true);
    let (_, last) = app
        .get(
            &format!("/v1/me/ledger?limit=2&before={}", page["next_before"]),
            &p.token,
        )
        .await;
    assert_eq!(last["entries"][0]["amount"], 1);
    assert_eq!(
        (&last["has_more"], &last["next_before"]),
        (&json!(false), &Value::Null)
    );

    let org = app.organiser("organiser").await;
    let mut made = Vec::new();
    for hours in [1, 2, 3] {
        let starts_at = (chrono::Utc::now() + chrono::Duration::hours(hours)).to_rfc3339();
        let (_, t) = app
            .post(
                "/v1/tournaments",
                &org.token,
                json!({"game": "dazha", "entry_fee": 0, "starts_at": starts_at, "hands_per_round": 4}),
            )
            .await;
        made.push(t["id"].clone());
    }
    let (_, first) = app.get("/v1/tournaments?limit=2", &org.token).await;
    let ids: Vec<&Value> = first["tournaments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["id"])
        .collect();
    assert_eq!(ids, [&made[2], &made[1]], "newest start first");
    assert_eq!(first["has_more"], true);
    let cursor = first["next_before"].as_str().unwrap();
    let (_, second) = app
        .get(
            &format!("/v1/tournaments?limit=2&before={cursor}"),
            &org.token,
        )
        .await;
    assert_eq!(second["tournaments"][0]["id"], made[0]);
    assert_eq!(second["tournaments"].as_array().unwrap().len(), 1);
    assert_eq!(second["has_more"], false);
    let (s, b) = app.get("/v1/tournaments?before=garbage", &org.token).await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");

    let (s, v) = app
        .post(
            "/v1/matches",
            &p.token,
            json!({"game": "chexuan", "seats": 2}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let events = format!("/v1/matches/{}/events", v["id"].as_str().unwrap());
    let (_, one) = app.get(&format!("{events}?limit=1"), &p.token).await;
    assert_eq!(one["events"].as_array().unwrap().len(), 1);
    assert_eq!(one["has_more"], true);
    let (_, rest) = app
        .get(&format!("{events}?after={}", one["next_after"]), &p.token)
        .await;
    assert!(!rest["events"].as_array().unwrap().is_empty());
    assert_eq!(rest["has_more"], false);
}

#[tokio::test]
async fn an_admin_finds_a_user_by_name() {
    let app = spawn_app().await;
    let p = app.player("Findable", 40).await;
    let (s, b) = app
        .get("/v1/admin/users?username=findable", &app.admin_token)
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["users"][0]["id"], json!(p.id));
    assert_eq!(b["users"][0]["coins"], 40);
    let (_, none) = app
        .get("/v1/admin/users?username=nobody", &app.admin_token)
        .await;
    assert_eq!(none["users"], json!([]));
    let (s, b) = app.get("/v1/admin/users?username=findable", &p.token).await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");
}
