//! The stream's `match` events carry the player's view, so no `GET` follows an event.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, fresh_database, metrics_text, spawn_app, spawn_app_with};
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
        // The news says who is asked as the view shows it, and whether it is her turn.
        if news.data["version"] == view["version"] {
            assert_eq!(news.data["to_act"], view["to_act"], "{}", news.data);
            let hers = view["status"] == "playing"
                && view["to_act"]
                    .as_array()
                    .unwrap()
                    .contains(&view["you"]["seat"]);
            assert_eq!(news.data["your_turn"], json!(hers), "{}", news.data);
        }
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

/// One move through `app` by whoever is to act at match `id`, heard of by every stream before
/// this returns.
async fn play(app: &TestApp, id: &str, players: &[Player], streams: &mut [Sse]) {
    let view = app.view(id, &players[0]).await;
    let seat = view["to_act"][0].as_u64().expect("a seat to act") as usize;
    let p = &players[seat];
    let (_, hint) = app.get(&format!("/v1/matches/{id}/hint"), &p.token).await;
    let version = hint["version"].as_i64().unwrap();
    let (s, body) = app.act_at(id, p, version, hint["action"].clone()).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    for s in streams.iter_mut() {
        s.until(10, |f| {
            f.event == "match" && f.data["version"].as_i64() > Some(version)
        })
        .await;
    }
}

/// `paiju_stream_reads_total` of the server at `base`.
async fn stream_reads(app: &TestApp) -> u64 {
    let text = metrics_text(&app.client, &app.address).await;
    text.lines()
        .find_map(|l| l.strip_prefix("paiju_stream_reads_total "))
        .map_or(0, |n| n.trim().parse().unwrap())
}

/// A move reaches the streams of the process that committed it from the table it committed,
/// without a read; another process's streams read the match once per version for all of its
/// seats' streams there (docs/performance.md § Connected players).
#[tokio::test]
async fn a_move_costs_its_own_process_streams_no_read_and_another_process_one() {
    let url = fresh_database().await;
    let on = |url: String| spawn_app_with(move |c| c.database_url = Some(url));
    let a = on(url.clone()).await;
    let b = on(url).await;
    let (s, v) = a
        .post(
            "/v1/matches",
            &a.admin_token,
            json!({"game": "dazha", "seats": 4, "join": false,
                   "options": {"turn_timeout_secs": 600}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let players = a.seat_players(&id, "fan", 4).await;
    // Two seats follow the match through process a, two through process b.
    let mut streams = Vec::new();
    for (i, p) in players.iter().enumerate() {
        let app = if i < 2 { &a } else { &b };
        let path = format!("/v1/me/stream?access_token={}", p.token);
        let mut s = Sse::open(app, &path, None, None).await;
        s.until(5, |f| f.event == "hello").await;
        streams.push(s);
    }
    // The first move also settles the streams' first looks at the match.
    play(&a, &id, &players, &mut streams).await;
    let (before_a, before_b) = (stream_reads(&a).await, stream_reads(&b).await);
    const MOVES: u64 = 6;
    for _ in 0..MOVES {
        play(&a, &id, &players, &mut streams).await;
    }
    let (read_a, read_b) = (
        stream_reads(&a).await - before_a,
        stream_reads(&b).await - before_b,
    );
    assert_eq!(
        read_a, 0,
        "process a committed every version its streams told"
    );
    assert!(
        (1..=MOVES).contains(&read_b),
        "process b read {read_b} times for {MOVES} versions and two streams"
    );
}
