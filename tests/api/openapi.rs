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
    // The served document is the generated one (not a file that could be stale).
    assert_eq!(&doc, paiju::openapi::document());
    // The web client's pages are served but are no API operation: the document leaves them out.
    for (_, page) in paiju::routes::PAGES {
        assert!(
            doc["paths"].get(*page).is_none(),
            "{page} is a page of the web client, not an API route"
        );
    }

    // Every listed route and page is really registered: an unregistered one answers "no route".
    let pages = paiju::routes::PAGES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()));
    for (method, path) in paiju::openapi::index()
        .routes()
        .iter()
        .cloned()
        .chain(pages)
    {
        if path == "/v1/me/stream" {
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

#[test]
fn every_schema_reference_resolves() {
    let doc = paiju::openapi::document();
    let text = paiju::openapi::text();
    for piece in text.split("\"$ref\": \"#/components/").skip(1) {
        let target = piece.split('"').next().unwrap();
        let mut node = &doc["components"];
        for part in target.split('/') {
            node = &node[part];
        }
        assert!(!node.is_null(), "dangling $ref {target}");
    }
}

/// The committed snapshot is the document the code generates. With `PAIJU_WRITE_OPENAPI=1`
/// the test writes the generated document into `openapi/openapi.json` instead of failing.
#[test]
fn committed_openapi_is_the_generated_document() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    let generated = paiju::openapi::text();
    if committed == generated {
        return;
    }
    if std::env::var_os("PAIJU_WRITE_OPENAPI").is_some() {
        std::fs::write(path, generated).unwrap();
        return;
    }
    let old: Value = serde_json::from_str(&committed).unwrap_or(Value::Null);
    let new = paiju::openapi::document();
    let stale: Vec<String> = ["paths", "components"]
        .iter()
        .flat_map(|part| {
            let keys: BTreeSet<&String> = new[*part]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k)
                .chain(old[*part].as_object().into_iter().flatten().map(|(k, _)| k))
                .collect();
            keys.into_iter()
                .filter(|k| old[*part][k.as_str()] != new[*part][k.as_str()])
                .map(|k| format!("{part}.{k}"))
                .collect::<Vec<_>>()
        })
        .collect();
    panic!(
        "openapi/openapi.json is not the document the code generates (differs at {stale:?}); \
         run `PAIJU_WRITE_OPENAPI=1 cargo test --test api openapi` and commit the result"
    );
}

/// `docs/api.md`, the page for client writers, names every route we serve as `METHOD /path`.
#[test]
fn the_api_page_names_every_route() {
    let page = include_str!("../../docs/api.md");
    let missing: Vec<String> = paiju::openapi::index()
        .routes()
        .iter()
        .map(|(m, p)| format!("{} {p}", m.to_uppercase()))
        .filter(|route| !page.contains(route.as_str()))
        .collect();
    assert!(missing.is_empty(), "docs/api.md does not name {missing:?}");
}

/// Every example in the document holds to the schema beside it: a client writer may copy any.
#[test]
fn every_example_is_valid() {
    let doc = paiju::openapi::document();
    let esc = |s: &str| s.replace('~', "~0").replace('/', "~1");
    let mut bad = Vec::new();
    let mut seen = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let at = format!("/paths/{}/{method}", esc(path));
            let mut contents = vec![(
                format!("{at}/requestBody/content"),
                &op["requestBody"]["content"],
            )];
            for (status, r) in op["responses"].as_object().unwrap() {
                contents.push((format!("{at}/responses/{status}/content"), &r["content"]));
            }
            for (pointer, content) in contents {
                for (media, c) in content.as_object().into_iter().flatten() {
                    let Some(example) = c.get("example") else {
                        continue;
                    };
                    seen += 1;
                    let schema = format!("{pointer}/{}/schema", esc(media));
                    let errs = crate::contract::errors(&schema, example);
                    if !errs.is_empty() {
                        bad.push(format!("{method} {path} {pointer}: {errs:?}"));
                    }
                }
            }
        }
    }
    for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
        for example in schema["examples"].as_array().into_iter().flatten() {
            seen += 1;
            let errs = crate::contract::errors(&format!("/components/schemas/{name}"), example);
            if !errs.is_empty() {
                bad.push(format!("components.schemas.{name}: {errs:?}"));
            }
        }
    }
    assert!(seen > 25, "only {seen} examples found");
    assert!(
        bad.is_empty(),
        "examples that fail their schema:\n{}",
        bad.join("\n")
    );
}

/// Client generators name a model after a schema's title or its component's name: no two
/// components may share either.
#[test]
fn schema_titles_are_unique() {
    let schemas = paiju::openapi::document()["components"]["schemas"]
        .as_object()
        .unwrap();
    let mut names = BTreeSet::new();
    for (name, schema) in schemas {
        let title = schema["title"].as_str().unwrap_or(name);
        assert!(
            names.insert(title.to_lowercase()),
            "two schemas are called {title}"
        );
    }
}

#[test]
fn paths_are_labelled_with_their_route_pattern() {
    let index = paiju::openapi::index();
    let id = "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b";
    assert_eq!(index.pattern_of("/healthz"), Some("/healthz"));
    assert_eq!(
        index.pattern_of(&format!("/v1/matches/{id}/actions")),
        Some("/v1/matches/{id}/actions")
    );
    assert_eq!(
        index.pattern_of(&format!("/v1/matches/{id}")),
        Some("/v1/matches/{id}")
    );
    assert_eq!(
        index.pattern_of("/v1/lobby/dazha/queue"),
        Some("/v1/lobby/{game}/queue")
    );
    assert_eq!(index.pattern_of("/play/"), Some("/play/"));
    assert_eq!(index.pattern_of("/play/app.js"), Some("/play/{file}"));
    assert_eq!(index.pattern_of("/v1/matches//actions"), None);
    assert_eq!(index.pattern_of(&format!("/v1/matches/{id}/nope")), None);
    assert_eq!(index.pattern_of("/v1/matches/x/actions/more"), None);
}

#[test]
fn the_methods_of_a_path_are_listed_for_allow() {
    let index = paiju::openapi::index();
    assert_eq!(index.methods_at("/v1/me"), ["GET", "DELETE"]);
    let id = "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b";
    assert_eq!(
        index.methods_at(&format!("/v1/tournaments/{id}/register")),
        ["POST", "DELETE"]
    );
    assert_eq!(index.methods_at("/play/style.css"), ["GET"]);
    assert!(index.methods_at("/v1/nothing").is_empty());
}
