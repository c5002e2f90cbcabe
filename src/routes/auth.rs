use actix_web::{HttpResponse, post, web};
use serde_json::json;
use sqlx::PgPool;

use crate::accounts::{self, Credentials, User};
use crate::auth::{Jwt, Role};
use crate::error::ApiResult;

pub fn session(jwt: &Jwt, user: &User) -> ApiResult<serde_json::Value> {
    Ok(json!({
        "user": user,
        "access_token": jwt.issue(user.id, &user.username, user.role, user.generation)?,
        "token_type": "Bearer",
    }))
}

// The limiter wraps the route itself, so it runs for every spelling of the path the router
// accepts (percent-encoded letters included).
#[post(
    "/v1/auth/register",
    wrap = "actix_web::middleware::from_fn(crate::metrics::rate_limit)"
)]
pub async fn register(
    pool: web::Data<PgPool>,
    jwt: web::Data<Jwt>,
    body: web::Json<Credentials>,
) -> ApiResult<HttpResponse> {
    body.check_new()?;
    let user = accounts::create(&pool, &body.username, &body.password, Role::Player).await?;
    tracing::info!(user_id = %user.id, username = %user.username, "registered");
    Ok(HttpResponse::Created()
        .insert_header(("Location", "/v1/me"))
        .json(session(&jwt, &user)?))
}

#[post(
    "/v1/auth/login",
    wrap = "actix_web::middleware::from_fn(crate::metrics::rate_limit)"
)]
pub async fn login(
    pool: web::Data<PgPool>,
    jwt: web::Data<Jwt>,
    body: web::Json<Credentials>,
) -> ApiResult<HttpResponse> {
    let user = accounts::authenticate(&pool, &body).await?;
    Ok(HttpResponse::Ok().json(session(&jwt, &user)?))
}
