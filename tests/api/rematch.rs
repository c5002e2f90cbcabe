//! `POST /v1/matches/{id}/rematch`: the same table again for the same players, who accept by
//! joining; made once however many ask.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, spawn_app};
use crate::players::Sse;

/// Alice (seat 0), bob (seat 1) and two bots play one 打炸 hand out: neither player moves, so
/// deadlines and 托管 play for them. Returns the finished match's id.
async fn finished_table(app: &TestApp, alice: &Player, bob: &Player) -> String {
    let (s, v) = app
        .post(
            "/v1/matches",
            &alice.token,
            json!({"game": "dazha", "bots": 2, "options": {"turn_timeout_secs": 1, "hands": 1}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let (s, v) = app.join(&id, bob, Some(1)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    app.wait_for(&id, alice, 120, |v| v["status"] == "finished")
        .await;
    id
}

fn rematch_path(id: &str) -> String {
    format!("/v1/matches/{id}/rematch")
}

#[tokio::test]
async fn a_rematch_offers_the_same_seats_and_deals_once_accepted() {
    let app = spawn_app().await;
    let alice = app.player("alice", 0).await;
    let bob = app.player("bob", 0).await;
    let carl = app.player("carl", 0).await;
    let old = finished_table(&app, &alice, &bob).await;
    let before = app.view(&old, &alice).await;
    let mut bobs_stream = Sse::open(
        &app,
        &format!("/v1/me/stream?access_token={}", bob.token),
        None,
        None,
    )
    .await;
    bobs_stream.until(5, |f| f.event == "hello").await;

    // Only the match's players may ask.
    let (s, b) = app.post(&rematch_path(&old), &carl.token, json!({})).await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");

    let (s, v) = app.post(&rematch_path(&old), &alice.token, json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let new = v["id"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    assert_eq!(
        (&v["status"], &v["you"]),
        (&json!("waiting"), &json!({"seat": 0}))
    );
    assert_eq!(v["options"], before["options"], "the same options");
    assert_eq!(
        v["seats"][1]["user_id"],
        Value::Null,
        "bob's seat waits for him"
    );
    for seat in [2, 3] {
        assert_eq!(v["seats"][seat]["bot"], true, "a new bot in seat {seat}");
        assert_ne!(
            v["seats"][seat]["user_id"],
            before["seats"][seat]["user_id"]
        );
    }

    // Bob is asked on his stream, and his list shows the rematch beside the old match.
    let asked = bobs_stream.until(5, |f| f.event == "rematch").await;
    assert_eq!(
        asked.data,
        json!({"match_id": new, "from": old, "game": "dazha", "seat": 1, "by": "alice",
               "at": asked.data["at"]})
    );
    let (s, mine) = app.get("/v1/me/matches?status=finished", &bob.token).await;
    assert_eq!(s, StatusCode::OK, "{mine}");
    let entry = mine["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == json!(old))
        .expect("the old match is listed");
    assert_eq!(entry["rematch"], json!(new));

    // Asking again, whoever asks, answers the same match.
    for p in [&alice, &bob] {
        let (s, again) = app.post(&rematch_path(&old), &p.token, json!({})).await;
        assert_eq!(s, StatusCode::OK, "{again}");
        assert_eq!(again["id"], json!(new));
    }

    // Bob's seat is his: a stranger cannot take it, asked for or not.
    let (s, b) = app.join(&new, &carl, Some(1)).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "seat_reserved");
    let (s, b) = app.join(&new, &carl, None).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "seat_reserved");

    // Bob accepts: he sits in his old seat, the table is full, and the hand is dealt.
    let (s, v) = app.join(&new, &bob, None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["you"], json!({"seat": 1}));
    assert_ne!(v["status"], "waiting", "{v}");
    assert!(v["hand_no"].as_u64() >= Some(1), "{v}");
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn a_rematch_is_refused_where_none_is_offered_and_made_once_under_a_race() {
    let app = spawn_app().await;
    let alice = app.player("alice", 1000).await;
    let bob = app.player("bob", 1000).await;

    let (s, b) = app
        .post(
            &rematch_path(&uuid::Uuid::new_v4().to_string()),
            &alice.token,
            json!({}),
        )
        .await;
    assert_problem(s, &b, StatusCode::NOT_FOUND, "not_found");
    // A match not finished, and a coin room.
    for options in [
        json!({"turn_timeout_secs": 600}),
        json!({"room": "coin", "stake": 1}),
    ] {
        let (s, v) = app
            .post(
                "/v1/matches",
                &alice.token,
                json!({"game": "dazha", "options": options}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let id = v["id"].as_str().unwrap();
        let (s, b) = app.post(&rematch_path(id), &alice.token, json!({})).await;
        assert_problem(s, &b, StatusCode::CONFLICT, "rematch_not_offered");
        let (s, b) = app
            .call(
                reqwest::Method::POST,
                &format!("/v1/matches/{id}/leave"),
                Some(&alice.token),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
    }

    // Both ask at once: one match is made, and both are answered with it.
    let old = finished_table(&app, &alice, &bob).await;
    let path = rematch_path(&old);
    let (a, b) = tokio::join!(
        app.post(&path, &alice.token, json!({})),
        app.post(&path, &bob.token, json!({})),
    );
    let mut statuses = [a.0, b.0];
    statuses.sort();
    assert_eq!(
        statuses,
        [StatusCode::OK, StatusCode::CREATED],
        "{} {}",
        a.1,
        b.1
    );
    assert_eq!(a.1["id"], b.1["id"]);
    let made: i64 = sqlx::query_scalar("SELECT count(*) FROM matches WHERE rematch_of = $1::uuid")
        .bind(&old)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(made, 1);
}
