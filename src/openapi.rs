//! The OpenAPI document, generated from the code and served at `/openapi.json`.
//!
//! - Paths, parameters, request bodies and responses come from each route's `#[utoipa::path]`
//!   and the request and response types' `ToSchema`, collected by registering the routes
//!   (`routes::api`) exactly as the server does.
//! - Every game adds what its engine's schemars types say (`games::DynGame::schemas`): options,
//!   actions, the state a seat sees, legal actions, hand results and event data. They become
//!   `<Game>…` components, and the views, actions and events that carry them are typed per
//!   game: `MatchView` is a `oneOf` of `<Game>MatchView` with a discriminator on `game`, and
//!   so is `EventPage`.
//!
//! `openapi/openapi.json` is a committed snapshot for readers and client generators; a test
//! fails when it differs from what this module generates (`PAIJU_WRITE_OPENAPI=1` rewrites it).

mod per_game;

use std::sync::LazyLock;

use serde_json::{Value, json};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "paiju",
        version = "1.0.0",
        description = "REST API of paiju (牌局), a server for Chinese regional card games. The \
            binding contract is api.md; this document describes the whole API and is generated \
            from the server's code. Errors are application/problem+json. Each game's view, \
            actions and events are typed: see the `<Game>…` schemas."
    ),
    servers((url = "http://127.0.0.1:8080")),
    security(("bearer" = [])),
    modifiers(&Bearer),
    components(
        responses(crate::error::ProblemResponse),
        schemas(
            crate::error::Problem,
            crate::matches::table::ViewBody,
            crate::matches::options::ShownOptions,
            crate::matches::stream::Hello,
            crate::matches::stream::MatchNews,
            crate::notices::Seated,
            crate::notices::TournamentTable,
            crate::notices::Eliminated,
            crate::notices::TournamentFinished,
            crate::notices::Rematch,
            crate::api_types::Card,
            crate::api_types::Resume,
        )
    ),
    tags(
        (name = "platform", description = "Health, this document and metrics"),
        (name = "accounts", description = "Registering, logging in, the caller's account"),
        (name = "admin", description = "Grants, roles and the audit trail (admin)"),
        (name = "matches", description = "Tables: create, join, follow, act, replay"),
        (name = "lobby", description = "Coin rooms (金币场)"),
        (name = "tournaments", description = "Knockout tournaments (比赛场)"),
    )
)]
struct Base;

/// The `bearer` scheme every operation uses unless it says otherwise.
struct Bearer;

impl Modify for Bearer {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        let components = api.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "the access_token of a session (register, login); the stream also \
                         takes it as ?access_token=",
                    ))
                    .build(),
            ),
        );
    }
}

/// The document, generated once per process.
pub fn document() -> &'static Value {
    static DOCUMENT: LazyLock<Value> = LazyLock::new(generate);
    &DOCUMENT
}

/// The document's text and route list, as the routes are given them at startup.
pub fn index() -> &'static crate::routes::ApiIndex {
    static INDEX: LazyLock<crate::routes::ApiIndex> =
        LazyLock::new(|| crate::routes::ApiIndex::new(text(), document()));
    &INDEX
}

/// The document as served and committed: keys sorted, two-space indent, a final newline.
pub fn text() -> &'static str {
    static TEXT: LazyLock<String> = LazyLock::new(|| {
        let mut s = serde_json::to_string_pretty(document()).expect("the document is JSON");
        s.push('\n');
        s
    });
    &TEXT
}

fn generate() -> Value {
    let (_, api) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(Base::openapi())
        .configure(crate::routes::api)
        .split_for_parts();
    let mut doc = serde_json::to_value(&api).expect("the document serializes");
    optional_parameters_are_absent(&mut doc);
    security_per_operation(&mut doc);
    answers_every_operation_may_give(&mut doc);
    per_game::add_games(&mut doc);
    sorted(doc)
}

/// `serde_json` without `preserve_order` keeps objects sorted; this rebuilds every object so
/// that the text does not depend on the order the parts were added in.
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut entries: Vec<(String, Value)> = o.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// An optional parameter is left out, never sent as null: its schema is the value's alone
/// (utoipa types an `Option<T>` parameter as T or null).
fn optional_parameters_are_absent(doc: &mut Value) {
    for op in operations(doc) {
        // utoipa writes an operation without parameters as `"parameters": null`.
        if let Some(o) = op.as_object_mut() {
            o.retain(|_, v| !v.is_null());
        }
        let params = op.get_mut("parameters").and_then(Value::as_array_mut);
        for p in params.into_iter().flatten() {
            if let Some(types) = p["schema"]["type"].as_array() {
                let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if kept.len() == 1 {
                    p["schema"]["type"] = kept[0].clone();
                }
            }
        }
    }
}

/// Each operation says whether it needs the bearer token: `[]` for the anonymous ones (utoipa
/// writes `[{}]`), `[{"bearer": []}]` for the rest, so that generators need not combine it with
/// the document's default (some ignore that default).
fn security_per_operation(doc: &mut Value) {
    let default = doc["security"].clone();
    for op in operations(doc) {
        let anonymous = op
            .get("security")
            .and_then(Value::as_array)
            .is_some_and(|s| {
                s.iter()
                    .all(|r| r.as_object().is_some_and(|r| r.is_empty()))
            });
        op["security"] = if anonymous {
            json!([])
        } else {
            default.clone()
        };
    }
}

/// The refusals any operation may answer beyond its own: 503 while the database does not
/// answer; 413 for a body over the limit; 401 without a valid token where one is needed.
fn answers_every_operation_may_give(doc: &mut Value) {
    let problem = json!({ "$ref": "#/components/responses/Problem" });
    let secured_by_default = doc["security"].as_array().is_some_and(|s| !s.is_empty());
    for op in operations(doc) {
        let has_body = op.get("requestBody").is_some();
        let secured = match op.get("security").and_then(Value::as_array) {
            Some(s) => s
                .iter()
                .any(|r| r.as_object().is_some_and(|r| !r.is_empty())),
            None => secured_by_default,
        };
        let responses = op["responses"].as_object_mut().expect("responses");
        let mut add = |status: &str| {
            responses.entry(status).or_insert_with(|| problem.clone());
        };
        add("503");
        if has_body {
            add("400");
            add("413");
        }
        if secured {
            add("401");
        }
    }
}

/// Every operation of the document.
fn operations(doc: &mut Value) -> impl Iterator<Item = &mut Value> {
    doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .flat_map(|ops| ops.as_object_mut().into_iter().flat_map(|o| o.values_mut()))
}
