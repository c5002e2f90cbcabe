//! `GET /v1/games`: the registry as clients see it. Public, every registered game in the
//! registry's order with its Chinese title and table sizes, and each `seats.default` is what a
//! new match that leaves `seats` out is given.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};

#[tokio::test]
async fn the_game_list_is_the_registry() {
    let app = spawn_app().await;
    let (status, body) = app.call(Method::GET, "/v1/games", None, None).await;
    assert_eq!(status, StatusCode::OK, "public: no token needed");
    let listed = body["games"].as_array().expect("a list of games");
    assert_eq!(listed.len(), ::games::all().len(), "{body}");
    for (g, shown) in ::games::all().iter().zip(listed) {
        let (min, max) = (*g.seats().start(), *g.seats().end());
        assert_eq!(
            shown,
            &json!({
                "name": g.name(),
                "title": g.title(),
                "seats": { "min": min, "max": max, "default": (min == max).then_some(min) },
                "coin_rooms": g.coin_rooms(),
            })
        );
    }
    assert_eq!(listed[0]["title"], "扯旋");
    assert_eq!(
        listed[0]["seats"],
        json!({"min": 2, "max": 6, "default": null})
    );

    // What the list says a new table may be, the server creates.
    let p = app.register("game_lister").await;
    for shown in listed {
        let game = shown["name"].as_str().unwrap();
        let seats = &shown["seats"];
        let create = |seats: Option<&Value>| {
            let mut body = json!({"game": game, "join": false});
            if let Some(n) = seats {
                body["seats"] = n.clone();
            }
            app.post("/v1/matches", &p.token, body)
        };
        let (status, view) = create(None).await;
        if seats["default"].is_null() {
            assert_problem(
                status,
                &view,
                StatusCode::UNPROCESSABLE_ENTITY,
                "validation_failed",
            );
        } else {
            assert_eq!(status, StatusCode::CREATED, "{game}: {view}");
            assert_eq!(
                view["seats"].as_array().unwrap().len(),
                seats["default"],
                "{game}"
            );
        }
        for n in [&seats["min"], &seats["max"]] {
            let (status, view) = create(Some(n)).await;
            assert_eq!(status, StatusCode::CREATED, "{game} at {n}: {view}");
        }
        let beyond = json!(seats["max"].as_u64().unwrap() + 1);
        let (status, view) = create(Some(&beyond)).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{game} at {beyond}: {view}"
        );
    }
}
