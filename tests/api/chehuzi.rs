//! 永州扯胡子 through the HTTP server: absent players play hands out by deadlines and 托管, three
//! players drive a fixed deck to a known win through a discard and a draw claim window, and a
//! tournament seats three to a table.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, spawn_app};
use crate::tournaments::{
    check_bracket, create_of, hands_per_table, register_players, start, wait_finished,
};

#[tokio::test]
async fn absent_players_finish_a_hand_and_the_points_are_zero_sum() {
    let app = spawn_app().await;
    let v = app
        .absent_players_play_out_at(3, "chehuzi", json!({}), 82)
        .await;
    assert_eq!(v["seats"].as_array().unwrap().len(), 3, "{v}");
    let end = &v["last_result"]["detail"]["end"];
    assert!(end == "win" || end == "huangzhuang", "{v}");
}

#[tokio::test]
async fn absent_players_finish_a_hand_with_four_kings() {
    spawn_app()
        .await
        .absent_players_play_out_at(3, "chehuzi", json!({"kings": 4}), 84)
        .await;
}

/// Every face of the deck, as the API spells them.
fn faces() -> Vec<String> {
    let mut all: Vec<String> = (1..=10)
        .flat_map(|n| [format!("s{n}"), format!("b{n}")])
        .collect();
    all.push("W".into());
    all
}

/// Seat 0 (the dealer, 21 cards) discards s7, which seat 1 may 吃 (s7 s8 s9) and seat 2 may 碰
/// (a pair of s7); both pass, and seat 1 draws s6, completing three big 坎 (18 胡息), two small
/// 句 and two 绞 with no red card: 黑胡 ×4 and 自摸 ×2. The next stock card is b6, so the 醒
/// card is b7, which the win does not hold.
const SEAT0: [&str; 21] = [
    "s7", "b5", "b5", "b5", "s1", "s1", "s2", "s2", "s3", "s8", "s8", "s10", "s10", "b2", "b2",
    "b8", "b9", "b10", "s4", "s9", "b7",
];
const SEAT1: [&str; 20] = [
    "b1", "b1", "b1", "b3", "b3", "b3", "b4", "b4", "b4", "s3", "s4", "s4", "s5", "s5", "s9", "s9",
    "b9", "s8", "b8", "b8",
];
const SEAT2: [&str; 20] = [
    "s7", "s7", "b7", "b7", "b7", "s1", "s1", "s2", "s2", "s10", "s10", "b10", "b10", "b2", "b2",
    "s3", "s9", "b9", "b5", "b6",
];
const STOCK: [&str; 21] = [
    "s6", "b6", "s3", "s4", "s5", "s5", "s6", "s6", "s6", "s7", "s8", "b1", "b3", "b4", "b6", "b6",
    "b8", "b9", "b10", "W", "W",
];

/// The deck dealt as docs/rules/chehuzi.md says: cards 0..59 round the table from the dealer
/// (seat 0), card 60 to the dealer, the rest the stock.
fn fixed_deck() -> Vec<&'static str> {
    let mut deck = Vec::new();
    for k in 0..20 {
        deck.extend([SEAT0[k], SEAT1[k], SEAT2[k]]);
    }
    deck.push(SEAT0[20]);
    deck.extend(STOCK);
    deck
}

fn sorted(cards: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
    v.sort();
    v
}

fn hand_of(v: &Value) -> Vec<String> {
    let mut h: Vec<String> = v["state"]["hand"]
        .as_array()
        .unwrap_or_else(|| panic!("a hand in {v}"))
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    h.sort();
    h
}

fn types(legal: &Value) -> Vec<&str> {
    legal
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["type"].as_str().unwrap())
        .collect()
}

/// Neither `seat`'s view nor its events name a face it may not see: one outside its own hand
/// and the cards shown so far (`public`). Every other hand and the stock hold such faces.
async fn assert_sees_only_its_own(
    app: &TestApp,
    id: &str,
    p: &Player,
    own: &[&str],
    public: &[&str],
) {
    let view = app.view(id, p).await.to_string();
    let (s, events) = app
        .get(&format!("/v1/matches/{id}/events?after=0"), &p.token)
        .await;
    assert_eq!(s, StatusCode::OK, "{events}");
    let events = events.to_string();
    for face in faces() {
        if own.contains(&face.as_str()) || public.contains(&face.as_str()) {
            continue;
        }
        let quoted = format!("\"{face}\"");
        assert!(
            !view.contains(&quoted),
            "{} sees {face} in its view: {view}",
            p.name
        );
        assert!(
            !events.contains(&quoted),
            "{} sees {face} in its events: {events}",
            p.name
        );
    }
}

#[tokio::test]
async fn three_players_drive_a_fixed_deck_to_a_self_drawn_win() {
    let app = spawn_app().await;
    let options = json!({"turn_timeout_secs": 600, "claim_timeout_secs": 600, "hands": 1});
    let deck = fixed_deck();
    assert_eq!(deck.len(), 82);
    let (id, players) = app
        .admin_table(3, "chz", "chehuzi", options.clone(), &deck)
        .await;
    // Only an admin fixes the deck.
    let (s, b) = app
        .post(
            "/v1/matches",
            &players[0].token,
            json!({"game": "chehuzi", "options": options, "deck": deck}),
        )
        .await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");

    // The deal: 21 cards to the dealer, 20 to the others, each seat sees its own hand only.
    let views = [
        app.view(&id, &players[0]).await,
        app.view(&id, &players[1]).await,
        app.view(&id, &players[2]).await,
    ];
    assert_eq!(views[0]["status"], "playing", "{}", views[0]);
    assert_eq!(views[0]["phase"], "discard");
    assert_eq!(views[0]["to_act"], json!([0]));
    assert_eq!(views[0]["state"]["dealer"], 0);
    assert_eq!(views[0]["state"]["stock"], 21);
    assert_eq!(hand_of(&views[0]), sorted(&SEAT0));
    assert_eq!(hand_of(&views[1]), sorted(&SEAT1));
    assert_eq!(hand_of(&views[2]), sorted(&SEAT2));
    let counts: Vec<i64> = views[1]["state"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["cards"].as_i64().unwrap())
        .collect();
    assert_eq!(counts, vec![21, 20, 20], "others' hands by size only");
    let own: [&[&str]; 3] = [&SEAT0, &SEAT1, &SEAT2];
    for (seat, p) in players.iter().enumerate() {
        assert_sees_only_its_own(&app, &id, p, own[seat], &[]).await;
    }

    // The dealer discards; a 坎 stays whole, and no one else may discard.
    let legal = &views[0]["legal_actions"];
    assert_eq!(types(legal), vec!["discard"], "{legal}");
    let allowed = legal[0]["cards"].as_array().unwrap();
    assert!(allowed.contains(&json!("s7")), "{legal}");
    assert!(
        !allowed.contains(&json!("b5")),
        "the b5 坎 stays whole: {legal}"
    );
    assert_eq!(views[1]["legal_actions"], json!([]));
    let (s, b) = app
        .act(&id, &players[0], json!({"type": "discard", "card": "b5"}))
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains("坎"), "{b}");
    let (s, b) = app
        .act(&id, &players[1], json!({"type": "discard", "card": "s3"}))
        .await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
    let (s, v) = app
        .act(&id, &players[0], json!({"type": "discard", "card": "s7"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");

    // The discard's claim window waits for both claimants at once; who is asked is each
    // claimant's own: the discarder sees that a window is open on s7, and until when.
    assert_eq!(v["phase"], "claim", "{v}");
    assert_eq!(v["to_act"], json!([]), "{v}");
    assert!(v["deadline"].is_string(), "{v}");
    assert_eq!(
        v["state"]["claim"],
        json!({"card": "s7", "from": 0, "source": "discard"})
    );
    assert_eq!(v["legal_actions"], json!([]), "the discarder has no claim");
    let (_, mine) = app.get("/v1/me/matches", &players[0].token).await;
    assert_eq!(mine["matches"][0]["to_act"], json!([]), "{mine}");
    let (_, mine) = app.get("/v1/me/matches", &players[2].token).await;
    assert_eq!(mine["matches"][0]["to_act"], json!([2]), "{mine}");
    assert_eq!(mine["matches"][0]["your_turn"], true, "{mine}");
    let (_, public) = app
        .get(&format!("/v1/matches/{id}"), &app.admin_token)
        .await;
    assert_eq!(
        public["to_act"],
        json!([]),
        "a spectator is not told: {public}"
    );
    let v1 = app.view(&id, &players[1]).await;
    assert_eq!(v1["to_act"], json!([1]), "{v1}");
    assert_eq!(
        v1["legal_actions"],
        json!([{"type": "chi", "options": [[["s7", "s8", "s9"]]]}, {"type": "pass"}]),
        "only the next seat may 吃: {v1}"
    );
    let v2 = app.view(&id, &players[2]).await;
    assert_eq!(
        v2["legal_actions"],
        json!([{"type": "peng"}, {"type": "pass"}]),
        "{v2}"
    );

    // Claims the seat does not have are refused with the rule.
    let (s, b) = app.act(&id, &players[1], json!({"type": "peng"})).await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains("碰"), "{b}");
    let (s, b) = app
        .act(
            &id,
            &players[1],
            json!({"type": "chi", "melds": [["s7", "s9", "b9"]]}),
        )
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains("吃"), "{b}");
    let (s, b) = app.act(&id, &players[2], json!({"type": "hu"})).await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains("win"), "{b}");
    let (s, b) = app.act(&id, &players[0], json!({"type": "pass"})).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");

    // Each claimant answers once; the window closes when both have.
    let (s, v) = app.act(&id, &players[1], json!({"type": "pass"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["to_act"], json!([]), "{v}");
    assert_eq!(v["legal_actions"], json!([]), "seat 1 has answered: {v}");
    assert_eq!(app.view(&id, &players[2]).await["to_act"], json!([2]));
    // A pass is the passer's own: the others do not learn it had a claim.
    let passes = |events: Vec<Value>| events.iter().filter(|e| e["type"] == "pass").count();
    assert_eq!(passes(app.all_events(&id, &players[1]).await), 1);
    assert_eq!(passes(app.all_events(&id, &players[0]).await), 0);
    let (s, b) = app.act(&id, &players[1], json!({"type": "pass"})).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
    let (s, v) = app.act(&id, &players[2], json!({"type": "pass"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");

    // Nobody took s7: seat 1 draws s6, shown to everyone, and may win with it.
    assert_eq!(v["phase"], "claim", "{v}");
    assert_eq!(v["to_act"], json!([]), "{v}");
    assert_eq!(
        v["state"]["claim"],
        json!({"card": "s6", "from": 1, "source": "draw"})
    );
    assert_eq!(v["state"]["seats"][0]["passed"], json!(["s7"]));
    assert_eq!(v["state"]["stock"], 20);
    let v1 = app.view(&id, &players[1]).await;
    assert_eq!(v1["to_act"], json!([1]), "{v1}");
    assert_eq!(
        v1["legal_actions"],
        json!([{"type": "hu"}, {"type": "chi", "options": [[["s4", "s5", "s6"]]]}, {"type": "pass"}]),
        "{v1}"
    );
    for (seat, p) in players.iter().enumerate() {
        assert_sees_only_its_own(&app, &id, p, own[seat], &["s7", "s6"]).await;
    }

    let (s, v) = app.act(&id, &players[1], json!({"type": "hu"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["status"], "finished", "one hand was asked for: {v}");
    let r = &v["last_result"];
    assert_eq!(r["points"], json!([-16, 32, -16]), "{r}");
    let d = &r["detail"];
    assert_eq!(d["end"], "win");
    assert_eq!(d["winner"], 1);
    let win = &d["win"];
    assert_eq!(win["card"], "s6");
    assert_eq!(win["self_drawn"], true);
    assert_eq!(win["melds"].as_array().unwrap().len(), 7, "{win}");
    assert_eq!(win["huxi"], 18, "three big 坎: {win}");
    assert_eq!(win["reds"], 0);
    assert_eq!(win["tun"], 2, "1 + (18 − 15) / 3: {win}");
    assert_eq!(win["xing_card"], "b7", "the turned b6 makes b7 the 醒 card");
    assert_eq!(win["xing"], 0);
    assert_eq!(win["mingtang"], json!(["hei_hu", "zi_mo"]));
    assert_eq!(win["fan"], 8);
    assert_eq!(win["score"], 16, "(2 囤 + 0 醒) × 8 番");

    let (_, me) = app.get("/v1/me", &players[1].token).await;
    assert_eq!(me["scores"]["chehuzi"], 32, "{me}");
    let (_, me) = app.get("/v1/me", &players[2].token).await;
    assert_eq!(me["scores"]["chehuzi"], -16, "{me}");
    let (s, replay) = app
        .get(&format!("/v1/matches/{id}/replay"), &players[0].token)
        .await;
    assert_eq!(s, StatusCode::OK, "{replay}");
    assert_eq!(replay["hands"][0]["deck_fixed"], true);
    assert_eq!(replay["hands"][0]["deck"], json!(deck));
    app.assert_ledger_reconciles().await;
}

/// Nine players: three tables of three, then a final of three; automatic play finishes it and
/// the winner takes the pool.
#[tokio::test]
async fn a_tournament_of_nine_plays_three_tables_then_a_final() {
    let app = spawn_app().await;
    let org = app.organiser("organiser").await;
    let id = create_of(&app, &org, "chehuzi", 10, 3, 1).await;
    let players = register_players(&app, &id, 10, 10, "ch").await;
    let (s, t) = start(&app, &org, &id).await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!(t["status"], "running");
    assert_eq!(t["prize_pool"], 90, "a field of 9, the 10th cut");
    assert_eq!(
        t["bracket"]["rounds"][0]["tables"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        app.coins(&players[9]).await,
        10,
        "the cut player pays nothing"
    );
    let table = &t["bracket"]["rounds"][0]["tables"][1];
    let seated = players
        .iter()
        .find(|p| table["seats"][0]["user_id"] == json!(p.id))
        .unwrap();
    let v = app.view(table["match_id"].as_str().unwrap(), seated).await;
    assert_eq!(v["game"], "chehuzi");
    assert_eq!(v["seats"].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(v["tournament"]["prize_pool"], 90);

    let t = wait_finished(&app, &id, 240).await;
    check_bracket(&t, 9, 3);
    assert!(
        hands_per_table(&app, &id).await.iter().all(|&h| h == 3),
        "every table played exactly its hand"
    );
    let winner = players.iter().find(|p| t["winner"] == json!(p.id)).unwrap();
    let mut total = 0;
    for p in &players[..9] {
        let c = app.coins(p).await;
        total += c;
        assert_eq!(c, if p.id == winner.id { 90 } else { 0 }, "{}", p.name);
    }
    assert_eq!(total, 90, "fees in = prize out");
    app.assert_ledger_reconciles().await;
}
