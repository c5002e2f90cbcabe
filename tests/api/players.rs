//! What players need beyond one match: finding their matches again, the per-user event stream,
//! bots with hints, and CORS for browser clients on other origins.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, fresh_database, game_deck, spawn_app, spawn_app_with,
};
use crate::tournaments::{create_of, register_players, start, wait_finished};

/// One Server-Sent Events stream read frame by frame.
pub struct Sse {
    res: reqwest::Response,
    buf: String,
}

/// One frame: its event name (`comment` for a `: …` line), data and id.
#[derive(Debug)]
pub struct Frame {
    pub event: String,
    pub data: Value,
    pub id: Option<i64>,
}

impl Sse {
    pub async fn open(app: &TestApp, path: &str, token: Option<&str>, last_id: Option<i64>) -> Sse {
        let res = Self::request(app, path, token, last_id).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(
            res.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        Sse {
            res,
            buf: String::new(),
        }
    }

    async fn request(
        app: &TestApp,
        path: &str,
        token: Option<&str>,
        last_id: Option<i64>,
    ) -> reqwest::Response {
        let mut req = reqwest::Client::new().get(format!("{}{path}", app.address));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(id) = last_id {
            req = req.header("Last-Event-ID", id.to_string());
        }
        req.send().await.expect("stream request sent")
    }

    /// The next frame within `secs`, or `None`.
    async fn next(&mut self, secs: u64) -> Option<Frame> {
        let until = tokio::time::Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let raw: String = self.buf.drain(..end + 2).collect();
                let mut f = Frame {
                    event: "message".into(),
                    data: Value::Null,
                    id: None,
                };
                for line in raw.lines() {
                    if line.starts_with(':') {
                        f.event = "comment".into();
                    } else if let Some(v) = line.strip_prefix("event: ") {
                        f.event = v.to_string();
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        f.data = serde_json::from_str(v).expect("data is JSON");
                        // Every event the stream names is one the document describes.
                        if let Some(event) = raw.lines().find_map(|l| l.strip_prefix("event: ")) {
                            let framed = json!({ "event": event, "data": f.data });
                            let errs =
                                crate::contract::errors("/components/schemas/StreamEvent", &framed);
                            assert!(errs.is_empty(), "stream event {framed}: {errs:?}");
                        }
                    } else if let Some(v) = line.strip_prefix("id: ") {
                        f.id = Some(v.parse().expect("numeric id"));
                    } else if line.starts_with("retry: ") {
                        f.event = "retry".into();
                    }
                }
                return Some(f);
            }
            let chunk = tokio::time::timeout_at(until, self.res.chunk())
                .await
                .ok()?
                .expect("stream readable")?;
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// Reads until a frame satisfies `want`; panics after `secs` with what was seen.
    pub async fn until(&mut self, secs: u64, want: impl Fn(&Frame) -> bool) -> Frame {
        let until = tokio::time::Instant::now() + Duration::from_secs(secs);
        let mut seen = Vec::new();
        loop {
            let left = until.saturating_duration_since(tokio::time::Instant::now());
            match self.next(left.as_secs().max(1)).await {
                Some(f) if want(&f) => return f,
                Some(f) => seen.push(format!("{} {}", f.event, f.data)),
                None => panic!("no wanted frame within {secs} s; saw {seen:#?}"),
            }
            assert!(
                tokio::time::Instant::now() < until,
                "no wanted frame within {secs} s; saw {seen:#?}"
            );
        }
    }
}

async fn create(app: &TestApp, p: &Player, body: Value) -> Value {
    let (s, v) = app.post("/v1/matches", &p.token, body).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    v
}

fn ids(list: &Value) -> Vec<&str> {
    list["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn players_find_their_matches_and_open_tables_again() {
    let app = spawn_app().await;
    let alice = app.player("alice", 100_000).await;
    let bob = app.player("bob", 100_000).await;
    let carol = app.player("carol", 100_000).await;
    let first = create(&app, &alice, json!({"game": "chexuan", "seats": 2})).await;
    let second = create(&app, &alice, json!({"game": "dazha"})).await;
    let theirs = create(&app, &bob, json!({"game": "chexuan", "seats": 3})).await;
    let (first, second, theirs) = (
        first["id"].as_str().unwrap(),
        second["id"].as_str().unwrap(),
        theirs["id"].as_str().unwrap(),
    );

    // Newest first, cursor-paged.
    let (s, page) = app.get("/v1/me/matches?limit=1", &alice.token).await;
    assert_eq!(s, StatusCode::OK, "{page}");
    assert_eq!(ids(&page), [second]);
    assert_eq!(page["has_more"], true);
    let cursor = page["next_before"].as_str().unwrap();
    let (_, page) = app
        .get(
            &format!("/v1/me/matches?limit=1&before={cursor}"),
            &alice.token,
        )
        .await;
    assert_eq!(ids(&page), [first]);
    assert_eq!(
        (page["has_more"].clone(), page["next_before"].clone()),
        (json!(false), Value::Null)
    );
    let m = &page["matches"][0];
    assert_eq!(
        (
            m["game"].as_str(),
            m["seat"].as_i64(),
            m["status"].as_str(),
            m["your_turn"].as_bool()
        ),
        (Some("chexuan"), Some(0), Some("waiting"), Some(false))
    );

    // Open tables: everyone's waiting tables, with who sits there.
    let (s, open) = app.get("/v1/matches?game=chexuan", &carol.token).await;
    assert_eq!(s, StatusCode::OK, "{open}");
    assert_eq!(ids(&open), [theirs, first]);
    assert_eq!(open["matches"][1]["taken"], 1);
    assert_eq!(open["matches"][1]["players"][0]["username"], "alice");
    assert_eq!(open["matches"][1]["players"][0]["bot"], false);

    // Bob joins alice's first table: it starts, leaves the open list, and one of them must act.
    let (s, v) = app
        .post(&format!("/v1/matches/{first}/join"), &bob.token, json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, open) = app.get("/v1/matches?game=chexuan", &carol.token).await;
    assert_eq!(ids(&open), [theirs]);
    let (_, live) = app.get("/v1/matches?status=playing", &carol.token).await;
    assert_eq!(ids(&live), [first]);
    let view = app.view(first, &alice).await;
    let to_act: Vec<i64> = view["to_act"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_i64().unwrap())
        .collect();
    assert!(!to_act.is_empty(), "{view}");
    for p in [&alice, &bob] {
        let (_, mine) = app.get("/v1/me/matches?status=playing", &p.token).await;
        assert_eq!(ids(&mine), [first]);
        let m = &mine["matches"][0];
        assert_eq!(m["version"], view["version"]);
        assert_eq!(m["to_act"], view["to_act"]);
        assert_eq!(m["hand_no"], view["hand_no"]);
        assert_eq!(m["deadline"].is_string(), view["deadline"].is_string());
        let seat = m["seat"].as_i64().unwrap();
        assert_eq!(m["your_turn"], json!(to_act.contains(&seat)), "{m}");
    }
    let (_, both) = app
        .get("/v1/me/matches?status=waiting,playing", &alice.token)
        .await;
    assert_eq!(ids(&both), [second, first]);
    let (_, dazha) = app.get("/v1/me/matches?game=dazha", &alice.token).await;
    assert_eq!(ids(&dazha), [second]);
    let (_, none) = app
        .get("/v1/me/matches?status=finished", &alice.token)
        .await;
    assert_eq!(ids(&none), Vec::<&str>::new());

    for (path, field) in [
        ("/v1/me/matches?status=lost", "status"),
        ("/v1/me/matches?limit=0", "limit"),
        ("/v1/me/matches?before=nonsense", "before"),
        ("/v1/me/matches?game=poker", "game"),
        ("/v1/matches?status=finished", "status"),
        ("/v1/matches?game=poker", "game"),
    ] {
        let (s, b) = app.get(path, &alice.token).await;
        assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert!(b["detail"].as_str().unwrap().contains(field), "{path}: {b}");
    }
    let (s, b) = app.call(Method::GET, "/v1/me/matches", None, None).await;
    assert_problem(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
}

/// Plays `p`'s turns with the server's 提示 until the first hand has ended.
async fn play_with_hints(app: &TestApp, id: &str, p: &Player) -> Value {
    let until = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let v = app.view(id, p).await;
        if !v["last_result"].is_null() || v["status"] == "finished" {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "the hand did not end: {v}"
        );
        let seat = v["you"]["seat"].clone();
        if !v["to_act"].as_array().unwrap().contains(&seat) {
            let (s, b) = app.get(&format!("/v1/matches/{id}/hint"), &p.token).await;
            assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
            continue;
        }
        let (s, hint) = app.get(&format!("/v1/matches/{id}/hint"), &p.token).await;
        assert_eq!(s, StatusCode::OK, "{hint}");
        let (s, b) = app
            .post(
                &format!("/v1/matches/{id}/actions"),
                &p.token,
                json!({"version": hint["version"], "action": hint["action"]}),
            )
            .await;
        // A bot's reply in between is a new version: ask again.
        assert!(
            s == StatusCode::OK || s == StatusCode::CONFLICT,
            "the hint {hint} was refused: {b}"
        );
    }
}

/// A 打炸 deal in which every seat holds one joker beside a natural bomb of four, so no hand is
/// shown at once (有王没炸弹 would end it before alice plays). Card i goes to seat i mod 4.
fn no_tanpai_deck() -> Vec<String> {
    let mut pool = game_deck("dazha", json!({}));
    let mut hands: Vec<Vec<String>> = vec![Vec::new(); 4];
    for (seat, hand) in hands.iter_mut().enumerate() {
        let joker = pool.iter().position(|c| c == "RJ" || c == "BJ").unwrap();
        hand.push(pool.remove(joker));
        let rank = (3 + seat).to_string();
        for _ in 0..4 {
            let i = pool.iter().position(|c| c[..c.len() - 1] == rank).unwrap();
            hand.push(pool.remove(i));
        }
    }
    for (i, card) in pool.into_iter().enumerate() {
        hands[i % 4].push(card);
    }
    (0..27)
        .flat_map(|i| hands.iter().map(move |h| h[i].clone()))
        .collect()
}

#[tokio::test]
async fn bots_fill_the_last_seats_and_a_player_plays_a_hand_with_hints() {
    let app = spawn_app().await;
    let alice = app.player("alice", 0).await;
    // An admin fixes a deal where nobody must show their hand (摊牌), so alice plays it.
    let (s, v) = app
        .post(
            "/v1/matches",
            &app.admin_token,
            json!({"game": "dazha", "bots": 3, "join": false, "deck": no_tanpai_deck(),
                   "options": {"hands": 1}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["status"], "waiting", "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let (s, v) = app
        .post(&format!("/v1/matches/{id}/join"), &alice.token, json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        v["status"], "playing",
        "a table full with bots deals at once: {v}"
    );
    let seats = v["seats"].as_array().unwrap();
    assert_eq!(seats[0]["username"], "alice");
    assert_eq!(seats[0]["bot"], false);
    for s in &seats[1..] {
        assert_eq!(
            (s["bot"].as_bool(), s["auto"].as_bool()),
            (Some(true), Some(true)),
            "{s}"
        );
        assert!(s["username"].as_str().unwrap().starts_with("bot_"));
    }
    let (_, open) = app
        .get("/v1/matches?status=playing&game=dazha", &alice.token)
        .await;
    let bots = open["matches"][0]["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["bot"] == true)
        .count();
    assert_eq!(bots, 3);

    let end = play_with_hints(&app, &id, &alice).await;
    assert_eq!(end["status"], "finished", "one hand was asked for: {end}");
    let points = end["last_result"]["points"].as_array().unwrap();
    assert_eq!(points.iter().map(|p| p.as_i64().unwrap()).sum::<i64>(), 0);
    let (s, b) = app
        .get(&format!("/v1/matches/{id}/hint"), &alice.token)
        .await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
    // Points-only game without a buy-in: the bots needed no coins.
    let funded: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM ledger_tx WHERE reason IN ('bot_funding', 'bot_return')",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(funded, 0);
    let stranger = app.player("stranger", 0).await;
    let (s, b) = app
        .get(&format!("/v1/matches/{id}/hint"), &stranger.token)
        .await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn chexuan_bots_play_house_coins_and_give_back_what_is_left() {
    let app = spawn_app().await;
    let alice = app.player("alice", 10_000).await;
    let v = create(
        &app,
        &alice,
        json!({"game": "chexuan", "seats": 3, "bots": 2, "options": {"hands": 2}}),
    )
    .await;
    let id = v["id"].as_str().unwrap().to_string();
    let bots: Vec<uuid::Uuid> = v["seats"].as_array().unwrap()[1..]
        .iter()
        .map(|s| s["user_id"].as_str().unwrap().parse().unwrap())
        .collect();
    let funded: Vec<(uuid::Uuid, i64)> = sqlx::query_as(
        "SELECT a.user_id, e.amount FROM ledger_tx t
           JOIN ledger_entries e ON e.tx_id = t.id JOIN accounts a ON a.id = e.account_id
          WHERE t.reason = 'bot_funding' AND a.kind = 'user' ORDER BY e.id",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(funded, vec![(bots[0], 2000), (bots[1], 2000)]);
    let house_before_return: i64 =
        sqlx::query_scalar("SELECT balance FROM accounts WHERE kind = 'house'")
            .fetch_one(&app.pool)
            .await
            .unwrap();

    // Alice plays both hands with hints; the bots play at once.
    let first = play_with_hints(&app, &id, &alice).await;
    assert!(!first["last_result"].is_null());
    let until = tokio::time::Instant::now() + Duration::from_secs(120);
    let mut end = first;
    while end["status"] != "finished" {
        assert!(tokio::time::Instant::now() < until, "{end}");
        let seat = end["you"]["seat"].clone();
        if end["to_act"].as_array().unwrap().contains(&seat) {
            let (_, hint) = app
                .get(&format!("/v1/matches/{id}/hint"), &alice.token)
                .await;
            if hint["action"].is_object() {
                app.post(
                    &format!("/v1/matches/{id}/actions"),
                    &alice.token,
                    json!({"version": hint["version"], "action": hint["action"]}),
                )
                .await;
            }
        }
        end = app.view(&id, &alice).await;
    }

    // Every bot coin went back to the house; what alice won or lost came from or went to it.
    let left: Vec<i64> =
        sqlx::query_scalar("SELECT balance FROM accounts WHERE user_id = ANY($1) ORDER BY user_id")
            .bind(&bots)
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(left, vec![0, 0], "bots keep nothing after the table ends");
    let returned: i64 = sqlx::query_scalar(
        "SELECT COALESCE(sum(e.amount), 0)::bigint FROM ledger_tx t
           JOIN ledger_entries e ON e.tx_id = t.id JOIN accounts a ON a.id = e.account_id
          WHERE t.reason = 'bot_return' AND a.kind = 'house'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let house_after: i64 = sqlx::query_scalar("SELECT balance FROM accounts WHERE kind = 'house'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let match_id = uuid::Uuid::parse_str(&id).unwrap();
    // What else the house took at this table (escape penalties), and what the table holds.
    let penalties: i64 = sqlx::query_scalar(
        "SELECT COALESCE(sum(e.amount), 0)::bigint FROM ledger_tx t
           JOIN ledger_entries e ON e.tx_id = t.id JOIN accounts a ON a.id = e.account_id
          WHERE t.reason NOT IN ('bot_funding', 'bot_return') AND a.kind = 'house'
            AND t.match_id = $1",
    )
    .bind(match_id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let escrow: i64 = sqlx::query_scalar("SELECT balance FROM accounts WHERE match_id = $1")
        .bind(match_id)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(house_after, house_before_return + returned + penalties);
    let alice_now = app.coins(&alice).await;
    assert_eq!(
        alice_now - 10_000,
        4000 - returned - penalties - escrow,
        "alice's gain is the bots' loss"
    );
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn bots_have_rules_and_no_way_in() {
    let app = spawn_app().await;
    let alice = app.player("alice", 1_000_000).await;
    for (body, says) in [
        (
            json!({"game": "dazha", "bots": 4}),
            "bots must be from 0 to 3",
        ),
        (
            json!({"game": "dazha", "bots": 4, "join": false}),
            "bots only",
        ),
        (
            json!({"game": "dazha", "bots": 1, "options": {"room": "coin", "stake": 10}}),
            "coin rooms",
        ),
    ] {
        let (s, b) = app.post("/v1/matches", &alice.token, body.clone()).await;
        assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert!(b["detail"].as_str().unwrap().contains(says), "{body}: {b}");
    }
    let (s, b) = app
        .call(
            Method::POST,
            "/v1/auth/register",
            None,
            Some(json!({"username": "Bot_imposter", "password": "password123"})),
        )
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    let v = create(
        &app,
        &alice,
        json!({"game": "shengji", "bots": 3, "buy_in": 500}),
    )
    .await;
    let bot = v["seats"][1]["username"].as_str().unwrap();
    let (s, b) = app
        .call(
            Method::POST,
            "/v1/auth/login",
            None,
            Some(json!({"username": bot, "password": ""})),
        )
        .await;
    assert_problem(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    // The table's buy-in is what each bot is given.
    let funded: Vec<i64> = sqlx::query_scalar(
        "SELECT e.amount FROM ledger_tx t JOIN ledger_entries e ON e.tx_id = t.id
           JOIN accounts a ON a.id = e.account_id
          WHERE t.reason = 'bot_funding' AND a.kind = 'user'",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(funded, vec![500, 500, 500]);
    // With PAIJU_BOT_COINS=0 the house funds no bot at a table of a game that stakes coins.
    let strict = spawn_app_with(|c| c.bot_coins = 0).await;
    let bob = strict.player("bob", 1000).await;
    let (s, b) = strict
        .post(
            "/v1/matches",
            &bob.token,
            json!({"game": "chexuan", "seats": 2, "bots": 1}),
        )
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    assert!(
        b["detail"].as_str().unwrap().contains("PAIJU_BOT_COINS"),
        "{b}"
    );
    // A table left by its only player before the deal ends, and the bots' coins go back.
    let v = create(
        &app,
        &alice,
        json!({"game": "chexuan", "seats": 4, "bots": 2}),
    )
    .await;
    let id = v["id"].as_str().unwrap();
    let (s, v) = app
        .post(&format!("/v1/matches/{id}/leave"), &alice.token, json!({}))
        .await;
    assert_eq!(
        (s, v["status"].as_str()),
        (StatusCode::OK, Some("aborted")),
        "{v}"
    );
    let (funded, returned): (i64, i64) = sqlx::query_as(
        "SELECT COALESCE(sum(e.amount) FILTER (WHERE t.reason = 'bot_funding'), 0)::bigint,
                COALESCE(-sum(e.amount) FILTER (WHERE t.reason = 'bot_return'), 0)::bigint
           FROM ledger_tx t JOIN ledger_entries e ON e.tx_id = t.id
           JOIN accounts a ON a.id = e.account_id
          WHERE a.kind = 'user' AND t.match_id = $1::uuid",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!((funded, returned), (4000, 4000));
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn the_stream_tells_a_player_what_happens_to_them() {
    let app = spawn_app_with(|c| {
        c.stream.heartbeat = Duration::from_secs(1);
        c.stream.per_user = 2;
    })
    .await;
    let alice = app.player("alice", 100_000).await;
    let bob = app.player("bob", 100_000).await;

    for (path, token) in [
        ("/v1/me/stream", None),
        ("/v1/me/stream?access_token=not.a.token", None),
        ("/v1/me/stream", Some("not.a.token")),
    ] {
        let res = Sse::request(&app, path, token, None).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{path}");
        let b: Value = res.json().await.unwrap();
        assert_eq!(b["code"], "unauthorized");
    }
    let res = Sse::request(
        &app,
        "/v1/me/stream?last_event_id=-1",
        Some(&alice.token),
        None,
    )
    .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);

    // A browser's EventSource authenticates with the query.
    let mut stream = Sse::open(
        &app,
        &format!("/v1/me/stream?access_token={}", alice.token),
        None,
        None,
    )
    .await;
    let hello = stream.until(5, |f| f.event == "hello").await;
    assert_eq!(hello.data["user_id"], json!(alice.id));
    assert_eq!(hello.data["matches"], json!([]));
    let start_id = hello.id.unwrap();

    // Bob opens a table and alice joins it: she is told she sat down, then of every version.
    let v = create(&app, &bob, json!({"game": "chexuan", "seats": 2})).await;
    let id = v["id"].as_str().unwrap().to_string();
    let (s, joined) = app
        .post(&format!("/v1/matches/{id}/join"), &alice.token, json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{joined}");
    let seated = stream.until(5, |f| f.event == "seated").await;
    assert_eq!(
        seated.data,
        json!({"match_id": id, "game": "chexuan", "seat": 1, "via": "join", "at": seated.data["at"]})
    );
    assert!(seated.id.unwrap() > start_id);
    let news = stream
        .until(5, |f| {
            f.event == "match" && f.data["version"].as_i64() >= joined["version"].as_i64()
        })
        .await;
    assert_eq!(news.data["match_id"], json!(id));
    assert_eq!(news.data["status"], "playing");
    assert_eq!(
        news.id, seated.id,
        "match events carry the last notice's id"
    );
    let to_act = news.data["to_act"].as_array().unwrap().clone();
    assert_eq!(news.data["your_turn"], json!(to_act.contains(&json!(1))));

    // Bob moves: alice hears the new version.
    let bob_view = app.view(&id, &bob).await;
    if bob_view["legal_actions"].as_array().unwrap().is_empty() {
        let (_, hint) = app
            .get(&format!("/v1/matches/{id}/hint"), &alice.token)
            .await;
        let (s, b) = app
            .post(
                &format!("/v1/matches/{id}/actions"),
                &alice.token,
                json!({"version": hint["version"], "action": hint["action"]}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
    } else {
        let (_, hint) = app.get(&format!("/v1/matches/{id}/hint"), &bob.token).await;
        let (s, b) = app
            .post(
                &format!("/v1/matches/{id}/actions"),
                &bob.token,
                json!({"version": hint["version"], "action": hint["action"]}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
    }
    let now = app.view(&id, &alice).await;
    stream
        .until(5, |f| {
            f.event == "match" && f.data["version"] == now["version"]
        })
        .await;
    // Heartbeats keep an idle stream open.
    stream.until(3, |f| f.event == "comment").await;

    // A second stream is allowed, a third is not.
    let mut again = Sse::open(&app, "/v1/me/stream", Some(&alice.token), Some(start_id)).await;
    let res = Sse::request(&app, "/v1/me/stream", Some(&alice.token), None).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    // Resumed after `start_id`: the seat notice comes again, then hello with the live match.
    let replayed = again.until(5, |f| f.event != "retry").await;
    assert_eq!(
        (replayed.event.as_str(), replayed.data["match_id"].clone()),
        ("seated", json!(id))
    );
    let hello = again.until(5, |f| f.event == "hello").await;
    assert_eq!(hello.data["matches"][0]["match_id"], json!(id));
    assert_eq!(hello.data["matches"][0]["version"], now["version"]);
    // A closed stream frees its place.
    drop(again);
    drop(stream);
    let until = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let res = Sse::request(&app, "/v1/me/stream", Some(&alice.token), None).await;
        if res.status() == StatusCode::OK {
            break;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "closed streams kept their places"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_stream_hears_moves_made_through_another_process() {
    let url = fresh_database().await;
    let app = spawn_app_with(|c| c.database_url = Some(url.clone())).await;
    let other = spawn_app_with(|c| c.database_url = Some(url)).await;
    let alice = app.player("alice", 100_000).await;
    let bob = app.player("bob", 100_000).await;
    let v = create(&app, &alice, json!({"game": "dazha", "bots": 2})).await;
    let id = v["id"].as_str().unwrap().to_string();
    let mut stream = Sse::open(&app, "/v1/me/stream", Some(&alice.token), None).await;
    let hello = stream.until(5, |f| f.event == "hello").await;
    assert_eq!(hello.data["matches"][0]["status"], "waiting");
    // Bob joins through the other process; the table deals and bots play.
    let (s, b) = other
        .post(&format!("/v1/matches/{id}/join"), &bob.token, json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let news = stream
        .until(10, |f| f.event == "match" && f.data["status"] == "playing")
        .await;
    assert_eq!(news.data["match_id"], json!(id));
    assert!(news.data["version"].as_i64() >= b["version"].as_i64());
}

#[tokio::test]
async fn tournament_players_are_told_of_their_table_their_elimination_and_the_end() {
    let app = spawn_app().await;
    let org = app.organiser("org").await;
    let id = create_of(&app, &org, "dazha", 100, 4, 1).await;
    let players = register_players(&app, &id, 4, 1000, "tp").await;
    let (s, b) = start(&app, &org, &id).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let t = wait_finished(&app, &id, 120).await;
    let winner = t["winner"].clone();
    for p in &players {
        // From the first notice on: everything that happened, in order.
        let mut stream =
            Sse::open(&app, "/v1/me/stream?last_event_id=0", Some(&p.token), None).await;
        let mut kinds = Vec::new();
        loop {
            let f = stream
                .until(5, |f| !matches!(f.event.as_str(), "retry" | "comment"))
                .await;
            if f.event == "hello" {
                break;
            }
            if f.event != "seated" {
                assert_eq!(f.data["tournament_id"], json!(id), "{f:?}");
            }
            match f.event.as_str() {
                "seated" => assert_eq!(f.data["via"], "tournament"),
                "tournament_finished" => assert_eq!(f.data["winner"], winner),
                "eliminated" => assert_eq!(
                    (f.data["round"].as_i64(), f.data["escaped"].as_bool()),
                    (Some(1), Some(false))
                ),
                _ => {}
            }
            kinds.push(f.event);
        }
        let mut want = vec!["seated", "tournament_table"];
        if json!(p.id) != winner {
            want.push("eliminated");
        }
        want.push("tournament_finished");
        assert_eq!(kinds, want, "{}", p.name);
    }
}

#[tokio::test]
async fn the_lobby_tells_players_it_seated_them() {
    let app = spawn_app().await;
    let mut players = Vec::new();
    for i in 0..4 {
        players.push(app.player(&format!("lob{i}"), 100_000).await);
    }
    let mut stream = Sse::open(&app, "/v1/me/stream", Some(&players[0].token), None).await;
    stream.until(5, |f| f.event == "hello").await;
    let mut matched = Value::Null;
    for p in &players {
        let (s, b) = app
            .post("/v1/lobby/dazha/queue", &p.token, json!({"stake": 1}))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        matched = b;
    }
    let seated = stream.until(5, |f| f.event == "seated").await;
    assert_eq!(seated.data["via"], "lobby");
    assert_eq!(seated.data["match_id"], matched["match_id"]);
    stream
        .until(5, |f| {
            f.event == "match" && f.data["match_id"] == matched["match_id"]
        })
        .await;
}

#[tokio::test]
async fn cors_answers_the_configured_origins_only() {
    let origin = "https://play.example.com";
    let app = spawn_app_with(|c| c.cors_origins = vec![origin.into()]).await;
    let client = reqwest::Client::new();
    let preflight = client
        .request(Method::OPTIONS, format!("{}/v1/matches", app.address))
        .header("Origin", origin)
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "authorization, content-type, idempotency-key",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), StatusCode::OK);
    let h = preflight.headers();
    assert_eq!(h["access-control-allow-origin"], origin);
    let allowed = h["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    assert!(
        allowed.contains("idempotency-key") && allowed.contains("authorization"),
        "{allowed}"
    );
    let get = client
        .get(format!("{}/healthz", app.address))
        .header("Origin", origin)
        .send()
        .await
        .unwrap();
    assert_eq!(get.headers()["access-control-allow-origin"], origin);
    assert!(
        get.headers()["access-control-expose-headers"]
            .to_str()
            .unwrap()
            .to_lowercase()
            .contains("etag")
    );
    // Another origin's page gets no CORS headers, so its browser keeps the answer from it.
    let other = client
        .get(format!("{}/healthz", app.address))
        .header("Origin", "https://evil.example.com")
        .send()
        .await
        .unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());
    // By default no origin is allowed.
    let plain = spawn_app().await;
    let res = client
        .get(format!("{}/healthz", plain.address))
        .header("Origin", origin)
        .send()
        .await
        .unwrap();
    assert!(res.headers().get("access-control-allow-origin").is_none());
}

/// A player's open stream ends when their account is deleted (through this process or
/// another), as their token is refused from then on.
#[tokio::test]
async fn a_stream_ends_when_its_account_is_deleted() {
    let app = spawn_app().await;
    let p = app.player("leaving", 0).await;
    let mut sse = Sse::open(&app, "/v1/me/stream", Some(&p.token), None).await;
    sse.until(5, |f| f.event == "hello").await;
    app.delete_account(&p).await;
    // A `None` sooner than the 2 s a read waits is the end of the stream, not a timeout.
    let started = std::time::Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "the stream was still open after {:?}",
            started.elapsed()
        );
        let read = std::time::Instant::now();
        match sse.next(2).await {
            Some(f) => assert_eq!(f.event, "comment", "only heartbeats before the end: {f:?}"),
            None if read.elapsed() < Duration::from_millis(1500) => break,
            None => {}
        }
    }
}
