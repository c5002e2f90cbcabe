use actix_web::{HttpResponse, get, web};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use sqlx::PgPool;

use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult};

#[get("/v1/me")]
pub async fn me(pool: web::Data<PgPool>, user: AuthUser) -> ApiResult<HttpResponse> {
    let row: Option<(String, String, i64, Value)> = sqlx::query_as(
        "SELECT u.username, u.role, a.balance,
                COALESCE((SELECT jsonb_object_agg(s.game, s.points) FROM scores s
                           WHERE s.user_id = u.id), '{}'::jsonb)
           FROM users u JOIN accounts a ON a.user_id = u.id WHERE u.id = $1",
    )
    .bind(user.id)
    .fetch_optional(pool.get_ref())
    .await?;
    let (username, role, coins, scores) =
        row.ok_or_else(|| ApiError::Unauthorized("this account no longer exists".into()))?;
    Ok(HttpResponse::Ok().json(json!({
        "id": user.id, "username": username, "role": role, "coins": coins,
        "scores": if scores.is_object() { scores } else { Value::Object(Map::new()) },
    })))
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
    crate::players::current_role(&mut *pool.acquire().await?, user.id).await?;
    let entries = crate::routes::admin::ledger_entries(&pool, user.id, limit, q.before).await?;
    Ok(HttpResponse::Ok().json(json!({ "entries": entries })))
}
