use std::time::Duration;

use actix_web::http::header::{self, ContentType};
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Deserialize;

use sqlx::PgPool;
use uuid::Uuid;

use crate::auth::AuthUser;
use crate::cursor::ListQuery;
use crate::error::{ApiError, ApiResult, ProblemResponse};
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

#[utoipa::path(
    operation_id = "createMatch",
    tag = "matches",
    summary = "Create a match",
    description = "`seed` and `deck` are accepted from admins only. `buy_in` is the coins a player must hold to take a seat (games stake from the wallet as they play).",
    request_body(content = CreateMatch, example = json!({"game": "dazha", "options": {"hands": 8, "turn_timeout_secs": 20}})),
    responses(
        (status = 201, description = "The match view", body = crate::api_types::MatchView, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"), ("Location" = String, description = "where the created resource is read"))),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
#[post("/v1/matches")]
pub async fn create(
    pool: web::Data<PgPool>,
    runtime: web::Data<Runtime>,
    bots: web::Data<BotSettings>,
    user: AuthUser,
    body: web::Json<CreateMatch>,
) -> ApiResult<HttpResponse> {
    let t = matches::create(&pool, **bots, &user, body.into_inner()).await?;
    let view = runtime.committed(t, &user);
    let mut created = HttpResponse::Created();
    created.insert_header((header::LOCATION, format!("/v1/matches/{}", view.id())));
    Ok(view_with(created, view))
}

#[utoipa::path(
    operation_id = "listOpenMatches",
    tag = "matches",
    summary = "Open tables to join, or live tables to watch",
    description = "Tables waiting for players (the default) or being played (`status=playing`), newest first, with who sits where. Anyone signed in may list them; a caller not seated at a match gets its public view from GET /v1/matches/{id}.",
    params(
        ("game" = Option<String>, Query, description = "only this game"),
        ("status" = Option<String>, Query, description = "waiting (default), playing, or both comma-separated", max_length = 100),
        ("limit" = Option<i64>, Query, description = "matches per page", minimum = 1, maximum = 100, example = 20),
        ("before" = Option<String>, Query, description = "the next_before of the previous page", max_length = 100),
    ),
    responses(
        (status = 200, description = "A page of tables", body = lists::OpenMatchPage, example = json!({"has_more": false, "matches": [{"created_at": "2026-11-23T10:00:00Z", "game": "dazha", "hand_no": 0, "id": "3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b", "options": {"base": 1, "bomb_cap": 9, "buy_in": 0, "hands": null, "mode": "normal", "room": null, "turn_timeout_secs": 20}, "players": [{"bot": false, "seat": 0, "username": "alice"}, {"bot": false, "seat": 1, "username": "bob"}, {"bot": true, "seat": 3, "username": "bot_1a2b3c4d"}], "seats": 4, "status": "waiting", "taken": 3, "tournament_id": null, "version": 3}], "next_before": null})),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
#[get("/v1/matches")]
pub async fn list(
    pool: web::Data<PgPool>,
    _user: AuthUser,
    q: web::Query<ListQuery>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(lists::open(&pool, &q).await?))
}

#[utoipa::path(
    operation_id = "getHint",
    tag = "matches",
    summary = "The move the server's bot would make for the caller now",
    description = "A legal action for the caller's seat chosen by the game's bot policy (docs/rules/<game>.md § Bots and hints), with the version it was chosen at: post it as is to /actions. 409 not_your_turn when the seat need not act.",
    params(
        ("id" = Uuid, Path),
    ),
    responses(
        (status = 200, description = "A legal action", body = crate::matches::runtime::Hint, example = json!({"game": "dazha", "version": 12, "action": {"cards": ["3S", "3H"], "type": "play"}})),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
    ),
)]
#[get("/v1/matches/{id}/hint")]
pub async fn hint(
    runtime: web::Data<Runtime>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(runtime.hint(&user, path.into_inner()).await?))
}

#[utoipa::path(
    operation_id = "joinMatch",
    tag = "matches",
    summary = "Take a seat; the first hand is dealt when every seat is taken",
    params(
        ("id" = Uuid, Path),
    ),
    request_body(content = JoinMatch, example = json!({"seat": 2})),
    responses(
        (status = 200, description = "The view", body = crate::api_types::MatchView, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"))),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
#[post("/v1/matches/{id}/join")]
pub async fn join(
    pool: web::Data<PgPool>,
    runtime: web::Data<Runtime>,
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
    let t = matches::join(&pool, &user, path.into_inner(), req).await?;
    Ok(view_response(runtime.committed(t, &user)))
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

#[utoipa::path(
    operation_id = "leaveMatch",
    tag = "matches",
    summary = "Leave: before the first deal frees the seat; during play it is 逃跑 with the game's escape penalty",
    params(
        ("id" = Uuid, Path),
    ),
    responses(
        (status = 200, description = "The view (now as a spectator)", body = crate::api_types::MatchView, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"))),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
    ),
)]
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

#[utoipa::path(
    operation_id = "rematchMatch",
    tag = "matches",
    summary = "Ask the players of a finished match to play again at the same table",
    description = "Only a player seated at the match, once it is `finished`; a tournament table or a coin room offers none (409 `rematch_not_offered`). The first call makes the new match (201): the same game, seat count and options (not a fixed seed or deck), the caller in their old seat, bots made anew in theirs; every other player's old seat is kept for them for 300 s, and their stream gets a `rematch` notice `{match_id, from, game, seat, by}`: they accept with POST /v1/matches/{new}/join (a stranger asking for a kept seat is 409 `seat_reserved`). Every later call, by any of the players, answers 200 with the same new match. The old match's entry in GET /v1/me/matches shows it as `rematch`.",
    params(
        ("id" = Uuid, Path, description = "the finished match"),
    ),
    responses(
        (status = 201, description = "The new match, as the caller sees it", body = crate::api_types::MatchView, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"), ("Location" = String, description = "where the created resource is read"))),
        (status = 200, description = "The rematch made earlier, as the caller sees it", body = crate::api_types::MatchView, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"))),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
#[post("/v1/matches/{id}/rematch")]
pub async fn rematch(
    pool: web::Data<PgPool>,
    bots: web::Data<BotSettings>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let (made, view) = matches::rematch::rematch(&pool, **bots, &user, path.into_inner()).await?;
    if !made {
        return Ok(view_response(view));
    }
    let mut created = HttpResponse::Created();
    created.insert_header((header::LOCATION, format!("/v1/matches/{}", view.id())));
    Ok(view_with(created, view))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewQuery {
    wait_version: Option<i64>,
    timeout: Option<u64>,
}

#[utoipa::path(
    operation_id = "getMatch",
    tag = "matches",
    summary = "The caller's view of a match (public view if not seated)",
    params(
        ("id" = Uuid, Path),
        ("wait_version" = Option<i64>, Query, description = "long-poll: answer as soon as the version is above this"),
        ("timeout" = Option<i64>, Query, description = "long-poll limit in seconds (default 30)", minimum = 0, maximum = 30),
        ("If-None-Match" = Option<String>, Header),
    ),
    responses(
        (status = 200, description = "The view", body = crate::api_types::MatchView, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"))),
        (status = 304, description = "If-None-Match matched the current version"),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
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

#[utoipa::path(
    operation_id = "submitAction",
    tag = "matches",
    summary = "Submit one action for the caller's seat",
    description = "409 `version_conflict` carries the current view under `view`; 409 `not_your_turn`; 422 `illegal_action` names the rule broken. `{\"type\":\"resume\"}` ends automatic play (托管) for the caller's seat.",
    params(
        ("id" = Uuid, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "the same key from the same user replays the first response; a key is kept 24 hours, after which the same key is a new request", min_length = 1, max_length = 64),
    ),
    request_body(content = ActionRequest, example = json!({"version": 12, "action": {"cards": ["3S", "3H"], "type": "play"}})),
    responses(
        (status = 200, description = "The new view", body = crate::api_types::MatchView, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"))),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
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

#[utoipa::path(
    operation_id = "listMatchEvents",
    tag = "matches",
    summary = "Events after `after`, as visible to the caller",
    params(
        ("id" = Uuid, Path),
        ("after" = Option<i64>, Query, description = "last seq already seen", minimum = 0, example = 0),
        ("limit" = Option<i64>, Query, description = "events per page", minimum = 1, maximum = 1000, example = 500),
    ),
    responses(
        (status = 200, description = "Events", body = matches::EventPage, example = json!({"events": [{"at": "2026-11-23T10:00:05Z", "data": {"user_id": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "username": "dave"}, "hand_no": 0, "seat": 3, "seq": 41, "type": "joined"}, {"at": "2026-11-23T10:00:05Z", "data": {"hand_no": 1, "shuffle_commitment": "9b74c9897bac770ffc029102a200c5de0b1e2f6ea2f1d4c0e5b6a7f8091a2b3c"}, "hand_no": 1, "seat": null, "seq": 42, "type": "shuffle_committed"}], "has_more": false, "next_after": 42, "game": "dazha"})),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
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

#[utoipa::path(
    operation_id = "getReplay",
    tag = "matches",
    summary = "Every finished hand: revealed seed, dealt deck, action log and result",
    params(
        ("id" = Uuid, Path),
    ),
    responses(
        (status = 200, description = "Replay", body = matches::Replay, example = json!({"game": "dazha", "hands": [], "match_id": "3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b", "options": {"base": 1, "bomb_cap": 9, "buy_in": 0, "hands": null, "mode": "normal", "room": null, "turn_timeout_secs": 20}, "seats": 4, "shuffle": "Fisher-Yates over ChaCha20 seeded with the 32-byte seed; the deck order before shuffling is the game's deck listing (see docs/rules)"})),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
    ),
)]
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
