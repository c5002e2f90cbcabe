//! `Idempotency-Key`: a request retried with the same key by the same user gets the first
//! answer again, and nothing is applied twice. The key's row is written in the request's own
//! transaction, so a request that failed leaves no key behind, and a concurrent duplicate waits
//! on the row's unique index until the first commits or rolls back.

use actix_web::HttpRequest;
use serde::Serialize;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};

/// The longest key accepted.
pub const MAX_KEY: usize = 64;

/// How long a key is kept: a request sent again with it within this time is a retry (its first
/// answer comes back); later it is a new request. The sweeper deletes older keys.
pub const KEEP_HOURS: i32 = 24;

/// Deletes keys older than [`KEEP_HOURS`] (a few thousand at a time); returns how many.
pub async fn prune(conn: &mut PgConnection) -> ApiResult<u64> {
    Ok(sqlx::query(
        "DELETE FROM idempotency WHERE (user_id, key) IN (
             SELECT user_id, key FROM idempotency
              WHERE created_at < now() - make_interval(hours => $1) LIMIT 5000)",
    )
    .bind(KEEP_HOURS)
    .execute(conn)
    .await?
    .rows_affected())
}

/// The request's `Idempotency-Key`, if any: 1 to `MAX_KEY` visible ASCII characters.
pub fn key_of(req: &HttpRequest) -> ApiResult<Option<String>> {
    let Some(v) = req.headers().get("Idempotency-Key") else {
        return Ok(None);
    };
    v.to_str()
        .ok()
        .filter(|k| !k.is_empty() && k.len() <= MAX_KEY)
        .map(|k| Some(k.to_string()))
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "Idempotency-Key must be 1 to {MAX_KEY} visible ASCII characters"
            ))
        })
}

/// Claims `key` for `request` (what the request does, to refuse the key's reuse for another).
/// `Some(body)`: the key was used for this same request, which answered `body`.
pub async fn claim(
    conn: &mut PgConnection,
    user: Uuid,
    key: &str,
    request: &Value,
) -> ApiResult<Option<Value>> {
    let fresh = sqlx::query(
        "INSERT INTO idempotency (user_id, key, request) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING",
    )
    .bind(user)
    .bind(key)
    .bind(request)
    .execute(&mut *conn)
    .await?
    .rows_affected()
        == 1;
    if fresh {
        return Ok(None);
    }
    let met: Option<(Value, Option<Value>)> =
        sqlx::query_as("SELECT request, body FROM idempotency WHERE user_id = $1 AND key = $2")
            .bind(user)
            .bind(key)
            .fetch_optional(&mut *conn)
            .await?;
    // The key met expired (`prune`) between the two statements: sent again, it is new.
    let Some((first, body)) = met else {
        return Err(ApiError::Conflict(
            "this Idempotency-Key expired while it was being checked; send the request again"
                .into(),
        ));
    };
    if first != *request {
        return Err(ApiError::Validation(
            "this Idempotency-Key was already used for a different request".into(),
        ));
    }
    body.map(Some).ok_or_else(|| {
        ApiError::Conflict("the first request with this Idempotency-Key is still running".into())
    })
}

/// Stores the answer to the request that claimed `key`.
pub async fn answer(
    conn: &mut PgConnection,
    user: Uuid,
    key: &str,
    status: u16,
    body: &impl Serialize,
) -> ApiResult<()> {
    sqlx::query("UPDATE idempotency SET status = $3, body = $4 WHERE user_id = $1 AND key = $2")
        .bind(user)
        .bind(key)
        .bind(i32::from(status))
        .bind(sqlx::types::Json(body))
        .execute(conn)
        .await?;
    Ok(())
}
