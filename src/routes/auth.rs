use actix_web::{HttpResponse, post, web};
use serde::Serialize;
use sqlx::PgPool;

use crate::accounts::{self, Credentials, User};
use crate::auth::{Jwt, Role};
use crate::error::{ApiResult, ProblemResponse};

/// A signed-in session: the account and a bearer token for it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Session {
    pub user: User,
    /// Send as `Authorization: Bearer <access_token>`; it expires after PAIJU_TOKEN_TTL_SECS.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
}

pub fn session(jwt: &Jwt, user: &User) -> ApiResult<Session> {
    Ok(Session {
        user: user.clone(),
        access_token: jwt.issue(user.id, &user.username, user.role, user.generation)?,
        token_type: "Bearer",
    })
}

// The limiter wraps the route itself, so it runs for every spelling of the path the router
// accepts (percent-encoded letters included).
#[utoipa::path(
    operation_id = "register",
    tag = "accounts",
    summary = "Create a player account",
    request_body(content = Credentials, example = json!({"password": "correct horse", "username": "alice"})),
    responses(
        (status = 201, description = "Registered", body = Session, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"), ("Location" = String, description = "where the created resource is read"))),
        (status = 400, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
        (status = 429, response = ProblemResponse),
    ),
    security(()),
)]
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

#[utoipa::path(
    operation_id = "login",
    tag = "accounts",
    summary = "Log in",
    request_body(content = Credentials, example = json!({"password": "correct horse", "username": "alice"})),
    responses(
        (status = 200, description = "Logged in", body = Session),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 429, response = ProblemResponse),
    ),
    security(()),
)]
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
