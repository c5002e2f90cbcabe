//! The newest committed version of each match this process has seen, parsed, shared by its
//! requests. Every player at a table long-polls it, so each move is followed by one read per
//! other player; a version's content never changes once committed, so those reads, the 409s of
//! moves sent at an older version, and the next move's load (when the locked row is still at
//! the cached version) are served from memory. Entries are only added after their transaction
//! committed (or as read), and only ever replaced by newer versions.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;
use uuid::Uuid;

use super::table::Table;
use crate::error::ApiError;

/// Bound on cached matches; the map is simply emptied when it fills.
const CAPACITY: usize = 20_000;

#[derive(Default)]
pub struct Tables {
    map: Mutex<HashMap<Uuid, Arc<Table>>>,
}

impl Tables {
    /// The cached match `id` if it is at `version` or newer.
    pub fn at_least(&self, id: Uuid, version: i64) -> Option<Arc<Table>> {
        self.find(id, |v| v >= version)
    }

    /// The cached match `id` if it is exactly at `version`.
    pub fn exactly(&self, id: Uuid, version: i64) -> Option<Arc<Table>> {
        self.find(id, |v| v == version)
    }

    fn find(&self, id: Uuid, wanted: impl Fn(i64) -> bool) -> Option<Arc<Table>> {
        let map = self.map.lock().ok()?;
        map.get(&id).filter(|t| wanted(t.version())).cloned()
    }

    /// How many matches are held.
    pub fn len(&self) -> usize {
        self.map.lock().map_or(0, |m| m.len())
    }

    /// Drops the cached match `id` if it is still at `version` (which the database has left).
    pub fn forget(&self, id: Uuid, version: i64) {
        let Ok(mut map) = self.map.lock() else { return };
        if map.get(&id).is_some_and(|t| t.version() == version) {
            map.remove(&id);
        }
    }

    /// Remembers a committed table, unless a newer version is already held.
    pub fn put(&self, table: Arc<Table>) {
        let Ok(mut map) = self.map.lock() else { return };
        if map
            .get(&table.id())
            .is_some_and(|t| t.version() >= table.version())
        {
            return;
        }
        if map.len() >= CAPACITY {
            map.clear();
        }
        map.insert(table.id(), table);
    }
}

/// Reads of a match from the database in flight, each shared by every caller that asks for
/// the same match while it runs: the streams of a table's seats all wake for its new version,
/// and the first one's read serves the others. Only reads in flight are kept.
#[derive(Default)]
pub struct SharedReads {
    map: Mutex<HashMap<Uuid, Arc<OnceCell<Arc<Table>>>>>,
}

/// A caller's part in a shared read: when the read is done, or its last caller went away
/// (a stream whose client left mid-read), the map forgets it, so the next caller reads anew.
struct Joined<'a> {
    reads: &'a SharedReads,
    id: Uuid,
    cell: Arc<OnceCell<Arc<Table>>>,
}

impl Drop for Joined<'_> {
    fn drop(&mut self) {
        let mut map = self.reads.map.lock().unwrap_or_else(|e| e.into_inner());
        let ours = map
            .get(&self.id)
            .is_some_and(|c| Arc::ptr_eq(c, &self.cell));
        // Two holders: the map and this caller, nobody else waiting.
        if ours && (self.cell.initialized() || Arc::strong_count(&self.cell) <= 2) {
            map.remove(&self.id);
        }
    }
}

impl SharedReads {
    /// Match `id` as `read` reads it, joining a read of it already in flight.
    pub async fn read<F, Fut>(&self, id: Uuid, read: F) -> Result<Arc<Table>, ApiError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Arc<Table>, ApiError>>,
    {
        let cell = {
            let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(id).or_default().clone()
        };
        let joined = Joined {
            reads: self,
            id,
            cell,
        };
        joined.cell.get_or_try_init(read).await.cloned()
    }

    /// Reads in flight (a test's look).
    #[cfg(test)]
    fn in_flight(&self) -> usize {
        self.map.lock().map_or(0, |m| m.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_read_whose_callers_all_went_away_is_forgotten() {
        let reads = SharedReads::default();
        let id = Uuid::new_v4();
        // A caller that goes away mid-read (its future dropped before the read finished).
        let pending = reads.read(id, std::future::pending);
        let cancelled = tokio::time::timeout(std::time::Duration::from_millis(10), pending).await;
        assert!(cancelled.is_err());
        assert_eq!(
            reads.in_flight(),
            0,
            "nothing is kept for a read nobody waits for"
        );
        // A failed read is forgotten too, and the next caller reads anew.
        let failed = reads
            .read(id, || async { Err(ApiError::NotFound("gone".into())) })
            .await;
        assert!(failed.is_err());
        assert_eq!(reads.in_flight(), 0);
    }
}
