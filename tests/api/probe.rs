//! Regression tests for the defects an outside probe found after the five games landed
//! (docs/reliability.md § Defects found as an attacker), each reproduced over HTTP the way it
//! was found.

use std::time::Duration;

use futures_util::future::join_all;
use paiju::auth::{Jwt, Role};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::chexuan::{a_folded_seat_left, set_bobos, table};
use crate::helpers::{
    TestApp, assert_problem, free_port, fresh_database, spawn_app, spawn_app_with, spawn_server,
    wait_healthy,
};

/// Opens `GET /v1/me/stream` for `token` on `address`.
async fn open_stream(client: &reqwest::Client, address: &str, token: &str) -> reqwest::Response {
    client
        .get(format!("{address}/v1/me/stream"))
        .bearer_auth(token)
        .send()
        .await
        .expect("the stream request is sent")
}

/// Reads a stream until `event: hello`, or fails after 10 s.
async fn read_hello(res: &mut reqwest::Response) {
    let mut seen = String::new();
    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    while !seen.contains("event: hello") {
        let chunk = tokio::time::timeout_at(until, res.chunk())
            .await
            .expect("hello within 10 s")
            .expect("the stream reads")
            .expect("the stream is still open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
}

/// 1. Forty stream opens at once from ten accounts (a network blip): every one gets `hello`,
/// and another player's request is not held up meanwhile. Each open used to hold one pooled
/// connection while it took a second: eight opens emptied the pool and everything got 503.
#[tokio::test]
async fn a_burst_of_stream_opens_all_get_hello_and_other_requests_go_on() {
    let app = spawn_app().await;
    let mut players = Vec::new();
    for i in 0..10 {
        players.push(app.register(&format!("burst{i}")).await);
    }
    let bystander = app.register("bystander").await;
    let client = reqwest::Client::new();
    let opens = players.iter().flat_map(|p| {
        let (client, address) = (&client, &app.address);
        (0..4).map(move |_| async move {
            let mut res = open_stream(client, address, &p.token).await;
            assert_eq!(res.status(), StatusCode::OK, "{:?}", res.text().await);
            read_hello(&mut res).await;
            res
        })
    });
    let ledger = async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let started = std::time::Instant::now();
        let (s, b) = app.get("/v1/me/ledger", &bystander.token).await;
        (s, b, started.elapsed())
    };
    let (streams, (s, b, took)) = tokio::join!(join_all(opens), ledger);
    assert_eq!(streams.len(), 40);
    assert_eq!(s, StatusCode::OK, "{b}");
    assert!(
        took < Duration::from_secs(2),
        "another player's request waited {took:?} behind the stream opens"
    );
}

/// 2. A phone that lost its four streams reconnects at once: the dead streams free their
/// slots when the new ones come (they are probed), not at their next heartbeat. Four live
/// streams still refuse a fifth, with `Retry-After`.
#[tokio::test]
async fn dropped_streams_free_their_slots_when_the_player_reconnects() {
    // Heartbeats far apart: only the probe can notice the dropped connections in time.
    let app = spawn_app_with(|c| c.stream.heartbeat = Duration::from_secs(600)).await;
    let p = app.register("phone").await;
    let client = reqwest::Client::new();
    let mut first = Vec::new();
    for _ in 0..4 {
        let mut res = open_stream(&client, &app.address, &p.token).await;
        read_hello(&mut res).await;
        first.push(res);
    }
    drop(first);
    // A fresh client: none of the dropped connections is reused.
    let client = reqwest::Client::new();
    let mut second = Vec::new();
    for _ in 0..4 {
        let mut res = open_stream(&client, &app.address, &p.token).await;
        assert_eq!(
            res.status(),
            StatusCode::OK,
            "a dropped stream still holds its slot: {:?}",
            res.headers()
        );
        read_hello(&mut res).await;
        second.push(res);
    }
    let res = open_stream(&client, &app.address, &p.token).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry = res
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    assert!(retry.is_some_and(|s| s > 0), "{:?}", res.headers());
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["code"], "rate_limited", "{body}");
}

/// 2. A server with open streams stops promptly on SIGTERM instead of waiting for them.
#[tokio::test]
async fn a_server_with_open_streams_stops_promptly_on_sigterm() {
    let url = fresh_database().await;
    let port = free_port();
    let mut server = spawn_server(&url, port);
    let address = format!("http://127.0.0.1:{port}");
    wait_healthy(&address).await;
    let app = TestApp::connect(address.clone(), sqlx::PgPool::connect(&url).await.unwrap()).await;
    let p = app.register("streamer").await;
    let client = reqwest::Client::new();
    let mut streams = Vec::new();
    for _ in 0..3 {
        let mut res = open_stream(&client, &address, &p.token).await;
        read_hello(&mut res).await;
        streams.push(res);
    }
    let pid = server.id().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the server still runs 5 s after SIGTERM (its shutdown timeout is 10 s)"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status:?}");
    for mut s in streams {
        // Each stream ended: the body finishes instead of hanging.
        let end = tokio::time::timeout(Duration::from_secs(2), async {
            while let Ok(Some(_)) = s.chunk().await {}
        })
        .await;
        assert!(end.is_ok(), "a stream was left hanging");
    }
}

/// 3. 扯旋: a seat folds and leaves mid-hand; a newcomer takes it in the same hand. Nothing of
/// the leaver's hand reaches the newcomer: not its unseen cards in the view, not its private
/// events, and the newcomer is not offered the leaver's hand to act on.
#[tokio::test]
async fn a_newcomer_in_a_seat_left_mid_hand_sees_nothing_of_the_leavers_hand() {
    let (app, id, [_a, _b, cat, _d]) = a_folded_seat_left().await;
    let eve = app.player("eve", 1000).await;
    let (s, v) = app.join(&id, &eve, Some(2)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["you"]["seat"], 2, "{v}");
    let (_, spectator) = app
        .get(&format!("/v1/matches/{id}"), &app.admin_token)
        .await;
    for view in [v.clone(), app.view(&id, &eve).await] {
        let seat = &view["state"]["seats"][2];
        assert!(
            seat["hidden"].is_null(),
            "the leaver's unseen cards: {view}"
        );
        assert_eq!(view["legal_actions"], json!([]), "{view}");
        // What a spectator sees of that seat, and no more.
        assert_eq!(seat, &spectator["state"]["seats"][2], "{view}");
    }
    // The leaver's own dealt cards were sent to the leaver only.
    let cats = app.all_events(&id, &cat).await;
    let eves = app.all_events(&id, &eve).await;
    let private = |events: &[Value]| {
        events
            .iter()
            .filter(|e| e["seat"] == 2 && e["data"]["cards"].is_array())
            .count()
    };
    assert!(private(&cats) > 0, "cat saw its own deal");
    assert_eq!(private(&eves), 0, "{eves:?}");
    // Acting on the leaver's hand is not the newcomer's.
    let (s, b) = app.act(&id, &eve, json!({"type": "fold"})).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
    let (s, b) = app.get(&format!("/v1/matches/{id}/hint"), &eve.token).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
}

/// 4. 扯旋: P stakes 100 at table A; the others bet the table to 430; P moves the rest of its
/// wallet to table B, then leaves A. The penalty takes what the wallet holds at the escape
/// (nothing), and the hand's record says exactly what the ledger took (the 100 of its 簸簸).
#[tokio::test]
async fn an_escape_records_what_the_ledger_took() {
    let app = spawn_app().await;
    let p = app.player("pat", 1000).await;
    let q = app.player("quinn", 1000).await;
    let r = app.player("rae", 1000).await;
    let s_ = app.player("sam", 1000).await;
    let a = table(&app, &[&p, &q, &r], json!({}), None).await;
    set_bobos(&app, &a, &[&p, &q, &r], &[100, 500, 500]).await;
    let (st, v) = app.act(&a, &q, json!({"type": "raise", "to": 200})).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (st, v) = app.act(&a, &r, json!({"type": "call"})).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(app.coins(&p).await, 900);
    // The rest of P's wallet goes on the table at B.
    let b = table(&app, &[&p, &s_], json!({}), None).await;
    set_bobos(&app, &b, &[&p, &s_], &[900, 100]).await;
    assert_eq!(app.coins(&p).await, 0);
    let (st, v) = app
        .post(&format!("/v1/matches/{a}/leave"), &p.token, json!({}))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let result = &app.view(&a, &q).await["last_result"];
    let escape = &result["detail"]["escape"];
    assert_eq!(escape["from_wallet"], 0, "{result}");
    assert_eq!(escape["from_bobo"], 100, "{result}");
    let took: i64 = sqlx::query_scalar(
        "SELECT COALESCE(sum(e.amount), 0)::bigint
           FROM ledger_entries e JOIN ledger_tx t ON t.id = e.tx_id
           JOIN accounts acc ON acc.id = e.account_id
          WHERE acc.user_id = $1 AND t.match_id = $2::uuid",
    )
    .bind(p.id)
    .bind(&a)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(took, -100);
    assert_eq!(
        result["coins"][0], took,
        "the record says what the ledger took: {result}"
    );
    let recorded: Value =
        sqlx::query_scalar("SELECT result FROM hands WHERE match_id = $1::uuid AND hand_no = 1")
            .bind(&a)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(recorded["coins"][0], took, "{recorded}");
    app.assert_ledger_reconciles().await;
}

fn signed_for(user: Uuid) -> String {
    Jwt::new(
        b"test secret, never for production use",
        Duration::from_secs(3600),
    )
    .issue(user, "nobody", Role::Admin, 0)
    .unwrap()
}

/// 5. A password change refuses every token issued before it, on every process, and ends the
/// streams they opened; the change answers a new session.
#[tokio::test]
async fn a_password_change_revokes_older_tokens_on_every_process() {
    let url = fresh_database().await;
    let on = |url: &str| {
        let url = url.to_string();
        spawn_app_with(move |c| c.database_url = Some(url))
    };
    let (a, b) = (on(&url).await, on(&url).await);
    let p = a.register("changer").await;
    let other = b.relogin(&p).await;
    for app in [&a, &b] {
        for t in [&p.token, &other.token] {
            assert_eq!(app.get("/v1/me", t).await.0, StatusCode::OK);
        }
    }
    let mut stream = open_stream(&reqwest::Client::new(), &b.address, &other.token).await;
    read_hello(&mut stream).await;
    let (s, session) = a
        .call(
            Method::PUT,
            "/v1/me/password",
            Some(&p.token),
            Some(json!({"old_password": "password123", "new_password": "new-password-1"})),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{session}");
    let new = session["access_token"].as_str().unwrap().to_string();
    for t in [&p.token, &other.token] {
        let (s, body) = a.get("/v1/me", t).await;
        assert_problem(s, &body, StatusCode::UNAUTHORIZED, "unauthorized");
        assert!(
            body["detail"].as_str().unwrap().contains("password"),
            "{body}"
        );
    }
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while b.get("/v1/me/matches", &other.token).await.0 != StatusCode::UNAUTHORIZED {
        assert!(
            std::time::Instant::now() < until,
            "the other process still takes the old token"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(_)) = stream.chunk().await {}
    })
    .await;
    assert!(ended.is_ok(), "the old token's stream still runs");
    for app in [&a, &b] {
        assert_eq!(app.get("/v1/me", &new).await.0, StatusCode::OK);
    }
    // A process started afterwards reads the change from the database.
    let c = on(&url).await;
    assert_eq!(c.get("/v1/me", &p.token).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(c.get("/v1/me", &new).await.0, StatusCode::OK);
}

/// 5. Wrong passwords at `PUT /v1/me/password` and `DELETE /v1/me` count with logins: past
/// the limit they get 429 with `Retry-After`, so a stolen token cannot guess the password.
#[tokio::test]
async fn wrong_passwords_on_account_routes_are_rate_limited() {
    // Three a minute (one refilled every 20 s): registering takes one, two guesses are
    // checked, and the rest are refused however slowly the machine runs them.
    let app = spawn_app_with(|c| c.auth_per_minute = 3).await;
    let p = app.register("guessed").await;
    let mut statuses = Vec::new();
    for i in 0..6 {
        let (s, _) = if i % 2 == 0 {
            app.call(
                Method::PUT,
                "/v1/me/password",
                Some(&p.token),
                Some(json!({"old_password": format!("guess-{i}-x"), "new_password": "whatever-1"})),
            )
            .await
        } else {
            app.call(
                Method::DELETE,
                "/v1/me",
                Some(&p.token),
                Some(json!({"password": format!("guess-{i}-x")})),
            )
            .await
        };
        statuses.push(s);
    }
    assert!(
        statuses.contains(&StatusCode::FORBIDDEN),
        "the first guesses are checked: {statuses:?}"
    );
    assert!(
        statuses.contains(&StatusCode::TOO_MANY_REQUESTS),
        "guesses past the limit are refused: {statuses:?}"
    );
    let res = app
        .client
        .delete(format!("{}/v1/me", app.address))
        .bearer_auth(&p.token)
        .json(&json!({"password": "yet-another-guess"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(res.headers().contains_key("retry-after"));
    assert_eq!(
        app.get("/v1/me", &p.token).await.0,
        StatusCode::OK,
        "not deleted"
    );
}

/// 6. An admin cannot strand coins in a bot's wallet, nor change the role of a bot or of a
/// deleted account.
#[tokio::test]
async fn admin_grants_and_roles_refuse_bots_and_deleted_accounts() {
    let app = spawn_app().await;
    let host = app.player("host", 0).await;
    let (s, v) = app
        .post(
            "/v1/matches",
            &host.token,
            json!({"game": "dazha", "seats": 4, "bots": 3}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let bot: Uuid = v["seats"][3]["user_id"].as_str().unwrap().parse().unwrap();
    let (s, b) = app
        .post(
            "/v1/admin/grants",
            &app.admin_token,
            json!({"user_id": bot, "amount": 100}),
        )
        .await;
    assert_problem(s, &b, StatusCode::CONFLICT, "conflict");
    assert!(b["detail"].as_str().unwrap().contains("bot"), "{b}");
    let app = &app;
    let role = |id: Uuid| async move {
        app.call(
            Method::PUT,
            &format!("/v1/admin/users/{id}/role"),
            Some(&app.admin_token),
            Some(json!({"role": "organiser"})),
        )
        .await
    };
    let (s, b) = role(bot).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "conflict");
    let gone = app.player("gone", 0).await;
    app.delete_account(&gone).await;
    let (s, b) = role(gone.id).await;
    assert_problem(s, &b, StatusCode::NOT_FOUND, "not_found");
    let coins_in_bots: i64 = sqlx::query_scalar(
        "SELECT COALESCE(sum(e.amount), 0)::bigint FROM ledger_entries e
           JOIN ledger_tx t ON t.id = e.tx_id JOIN accounts a ON a.id = e.account_id
          WHERE a.user_id = $1 AND t.reason = 'grant'",
    )
    .bind(bot)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(coins_in_bots, 0);
}

/// 7. Every integer field and parameter the document gives a range is refused outside it, with
/// 400 or 422 (never a 2xx, never a 5xx): `{"seat": -1}` once seated the player anywhere.
#[tokio::test]
async fn integers_outside_their_documented_ranges_are_refused() {
    let app = spawn_app().await;
    let p = app.player("ranger", 10_000).await;
    let org = app.organiser("org").await;
    let (s, v) = app
        .post(
            "/v1/matches",
            &p.token,
            json!({"game": "chexuan", "seats": 3, "join": false}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let m = v["id"].as_str().unwrap().to_string();
    let (s, t) = app
        .post(
            "/v1/tournaments",
            &org.token,
            json!({"game": "dazha", "entry_fee": 0, "hands_per_round": 4,
                   "starts_at": tomorrow()}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{t}");
    let tid = t["id"].as_str().unwrap().to_string();
    let doc: Value = app.get("/openapi.json", &p.token).await.1;
    let schemas = &doc["components"]["schemas"];
    let resolve = |s: &Value| -> Value {
        match s["$ref"].as_str() {
            Some(r) => schemas[r.rsplit('/').next().unwrap()].clone(),
            None => s.clone(),
        }
    };
    let concrete = |path: &str| path.replace("{id}", &m).replace("{game}", "dazha");
    let mut checked = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let Ok(method) = method.to_uppercase().parse::<Method>() else {
                continue;
            };
            let path = if path.starts_with("/v1/tournaments/") {
                path.replace("{id}", &tid)
            } else {
                concrete(path)
            };
            let token = if path.contains("/admin/") {
                app.admin_token.clone()
            } else if path.starts_with("/v1/tournaments") {
                org.token.clone()
            } else {
                p.token.clone()
            };
            let mut bad: Vec<(String, Option<Value>)> = Vec::new();
            for param in op["parameters"].as_array().into_iter().flatten() {
                let param = resolve(param);
                let sch = &param["schema"];
                if sch["type"] != "integer" || param["in"] != "query" {
                    continue;
                }
                let name = param["name"].as_str().unwrap();
                // `timeout` goes with `wait_version`.
                let extra = if name == "timeout" {
                    "&wait_version=0"
                } else {
                    ""
                };
                for v in out_of_range(sch) {
                    bad.push((format!("{path}?{name}={v}{extra}"), None));
                }
            }
            if let Some(body) = op["requestBody"]["content"]["application/json"]["schema"]
                .as_object()
                .map(|b| resolve(&Value::Object(b.clone())))
            {
                for (field, fs) in body["properties"].as_object().into_iter().flatten() {
                    let fs = resolve(fs);
                    // An optional field is "integer or null"; null is its absence.
                    let integer = fs["type"] == "integer"
                        || fs["type"]
                            .as_array()
                            .is_some_and(|t| t.contains(&json!("integer")));
                    if !integer {
                        continue;
                    }
                    for v in out_of_range(&fs) {
                        let mut req = valid_body(&path, &method);
                        req[field] = json!(v);
                        bad.push((path.clone(), Some(req)));
                    }
                }
            }
            for (url, body) in bad {
                let (s, b) = app
                    .call(method.clone(), &url, Some(&token), body.clone())
                    .await;
                assert!(
                    s == StatusCode::BAD_REQUEST || s == StatusCode::UNPROCESSABLE_ENTITY,
                    "{method} {url} {body:?}: {s} {b}"
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 25,
        "only {checked} out-of-range requests were tried"
    );
    // The join that once seated the player: the seat is still free, nobody joined.
    let (s, b) = app.join(&m, &p, None).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["you"]["seat"], 0, "{b}");
}

fn tomorrow() -> String {
    (chrono::Utc::now() + chrono::Duration::days(1)).to_rfc3339()
}

/// Values just outside an integer schema's `minimum` and `maximum`.
fn out_of_range(schema: &Value) -> Vec<i128> {
    let mut out = Vec::new();
    if let Some(min) = schema["minimum"].as_i64() {
        out.push(min as i128 - 1);
    }
    if let Some(max) = schema["maximum"].as_i64() {
        out.push(max as i128 + 1);
    }
    out
}

/// A body the route would take, but for the field under test.
fn valid_body(path: &str, method: &Method) -> Value {
    match (method.as_str(), path) {
        ("POST", "/v1/admin/grants") => json!({"user_id": Uuid::nil(), "amount": 10}),
        ("POST", p) if p.starts_with("/v1/lobby/") => json!({"stake": 10}),
        ("POST", "/v1/matches") => json!({"game": "chexuan", "seats": 3}),
        ("POST", "/v1/tournaments") => json!({"game": "dazha", "entry_fee": 0,
            "hands_per_round": 4, "starts_at": tomorrow()}),
        _ => json!({}),
    }
}

/// 8. A correctly signed token for a user id that does not exist is refused on every route
/// (one extractor decides), not only on the routes that read the account.
#[tokio::test]
async fn a_token_of_nobody_is_refused_on_every_route() {
    let app = spawn_app().await;
    let token = signed_for(Uuid::new_v4());
    let routes = [
        "/v1/matches",
        "/v1/me/matches",
        "/v1/tournaments",
        "/v1/me",
        "/v1/me/ledger",
        "/v1/me/stream",
        "/v1/admin/users?username=admin",
    ];
    for path in routes {
        let (s, b) = app.get(path, &token).await;
        assert_problem(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
        assert!(
            b["detail"].as_str().unwrap().contains("does not exist"),
            "{path}: {b}"
        );
    }
    let (s, b) = app
        .post("/v1/matches", &token, json!({"game": "dazha", "seats": 4}))
        .await;
    assert_problem(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    // A real account's token still works, remembered after its first check.
    let p = app.register("somebody").await;
    for _ in 0..2 {
        assert_eq!(app.get("/v1/matches", &p.token).await.0, StatusCode::OK);
    }
}
