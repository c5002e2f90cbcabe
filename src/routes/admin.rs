use actix_web::{HttpResponse, post, put, web};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

use crate::auth::{AuthUser, Role};
use crate::error::{ApiError, ApiResult};
use crate::ledger::{self, Party, TxMeta};

const MAX_GRANT: i64 = 1_000_000_000_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grant {
    user_id: Uuid,
    amount: i64,
    note: Option<String>,
}

#[derive(sqlx::FromRow, serde::Serialize)]
struct LedgerEntry {
    id: i64,
    amount: i64,
    balance_after: i64,
    reason: String,
    match_id: Option<Uuid>,
    tournament_id: Option<Uuid>,
    hand_no: Option<i32>,
    note: Option<String>,
    created_at: chrono::DateTime<chrono::Utc>,
}

/// A user's ledger entries, newest first, as api.md shows them.
pub async fn ledger_entries(
    pool: &PgPool,
    user: Uuid,
    limit: i64,
    before: Option<i64>,
) -> ApiResult<Vec<Value>> {
    let rows: Vec<LedgerEntry> = sqlx::query_as(
        "SELECT e.id, e.amount, e.balance_after, t.reason, t.match_id, t.tournament_id,
                t.hand_no, t.note, e.created_at
           FROM ledger_entries e
           JOIN accounts a ON a.id = e.account_id
           JOIN ledger_tx t ON t.id = e.tx_id
          WHERE a.user_id = $1 AND ($2::bigint IS NULL OR e.id < $2)
          ORDER BY e.id DESC LIMIT $3",
    )
    .bind(user)
    .bind(before)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| serde_json::to_value(r).unwrap_or_default())
        .collect())
}

#[post("/v1/admin/grants")]
pub async fn grant(
    pool: web::Data<PgPool>,
    user: AuthUser,
    body: web::Json<Grant>,
) -> ApiResult<HttpResponse> {
    user.require(&mut *pool.acquire().await?, Role::Admin)
        .await?;
    if !(1..=MAX_GRANT).contains(&body.amount) {
        return Err(ApiError::Validation(format!(
            "amount must be from 1 to {MAX_GRANT}, got {}",
            body.amount
        )));
    }
    if body.note.as_ref().is_some_and(|n| n.len() > 500) {
        return Err(ApiError::Validation(
            "note must be at most 500 bytes".into(),
        ));
    }
    let mut tx = pool.begin().await?;
    let exists: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM users WHERE id = $1)")
        .bind(body.user_id)
        .fetch_one(&mut *tx)
        .await?;
    if !exists {
        return Err(ApiError::NotFound(format!(
            "no user with id {}",
            body.user_id
        )));
    }
    let meta = TxMeta {
        reason: "grant",
        note: body.note.clone(),
        ..TxMeta::default()
    };
    let entries = ledger::transfer(
        &mut tx,
        &meta,
        &[
            (Party::House, -body.amount),
            (Party::User(body.user_id), body.amount),
        ],
    )
    .await?
    .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("a grant moved nothing")))?;
    tx.commit().await?;
    let entry_id = entries[&Party::User(body.user_id)];
    tracing::info!(admin = %user.id, to = %body.user_id, amount = body.amount, "coins granted");
    let entry = ledger_entries(&pool, body.user_id, 1, Some(entry_id + 1))
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("grant entry vanished")))?;
    Ok(HttpResponse::Created().json(entry))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleChange {
    role: Role,
}

#[put("/v1/admin/users/{id}/role")]
pub async fn set_role(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
    body: web::Json<RoleChange>,
) -> ApiResult<HttpResponse> {
    user.require(&mut *pool.acquire().await?, Role::Admin)
        .await?;
    let id = path.into_inner();
    let row: Option<(Uuid, String)> =
        sqlx::query_as("UPDATE users SET role = $2 WHERE id = $1 RETURNING id, username")
            .bind(id)
            .bind(body.role.as_str())
            .fetch_optional(pool.get_ref())
            .await?;
    let (id, username) = row.ok_or_else(|| ApiError::NotFound(format!("no user with id {id}")))?;
    tracing::info!(admin = %user.id, user_id = %id, role = body.role.as_str(), "role changed");
    Ok(HttpResponse::Ok()
        .json(json!({ "id": id, "username": username, "role": body.role.as_str() })))
}
