//! Regression tests for the defects an outside probe found (docs/reliability.md § Defects),
//! each through the real HTTP server.

use std::time::Duration;

use paiju::auth::{Jwt, Role};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::{TestApp, assert_problem, spawn_app, spawn_app_with};

/// A dazha table of four players who never act, with 1 s turns: timeouts put every seat in
/// 托管, the table plays its hands out (one per turn time) and finishes; while it plays it
/// always has a deadline the sweeper follows.
#[tokio::test]
async fn a_table_of_absent_players_always_has_a_deadline_and_finishes() {
    let app = spawn_app().await;
    let (id, players) = app
        .table_of_four(
            "absent",
            0,
            "dazha",
            json!({"turn_timeout_secs": 1, "hands": 3}),
        )
        .await;
    let until = tokio::time::Instant::now() + Duration::from_secs(90);
    let mut hands_seen = 0;
    loop {
        let v = app.view(&id, &players[0]).await;
        if v["status"] == "finished" {
            assert_eq!(v["hand_no"], 3, "{v}");
            // Seats that timed out twice are in 托管 (unless every hand ended at once by 摊牌):
            // a finished match offers them no action, not even resume.
            assert_eq!(v["legal_actions"], json!([]), "{v}");
            break;
        }
        assert_eq!(v["status"], "playing", "{v}");
        assert!(
            !v["deadline"].is_null(),
            "a table in play without a deadline never moves again: {v}"
        );
        hands_seen = hands_seen.max(v["hand_no"].as_u64().unwrap());
        assert!(
            tokio::time::Instant::now() < until,
            "the table stalled at hand {hands_seen}: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let events: i64 = sqlx::query_scalar("SELECT count(*) FROM match_events")
        .fetch_one(&app.pool)
        .await
        .unwrap_or(0);
    assert!(events < 5_000, "{events} events for three hands");
}

/// The limit on register and login holds for every spelling of the path the router accepts.
#[tokio::test]
async fn percent_encoded_auth_paths_share_the_rate_limit() {
    // Four a minute: the test client's admin login takes the first.
    let app = spawn_app_with(|c| c.auth_per_minute = 4).await;
    let body = json!({"username": "nobody", "password": "password123"});
    let mut statuses = Vec::new();
    for path in [
        "/v1/auth/login",
        "/v1/auth/%6Cogin",
        "/v1/auth/l%6Fgin",
        "/v1/auth/%6cogin",
    ] {
        let (s, _) = app.call(Method::POST, path, None, Some(body.clone())).await;
        statuses.push(s);
    }
    assert_eq!(
        statuses,
        [
            StatusCode::UNAUTHORIZED,
            StatusCode::UNAUTHORIZED,
            StatusCode::UNAUTHORIZED,
            StatusCode::TOO_MANY_REQUESTS
        ]
    );
    let (s, b) = app
        .call(Method::POST, "/v1/auth/%72egister", None, Some(body))
        .await;
    assert_problem(s, &b, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
}

/// 扯旋's 簸簸 is hidden from the others until every seat has set one — in the platform's
/// `seats[].coins_at_table` too, not only in `state`.
#[tokio::test]
async fn a_bobo_is_not_shown_in_the_seat_list_before_everyone_set() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let (s, v) = app
        .post(
            "/v1/matches",
            &a.token,
            json!({"game": "chexuan", "seats": 2, "options": {"turn_timeout_secs": 60}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let (s, v) = app
        .post(&format!("/v1/matches/{id}/join"), &b.token, json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = app
        .act(&id, &a, json!({"type": "set_bobo", "amount": 333}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["seats"][0]["coins_at_table"], 333, "the owner sees it");
    let other = app.view(&id, &b).await;
    assert_eq!(other["seats"][0]["coins_at_table"], Value::Null, "{other}");
    let spectator = app.player("spy", 0).await;
    let public = app.view(&id, &spectator).await;
    assert_eq!(public["seats"][0]["coins_at_table"], Value::Null);
    assert!(!holds_number(&public, 333), "{public}");
}

/// Whether `v` holds the number `n` anywhere (ids and hashes may spell its digits by chance).
fn holds_number(v: &Value, n: i64) -> bool {
    match v {
        Value::Number(x) => x.as_i64() == Some(n),
        Value::Array(items) => items.iter().any(|x| holds_number(x, n)),
        Value::Object(fields) => fields.values().any(|x| holds_number(x, n)),
        _ => false,
    }
}

/// With an admin's fixed seed, the seed `/replay` reveals after hand 1 does not give hand 2's.
#[tokio::test]
async fn a_revealed_hand_seed_does_not_predict_the_next_hand() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let fixed = [0x5au8; 32];
    let (s, v) = app
        .post(
            "/v1/matches",
            &app.admin_token,
            json!({"game": "chexuan", "seats": 2, "join": false,
                   "seed": games::shuffle::to_hex(&fixed),
                   "options": {"turn_timeout_secs": 60}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    for p in [&a, &b] {
        let (s, v) = app
            .post(&format!("/v1/matches/{id}/join"), &p.token, json!({}))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    for p in [&a, &b] {
        let (s, v) = app
            .act(&id, p, json!({"type": "set_bobo", "amount": 100}))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    // Whoever speaks first folds: hand 1 ends and hand 2 is dealt.
    let v = app.view(&id, &a).await;
    let first = if v["to_act"] == json!([0]) { &a } else { &b };
    let (s, v) = app.act(&id, first, json!({"type": "fold"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["hand_no"], 2, "{v}");
    let (s, replay) = app.get(&format!("/v1/matches/{id}/replay"), &a.token).await;
    assert_eq!(s, StatusCode::OK, "{replay}");
    let one = games::shuffle::parse_seed(replay["hands"][0]["seed"].as_str().unwrap()).unwrap();
    let mut xor_guess = one;
    xor_guess[0] ^= 1 ^ 2;
    let shown = v["shuffle_commitment"].as_str().unwrap();
    assert_ne!(shown, games::shuffle::commitment(&xor_guess));
    assert_ne!(shown, games::shuffle::commitment(&one));
    assert_eq!(
        shown,
        games::shuffle::commitment(&games::shuffle::hand_seed(&fixed, 2))
    );
}

async fn tournament(app: &TestApp, org: &str) -> String {
    let starts_at = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let (s, t) = app
        .post(
            "/v1/tournaments",
            org,
            json!({"game": "dazha", "entry_fee": 0, "starts_at": starts_at, "hands_per_round": 4}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{t}");
    t["id"].as_str().unwrap().to_string()
}

/// A player is committed to one place at a time, also when the requests race: two tournament
/// registrations, a registration and a seat, a registration and the lobby queue.
#[tokio::test]
async fn parallel_commitments_of_one_player_never_both_succeed() {
    let app = spawn_app().await;
    let org = app.organiser("org").await.token;
    for round in 0..5 {
        let p = app.player(&format!("racer{round}"), 1000).await;
        let (t1, t2) = (tournament(&app, &org).await, tournament(&app, &org).await);
        let (s, m) = app
            .post(
                "/v1/matches",
                &app.admin_token,
                json!({"game": "chexuan", "seats": 2, "join": false}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{m}");
        let match_id = m["id"].as_str().unwrap().to_string();
        let (app, p) = (&app, &p);
        let reg = |t: String| {
            let path = format!("/v1/tournaments/{t}/register");
            async move { app.post(&path, &p.token, json!({})).await.0 }
        };
        let delete = |path: String| async move {
            app.call(Method::DELETE, &path, Some(&p.token), None).await
        };
        let (a, b) = tokio::join!(reg(t1.clone()), reg(t2.clone()));
        assert!(
            !(a.is_success() && b.is_success()),
            "registered for two tournaments at once ({a}, {b})"
        );
        // Free the player again, then race a registration against a seat and the lobby.
        for t in [&t1, &t2] {
            delete(format!("/v1/tournaments/{t}/register")).await;
        }
        let join = async {
            app.post(&format!("/v1/matches/{match_id}/join"), &p.token, json!({}))
                .await
                .0
        };
        let (a, b) = tokio::join!(reg(t1.clone()), join);
        assert!(
            !(a.is_success() && b.is_success()),
            "registered and seated at once ({a}, {b})"
        );
        if a.is_success() {
            delete(format!("/v1/tournaments/{t1}/register")).await;
        } else {
            app.post(
                &format!("/v1/matches/{match_id}/leave"),
                &p.token,
                json!({}),
            )
            .await;
        }
        let queue = async {
            app.post("/v1/lobby/dazha/queue", &p.token, json!({"stake": 1}))
                .await
                .0
        };
        let (a, b) = tokio::join!(reg(t2.clone()), queue);
        assert!(
            !(a.is_success() && b.is_success()),
            "registered and queued at once ({a}, {b})"
        );
        delete("/v1/lobby/dazha/queue".into()).await;
        delete(format!("/v1/tournaments/{t2}/register")).await;
    }
}

/// A player seated in a coin room that is not over cannot queue for another.
#[tokio::test]
async fn a_player_in_a_running_coin_room_cannot_queue_again() {
    let app = spawn_app().await;
    let p = app.player("ann", 1000).await;
    let (s, m) = app
        .post(
            "/v1/matches",
            &p.token,
            json!({"game": "dazha", "options": {"room": "coin", "stake": 1}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{m}");
    let (s, b) = app
        .post("/v1/lobby/dazha/queue", &p.token, json!({"stake": 1}))
        .await;
    assert_problem(s, &b, StatusCode::CONFLICT, "conflict");
}

/// A well-signed token whose user does not exist is refused with 401 everywhere.
#[tokio::test]
async fn a_token_of_a_user_that_does_not_exist_is_401() {
    let app = spawn_app().await;
    let jwt = Jwt::new(
        b"test secret, not for production",
        Duration::from_secs(3600),
    );
    let ghost = jwt.issue(Uuid::new_v4(), "ghost", Role::Admin, 0).unwrap();
    let (s, m) = app
        .post(
            "/v1/matches",
            &app.admin_token,
            json!({"game": "chexuan", "seats": 2, "join": false}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{m}");
    let id = m["id"].as_str().unwrap();
    let calls = [
        (
            Method::POST,
            "/v1/matches".to_string(),
            json!({"game": "chexuan", "seats": 2}),
        ),
        (
            Method::POST,
            "/v1/matches".to_string(),
            json!({"game": "chexuan", "seats": 2, "join": false}),
        ),
        (Method::POST, format!("/v1/matches/{id}/join"), json!({})),
        (
            Method::POST,
            "/v1/lobby/dazha/queue".to_string(),
            json!({"stake": 1}),
        ),
        (Method::GET, "/v1/me/ledger".to_string(), Value::Null),
        (Method::GET, "/v1/me".to_string(), Value::Null),
        (
            Method::POST,
            "/v1/admin/grants".to_string(),
            json!({"user_id": Uuid::new_v4(), "amount": 5}),
        ),
    ];
    for (method, path, body) in calls {
        let body = (!body.is_null()).then_some(body);
        let (s, b) = app.call(method.clone(), &path, Some(&ghost), body).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{method} {path}: {b}");
        assert_eq!(b["code"], "unauthorized", "{b}");
    }
}

/// Timestamps PostgreSQL cannot store are refused as bad input, not a 500.
#[tokio::test]
async fn a_start_time_far_in_the_past_or_future_is_422() {
    let app = spawn_app().await;
    let org = app.organiser("org").await.token;
    for starts_at in [
        "-5000-01-01T00:00:00Z",
        "+200000-01-01T00:00:00Z",
        "1970-01-01T00:00:00Z",
    ] {
        let (s, b) = app
            .post(
                "/v1/tournaments",
                &org,
                json!({"game": "dazha", "entry_fee": 0, "starts_at": starts_at, "hands_per_round": 4}),
            )
            .await;
        assert!(s.is_client_error(), "{starts_at}: {s} {b}");
    }
}

/// A demoted admin's old token no longer grants coins: roles are checked as they are now.
#[tokio::test]
async fn a_demoted_admin_loses_admin_powers_at_once() {
    let app = spawn_app().await;
    let boss = app.register("boss").await;
    app.set_role(boss.id, "admin").await;
    let token = app.relogin(&boss).await.token;
    let grant = json!({"user_id": boss.id, "amount": 5});
    let (s, b) = app.post("/v1/admin/grants", &token, grant.clone()).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    app.set_role(boss.id, "player").await;
    let (s, b) = app.post("/v1/admin/grants", &token, grant).await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");
}

/// `bearer` is the same scheme as `Bearer` (RFC 7235).
#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive() {
    let app = spawn_app().await;
    let p = app.register("ann").await;
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let res = app
            .client
            .get(format!("{}/v1/me", app.address))
            .header("authorization", format!("{scheme} {}", p.token))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{scheme}");
    }
}

/// `/metrics` answers with the process's own figures while the database is unreachable.
#[tokio::test]
async fn metrics_answer_while_the_database_is_down() {
    let app = spawn_app().await;
    app.pool.close().await;
    let res = app
        .client
        .get(format!("{}/metrics", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let text = res.text().await.unwrap();
    assert!(text.contains("paiju_database_up 0"), "{text}");
    assert!(text.contains("paiju_http_requests_total"), "{text}");
}

/// A player with exactly `min_bobo` coins sits at two 扯旋 tables that both deal; setting the
/// 簸簸 at one empties the wallet. At the other the overdue 簸簸 must still be decided: the
/// automatic action sits the seat out, so the table goes on instead of retrying forever.
#[tokio::test]
async fn an_overdue_bobo_the_wallet_cannot_pay_sits_the_seat_out() {
    let app = spawn_app().await;
    let p = app.player("poor", 100).await;
    let q = app.player("quinn", 1000).await;
    let r = app.player("rosa", 1000).await;
    let mut tables = Vec::new();
    for (other, timeout) in [(&q, 60), (&r, 1)] {
        let (s, m) = app
            .post(
                "/v1/matches",
                &other.token,
                json!({"game": "chexuan", "seats": 2, "options": {"turn_timeout_secs": timeout}}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{m}");
        let id = m["id"].as_str().unwrap().to_string();
        let (s, v) = app
            .post(&format!("/v1/matches/{id}/join"), &p.token, json!({}))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["phase"], "bobo", "{v}");
        tables.push(id);
    }
    let (s, v) = app
        .act(&tables[0], &p, json!({"type": "set_bobo", "amount": 100}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let v = app
        .wait_for(&tables[1], &r, 20, |v| {
            v["status"] == "finished" || v["last_result"]["hand_no"] == 1
        })
        .await;
    assert!(
        !v["to_act"].as_array().unwrap().contains(&json!(1)),
        "the poor seat is not waited for: {v}"
    );
    let stuck: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM matches WHERE id = $1::uuid AND deadline_at < now() - interval '5 seconds'",
    )
    .bind(&tables[1])
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(stuck, 0, "no deadline left behind");
    assert_eq!(app.coins(&r).await, 1000, "nothing of rosa's is held");
    app.assert_ledger_reconciles().await;
}
