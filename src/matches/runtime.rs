//! The per-process match runtime: what one server process keeps beside the database to serve
//! moves and long-polls fast, owned by one object (created at start, handed to the routes):
//! - `hub`: the newest committed version of each match, kept by PostgreSQL's notifications;
//! - `tables`: the newest committed table of each match, parsed (`cache`);
//! - `gates`: one move at a time per match in this process (`gate`);
//! - `conns`: the moves' own connections (`db::MoveConns`);
//! - `committer`: the group commit of fast moves (`commit`);
//! - `counters`: applied moves and their statements by path (`/metrics`).
//!
//! Nothing here is needed for correctness across processes (the row lock and the version
//! check are); it spares the database work. A long-poll never takes a move's gate: it waits
//! for the table a move stores.
//!
//! A move whose table is cached at the version it was sent at is first worked out on a copy of
//! it by the table's one step (`Table::plan_move`; a step that needs the wallets and 积分 runs
//! with those the process knows), and one statement (the table's writer, shared with the other
//! moves ready at the same time: `commit`) commits it over the cached version, checking the
//! purses it assumed, without `BEGIN`, lock or `COMMIT`, whatever it did — a play, a stake, a
//! hand's end and the next deal. Everything else (a refusal, a tournament table, purses the
//! process does not know), and a move whose statement found the row moved on or an assumed
//! purse changed, takes the transactional path: the same step and the same writer in a
//! transaction (docs/architecture.md § One step, one writer).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use sqlx::{Connection, PgConnection, PgPool};
use tokio::sync::Notify;
use uuid::Uuid;

use super::ActionRequest;
use super::cache::{SharedReads, Tables};
use super::commit::Committer;
use super::counters::{MoveCounters, MovePath};
use super::gate::Gates;
use super::notify::{self, Hub};
use super::table::{Input, Keyed, Table, transaction_decides};
use super::view::View;
use crate::auth::AuthUser;
use crate::db::MoveConns;
use crate::error::{ApiError, ApiResult};
use crate::idempotency;

/// How long a long-poll that heard of a version committed by a move of this process waits for
/// that move to store its table before reading the row itself.
const STORE_WAIT: Duration = Duration::from_millis(500);

pub struct Runtime {
    pool: PgPool,
    hub: Hub,
    tables: Tables,
    /// Reads of a match for the streams, shared by those that ask while one runs
    /// (`table_at_least`).
    shared_reads: SharedReads,
    gates: Gates,
    conns: Arc<MoveConns>,
    committer: Committer,
    /// Woken whenever a move stores its committed table.
    stored: Notify,
    counters: MoveCounters,
    /// Whether moves may take the fast path (`Config::fast_moves`).
    fast: bool,
}

/// What the fast path made of a move.
enum Fast {
    /// Committed by its one statement: the caller's view.
    Done(View),
    /// Not for the fast path, or the row had moved on: the transactional path decides.
    NeedsTransaction,
}

enum Acted {
    /// The move was applied: the table to publish once committed, and the caller's view.
    Applied(Box<Table>, View),
    /// A retry of a request already answered (Idempotency-Key): its stored answer.
    Replayed(View),
}

impl Runtime {
    /// A runtime whose moves use at most `move_conns` connections of their own, and take the
    /// fast path when `fast`, committed by at most `commit_lanes` statements at a time of at
    /// most `commit_batch` moves each; `hub` follows the database's notifications.
    pub fn new(
        pool: PgPool,
        move_conns: u32,
        fast: bool,
        commit: (usize, usize),
        hub: Hub,
    ) -> Runtime {
        let conns = Arc::new(MoveConns::new(pool.clone(), move_conns));
        let counters = MoveCounters::default();
        let (lanes, batch) = commit;
        Runtime {
            committer: Committer::new(conns.clone(), counters.clone(), lanes, batch),
            conns,
            pool,
            hub,
            tables: Tables::default(),
            shared_reads: SharedReads::default(),
            gates: Gates::default(),
            stored: Notify::new(),
            counters,
            fast,
        }
    }

    /// The moves' own connections.
    pub fn move_conns(&self) -> Arc<MoveConns> {
        self.conns.clone()
    }

    /// Matches whose newest table this process holds parsed.
    pub fn cached_tables(&self) -> usize {
        self.tables.len()
    }

    /// Applied moves and their statements by path.
    pub fn move_counters(&self) -> &MoveCounters {
        &self.counters
    }

    /// This process's knowledge of match versions and players' notices (for streams).
    pub fn hub(&self) -> Hub {
        self.hub.clone()
    }

    /// The moves' connections kept open for the next move (a metric).
    pub fn idle_move_connections(&self) -> usize {
        self.conns.idle()
    }

    /// Follows the database's notifications of new versions until the process ends.
    pub fn spawn_listener(&self) -> tokio::task::JoinHandle<()> {
        self.hub.spawn_listener(self.pool.clone())
    }

    /// A move at a version below one this process has seen committed is certainly a 409:
    /// answer it from the cached row instead of queueing for the row lock behind the move that
    /// won. Tournament tables are left to the locked path, which checks escapes first.
    fn refuse_if_surely_stale(&self, user: &AuthUser, id: Uuid, version: i64) -> ApiResult<()> {
        let Some(t) = self.tables.at_least(id, version.saturating_add(1)) else {
            return Ok(());
        };
        if t.tournament_id().is_none() && t.seat_of(user.id).is_some() {
            return Err(ApiError::VersionConflict(Box::new(t.view(Some(user.id)))));
        }
        Ok(())
    }

    /// One client action, with optional idempotent replay.
    pub async fn act(
        &self,
        user: &AuthUser,
        id: Uuid,
        req: ActionRequest,
        idempotency_key: Option<String>,
    ) -> ApiResult<View> {
        // Moves of this match sent to this process take turns here rather than at the row lock.
        let _gate = self.gates.enter(id).await;
        // A retry with an Idempotency-Key carries the version it was first sent at: only
        // requests without one can be refused before the idempotency lookup.
        if idempotency_key.is_none() {
            self.refuse_if_surely_stale(user, id, req.version)?;
        }
        if let Fast::Done(view) = self
            .act_fast(user, id, &req, idempotency_key.as_deref())
            .await?
        {
            return Ok(view);
        }
        let keyed = idempotency_key.is_some();
        let mut conn = self.conns.acquire().await?;
        let mut tx = conn.begin().await?;
        let acted = match self.act_in(&mut tx, user, id, req, idempotency_key).await {
            Ok(acted) => acted,
            Err(e) => {
                // A refused move ends its transaction here, so its connection comes back clean.
                if tx.rollback().await.is_ok() {
                    conn.release();
                }
                return Err(e);
            }
        };
        tx.commit().await?;
        conn.release();
        match acted {
            Acted::Applied(t, view) => {
                // BEGIN and COMMIT, the key's claim and answer, the tournament's escape check,
                // and what the table sent (its load and save included). A fast attempt's
                // statement was counted by the committer.
                let around = 2 + 2 * u64::from(keyed) + u64::from(t.tournament_id().is_some());
                self.counters.count(
                    MovePath::Transaction,
                    t.game_name(),
                    around + t.statements(),
                );
                self.publish(*t);
                Ok(view)
            }
            Acted::Replayed(view) => Ok(view),
        }
    }

    /// A table committed outside a move (a seat taken, a table made): kept like a move's, so
    /// that its streams here need no read and its first move may take the fast path; returns
    /// `user`'s view of it.
    pub fn committed(&self, t: Table, user: &AuthUser) -> View {
        let view = t.view(Some(user.id));
        self.publish(t);
        view
    }

    /// Stores a committed table and tells this process's long-polls and streams of its version.
    fn publish(&self, t: Table) {
        // The table first, so that waiters woken by the news find it.
        let (id, version) = (t.id(), t.version());
        self.tables.put(Arc::new(t));
        self.stored.notify_waiters();
        self.hub.publish(id, version);
    }

    /// The fast path: the move worked out on the cached table at `req.version`, committed by
    /// one statement that writes only over that version. Not taken for a table not cached at
    /// that version, when `plan_move` declines, or when the statement finds the row moved on
    /// (another process moved first) or a purse the step assumed changed (the cached copy is
    /// dropped either way), or the Idempotency-Key already used; the transactional path then answers as it always has (a 409 with the
    /// view, the stored answer, a refusal).
    async fn act_fast(
        &self,
        user: &AuthUser,
        id: Uuid,
        req: &ActionRequest,
        idempotency_key: Option<&str>,
    ) -> ApiResult<Fast> {
        let declined = Fast::NeedsTransaction;
        if !self.fast {
            return Ok(declined);
        }
        let Some(cached) = self.tables.exactly(id, req.version) else {
            return Ok(declined);
        };
        let Some(t) = cached.plan_move(user.id, &req.action) else {
            return Ok(declined);
        };
        let view = t.view(Some(user.id));
        let keyed = keyed(user, req, idempotency_key, id, || json_view(&view))?;
        // The committer counts the statements it sends (one may carry several moves); a move
        // that missed here is counted with its transaction, without them.
        let (t, hit) = match self.committer.save(t, keyed).await {
            Ok(saved) => saved,
            // The key's row exists (a retry or a reuse of the key), a stake found the wallet
            // short (the player staked at another table meanwhile), a deadlock: the
            // transactional path answers. The failed statement wrote nothing.
            Err(e) if transaction_decides(&e) => return Ok(declined),
            Err(e) => return Err(e.into()),
        };
        if !hit {
            self.tables.forget(id, req.version);
            return Ok(declined);
        }
        self.counters.count(MovePath::Fast, t.game_name(), 0);
        self.publish(t);
        Ok(Fast::Done(view))
    }

    /// One move inside its transaction; nothing is committed here.
    async fn act_in(
        &self,
        tx: &mut PgConnection,
        user: &AuthUser,
        id: Uuid,
        req: ActionRequest,
        idempotency_key: Option<String>,
    ) -> ApiResult<Acted> {
        if let Some(key) = &idempotency_key {
            let request = json!({ "match_id": id, "request": req });
            if let Some(body) = idempotency::claim(&mut *tx, user.id, key, &request).await? {
                return View::from_stored(&body)
                    .map(Acted::Replayed)
                    .ok_or_else(|| {
                        ApiError::Internal(anyhow::anyhow!(
                            "a stored idempotent answer lacks its id or version"
                        ))
                    });
            }
        }
        let mut t = Table::lock_reusing(&mut *tx, id, |version| {
            self.tables.exactly(id, version).and_then(|t| t.fork().ok())
        })
        .await?;
        let seat = t
            .seat_of(user.id)
            .ok_or_else(|| ApiError::Forbidden("you are not seated at this match".into()))?;
        if let Some(tid) = t.tournament_id()
            && crate::players::escaped_tournament(&mut *tx, tid, user.id).await?
        {
            return Err(ApiError::Forbidden(
                "you left this tournament table; its seat is played automatically now".into(),
            ));
        }
        if req.version != t.version() {
            return Err(ApiError::VersionConflict(Box::new(t.view(Some(user.id)))));
        }
        let action = req.action;
        t.run(&mut *tx, Input::Act { seat, action }).await?;
        t.save(&mut *tx).await?;
        let view = t.view(Some(user.id));
        if let Some(key) = &idempotency_key {
            idempotency::answer(&mut *tx, user.id, key, 200, &view).await?;
        }
        Ok(Acted::Applied(Box::new(t), view))
    }

    /// The caller's view; with `wait`, waits (up to its timeout) for a version after its first.
    pub async fn get(
        &self,
        user: &AuthUser,
        id: Uuid,
        wait: Option<(i64, Duration)>,
    ) -> ApiResult<View> {
        let mut newer: Option<i64> = None;
        if let Some((after, timeout)) = wait {
            let _waiting = self.counters.long_poll();
            let mut rx = self.hub.subscribe(id);
            let until = tokio::time::Instant::now() + timeout;
            loop {
                let mut version = *rx.borrow_and_update();
                if version == notify::UNKNOWN {
                    version = sqlx::query_scalar("SELECT version FROM matches WHERE id = $1")
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await?
                        .ok_or_else(|| ApiError::NotFound(format!("no match with id {id}")))?;
                    // Wakes `rx` too, so the next turn of the loop reads whichever is newer.
                    self.hub.publish(id, version);
                }
                if version > after {
                    newer = Some(version);
                    break;
                }
                // At the timeout the answer comes from the database (below), not from what
                // this process was told.
                match tokio::time::timeout_at(until, rx.changed()).await {
                    Ok(Ok(())) => {}
                    _ => break,
                }
            }
        }
        // A committed version's content never changes, and any version past `after` answers a
        // long-poll: a cached table that new is as good as the database's row.
        let cached = match newer {
            Some(v) => self.stored_at_least(id, v).await,
            None => None,
        };
        let t = match cached {
            Some(t) => t,
            None => self.read(id).await?,
        };
        Ok(t.view(Some(user.id)))
    }

    /// Match `id` at version `known` or newer (the version this process was told of; with
    /// [`notify::UNKNOWN`], as committed now): the table this process holds when it is that
    /// new, else read from the database once for every stream that asks meanwhile (and cached).
    /// What a stream makes a `match` event of, its news and its view, so that a move costs the
    /// streams of the process that made it no read, and another process one.
    pub async fn table_at_least(&self, id: Uuid, known: i64) -> ApiResult<Arc<Table>> {
        let read = || {
            self.counters.stream_read();
            self.read(id)
        };
        if known == notify::UNKNOWN {
            return read().await;
        }
        if let Some(t) = self.stored_at_least(id, known).await {
            return Ok(t);
        }
        let t = self.shared_reads.read(id, read).await?;
        if t.version() >= known {
            return Ok(t);
        }
        // The shared read began before version `known` was committed.
        read().await
    }

    /// The match as committed now, read from the database (and cached).
    async fn read(&self, id: Uuid) -> ApiResult<Arc<Table>> {
        let mut conn = self.pool.acquire().await?;
        let t = Arc::new(Table::read(&mut conn, id).await?);
        self.tables.put(t.clone());
        Ok(t)
    }

    /// A 提示 for the caller: the move the game's bot would make in their seat now.
    pub async fn hint(&self, user: &AuthUser, id: Uuid) -> ApiResult<Hint> {
        let t = self.read(id).await?;
        if t.seat_of(user.id).is_none() {
            return Err(ApiError::Forbidden(
                "you are not seated at this match".into(),
            ));
        }
        let action = t
            .hand_seat_of(user.id)
            .and_then(|seat| t.hint(seat))
            .ok_or_else(|| {
                ApiError::NotYourTurn("there is nothing to hint: your seat need not act now".into())
            })?;
        Ok(Hint {
            game: t.game_name(),
            version: t.version(),
            action,
        })
    }

    /// The cached table of match `id` at `version` or newer. The notification can overtake
    /// the commit's reply to the move's own request in this process: while such a move is
    /// under way here, wait (briefly) for it to store its table. (A move that waits for
    /// another process's row lock is not waited for long: the database answers then.)
    async fn stored_at_least(&self, id: Uuid, version: i64) -> Option<Arc<Table>> {
        let until = tokio::time::Instant::now() + STORE_WAIT;
        loop {
            let stored = self.stored.notified();
            tokio::pin!(stored);
            // Registered before looking, so a store between the look and the wait still wakes.
            stored.as_mut().enable();
            let found = self.tables.at_least(id, version);
            if found.is_some() || !self.gates.busy(id) {
                return found;
            }
            if tokio::time::timeout_at(until, stored).await.is_err() {
                return self.tables.at_least(id, version);
            }
        }
    }
}

/// The key's row of a move on the fast path (the request and its answer, the JSON `body`
/// makes), for a keyed move only: a plain one does not pay for the answer as JSON.
fn keyed(
    user: &AuthUser,
    req: &ActionRequest,
    key: Option<&str>,
    id: Uuid,
    body: impl FnOnce() -> ApiResult<Value>,
) -> ApiResult<Option<Keyed>> {
    let Some(key) = key else {
        return Ok(None);
    };
    Ok(Some(Keyed {
        user: user.id,
        key: key.to_owned(),
        request: json!({ "match_id": id, "request": req }),
        body: body()?,
    }))
}

fn json_view(view: &View) -> ApiResult<Value> {
    serde_json::to_value(view)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("a view as JSON: {e}")))
}

/// A 提示: the move the game's bot would make for the caller's seat now.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Hint {
    /// The match's game: `action` is one of its.
    #[schema(value_type = crate::api_types::GameName)]
    pub game: &'static str,
    /// The view's version the hint is for.
    pub version: i64,
    /// An action of the match's game, ready to submit.
    #[schema(value_type = crate::api_types::AnyAction)]
    pub action: Value,
}
