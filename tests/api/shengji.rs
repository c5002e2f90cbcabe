//! 四副牌升级 through the HTTP server: a table of absent players is played out by deadlines and
//! 托管; a whole hand dealt from a fixed deck is played by four clients, checked against an
//! independent model of its tricks and against what each seat may see; declarations race; and
//! a refused action says which rule it broke.

use std::collections::BTreeMap;

use games::engine::{Ctx, HandStart};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    Player, SingleCardTricks, TestApp, assert_cards_within, assert_problem, count_faces,
    fixed_shuffle, game_deck, names, spawn_app, take_card, trick_points,
};

#[tokio::test]
async fn absent_players_finish_a_hand_and_the_points_are_zero_sum() {
    spawn_app()
        .await
        .absent_players_play_out("shengji", 216)
        .await;
}

#[tokio::test]
async fn each_seat_is_dealt_54_cards_and_declares_first() {
    let app = spawn_app().await;
    let (id, players) = app
        .table_of_four("sj", 0, "shengji", json!({"turn_timeout_secs": 60}))
        .await;
    let v = app.view(&id, &players[0]).await;
    assert_eq!(v["phase"], "declaring", "{v}");
    assert_eq!(
        v["state"]["hand"].as_array().map(Vec::len),
        Some(54),
        "each seat holds 54 cards: {v}"
    );
}

#[tokio::test]
async fn a_declaration_without_twos_is_refused_with_the_rule() {
    let app = spawn_app().await;
    let (id, players) = app
        .table_of_four("sj", 0, "shengji", json!({"turn_timeout_secs": 60}))
        .await;
    let v = app.view(&id, &players[0]).await;
    let seat = v["to_act"][0].as_u64().unwrap() as usize;
    let p = players
        .iter()
        .find(|p| p.id.to_string() == v["seats"][seat]["user_id"].as_str().unwrap())
        .unwrap();
    let mine = app.view(&id, p).await;
    let not_two = mine["state"]["hand"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| !c.as_str().unwrap().starts_with('2') && !c.as_str().unwrap().ends_with('J'))
        .unwrap()
        .clone();
    let (s, b) = app
        .act(&id, p, json!({"type": "declare", "cards": [not_two]}))
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains('2'), "{b}");
}

/// Moves copies of `face` into `seat`'s cards (deck positions i with i mod 4 = seat) until it
/// holds `n`, taking them from seats other than `keep` and giving back cards that are not 2s.
fn ensure(deck: &mut [String], seat: usize, face: &str, n: usize, keep: &[usize]) {
    loop {
        let held = (seat..deck.len())
            .step_by(4)
            .filter(|&i| deck[i] == face)
            .count();
        if held >= n {
            return;
        }
        let from = (0..deck.len())
            .find(|&i| deck[i] == face && i % 4 != seat && !keep.contains(&(i % 4)))
            .expect("a copy to move");
        let to = (seat..deck.len())
            .step_by(4)
            .find(|&i| !deck[i].starts_with('2') && !deck[i].ends_with('J'))
            .expect("a card to give back");
        deck.swap(from, to);
    }
}

/// The fixed deck of these tests: four decks in a fixed shuffle, so that seat 0 holds a 2H,
/// seat 1 two 2Hs and seat 2 two 2Cs (card i goes to seat i mod 4).
fn fixed_deck() -> Vec<String> {
    let mut deck = game_deck("shengji", json!({}));
    assert_eq!(deck.len(), 216);
    fixed_shuffle(&mut deck, 0x5eed_5e1f);
    ensure(&mut deck, 1, "2H", 2, &[]);
    ensure(&mut deck, 0, "2H", 1, &[1]);
    ensure(&mut deck, 2, "2C", 2, &[]);
    deck
}

/// Each seat's cards when `deck` is dealt: card i to seat i mod 4.
fn dealt(deck: &[String]) -> Vec<Vec<String>> {
    (0..4)
        .map(|s| deck.iter().skip(s).step_by(4).cloned().collect())
        .collect()
}

fn team(seat: usize) -> usize {
    seat % 2
}

/// docs/rules/shengji.md § Points, levels: the team that gains and how many levels, from the
/// defenders' points P.
fn level_change(dealer: usize, p: u32) -> (usize, u8) {
    if p < 160 {
        let gain = match p {
            0 => 3,
            1..80 => 2,
            _ => 1,
        };
        (team(dealer), gain)
    } else {
        (1 - team(dealer), ((p - 160) / 80) as u8)
    }
}

/// Every string in `v` that is a suit letter: a declared suit shown where it should not be.
fn suit_letters(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) if ["S", "H", "D", "C"].contains(&s.as_str()) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(v, &mut out);
    out
}

/// Seat `seat`'s view at this moment names no card beyond its own cards and the played ones,
/// and its hand is `hand`.
#[track_caller]
fn check_view(v: &Value, seat: usize, hand: &[String], played: &BTreeMap<String, usize>) {
    assert_eq!(v["you"]["seat"], seat, "{v}");
    let mut held = names(&v["state"]["hand"]);
    held.sort();
    let mut want = hand.to_vec();
    want.sort();
    assert_eq!(held, want, "seat {seat}'s hand");
    let mut allowed = count_faces(hand);
    for (face, n) in played {
        *allowed.entry(face.clone()).or_default() += n;
    }
    assert_cards_within(v, &allowed, &format!("seat {seat}'s view"));
}

/// Every event seat `seat` may read names no card beyond the ones it was dealt and the played
/// ones.
async fn check_events(
    app: &TestApp,
    id: &str,
    p: &Player,
    seat: usize,
    dealt: &[String],
    played: &BTreeMap<String, usize>,
) -> Vec<Value> {
    let events = app.all_events(id, p).await;
    let mut allowed = count_faces(dealt);
    for (face, n) in played {
        *allowed.entry(face.clone()).or_default() += n;
    }
    assert_cards_within(&json!(events), &allowed, &format!("seat {seat}'s events"));
    events
}

/// While the phase lasts, the seats other than `declarer` see that it declared `count` cards and
/// not the suit: not in the view's state, not in any event.
async fn hidden_from_others(
    app: &TestApp,
    id: &str,
    players: &[Player],
    declarer: usize,
    count: u8,
) {
    for (seat, p) in players.iter().enumerate().filter(|(s, _)| *s != declarer) {
        let v = app.view(id, p).await;
        assert_eq!(
            v["state"]["declaration"],
            json!({"seat": declarer, "count": count, "suit": null}),
            "seat {seat}"
        );
        assert_eq!(v["state"]["trump"], Value::Null);
        assert!(suit_letters(&v["state"]).is_empty(), "seat {seat}: {v}");
        let events = app.all_events(id, p).await;
        assert!(suit_letters(&json!(events)).is_empty(), "{events:?}");
        let last = events.iter().rfind(|e| e["type"] == "declare").unwrap();
        assert_eq!(last["seat"], declarer);
        assert_eq!(last["data"], json!({"count": count}));
    }
}

#[tokio::test]
async fn a_whole_hand_from_a_fixed_deck_scores_what_the_deck_gives_and_hides_every_card() {
    let app = spawn_app().await;
    let deck = fixed_deck();
    let (id, players) = app
        .admin_table_of_four(
            "sjh",
            "shengji",
            json!({"turn_timeout_secs": 600, "hands": 1}),
            &deck,
        )
        .await;
    let dealt = dealt(&deck);
    let none = BTreeMap::new();
    for (seat, p) in players.iter().enumerate() {
        let v = app.view(&id, p).await;
        assert_eq!(v["phase"], "declaring", "{v}");
        check_view(&v, seat, &dealt[seat], &none);
        check_events(&app, &id, p, seat, &dealt[seat], &none).await;
    }

    // 暗叫: seat 0 shows one 2H; the others learn that seat 0 declared one card, not the suit.
    let (s, b) = app
        .act(
            &id,
            &players[0],
            json!({"type": "declare", "cards": ["2H"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(
        b["state"]["declaration"],
        json!({"seat": 0, "count": 1, "suit": "H"})
    );
    hidden_from_others(&app, &id, &players, 0, 1).await;
    let (s, b) = app.act(&id, &players[1], json!({"type": "pass"})).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    // 反主: seat 2 shows two 2Cs; seat 0 no longer sees a suit either.
    let (s, b) = app
        .act(
            &id,
            &players[2],
            json!({"type": "declare", "cards": ["2C", "2C"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["state"]["declaration"]["suit"], "C");
    hidden_from_others(&app, &id, &players, 2, 2).await;
    for seat in [3, 0, 1] {
        let (s, b) = app.act(&id, &players[seat], json!({"type": "pass"})).await;
        assert_eq!(s, StatusCode::OK, "{b}");
    }
    // Three passes after the last declaration: clubs are trump, shown to all; the final
    // declarer deals hand 1 (反底反桩).
    for p in &players {
        let v = app.view(&id, p).await;
        assert_eq!(v["phase"], "playing", "{v}");
        assert_eq!(v["state"]["trump"], "C");
        assert_eq!(v["state"]["dealer"], 2);
        assert_eq!(
            v["state"]["declaration"],
            json!({"seat": 2, "count": 2, "suit": "C"})
        );
        assert_eq!(v["to_act"], json!([2]));
    }

    // Every trick: the leader leads its strongest card, each follower its strongest card of the
    // led suit or, void, its weakest card. The model says who wins and what the defenders take.
    let model = SingleCardTricks {
        trump: 'C',
        fixed: &["2"],
    };
    let dealer = 2;
    let mut hands = dealt.clone();
    let mut played: BTreeMap<String, usize> = BTreeMap::new();
    let mut turn = dealer;
    let mut defenders_points = 0;
    let mut refused_once = false;
    for trick_no in 0..54 {
        let mut plays: Vec<String> = Vec::new();
        for k in 0..4 {
            let seat = (turn + k) % 4;
            let v = app.view(&id, &players[seat]).await;
            assert_eq!(v["to_act"], json!([seat]), "trick {trick_no}: {v}");
            check_view(&v, seat, &hands[seat], &played);
            let version = v["version"].as_i64().unwrap();
            let card = if k == 0 {
                model.lead(&hands[seat])
            } else {
                model.follow(&hands[seat], &plays[0])
            };
            // Once: a follower holding the led suit tries another suit and is told the rule.
            if let Some(led) = plays.first().map(|c| model.suit(c))
                && !refused_once
                && model.suit(&card) == led
                && let Some(other) = hands[seat].iter().find(|c| model.suit(c) != led)
            {
                let (s, b) = app
                    .act_at(
                        &id,
                        &players[seat],
                        version,
                        json!({"type": "play", "cards": [other]}),
                    )
                    .await;
                assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
                assert!(b["detail"].as_str().unwrap().contains("led suit"), "{b}");
                refused_once = true;
            }
            let (s, b) = app
                .act_at(
                    &id,
                    &players[seat],
                    version,
                    json!({"type": "play", "cards": [card]}),
                )
                .await;
            assert_eq!(s, StatusCode::OK, "trick {trick_no}, seat {seat}: {b}");
            take_card(&mut hands[seat], &card);
            *played.entry(card.clone()).or_default() += 1;
            plays.push(card);
            if k == 3 && trick_no < 53 {
                let done = b["state"]["tricks"].as_array().unwrap();
                assert_eq!(done.len(), trick_no + 1);
                let winner = (turn + model.winner(&plays)) % 4;
                assert_eq!(
                    done[trick_no]["winner"], winner,
                    "trick {trick_no}: {plays:?}"
                );
            }
        }
        let winner = (turn + model.winner(&plays)) % 4;
        if team(winner) != team(dealer) {
            defenders_points += plays.iter().map(|c| trick_points(c)).sum::<u32>();
        }
        turn = winner;
        if trick_no < 53 {
            let v = app.view(&id, &players[0]).await;
            assert_eq!(
                v["state"]["defenders_points"], defenders_points,
                "trick {trick_no}"
            );
        }
        // Now and then every seat, not only the one to act: its view and every event so far.
        if trick_no % 9 == 4 {
            for (seat, p) in players.iter().enumerate() {
                check_view(&app.view(&id, p).await, seat, &hands[seat], &played);
                check_events(&app, &id, p, seat, &dealt[seat], &played).await;
            }
        }
    }
    assert!(refused_once, "some follower held the led suit and another");

    // The result is the model's: the defenders' points, the level change, zero-sum points.
    let (team_up, gain) = level_change(dealer, defenders_points);
    let mut levels = [2, 2];
    levels[team_up] += gain;
    let points: Vec<i64> = (0..4)
        .map(|s| {
            if team(s) == team_up {
                i64::from(gain)
            } else {
                -i64::from(gain)
            }
        })
        .collect();
    // Pinned, so that a change to the model shows too: with this deck and these plays the
    // defenders (seats 1 and 3) take 255 points, in 240–315: they go up one level (and take the
    // deal), the dealers (seats 0 and 2) stay at 2; seats 1 and 3 win 1 point, 0 and 2 lose 1.
    assert_eq!((defenders_points, team_up, gain), (255, 1, 1));
    assert_eq!(points, [-1, 1, -1, 1]);
    let v = app.view(&id, &players[1]).await;
    assert_eq!(v["status"], "finished", "{v}");
    // The platform's settlement (points, coins) around the game's summary (`detail`).
    let r = &v["last_result"];
    let d = &r["detail"];
    assert_eq!(d["kind"], "played", "{r}");
    assert_eq!(d["dealer"], dealer);
    assert_eq!(d["trump"], "C");
    assert_eq!(d["defenders_points"], defenders_points);
    assert_eq!(d["gaining_team"], team_up);
    assert_eq!(d["levels_gained"], gain);
    assert_eq!(d["levels_before"], json!([2, 2]));
    assert_eq!(d["levels_after"], json!(levels));
    assert_eq!(r["points"], json!(points));
    assert_eq!(d["points"], json!(points));
    assert_eq!(points.iter().sum::<i64>(), 0);

    // The replay gives the deck back, and re-running its actions reaches the same result.
    let (s, replay) = app
        .get(&format!("/v1/matches/{id}/replay"), &players[3].token)
        .await;
    assert_eq!(s, StatusCode::OK, "{replay}");
    let hand = &replay["hands"][0];
    assert_eq!(names(&hand["deck"]), deck);
    let game = games::game("shengji").unwrap();
    let mut state = game.load(&hand["start_state"].to_string()).unwrap();
    let mut outcome = state.start_hand(HandStart {
        deck: serde_json::from_value(hand["deck"].clone()).unwrap(),
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
        outcome.merge(state.apply(seat, &act["action"], ctx).unwrap());
    }
    let result = outcome.hand_end.expect("the re-run hand ends");
    assert_eq!(json!(result.points), r["points"]);
    assert_eq!(result.detail["defenders_points"], defenders_points);
}

#[tokio::test]
async fn declarations_race_and_only_more_cards_override() {
    let app = spawn_app().await;
    let (id, players) = app
        .admin_table_of_four(
            "sjr",
            "shengji",
            json!({"turn_timeout_secs": 600}),
            &fixed_deck(),
        )
        .await;
    let v = app.view(&id, &players[0]).await;
    let version = v["version"].as_i64().unwrap();
    assert_eq!(v["to_act"], json!([0]));
    // Seats 0 and 1 both hold 2Hs and declare at the same version at once.
    let declare = json!({"type": "declare", "cards": ["2H"]});
    let ((s0, b0), (s1, b1)) = tokio::join!(
        app.act_at(&id, &players[0], version, declare.clone()),
        app.act_at(&id, &players[1], version, declare.clone()),
    );
    // Exactly one is applied: seat 0's, whose turn it was. Seat 1's is a 409 — a version
    // conflict when it arrived after seat 0's move, else not its turn (it came first, at the
    // current version, and the turn was still seat 0's).
    assert_eq!(s0, StatusCode::OK, "{b0}");
    assert_eq!(s1, StatusCode::CONFLICT, "{b1}");
    let code = b1["code"].as_str().unwrap();
    assert!(
        code == "version_conflict" || code == "not_your_turn",
        "{b1}"
    );
    if code == "version_conflict" {
        assert_eq!(b1["view"]["version"], version + 1, "{b1}");
    }
    // A retry at the raced version is a version conflict that carries the current view, in
    // which the winning declaration shows its count, not its suit.
    let (s, b) = app.act_at(&id, &players[1], version, declare.clone()).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "version_conflict");
    let current = &b["view"];
    assert_eq!(current["version"], version + 1, "{b}");
    assert_eq!(current["you"]["seat"], 1);
    assert_eq!(
        current["state"]["declaration"],
        json!({"seat": 0, "count": 1, "suit": null})
    );
    assert_eq!(current["to_act"], json!([1]));
    let v0 = app.view(&id, &players[0]).await;
    assert_eq!(v0["state"]["declaration"]["suit"], "H");

    // Equal counts never override (以先出现者为准): refused, naming the rule.
    let (s, b) = app.act(&id, &players[1], declare.clone()).await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    let detail = b["detail"].as_str().unwrap();
    assert!(detail.contains("show more"), "{b}");
    // The seat's templates offer only the counts that override.
    let v1 = app.view(&id, &players[1]).await;
    let options = &v1["legal_actions"][0];
    assert_eq!(options["type"], "declare", "{v1}");
    assert!(
        options["options"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["counts"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c.as_u64() >= Some(2))),
        "{v1}"
    );
    // More cards override (反主), in any suit including the standing one.
    let (s, b) = app
        .act(
            &id,
            &players[1],
            json!({"type": "declare", "cards": ["2H", "2H"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(
        b["state"]["declaration"],
        json!({"seat": 1, "count": 2, "suit": "H"})
    );
    // A seat never gets to override its own declaration (不能自反主): the turn has moved on,
    // and by the time it comes back the phase is over (three passes) or another seat stands.
    let (s, b) = app
        .act(
            &id,
            &players[1],
            json!({"type": "declare", "cards": ["2H", "2H"]}),
        )
        .await;
    assert_problem(s, &b, StatusCode::CONFLICT, "not_your_turn");
    // Seat 0 sees its own declaration beaten by two cards of a suit it is not told.
    let v0 = app.view(&id, &players[0]).await;
    assert_eq!(
        v0["state"]["declaration"],
        json!({"seat": 1, "count": 2, "suit": null})
    );
}

#[tokio::test]
async fn a_follow_that_breaks_suit_or_structure_is_refused_with_the_rule() {
    let app = spawn_app().await;
    let deck = fixed_deck();
    let (id, players) = app
        .admin_table_of_four("sjf", "shengji", json!({"turn_timeout_secs": 600}), &deck)
        .await;
    // Nobody declares: spades are trump and seat 0 deals and leads.
    for p in &players {
        let (s, b) = app.act(&id, p, json!({"type": "pass"})).await;
        assert_eq!(s, StatusCode::OK, "{b}");
    }
    let v = app.view(&id, &players[0]).await;
    assert_eq!(
        (&v["state"]["trump"], &v["state"]["dealer"]),
        (&json!("S"), &json!(0))
    );
    let hands = dealt(&deck);
    let model = SingleCardTricks {
        trump: 'S',
        fixed: &["2"],
    };
    let pairs = |hand: &[String], suit: char| -> Vec<String> {
        let counts = count_faces(hand.iter().filter(|c| model.suit(c) == Some(suit)));
        counts
            .into_iter()
            .filter(|(_, n)| *n >= 2)
            .map(|(f, _)| f)
            .collect()
    };
    // A plain suit in which seat 0 can lead a pair and seat 1 holds a pair too.
    let suit = ['H', 'D', 'C']
        .into_iter()
        .find(|&s| !pairs(&hands[0], s).is_empty() && !pairs(&hands[1], s).is_empty())
        .expect("a suit with pairs on both seats");
    let lead = pairs(&hands[0], suit)[0].clone();
    let (s, b) = app
        .act(
            &id,
            &players[0],
            json!({"type": "play", "cards": [lead, lead]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    // Seat 1's template says two cards, a pair of the led suit.
    let v1 = app.view(&id, &players[1]).await;
    let t = &v1["legal_actions"][0];
    assert_eq!(t["type"], "play", "{v1}");
    assert_eq!(t["count"], 2);
    assert_eq!(t["lead"], false);
    assert_eq!(
        t["shapes"],
        json!([{"shape": "formation", "formation": {"kind": "group", "size": 2}}]),
        "{t}"
    );
    // Two different cards of the led suit while holding a pair: refused, naming the pair.
    let mine: Vec<&String> = hands[1]
        .iter()
        .filter(|c| model.suit(c) == Some(suit))
        .collect();
    let first = mine[0];
    let second = mine
        .iter()
        .copied()
        .find(|c| *c != first)
        .expect("two faces");
    let (s, b) = app
        .act(
            &id,
            &players[1],
            json!({"type": "play", "cards": [first, second]}),
        )
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains("a pair"), "{b}");
    // Cards of another suit while holding the led one: refused, naming the suit rule.
    let others: Vec<&String> = hands[1]
        .iter()
        .filter(|c| model.suit(c) != Some(suit))
        .take(2)
        .collect();
    let (s, b) = app
        .act(&id, &players[1], json!({"type": "play", "cards": others}))
        .await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_action");
    assert!(b["detail"].as_str().unwrap().contains("led suit"), "{b}");
    // The detail names only the seat's own cards and the lead.
    assert_cards_within(
        &b,
        &count_faces(hands[1].iter().chain([&lead, &lead])),
        "the refusal",
    );
    // Its pair is accepted.
    let pair = pairs(&hands[1], suit)[0].clone();
    let (s, b) = app
        .act(
            &id,
            &players[1],
            json!({"type": "play", "cards": [pair, pair]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
}
