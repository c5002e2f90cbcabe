use std::time::Duration;

use actix_web::http::header::{self, ContentType};
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Deserialize;

use sqlx::PgPool;
use uuid::Uuid;

use crate::auth::AuthUser;
use crate::cursor::ListQuery;
use crate::error::{ApiError, ApiResult};
use crate::matches::lists;
use crate::matches::runtime::Runtime;
use crate::matches::view::View;
use crate::matches::{self, ActionRequest, BotSettings, CreateMatch, JoinMatch};

const MAX_WAIT_SECS: u64 = 30;

fn view_response(view: View) -> HttpResponse {
    view_with(HttpResponse::Ok(), view)
}

/// A view's response: its version as the `ETag`, and `Cache-Control: private, no-cache` (a
/// view is one seat's: no shared cache may keep it, and a client's copy is revalidated).
fn view_with(mut builder: actix_web::HttpResponseBuilder, view: View) -> HttpResponse {
    builder
        .insert_header((header::ETAG, etag(&view)))
        .insert_header((header::CACHE_CONTROL, "private, no-cache"))
        .content_type(ContentType::json())
        .body(view.into_json())
}

fn etag(view: &View) -> String {
    format!("\"{}\"", view.version())
}

/// Whether an `If-None-Match` value names `etag`, compared weakly (RFC 9110 § 13.1.2): a proxy
/// that compresses the body sends the validator back as `W/"7"`.
fn none_match(header: &str, etag: &str) -> bool {
    header
        .split(',')
        .map(str::trim)
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == etag)
}

#[post("/v1/matches")]
pub async fn create(
    pool: web::Data<PgPool>,
    bots: web::Data<BotSettings>,
    user: AuthUser,
    body: web::Json<CreateMatch>,
) -> ApiResult<HttpResponse> {
    let view = matches::create(&pool, **bots, &user, body.into_inner()).await?;
    let mut created = HttpResponse::Created();
    created.insert_header((header::LOCATION, format!("/v1/matches/{}", view.id())));
    Ok(view_with(created, view))
}

#[get("/v1/matches")]
pub async fn list(
    pool: web::Data<PgPool>,
    _user: AuthUser,
    q: web::Query<ListQuery>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(lists::open(&pool, &q).await?))
}

#[get("/v1/matches/{id}/hint")]
pub async fn hint(
    runtime: web::Data<Runtime>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(runtime.hint(&user, path.into_inner()).await?))
}

#[post("/v1/matches/{id}/join")]
pub async fn join(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
    body: Option<web::Json<JoinMatch>>,
    req: HttpRequest,
) -> ApiResult<HttpResponse> {
    // The body is optional, but one that is sent must be a valid `JoinMatch` (a seat of -1 is
    // refused, not read as "any seat"): `Option<Json>` alone would take a body that fails to
    // parse for no body at all.
    let req = match body {
        Some(b) => b.into_inner(),
        None if sent_a_body(&req) => {
            // Read again through the app's JsonConfig, for its problem+json answer.
            return Err(ApiError::BadRequest(
                "invalid JSON body: it must be an object like {\"seat\": 0, \"buy_in\": 100} \
                 with a seat from 0 and a buy_in from 0, or nothing"
                    .into(),
            ));
        }
        None => JoinMatch {
            seat: None,
            buy_in: None,
        },
    };
    Ok(view_response(
        matches::join(&pool, &user, path.into_inner(), req).await?,
    ))
}

/// Whether the request came with a body (a length above zero, or chunked).
fn sent_a_body(req: &HttpRequest) -> bool {
    let length = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    match length {
        Some(n) => n > 0,
        None => req.headers().contains_key(header::TRANSFER_ENCODING),
    }
}

#[post("/v1/matches/{id}/leave")]
pub async fn leave(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(view_response(
        matches::leave(&pool, &user, path.into_inner()).await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewQuery {
    wait_version: Option<i64>,
    timeout: Option<u64>,
}

#[get("/v1/matches/{id}")]
pub async fn show(
    req: HttpRequest,
    runtime: web::Data<Runtime>,
    user: AuthUser,
    path: web::Path<Uuid>,
    q: web::Query<ViewQuery>,
) -> ApiResult<HttpResponse> {
    let wait = match (q.wait_version, q.timeout) {
        (Some(v), t) => {
            let t = t.unwrap_or(MAX_WAIT_SECS);
            if t > MAX_WAIT_SECS {
                return Err(ApiError::Validation(format!(
                    "timeout must be at most {MAX_WAIT_SECS} seconds, got {t}"
                )));
            }
            Some((v, Duration::from_secs(t)))
        }
        (None, Some(_)) => {
            return Err(ApiError::Validation(
                "timeout goes with wait_version".into(),
            ));
        }
        (None, None) => None,
    };
    let view = runtime.get(&user, path.into_inner(), wait).await?;
    let etag = etag(&view);
    let unchanged = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| none_match(h, &etag));
    if unchanged {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag))
            .insert_header((header::CACHE_CONTROL, "private, no-cache"))
            .finish());
    }
    Ok(view_response(view))
}

#[post("/v1/matches/{id}/actions")]
pub async fn act(
    req: HttpRequest,
    runtime: web::Data<Runtime>,
    user: AuthUser,
    path: web::Path<Uuid>,
    body: web::Json<ActionRequest>,
) -> ApiResult<HttpResponse> {
    let key = crate::idempotency::key_of(&req)?;
    if !body.action.is_object() {
        return Err(ApiError::BadRequest(
            "action must be an object like {\"type\": \"…\", …}".into(),
        ));
    }
    let view = runtime
        .act(&user, path.into_inner(), body.into_inner(), key)
        .await?;
    Ok(view_response(view))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    after: Option<i64>,
    limit: Option<i64>,
}

#[get("/v1/matches/{id}/events")]
pub async fn events(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
    q: web::Query<EventsQuery>,
) -> ApiResult<HttpResponse> {
    let limit = q.limit.unwrap_or(500);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::Validation(format!(
            "limit must be from 1 to 1000, got {limit}"
        )));
    }
    let after = q.after.unwrap_or(0);
    if after < 0 {
        return Err(ApiError::Validation(format!(
            "after must not be negative, got {after}"
        )));
    }
    Ok(HttpResponse::Ok()
        .json(matches::events(&pool, &user, path.into_inner(), after, limit).await?))
}

#[get("/v1/matches/{id}/replay")]
pub async fn replay(
    pool: web::Data<PgPool>,
    _user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(matches::replay(&pool, path.into_inner()).await?))
}

#[cfg(test)]
mod tests {
    use super::none_match;

    #[test]
    fn if_none_match_compares_weakly() {
        assert!(none_match("\"7\"", "\"7\""));
        assert!(none_match("W/\"7\"", "\"7\""));
        assert!(none_match("\"5\", W/\"7\"", "\"7\""));
        assert!(none_match("*", "\"7\""));
        assert!(!none_match("\"8\"", "\"7\""));
        assert!(!none_match("W/\"77\"", "\"7\""));
    }
}
