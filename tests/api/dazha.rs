//! 上饶打炸 and its 金币场 through HTTP.

use std::collections::BTreeMap;

use games::cards::{Card, Suit};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, spawn_app};

async fn queue(app: &TestApp, p: &Player, stake: i64) -> (StatusCode, Value) {
    app.post("/v1/lobby/dazha/queue", &p.token, json!({"stake": stake}))
        .await
}

#[tokio::test]
async fn four_queued_players_play_a_whole_ju_by_automatic_play() {
    let app = spawn_app().await;
    let mut players = Vec::new();
    for i in 0..4 {
        players.push(app.player(&format!("pl{i}"), 100_000).await);
    }
    let other = app.player("other_stake", 100_000).await;
    let (s, b) = queue(&app, &other, 2).await;
    assert_eq!(
        (s, b["status"].as_str()),
        (StatusCode::CREATED, Some("queued"))
    );
    for p in &players[..3] {
        let (s, b) = queue(&app, p, 1).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(b["status"], "queued");
    }
    let (s, b) = queue(&app, &players[0], 1).await;
    assert_eq!(
        (s, b["code"].as_str()),
        (StatusCode::CONFLICT, Some("conflict")),
        "queued twice"
    );
    let (s, b) = queue(&app, &players[3], 1).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    assert_eq!(b["status"], "matched");
    let id = b["match_id"].as_str().unwrap().to_string();
    for p in &players {
        let (s, b) = app.get("/v1/lobby/dazha/queue", &p.token).await;
        assert_eq!(
            (s, b["match_id"].as_str()),
            (StatusCode::OK, Some(id.as_str()))
        );
    }
    let (_, b) = app.get("/v1/lobby/dazha/queue", &other.token).await;
    assert_eq!(b["status"], "queued", "a different stake is not matched");
    let (s, _) = app
        .call(
            Method::DELETE,
            "/v1/lobby/dazha/queue",
            Some(&other.token),
            None,
        )
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (s, _) = app.get("/v1/lobby/dazha/queue", &other.token).await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    let v = app.view(&id, &players[0]).await;
    assert_eq!(v["status"], "playing");
    assert_eq!(v["options"]["room"], "coin");
    assert_eq!(v["options"]["stake"], 1);
    let mut seated: Vec<String> = v["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["username"].as_str().unwrap().to_string())
        .collect();
    seated.sort();
    assert_eq!(seated, ["pl0", "pl1", "pl2", "pl3"]);

    // Nobody acts: timeouts, then 托管, play the 局 (10 hands) out; then the table waits.
    let v = app
        .wait_for(&id, &players[0], 120, |v| v["last_result"]["hand_no"] == 10)
        .await;
    assert!(
        v["seats"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["auto"] == true),
        "{v}"
    );
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(
        app.view(&id, &players[0]).await["hand_no"],
        10,
        "no new 局 while everyone is away"
    );

    // The room fee was paid once (局 1), every hand's coins are in the ledger, all reconciles.
    let fees: Vec<(uuid::Uuid, i64)> = sqlx::query_as(
        "SELECT a.user_id, e.amount FROM ledger_entries e JOIN ledger_tx t ON t.id = e.tx_id
           JOIN accounts a ON a.id = e.account_id
          WHERE t.reason = 'room_fee' AND t.match_id = $1::uuid AND a.kind = 'user'",
    )
    .bind(&id)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(fees.len(), 4);
    assert!(fees.iter().all(|f| f.1 == -1));
    let mut room_coins: BTreeMap<uuid::Uuid, i64> = BTreeMap::new();
    let rows: Vec<(uuid::Uuid, i64)> = sqlx::query_as(
        "SELECT a.user_id, e.amount FROM ledger_entries e JOIN ledger_tx t ON t.id = e.tx_id
           JOIN accounts a ON a.id = e.account_id WHERE t.reason = 'coin_room' AND t.match_id = $1::uuid",
    )
    .bind(&id)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    for (u, a) in rows {
        *room_coins.entry(u).or_default() += a;
    }
    let points: Vec<(uuid::Uuid, i64)> = sqlx::query_as(
        "SELECT user_id, sum(delta)::bigint FROM score_entries WHERE match_id = $1::uuid GROUP BY user_id",
    )
    .bind(&id)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        points.iter().map(|p| p.1).sum::<i64>(),
        0,
        "points are zero-sum"
    );
    for p in &players {
        let coins = app.coins(p).await;
        let moved = room_coins.get(&p.id).copied().unwrap_or(0);
        assert_eq!(coins, 100_000 - 1 + moved, "{}", p.name);
        // Nobody was short of coins, so each hand moved exactly points × stake.
        let pts = points.iter().find(|x| x.0 == p.id).map_or(0, |x| x.1);
        assert_eq!(moved, pts);
    }
    let hands: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM hands WHERE match_id = $1::uuid AND ended_at IS NOT NULL",
    )
    .bind(&id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(hands, 10);
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn queueing_needs_min_coins_and_a_coin_game() {
    let app = spawn_app().await;
    let poor = app.player("poor", 49).await;
    let (s, b) = queue(&app, &poor, 1).await;
    assert_problem(
        s,
        &b,
        StatusCode::UNPROCESSABLE_ENTITY,
        "insufficient_coins",
    );
    let rich = app.player("rich", 1000).await;
    for stake in [0, -1] {
        let (s, _) = queue(&app, &rich, stake).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    }
    let (s, _) = app
        .post("/v1/lobby/chexuan/queue", &rich.token, json!({"stake": 1}))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = app
        .post(
            "/v1/matches",
            &rich.token,
            json!({"game": "chexuan", "seats": 2, "options": {"room": "coin", "stake": 1}}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
}

fn c(rank: u8, suit: Suit) -> Card {
    Card::Suited { rank, suit }
}

/// Seat 3 holds a joker and only pairs (有王没炸弹); seat 0 holds three jokers beside natural
/// bombs; seats 1 and 2 hold the rest. Card i goes to seat i mod 4.
fn tanpai_deck() -> Vec<Card> {
    let mut pool: Vec<Card> = Vec::new();
    for _ in 0..2 {
        for suit in Suit::ALL {
            for rank in 2..=14 {
                pool.push(c(rank, suit));
            }
        }
    }
    let take = |rank: u8, n: usize, pool: &mut Vec<Card>| -> Vec<Card> {
        let mut out = Vec::new();
        while out.len() < n {
            let i = pool.iter().position(|x| x.rank() == Some(rank)).unwrap();
            out.push(pool.remove(i));
        }
        out
    };
    let mut seat3 = vec![Card::SmallJoker];
    for rank in 2..=14 {
        seat3.extend(take(rank, 2, &mut pool));
    }
    let mut seat0 = vec![Card::BigJoker, Card::BigJoker, Card::SmallJoker];
    for rank in 3..=8 {
        seat0.extend(take(rank, 4, &mut pool));
    }
    let seat1: Vec<Card> = pool.drain(..27).collect();
    let seat2: Vec<Card> = std::mem::take(&mut pool);
    let hands = [seat0, seat1, seat2, seat3];
    let mut deck = Vec::new();
    for i in 0..27 {
        for h in &hands {
            deck.push(h[i]);
        }
    }
    deck
}

#[tokio::test]
async fn a_joker_without_a_bomb_is_shown_and_fined_and_a_short_player_dissolves_the_room() {
    let app = spawn_app().await;
    let mut players = Vec::new();
    for (i, coins) in [1000, 1000, 1000, 50].into_iter().enumerate() {
        players.push(app.player(&format!("qq{i}"), coins).await);
    }
    let (s, v) = app
        .post(
            "/v1/matches",
            &app.admin_token,
            json!({"game": "dazha", "join": false, "deck": tanpai_deck(),
                   "options": {"room": "coin", "stake": 10, "turn_timeout_secs": 60}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    app.join_seats(&id, &players.iter().collect::<Vec<_>>())
        .await;
    let v = app.view(&id, &players[0]).await;
    // Hand 1 was shown, not played: seat 3 pays 1 × base to each other player for its joker.
    let r = &v["last_result"];
    assert_eq!(r["hand_no"], 1, "{v}");
    assert_eq!(r["detail"]["kind"], "tanpai");
    assert_eq!(r["points"], json!([1, 1, 1, -3]));
    assert_eq!(r["room_coins"], json!([10, 10, 10, -30]));
    // The shown hand is public.
    let (_, ev) = app
        .get(&format!("/v1/matches/{id}/events"), &players[1].token)
        .await;
    let shown = ev["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "tanpai")
        .expect("a tanpai event");
    assert_eq!(shown["data"]["shown"][0]["seat"], 3);
    // Seat 3 paid the room fee (1) and the fine (30): 19 < min_coins 50 → the room dissolved.
    assert_eq!(app.coins(&players[3]).await, 19);
    assert_eq!(app.coins(&players[0]).await, 1009);
    assert_eq!(v["status"], "finished");
    let kinds: Vec<&str> = ev["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"room_dissolved"), "{kinds:?}");
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn illegal_plays_are_refused_with_the_rule() {
    let app = spawn_app().await;
    let (id, players) = app
        .table_of_four("rr", 0, "dazha", json!({"turn_timeout_secs": 60}))
        .await;
    // Deal until a hand is played (摊牌 hands end at once).
    let v = app.view(&id, &players[0]).await;
    assert_eq!(v["status"], "playing", "{v}");
    let seat = v["to_act"][0].as_u64().unwrap() as usize;
    let p = &players[seat];
    let mine = app.view(&id, p).await;
    let hand: Vec<String> = serde_json::from_value(mine["state"]["hand"].clone()).unwrap();
    assert_eq!(hand.len(), 27);
    let (s, b) = app.act(&id, p, json!({"type": "pass"})).await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    let missing = ["3S", "3H", "3D", "3C", "4S"]
        .iter()
        .find(|c| hand.iter().filter(|h| h == c).count() < 2)
        .unwrap();
    let (s, b) = app
        .act(&id, p, json!({"type": "play", "cards": [missing, missing]}))
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    let (s, b) = app
        .act(&id, p, json!({"type": "play", "cards": ["ZZ"]}))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{b}");
    let other = &players[(seat + 1) % 4];
    let (s, b) = app.act(&id, other, json!({"type": "pass"})).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
    // A natural single is a legal lead unless it leaves the jokers without a bomb to be
    // played with (docs/rules/dazha.md): the lowest one that does not is accepted.
    let mut led = false;
    for card in hand.iter().rev().filter(|c| *c != "BJ" && *c != "RJ") {
        let (s, b) = app
            .act(&id, p, json!({"type": "play", "cards": [card]}))
            .await;
        if s == StatusCode::OK {
            assert_eq!(b["state"]["round"]["top"]["combo"]["type"], "single");
            led = true;
            break;
        }
        assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
        assert!(b["detail"].as_str().unwrap().contains("joker"), "{b}");
    }
    assert!(led, "some single leads: {hand:?}");
    // Card counts of others stay hidden above 10 (报牌).
    let v = app.view(&id, other).await;
    let me = v["you"]["seat"].clone();
    assert!(
        v["state"]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["seat"] != me)
            .all(|s| s["cards_left"].is_null()),
        "{v}"
    );
}
