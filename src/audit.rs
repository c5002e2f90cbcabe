//! The admin audit trail: every coin grant, role change and tournament edit or cancellation,
//! with who made it and when, written in the transaction that makes the change (so a change
//! and its record commit together) and listed newest first by `GET /v1/admin/audit`.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

use crate::error::ApiResult;

/// What was done (the `action` column's closed set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = AuditAction)]
pub enum Action {
    Grant,
    RoleChange,
    TournamentEdit,
    TournamentCancel,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Grant => "grant",
            Action::RoleChange => "role_change",
            Action::TournamentEdit => "tournament_edit",
            Action::TournamentCancel => "tournament_cancel",
        }
    }
}

/// One change to record: by `actor`, on an account or a tournament, with what changed.
pub struct Record<'a> {
    pub actor: Uuid,
    pub action: Action,
    pub target_user: Option<Uuid>,
    pub tournament_id: Option<Uuid>,
    pub detail: &'a Value,
}

impl<'a> Record<'a> {
    /// A change `actor` made to tournament `id`.
    pub fn tournament(actor: Uuid, action: Action, id: Uuid, detail: &'a Value) -> Record<'a> {
        Record {
            actor,
            action,
            target_user: None,
            tournament_id: Some(id),
            detail,
        }
    }
}

/// Records `r` in the transaction `conn` makes the change in.
pub async fn record(conn: &mut PgConnection, r: Record<'_>) -> ApiResult<()> {
    sqlx::query(
        "INSERT INTO admin_audit (actor, action, target_user, tournament_id, detail)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(r.actor)
    .bind(r.action.as_str())
    .bind(r.target_user)
    .bind(r.tournament_id)
    .bind(r.detail)
    .execute(conn)
    .await?;
    Ok(())
}

/// An entry as `GET /v1/admin/audit` lists it.
#[derive(Debug, Serialize, sqlx::FromRow, utoipa::ToSchema)]
#[schema(as = AuditEntry)]
pub struct Entry {
    #[schema(minimum = 1)]
    pub id: i64,
    pub at: DateTime<Utc>,
    /// Who made the change.
    pub actor: Uuid,
    pub actor_username: String,
    #[schema(value_type = Action)]
    pub action: String,
    /// The account a grant or role change was for.
    pub target_user: Option<Uuid>,
    pub tournament_id: Option<Uuid>,
    /// grant: amount, note, entry_id; role_change: from, to, via (api or PAIJU_ADMIN);
    /// tournament_edit: the settings after the edit; tournament_cancel: was, refunded.
    #[schema(value_type = Object)]
    pub detail: Value,
}

/// Up to `limit` entries before entry `before` (newest first).
pub async fn list(
    conn: &mut PgConnection,
    limit: i64,
    before: Option<i64>,
) -> ApiResult<Vec<Entry>> {
    Ok(sqlx::query_as(
        "SELECT a.id, a.at, a.actor, u.username AS actor_username, a.action, a.target_user,
                a.tournament_id, a.detail
           FROM admin_audit a JOIN users u ON u.id = a.actor
          WHERE $2::bigint IS NULL OR a.id < $2
          ORDER BY a.id DESC LIMIT $1",
    )
    .bind(limit)
    .bind(before)
    .fetch_all(conn)
    .await?)
}
