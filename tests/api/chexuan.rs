//! 扯旋 played end to end through HTTP.

use std::time::Duration;

use games::cards::Card;
use games::chexuan::deck_for_hands;
use games::engine::{Ctx, HandStart};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, spawn_app};

/// Whether `p`'s wallet history (`GET /v1/me/ledger`) holds an entry of `reason` for `amount`.
pub(crate) async fn has_entry(app: &TestApp, p: &Player, reason: &str, amount: i64) -> bool {
    let (_, ledger) = app.get("/v1/me/ledger", &p.token).await;
    ledger["entries"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["reason"] == reason && e["amount"] == amount)
}

fn cards(cs: &[&str]) -> Vec<Card> {
    cs.iter().map(|c| Card::parse(c).unwrap()).collect()
}

/// The seed's example hands: a and b tie (天牌/6 against 人牌/7 … each wins one half), c loses to
/// both; tails 6, 7, 2.
fn seed_abc() -> Vec<Vec<Card>> {
    vec![
        cards(&["QH", "QD", "2D", "4S"]),
        cards(&["8H", "8D", "2H", "5S"]),
        cards(&["9S", "9C", "5C", "7S"]),
    ]
}

fn deck_json(hands: &[Vec<Card>]) -> Value {
    json!(deck_for_hands(hands))
}

/// Admin creates a chexuan table with a fixed deck; the players take seats 0.. in order.
pub(crate) async fn table(
    app: &TestApp,
    players: &[&Player],
    options: Value,
    deck: Option<Value>,
) -> String {
    let mut body =
        json!({"game": "chexuan", "seats": players.len(), "options": options, "join": false});
    if let Some(d) = deck {
        body["deck"] = d;
    }
    let (s, v) = app.post("/v1/matches", &app.admin_token, body).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    app.join_seats(&id, players).await;
    id
}

pub(crate) async fn set_bobos(app: &TestApp, id: &str, players: &[&Player], bobos: &[i64]) {
    for (p, b) in players.iter().zip(bobos) {
        let (s, v) = app
            .act(id, p, json!({"type": "set_bobo", "amount": b}))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
}

/// Everyone to act goes all in until the showdown.
async fn all_in_to_showdown(app: &TestApp, id: &str, players: &[&Player]) {
    for _ in 0..50 {
        let v = app.view(id, players[0]).await;
        if v["phase"] != "betting" {
            assert_eq!(v["phase"], "showdown", "{v}");
            return;
        }
        let seat = v["to_act"][0].as_u64().unwrap() as usize;
        let (s, body) = app.act(id, players[seat], json!({"type": "all_in"})).await;
        assert_eq!(s, StatusCode::OK, "{body}");
    }
    panic!("betting never ended");
}

async fn split_all(app: &TestApp, id: &str, players: &[&Player], hands: &[Vec<Card>]) -> Value {
    let mut last = Value::Null;
    for (p, h) in players.iter().zip(hands) {
        let (s, v) = app
            .act(
                id,
                p,
                json!({"type": "split", "head": [h[0], h[1]], "tail": [h[2], h[3]]}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        last = v;
    }
    last
}

async fn seed_example(
    bobos: &[i64],
    hands: Vec<Vec<Card>>,
    options: Value,
) -> (TestApp, Vec<Player>, Value) {
    let app = spawn_app().await;
    let mut players = Vec::new();
    for name in ["a_player", "b_player", "c_player"] {
        players.push(app.player(name, 1000).await);
    }
    let refs: Vec<&Player> = players.iter().collect();
    let id = table(&app, &refs, options, Some(deck_json(&hands))).await;
    set_bobos(&app, &id, &refs, bobos).await;
    all_in_to_showdown(&app, &id, &refs).await;
    let v = split_all(&app, &id, &refs, &hands).await;
    (app, players, v)
}

#[tokio::test]
async fn seed_example_tail_order_b_wins_100_and_a_nothing() {
    let (app, p, v) = seed_example(&[100, 100, 100], seed_abc(), json!({})).await;
    assert_eq!(v["last_result"]["coins"], json!([0, 100, -100]));
    assert_eq!(v["last_result"]["hand_no"], 1);
    let coins = [
        app.coins(&p[0]).await,
        app.coins(&p[1]).await,
        app.coins(&p[2]).await,
    ];
    assert_eq!(coins, [1000, 1100, 900]);
    app.assert_ledger_reconciles().await;
    // The settlement is one ledger transaction for the hand; the escrow is empty again.
    let (_, ledger) = app.get("/v1/me/ledger", &p[1].token).await;
    let reasons: Vec<&str> = ledger["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["hand_settlement", "stake", "grant"]);
    assert_eq!(ledger["entries"][0]["amount"], 200);
    assert_eq!(ledger["entries"][0]["hand_no"], 1);
}

#[tokio::test]
async fn seed_example_c_brings_150_and_a_wins_the_remaining_50() {
    let (app, p, v) = seed_example(&[100, 100, 150], seed_abc(), json!({})).await;
    assert_eq!(v["last_result"]["coins"], json!([50, 100, -150]));
    let coins = [
        app.coins(&p[0]).await,
        app.coins(&p[1]).await,
        app.coins(&p[2]).await,
    ];
    assert_eq!(coins, [1050, 1100, 850]);
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn seed_example_50_200_150_each_wins_only_up_to_its_own_stake() {
    let hands = vec![
        cards(&["QH", "QD", "2D", "5S"]),
        cards(&["8H", "8D", "4S", "2H"]),
        cards(&["9S", "9C", "3H", "7S"]),
    ];
    let (app, p, v) = seed_example(&[50, 200, 150], hands, json!({"min_bobo": 50})).await;
    assert_eq!(v["last_result"]["coins"], json!([100, 50, -150]));
    let coins = [
        app.coins(&p[0]).await,
        app.coins(&p[1]).await,
        app.coins(&p[2]).await,
    ];
    assert_eq!(coins, [1100, 1050, 850]);
    // 积分: c loses 150 coins / 底注 10 × 基本积分 10 = 150 points, shared 100:50.
    assert_eq!(v["last_result"]["points"], json!([100, 50, -150]));
    let (_, me) = app.get("/v1/me", &p[2].token).await;
    assert_eq!(me["scores"]["chexuan"], -150);
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn all_check_round_is_a_draw_that_refunds_everything() {
    let app = spawn_app().await;
    let a = app.player("ann", 500).await;
    let b = app.player("ben", 500).await;
    let c = app.player("cat", 500).await;
    let players = [&a, &b, &c];
    let id = table(&app, &players, json!({}), None).await;
    set_bobos(&app, &id, &players, &[100, 200, 300]).await;
    let v = app.view(&id, &a).await;
    assert_eq!(v["phase"], "betting");
    assert_eq!(
        app.coins(&c).await,
        200,
        "the bobo sits in the match escrow"
    );
    for _ in 0..3 {
        let v = app.view(&id, &a).await;
        let seat = v["to_act"][0].as_u64().unwrap() as usize;
        let (s, body) = app.act(&id, players[seat], json!({"type": "check"})).await;
        assert_eq!(s, StatusCode::OK, "{body}");
    }
    let v = app.view(&id, &a).await;
    assert_eq!(v["last_result"]["coins"], json!([0, 0, 0]), "{v}");
    assert_eq!(v["last_result"]["points"], json!([0, 0, 0]));
    for p in players {
        assert_eq!(app.coins(p).await, 500);
    }
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn escape_charges_the_table_total_and_refunds_the_others() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let c = app.player("cat", 1000).await;
    let players = [&a, &b, &c];
    let id = table(&app, &players, json!({}), None).await;
    set_bobos(&app, &id, &players, &[100, 100, 100]).await;
    // Seat 1 opens with 20; the table then holds 3 antes + 20 = 50.
    let (s, v) = app.act(&id, &b, json!({"type": "raise", "to": 20})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = app
        .post(&format!("/v1/matches/{id}/leave"), &c.token, json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["you"], Value::Null);
    assert_eq!(
        v["status"], "waiting",
        "the freed seat waits for a new player"
    );
    assert_eq!(app.coins(&a).await, 1000);
    assert_eq!(app.coins(&b).await, 1000);
    assert_eq!(app.coins(&c).await, 950);
    assert!(
        has_entry(&app, &c, "hand_settlement", 50).await,
        "the unused bobo comes back"
    );
    let house: i64 = sqlx::query_scalar(
        "SELECT COALESCE(sum(e.amount), 0)::bigint FROM ledger_entries e JOIN ledger_tx t ON t.id = e.tx_id
          JOIN accounts a ON a.id = e.account_id WHERE a.kind = 'house' AND t.reason = 'escape_penalty'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(house, 50);
    let (_, me) = app.get("/v1/me", &c.token).await;
    assert!(me["scores"]["chexuan"].as_i64().unwrap() < 0, "{me}");
    app.assert_ledger_reconciles().await;

    // A new player takes the seat and the next hand is dealt.
    let d = app.player("dan", 1000).await;
    let (s, v) = app.join(&id, &d, None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["you"]["seat"], 2);
    assert_eq!(v["hand_no"], 2);
    assert_eq!(v["phase"], "bobo");
}

/// Four seats (ann, ben, cat, dan) stake 100 each; ben raises to 20, cat folds and leaves.
pub(crate) async fn a_folded_seat_left() -> (TestApp, String, [Player; 4]) {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let c = app.player("cat", 1000).await;
    let d = app.player("dan", 1000).await;
    let players = [&a, &b, &c, &d];
    let id = table(&app, &players, json!({}), None).await;
    set_bobos(&app, &id, &players, &[100, 100, 100, 100]).await;
    let (s, v) = app.act(&id, &b, json!({"type": "raise", "to": 20})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = app.act(&id, &c, json!({"type": "fold"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = app
        .post(&format!("/v1/matches/{id}/leave"), &c.token, json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    (app, id, [a, b, c, d])
}

/// A folded seat that leaves takes the rest of its 簸簸 home at once (reason `stake_return`:
/// the hand's one `hand_settlement` is still to come), and the others play the hand to its
/// end and settlement. The hand's 积分 go to the players dealt into it, the leaver's too, not
/// to one who took the freed seat meanwhile.
#[tokio::test]
async fn a_folded_seat_leaves_with_its_bobo_and_the_hand_still_settles() {
    let (app, id, [a, b, c, d]) = a_folded_seat_left().await;
    // Its ante stays in the hand; the other 90 of its 簸簸 come back now.
    assert_eq!(app.coins(&c).await, 990);
    assert!(has_entry(&app, &c, "stake_return", 90).await);
    // A new player takes the freed seat during the hand; it plays from the next deal.
    let e = app.player("eve", 1000).await;
    let (s, v) = app.join(&id, &e, Some(2)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    for p in [&d, &a] {
        let (s, v) = app.act(&id, p, json!({"type": "fold"})).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    let v = app.view(&id, &b).await;
    assert_eq!(v["last_result"]["hand_no"], 1, "{v}");
    // The hand's 积分 go to the players dealt into it, cat's too, none to eve; they sum to 0.
    let points: Vec<i64> = v["last_result"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    assert_eq!(points.iter().sum::<i64>(), 0, "{v}");
    assert!(points[2] < 0, "cat lost its ante: {v}");
    for (p, want) in [
        (&a, points[0]),
        (&b, points[1]),
        (&c, points[2]),
        (&d, points[3]),
    ] {
        let (_, me) = app.get("/v1/me", &p.token).await;
        assert_eq!(me["scores"]["chexuan"], want, "{me}");
    }
    let (_, me) = app.get("/v1/me", &e.token).await;
    assert!(
        me["scores"]["chexuan"].as_i64().unwrap_or(0) == 0,
        "eve was not dealt in: {me}"
    );
    assert_eq!(app.coins(&e).await, 1000);
    let coins = [
        app.coins(&a).await,
        app.coins(&b).await,
        app.coins(&c).await,
        app.coins(&d).await,
    ];
    assert_eq!(coins, [990, 1030, 990, 990], "ben collects the three antes");
    let settlements: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM ledger_tx WHERE match_id = $1::uuid AND reason = 'hand_settlement'",
    )
    .bind(&id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(settlements, 1);
    app.assert_ledger_reconciles().await;
}

/// Four seats stake 100; ben raises, cat folds and leaves (90 back at once), a newcomer takes
/// the freed seat or nobody does, and the others play the hand to a draw (every later round
/// checked): every 簸簸 comes back whole, cat's ante to cat, none of it to the newcomer, and the
/// hand ends (an empty seat's refund once failed the move with a 500, forever).
async fn draw_after_a_folded_seat_left(taken: bool) {
    let (app, id, [a, b, c, d]) = a_folded_seat_left().await;
    let e = app.player("eve", 1000).await;
    if taken {
        let (s, v) = app.join(&id, &e, Some(2)).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    let by_seat = [&a, &b, &e, &d];
    let mut v = app.view(&id, &a).await;
    for _ in 0..20 {
        if v["last_result"]["hand_no"] == 1 {
            break;
        }
        let seat = v["to_act"][0].as_u64().expect("a seat to act") as usize;
        let (mut s, mut body) = app.act(&id, by_seat[seat], json!({"type": "call"})).await;
        if s != StatusCode::OK {
            (s, body) = app.act(&id, by_seat[seat], json!({"type": "check"})).await;
        }
        assert_eq!(s, StatusCode::OK, "{body}");
        v = app.view(&id, &a).await;
    }
    assert_eq!(v["last_result"]["hand_no"], 1, "the hand ended: {v}");
    assert_eq!(v["last_result"]["detail"]["ending"], "draw", "{v}");
    for p in [&a, &b, &c, &d, &e] {
        assert_eq!(app.coins(p).await, 1000, "{}", p.name);
    }
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn a_draw_refunds_a_folded_leaver_and_not_who_took_its_seat() {
    draw_after_a_folded_seat_left(true).await;
}

#[tokio::test]
async fn a_draw_refunds_a_folded_leaver_whose_seat_stayed_empty() {
    draw_after_a_folded_seat_left(false).await;
}

#[tokio::test]
async fn timeouts_fold_and_split_without_any_client() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let players = [&a, &b];
    let id = table(&app, &players, json!({"turn_timeout_secs": 1}), None).await;
    set_bobos(&app, &id, &players, &[100, 100]).await;
    // Both all in: the cards are dealt out and the showdown waits for splits nobody sends.
    all_in_to_showdown(&app, &id, &players).await;
    let v = app
        .wait_for(&id, &a, 20, |v| v["last_result"]["hand_no"] == 1)
        .await;
    let r = &v["last_result"];
    assert_eq!(
        r["coins"][0].as_i64().unwrap() + r["coins"][1].as_i64().unwrap(),
        0
    );
    assert!(
        r["detail"]["hands"].is_array() || r["detail"]["hands"].is_object(),
        "{r}"
    );
    // Hand 2: nobody sets a bobo: a timeout sits the seat out (an absent player is not
    // staked), and with fewer than two seats playing the hand is a draw. Ann, whose split also
    // timed out, has two timeouts in a row and is put in 托管.
    let v = app
        .wait_for(&id, &a, 30, |v| v["seats"][0]["auto"] == true)
        .await;
    assert!(
        v["legal_actions"]
            .as_array()
            .unwrap()
            .contains(&json!({"type": "resume"})),
        "{v}"
    );
    // Her seat now sits out at once, so every hand ends before anyone acts: they are paced,
    // one a second, not played by the thousand.
    let before = app.view(&id, &a).await["hand_no"].as_u64().unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let after = app.view(&id, &a).await["hand_no"].as_u64().unwrap();
    assert!(after <= before + 4, "hands {before} → {after} in 2.5 s");
    let (_, events) = app.get(&format!("/v1/matches/{id}/events"), &a.token).await;
    let kinds: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"timeout") && kinds.contains(&"auto"),
        "{kinds:?}"
    );
    // She comes back: the next hand deals her in and asks for her bobo.
    let (s, v) = app.act(&id, &a, json!({"type": "resume"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["seats"][0]["auto"], false);
    let v = app
        .wait_for(&id, &a, 10, |v| {
            v["phase"] == "bobo" && v["to_act"].as_array().unwrap().contains(&json!(0))
        })
        .await;
    assert_eq!(v["state"]["seats"][0]["playing"], true, "{v}");
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn concurrent_submissions_of_one_action_apply_once() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let id = table(&app, &[&a, &b], json!({}), None).await;
    let v = app.view(&id, &a).await;
    let version = v["version"].clone();
    let mut tasks = Vec::new();
    for _ in 0..12 {
        let client = app.client.clone();
        let url = format!("{}/v1/matches/{id}/actions", app.address);
        let token = a.token.clone();
        let body = json!({"version": version, "action": {"type": "set_bobo", "amount": 100}});
        tasks.push(tokio::spawn(async move {
            let res = client
                .post(url)
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = res.status();
            (status, res.json::<Value>().await.unwrap())
        }));
    }
    let mut ok = 0;
    for t in tasks {
        let (status, body) = t.await.unwrap();
        match status {
            StatusCode::OK => ok += 1,
            StatusCode::CONFLICT => assert!(
                body["code"] == "version_conflict" || body["code"] == "conflict",
                "{body}"
            ),
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert_eq!(ok, 1);
    assert_eq!(app.coins(&a).await, 900, "the bobo was staked exactly once");
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM match_actions WHERE match_id = $1::uuid")
        .bind(&id)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(n, 1);
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn idempotent_retry_replays_the_first_response_and_stale_versions_conflict() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let id = table(&app, &[&a, &b], json!({}), None).await;
    let v = app.view(&id, &a).await;
    let send = |version: Value, key: Option<&'static str>| {
        let mut req = app
            .client
            .post(format!("{}/v1/matches/{id}/actions", app.address))
            .bearer_auth(&a.token)
            .json(&json!({"version": version, "action": {"type": "set_bobo", "amount": 100}}));
        if let Some(k) = key {
            req = req.header("Idempotency-Key", k);
        }
        async move {
            let res = req.send().await.unwrap();
            (res.status(), res.json::<Value>().await.unwrap())
        }
    };
    let (s1, first) = send(v["version"].clone(), Some("bobo-1")).await;
    assert_eq!(s1, StatusCode::OK, "{first}");
    let (s2, again) = send(v["version"].clone(), Some("bobo-1")).await;
    assert_eq!((s2, &again), (StatusCode::OK, &first));
    assert_eq!(app.coins(&a).await, 900, "nothing applied twice");

    let (s3, stale) = send(v["version"].clone(), None).await;
    assert_eq!(s3, StatusCode::CONFLICT);
    assert_eq!(stale["code"], "version_conflict");
    assert_eq!(stale["view"]["version"], first["version"]);
    assert_eq!(stale["view"]["you"]["seat"], 0);
    // A version from the future (the largest a client can write) conflicts the same way.
    let (s5, future) = send(json!(i64::MAX), None).await;
    assert_eq!(s5, StatusCode::CONFLICT, "{future}");
    assert_eq!(future["view"]["version"], first["version"]);

    // Reusing a key for another request is refused rather than replayed.
    let (s4, b4) = app
        .client
        .post(format!("{}/v1/matches/{id}/actions", app.address))
        .bearer_auth(&a.token)
        .header("Idempotency-Key", "bobo-1")
        .json(&json!({"version": first["version"], "action": {"type": "fold"}}))
        .send()
        .await
        .map(|r| (r.status(), r))
        .unwrap();
    assert_eq!(
        s4,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{:?}",
        b4.text().await
    );
}

#[tokio::test]
async fn bad_actions_get_clear_problems_and_change_nothing() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let outsider = app.player("olga", 1000).await;
    let id = table(&app, &[&a, &b], json!({}), None).await;
    set_bobos(&app, &id, &[&a, &b], &[100, 100]).await;
    let v = app.view(&id, &a).await;
    let turn = v["to_act"][0].as_u64().unwrap() as usize;
    let (mover, waiter) = if turn == 0 { (&a, &b) } else { (&b, &a) };
    let cases = [
        (
            waiter,
            json!({"type": "check"}),
            StatusCode::CONFLICT,
            "not_your_turn",
        ),
        (
            mover,
            json!({"type": "raise", "to": 5}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "illegal_action",
        ),
        (
            mover,
            json!({"type": "raise", "to": 100000}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "insufficient_coins",
        ),
        (
            mover,
            json!({"type": "dance"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
        ),
        (
            mover,
            json!({"type": "raise", "to": -3}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "illegal_action",
        ),
        (
            mover,
            json!({"type": "raise", "to": 1e30}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
        ),
        (
            mover,
            json!({"type": "check", "extra": 1}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
        ),
        (
            mover,
            json!({"type": "split", "head": ["ZZ", "QH"], "tail": ["QH", "QH"]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_failed",
        ),
        (
            &outsider,
            json!({"type": "check"}),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
    ];
    for (p, action, status, code) in cases {
        let (s, body) = app.act(&id, p, action.clone()).await;
        assert_eq!(
            (s, body["code"].as_str().unwrap()),
            (status, code),
            "{action}: {body}"
        );
        assert!(!body["detail"].as_str().unwrap().is_empty());
    }
    assert_eq!(
        app.view(&id, &a).await["version"],
        v["version"],
        "nothing was applied"
    );
    for body in [
        json!({"version": "x", "action": {}}),
        json!({"action": {"type": "check"}}),
        json!({"version": 1, "action": 5}),
    ] {
        let (s, b) = app
            .post(&format!("/v1/matches/{id}/actions"), &mover.token, body)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
    }
}

#[tokio::test]
async fn create_checks_its_input() {
    let app = spawn_app().await;
    let p = app.player("ann", 1000).await;
    let cases = [
        (
            json!({"game": "mahjong", "seats": 4}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"game": "chexuan", "seats": 9}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (json!({"game": "chexuan"}), StatusCode::UNPROCESSABLE_ENTITY),
        (
            json!({"game": "chexuan", "seats": 3, "options": {"ante": -1}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"game": "chexuan", "seats": 3, "options": {"colour": "red"}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"game": "chexuan", "seats": 3, "options": {"turn_timeout_secs": 0}}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"game": "chexuan", "seats": 3, "buy_in": -5}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"game": "chexuan", "seats": 3, "buy_in": 5000}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"game": "chexuan", "seats": 3, "seed": "00"}),
            StatusCode::FORBIDDEN,
        ),
        (
            json!({"game": "chexuan", "seats": 3, "deck": ["QH"]}),
            StatusCode::FORBIDDEN,
        ),
        (
            json!({"game": "chexuan", "seats": 3, "wat": 1}),
            StatusCode::BAD_REQUEST,
        ),
    ];
    for (body, status) in cases {
        let (s, b) = app.post("/v1/matches", &p.token, body.clone()).await;
        assert_eq!(s, status, "{body}: {b}");
    }
    for deck in [json!(["QH"]), json!(vec!["QH"; 32]), json!(["XX"])] {
        let (s, b) = app
            .post(
                "/v1/matches",
                &app.admin_token,
                json!({"game": "chexuan", "seats": 2, "deck": deck}),
            )
            .await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{b}");
        assert!(b["detail"].as_str().unwrap().contains("deck"), "{b}");
    }
    let (s, v) = app
        .post(
            "/v1/matches",
            &p.token,
            json!({"game": "chexuan", "seats": 2, "buy_in": 500}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["status"], "waiting");
    assert_eq!(v["you"]["seat"], 0);
    let id = v["id"].as_str().unwrap();
    let poor = app.player("poor", 100).await;
    let (s, b) = app.join(id, &poor, None).await;
    assert_problem(
        s,
        &b,
        StatusCode::UNPROCESSABLE_ENTITY,
        "insufficient_coins",
    );
    let rich = app.player("rich", 1000).await;
    let (s, b) = app.join(id, &rich, Some(0)).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "seat_taken");
    let (s, _) = app.join(id, &rich, Some(1)).await;
    assert_eq!(s, StatusCode::OK);
    let late = app.player("late", 1000).await;
    let (s, b) = app.join(id, &late, None).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "match_full");
}

#[tokio::test]
async fn leaving_before_the_deal_frees_the_seat() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let (_, v) = app
        .post(
            "/v1/matches",
            &a.token,
            json!({"game": "chexuan", "seats": 3}),
        )
        .await;
    let id = v["id"].as_str().unwrap();
    let (s, v) = app
        .post(&format!("/v1/matches/{id}/leave"), &a.token, json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["status"], "aborted");
    assert_eq!(app.coins(&a).await, 1000);
    let (s, b) = app
        .post(&format!("/v1/matches/{id}/leave"), &a.token, json!({}))
        .await;
    assert_problem(s, &b, StatusCode::CONFLICT, "conflict");
}

/// No view or event of a seat ever shows another seat's hidden cards.
#[tokio::test]
async fn views_and_events_hide_other_seats_cards() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let watcher = app.player("wes", 0).await;
    let hands = vec![
        cards(&["QH", "QD", "2D", "4S"]),
        cards(&["8H", "8D", "2H", "5S"]),
    ];
    let id = table(&app, &[&a, &b], json!({}), Some(deck_json(&hands))).await;
    set_bobos(&app, &id, &[&a, &b], &[100, 100]).await;
    let hidden_of = |seat: usize| -> Vec<String> {
        hands[seat][..2]
            .iter()
            .map(|c| format!("\"{c}\""))
            .collect()
    };
    let check = |text: &str, who: &str, forbidden: &[String]| {
        for c in forbidden {
            assert!(!text.contains(c.as_str()), "{who} sees {c}: {text}");
        }
    };
    for (p, other) in [(&a, 1), (&b, 0)] {
        let v = app.view(&id, p).await.to_string();
        check(&v, &p.name, &hidden_of(other));
        let (_, ev) = app.get(&format!("/v1/matches/{id}/events"), &p.token).await;
        check(&ev.to_string(), &p.name, &hidden_of(other));
    }
    let mine = app.view(&id, &a).await.to_string();
    assert!(
        mine.contains("\"QH\""),
        "a seat sees its own hidden cards: {mine}"
    );
    let public = app.view(&id, &watcher).await;
    assert_eq!(public["you"], Value::Null);
    assert!(public["legal_actions"].as_array().unwrap().is_empty());
    let (_, ev) = app
        .get(&format!("/v1/matches/{id}/events"), &watcher.token)
        .await;
    for seat in 0..2 {
        check(&public.to_string(), "a spectator", &hidden_of(seat));
        check(&ev.to_string(), "a spectator", &hidden_of(seat));
    }
}

#[tokio::test]
async fn etag_and_long_poll() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let id = table(&app, &[&a, &b], json!({}), None).await;
    let res = app
        .client
        .get(format!("{}/v1/matches/{id}", app.address))
        .bearer_auth(&a.token)
        .send()
        .await
        .unwrap();
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    let v: Value = res.json().await.unwrap();
    assert_eq!(etag, format!("\"{}\"", v["version"]));
    let res = app
        .client
        .get(format!("{}/v1/matches/{id}", app.address))
        .bearer_auth(&a.token)
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);

    // A long-poll answers as soon as another player acts, well before its timeout.
    let url = format!(
        "{}/v1/matches/{id}?wait_version={}&timeout=20",
        app.address, v["version"]
    );
    let poll = tokio::spawn(app.client.get(url).bearer_auth(a.token.clone()).send());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = tokio::time::Instant::now();
    let (s, _) = app
        .act(&id, &b, json!({"type": "set_bobo", "amount": 100}))
        .await;
    assert_eq!(s, StatusCode::OK);
    let res = poll.await.unwrap().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    let nv: Value = res.json().await.unwrap();
    assert!(nv["version"].as_i64().unwrap() > v["version"].as_i64().unwrap());
    // Without a change it answers at the timeout with the same view.
    let t0 = tokio::time::Instant::now();
    let (s, same) = app
        .get(
            &format!("/v1/matches/{id}?wait_version={}&timeout=1", nv["version"]),
            &a.token,
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(same["version"], nv["version"]);
    assert!(t0.elapsed() >= Duration::from_millis(900));
    let (s, _) = app
        .get(
            &format!("/v1/matches/{id}?wait_version=1&timeout=31"),
            &a.token,
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
}

/// The replay reveals the seed behind the commitment, re-deals the same cards, and re-running
/// the logged actions through the engine reaches the same result.
#[tokio::test]
async fn replay_reveals_the_seed_and_reruns_to_the_same_result() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let c = app.player("cat", 1000).await;
    let players = [&a, &b, &c];
    let id = table(&app, &players, json!({}), None).await;
    let commitment = app.view(&id, &a).await["shuffle_commitment"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, early) = app.get(&format!("/v1/matches/{id}/replay"), &a.token).await;
    assert!(
        early["hands"].as_array().unwrap().is_empty(),
        "no seed before the hand ends"
    );
    set_bobos(&app, &id, &players, &[100, 150, 200]).await;
    all_in_to_showdown(&app, &id, &players).await;
    for p in players {
        // Each player splits the way the server would.
        let v = app.view(&id, p).await;
        let seat = v["you"]["seat"].as_u64().unwrap() as usize;
        let mine = &v["state"]["seats"][seat];
        let mut cs: Vec<Value> = mine["hidden"].as_array().unwrap().clone();
        cs.extend(mine["face_up"].as_array().unwrap().iter().cloned());
        let (s, body) = app
            .act(
                &id,
                p,
                json!({"type": "split", "head": [cs[0], cs[1]], "tail": [cs[2], cs[3]]}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{body}");
    }
    let (s, replay) = app
        .call(
            Method::GET,
            &format!("/v1/matches/{id}/replay"),
            Some(&a.token),
            None,
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let hand = &replay["hands"][0];
    assert_eq!(hand["shuffle_commitment"], commitment.as_str());
    let seed = games::shuffle::parse_seed(hand["seed"].as_str().unwrap()).unwrap();
    assert_eq!(games::shuffle::commitment(&seed), commitment);
    let game = games::game("chexuan").unwrap();
    let mut deck = game
        .deck(&json!({"ante": 10, "min_bobo": 100, "score_unit": 10}))
        .unwrap();
    games::shuffle::shuffle(&mut deck, &seed);
    let dealt: Vec<Card> = serde_json::from_value(hand["deck"].clone()).unwrap();
    assert_eq!(dealt, deck, "the replay's deck is the seed's shuffle");

    let mut state = game.load(&hand["start_state"].to_string()).unwrap();
    let mut outcome = state.start_hand(HandStart {
        deck: dealt,
        ctx: Ctx {
            now_ms: hand["start_ms"].as_i64().unwrap(),
        },
        wallets: serde_json::from_value(hand["wallets"].clone()).unwrap(),
        scores: serde_json::from_value(hand["scores"].clone()).unwrap(),
    });
    for act in hand["actions"].as_array().unwrap() {
        let ctx = Ctx {
            now_ms: act["now_ms"].as_i64().unwrap(),
        };
        let seat = act["seat"].as_u64().unwrap() as usize;
        let o = match act["kind"].as_str().unwrap() {
            "leave" => state.leave(seat, ctx, act["action"]["wallet"].as_i64().unwrap()),
            _ => state.apply(seat, &act["action"], ctx).unwrap(),
        };
        outcome.merge(o);
    }
    let result = outcome.hand_end.expect("the re-run hand ends");
    assert_eq!(json!(result.coins), hand["result"]["coins"]);
    assert_eq!(json!(result.points), hand["result"]["points"]);
    assert_eq!(result.detail, hand["result"]["detail"]);
}

/// Players who join at the same moment all get seats and the full table is dealt (a join that
/// waited for the row lock must see the seats taken while it waited).
#[tokio::test]
async fn simultaneous_joins_fill_the_table_and_deal() {
    let app = spawn_app().await;
    let host = app.player("host", 1000).await;
    let mut guests = Vec::new();
    for i in 0..15 {
        guests.push(app.player(&format!("guest{i}"), 1000).await);
    }
    for round in 0..5 {
        let (s, v) = app
            .post(
                "/v1/matches",
                &host.token,
                json!({"game": "chexuan", "seats": 4}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED);
        let id = v["id"].as_str().unwrap().to_string();
        let tasks: Vec<_> = guests[round * 3..round * 3 + 3]
            .iter()
            .map(|g| {
                let req = app
                    .client
                    .post(format!("{}/v1/matches/{id}/join", app.address))
                    .bearer_auth(&g.token)
                    .json(&json!({}));
                tokio::spawn(async move { req.send().await.unwrap().status() })
            })
            .collect();
        for t in tasks {
            assert_eq!(t.await.unwrap(), StatusCode::OK);
        }
        let v = app.view(&id, &host).await;
        assert_eq!(v["status"], "playing", "round {round}: {v}");
        assert_eq!(v["hand_no"], 1);
    }
}

/// Strings PostgreSQL cannot store (NUL characters) are a 400, not a 500, wherever they go.
#[tokio::test]
async fn nul_characters_are_refused_as_bad_input() {
    let app = spawn_app().await;
    let a = app.player("ann", 1000).await;
    let b = app.player("ben", 1000).await;
    let id = table(&app, &[&a, &b], json!({}), None).await;
    let v = app.view(&id, &a).await;
    let res = app
        .client
        .post(format!("{}/v1/matches/{id}/actions", app.address))
        .bearer_auth(&a.token)
        .header("Idempotency-Key", "nul-1")
        .json(&json!({"version": v["version"], "action": {"type": "check", "\u{0}": "x\u{0}"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let (s, body) = app
        .post(
            "/v1/admin/grants",
            &app.admin_token,
            json!({"user_id": a.id, "amount": 5, "note": "a\u{0}b"}),
        )
        .await;
    assert_problem(s, &body, StatusCode::BAD_REQUEST, "validation_failed");
    assert_eq!(app.coins(&a).await, 1000);
}
