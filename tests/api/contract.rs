//! The contract check every request of `TestApp::call` passes through: the request and the
//! response are validated against the OpenAPI document the server generates, for whatever the
//! test happens to do. A response the document does not describe (an undocumented status, a
//! body that fails its schema) fails the test that received it, and so does a request the
//! document calls invalid that the server nevertheless accepted.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// The validator of the schema at a JSON pointer into the document, compiled once.
fn validator(pointer: &str) -> Arc<jsonschema::Validator> {
    static CACHE: LazyLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> =
        LazyLock::new(Default::default);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(pointer.to_string())
        .or_insert_with(|| {
            // The document is the root resource, so `#/components/…` references resolve in it;
            // its other members are no JSON Schema keywords and are ignored.
            let mut root = paiju::openapi::document().clone();
            let fragment = pointer.replace('{', "%7B").replace('}', "%7D");
            root["$ref"] = json!(format!("#{fragment}"));
            root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
            let v = jsonschema::draft202012::options()
                .should_validate_formats(true)
                .build(&root)
                .unwrap_or_else(|e| panic!("the schema at {pointer} does not compile: {e}"));
            Arc::new(v)
        })
        .clone()
}

/// The errors of `instance` against the schema at `pointer`, as lines.
pub fn errors(pointer: &str, instance: &Value) -> Vec<String> {
    let v = validator(pointer);
    v.iter_errors(instance)
        .take(5)
        .map(|e| {
            let mut message = e.to_string();
            if message.len() > 300 {
                let mut cut = 300;
                while !message.is_char_boundary(cut) {
                    cut -= 1;
                }
                message.truncate(cut);
                message.push('…');
            }
            format!(
                "at {:?} (schema {:?}): {message}",
                e.instance_path().to_string(),
                e.schema_path().to_string()
            )
        })
        .collect()
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The JSON media type of `content_type`, if it is one.
fn json_type(content_type: &str) -> Option<&str> {
    let media = content_type.split(';').next()?.trim();
    (media == "application/json" || media == "application/problem+json").then_some(media)
}

/// Checks one exchange; panics naming what the document and the exchange disagree on.
pub fn check(
    method: &Method,
    path: &str,
    request: Option<&Value>,
    status: StatusCode,
    content_type: Option<&str>,
    body: &str,
) {
    let bare = path.split('?').next().unwrap_or(path);
    let Some(pattern) = paiju::openapi::index().pattern_of(bare) else {
        return; // An unrouted path: the 404 is the server's default, checked by its own tests.
    };
    let doc = paiju::openapi::document();
    let m = method.as_str().to_lowercase();
    let Some(op) = doc["paths"][pattern].get(&m) else {
        return; // 405: the method is not served here.
    };
    let op_pointer = format!("/paths/{}/{m}", escape(pattern));
    let exchange = format!("{method} {path} → {status}");

    if let (Some(req), Some(schema_at)) = (
        request,
        op["requestBody"]["content"]
            .get("application/json")
            .map(|_| format!("{op_pointer}/requestBody/content/application~1json/schema")),
    ) {
        let errs = errors(&schema_at, req);
        assert!(
            errs.is_empty() || status.is_client_error(),
            "{exchange}: the server accepted a request body the document refuses: {errs:?}\n{req}"
        );
    }

    let code = status.as_u16().to_string();
    let Some(response) = op["responses"].get(&code) else {
        if status.is_server_error() {
            panic!("{exchange}: a server error: {body}");
        }
        panic!("{exchange}: the document lists no {code} response for this operation");
    };
    let (response, response_pointer) = match response["$ref"].as_str() {
        Some(r) => {
            let name = r.trim_start_matches("#/components/responses/");
            (
                &doc["components"]["responses"][name],
                format!("/components/responses/{}", escape(name)),
            )
        }
        None => (response, format!("{op_pointer}/responses/{code}")),
    };
    let Some(content) = response["content"].as_object().filter(|c| !c.is_empty()) else {
        assert!(
            body.is_empty(),
            "{exchange}: the document describes no body, the server sent {body}"
        );
        return;
    };
    let Some(media) = content_type.and_then(json_type) else {
        let media = content_type.unwrap_or("none");
        let media = media.split(';').next().unwrap_or(media).trim();
        assert!(
            content.contains_key(media),
            "{exchange}: the document has no {media} body for this response"
        );
        return;
    };
    assert!(
        content.contains_key(media),
        "{exchange}: the document has no {media} body for this response (it has {:?})",
        content.keys().collect::<Vec<_>>()
    );
    let instance: Value = serde_json::from_str(body)
        .unwrap_or_else(|e| panic!("{exchange}: the {media} body is no JSON ({e}): {body}"));
    let errs = errors(
        &format!("{response_pointer}/content/{}/schema", escape(media)),
        &instance,
    );
    assert!(
        errs.is_empty(),
        "{exchange}: the response does not hold to the document: {errs:#?}\n{}",
        serde_json::to_string(&instance).unwrap_or_default()
    );
}
