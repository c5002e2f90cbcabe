//! The newest committed row of each match this process has seen, shared by its requests.
//! Every player at a table long-polls it, so each move is followed by one read per other
//! player; a version's content never changes once committed, so those reads, and the 409s of
//! moves sent at an older version, are served from memory. Entries are only added after
//! their transaction committed (or as read), and only ever replaced by newer versions.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use uuid::Uuid;

use super::table::MatchRecord;

/// Bound on cached matches; the map is simply emptied when it fills.
const CAPACITY: usize = 20_000;

static RECORDS: LazyLock<Mutex<HashMap<Uuid, MatchRecord>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The cached row of match `id` if it is at `version` or newer.
pub fn at_least(id: Uuid, version: i64) -> Option<MatchRecord> {
    let map = RECORDS.lock().ok()?;
    map.get(&id).filter(|r| r.version >= version).cloned()
}

/// Remembers a committed row, unless a newer version is already held.
pub fn put(record: MatchRecord) {
    let Ok(mut map) = RECORDS.lock() else { return };
    if map
        .get(&record.id)
        .is_some_and(|r| r.version >= record.version)
    {
        return;
    }
    if map.len() >= CAPACITY {
        map.clear();
    }
    map.insert(record.id, record);
}
