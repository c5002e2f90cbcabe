//! The connections moves use (`db::MoveConns`): kept without sqlx's release round trip only
//! when they come back outside any transaction.

use paiju::db::{self, MoveConns};
use sqlx::{Connection, PgPool};

use crate::helpers::fresh_database;

async fn backend_pid(conn: &mut sqlx::PgConnection) -> i32 {
    sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(conn)
        .await
        .unwrap()
}

async fn setup() -> (PgPool, MoveConns) {
    let pool = db::pool(&fresh_database().await, 4).unwrap();
    sqlx::query("CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL)")
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO t VALUES (1, 0)")
        .execute(&pool)
        .await
        .unwrap();
    let conns = MoveConns::new(pool.clone(), 2);
    (pool, conns)
}

#[tokio::test]
async fn a_released_connection_is_reused_and_a_dropped_one_is_closed_with_its_transaction() {
    let (pool, conns) = setup().await;

    // Committed, then released: the next move gets the same backend, outside a transaction.
    let mut c = conns.acquire().await.unwrap();
    let first = backend_pid(&mut c).await;
    let mut tx = c.begin().await.unwrap();
    sqlx::query("UPDATE t SET n = n + 1 WHERE id = 1")
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    c.release();
    assert_eq!(conns.idle(), 1);
    let mut c = conns.acquire().await.unwrap();
    assert_eq!(backend_pid(&mut c).await, first);
    assert_eq!(conns.idle(), 0);
    assert!(!c.is_in_transaction());

    // Dropped mid-transaction (an error before the rollback, or a cancelled request): closed,
    // so its row lock and its change go with it, and it is not handed out again.
    let mut tx = c.begin().await.unwrap();
    sqlx::query("UPDATE t SET n = 100 WHERE id = 1")
        .execute(&mut *tx)
        .await
        .unwrap();
    drop(tx);
    drop(c);
    assert_eq!(conns.idle(), 0);
    let mut other = pool.acquire().await.unwrap();
    sqlx::query("SET lock_timeout = '2s'")
        .execute(&mut *other)
        .await
        .unwrap();
    let n: i32 = sqlx::query_scalar("SELECT n FROM t WHERE id = 1 FOR UPDATE")
        .fetch_one(&mut *other)
        .await
        .expect("the dropped transaction's row lock was released");
    assert_eq!(n, 1);
    drop(other);
    let mut c = conns.acquire().await.unwrap();
    assert_ne!(backend_pid(&mut c).await, first);
}

#[tokio::test]
async fn no_more_than_size_connections_are_in_use_at_once() {
    let (_pool, conns) = setup().await;
    let a = conns.acquire().await.unwrap();
    let _b = conns.acquire().await.unwrap();
    let third = tokio::time::timeout(std::time::Duration::from_millis(300), conns.acquire()).await;
    assert!(
        third.is_err(),
        "a third connection was handed out with a size of 2"
    );
    a.release();
    let mut c = tokio::time::timeout(std::time::Duration::from_secs(3), conns.acquire())
        .await
        .expect("a released connection is handed to the next caller")
        .unwrap();
    backend_pid(&mut c).await;
}

/// The plan of a one-row lookup on the small table `t`.
async fn plan(conn: &mut sqlx::PgConnection) -> String {
    let rows: Vec<String> = sqlx::query_scalar("EXPLAIN SELECT n FROM t WHERE id = 1")
        .fetch_all(conn)
        .await
        .unwrap();
    rows.join("\n")
}

/// A move's one-row lookups take the index on a small table too: a plan cached while a table
/// was small kept reading the whole (bloated) table at every move.
#[tokio::test]
async fn a_moves_connection_reaches_a_row_of_a_small_table_by_its_index() {
    let (pool, conns) = setup().await;
    // Its statistics: one row on one page.
    sqlx::query("ANALYZE t").execute(&pool).await.unwrap();
    let mut other = pool.acquire().await.unwrap();
    let elsewhere = plan(&mut other).await;
    assert!(elsewhere.contains("Seq Scan"), "{elsewhere}");
    let mut c = conns.acquire().await.unwrap();
    let moves = plan(&mut c).await;
    assert!(moves.contains("Index"), "{moves}");
    assert!(!moves.contains("Seq Scan"), "{moves}");
}

/// Runs a statement over `unnest` eight times on `conn`, and says how many of those runs were
/// planned for their values (custom plans) and how many ran a plan made once (generic plans).
async fn plans_of_unnest(conn: &mut sqlx::PgConnection) -> (i64, i64) {
    for _ in 0..8 {
        sqlx::query("UPDATE t SET n = n + 1 FROM unnest($1::int[]) AS x(id) WHERE t.id = x.id")
            .bind(vec![1])
            .execute(&mut *conn)
            .await
            .unwrap();
    }
    sqlx::query_as(
        "SELECT coalesce(sum(custom_plans), 0)::bigint, coalesce(sum(generic_plans), 0)::bigint
           FROM pg_prepared_statements WHERE statement LIKE 'UPDATE t %'",
    )
    .fetch_one(conn)
    .await
    .unwrap()
}

/// A move's statement is planned once per connection, not at every move: over arrays of one
/// row the planner prefers a plan made for the values, and planning the writer's statement
/// again at each move cost PostgreSQL more than running it.
#[tokio::test]
async fn a_moves_connection_plans_a_statement_once() {
    let (pool, conns) = setup().await;
    let mut other = pool.acquire().await.unwrap();
    let (custom, _) = plans_of_unnest(&mut other).await;
    // PostgreSQL's own choice plans at least the first five executions for their values.
    assert!(
        custom >= 5,
        "elsewhere executions are planned for their values: {custom}"
    );
    let mut c = conns.acquire().await.unwrap();
    assert_eq!(plans_of_unnest(&mut c).await, (0, 8));
}
