//! HTTP routes, one file per resource. The API's routes are registered once (`api`), and the
//! OpenAPI document is generated from that registration (`openapi`), which gives the routes
//! its text and every (method, path) it lists back at startup (`ApiIndex`). `PAGES` lists the
//! web client's pages (`play`), served beside the API and not part of its document.

pub mod admin;
pub mod auth;
pub mod games;
pub mod health;
pub mod leaderboards;
pub mod lobby;
pub mod matches;
pub mod me;
pub mod play;
pub mod tournaments;

use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiError;

/// Largest JSON body we read (a 216-card deck array is about 1.5 KB).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

pub use play::PAGES;

/// What the routes know of the API document generated from them (`openapi::index`): its
/// text, served at `/openapi.json`, and every (method, path) it lists. Given to the app at
/// startup, since the document is generated from the routes and they cannot read it themselves.
pub struct ApiIndex {
    pub text: &'static str,
    routes: Vec<(String, String)>,
}

impl ApiIndex {
    /// The index of `document` (as JSON) whose text is `text`.
    pub fn new(text: &'static str, document: &serde_json::Value) -> ApiIndex {
        let routes = document["paths"]
            .as_object()
            .into_iter()
            .flatten()
            .flat_map(|(path, ops)| {
                ops.as_object()
                    .into_iter()
                    .flatten()
                    .map(move |(method, _)| (method.clone(), path.clone()))
            })
            .collect();
        ApiIndex { text, routes }
    }

    /// Every (method, path) of the API, as the document lists them.
    pub fn routes(&self) -> &[(String, String)] {
        &self.routes
    }

    /// Every (method, path) served: the API's routes and the pages.
    fn served(&self) -> impl Iterator<Item = (&str, &str)> {
        self.routes
            .iter()
            .map(|(m, p)| (m.as_str(), p.as_str()))
            .chain(PAGES.iter().copied())
    }

    /// The pattern of the API or of `PAGES` that serves `path` (any method), without actix's
    /// regex matching: the metrics label every request with it.
    pub fn pattern_of(&self, path: &str) -> Option<&str> {
        self.served()
            .map(|r| r.1)
            .find(|pattern| matches(pattern, path))
    }

    /// The methods served at `path` (for `Allow`), upper case.
    pub fn methods_at(&self, path: &str) -> Vec<String> {
        const ORDER: [&str; 5] = ["get", "post", "put", "patch", "delete"];
        let mut methods: Vec<&str> = self
            .served()
            .filter(|(_, pattern)| matches(pattern, path))
            .map(|(m, _)| m)
            .collect();
        methods.sort_by_key(|m| ORDER.iter().position(|o| o == m));
        methods.into_iter().map(str::to_uppercase).collect()
    }
}

fn matches(pattern: &str, path: &str) -> bool {
    let mut want = pattern.split('/');
    let mut got = path.split('/');
    loop {
        match (want.next(), got.next()) {
            (None, None) => return true,
            (Some(w), Some(g)) if w == g || (w.starts_with('{') && !g.is_empty()) => {}
            _ => return false,
        }
    }
}

/// Registers the API and the web client's pages.
pub fn configure(cfg: &mut web::ServiceConfig) {
    api(&mut utoipa_actix_web::service_config::ServiceConfig::new(
        cfg,
    ));
    cfg.service(play::root)
        .service(play::index)
        .service(play::file);
}

/// Registers the API's routes; the OpenAPI document is collected from the same registration
/// (`openapi::document`), so a route cannot be served without being documented.
pub fn api(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.app_data(
        web::JsonConfig::default()
            .limit(MAX_BODY_BYTES)
            .error_handler(json_error),
    )
    .app_data(web::QueryConfig::default().error_handler(query_error))
    .app_data(web::PathConfig::default().error_handler(path_error))
    // actix tries the routes in this order: the ones every move uses first.
    .service(matches::act)
    .service(matches::show)
    .service(health::healthz)
    .service(health::openapi)
    .service(games::list_games)
    .service(crate::metrics::scrape)
    .service(auth::register)
    .service(auth::login)
    .service(me::me)
    .service(me::ledger)
    .service(me::change_password)
    .service(me::delete_account)
    .service(me::matches)
    .service(me::stream)
    .service(admin::grant)
    .service(admin::set_role)
    .service(admin::find_user)
    .service(admin::show_user)
    .service(admin::audit)
    .service(matches::create)
    .service(matches::list)
    .service(matches::hint)
    .service(matches::join)
    .service(matches::leave)
    .service(matches::rematch)
    .service(matches::events)
    .service(matches::replay)
    .service(leaderboards::show)
    .service(lobby::enqueue)
    .service(lobby::status)
    .service(lobby::leave)
    .service(tournaments::create)
    .service(tournaments::list)
    .service(tournaments::detail)
    .service(tournaments::register)
    .service(tournaments::withdraw)
    .service(tournaments::start)
    .service(tournaments::standings)
    .service(tournaments::edit)
    .service(tournaments::cancel);
}

fn json_error(err: JsonPayloadError, _: &HttpRequest) -> actix_web::Error {
    match err {
        JsonPayloadError::Overflow { limit }
        | JsonPayloadError::OverflowKnownLength { limit, .. } => {
            ApiError::PayloadTooLarge(format!("the body is larger than {limit} bytes")).into()
        }
        JsonPayloadError::ContentType => {
            ApiError::BadRequest("the body must be JSON with Content-Type: application/json".into())
                .into()
        }
        JsonPayloadError::Deserialize(e) => {
            ApiError::BadRequest(format!("invalid JSON body: {e}")).into()
        }
        other => ApiError::BadRequest(format!("could not read the body: {other}")).into(),
    }
}

fn query_error(err: QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    ApiError::BadRequest(format!("invalid query string: {err}")).into()
}

fn path_error(err: PathError, req: &HttpRequest) -> actix_web::Error {
    ApiError::NotFound(format!("nothing at {}: {err}", req.path())).into()
}

/// Every request no route matched: 405 with `Allow` when the path is served with other
/// methods, else 404.
pub async fn no_route(req: HttpRequest, index: web::Data<&'static ApiIndex>) -> HttpResponse {
    let allowed = index.methods_at(req.path());
    if allowed.is_empty() {
        return actix_web::ResponseError::error_response(&ApiError::NotFound(format!(
            "no route for {} {}",
            req.method(),
            req.path()
        )));
    }
    let allow = allowed.join(", ");
    let mut res = actix_web::ResponseError::error_response(&ApiError::MethodNotAllowed(format!(
        "{} is not served at {}; allowed: {allow}",
        req.method(),
        req.path()
    )));
    if let Ok(v) = actix_web::http::header::HeaderValue::from_str(&allow) {
        res.headers_mut().insert(actix_web::http::header::ALLOW, v);
    }
    res
}
