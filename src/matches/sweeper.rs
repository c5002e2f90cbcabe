//! Plays overdue turns, and runs the tournaments' driver after each pass. Every server process
//! runs one; `FOR UPDATE SKIP LOCKED` hands each overdue match to exactly one of them, and the
//! automatic action goes through the table's one step (`Input::Deadline`) like a client's. The driver is given at start
//! (`tournaments::tick`): tournaments sit above matches, which never import them.

use std::pin::Pin;
use std::time::Duration;

use sqlx::PgPool;
use tokio::sync::watch;
use uuid::Uuid;

use super::table::{Input, Table};
use crate::error::ApiError;

/// What each pass runs after the overdue turns (the tournaments' driver); returns how many
/// steps it took.
pub type Driver =
    for<'a> fn(&'a PgPool) -> Pin<Box<dyn Future<Output = Result<usize, ApiError>> + Send + 'a>>;

/// How often old player notices and idempotency keys are deleted.
const PRUNE_EVERY: Duration = Duration::from_secs(600);

/// Deletes old player notices and expired idempotency keys; returns how many of each.
async fn prune(pool: &PgPool) -> Result<(u64, u64), ApiError> {
    let mut conn = pool.acquire().await?;
    let notices = crate::notices::prune(&mut conn).await?;
    let keys = crate::idempotency::prune(&mut conn).await?;
    Ok((notices, keys))
}

/// Runs until `stop` changes.
pub async fn run(pool: PgPool, every: Duration, driver: Driver, mut stop: watch::Receiver<bool>) {
    tracing::info!(
        every_ms = every.as_millis() as u64,
        "deadline sweeper started"
    );
    let mut failing = false;
    let mut next_prune = tokio::time::Instant::now();
    loop {
        if tokio::time::Instant::now() >= next_prune {
            next_prune += PRUNE_EVERY;
            match prune(&pool).await {
                Ok((0, 0)) => {}
                Ok((notices, keys)) => tracing::info!(
                    notices,
                    idempotency_keys = keys,
                    "old player notices and expired idempotency keys deleted"
                ),
                Err(e) => tracing::warn!(error = %e, "deleting old notices and keys failed"),
            }
        }
        match sweep(&pool, driver).await {
            Ok(n) => {
                if failing {
                    tracing::info!("deadline sweeper recovered");
                    failing = false;
                }
                if n > 0 {
                    tracing::debug!(matches = n, "played overdue turns");
                }
            }
            Err(e) => {
                if !failing {
                    tracing::warn!(error = %e, "deadline sweep failed; will retry");
                }
                failing = true;
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.changed() => break,
        }
    }
    tracing::info!("deadline sweeper stopped");
}

/// Plays every match whose deadline has passed, then runs `driver`; returns how many matches
/// and driver steps.
pub async fn sweep(pool: &PgPool, driver: Driver) -> Result<usize, ApiError> {
    let mut n = 0;
    while sweep_one(pool).await? {
        n += 1;
    }
    Ok(n + driver(pool).await?)
}

async fn sweep_one(pool: &PgPool) -> Result<bool, ApiError> {
    let mut tx = pool.begin().await?;
    let id: Option<Uuid> = sqlx::query_scalar(
        "SELECT id FROM matches WHERE deadline_at <= now()
          ORDER BY deadline_at LIMIT 1 FOR UPDATE SKIP LOCKED",
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(id) = id else {
        return Ok(false);
    };
    if let Err(e) = play_overdue(&mut tx, id).await {
        // A match the engine cannot advance must not block every other overdue match: log it
        // and look again later.
        drop(tx);
        tracing::error!(match_id = %id, error = %e, "could not play an overdue turn");
        sqlx::query("UPDATE matches SET deadline_at = now() + interval '30 seconds' WHERE id = $1")
            .bind(id)
            .execute(pool)
            .await?;
        return Ok(true);
    }
    tx.commit().await?;
    Ok(true)
}

async fn play_overdue(tx: &mut sqlx::PgConnection, id: Uuid) -> Result<(), ApiError> {
    let mut t = Table::lock(tx, id).await?;
    t.run(tx, Input::Deadline).await?;
    t.save(tx).await
}
