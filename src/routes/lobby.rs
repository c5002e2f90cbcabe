use actix_web::{HttpResponse, delete, get, post, web};
use serde::Deserialize;
use sqlx::PgPool;

use crate::auth::AuthUser;
use crate::error::ApiResult;
use crate::matches::lobby::{self, LobbySettings};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Enqueue {
    stake: i64,
}

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

#[get("/v1/lobby/{game}/queue")]
pub async fn status(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(lobby::get(&pool, &user, &path).await?))
}

#[delete("/v1/lobby/{game}/queue")]
pub async fn leave(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    lobby::leave(&pool, &user, &path).await?;
    Ok(HttpResponse::NoContent().finish())
}
