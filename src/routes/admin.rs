use actix_web::{HttpRequest, HttpResponse, get, post, put, web};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

use crate::accounts::{Profile, User};
use crate::auth::{AuthUser, Role};
use crate::error::{ApiResult, ProblemResponse};
use crate::idempotency;
use crate::ledger::Entry;

/// Coins from the house account to a player's wallet.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Grant {
    user_id: Uuid,
    #[schema(minimum = 1, maximum = 1_000_000_000_000_i64)]
    amount: i64,
    /// Shown in the player's ledger.
    #[schema(max_length = 500)]
    note: Option<String>,
}

// With `Idempotency-Key`, a retried grant answers the first grant's entry and credits nothing.
#[utoipa::path(
    operation_id = "grantCoins",
    tag = "admin",
    summary = "Grant coins from the house account (admin)",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "a retried grant with the same key answers the first grant's entry and credits nothing; a key is kept 24 hours, after which the same key is a new request", min_length = 1, max_length = 64),
    ),
    request_body(content = Grant, example = json!({"amount": 1000, "note": "welcome coins", "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b"})),
    responses(
        (status = 201, description = "The ledger entry", body = Entry, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"), ("Location" = String, description = "where the created resource is read"))),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
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

/// An account's new role.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleChange {
    role: Role,
}

#[utoipa::path(
    operation_id = "setUserRole",
    tag = "admin",
    summary = "Change a user's role (admin); takes effect on the user's next token",
    params(
        ("id" = Uuid, Path),
    ),
    request_body(content = RoleChange, example = json!({"role": "organiser"})),
    responses(
        (status = 200, description = "The user", body = User),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
    ),
)]
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

// Looks an account up by username (case-insensitive): `{"users":[profile]}`, empty when none.
#[utoipa::path(
    operation_id = "findUser",
    tag = "admin",
    summary = "Look an account up by username (admin)",
    params(
        ("username" = String, Query, description = "case-insensitive", max_length = 100),
    ),
    responses(
        (status = 200, description = "The matching accounts (none or one)", body = UserList, example = json!({"users": [{"coins": 950, "id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "role": "player", "scores": {"dazha": 12}, "username": "alice"}]})),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
    ),
)]
#[get("/v1/admin/users")]
pub async fn find_user(
    pool: web::Data<PgPool>,
    user: AuthUser,
    q: web::Query<UserQuery>,
) -> ApiResult<HttpResponse> {
    user.require(&mut *pool.acquire().await?, Role::Admin)
        .await?;
    let found = crate::accounts::find_by_name(&pool, &q.username).await?;
    Ok(HttpResponse::Ok().json(UserList {
        users: found.into_iter().collect(),
    }))
}

/// The accounts a username search found: one, or none.
#[derive(Serialize, utoipa::ToSchema)]
pub struct UserList {
    users: Vec<Profile>,
}

// An account's profile: role, wallet and 积分.
#[utoipa::path(
    operation_id = "getUser",
    tag = "admin",
    summary = "An account's profile: role, wallet and 积分 (admin)",
    params(
        ("id" = Uuid, Path),
    ),
    responses(
        (status = 200, description = "The account", body = Profile, example = json!({"coins": 950, "id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "role": "player", "scores": {"dazha": 12}, "username": "alice"})),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
    ),
)]
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

// The admin audit trail (`audit`): grants, role changes, tournament edits and cancellations,
// newest first, cursor-paged like the ledger.
#[utoipa::path(
    operation_id = "listAudit",
    tag = "admin",
    summary = "The admin audit trail, newest first: every grant, role change and tournament edit or cancellation, with who made it and when (admin)",
    params(
        ("limit" = Option<i64>, Query, description = "entries per page", minimum = 1, maximum = 500, example = 50),
        ("before" = Option<i64>, Query, description = "only entries with a smaller id (paging)", minimum = 1),
    ),
    responses(
        (status = 200, description = "Entries", body = AuditPage, example = json!({"entries": [{"action": "grant", "actor": "1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9", "actor_username": "admin", "at": "2026-11-27T10:00:00Z", "detail": {"amount": 500, "entry_id": 42, "note": "welcome"}, "id": 7, "target_user": "9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b", "tournament_id": null}], "has_more": false, "next_before": null})),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
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
    Ok(HttpResponse::Ok().json(AuditPage {
        entries,
        has_more: next_before.is_some(),
        next_before,
    }))
}

/// One page of the audit trail, newest first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct AuditPage {
    entries: Vec<crate::audit::Entry>,
    /// More entries below this page.
    has_more: bool,
    /// Pass as `before` for the next page; null on the last.
    next_before: Option<i64>,
}
