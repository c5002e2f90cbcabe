//! Connection pool and migrations.

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, PgConnection};

pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

fn connect_options(url: &str) -> anyhow::Result<PgConnectOptions> {
    Ok(PgConnectOptions::from_str(url)
        .context("DATABASE_URL is not a valid PostgreSQL URL")?
        // A request waiting on a busy match gives up quickly (→ 409) instead of holding a
        // pool connection; nothing runs away.
        .options([("lock_timeout", "5s"), ("statement_timeout", "30s")])
        .log_statements(tracing::log::LevelFilter::Trace)
        .log_slow_statements(tracing::log::LevelFilter::Warn, Duration::from_millis(500)))
}

/// A lazily connecting pool: the server starts even while the database is down, and requests
/// fail fast (503) until it is back.
pub fn pool(url: &str, size: u32) -> anyhow::Result<PgPool> {
    Ok(PgPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(Duration::from_secs(3))
        // sqlx tests every connection it hands out with a round trip unless told not to, and
        // tests it again when it comes back. A connection that came back within the last
        // second needs no second test: that saves a round trip per request under load, and a
        // connection that broke in between fails its request with a 503 and is dropped.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for > Duration::from_secs(1) {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
        .connect_lazy_with(connect_options(url)?))
}

/// Creates the database named in `url` if it does not exist (connecting to `postgres`).
pub async fn create_database_if_missing(url: &str) -> anyhow::Result<()> {
    let opts = connect_options(url)?;
    let name = opts
        .get_database()
        .context("DATABASE_URL names no database")?
        .to_string();
    let mut conn = PgConnection::connect_with(&opts.clone().database("postgres")).await?;
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(&name)
            .fetch_one(&mut conn)
            .await?;
    if !exists {
        let quoted = name.replace('"', "\"\"");
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{quoted}\"")))
            .execute(&mut conn)
            .await
            .with_context(|| format!("creating database {name}"))?;
        tracing::info!(database = %name, "created database");
    }
    conn.close().await?;
    Ok(())
}

pub async fn migrate(pool: &PgPool) -> anyhow::Result<()> {
    MIGRATOR.run(pool).await.context("running migrations")
}
