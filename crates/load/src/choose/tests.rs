use super::*;

fn view(seat: usize, legal: Value, state: Value) -> View {
    serde_json::from_str(
        &json!({
            "id": "m", "version": 3, "status": "playing", "you": { "seat": seat },
            "to_act": [seat], "legal_actions": legal, "state": state,
        })
        .to_string(),
    )
    .unwrap()
}

#[test]
fn a_game_without_a_function_here_has_no_chooser() {
    assert_eq!(Chooser::of("chehuzi"), Some(Chooser::Chehuzi));
    assert_eq!(
        Chooser::of("majiang"),
        None,
        "played from the server's hints"
    );
}

#[test]
fn set_bobo_stays_between_min_and_ten_times_min_and_the_wallet() {
    let mut rng = Rng::with_seed(1);
    let v = view(
        0,
        json!([{ "type": "set_bobo", "min": 100, "max": 5000 }]),
        json!({}),
    );
    let poor = view(
        0,
        json!([{ "type": "set_bobo", "min": 100, "max": 150 }]),
        json!({}),
    );
    for _ in 0..200 {
        let a = Chooser::Chexuan.choose(&v, &mut rng).unwrap();
        assert_eq!(a["type"], "set_bobo");
        assert!((100..=1000).contains(&a["amount"].as_i64().unwrap()), "{a}");
        let a = Chooser::Chexuan.choose(&poor, &mut rng).unwrap();
        assert!((100..=150).contains(&a["amount"].as_i64().unwrap()), "{a}");
    }
}

#[test]
fn betting_fills_raise_bounds_and_offers_every_template() {
    let mut rng = Rng::with_seed(2);
    let v = view(
        1,
        json!([{ "type": "call", "amount": 20 }, { "type": "raise", "min": 30, "max": 90 },
               { "type": "all_in", "amount": 90 }, { "type": "fold" }]),
        json!({}),
    );
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..500 {
        let a = Chooser::Chexuan.choose(&v, &mut rng).unwrap();
        let kind = a["type"].as_str().unwrap().to_string();
        match kind.as_str() {
            "raise" => assert!((30..=90).contains(&a["to"].as_i64().unwrap())),
            _ => assert_eq!(a, json!({ "type": kind })),
        }
        seen.insert(kind);
    }
    assert_eq!(seen.len(), 4, "{seen:?}");
}

#[test]
fn a_raise_with_empty_bounds_is_not_sent() {
    let mut rng = Rng::with_seed(3);
    let v = view(
        0,
        json!([{ "type": "raise", "min": 50, "max": 40 }]),
        json!({}),
    );
    assert_eq!(Chooser::Chexuan.choose(&v, &mut rng), None);
}

#[test]
fn split_uses_exactly_the_seats_own_four_cards() {
    let mut rng = Rng::with_seed(4);
    let state = json!({ "seats": [
        { "seat": 0, "hidden": null, "face_up": ["9S", "5C"] },
        { "seat": 1, "hidden": ["QH", "2D"], "face_up": ["8S", "RJ"] },
    ]});
    let v = view(1, json!([{ "type": "split" }]), state);
    for _ in 0..50 {
        let a = Chooser::Chexuan.choose(&v, &mut rng).unwrap();
        let mut all = strings(&a["head"]);
        assert_eq!(all.len(), 2);
        all.extend(strings(&a["tail"]));
        all.sort();
        assert_eq!(all, ["2D", "8S", "QH", "RJ"]);
    }
    let blind = view(0, json!([{ "type": "split" }]), v.state());
    assert_eq!(Chooser::Chexuan.choose(&blind, &mut rng), None);
}

#[test]
fn resume_wins_when_the_seat_is_in_automatic_play() {
    let mut rng = Rng::with_seed(5);
    let v = view(
        0,
        json!([{ "type": "fold" }, { "type": "resume" }]),
        json!({}),
    );
    let resumes = (0..100)
        .filter(|_| Chooser::Chexuan.choose(&v, &mut rng).unwrap()["type"] == "resume")
        .count();
    assert!(resumes > 90, "{resumes}");
}

#[test]
fn dazha_leader_keeps_its_jokers_playable() {
    let mut rng = Rng::with_seed(6);
    let lead = json!([{ "type": "play", "lead": true, "min_cards": 1 }]);
    let hand = json!({ "hand": ["RJ", "9S", "9H", "9D", "9C", "5S", "3H"] });
    let v = view(2, lead.clone(), hand);
    for _ in 0..50 {
        let a = Chooser::Dazha.choose(&v, &mut rng).unwrap();
        let cards = strings(&a["cards"]);
        assert!(cards == ["5S"] || cards == ["3H"], "{a}");
    }
    let bomb_only = view(2, lead, json!({ "hand": ["RJ", "9S", "9H", "9D", "9C"] }));
    let a = Chooser::Dazha.choose(&bomb_only, &mut rng).unwrap();
    assert_eq!(strings(&a["cards"]), ["RJ", "9S", "9H", "9D", "9C"]);
}

#[test]
fn dazha_follower_beats_a_single_or_passes() {
    let mut rng = Rng::with_seed(7);
    let follow = json!([{ "type": "play", "lead": false, "min_cards": 1,
                          "beat": { "type": "single", "rank": "K" }, "can_beat": true },
                        { "type": "pass" }]);
    let state = json!({ "hand": ["2S", "AH", "5D"],
                        "round": { "top": { "combo": { "type": "single", "rank": "K" } } } });
    let v = view(1, follow, state);
    let mut played = 0;
    for _ in 0..100 {
        let a = Chooser::Dazha.choose(&v, &mut rng).unwrap();
        if a["type"] == "play" {
            let cards = strings(&a["cards"]);
            assert!(cards == ["2S"] || cards == ["AH"], "{a}");
            played += 1;
        } else {
            assert_eq!(a, json!({ "type": "pass" }));
        }
    }
    assert!((20..80).contains(&played), "{played}");
}

fn parsed(cs: &[&str]) -> Vec<Card> {
    cs.iter().map(|c| Card::parse(c).unwrap()).collect()
}

#[test]
fn shengji_declares_what_is_offered_or_passes() {
    let mut rng = Rng::with_seed(8);
    let v = view(
        1,
        json!([{ "type": "declare", "options": [{ "suit": "H", "counts": [2, 3] }] },
               { "type": "pass" }]),
        json!({ "hand": ["2H", "2H", "2H", "9S"] }),
    );
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        let a = Chooser::Shengji.choose(&v, &mut rng).unwrap();
        match a["type"].as_str().unwrap() {
            "pass" => assert_eq!(a, json!({ "type": "pass" })),
            _ => {
                let cards = strings(&a["cards"]);
                assert!(cards == ["2H"; 2] || cards == ["2H"; 3], "{a}");
            }
        }
        seen.insert(a.to_string());
    }
    assert_eq!(seen.len(), 3, "{seen:?}");
    let pass_only = view(1, json!([{ "type": "pass" }]), json!({ "hand": ["9S"] }));
    assert_eq!(
        Chooser::Shengji.choose(&pass_only, &mut rng),
        Some(json!({ "type": "pass" }))
    );
}

#[test]
fn trick_game_leads_are_one_group_of_held_cards() {
    let mut rng = Rng::with_seed(9);
    let hand = ["RJ", "AS", "AS", "AS", "9H", "9H", "3C"];
    let lead = json!([{ "type": "play", "count": null, "lead": true, "shapes": [] }]);
    for game in [Chooser::Shengji, Chooser::Sandaha] {
        let v = view(0, lead.clone(), json!({ "hand": hand, "trump": "S" }));
        for _ in 0..100 {
            let a = game.choose(&v, &mut rng).unwrap();
            let cards = strings(&a["cards"]);
            assert!(
                !cards.is_empty() && cards.iter().all(|c| *c == cards[0]),
                "{a}"
            );
            let held = hand.iter().filter(|h| **h == cards[0]).count();
            assert!(cards.len() == 1 || cards.len() == held, "{a}");
        }
    }
}

#[test]
fn trick_game_follows_are_legal() {
    let mut rng = Rng::with_seed(10);
    // 升级, hearts trump: a pair of 9S led; the follower holds a pair of spades.
    let hand = ["RJ", "2H", "KS", "QS", "QS", "JS", "5D", "9D"];
    let order = Order::new(games::shengji::RANKS, Some(Suit::H));
    let state = json!({ "hand": hand, "trump": "H",
                        "trick": [{ "seat": 0, "cards": ["9S", "9S"] }] });
    let t = json!([{ "type": "play", "count": 2, "lead": false, "shapes": [] }]);
    for _ in 0..50 {
        let a = Chooser::Shengji
            .choose(&view(1, t.clone(), state.clone()), &mut rng)
            .unwrap();
        let play = cards(&a["cards"]);
        trick::is_legal_follow(&order, &parsed(&hand), &parsed(&["9S", "9S"]), &play).unwrap();
    }
    // Void in the led suit: any cards, not always the same.
    let void = json!({ "hand": hand, "trump": "H",
                       "trick": [{ "seat": 0, "cards": ["9C", "9C"] }] });
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..50 {
        let a = Chooser::Shengji
            .choose(&view(1, t.clone(), void.clone()), &mut rng)
            .unwrap();
        assert_eq!(strings(&a["cards"]).len(), 2);
        seen.insert(a.to_string());
    }
    assert!(seen.len() > 1);
    // 三打哈 without a trump suit: a trump single led (a 7), the follower must answer with
    // a trump (2S is one, 7s and 2s being fixed trumps).
    let hand = ["2S", "AH", "KD", "5C"];
    let state = json!({ "hand": hand, "trump": null, "trump_chosen": true,
                        "trick": { "leader": 0, "plays": [{ "seat": 0, "cards": ["7D"] }] } });
    let t = json!([{ "type": "play", "count": 1, "lead": false, "shapes": [] }]);
    let a = Chooser::Sandaha
        .choose(&view(1, t, state), &mut rng)
        .unwrap();
    assert_eq!(strings(&a["cards"]), ["2S"]);
}

#[test]
fn sandaha_bids_names_trump_and_buries_held_cards() {
    let mut rng = Rng::with_seed(11);
    let hand: Vec<String> = (5..=14)
        .flat_map(|r| {
            ["S", "H", "D"].map(|s| {
                let rank = match r {
                    11 => "J".to_string(),
                    12 => "Q".into(),
                    13 => "K".into(),
                    14 => "A".into(),
                    n => n.to_string(),
                };
                format!("{rank}{s}")
            })
        })
        .collect();
    let bury = view(
        2,
        json!([{ "type": "bury", "count": 8 }]),
        json!({ "hand": hand }),
    );
    for _ in 0..20 {
        let a = Chooser::Sandaha.choose(&bury, &mut rng).unwrap();
        let mut cards = strings(&a["cards"]);
        assert_eq!(cards.len(), 8);
        assert!(cards.iter().all(|c| hand.contains(c)), "{a}");
        cards.sort();
        cards.dedup();
        assert_eq!(cards.len(), 8, "each card once: {a}");
    }
    let trump = view(
        2,
        json!([{ "type": "trump", "suits": ["S", "H", "D", "C", null] }]),
        json!({}),
    );
    let named: std::collections::BTreeSet<String> = (0..200)
        .map(|_| Chooser::Sandaha.choose(&trump, &mut rng).unwrap()["suit"].to_string())
        .collect();
    assert_eq!(named.len(), 5, "{named:?}");
    let bid = view(
        0,
        json!([{ "type": "bid", "value": 85 }, { "type": "pass" }]),
        json!({}),
    );
    for _ in 0..50 {
        let a = Chooser::Sandaha.choose(&bid, &mut rng).unwrap();
        assert!(a == json!({ "type": "bid", "value": 85 }) || a == json!({ "type": "pass" }));
    }
}

#[test]
fn chehuzi_wins_when_it_can_and_otherwise_answers_what_is_offered() {
    let mut rng = Rng::with_seed(12);
    let hu = view(
        1,
        json!([{ "type": "hu" }, { "type": "peng" }, { "type": "pass" }]),
        json!({}),
    );
    for _ in 0..20 {
        assert_eq!(
            Chooser::Chehuzi.choose(&hu, &mut rng),
            Some(json!({ "type": "hu" }))
        );
    }
    let melds = json!([[["s3", "s4", "s5"]], [["s5", "s6", "s7"]]]);
    let claim = view(
        2,
        json!([{ "type": "peng" }, { "type": "chi", "options": melds }, { "type": "pass" }]),
        json!({}),
    );
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        let a = Chooser::Chehuzi.choose(&claim, &mut rng).unwrap();
        match a["type"].as_str().unwrap() {
            "chi" => assert!(melds.as_array().unwrap().contains(&a["melds"]), "{a}"),
            kind => assert_eq!(a, json!({ "type": kind })),
        }
        seen.insert(a.to_string());
    }
    assert_eq!(seen.len(), 4, "{seen:?}");
}

#[test]
fn chehuzi_discards_an_allowed_card() {
    let mut rng = Rng::with_seed(13);
    let hand = json!({ "hand": ["W", "b9", "b9", "b9", "s7", "s2"] });
    let listed = view(
        0,
        json!([{ "type": "discard", "cards": ["s7", "s2"] }]),
        hand.clone(),
    );
    let generic = view(0, json!([{ "type": "discard" }]), hand);
    let mut seen = std::collections::BTreeSet::new();
    for v in [&listed, &generic] {
        for _ in 0..50 {
            let a = Chooser::Chehuzi.choose(v, &mut rng).unwrap();
            assert_eq!(a["type"], "discard");
            let card = a["card"].as_str().unwrap().to_string();
            assert!(card == "s7" || card == "s2", "neither W nor the 坎: {a}");
            seen.insert(card);
        }
    }
    assert_eq!(seen.len(), 2);
    let nothing = view(
        0,
        json!([{ "type": "discard", "cards": [] }]),
        json!({ "hand": ["W"] }),
    );
    assert_eq!(Chooser::Chehuzi.choose(&nothing, &mut rng), None);
}
