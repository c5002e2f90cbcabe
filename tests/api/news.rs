//! The stream's `match` events carry the player's view, so no `GET` follows an event.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::spawn_app;
use crate::players::Sse;

/// A 打炸 seat's hand and what it sees of the others' hands.
fn hand_of(view: &Value) -> &Value {
    &view["state"]["hand"]
}

/// A view's deadline to the microsecond.
fn micros(deadline: &Value) -> Option<i64> {
    let at = deadline.as_str()?;
    Some(
        chrono::DateTime::parse_from_rfc3339(at)
            .ok()?
            .timestamp_micros(),
    )
}

#[tokio::test]
async fn a_match_event_carries_the_view_the_player_would_get() {
    let app = spawn_app().await;
    let bob = app.player("bob", 0).await;
    let alice = app.player("alice", 0).await;
    let mut stream = Sse::open(
        &app,
        &format!("/v1/me/stream?access_token={}", alice.token),
        None,
        None,
    )
    .await;
    stream.until(5, |f| f.event == "hello").await;
    // Bob opens a 打炸 table with two bots; alice's join fills it and deals.
    let (s, v) = app
        .post(
            "/v1/matches",
            &bob.token,
            json!({"game": "dazha", "bots": 2, "options": {"turn_timeout_secs": 600}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let (s, joined) = app.join(&id, &alice, Some(1)).await;
    assert_eq!(s, StatusCode::OK, "{joined}");

    let mut compared = 0;
    for _ in 0..4 {
        // Alice's next news: its view is hers, at the news' version or newer.
        let news = stream.until(10, |f| f.event == "match").await;
        let view = &news.data["view"];
        assert_eq!(view["id"], json!(id), "{}", news.data);
        assert!(view["version"].as_i64() >= news.data["version"].as_i64());
        let got = app.view(&id, &alice).await;
        if got["version"] == view["version"] {
            // The same deadline: a table cached by the move that set it keeps nanoseconds,
            // the database keeps microseconds.
            let (mut view, mut got) = (view.clone(), got.clone());
            assert_eq!(micros(&view["deadline"]), micros(&got["deadline"]));
            view["deadline"] = Value::Null;
            got["deadline"] = Value::Null;
            assert_eq!(view, got, "the stream's view is the GET's");
            compared += 1;
        }
        assert_eq!(view["you"], json!({"seat": 1}));
        // Only her own cards: one hand, hers; the others' counts only once reported (≤ 10).
        let bobs = app.view(&id, &bob).await;
        if hand_of(&bobs).is_array() && hand_of(view).is_array() {
            assert_eq!(hand_of(view), hand_of(&got));
            assert_ne!(hand_of(view), hand_of(&bobs), "bob's cards reached alice");
        }
        for seat in view["state"]["seats"].as_array().into_iter().flatten() {
            if seat["seat"] != 1 {
                assert!(
                    seat["cards_left"].is_null() || seat["cards_left"].as_u64() <= Some(10),
                    "{seat}"
                );
            }
        }
        // Whoever of the two must act moves (the bots move at once): a new version.
        if got["status"] != "playing" {
            break;
        }
        let who = [&alice, &bob]
            .into_iter()
            .find(|p| {
                let seat = if p.id == alice.id { 1 } else { 0 };
                got["to_act"].as_array().unwrap().contains(&json!(seat))
            })
            .expect("a player's turn: the bots move at once");
        let (_, hint) = app.get(&format!("/v1/matches/{id}/hint"), &who.token).await;
        let (s, b) = app
            .act_at(
                &id,
                who,
                hint["version"].as_i64().unwrap(),
                hint["action"].clone(),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
    }
    assert!(compared >= 2, "views compared: {compared}");
}
