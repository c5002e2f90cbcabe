use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::spawn_app;

#[tokio::test]
async fn served_openapi_lists_exactly_the_routes_we_serve() {
    let app = spawn_app().await;
    let (status, doc) = app.call(Method::GET, "/openapi.json", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(doc["openapi"], "3.1.0");
    let mut documented = BTreeSet::new();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for method in ops.as_object().unwrap().keys() {
            documented.insert((method.clone(), path.clone()));
        }
    }
    let served: BTreeSet<(String, String)> = paiju::routes::ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    assert_eq!(
        documented, served,
        "openapi/openapi.json and routes::ROUTES disagree"
    );
    // The web client's pages are served but are no API operation: the document leaves them out.
    for (_, page) in paiju::routes::PAGES {
        assert!(
            doc["paths"].get(*page).is_none(),
            "{page} is a page of the web client, not an API route"
        );
    }

    // Every listed route and page is really registered: an unregistered one answers "no route".
    for (method, path) in paiju::routes::ROUTES.iter().chain(paiju::routes::PAGES) {
        if *path == "/v1/me/stream" {
            // A stream answers for as long as it is read: its status and type are enough.
            let res = app
                .client
                .get(format!("{}{path}", app.address))
                .bearer_auth(&app.admin_token)
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), StatusCode::OK);
            assert_eq!(res.headers()["content-type"], "text/event-stream");
            continue;
        }
        let path = path.replace("{file}", "index.html");
        let path = path.replace("{id}", &uuid::Uuid::new_v4().to_string());
        let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
        let (status, body) = app
            .call(method.clone(), &path, Some(&app.admin_token), None)
            .await;
        let unrouted = status == StatusCode::NOT_FOUND
            && body["detail"]
                .as_str()
                .is_some_and(|d| d.starts_with("no route for"));
        assert!(!unrouted, "{method} {path} is listed but not served");
    }
}

#[tokio::test]
async fn every_schema_reference_resolves() {
    let doc: serde_json::Value = serde_json::from_str(paiju::openapi::DOCUMENT).unwrap();
    let text = paiju::openapi::DOCUMENT;
    for piece in text.split("\"$ref\": \"#/components/").skip(1) {
        let target = piece.split('"').next().unwrap();
        let mut node = &doc["components"];
        for part in target.split('/') {
            node = &node[part];
        }
        assert!(!node.is_null(), "dangling $ref {target}");
    }
}

/// The committed document is what the registered games make of it: every game's schemas
/// (options, action, state, legal action, last result) exactly as the engines' types give them,
/// and the `game` enums of matches, tournaments and the lobby. With `PAIJU_WRITE_OPENAPI=1` the
/// test writes them into `openapi/openapi.json` instead of failing.
#[test]
fn committed_openapi_holds_every_games_schemas() {
    let committed: Value = serde_json::from_str(paiju::openapi::DOCUMENT).unwrap();
    let mut doc = committed.clone();
    paiju::openapi::regenerate(&mut doc);
    if doc == committed {
        return;
    }
    let schemas = |d: &Value| d["components"]["schemas"].as_object().cloned().unwrap();
    let (old, new) = (schemas(&committed), schemas(&doc));
    let stale: Vec<&String> = new.keys().filter(|k| old.get(*k) != new.get(*k)).collect();
    if std::env::var_os("PAIJU_WRITE_OPENAPI").is_some() {
        let text = serde_json::to_string_pretty(&doc).unwrap();
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json"),
            text + "\n",
        )
        .unwrap();
        return;
    }
    panic!(
        "openapi/openapi.json differs from what the registered games make of it (schemas \
         {stale:?}, or a game enum); run `PAIJU_WRITE_OPENAPI=1 cargo test --test api openapi` \
         and commit the result"
    );
}

/// `docs/api.md`, the page for client writers, names every route we serve as `METHOD /path`.
#[test]
fn the_api_page_names_every_route() {
    let page = include_str!("../../docs/api.md");
    let missing: Vec<String> = paiju::routes::ROUTES
        .iter()
        .map(|(m, p)| format!("{} {p}", m.to_uppercase()))
        .filter(|route| !page.contains(route.as_str()))
        .collect();
    assert!(missing.is_empty(), "docs/api.md does not name {missing:?}");
}
