use actix_web::{HttpRequest, HttpResponse, get, post, put, web};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

use crate::auth::{AuthUser, Role};
use crate::error::ApiResult;
use crate::idempotency;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grant {
    user_id: Uuid,
    amount: i64,
    note: Option<String>,
}

/// With `Idempotency-Key`, a retried grant answers the first grant's entry and credits nothing.
#[post("/v1/admin/grants")]
pub async fn grant(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    user: AuthUser,
    body: web::Json<Grant>,
) -> ApiResult<HttpResponse> {
    user.require(&mut *pool.acquire().await?, Role::Admin)
        .await?;
    let key = idempotency::key_of(&req)?;
    let Grant {
        user_id,
        amount,
        note,
    } = body.into_inner();
    let created = |entry: Value| {
        HttpResponse::Created()
            .insert_header(("Location", format!("/v1/admin/users/{user_id}")))
            .json(entry)
    };
    let mut tx = pool.begin().await?;
    if let Some(key) = &key {
        let request = json!({ "grant": { "user_id": user_id, "amount": amount, "note": note } });
        if let Some(first) = idempotency::claim(&mut tx, user.id, key, &request).await? {
            return Ok(created(first));
        }
    }
    let entry = crate::ledger::grant(&mut tx, user_id, amount, note.clone()).await?;
    crate::audit::record(
        &mut tx,
        crate::audit::Record {
            actor: user.id,
            action: crate::audit::Action::Grant,
            target_user: Some(user_id),
            tournament_id: None,
            detail: &json!({ "amount": amount, "note": note, "entry_id": entry.id }),
        },
    )
    .await?;
    if let Some(key) = &key {
        idempotency::answer(&mut tx, user.id, key, 201, &entry).await?;
    }
    tx.commit().await?;
    tracing::info!(admin = %user.id, to = %user_id, amount, "coins granted");
    Ok(created(json!(entry)))
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
    let changed =
        crate::accounts::set_role(&pool, Some(user.id), path.into_inner(), body.role).await?;
    tracing::info!(admin = %user.id, user_id = %changed.id, role = changed.role.as_str(), "role changed");
    Ok(HttpResponse::Ok().json(changed))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserQuery {
    username: String,
}

/// Looks an account up by username (case-insensitive): `{"users":[profile]}`, empty when none.
#[get("/v1/admin/users")]
pub async fn find_user(
    pool: web::Data<PgPool>,
    user: AuthUser,
    q: web::Query<UserQuery>,
) -> ApiResult<HttpResponse> {
    user.require(&mut *pool.acquire().await?, Role::Admin)
        .await?;
    let found = crate::accounts::find_by_name(&pool, &q.username).await?;
    Ok(HttpResponse::Ok()
        .json(serde_json::json!({ "users": found.into_iter().collect::<Vec<_>>() })))
}

/// An account's profile: role, wallet and 积分.
#[get("/v1/admin/users/{id}")]
pub async fn show_user(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    user.require(&mut *pool.acquire().await?, Role::Admin)
        .await?;
    let id = path.into_inner();
    let found = crate::accounts::find(&pool, id)
        .await?
        .ok_or_else(|| crate::error::ApiError::NotFound(format!("no user with id {id}")))?;
    Ok(HttpResponse::Ok().json(found))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    limit: Option<i64>,
    before: Option<i64>,
}

/// The admin audit trail (`audit`): grants, role changes, tournament edits and cancellations,
/// newest first, cursor-paged like the ledger.
#[get("/v1/admin/audit")]
pub async fn audit(
    pool: web::Data<PgPool>,
    user: AuthUser,
    q: web::Query<AuditQuery>,
) -> ApiResult<HttpResponse> {
    let mut conn = pool.acquire().await?;
    user.require(&mut conn, Role::Admin).await?;
    let limit = q.limit.unwrap_or(50);
    if !(1..=500).contains(&limit) {
        return Err(crate::error::ApiError::Validation(format!(
            "limit must be from 1 to 500, got {limit}"
        )));
    }
    if let Some(b) = q.before
        && b < 1
    {
        return Err(crate::error::ApiError::Validation(format!(
            "before must be an entry id (at least 1), got {b}"
        )));
    }
    let entries = crate::audit::list(&mut conn, limit + 1, q.before).await?;
    let (entries, next_before) = crate::cursor::page(entries, limit, |e| e.id);
    Ok(HttpResponse::Ok().json(json!({
        "entries": entries, "has_more": next_before.is_some(), "next_before": next_before,
    })))
}
