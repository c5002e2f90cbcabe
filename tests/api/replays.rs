//! The replay's steps: a finished hand played again through its engine, the table after the
//! deal and after each action, every hand revealed.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{card_counts, spawn_app};

#[tokio::test]
async fn a_finished_dazha_hand_replays_step_by_step_with_every_hand_shown() {
    let app = spawn_app().await;
    let ann = app.player("ann", 0).await;
    // Ann and three bots; ann never moves, so deadlines and 托管 play her seat.
    let (s, v) = app
        .post(
            "/v1/matches",
            &ann.token,
            json!({"game": "dazha", "bots": 3, "options": {"turn_timeout_secs": 1, "hands": 1}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let end = app
        .wait_for(&id, &ann, 120, |v| v["status"] == "finished")
        .await;
    let (s, replay) = app
        .get(&format!("/v1/matches/{id}/replay"), &ann.token)
        .await;
    assert_eq!(s, StatusCode::OK, "{replay}");
    let hand = &replay["hands"][0];
    let actions = hand["actions"].as_array().unwrap();
    let steps = hand["steps"].as_array().unwrap();
    assert_eq!(
        steps.len(),
        actions.len() + 1,
        "one step per action, and the deal"
    );
    assert_eq!(hand["steps_complete"], true);
    assert_eq!(
        (
            &steps[0]["n"],
            &steps[0]["seat"],
            &steps[0]["action"],
            &steps[0]["kind"]
        ),
        (&json!(0), &Value::Null, &Value::Null, &json!("deal"))
    );
    for (i, (step, a)) in steps[1..].iter().zip(actions).enumerate() {
        assert_eq!(step["n"], i + 1);
        assert_eq!((&step["seat"], &step["kind"]), (&a["seat"], &a["kind"]));
        assert_eq!(step["action"], a["action"]);
    }
    // After the deal every hand is shown: the whole deck, four hands of 27 cards (unless the
    // hand ended at the deal, 摊牌, when they were shown in the result).
    let deal = &steps[0];
    if !actions.is_empty() {
        let hands = deal["hands"].as_array().unwrap();
        assert!(
            hands.iter().all(|h| h.as_array().unwrap().len() == 27),
            "{deal}"
        );
        assert_eq!(
            card_counts(&deal["hands"]),
            card_counts(&hand["deck"]),
            "every card of the deck is in a hand after the deal"
        );
        for seat in deal["view"]["seats"].as_array().unwrap() {
            assert_eq!(seat["cards_left"], 27, "{seat}");
        }
    }
    // The last step is the table as the hand left it: the final view's state, with nothing
    // hidden left to reveal.
    let mut last = steps.last().unwrap()["view"].clone();
    let mut fin = end["state"].clone();
    fin.as_object_mut().unwrap().remove("hand");
    last.as_object_mut().unwrap().remove("hand");
    assert_eq!(last, fin);
}
