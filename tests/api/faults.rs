//! Faults: two server processes on one database, kill -9 under load, a database outage, and
//! graceful shutdown. The servers are the real `paiju` binary.

use std::collections::HashMap;
use std::process::Command;
use std::time::Duration;

use paiju::config::Config;
use paiju::startup::Application;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    ADMIN, Player, TestApp, free_port, fresh_database, moves_counted, server_log, spawn_server,
    spawn_server_logging, wait_healthy,
};

/// A simple 扯旋 player: the smallest bobo, check or call, and its own cards as the split.
fn choose(view: &Value) -> Option<Value> {
    let legal = view["legal_actions"].as_array()?;
    let has = |t: &str| legal.iter().find(|a| a["type"] == t);
    if let Some(a) = has("set_bobo") {
        return Some(json!({"type": "set_bobo", "amount": a["min"]}));
    }
    if has("check").is_some() {
        return Some(json!({"type": "check"}));
    }
    if has("call").is_some() {
        return Some(json!({"type": "call"}));
    }
    if has("split").is_some() {
        let seat = view["you"]["seat"].as_u64()? as usize;
        let mine = &view["state"]["seats"][seat];
        let mut cards: Vec<Value> = mine["hidden"].as_array()?.clone();
        cards.extend(mine["face_up"].as_array()?.iter().cloned());
        return Some(
            json!({"type": "split", "head": [cards[0], cards[1]], "tail": [cards[2], cards[3]]}),
        );
    }
    legal.first().cloned()
}

/// Every match's events are numbered 1..=last_seq without a gap.
async fn assert_gapless(app: &TestApp, match_id: &str) {
    let (last, seqs): (i64, Vec<i64>) = sqlx::query_as(
        "SELECT m.last_seq, COALESCE((SELECT array_agg(seq ORDER BY seq) FROM match_events e
                                       WHERE e.match_id = m.id), '{}')
           FROM matches m WHERE m.id = $1::uuid",
    )
    .bind(match_id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        seqs,
        (1..=last).collect::<Vec<_>>(),
        "events of {match_id} have gaps"
    );
}

/// Two processes share the load; one is killed with SIGKILL mid-run and restarted. Every
/// acknowledged action is in the log exactly once and in order, events are gapless, and the
/// ledger reconciles.
#[tokio::test]
async fn two_processes_and_a_kill_lose_no_acknowledged_move() {
    let database_url = fresh_database().await;
    let ports = [free_port(), free_port()];
    let urls: Vec<String> = ports
        .iter()
        .map(|p| format!("http://127.0.0.1:{p}"))
        .collect();
    let mut servers = vec![
        spawn_server(&database_url, ports[0]),
        spawn_server(&database_url, ports[1]),
    ];
    for u in &urls {
        wait_healthy(u).await;
    }
    let pool = sqlx::PgPool::connect(&database_url).await.unwrap();
    let app = TestApp::connect(urls[0].clone(), pool).await;
    let mut players: Vec<Player> = Vec::new();
    for i in 0..6 {
        players.push(app.player(&format!("load{i}"), 1_000_000).await);
    }
    let mut matches: Vec<(String, [usize; 2])> = Vec::new();
    for m in 0..3 {
        let (a, b) = (2 * m, 2 * m + 1);
        let (s, v) = app
            .post(
                "/v1/matches",
                &players[a].token,
                json!({"game": "chexuan", "seats": 2, "options": {"turn_timeout_secs": 120}}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let id = v["id"].as_str().unwrap().to_string();
        let (s, _) = app
            .post(
                &format!("/v1/matches/{id}/join"),
                &players[b].token,
                json!({}),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        matches.push((id, [a, b]));
    }
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let mut acked: HashMap<String, Vec<i64>> = HashMap::new();
    let mut down: Option<usize> = None;
    let mut step = 0u64;
    let mut total = 0;
    while total < 240 {
        step += 1;
        assert!(step < 5_000, "the load made no progress");
        if total == 80 && down.is_none() {
            servers[1].kill().expect("kill -9");
            servers[1].wait().unwrap();
            down = Some(1);
        }
        if total == 160 && down == Some(1) {
            servers[1] = spawn_server(&database_url, ports[1]);
            wait_healthy(&urls[1]).await;
            down = None;
        }
        let (id, seats) = &matches[(step % 3) as usize];
        for &p in seats {
            // Alternate servers; requests to a dead one fail and are not acknowledged.
            let url = &urls[((step + p as u64) % 2) as usize];
            let Ok(res) = client
                .get(format!("{url}/v1/matches/{id}"))
                .bearer_auth(&players[p].token)
                .send()
                .await
            else {
                continue;
            };
            let view: Value = res.json().await.unwrap();
            let Some(action) = choose(&view) else {
                continue;
            };
            let body = json!({"version": view["version"], "action": action});
            let Ok(res) = client
                .post(format!("{url}/v1/matches/{id}/actions"))
                .bearer_auth(&players[p].token)
                .json(&body)
                .send()
                .await
            else {
                continue;
            };
            let status = res.status();
            let reply: Value = res.json().await.unwrap_or(Value::Null);
            match status {
                StatusCode::OK => {
                    acked
                        .entry(id.clone())
                        .or_default()
                        .push(reply["version"].as_i64().unwrap());
                    total += 1;
                }
                StatusCode::CONFLICT => {}
                other => panic!("unexpected {other}: {reply}"),
            }
        }
    }
    for (id, _) in &matches {
        let versions = &acked[id];
        assert!(
            versions.windows(2).all(|w| w[0] < w[1]),
            "acknowledged versions of {id} out of order"
        );
        let logged: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM match_actions WHERE match_id = $1::uuid AND kind = 'action'",
        )
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .unwrap();
        assert_eq!(
            logged as usize,
            versions.len(),
            "every acknowledged action of {id} is logged once"
        );
        assert_gapless(&app, id).await;
        let v = app.view(id, &players[0]).await;
        assert!(v["version"].as_i64().unwrap() >= *versions.last().unwrap());
    }
    app.assert_ledger_reconciles().await;
    // The fast path was under that load (the process never killed counts its moves), hand
    // ends included: a move that ends a hand commits it by one statement and the next deal by
    // another. Whatever the kill cut off between those two, no table was left without a
    // deadline, and none was left between hands: the sweeper dealt each.
    let (moves, _) = moves_counted(&app.client, &urls[0], "fast").await;
    assert!(moves > 0, "no fast moves in process 1");
    let ids: Vec<uuid::Uuid> = matches.iter().map(|(id, _)| id.parse().unwrap()).collect();
    let (ended, stuck): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM hands WHERE match_id = ANY($1) AND ended_at IS NOT NULL),
                (SELECT count(*) FROM matches WHERE id = ANY($1) AND deadline_at IS NULL)",
    )
    .bind(&ids)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!(ended > 0, "no hand ended under the load");
    assert_eq!(stuck, 0, "a playing table without a deadline");
    for id in &matches {
        app.wait_for(&id.0, &players[id.1[0]], 10, |v| {
            !v["to_act"].as_array().unwrap().is_empty()
        })
        .await;
    }
    for mut s in servers {
        s.kill().ok();
        s.wait().ok();
    }
}

/// The database stops for a few seconds: requests fail fast with 503 problem+json, and the
/// server recovers by itself when it is back.
#[tokio::test]
async fn a_database_outage_gets_fast_503s_and_recovery() {
    let dir = std::env::temp_dir().join(format!("paiju-outage-{}", uuid::Uuid::new_v4().simple()));
    let d = dir.clone();
    let cluster = tokio::task::spawn_blocking(move || paiju::pglocal::ensure(&d))
        .await
        .unwrap()
        .unwrap();
    let config = Config {
        database_url: Some(cluster.url("paiju")),
        bind: "127.0.0.1:0".into(),
        jwt_secret: Some("test secret, never for production use".into()),
        admin: Some((ADMIN.0.into(), ADMIN.1.into())),
        data_dir: dir.clone(),
        local_db_name: "paiju".into(),
        db_pool: 4,
        db_wait: Duration::from_secs(10),
        sweep_every: Duration::from_millis(100),
        token_ttl: Duration::from_secs(3600),
        lobby_turn_timeout_secs: 1,
        auth_per_minute: 100_000,
        trusted_proxies: Vec::new(),
        cors_origins: Vec::new(),
        stream: paiju::config::StreamSettings::default(),
        bot_coins: 2000,
        workers: 2,
        fast_moves: true,
        commit_lanes: 2,
        commit_batch: 64,
        metrics_bind: None,
        metrics_token: None,
    };
    let application = Application::build(config).await.unwrap();
    let address = format!("http://127.0.0.1:{}", application.port());
    let pool = application.pool();
    tokio::spawn(application.run_until(std::future::pending()));
    let app = TestApp::connect(address, pool).await;
    let p = app.player("outage", 1000).await;
    assert_eq!(app.coins(&p).await, 1000);

    let d = dir.clone();
    tokio::task::spawn_blocking(move || paiju::pglocal::ensure(&d).unwrap().stop().unwrap())
        .await
        .unwrap();
    for path in ["/v1/me", "/healthz"] {
        let started = tokio::time::Instant::now();
        let res = app
            .client
            .get(format!("{}{path}", app.address))
            .bearer_auth(&p.token)
            .send()
            .await
            .unwrap();
        let elapsed = started.elapsed();
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["code"], "unavailable");
        assert!(elapsed < Duration::from_secs(5), "{path} took {elapsed:?}");
        eprintln!("during the outage {path} answered 503 in {elapsed:?}");
    }
    let d = dir.clone();
    tokio::task::spawn_blocking(move || paiju::pglocal::ensure(&d).unwrap())
        .await
        .unwrap();
    let until = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let res = app
            .client
            .get(format!("{}/v1/me", app.address))
            .bearer_auth(&p.token)
            .send()
            .await
            .unwrap();
        if res.status() == StatusCode::OK {
            break;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "no recovery: {}",
            res.status()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(app.coins(&p).await, 1000);
    let d = dir.clone();
    tokio::task::spawn_blocking(move || paiju::pglocal::ensure(&d).unwrap().stop().unwrap())
        .await
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
}

/// SIGTERM: the request in flight finishes, then the process exits cleanly.
#[tokio::test]
async fn sigterm_lets_in_flight_requests_finish() {
    let database_url = fresh_database().await;
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let mut server = spawn_server(&database_url, port);
    wait_healthy(&url).await;
    let pool = sqlx::PgPool::connect(&database_url).await.unwrap();
    let app = TestApp::connect(url.clone(), pool).await;
    let a = app.player("term_a", 1000).await;
    let (_, v) = app
        .post(
            "/v1/matches",
            &a.token,
            json!({"game": "chexuan", "seats": 2}),
        )
        .await;
    let id = v["id"].as_str().unwrap().to_string();
    let poll = tokio::spawn(
        app.client
            .get(format!(
                "{url}/v1/matches/{id}?wait_version={}&timeout=3",
                v["version"]
            ))
            .bearer_auth(a.token.clone())
            .send(),
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let status = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let res = poll
        .await
        .unwrap()
        .expect("the in-flight long-poll got its answer");
    assert_eq!(res.status(), StatusCode::OK);
    let until = std::time::Instant::now() + Duration::from_secs(15);
    let exit = loop {
        if let Some(s) = server.try_wait().unwrap() {
            break s;
        }
        assert!(std::time::Instant::now() < until, "the server did not stop");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(exit.success(), "{exit:?}");
    assert!(
        app.client
            .get(format!("{url}/healthz"))
            .send()
            .await
            .is_err(),
        "no longer listening"
    );
}

/// Even at the most verbose log level, no password or token reaches a log line.
#[tokio::test]
async fn no_password_or_token_in_any_log_line() {
    let database_url = fresh_database().await;
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let _ = std::fs::remove_file(server_log(port));
    let mut server = spawn_server_logging(&database_url, port, "trace");
    wait_healthy(&url).await;
    let pool = sqlx::PgPool::connect(&database_url).await.unwrap();
    let app = TestApp::connect(url.clone(), pool).await;
    let p = app.register("secretive").await;
    let (s, _) = app
        .call(
            reqwest::Method::POST,
            "/v1/auth/login",
            None,
            Some(json!({"username": "secretive", "password": "password123"})),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(app.coins(&p).await, 0);
    let (s, _) = app
        .call(
            reqwest::Method::POST,
            "/v1/auth/login",
            None,
            Some(json!({"username": "secretive", "password": "wrong-password-77"})),
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    server.kill().ok();
    server.wait().ok();
    let log = std::fs::read_to_string(server_log(port)).unwrap();
    assert!(log.lines().count() > 10, "trace logging produced lines");
    for secret in [
        "password123",
        "wrong-password-77",
        ADMIN.1,
        p.token.as_str(),
        app.admin_token.as_str(),
    ] {
        assert!(
            !log.contains(secret),
            "a log line contains a secret ({} chars)",
            secret.len()
        );
    }
    let signature = p.token.rsplit('.').next().unwrap();
    assert!(!log.contains(signature));
}

/// A TCP forwarder to `target` that starts listening on `port` only after `delay`: a database
/// that comes up after the server.
fn late_database(port: u16, target: String, delay: Duration) {
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("the late database's port");
        loop {
            let Ok((mut inbound, _)) = listener.accept().await else {
                return;
            };
            let target = target.clone();
            tokio::spawn(async move {
                if let Ok(mut outbound) = tokio::net::TcpStream::connect(&target).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
}

#[tokio::test]
async fn a_server_started_before_its_database_waits_for_it() {
    // postgres://user@host:port/db?… → the same database behind a port that opens late.
    let url = fresh_database().await;
    let (_, rest) = url.split_once("://").unwrap();
    let (authority, path) = rest.split_once('/').unwrap();
    let (user, host) = authority.rsplit_once('@').unwrap_or(("", authority));
    let target = if host.contains(':') {
        host.to_string()
    } else {
        format!("{host}:5432")
    };
    let db_port = free_port();
    let late = format!("postgres://{user}@127.0.0.1:{db_port}/{path}");
    let port = free_port();
    let mut server = spawn_server(&late, port);
    late_database(db_port, target, Duration::from_secs(2));
    let address = format!("http://127.0.0.1:{port}");
    wait_healthy(&address).await;
    let log = std::fs::read_to_string(server_log(port)).unwrap();
    assert!(
        log.contains("PostgreSQL is not reachable yet; retrying"),
        "the wait is logged: {log}"
    );
    // The container probe: `paiju healthcheck` against the live server, then a dead port.
    // (Run without blocking: this test's runtime also runs the late database's forwarder.)
    let probe = async |bind: String| {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_paiju"))
            .arg("healthcheck")
            .env("PAIJU_BIND", bind)
            .output()
            .await
            .unwrap()
    };
    assert!(probe(format!("127.0.0.1:{port}")).await.status.success());
    let dead = probe(format!("127.0.0.1:{}", free_port())).await;
    assert!(!dead.status.success());
    server.kill().ok();
    server.wait().ok();
}

#[tokio::test]
async fn a_guessable_jwt_secret_is_refused_at_start() {
    for secret in ["change-me-in-production", "too-short-secret"] {
        let out = Command::new(env!("CARGO_BIN_EXE_paiju"))
            .env("JWT_SECRET", secret)
            .env("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none")
            .env("PAIJU_DB_WAIT_SECS", "0")
            .output()
            .unwrap();
        assert!(!out.status.success(), "{secret} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("JWT_SECRET"), "{secret}: {err}");
    }
}
