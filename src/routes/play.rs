//! The reference web client (docs/web-client.md): the static files under `web/`, built into the
//! binary so the server serves them from any working directory. A file is found by its exact
//! name in `FILES`, never by a path on disk, so no spelling of `..` can reach anything else.

use std::sync::LazyLock;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ApiResult};

/// The client's routes: served beside the API, kept out of its OpenAPI document (a page is
/// no operation a client calls), and known to the metrics and the 405 answers.
pub const PAGES: &[(&str, &str)] = &[("get", "/play"), ("get", "/play/"), ("get", "/play/{file}")];

/// Every file of the client: name, content type, bytes.
const FILES: &[(&str, &str, &[u8])] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_bytes!("../../web/index.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/app.js"),
    ),
    (
        "api.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/api.js"),
    ),
    (
        "cards.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/cards.js"),
    ),
    (
        "actions.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/actions.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_bytes!("../../web/style.css"),
    ),
];

/// Each file's `ETag`: a digest of its bytes, so a new build's files replace cached ones.
static ETAGS: LazyLock<Vec<String>> = LazyLock::new(|| {
    FILES
        .iter()
        .map(|(_, _, bytes)| format!("\"{}\"", &hex::encode(Sha256::digest(bytes))[..16]))
        .collect()
});

/// What the pages may load: only this origin's scripts, styles and API (and inline SVG cards).
const CSP: &str = "default-src 'self'; img-src 'self' data:; object-src 'none'; \
                   base-uri 'none'; frame-ancestors 'none'";

#[get("/play")]
pub async fn root() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((header::LOCATION, "/play/"))
        .finish()
}

#[get("/play/")]
pub async fn index(req: HttpRequest) -> ApiResult<HttpResponse> {
    serve(&req, "index.html")
}

#[get("/play/{file}")]
pub async fn file(req: HttpRequest, path: web::Path<String>) -> ApiResult<HttpResponse> {
    serve(&req, &path.into_inner())
}

fn serve(req: &HttpRequest, name: &str) -> ApiResult<HttpResponse> {
    let Some(i) = FILES.iter().position(|(n, _, _)| *n == name) else {
        return Err(ApiError::NotFound(format!(
            "the web client has no file {name:?}"
        )));
    };
    let (_, content_type, bytes) = FILES[i];
    let etag = &ETAGS[i];
    let unchanged = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| h.split(',').any(|t| t.trim() == etag));
    let mut res = if unchanged {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    // `no-cache`: a browser keeps the file but asks again (a 304 when unchanged), so a new
    // server version's client is picked up at once.
    res.insert_header((header::ETAG, etag.as_str()))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP));
    if unchanged {
        return Ok(res.finish());
    }
    Ok(res.content_type(content_type).body(bytes))
}
