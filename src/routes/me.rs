use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, put, web};
use serde::Deserialize;
use serde_json::json;
use sqlx::PgPool;

use crate::auth::{AuthUser, Jwt};
use crate::cursor::ListQuery;
use crate::error::{ApiError, ApiResult};
use crate::matches::lists;
use crate::matches::stream::Streams;

#[get("/v1/me")]
pub async fn me(pool: web::Data<PgPool>, user: AuthUser) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(crate::accounts::profile(&pool, user.id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerQuery {
    limit: Option<i64>,
    before: Option<i64>,
}

#[get("/v1/me/ledger")]
pub async fn ledger(
    pool: web::Data<PgPool>,
    user: AuthUser,
    q: web::Query<LedgerQuery>,
) -> ApiResult<HttpResponse> {
    let limit = q.limit.unwrap_or(50);
    if !(1..=500).contains(&limit) {
        return Err(ApiError::Validation(format!(
            "limit must be from 1 to 500, got {limit}"
        )));
    }
    let mut conn = pool.acquire().await?;
    let entries = crate::ledger::entries(&mut conn, user.id, limit + 1, q.before).await?;
    let (entries, next_before) = crate::cursor::page(entries, limit, |e| e.id);
    Ok(HttpResponse::Ok().json(json!({
        "entries": entries, "has_more": next_before.is_some(), "next_before": next_before,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    old_password: String,
    new_password: String,
}

/// Answers a new session: every token issued before the change is refused from now on. The
/// limiter counts these attempts with logins (a stolen token must not guess the password).
#[put(
    "/v1/me/password",
    wrap = "actix_web::middleware::from_fn(crate::metrics::rate_limit)"
)]
pub async fn change_password(
    pool: web::Data<PgPool>,
    jwt: web::Data<Jwt>,
    user: AuthUser,
    body: web::Json<PasswordChange>,
) -> ApiResult<HttpResponse> {
    let changed =
        crate::accounts::change_password(&pool, user.id, &body.old_password, &body.new_password)
            .await?;
    // At once here; other processes when the change's notification reaches them.
    jwt.revoked().refuse_before(user.id, changed.generation);
    tracing::info!(user_id = %user.id, "password changed; older tokens refused");
    Ok(HttpResponse::Ok().json(super::auth::session(&jwt, &changed)?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deletion {
    password: String,
}

#[delete(
    "/v1/me",
    wrap = "actix_web::middleware::from_fn(crate::metrics::rate_limit)"
)]
pub async fn delete_account(
    pool: web::Data<PgPool>,
    jwt: web::Data<Jwt>,
    user: AuthUser,
    body: web::Json<Deletion>,
) -> ApiResult<HttpResponse> {
    crate::accounts::delete(&pool, user.id, &body.password).await?;
    // At once here; other processes when the deletion's notification reaches them.
    jwt.revoked().add(user.id);
    tracing::info!(user_id = %user.id, "account deleted");
    Ok(HttpResponse::NoContent().finish())
}

#[get("/v1/me/matches")]
pub async fn matches(
    pool: web::Data<PgPool>,
    user: AuthUser,
    q: web::Query<ListQuery>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(lists::mine(&pool, user.id, &q).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamQuery {
    access_token: Option<String>,
    last_event_id: Option<i64>,
}

/// The caller's Server-Sent Events stream (`matches::stream`).
#[get("/v1/me/stream")]
pub async fn stream(
    req: HttpRequest,
    streams: web::Data<Streams>,
    q: web::Query<StreamQuery>,
) -> ApiResult<HttpResponse> {
    let user = crate::auth::authenticate_or_token(&req, q.access_token.as_deref()).await?;
    let header_id = match req.headers().get("Last-Event-ID") {
        None => None,
        Some(v) => Some(
            v.to_str()
                .ok()
                .and_then(|v| v.trim().parse::<i64>().ok())
                .filter(|id| *id >= 0)
                .ok_or_else(|| {
                    ApiError::BadRequest(
                        "Last-Event-ID must be the id of an event this stream sent".into(),
                    )
                })?,
        ),
    };
    let last_event_id = match (header_id, q.last_event_id) {
        (_, Some(id)) if id < 0 => {
            return Err(ApiError::Validation(format!(
                "last_event_id must not be negative, got {id}"
            )));
        }
        (Some(id), _) | (None, Some(id)) => Some(id),
        (None, None) => None,
    };
    let events = streams
        .into_inner()
        .open(user.id, user.generation, last_event_id)
        .await?;
    // The connection closes with the stream: a stream ended at shutdown leaves no idle
    // keep-alive connection for the server to wait on (nobody sends a request after a stream).
    Ok(HttpResponse::Ok()
        .force_close()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(events))
}
