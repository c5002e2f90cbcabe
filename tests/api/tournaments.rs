//! 比赛场 knockout tournaments through HTTP, played out by automatic play.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, free_port, fresh_database, spawn_app, spawn_server,
    wait_healthy,
};

async fn create(app: &TestApp, by: &Player, fee: i64, hands: u32, timeout: u32) -> String {
    create_of(app, by, "dazha", fee, hands, timeout).await
}

pub(crate) async fn create_of(
    app: &TestApp,
    by: &Player,
    game: &str,
    fee: i64,
    hands: u32,
    timeout: u32,
) -> String {
    let starts_at = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let (s, t) = app
        .post(
            "/v1/tournaments",
            &by.token,
            json!({"game": game, "entry_fee": fee, "starts_at": starts_at, "hands_per_round": hands,
                   "options": {"turn_timeout_secs": timeout}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{t}");
    assert_eq!(t["status"], "registering");
    t["id"].as_str().unwrap().to_string()
}

pub(crate) async fn start(app: &TestApp, org: &Player, id: &str) -> (StatusCode, Value) {
    app.post(
        &format!("/v1/tournaments/{id}/start"),
        &org.token,
        json!({}),
    )
    .await
}

pub(crate) async fn register_players(
    app: &TestApp,
    id: &str,
    n: usize,
    coins: i64,
    prefix: &str,
) -> Vec<Player> {
    let mut players = Vec::new();
    for i in 0..n {
        let p = app.player(&format!("{prefix}{i:03}"), coins).await;
        let (s, b) = app
            .post(
                &format!("/v1/tournaments/{id}/register"),
                &p.token,
                json!({}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        assert_eq!(b["reg_no"], i + 1);
        players.push(p);
    }
    players
}

pub(crate) async fn wait_finished(app: &TestApp, id: &str, secs: u64) -> Value {
    let until = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let (s, t) = app
            .get(&format!("/v1/tournaments/{id}"), &app.admin_token)
            .await;
        assert_eq!(s, StatusCode::OK, "{t}");
        if t["status"] == "finished" {
            return t;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "tournament did not finish: {t}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Checks the bracket of a finished tournament of `field` players at tables of `size`: only
/// advancers play on, and each table's advancer has its best score, a tie going to the earlier
/// registration. Returns how many tables ended in a tie for the best score.
pub(crate) fn check_bracket(t: &Value, field: usize, size: usize) -> usize {
    let reg_no = |user: &Value| {
        t["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["user_id"] == *user)
            .unwrap()["reg_no"]
            .as_i64()
            .unwrap()
    };
    let mut ties = 0;
    let rounds = t["bracket"]["rounds"].as_array().unwrap();
    let mut tables = field / size;
    let mut advanced_prev: Vec<Value> = Vec::new();
    for (r, round) in rounds.iter().enumerate() {
        let ts = round["tables"].as_array().unwrap();
        assert_eq!(ts.len(), tables, "round {}", r + 1);
        let mut advanced = Vec::new();
        for table in ts {
            assert!(table["match_id"].is_string());
            assert_eq!(table["status"], "finished");
            let seats = table["seats"].as_array().unwrap();
            assert_eq!(seats.len(), size);
            let adv = table["advanced"].clone();
            assert!(
                seats.iter().any(|s| s["user_id"] == adv),
                "the advancer sat at the table"
            );
            let best = seats
                .iter()
                .map(|s| s["score"].as_i64().unwrap())
                .max()
                .unwrap();
            let adv_score = seats.iter().find(|s| s["user_id"] == adv).unwrap()["score"]
                .as_i64()
                .unwrap();
            assert_eq!(adv_score, best, "the highest score advances: {table}");
            let level: Vec<&Value> = seats.iter().filter(|s| s["score"] == best).collect();
            if level.len() > 1 {
                ties += 1;
                let earliest = level.iter().map(|s| reg_no(&s["user_id"])).min().unwrap();
                assert_eq!(
                    reg_no(&adv),
                    earliest,
                    "a tie goes to the earlier registration: {table}"
                );
            }
            if r > 0 {
                for s in seats {
                    assert!(
                        advanced_prev.contains(&s["user_id"]),
                        "only advancers play round {}",
                        r + 1
                    );
                }
            }
            advanced.push(adv);
        }
        advanced_prev = advanced;
        tables /= size;
    }
    assert_eq!(tables, 0);
    assert_eq!(advanced_prev, vec![t["winner"].clone()]);
    ties
}

pub(crate) async fn hands_per_table(app: &TestApp, id: &str) -> Vec<i64> {
    sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM hands h WHERE h.match_id = tt.match_id AND h.ended_at IS NOT NULL)
           FROM tournament_tables tt WHERE tt.tournament_id = $1::uuid",
    )
    .bind(id)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn sixteen_players_of_seventeen_play_out_by_automatic_play() {
    let app = spawn_app().await;
    let org = app.organiser("organiser").await;
    let id = create(&app, &org, 50, 4, 1).await;
    let players = register_players(&app, &id, 17, 200, "s").await;
    let (s, b) = app
        .post(
            &format!("/v1/tournaments/{id}/register"),
            &players[0].token,
            json!({}),
        )
        .await;
    assert_problem(s, &b, StatusCode::CONFLICT, "already_registered");
    let (s, t) = start(&app, &org, &id).await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!(t["status"], "running");
    assert_eq!(t["prize_pool"], 800);
    assert_eq!(
        app.coins(&players[16]).await,
        200,
        "the 17th registrant is cut and pays nothing"
    );
    let (s, b) = app
        .post(
            "/v1/matches",
            &players[0].token,
            json!({"game": "chexuan", "seats": 2}),
        )
        .await;
    assert_eq!(
        (s, b["code"].as_str()),
        (StatusCode::CONFLICT, Some("conflict")),
        "a player in a tournament plays only its tables"
    );

    let t = wait_finished(&app, &id, 120).await;
    check_bracket(&t, 16, 4);
    assert!(
        hands_per_table(&app, &id).await.iter().all(|&h| h == 4),
        "every table played exactly its hands"
    );
    let winner: uuid::Uuid = t["winner"].as_str().unwrap().parse().unwrap();
    let mut total = 0;
    for p in &players[..16] {
        let c = app.coins(p).await;
        total += c;
        assert_eq!(
            c,
            if p.id == winner { 150 + 800 } else { 150 },
            "{}",
            p.name
        );
    }
    assert_eq!(total, 16 * 200, "prize = fees");
    app.assert_ledger_reconciles().await;

    let (s, st) = app
        .get(
            &format!("/v1/tournaments/{id}/standings"),
            &players[3].token,
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let rows = st["standings"].as_array().unwrap();
    assert_eq!(rows.len(), 17);
    assert_eq!(rows[0]["status"], "winner");
    assert_eq!(rows[0]["user_id"], t["winner"]);
    assert_eq!(rows[0]["furthest_round"], 2);
    assert_eq!(rows[16]["status"], "cut");
    let csv = app
        .client
        .get(format!("{}/v1/tournaments/{id}/standings", app.address))
        .bearer_auth(&players[3].token)
        .header("Accept", "text/csv")
        .send()
        .await
        .unwrap();
    assert!(
        csv.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let text = csv.text().await.unwrap();
    assert!(
        text.starts_with("rank,username,user_id,reg_no,furthest_round,score,status\n1,"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 18);
    // Eliminated players are free to play elsewhere again.
    let loser = players[..16].iter().find(|p| p.id != winner).unwrap();
    let (s, _) = app
        .post(
            "/v1/matches",
            &loser.token,
            json!({"game": "chexuan", "seats": 2}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
}

#[tokio::test]
async fn sixty_four_players_play_out_to_one_winner() {
    let app = spawn_app().await;
    let org = app.organiser("organiser").await;
    let id = create(&app, &org, 10, 4, 1).await;
    let players = register_players(&app, &id, 64, 10, "x").await;
    let (s, _) = start(&app, &org, &id).await;
    assert_eq!(s, StatusCode::OK);
    let t = wait_finished(&app, &id, 180).await;
    check_bracket(&t, 64, 4);
    assert_eq!(t["prize_pool"], 640);
    let winner = players.iter().find(|p| t["winner"] == json!(p.id)).unwrap();
    assert_eq!(app.coins(winner).await, 640);
    app.assert_ledger_reconciles().await;
    let (_, list) = app
        .get("/v1/tournaments?status=finished&game=dazha", &org.token)
        .await;
    assert_eq!(list["tournaments"].as_array().unwrap().len(), 1);
    let (s, _) = app.get("/v1/tournaments?status=bogus", &org.token).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn three_registrants_cancel_and_nothing_is_charged() {
    let app = spawn_app().await;
    let org = app.organiser("organiser").await;
    let id = create(&app, &org, 50, 4, 1).await;
    let players = register_players(&app, &id, 3, 100, "c").await;
    let (s, t) = start(&app, &org, &id).await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!(t["status"], "cancelled");
    for p in &players {
        assert_eq!(app.coins(p).await, 100);
    }
    // Cancelled tournaments hold nobody back.
    let (s, _) = app
        .post(
            "/v1/matches",
            &players[0].token,
            json!({"game": "chexuan", "seats": 2}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn organiser_routes_refuse_players_and_registration_rules_hold() {
    let app = spawn_app().await;
    let p = app.player("plain", 100).await;
    let starts_at = chrono::Utc::now().to_rfc3339();
    let body =
        json!({"game": "dazha", "entry_fee": 5, "starts_at": starts_at, "hands_per_round": 4});
    let (s, b) = app.post("/v1/tournaments", &p.token, body.clone()).await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");
    let org = app.organiser("organiser").await;
    for bad in [
        json!({"game": "chexuan", "entry_fee": 5, "starts_at": starts_at, "hands_per_round": 4}),
        json!({"game": "dazha", "entry_fee": -5, "starts_at": starts_at, "hands_per_round": 4}),
        json!({"game": "dazha", "entry_fee": 5, "starts_at": starts_at, "hands_per_round": 0}),
        json!({"game": "dazha", "entry_fee": 5, "starts_at": starts_at, "hands_per_round": 4, "options": {"room": "coin", "stake": 1}}),
    ] {
        let (s, b) = app.post("/v1/tournaments", &org.token, bad.clone()).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {b}");
    }
    let (s, b) = app
        .post(
            "/v1/tournaments",
            &org.token,
            json!({"game": "dazha", "entry_fee": 5, "starts_at": "soon", "hands_per_round": 4}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
    let id = create(&app, &org, 5, 4, 60).await;
    let other = create(&app, &org, 5, 4, 60).await;
    let (s, _) = app
        .post(&format!("/v1/tournaments/{id}/start"), &p.token, json!({}))
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = app
        .post(
            &format!("/v1/tournaments/{id}/register"),
            &p.token,
            json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let (s, b) = app
        .post(
            &format!("/v1/tournaments/{other}/register"),
            &p.token,
            json!({}),
        )
        .await;
    assert_problem(s, &b, StatusCode::CONFLICT, "conflict");
    let (s, _) = app
        .post("/v1/lobby/dazha/queue", &p.token, json!({"stake": 1}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    let poor = app.player("poor", 4).await;
    let (s, b) = app
        .post(
            &format!("/v1/tournaments/{id}/register"),
            &poor.token,
            json!({}),
        )
        .await;
    assert_problem(
        s,
        &b,
        StatusCode::UNPROCESSABLE_ENTITY,
        "insufficient_coins",
    );
    // Withdrawing frees the player.
    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/v1/tournaments/{id}/register"),
            Some(&p.token),
            None,
        )
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (s, _) = app
        .post(
            &format!("/v1/tournaments/{other}/register"),
            &p.token,
            json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
}

#[tokio::test]
async fn an_escaper_is_eliminated_and_replaced_by_automatic_play() {
    let app = spawn_app().await;
    let org = app.organiser("organiser").await;
    // Enough hands that the table cannot end by 摊牌 hands alone before anyone acts.
    let id = create(&app, &org, 10, 10, 60).await;
    let players = register_players(&app, &id, 4, 10, "e").await;
    let (s, t) = start(&app, &org, &id).await;
    assert_eq!(s, StatusCode::OK);
    let match_id = t["bracket"]["rounds"][0]["tables"][0]["match_id"]
        .as_str()
        .unwrap()
        .to_string();
    let quitter = &players[2];
    let (s, v) = app
        .post(
            &format!("/v1/matches/{match_id}/leave"),
            &quitter.token,
            json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let seat = v["seats"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["user_id"] == json!(quitter.id))
        .unwrap();
    assert_eq!(
        v["seats"][seat]["auto"], true,
        "the seat stays, played automatically"
    );
    assert_eq!(v["status"], "playing");
    let (s, b) = app.act(&match_id, quitter, json!({"type": "pass"})).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{b}");
    let (_, t) = app.get(&format!("/v1/tournaments/{id}"), &org.token).await;
    let me = t["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["user_id"] == json!(quitter.id))
        .unwrap();
    assert_eq!(me["escaped"], true);
    assert_eq!(me["eliminated_round"], 1);
    assert_eq!(t["prize_pool"], 40, "the escaper's fee stays in the pool");
    // The escaper may play elsewhere now.
    let (s, _) = app
        .post(
            "/v1/matches",
            &quitter.token,
            json!({"game": "chexuan", "seats": 2}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    // The others leave too; automatic play finishes the table and the pool goes to a stayer…
    // except that every one of them left, so the best of them wins.
    for p in [&players[0], &players[1], &players[3]] {
        let (s, _) = app
            .post(
                &format!("/v1/matches/{match_id}/leave"),
                &p.token,
                json!({}),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
    }
    let t = wait_finished(&app, &id, 60).await;
    assert!(t["winner"].is_string());
    app.assert_ledger_reconciles().await;
}

/// kill -9 of the server mid-tournament, then a restart: the tournament finishes with the same
/// ledger totals and no table plays more hands than it should.
#[tokio::test]
async fn a_killed_server_resumes_the_tournament_after_restart() {
    let database_url = fresh_database().await;
    let port = free_port();
    let address = format!("http://127.0.0.1:{port}");
    let mut server = spawn_server(&database_url, port);
    wait_healthy(&address).await;
    let pool = sqlx::PgPool::connect(&database_url).await.unwrap();
    let app = TestApp::connect(address.clone(), pool).await;
    let org = app.organiser("organiser").await;
    let id = create(&app, &org, 25, 4, 1).await;
    let players = register_players(&app, &id, 16, 100, "k").await;
    let (s, _) = start(&app, &org, &id).await;
    assert_eq!(s, StatusCode::OK);
    // Let the first round get going, then kill the process without warning.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    server.kill().expect("kill -9");
    server.wait().unwrap();
    let mid: i64 = sqlx::query_scalar("SELECT count(*) FROM match_actions")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(mid > 0, "play had started before the kill");
    let mut server = spawn_server(&database_url, port);
    wait_healthy(&address).await;
    let t = wait_finished(&app, &id, 120).await;
    check_bracket(&t, 16, 4);
    assert!(
        hands_per_table(&app, &id).await.iter().all(|&h| h == 4),
        "no table played twice"
    );
    let total = total_coins(&app, &players).await;
    assert_eq!(total, 16 * 100, "fees in = prize out");
    app.assert_ledger_reconciles().await;
    server.kill().ok();
    server.wait().ok();
}

async fn total_coins(app: &TestApp, players: &[Player]) -> i64 {
    let mut total = 0;
    for p in players {
        total += app.coins(p).await;
    }
    total
}

#[tokio::test]
async fn a_tournament_starts_by_itself_at_starts_at() {
    let app = spawn_app().await;
    let org = app.organiser("organiser").await;
    let starts_at = (chrono::Utc::now() + chrono::Duration::seconds(2)).to_rfc3339();
    let (s, t) = app
        .post(
            "/v1/tournaments",
            &org.token,
            json!({"game": "dazha", "entry_fee": 0, "starts_at": starts_at, "hands_per_round": 4,
                   "options": {"turn_timeout_secs": 1}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{t}");
    let id = t["id"].as_str().unwrap().to_string();
    register_players(&app, &id, 4, 0, "auto").await;
    let t = wait_finished(&app, &id, 60).await;
    assert!(t["started_at"].is_string());
    check_bracket(&t, 4, 4);
}

/// 四副牌升级 partners sit opposite for the whole match and always score alike: each table
/// advances its winning pair, who stay partners (rulings 6). Sixteen players: 8, then 4 advance
/// as pairs, and the final table's pair shares the pool. While the tables play, each shows its
/// tournament, round and prize pool.
#[tokio::test]
async fn a_shengji_knockout_of_sixteen_advances_pairs_and_the_final_pair_shares_the_pool() {
    let app = spawn_app().await;
    let org = app.organiser("organiser").await;
    let id = create_of(&app, &org, "shengji", 25, 4, 1).await;
    let players = register_players(&app, &id, 17, 25, "sj").await;
    let (_, t) = app.get(&format!("/v1/tournaments/{id}"), &org.token).await;
    assert_eq!(t["field_size"], 16, "pairs: the field is 4·2^k: {t}");
    assert_eq!(t["advance_per_table"], 2, "{t}");
    let (s, t) = start(&app, &org, &id).await;
    assert_eq!(s, StatusCode::OK, "{t}");
    let table = &t["bracket"]["rounds"][0]["tables"][2];
    let seated = &players
        .iter()
        .find(|p| table["seats"][0]["user_id"] == json!(p.id))
        .unwrap();
    let v = app.view(table["match_id"].as_str().unwrap(), seated).await;
    assert_eq!(v["tournament_id"], json!(id));
    assert_eq!(
        v["tournament"],
        json!({"id": id, "round": 1, "table_no": 2, "prize_pool": 400}),
        "the table shows the tournament, the round and the prize pool"
    );
    assert_eq!(v["game"], "shengji");

    let t = wait_finished(&app, &id, 300).await;
    let rounds = t["bracket"]["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 3, "16 → 8 → 4: {t}");
    let mut pairs_before: Vec<Vec<Value>> = Vec::new();
    for (r, (round, tables)) in rounds.iter().zip([4, 2, 1]).enumerate() {
        let ts = round["tables"].as_array().unwrap();
        assert_eq!(ts.len(), tables, "round {}", r + 1);
        let mut pairs = Vec::new();
        for table in ts {
            let seats = table["seats"].as_array().unwrap();
            let user = |s: usize| seats[s]["user_id"].clone();
            let score = |s: usize| seats[s]["score"].as_i64().unwrap();
            // Partners sit opposite and score alike.
            assert_eq!(score(0), score(2), "{table}");
            assert_eq!(score(1), score(3), "{table}");
            let adv = table["advancers"].as_array().unwrap().clone();
            assert_eq!(adv.len(), 2, "a pair advances: {table}");
            let winning = if adv == [user(0), user(2)] { 0 } else { 1 };
            assert_eq!(adv, [user(winning), user(winning + 2)], "{table}");
            assert!(score(winning) >= score(1 - winning), "{table}");
            if r > 0 {
                // Pairs stay partners: each pair of this table advanced together before.
                for s in 0..2 {
                    let pair = vec![user(s), user(s + 2)];
                    assert!(
                        pairs_before.contains(&pair),
                        "round {}: {pair:?} were not partners before",
                        r + 1
                    );
                }
            }
            pairs.push(adv);
        }
        pairs_before = pairs;
    }
    let winners = t["winners"].as_array().unwrap().clone();
    let mut final_pair = pairs_before[0].clone();
    final_pair.sort_by_key(|u| players.iter().position(|p| *u == json!(p.id)).unwrap());
    assert_eq!(
        winners, final_pair,
        "the final's pair, earlier registrant first: {t}"
    );
    for w in &winners {
        let p = players.iter().find(|p| *w == json!(p.id)).unwrap();
        assert_eq!(app.coins(p).await, 200, "the final pair shares the 400");
    }
    let late = players.last().unwrap();
    assert_eq!(
        app.coins(late).await,
        25,
        "the 17th registrant was left out and paid nothing"
    );
    // The final table is round 3 and says so.
    let fin = &rounds[2]["tables"][0];
    let p = players.iter().find(|p| winners[0] == json!(p.id)).unwrap();
    let v = app.view(fin["match_id"].as_str().unwrap(), p).await;
    assert_eq!(v["tournament"]["round"], 3);
    assert_eq!(v["tournament"]["prize_pool"], 400);
    app.assert_ledger_reconciles().await;
}

/// `hands_per_round` is at least the table size (a round is never one deal) and defaults to
/// 10, the seed's 局.
#[tokio::test]
async fn hands_per_round_is_at_least_the_table_size_and_defaults_to_ten() {
    let app = spawn_app().await;
    let org = app.organiser("organiser").await;
    let starts_at = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    for (game, least) in [("dazha", 4), ("chehuzi", 3)] {
        let (s, b) = app
            .post(
                "/v1/tournaments",
                &org.token,
                json!({"game": game, "entry_fee": 0, "starts_at": starts_at,
                       "hands_per_round": least - 1}),
            )
            .await;
        assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert!(b["detail"].as_str().unwrap().contains("table size"), "{b}");
        let (s, t) = app
            .post(
                "/v1/tournaments",
                &org.token,
                json!({"game": game, "entry_fee": 0, "starts_at": starts_at}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{t}");
        assert_eq!(t["hands_per_round"], 10, "{t}");
        assert_eq!(t["field_size"], 0, "nobody registered yet: {t}");
    }
}

#[tokio::test]
async fn the_organiser_edits_before_the_start_and_cancels_with_refunds() {
    let app = spawn_app().await;
    let org = app.organiser("organiser").await;
    let id = create(&app, &org, 50, 100, 60).await;
    let path = format!("/v1/tournaments/{id}");
    let players = register_players(&app, &id, 4, 80, "e").await;

    let edit = async |who: &Player, body: Value| {
        app.call(Method::PATCH, &path, Some(&who.token), Some(body))
            .await
    };
    let (s, b) = edit(&players[0], json!({"name": "mine now"})).await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");
    let (s, b) = edit(&org, json!({"hands_per_round": 0})).await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    let (s, t) = edit(
        &org,
        json!({"name": "Saturday knockout", "entry_fee": 60, "hands_per_round": 50}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!(
        (
            &t["name"],
            &t["entry_fee"],
            &t["hands_per_round"],
            &t["players"].as_array().unwrap().len()
        ),
        (&json!("Saturday knockout"), &json!(60), &json!(50), &4),
        "registrations stay"
    );

    let (s, t) = start(&app, &org, &id).await;
    assert_eq!(
        (s, &t["status"]),
        (StatusCode::OK, &json!("running")),
        "{t}"
    );
    for p in &players {
        assert_eq!(app.coins(p).await, 20);
    }
    let (s, b) = edit(&org, json!({"name": "too late"})).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "conflict");
    let table = t["bracket"]["rounds"][0]["tables"][0]["match_id"]
        .as_str()
        .unwrap()
        .to_string();

    let (s, b) = app
        .post(&format!("{path}/cancel"), &players[1].token, json!({}))
        .await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");
    let (s, t) = app
        .post(&format!("{path}/cancel"), &org.token, json!({}))
        .await;
    assert_eq!(
        (s, &t["status"]),
        (StatusCode::OK, &json!("cancelled")),
        "{t}"
    );
    for p in &players {
        assert_eq!(app.coins(p).await, 80, "the fee comes back");
    }
    let v = app.view(&table, &players[0]).await;
    assert_eq!(v["status"], "aborted", "the table stops");
    let (s, _) = app
        .post(
            &format!("/v1/matches/{table}/actions"),
            &players[0].token,
            json!({"version": v["version"], "action": {"type": "pass"}}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::UNPROCESSABLE_ENTITY,
        "an aborted table takes no moves"
    );
    let (s, b) = app
        .post(&format!("{path}/cancel"), &org.token, json!({}))
        .await;
    assert_problem(s, &b, StatusCode::CONFLICT, "conflict");
    let (s, _) = app
        .post(
            "/v1/matches",
            &players[2].token,
            json!({"game": "chexuan", "seats": 2}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::CREATED,
        "a cancelled tournament holds nobody"
    );
    let refunds: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM ledger_tx WHERE reason = 'tournament_refund' AND tournament_id = $1::uuid",
    )
    .bind(&id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(refunds, 1);
    app.assert_ledger_reconciles().await;
}
