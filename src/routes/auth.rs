use std::sync::LazyLock;

use actix_web::{HttpResponse, post, web};
use serde::Deserialize;
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

use crate::auth::{Jwt, Role, hash_password, verify_password};
use crate::error::{ApiError, ApiResult};
use crate::ledger;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    username: String,
    password: String,
}

impl std::fmt::Debug for Credentials {
    // Keeps passwords out of every log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

fn check_username(u: &str) -> ApiResult<()> {
    let ok_len = (3..=32).contains(&u.len());
    let ok_chars = u.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok_len && ok_chars {
        Ok(())
    } else {
        Err(ApiError::Validation(
            "username must be 3 to 32 characters of A-Z, a-z, 0-9 and _".into(),
        ))
    }
}

fn check_password(p: &str) -> ApiResult<()> {
    if p.chars().count() < 8 {
        return Err(ApiError::Validation(
            "password must be at least 8 characters".into(),
        ));
    }
    if p.len() > 1024 {
        return Err(ApiError::Validation(
            "password must be at most 1024 bytes".into(),
        ));
    }
    Ok(())
}

fn session(jwt: &Jwt, id: Uuid, username: &str, role: Role) -> ApiResult<serde_json::Value> {
    Ok(json!({
        "user": { "id": id, "username": username, "role": role.as_str() },
        "access_token": jwt.issue(id, username, role)?,
        "token_type": "Bearer",
    }))
}

/// Creates an account with its wallet. Used by the route and by the `PAIJU_ADMIN` bootstrap.
pub async fn create_user(
    pool: &PgPool,
    username: &str,
    password: &str,
    role: Role,
) -> ApiResult<Uuid> {
    let pw = password.to_string();
    let hash = web::block(move || hash_password(&pw))
        .await
        .map_err(|e| ApiError::Internal(e.into()))??;
    let id = Uuid::new_v4();
    let mut tx = pool.begin().await?;
    let inserted = sqlx::query(
        "INSERT INTO users (id, username, password_hash, role) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(username)
    .bind(&hash)
    .bind(role.as_str())
    .execute(&mut *tx)
    .await?;
    if inserted.rows_affected() == 0 {
        return Err(ApiError::Conflict(format!(
            "the username {username:?} is taken"
        )));
    }
    ledger::open_user_account(&mut tx, id).await?;
    tx.commit().await?;
    Ok(id)
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
    check_username(&body.username)?;
    check_password(&body.password)?;
    let id = create_user(&pool, &body.username, &body.password, Role::Player).await?;
    tracing::info!(user_id = %id, username = %body.username, "registered");
    Ok(HttpResponse::Created().json(session(&jwt, id, &body.username, Role::Player)?))
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
    let row: Option<(Uuid, String, String, String)> = sqlx::query_as(
        "SELECT id, username, password_hash, role FROM users WHERE lower(username) = lower($1)",
    )
    .bind(&body.username)
    .fetch_optional(pool.get_ref())
    .await?;
    let hash = row.as_ref().map(|r| r.2.clone());
    let pw = body.password.clone();
    // Unknown users are checked against a dummy hash so both paths take the same time.
    let ok = web::block(move || {
        static DUMMY: LazyLock<String> =
            LazyLock::new(|| hash_password("not anyone's password").unwrap_or_default());
        verify_password(&pw, hash.as_deref().unwrap_or(&DUMMY))
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?;
    match row {
        Some((id, username, _, role)) if ok => {
            let role = Role::parse(&role).unwrap_or(Role::Player);
            Ok(HttpResponse::Ok().json(session(&jwt, id, &username, role)?))
        }
        _ => Err(ApiError::Unauthorized("wrong username or password".into())),
    }
}
