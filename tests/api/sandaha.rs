//! 衡阳三打哈 through the HTTP server: absent players bid, bury and play a hand out by
//! deadlines and 托管; a whole hand dealt from a fixed deck is bid, buried and played by four
//! clients and scored as an independent model of its tricks says, the defenders never seeing
//! the bottom; and a refused bid says which rule it broke.

use std::collections::BTreeMap;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    SingleCardTricks, assert_cards_within, assert_problem, card_counts, count_faces, fixed_shuffle,
    game_deck, names, spawn_app, take_card, trick_points,
};

#[tokio::test]
async fn absent_players_finish_a_hand_and_the_points_are_zero_sum() {
    let app = spawn_app().await;
    let v = app.absent_players_play_out("sandaha", 92).await;
    assert!(
        !v.to_string().contains("\"bottom\":["),
        "no seat sees the bottom: {v}"
    );
}

#[tokio::test]
async fn a_bid_that_is_not_the_next_step_is_refused_with_the_rule() {
    let app = spawn_app().await;
    let (id, players) = app
        .table_of_four("sd", 0, "sandaha", json!({"turn_timeout_secs": 60}))
        .await;
    // Seat 0 bids first in hand 1; the only legal first bid is 90.
    let (s, b) = app
        .act(&id, &players[0], json!({"type": "bid", "value": 80}))
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains("90"), "{b}");
    let (s, b) = app.act(&id, &players[1], json!({"type": "pass"})).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
}

/// The bottom of the fixed deck: both copies of four faces, so that no seat but the banker ever
/// holds one, and 50 points to capture (扣底).
const BOTTOM: [&str; 8] = ["AS", "AS", "KH", "KH", "10D", "10D", "5C", "5C"];

/// Two decks in a fixed shuffle with `BOTTOM` last (cards 84..91 are the bottom).
fn fixed_deck() -> Vec<String> {
    let mut rest = game_deck("sandaha", json!({}));
    assert_eq!(rest.len(), 92);
    for c in BOTTOM {
        let i = rest.iter().position(|x| x == c).unwrap();
        rest.remove(i);
    }
    fixed_shuffle(&mut rest, 0xc2);
    rest.extend(BOTTOM.iter().map(|c| c.to_string()));
    rest
}

/// docs/rules/sandaha.md § Result: the row's name and what each defender wins (+) or pays (−)
/// in base scores.
fn row(p: u32, bid: u32) -> (&'static str, i64) {
    if p >= bid + 80 {
        ("dadao", 4)
    } else if p >= bid + 40 {
        ("xiaodao", 2)
    } else if p >= bid {
        ("kuazhuang", 1)
    } else if p == 0 {
        ("daguang", -8)
    } else if p < 25 {
        ("xiaoguang", -4)
    } else {
        ("guozhuang", -2)
    }
}

#[tokio::test]
async fn a_whole_hand_from_a_fixed_deck_scores_its_row_and_defenders_never_see_the_bottom() {
    let app = spawn_app().await;
    let deck = fixed_deck();
    let (id, players) = app
        .admin_table_of_four(
            "sdh",
            "sandaha",
            json!({"turn_timeout_secs": 600, "hands": 1}),
            &deck,
        )
        .await;
    let mut hands: Vec<Vec<String>> = (0..4)
        .map(|s| deck[..84].iter().skip(s).step_by(4).cloned().collect())
        .collect();
    let dealt = hands.clone();
    for (seat, p) in players.iter().enumerate() {
        let v = app.view(&id, p).await;
        let mut held = names(&v["state"]["hand"]);
        held.sort();
        let mut want = hands[seat].clone();
        want.sort();
        assert_eq!(
            held,
            want,
            "seat {seat} is dealt cards {seat}, {}, …",
            seat + 4
        );
    }
    // What a defender must never be shown: any face of the bottom (both copies are there).
    let hidden: Vec<&str> = BOTTOM.to_vec();
    let defender_sees_no_bottom = |v: &Value, what: &str| {
        let counts = card_counts(v);
        for face in &hidden {
            assert!(!counts.contains_key(*face), "{what} shows {face}: {v}");
        }
    };

    // 定庄: 90, 85, then three passes: seat 1 is the banker at 85 (base score 2).
    let calls = [
        (0, json!({"type": "bid", "value": 90})),
        (1, json!({"type": "bid", "value": 85})),
        (2, json!({"type": "pass"})),
        (3, json!({"type": "pass"})),
        (0, json!({"type": "pass"})),
    ];
    for (seat, action) in calls {
        let (s, b) = app.act(&id, &players[seat], action).await;
        assert_eq!(s, StatusCode::OK, "seat {seat}: {b}");
    }
    let banker = 1;
    let (bid, base) = (85u32, 2i64);
    let v = app.view(&id, &players[banker]).await;
    assert_eq!(
        (
            &v["state"]["banker"],
            &v["state"]["bid"],
            &v["state"]["base_score"]
        ),
        (&json!(banker), &json!(bid), &json!(base)),
        "{v}"
    );
    // The banker took the bottom: 29 cards, and a private `bottom` event naming it.
    hands[banker].extend(BOTTOM.iter().map(|c| c.to_string()));
    let mut held = names(&v["state"]["hand"]);
    held.sort();
    let mut want = hands[banker].clone();
    want.sort();
    assert_eq!(held, want);
    let events = app.all_events(&id, &players[banker]).await;
    let bottom = events
        .iter()
        .find(|e| e["type"] == "bottom")
        .expect("a bottom event");
    let mut shown = names(&bottom["data"]["cards"]);
    shown.sort();
    let mut want: Vec<String> = BOTTOM.iter().map(|c| c.to_string()).collect();
    want.sort();
    assert_eq!(shown, want);

    // Trump hearts; bury the bottom as it came; play on.
    for action in [
        json!({"type": "trump", "suit": "H"}),
        json!({"type": "bury", "cards": BOTTOM}),
        json!({"type": "play_on"}),
    ] {
        let (s, b) = app.act(&id, &players[banker], action).await;
        assert_eq!(s, StatusCode::OK, "{b}");
    }
    for c in BOTTOM {
        take_card(&mut hands[banker], c);
    }
    let v = app.view(&id, &players[banker]).await;
    assert_eq!(
        count_faces(&names(&v["state"]["buried"])),
        count_faces(&want)
    );
    for seat in (0..4).filter(|&s| s != banker) {
        let v = app.view(&id, &players[seat]).await;
        assert_eq!(v["state"]["buried"], Value::Null, "{v}");
        assert_eq!(v["state"]["bottom_count"], 8, "{v}");
        defender_sees_no_bottom(&v, &format!("seat {seat}'s view"));
        let events = app.all_events(&id, &players[seat]).await;
        assert!(
            events
                .iter()
                .all(|e| e["type"] != "bottom" && e["type"] != "buried_cards"),
            "{events:?}"
        );
        let buried = events.iter().find(|e| e["type"] == "buried").unwrap();
        assert_eq!(buried["data"], json!({"count": 8}));
        defender_sees_no_bottom(&json!(events), &format!("seat {seat}'s events"));
    }

    // Every trick: the leader leads its strongest card, each follower its strongest card of the
    // led suit or, void, its weakest card; the model says who wins and what the defenders take.
    let model = SingleCardTricks {
        trump: 'H',
        fixed: &["7", "2"],
    };
    let mut played: BTreeMap<String, usize> = BTreeMap::new();
    let mut turn = banker;
    let mut defenders_points = 0;
    let mut last = (0, String::new());
    for trick_no in 0..21 {
        let mut plays: Vec<String> = Vec::new();
        for k in 0..4 {
            let seat = (turn + k) % 4;
            let v = app.view(&id, &players[seat]).await;
            assert_eq!(v["to_act"], json!([seat]), "trick {trick_no}: {v}");
            let mut held = names(&v["state"]["hand"]);
            held.sort();
            let mut want = hands[seat].clone();
            want.sort();
            assert_eq!(held, want, "seat {seat}'s hand, trick {trick_no}");
            // A seat's view names its own cards, the played ones and, the banker's, its buried.
            let mut allowed = count_faces(&hands[seat]);
            for (face, n) in &played {
                *allowed.entry(face.clone()).or_default() += n;
            }
            if seat == banker {
                for c in BOTTOM {
                    *allowed.entry(c.to_string()).or_default() += 1;
                }
            } else {
                defender_sees_no_bottom(&v, &format!("seat {seat}'s view"));
            }
            assert_cards_within(&v, &allowed, &format!("seat {seat}'s view"));
            let card = if k == 0 {
                model.lead(&hands[seat])
            } else {
                model.follow(&hands[seat], &plays[0])
            };
            let (s, b) = app
                .act_at(
                    &id,
                    &players[seat],
                    v["version"].as_i64().unwrap(),
                    json!({"type": "play", "cards": [card]}),
                )
                .await;
            assert_eq!(s, StatusCode::OK, "trick {trick_no}, seat {seat}: {b}");
            take_card(&mut hands[seat], &card);
            *played.entry(card.clone()).or_default() += 1;
            plays.push(card);
        }
        let i = model.winner(&plays);
        let winner = (turn + i) % 4;
        if winner != banker {
            defenders_points += plays.iter().map(|c| trick_points(c)).sum::<u32>();
        }
        last = (winner, plays[i].clone());
        turn = winner;
        if trick_no < 20 {
            let v = app.view(&id, &players[0]).await;
            let done = v["state"]["tricks"].as_array().unwrap();
            assert_eq!(
                done[trick_no]["winner"], winner,
                "trick {trick_no}: {plays:?}"
            );
            assert_eq!(v["state"]["defenders_points"], defenders_points);
        }
    }
    // 扣底: a defender winning the last trick with a trump single adds the buried points once.
    let (last_winner, last_card) = last;
    let buried_points: u32 = BOTTOM.iter().map(|c| trick_points(c)).sum();
    assert_eq!(buried_points, 50);
    let captured = last_winner != banker && model.is_trump(&last_card);
    if captured {
        defenders_points += buried_points;
    }
    let (verdict, per_defender) = row(defenders_points, bid);
    let points: Vec<i64> = (0..4)
        .map(|s| {
            if s == banker {
                -3 * per_defender * base
            } else {
                per_defender * base
            }
        })
        .collect();
    // Pinned, so that a change to the model shows too (the deck was chosen for this): the
    // defenders take 35 points in tricks and win the last one with a trump single, adding the
    // 50 buried points once: 85, the bid itself, is 垮庄 (P ≥ B) where 35 alone would have been
    // 过庄. Each defender receives u = 2, the banker pays 6.
    assert_eq!(
        (defenders_points, captured, verdict),
        (85, true, "kuazhuang")
    );
    assert_eq!(points, [2, -6, 2, 2]);

    let v = app.view(&id, &players[0]).await;
    assert_eq!(v["status"], "finished", "{v}");
    // The platform's settlement (points, coins) around the game's summary (`detail`).
    let r = &v["last_result"];
    let d = &r["detail"];
    assert_eq!(d["end"], "played", "{r}");
    assert_eq!(d["banker"], banker);
    assert_eq!(d["bid"], bid);
    assert_eq!(d["base_score"], base);
    assert_eq!(d["defenders_points"], defenders_points);
    assert_eq!(d["verdict"], verdict);
    if captured {
        assert_eq!(
            d["bottom_capture"],
            json!({"multiple": 1, "points": buried_points})
        );
    } else {
        assert_eq!(d["bottom_capture"], Value::Null);
    }
    assert_eq!(r["points"], json!(points));
    assert_eq!(d["points"], json!(points));
    assert_eq!(points.iter().sum::<i64>(), 0);

    // After the hand too, no defender is shown the bottom: not in its view, not in any event.
    for seat in (0..4).filter(|&s| s != banker) {
        let v = app.view(&id, &players[seat]).await;
        defender_sees_no_bottom(&v, &format!("seat {seat}'s final view"));
        let events = app.all_events(&id, &players[seat]).await;
        defender_sees_no_bottom(&json!(events), &format!("seat {seat}'s events"));
        let mut allowed = count_faces(&dealt[seat]);
        for (face, n) in &played {
            *allowed.entry(face.clone()).or_default() += n;
        }
        assert_cards_within(&json!(events), &allowed, &format!("seat {seat}'s events"));
    }
    let (s, replay) = app
        .get(&format!("/v1/matches/{id}/replay"), &players[2].token)
        .await;
    assert_eq!(s, StatusCode::OK, "{replay}");
    assert_eq!(names(&replay["hands"][0]["deck"]), deck);
}

/// A 比赛场 of 衡阳三打哈: four players at one table play their round out by automatic play;
/// the table's best (ties to the earlier registration) takes the pool.
#[tokio::test]
async fn a_tournament_table_plays_out_and_its_best_takes_the_pool() {
    use crate::tournaments::{
        check_bracket, create_of, hands_per_table, register_players, start, wait_finished,
    };
    let app = spawn_app().await;
    let org = app.organiser("organiser").await;
    let id = create_of(&app, &org, "sandaha", 20, 4, 1).await;
    let players = register_players(&app, &id, 4, 20, "sdt").await;
    let (s, t) = start(&app, &org, &id).await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!(t["prize_pool"], 80);
    let t = wait_finished(&app, &id, 240).await;
    check_bracket(&t, 4, 4);
    assert_eq!(hands_per_table(&app, &id).await, [4]);
    for p in &players {
        let want = if t["winner"] == json!(p.id) { 80 } else { 0 };
        assert_eq!(app.coins(p).await, want, "{}", p.name);
    }
    app.assert_ledger_reconciles().await;
}
