//! What operators see: request logs with request ids, JSON log lines (docs/reliability.md §
//! Observability).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, free_port, fresh_database, metrics_text, server_log,
    spawn_app, spawn_app_with, spawn_server_with, wait_healthy,
};

/// A request's id comes back in `X-Request-Id`: the client's own when it sent a usable one,
/// else one the server made; refusals carry it too.
#[tokio::test]
async fn the_request_id_round_trips() {
    let app = spawn_app().await;
    let p = app.register("traced").await;
    let get = |id: Option<&'static str>| {
        let mut req = app
            .client
            .get(format!("{}/v1/me", app.address))
            .bearer_auth(&p.token);
        if let Some(id) = id {
            req = req.header("X-Request-Id", id);
        }
        req.send()
    };
    let res = get(Some("client-chosen-42")).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["x-request-id"], "client-chosen-42");
    let res = get(None).await.unwrap();
    let made = res.headers()["x-request-id"].to_str().unwrap().to_string();
    assert_eq!(made.len(), 32, "{made}");
    assert!(made.bytes().all(|b| b.is_ascii_hexdigit()), "{made}");
    let again = get(None).await.unwrap();
    assert_ne!(
        again.headers()["x-request-id"],
        made.as_str(),
        "a new id each time"
    );
    // An id that cannot be logged as it is gets replaced, not echoed.
    let res = get(Some("has spaces and \"quotes\"")).await.unwrap();
    assert_eq!(res.headers()["x-request-id"].len(), 32);
    let res = app
        .client
        .get(format!("{}/v1/nothing-here", app.address))
        .header("X-Request-Id", "refused-1")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(res.headers()["x-request-id"], "refused-1");
}

/// `PAIJU_LOG_FORMAT=json`: every log line is a JSON object, and each request gets one line
/// with its method, route template, status, duration, the caller's user id, the refusal's
/// code, and the request id; a move is logged with its match and hand, under the request id
/// of the request that made it (also when a group commit's lane writes it).
#[tokio::test]
async fn json_logs_carry_one_line_per_request_with_its_id_user_and_code() {
    let url = fresh_database().await;
    let port = free_port();
    let _ = std::fs::remove_file(server_log(port));
    let _server = spawn_server_with(&url, port, &[("PAIJU_LOG_FORMAT", "json")]);
    let address = format!("http://127.0.0.1:{port}");
    wait_healthy(&address).await;
    let app = TestApp::connect(address.clone(), sqlx::PgPool::connect(&url).await.unwrap()).await;
    let p = app.register("logged").await;
    let send = |path: String, id: &'static str| {
        app.client
            .get(format!("{address}{path}"))
            .bearer_auth(&p.token)
            .header("X-Request-Id", id)
            .send()
    };
    // A table of four players (no bots: its moves take the fast path, committed in a lane of
    // the group commit), and the first move, sent with a request id once the table is cached.
    let (match_id, seated) = app
        .table_of_four("lg", 0, "dazha", json!({"turn_timeout_secs": 600}))
        .await;
    let mut moved = false;
    for p in &seated {
        let (s, hint) = app
            .get(&format!("/v1/matches/{match_id}/hint"), &p.token)
            .await;
        if s != StatusCode::OK {
            continue;
        }
        let version = app.view(&match_id, p).await["version"].clone();
        let res = app
            .client
            .post(format!("{address}/v1/matches/{match_id}/actions"))
            .bearer_auth(&p.token)
            .header("X-Request-Id", "json-move-1")
            .json(&json!({"version": version, "action": hint["action"]}))
            .send()
            .await
            .unwrap();
        moved = res.status() == StatusCode::OK;
        break;
    }
    assert!(moved, "a player moved");
    let ok = send("/v1/me".into(), "json-ok-1").await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    let missing = format!("/v1/matches/{}", uuid::Uuid::new_v4());
    let refused = send(missing, "json-404-1").await.unwrap();
    assert_eq!(refused.status(), StatusCode::NOT_FOUND);

    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    let (ok_line, refused_line) = loop {
        let log = std::fs::read_to_string(server_log(port)).unwrap_or_default();
        let lines: Vec<Value> = log
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect();
        let find = |id: &str| {
            lines
                .iter()
                .find(|l| l["fields"]["message"] == "request" && l["span"]["request_id"] == id)
                .cloned()
        };
        let moved = lines.iter().find(|l| {
            l["fields"]["message"] == "move"
                && l["span"]["request_id"] == "json-move-1"
                && l["fields"]["match_id"] == match_id.as_str()
        });
        if let (Some(a), Some(b), Some(m)) = (find("json-ok-1"), find("json-404-1"), moved) {
            assert!(m["fields"]["hand_no"].as_u64() >= Some(1), "{m}");
            assert_eq!(m["fields"]["game"], "dazha", "{m}");
            assert_eq!(m["fields"]["kind"], "action", "a client's: {m}");
            break (a, b);
        }
        assert!(
            tokio::time::Instant::now() < until,
            "no request lines in the log:\n{log}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let f = &ok_line["fields"];
    assert_eq!(f["method"], "GET", "{ok_line}");
    assert_eq!(f["route"], "/v1/me", "{ok_line}");
    assert_eq!(f["status"], 200, "{ok_line}");
    assert!(f["ms"].is_number(), "{ok_line}");
    assert_eq!(ok_line["span"]["user_id"], p.id.to_string(), "{ok_line}");
    assert_eq!(ok_line["level"], "INFO");
    let f = &refused_line["fields"];
    assert_eq!(f["route"], "/v1/matches/{id}", "{refused_line}");
    assert_eq!(f["status"], 404, "{refused_line}");
    assert_eq!(f["code"], "not_found", "{refused_line}");
}

async fn scrape(app: &TestApp, base: &str, headers: &[(&str, &str)]) -> StatusCode {
    let mut req = app.client.get(format!("{base}/metrics"));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().await.unwrap().status()
}

/// `/metrics` is the operator's: on the API's port only for a client on this host that no
/// proxy forwarded (publishing the API does not publish the figures), or for a holder of
/// `PAIJU_METRICS_TOKEN`; with `PAIJU_METRICS_BIND` it has a listener of its own and the API's
/// port does not serve it.
#[tokio::test]
async fn metrics_stay_off_the_public_api() {
    let app = spawn_app_with(|c| c.metrics_token = Some("scrape-secret-0123".into())).await;
    let base = app.address.clone();
    assert_eq!(
        scrape(&app, &base, &[]).await,
        StatusCode::OK,
        "from this host"
    );
    let forwarded = [("X-Forwarded-For", "203.0.113.7")];
    assert_eq!(
        scrape(&app, &base, &forwarded).await,
        StatusCode::FORBIDDEN,
        "a request a proxy forwarded from outside"
    );
    let with_token = [
        ("X-Forwarded-For", "203.0.113.7"),
        ("Authorization", "Bearer scrape-secret-0123"),
    ];
    assert_eq!(scrape(&app, &base, &with_token).await, StatusCode::OK);
    let wrong = [
        ("X-Forwarded-For", "203.0.113.7"),
        ("Authorization", "Bearer scrape-secret-012X"),
    ];
    assert_eq!(scrape(&app, &base, &wrong).await, StatusCode::FORBIDDEN);

    // An API published beyond loopback does not serve the figures on its port, even to this
    // host, without the token.
    let app = spawn_app_with(|c| c.bind = "0.0.0.0:0".into()).await;
    assert_eq!(
        scrape(&app, &app.address, &[]).await,
        StatusCode::FORBIDDEN,
        "the API listens on 0.0.0.0"
    );

    let app = spawn_app_with(|c| c.metrics_bind = Some("127.0.0.1:0".into())).await;
    let own = app.metrics_address.clone().expect("a metrics listener");
    assert_eq!(
        scrape(&app, &app.address, &[]).await,
        StatusCode::NOT_FOUND,
        "the API's port no longer serves it"
    );
    let text = metrics_text(&app.client, &own).await;
    assert!(text.contains("paiju_http_requests_total"), "{text}");
    assert!(text.contains("paiju_database_up 1"), "{text}");
    let res = app.client.get(format!("{own}/v1/me")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND, "only /metrics there");
}

/// A free 打炸 tournament starting in two hours, made by `org`; its id.
async fn a_dazha_tournament(app: &TestApp, org: &Player) -> String {
    let starts_at = (chrono::Utc::now() + chrono::Duration::hours(2)).to_rfc3339();
    let (s, t) = app
        .post(
            "/v1/tournaments",
            &org.token,
            json!({"game": "dazha", "entry_fee": 0, "starts_at": starts_at}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{t}");
    t["id"].as_str().unwrap().to_string()
}

/// Every grant, role change and tournament edit or cancellation is kept with who made it and
/// when, listed newest first by `GET /v1/admin/audit` (admins only, cursor-paged).
#[tokio::test]
async fn the_audit_trail_lists_who_granted_promoted_edited_and_cancelled() {
    let app = spawn_app().await;
    let p = app.register("audited").await;
    let (s, _) = app
        .post(
            "/v1/admin/grants",
            &app.admin_token,
            json!({"user_id": p.id, "amount": 300, "note": "welcome"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    app.set_role(p.id, "organiser").await;
    let org = app.relogin(&p).await;
    let tid = a_dazha_tournament(&app, &org).await;
    let path = format!("/v1/tournaments/{tid}");
    let (s, b) = app
        .call(
            Method::PATCH,
            &path,
            Some(&org.token),
            Some(json!({"name": "renamed"})),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (s, b) = app
        .post(&format!("{path}/cancel"), &app.admin_token, json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");

    let (s, b) = app.get("/v1/admin/audit", &org.token).await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");
    let (s, page) = app.get("/v1/admin/audit?limit=2", &app.admin_token).await;
    assert_eq!(s, StatusCode::OK, "{page}");
    let first: Vec<Value> = page["entries"].as_array().unwrap().clone();
    assert_eq!(page["has_more"], true, "{page}");
    let before = page["next_before"].as_i64().unwrap();
    let (_, rest) = app
        .get(
            &format!("/v1/admin/audit?before={before}"),
            &app.admin_token,
        )
        .await;
    let all: Vec<Value> = first
        .into_iter()
        .chain(rest["entries"].as_array().unwrap().clone())
        .collect();
    let actions: Vec<&str> = all.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(
        actions,
        [
            "tournament_cancel",
            "tournament_edit",
            "role_change",
            "grant"
        ],
        "{all:?}"
    );
    let admin_id = all[0]["actor"].clone();
    assert_eq!(all[0]["actor_username"], "admin");
    assert_eq!(all[0]["tournament_id"], tid.as_str());
    assert_eq!(all[0]["detail"]["was"], "registering");
    assert_eq!(all[1]["actor"], p.id.to_string(), "the organiser edited");
    assert_eq!(all[1]["detail"]["name"], "renamed");
    assert_eq!(all[2]["actor"], admin_id);
    assert_eq!(all[2]["target_user"], p.id.to_string());
    assert_eq!(
        all[2]["detail"],
        json!({"from": "player", "to": "organiser", "via": "api"})
    );
    assert_eq!(all[3]["detail"]["amount"], 300);
    assert_eq!(all[3]["detail"]["note"], "welcome");
    assert!(all.iter().all(|e| e["at"].is_string()));
    let (s, b) = app.get("/v1/admin/audit?limit=0", &app.admin_token).await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    // The trail is append-only, like the ledger.
    let refused = sqlx::query("DELETE FROM admin_audit")
        .execute(&app.pool)
        .await;
    assert!(
        refused.is_err(),
        "rows of the audit trail cannot be removed"
    );
}

/// The value of the sample `name` (with its labels, as written) in a scrape.
fn sample(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {name} in the scrape:\n{text}"))
        .trim()
        .parse()
        .unwrap()
}

/// The figures operators asked for: open streams and long-polls, tournaments by status, ledger
/// transactions by reason, seated bots, cached tables, moves by game.
#[tokio::test]
async fn metrics_count_streams_long_polls_tournaments_ledger_bots_tables_and_moves() {
    let app = spawn_app().await;
    let p = app.player("counted", 500).await;
    let org = app.organiser("org").await;
    a_dazha_tournament(&app, &org).await;
    let (s, v) = app
        .post(
            "/v1/matches",
            &p.token,
            json!({"game": "dazha", "bots": 3, "options": {"turn_timeout_secs": 600}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    // Bots move at once; play the player's turns by its hints until a move of its own is in.
    let mut moved = false;
    for _ in 0..20 {
        let (s, hint) = app.get(&format!("/v1/matches/{id}/hint"), &p.token).await;
        if s == StatusCode::OK {
            let (s, b) = app.act(&id, &p, hint["action"].clone()).await;
            assert_eq!(s, StatusCode::OK, "{b}");
            moved = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(moved, "the player got a turn");
    let stream = app
        .client
        .get(format!("{}/v1/me/stream", app.address))
        .bearer_auth(&p.token)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let version = app.view(&id, &p).await["version"].as_i64().unwrap();
    // Other seats wait for a version that will not come soon: two long-polls waiting.
    let url = format!(
        "{}/v1/matches/{id}?wait_version={}&timeout=10",
        app.address,
        version + 100
    );
    let polls: Vec<_> = (0..2)
        .map(|_| {
            let req = app.client.get(&url).bearer_auth(&org.token);
            tokio::spawn(req.send())
        })
        .collect();
    let until = tokio::time::Instant::now() + Duration::from_secs(8);
    let text = loop {
        let text = metrics_text(&app.client, &app.address).await;
        if sample(&text, "paiju_long_polls") >= 2.0 || tokio::time::Instant::now() > until {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for p in polls {
        p.abort();
    }
    assert_eq!(sample(&text, "paiju_open_streams"), 1.0);
    assert_eq!(sample(&text, "paiju_long_polls"), 2.0);
    assert_eq!(
        sample(&text, "paiju_tournaments{status=\"registering\"}"),
        1.0
    );
    assert_eq!(sample(&text, "paiju_seated_bots"), 3.0);
    assert!(sample(&text, "paiju_cached_tables") >= 1.0);
    assert!(sample(&text, "paiju_game_moves_total{game=\"dazha\"}") >= 1.0);
    // The admin's grant to the player (the organiser got none).
    assert_eq!(
        sample(&text, "paiju_ledger_transactions_total{reason=\"grant\"}"),
        1.0
    );
    assert_eq!(
        sample(&text, "paiju_ledger_transactions_total{reason=\"stake\"}"),
        0.0
    );
    drop(stream);
}
