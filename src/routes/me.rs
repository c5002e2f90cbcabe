use actix_web::{HttpResponse, delete, get, put, web};
use serde::Deserialize;
use serde_json::json;
use sqlx::PgPool;

use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult};

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
    crate::players::current_role(&mut conn, user.id).await?;
    let mut entries = crate::ledger::entries(&mut conn, user.id, limit + 1, q.before).await?;
    let has_more = entries.len() as i64 > limit;
    entries.truncate(limit as usize);
    let next_before = if has_more {
        entries.last().map(|e| e.id)
    } else {
        None
    };
    Ok(HttpResponse::Ok().json(json!({
        "entries": entries, "has_more": has_more, "next_before": next_before,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    old_password: String,
    new_password: String,
}

#[put("/v1/me/password")]
pub async fn change_password(
    pool: web::Data<PgPool>,
    user: AuthUser,
    body: web::Json<PasswordChange>,
) -> ApiResult<HttpResponse> {
    crate::accounts::change_password(&pool, user.id, &body.old_password, &body.new_password)
        .await?;
    tracing::info!(user_id = %user.id, "password changed");
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deletion {
    password: String,
}

#[delete("/v1/me")]
pub async fn delete_account(
    pool: web::Data<PgPool>,
    user: AuthUser,
    body: web::Json<Deletion>,
) -> ApiResult<HttpResponse> {
    crate::accounts::delete(&pool, user.id, &body.password).await?;
    tracing::info!(user_id = %user.id, "account deleted");
    Ok(HttpResponse::NoContent().finish())
}
