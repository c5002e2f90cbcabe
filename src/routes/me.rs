use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, put, web};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;

use crate::auth::{AuthUser, Jwt};
use crate::cursor::ListQuery;
use crate::error::{ApiError, ApiResult, ProblemResponse};
use crate::ledger::Entry;
use crate::matches::lists;
use crate::matches::lists::MyMatchPage;
use crate::matches::stream::Streams;
use crate::routes::auth::Session;

#[utoipa::path(
    operation_id = "getMe",
    tag = "accounts",
    summary = "The caller's account, coins and 积分 per game",
    responses(
        (status = 200, description = "Account", body = crate::accounts::Profile, example = json!({"coins": 950, "id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "role": "player", "scores": {"dazha": 12}, "username": "alice"})),
        (status = 401, response = ProblemResponse),
    ),
)]
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

#[utoipa::path(
    operation_id = "getMyLedger",
    tag = "accounts",
    summary = "The caller's ledger entries, newest first",
    params(
        ("limit" = Option<i64>, Query, description = "entries per page", minimum = 1, maximum = 500, example = 50),
        ("before" = Option<i64>, Query, description = "only entries with a smaller id (paging)"),
    ),
    responses(
        (status = 200, description = "Entries", body = LedgerPage, example = json!({"entries": [{"amount": -50, "balance_after": 950, "created_at": "2026-11-23T10:00:00Z", "hand_no": null, "id": 42, "match_id": null, "note": null, "reason": "tournament_fee", "tournament_id": "9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b"}], "has_more": false, "next_before": null})),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
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
    Ok(HttpResponse::Ok().json(LedgerPage {
        entries,
        has_more: next_before.is_some(),
        next_before,
    }))
}

/// One page of the caller's ledger, newest first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct LedgerPage {
    pub entries: Vec<Entry>,
    /// More entries below this page.
    pub has_more: bool,
    /// Pass as `before` for the next page; null on the last.
    pub next_before: Option<i64>,
}

/// A new password for the caller, with the current one.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    old_password: String,
    /// At least 8 characters, at most 1024 bytes.
    #[schema(min_length = 8, max_length = 1024)]
    new_password: String,
}

// Answers a new session: every token issued before the change is refused from now on. The
// limiter counts these attempts with logins (a stolen token must not guess the password).
#[utoipa::path(
    operation_id = "changePassword",
    tag = "accounts",
    summary = "Change the password (the old one is required); older tokens are revoked",
    request_body(content = PasswordChange, example = json!({"new_password": "battery staple", "old_password": "correct horse"})),
    responses(
        (status = 200, description = "Changed: a new session; every token issued before the change is refused from now on", body = Session),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
        (status = 429, response = ProblemResponse),
    ),
)]
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

/// Closing the caller's account: its password, again.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Deletion {
    password: String,
}

#[utoipa::path(
    operation_id = "deleteAccount",
    tag = "accounts",
    summary = "Delete the caller's account: personal data goes, coins left go to the house (account_closed), the ledger keeps anonymised rows",
    request_body(content = Deletion, example = json!({"password": "correct horse"})),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
        (status = 429, response = ProblemResponse),
    ),
)]
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

#[utoipa::path(
    operation_id = "listMyMatches",
    tag = "matches",
    summary = "The matches the caller sits at, newest first",
    description = "Every match the caller holds a seat at (a seat left before the start is gone), with whose turn it is: what a client reinstalled mid-hand needs to find its games again. `status` takes one status or several comma-separated (waiting, playing, finished, aborted).",
    params(
        ("game" = Option<String>, Query, description = "only this game"),
        ("status" = Option<String>, Query, description = "only these statuses, comma-separated", max_length = 100),
        ("limit" = Option<i64>, Query, description = "matches per page", minimum = 1, maximum = 100, example = 20),
        ("before" = Option<String>, Query, description = "the next_before of the previous page", max_length = 100),
    ),
    responses(
        (status = 200, description = "A page of matches", body = MyMatchPage, example = json!({"has_more": false, "matches": [{"created_at": "2026-11-23T10:00:00Z", "deadline": "2026-11-23T10:15:20Z", "game": "dazha", "hand_no": 1, "id": "3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b", "rematch": null, "seat": 0, "seats": 4, "status": "playing", "to_act": [0], "tournament_id": null, "version": 12, "your_turn": true}], "next_before": null})),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
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

// The caller's Server-Sent Events stream (`matches::stream`).
#[utoipa::path(
    operation_id = "streamMyEvents",
    tag = "accounts",
    summary = "The caller's event stream (Server-Sent Events)",
    description = "One Server-Sent Events stream per player (docs/api.md § The player's stream). Each `event:` and its `data:` line (JSON) are the schema `StreamEvent`, told apart by `event`. Events:\n- `hello` on every (re)connect: `{user_id, matches: [MatchNews]}`, the matches the caller sits at that are not over;\n- `match`: a followed match has a new version: `MatchNews` = `{match_id, version, status, hand_no, to_act, your_turn, deadline, view}`, where `view` is the caller's `MatchView` (what GET /v1/matches/{id} answers them) at `version` or newer, so no GET need follow;\n- the caller's notices, durable and resumable: `seated` `{match_id, game, seat, via: create|join|lobby|tournament, at}` (the stream then follows that match), `tournament_table` `{tournament_id, round, table_no, match_id, at}`, `eliminated` `{tournament_id, round, escaped, at}`, `tournament_finished` `{tournament_id, winner, at}`;\n- `: ping` comments as heartbeats (PAIJU_STREAM_HEARTBEAT_SECS).\nEvery event's `id` is the last notice sent: reconnect with `Last-Event-ID` (or `last_event_id=`) to get every notice after it (kept 7 days). Browsers' EventSource cannot send headers: pass the token as `access_token=`. At most PAIJU_STREAMS_PER_USER streams per account (429 beyond). Fed by PostgreSQL notifications, so moves made through any server process reach every stream.",
    params(
        ("access_token" = Option<String>, Query, description = "the bearer token, for clients that cannot send an Authorization header", max_length = 4096),
        ("last_event_id" = Option<i64>, Query, description = "resume after this event id (as the Last-Event-ID header)", minimum = 0),
        ("Last-Event-ID" = Option<String>, Header, description = "resume after this event id", max_length = 20),
    ),
    responses(
        (status = 200, description = "The stream (never ends while the client reads)", body = String, content_type = "text/event-stream", headers(("Cache-Control" = String, description = "no-cache")), example = json!("retry: 2000\n\nid: 7\nevent: hello\ndata: {\"user_id\":\"7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b\",\"matches\":[]}\n\n")),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
        (status = 429, description = "The account has PAIJU_STREAMS_PER_USER live streams already (streams whose clients went away were probed first and freed)", body = crate::error::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "seconds to wait before opening again"))),
    ),
)]
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
    let events = streams.into_inner().open(user, last_event_id).await?;
    // The connection closes with the stream: a stream ended at shutdown leaves no idle
    // keep-alive connection for the server to wait on (nobody sends a request after a stream).
    Ok(HttpResponse::Ok()
        .force_close()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(events))
}
