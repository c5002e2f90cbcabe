//! Group commit of fast moves: moves of different matches worked out in memory at the same
//! time are saved by ONE statement (`table::save_many`), each over its own loaded version.
//!
//! A move hands its table to the committer and waits. At most `lanes` statements are in flight
//! per process; a move arriving while no lane is busy is sent at once, alone (no added wait
//! when the server is quiet), and moves arriving while a lane is busy queue up and leave
//! together with its next statement, up to `max_batch` at a time; another lane opens only
//! once `QUEUE_FOR_A_LANE` moves wait ([`opens_lane`]). Under load a statement then
//! carries several moves, and PostgreSQL's cost per statement (the round trip, the plan's
//! start, the commit and its WAL flush) is shared by them: docs/performance.md § Group
//! commit and stakes in the statement.
//!
//! Each table of a batch is written only if its row is still at its loaded version (and the
//! purses its step assumed still hold), so one table another process moved first leaves the
//! others' saves whole; its move takes the transactional path, as a single fast move that
//! missed does. A statement that fails (an
//! Idempotency-Key already used, a stake its wallet no longer covers, a deadlock with another
//! process) wrote nothing for any of its moves: each is then tried alone, so one move's error
//! never becomes another's.
//! A lane is a task of its own: a request that goes away (its client disconnected) does not
//! cancel the statement that carries other requests' moves. A move that ends a hand and deals
//! the next is one table's rows like any other: it shares a statement too.

use std::sync::{Arc, Mutex, PoisonError};
use tracing::Instrument;

use tokio::sync::oneshot;

use super::counters::{MoveCounters, MovePath};
use super::table::{Keyed, Table, save_many};
use crate::db::MoveConns;

/// Moves waiting while every open lane is busy before another lane opens (up to `lanes`).
const QUEUE_FOR_A_LANE: usize = 8;

/// Whether a move just queued (`waiting` moves now wait, `busy` of `lanes` lanes are sending,
/// each statement carries at most `max_batch`) opens a lane. The first lane opens at once, so
/// a quiet server adds no wait; another only when more moves wait than the busy lane's next
/// statement would carry together anyway (`QUEUE_FOR_A_LANE`, or `max_batch` when smaller):
/// while one lane keeps up, fewer and fuller statements cost PostgreSQL less per move
/// (docs/performance.md § One lane until a queue, 2026-11-29).
fn opens_lane(busy: usize, lanes: usize, waiting: usize, max_batch: usize) -> bool {
    busy == 0 || (busy < lanes && waiting >= QUEUE_FOR_A_LANE.min(max_batch))
}

/// A table saved (`true`) or left behind by its row (`false`), returned to its move.
type Saved = Result<(Table, bool), sqlx::Error>;

struct Waiting {
    table: Table,
    keyed: Option<Keyed>,
    /// Where the answer goes.
    reply: oneshot::Sender<Saved>,
    /// The request's span: what the lane logs of this move carries its request id.
    span: tracing::Span,
}

/// The moves waiting for a statement and the lanes sending them. Whenever a move waits, a
/// lane is busy: the lane that finds the queue empty frees its place under the same lock a
/// move is queued under.
struct Queue<W = Waiting> {
    waiting: Vec<W>,
    busy_lanes: usize,
}

impl<W> Default for Queue<W> {
    fn default() -> Self {
        Queue {
            waiting: Vec::new(),
            busy_lanes: 0,
        }
    }
}

impl<W> Queue<W> {
    /// Queues `w`; whether a lane is to be started for it (its place is taken).
    fn push(&mut self, w: W, lanes: usize, max_batch: usize) -> bool {
        self.waiting.push(w);
        let open = opens_lane(self.busy_lanes, lanes, self.waiting.len(), max_batch);
        self.busy_lanes += usize::from(open);
        open
    }

    /// A busy lane's next batch, taken by `take`; `None` when nothing waits, and then the
    /// lane's place is freed.
    fn next(&mut self, take: impl FnOnce(&mut Vec<W>) -> Vec<W>) -> Option<Vec<W>> {
        if self.waiting.is_empty() {
            self.busy_lanes -= 1;
            return None;
        }
        Some(take(&mut self.waiting))
    }
}

struct Inner {
    conns: Arc<MoveConns>,
    counters: MoveCounters,
    lanes: usize,
    max_batch: usize,
    queue: Mutex<Queue>,
}

pub struct Committer {
    inner: Arc<Inner>,
}

impl Committer {
    /// A committer with at most `lanes` statements in flight, each carrying at most
    /// `max_batch` moves (1: every move its own statement), counting its statements in
    /// `counters`.
    pub fn new(
        conns: Arc<MoveConns>,
        counters: MoveCounters,
        lanes: usize,
        max_batch: usize,
    ) -> Committer {
        Committer {
            inner: Arc::new(Inner {
                conns,
                counters,
                lanes: lanes.max(1),
                max_batch: max_batch.max(1),
                queue: Mutex::default(),
            }),
        }
    }

    /// Saves `table` over the version it was loaded at, with the key's row when `keyed`, in a
    /// statement shared with the other moves ready now. Returns the table as saved and whether
    /// its row was still at that version (`false`: nothing of it was written).
    pub async fn save(&self, table: Table, keyed: Option<Keyed>) -> Saved {
        let (reply, answer) = oneshot::channel();
        let waiting = Waiting {
            table,
            keyed,
            reply,
            span: tracing::Span::current(),
        };
        let start_lane =
            lock(&self.inner.queue).push(waiting, self.inner.lanes, self.inner.max_batch);
        if start_lane {
            tokio::spawn(self.inner.clone().lane());
        }
        // A lane always answers: only a runtime shutting down drops it first.
        answer.await.unwrap_or(Err(sqlx::Error::PoolClosed))
    }
}

/// A running lane's place in `busy_lanes`. A lane that runs dry frees it with the look that
/// found the queue empty; one that ends otherwise (a panic) frees it on the way out, so the
/// next move opens a lane again instead of waiting for a queue.
struct LanePlace<'a> {
    queue: &'a Mutex<Queue>,
    held: bool,
}

impl Drop for LanePlace<'_> {
    fn drop(&mut self) {
        if self.held {
            lock(self.queue).busy_lanes -= 1;
        }
    }
}

fn lock(queue: &Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    queue.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Inner {
    /// Sends what is waiting, a batch at a time, until nothing is; then the lane is free.
    async fn lane(self: Arc<Self>) {
        let mut place = LanePlace {
            queue: &self.queue,
            held: true,
        };
        loop {
            let Some(batch) = lock(&self.queue).next(|w| self.take(w)) else {
                place.held = false;
                return;
            };
            self.commit(batch).await;
        }
    }

    /// The oldest waiting saves, at most `max_batch`, one per match (a process has one move
    /// of a match in flight at a time, so this is a safeguard: two saves of one row in a
    /// statement would both write their events), and none whose assumed purses another save
    /// of the batch moves ([`Table::clashes_with`]).
    fn take(&self, waiting: &mut Vec<Waiting>) -> Vec<Waiting> {
        let mut batch: Vec<Waiting> = Vec::new();
        let mut rest = Vec::new();
        for w in waiting.drain(..) {
            let apart =
                |b: &Waiting| b.table.id() != w.table.id() && !b.table.clashes_with(&w.table);
            if batch.len() < self.max_batch && batch.iter().all(apart) {
                batch.push(w);
            } else {
                rest.push(w);
            }
        }
        *waiting = rest;
        batch
    }

    async fn commit(&self, batch: Vec<Waiting>) {
        if batch.len() > 1 {
            match self.save_together(&batch).await {
                Ok(hits) => {
                    for (mut w, hit) in batch.into_iter().zip(hits) {
                        w.span.in_scope(|| w.table.saved(hit));
                        let _ = w.reply.send(Ok((w.table, hit)));
                    }
                    return;
                }
                Err(e) => {
                    tracing::debug!(error = %e, moves = batch.len(),
                        "a group commit failed; saving its moves one by one");
                }
            }
        }
        for w in batch {
            let saved = self
                .save_alone(w.table, w.keyed.as_ref())
                .instrument(w.span)
                .await;
            let _ = w.reply.send(saved);
        }
    }

    async fn save_together(&self, batch: &[Waiting]) -> Result<Vec<bool>, sqlx::Error> {
        let mut conn = self.conns.acquire().await?;
        let tables: Vec<_> = batch.iter().map(|w| (&w.table, w.keyed.as_ref())).collect();
        self.counters.statements(MovePath::Fast, 1);
        let hits = save_many(&mut conn, &tables).await;
        // A statement outside a transaction leaves its connection clean, failed or not, unless
        // the connection itself broke.
        if !matches!(hits, Err(sqlx::Error::Io(_) | sqlx::Error::Protocol(_))) {
            conn.release();
        }
        hits
    }

    async fn save_alone(&self, mut table: Table, keyed: Option<&Keyed>) -> Saved {
        let mut conn = self.conns.acquire().await?;
        self.counters.statements(MovePath::Fast, 1);
        let hit = table.save_if_unmoved(&mut conn, keyed).await;
        if !matches!(hit, Err(sqlx::Error::Io(_) | sqlx::Error::Protocol(_))) {
            conn.release();
        }
        hit.map(|hit| (table, hit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_lane_opens_at_once_another_only_for_a_queue() {
        assert!(
            opens_lane(0, 2, 1, 64),
            "a quiet server sends a move at once"
        );
        assert!(opens_lane(0, 1, 1, 64));
        assert!(
            !opens_lane(1, 2, 1, 64),
            "a move joins the busy lane's next statement"
        );
        assert!(!opens_lane(1, 2, QUEUE_FOR_A_LANE - 1, 64));
        assert!(
            opens_lane(1, 2, QUEUE_FOR_A_LANE, 64),
            "a queue opens the second lane"
        );
        assert!(!opens_lane(2, 2, 100, 64), "never more than `lanes`");
        assert!(!opens_lane(1, 1, 100, 64));
        // A statement of one move each (`PAIJU_COMMIT_BATCH=1`) gains nothing by waiting.
        assert!(opens_lane(1, 2, 1, 1));
        assert!(opens_lane(1, 3, 2, 2));
    }

    proptest::proptest! {
        /// Moves arriving and lanes sending in any order: a waiting move always has a busy
        /// lane (none is stranded), no more than `lanes` are busy, every move is sent once and
        /// in order, and a queue shorter than the threshold opens no second lane.
        #[test]
        fn no_waiting_move_is_ever_without_a_lane(
            lanes in 1usize..=3,
            max_batch in proptest::sample::select(vec![1usize, 2, 8, 64]),
            arrivals in proptest::collection::vec(proptest::bool::ANY, 0..300),
        ) {
            let mut q: Queue<u32> = Queue::default();
            let (mut next_move, mut running, mut sent) = (0u32, 0usize, Vec::new());
            let take = |w: &mut Vec<u32>| {
                let n = w.len().min(max_batch);
                w.drain(..n).collect::<Vec<_>>()
            };
            for arrives in arrivals {
                if arrives {
                    let busy = q.busy_lanes;
                    let opened = q.push(next_move, lanes, max_batch);
                    running += usize::from(opened);
                    if busy > 0 && opened {
                        proptest::prop_assert!(
                            q.waiting.len() >= QUEUE_FOR_A_LANE.min(max_batch)
                        );
                    }
                    next_move += 1;
                } else if running > 0 {
                    match q.next(take) {
                        Some(batch) => sent.extend(batch),
                        None => running -= 1,
                    }
                }
                proptest::prop_assert_eq!(q.busy_lanes, running);
                proptest::prop_assert!(q.busy_lanes <= lanes);
                proptest::prop_assert!(q.waiting.is_empty() || q.busy_lanes > 0);
            }
            while running > 0 {
                match q.next(take) {
                    Some(batch) => sent.extend(batch),
                    None => running -= 1,
                }
            }
            proptest::prop_assert_eq!(sent, (0..next_move).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_lane_that_panics_gives_its_place_back() {
        let queue: Mutex<Queue> = Mutex::default();
        lock(&queue).busy_lanes = 1;
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _place = LanePlace {
                queue: &queue,
                held: true,
            };
            panic!("a lane's statement panicked");
        }));
        assert!(unwound.is_err());
        assert_eq!(
            lock(&queue).busy_lanes,
            0,
            "the next move opens a lane at once"
        );
    }
}
