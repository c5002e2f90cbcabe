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

/// A connection idle longer than this is tested with a round trip before it is used (the
/// pool's and [`MoveConns`]'s alike).
const IDLE_TEST: Duration = Duration::from_secs(1);

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
                if meta.idle_for > IDLE_TEST {
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

/// Connections for moves, kept out of sqlx's pool: sqlx sends a round trip (`Sync`) each time a
/// connection goes back to its pool, to flush what a dropped transaction may have left. A move
/// ends its transaction itself (`COMMIT`, or `ROLLBACK` when refused), so its connection comes
/// back clean and is kept here without that round trip. At most `size` are in use at once;
/// new ones are taken from (and detached from) the pool.
pub struct MoveConns {
    pool: PgPool,
    permits: tokio::sync::Semaphore,
    idle: std::sync::Mutex<Vec<(PgConnection, std::time::Instant)>>,
}

/// A move's connection idle past this is closed rather than tested and kept.
const IDLE_CLOSE: Duration = Duration::from_secs(600);

/// Sent once on each connection [`MoveConns`] takes from the pool. Every statement of a move
/// reaches its rows by key (a match, its seats, the accounts and 积分 of its players, and the
/// foreign-key checks of the rows it writes), but on small tables the planner prefers a
/// sequential scan, and plans cached while a table was small keep it: a `matches` table of a
/// few hundred live rows held 1,777 pages after 20 s of play (each move leaves a dead row
/// version), and every foreign-key check of a ledger entry read the whole `accounts` table
/// (docs/performance.md § Key lookups only). With sequential scans off, a plan takes an index
/// wherever there is one; a statement with no index to use still scans.
///
/// And a prepared statement is planned once (a generic plan, made again only when its tables'
/// statistics or definitions change), not at each execution: the writer's statement
/// ([`crate::matches::table::save_many`]) unnests arrays, whose length PostgreSQL sees only in
/// their values (without them it assumes 10 rows), so in its default `auto` mode it found a
/// plan made for one move's one-row arrays cheaper and planned the statement again at nearly
/// every move, which cost more than executing it (docs/performance.md § Planned once). This
/// holds because every statement on these connections finds its rows by key, whatever the
/// values: one whose parameters decide how many rows it reads (a list's `LIMIT $n`, a filter
/// `$n IS NULL OR …`) belongs on the pool, not here. The two settings go together: planned
/// once on a small table, a plan would keep a sequential scan
/// (`statements::the_moves_statements_planned_once_reach_their_rows_by_key`).
const MOVE_SESSION: &str = "SET enable_seqscan = off; SET plan_cache_mode = force_generic_plan";

impl MoveConns {
    pub fn new(pool: PgPool, size: u32) -> MoveConns {
        MoveConns {
            pool,
            permits: tokio::sync::Semaphore::new(size.max(1) as usize),
            idle: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// A connection, within the pool's acquire timeout (then `PoolTimedOut`, a 503).
    pub async fn acquire(&self) -> Result<MoveConn<'_>, sqlx::Error> {
        let timeout = self.pool.options().get_acquire_timeout();
        let permit = tokio::time::timeout(timeout, self.permits.acquire())
            .await
            .map_err(|_| sqlx::Error::PoolTimedOut)?
            .map_err(|_| sqlx::Error::PoolClosed)?;
        let conn = loop {
            let idle = self.idle.lock().map(|mut v| v.pop()).unwrap_or(None);
            let Some((mut conn, since)) = idle else {
                let mut conn = self.pool.acquire().await?.detach();
                // The statements it prepared on the pool go: their plans were made without
                // these settings.
                conn.clear_cached_statements().await?;
                sqlx::raw_sql(MOVE_SESSION).execute(&mut conn).await?;
                break conn;
            };
            let idle_for = since.elapsed();
            // A connection failing its test, or idle too long, is dropped: closed.
            if idle_for <= IDLE_CLOSE && (idle_for <= IDLE_TEST || conn.ping().await.is_ok()) {
                break conn;
            }
        };
        Ok(MoveConn {
            conn,
            owner: self,
            _permit: permit,
        })
    }

    /// Connections kept for the next move.
    pub fn idle(&self) -> usize {
        self.idle.lock().map_or(0, |v| v.len())
    }
}

/// A connection of [`MoveConns`]. `release` keeps it for the next move; dropped without it (an
/// error left it mid-transaction, or the request was cancelled), it is closed.
pub struct MoveConn<'a> {
    conn: PgConnection,
    owner: &'a MoveConns,
    _permit: tokio::sync::SemaphorePermit<'a>,
}

impl MoveConn<'_> {
    /// Keeps the connection for the next move, once its transaction is committed or rolled
    /// back (one still inside a transaction is closed instead).
    pub fn release(self) {
        if !self.conn.is_in_transaction()
            && let Ok(mut idle) = self.owner.idle.lock()
        {
            idle.push((self.conn, std::time::Instant::now()));
        }
    }
}

impl std::ops::Deref for MoveConn<'_> {
    type Target = PgConnection;
    fn deref(&self) -> &PgConnection {
        &self.conn
    }
}

impl std::ops::DerefMut for MoveConn<'_> {
    fn deref_mut(&mut self) -> &mut PgConnection {
        &mut self.conn
    }
}
