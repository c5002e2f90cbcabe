use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::{assert_problem, fresh_database, spawn_app, spawn_app_with};

#[tokio::test]
async fn register_login_and_me() {
    let app = spawn_app().await;
    let (status, body) = app
        .call(
            Method::POST,
            "/v1/auth/register",
            None,
            Some(json!({"username": "ann_1", "password": "password123"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(body["user"]["username"], "ann_1");
    assert_eq!(body["user"]["role"], "player");
    let token = body["access_token"].as_str().unwrap();

    let (status, me) = app.get("/v1/me", token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["coins"], 0);
    assert_eq!(me["scores"], json!({}));

    let (status, body) = app
        .call(
            Method::POST,
            "/v1/auth/login",
            None,
            Some(json!({"username": "ann_1", "password": "password123"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["user"]["id"], me["id"]);

    let (status, body) = app
        .call(
            Method::POST,
            "/v1/auth/login",
            None,
            Some(json!({"username": "ann_1", "password": "password124"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["code"], "unauthorized");
}

#[tokio::test]
async fn registration_input_is_checked() {
    let app = spawn_app().await;
    app.register("bob").await;
    let cases = [
        (
            json!({"username": "bob", "password": "password123"}),
            StatusCode::CONFLICT,
            "conflict",
        ),
        (
            json!({"username": "BOB", "password": "password123"}),
            StatusCode::CONFLICT,
            "conflict",
        ),
        (
            json!({"username": "b", "password": "password123"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
        ),
        (
            json!({"username": "bad name", "password": "password123"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
        ),
        (
            json!({"username": "carl", "password": "short"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
        ),
        (
            json!({"username": "carl", "password": "password123", "admin": true}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
        ),
        (
            json!({"username": 5, "password": "password123"}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
        ),
    ];
    for (body, status, code) in cases {
        let (s, b) = app
            .call(Method::POST, "/v1/auth/register", None, Some(body.clone()))
            .await;
        assert_eq!(
            (s, b["code"].as_str().unwrap()),
            (status, code),
            "{body} → {b}"
        );
        assert!(!b["detail"].as_str().unwrap().is_empty());
    }
    let res = app
        .client
        .post(format!("{}/v1/auth/register", app.address))
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let big = "x".repeat(100_000);
    let (s, b) = app
        .call(
            Method::POST,
            "/v1/auth/register",
            None,
            Some(json!({"username": big, "password": big})),
        )
        .await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{b}");
}

#[tokio::test]
async fn tokens_are_checked() {
    let app = spawn_app().await;
    let p = app.register("carol").await;
    let (s, b) = app.call(Method::GET, "/v1/me", None, None).await;
    assert_problem(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    // alg: none with the real claims.
    let claims = p.token.split('.').nth(1).unwrap();
    let none = format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{claims}.");
    let (s, _) = app.get("/v1/me", &none).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    // A forged signature.
    let mut parts: Vec<&str> = p.token.split('.').collect();
    parts[2] = "c2lnbmF0dXJlLWZvcmdlZA";
    let (s, _) = app.get("/v1/me", &parts.join(".")).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, _) = app.get("/v1/me", "garbage").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn grants_and_roles_are_admin_only() {
    let app = spawn_app().await;
    let p = app.register("dave").await;
    let (s, b) = app
        .post(
            "/v1/admin/grants",
            &p.token,
            json!({"user_id": p.id, "amount": 100}),
        )
        .await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");

    let (s, entry) = app
        .post(
            "/v1/admin/grants",
            &app.admin_token,
            json!({"user_id": p.id, "amount": 250, "note": "welcome"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{entry}");
    assert_eq!(entry["amount"], 250);
    assert_eq!(entry["balance_after"], 250);
    assert_eq!(entry["reason"], "grant");
    for bad in [
        json!(0),
        json!(-5),
        json!(10_000_000_000_000i64),
        json!("7"),
    ] {
        let (s, _) = app
            .post(
                "/v1/admin/grants",
                &app.admin_token,
                json!({"user_id": p.id, "amount": bad}),
            )
            .await;
        assert!(
            s == StatusCode::UNPROCESSABLE_ENTITY || s == StatusCode::BAD_REQUEST,
            "{bad}: {s}"
        );
    }
    let (s, _) = app
        .post(
            "/v1/admin/grants",
            &app.admin_token,
            json!({"user_id": uuid::Uuid::new_v4(), "amount": 5}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (_, ledger) = app.get("/v1/me/ledger", &p.token).await;
    assert_eq!(ledger["entries"].as_array().unwrap().len(), 1);
    assert_eq!(ledger["entries"][0]["id"], entry["id"]);
    app.assert_ledger_reconciles().await;

    // Role change takes effect on the next token.
    let (s, b) = app
        .call(
            Method::PUT,
            &format!("/v1/admin/users/{}/role", p.id),
            Some(&p.token),
            Some(json!({"role": "admin"})),
        )
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{b}");
    let (s, b) = app
        .call(
            Method::PUT,
            &format!("/v1/admin/users/{}/role", p.id),
            Some(&app.admin_token),
            Some(json!({"role": "organiser"})),
        )
        .await;
    assert_eq!((s, b["role"].as_str()), (StatusCode::OK, Some("organiser")));
    let (s, _) = app
        .call(
            Method::PUT,
            &format!("/v1/admin/users/{}/role", p.id),
            Some(&app.admin_token),
            Some(json!({"role": "king"})),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (_, me) = app.get("/v1/me", &p.token).await;
    assert_eq!(me["role"], "organiser");
    let (_, login) = app
        .call(
            Method::POST,
            "/v1/auth/login",
            None,
            Some(json!({"username": "dave", "password": "password123"})),
        )
        .await;
    assert_eq!(login["user"]["role"], "organiser");
}

#[tokio::test]
async fn health_and_unknown_routes() {
    let app = spawn_app().await;
    let (s, b) = app.call(Method::GET, "/healthz", None, None).await;
    assert_eq!((s, b), (StatusCode::OK, json!({"status": "ok"})));
    let (s, b) = app.call(Method::GET, "/v1/nothing", None, None).await;
    assert_problem(s, &b, StatusCode::NOT_FOUND, "not_found");
    let (s, b) = app.get("/v1/matches/not-a-uuid", &app.admin_token).await;
    assert_problem(s, &b, StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn register_and_login_are_rate_limited_per_address() {
    let app = crate::helpers::spawn_app_with(|c| c.auth_per_minute = 3).await;
    // The admin's login in spawn_app took one token.
    app.register("rl_one").await;
    app.register("rl_two").await;
    let (s, b) = app
        .call(
            Method::POST,
            "/v1/auth/login",
            None,
            Some(json!({"username": "rl_one", "password": "password123"})),
        )
        .await;
    assert_problem(s, &b, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    // Other routes are not limited.
    let (s, _) = app.call(Method::GET, "/healthz", None, None).await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn metrics_are_served_in_prometheus_format() {
    let app = spawn_app().await;
    app.register("metric_user").await;
    let res = app
        .client
        .get(format!("{}/metrics", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let text = res.text().await.unwrap();
    for needle in [
        "paiju_http_requests_total{method=\"POST\",route=\"/v1/auth/register\",status=\"201\"} 1",
        "# TYPE paiju_action_seconds histogram",
        "paiju_matches{status=\"playing\"} 0",
        "paiju_sweeper_lag_seconds 0",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}

/// A deleted account's token opens nothing any more, not even what any player may read (an open
/// table's view, the list of open tables), on the process that deleted it at once and on every
/// other process once the deletion's notification reaches it; a process started afterwards
/// refuses it from its first request.
#[tokio::test]
async fn a_deleted_accounts_token_is_refused_by_every_process() {
    let url = fresh_database().await;
    let on = |url: &str| {
        let url = url.to_string();
        spawn_app_with(move |c| c.database_url = Some(url))
    };
    let (a, b) = (on(&url).await, on(&url).await);
    let host = a.player("host", 0).await;
    let leaving = a.player("leaving", 0).await;
    let (s, v) = a
        .post(
            "/v1/matches",
            &host.token,
            json!({"game": "chexuan", "seats": 2}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let view = format!("/v1/matches/{}", v["id"].as_str().unwrap());
    let reads = [view.as_str(), "/v1/matches?status=waiting"];
    for app in [&a, &b] {
        for path in reads {
            let (s, body) = app.get(path, &leaving.token).await;
            assert_eq!(s, StatusCode::OK, "{path}: {body}");
        }
    }

    a.delete_account(&leaving).await;
    for path in reads {
        let (s, body) = a.get(path, &leaving.token).await;
        assert_problem(s, &body, StatusCode::UNAUTHORIZED, "unauthorized");
        assert!(
            body["detail"].as_str().unwrap().contains("deleted"),
            "{body}"
        );
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let (s, _) = b.get(&view, &leaving.token).await;
        if s == StatusCode::UNAUTHORIZED {
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "the other process still takes the token: {s}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (s, body) = b.get(reads[1], &leaving.token).await;
    assert_problem(s, &body, StatusCode::UNAUTHORIZED, "unauthorized");
    let c = on(&url).await;
    let (s, body) = c.get(&view, &leaving.token).await;
    assert_problem(s, &body, StatusCode::UNAUTHORIZED, "unauthorized");
    // Everyone else's tokens still work.
    let (s, body) = c.get(&view, &host.token).await;
    assert_eq!(s, StatusCode::OK, "{body}");
}
