use actix_web::{HttpResponse, delete, get, post, web};
use serde::Deserialize;
use sqlx::PgPool;

use crate::auth::AuthUser;
use crate::error::{ApiResult, ProblemResponse};
use crate::matches::lobby::{self, LobbySettings};

/// The stake (底注) of the coin room to queue for.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Enqueue {
    #[schema(minimum = 1, maximum = 1_000_000_000)]
    stake: i64,
}

#[utoipa::path(
    operation_id = "joinQueue",
    tag = "lobby",
    summary = "Queue for a coin room (金币场) at a stake; four players of one stake make a match with random seating",
    params(
        ("game" = String, Path, description = "a game with coin rooms"),
    ),
    request_body(content = Enqueue, example = json!({"stake": 2})),
    responses(
        (status = 201, description = "The caller's queue entry", body = lobby::QueueEntry, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"), ("Location" = String, description = "where the created resource is read"))),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
#[post("/v1/lobby/{game}/queue")]
pub async fn enqueue(
    pool: web::Data<PgPool>,
    settings: web::Data<LobbySettings>,
    user: AuthUser,
    path: web::Path<String>,
    body: web::Json<Enqueue>,
) -> ApiResult<HttpResponse> {
    let queued = lobby::enqueue(&pool, &settings, &user, &path, body.stake).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/lobby/{}/queue", path.as_str())))
        .json(queued))
}

#[utoipa::path(
    operation_id = "getQueueEntry",
    tag = "lobby",
    summary = "The caller's queue entry: queued, or matched with the match id",
    params(
        ("game" = String, Path, description = "a game with coin rooms"),
    ),
    responses(
        (status = 200, description = "Queue entry", body = lobby::QueueEntry, example = json!({"game": "dazha", "match_id": null, "queued_at": "2026-11-23T10:00:00Z", "stake": 2, "status": "queued", "waiting": 3})),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
    ),
)]
#[get("/v1/lobby/{game}/queue")]
pub async fn status(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(lobby::get(&pool, &user, &path).await?))
}

#[utoipa::path(
    operation_id = "leaveQueue",
    tag = "lobby",
    summary = "Leave the queue",
    params(
        ("game" = String, Path, description = "a game with coin rooms"),
    ),
    responses(
        (status = 204, description = "Left the queue"),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
    ),
)]
#[delete("/v1/lobby/{game}/queue")]
pub async fn leave(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    lobby::leave(&pool, &user, &path).await?;
    Ok(HttpResponse::NoContent().finish())
}
