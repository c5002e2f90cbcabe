//! One move at a time per match within this process. Moves of one table that arrive together
//! (every seat acts at once in 扯旋's 簸簸 and split phases) queue here instead of in
//! PostgreSQL: the first one takes the row lock and commits, and the others, let in one by
//! one, find its version in the row cache and are answered 409 without a statement. The row
//! lock in the database still serialises moves across processes; this only spares the
//! database the queue.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::OwnedMutexGuard;
use uuid::Uuid;

type Map = HashMap<Uuid, Arc<tokio::sync::Mutex<()>>>;

/// The gates of this process's matches.
#[derive(Default)]
pub struct Gates {
    map: Mutex<Map>,
}

/// Held while one request works on a match; dropping it lets the next one in.
pub struct Gate<'a> {
    gates: &'a Gates,
    id: Uuid,
    guard: Option<OwnedMutexGuard<()>>,
}

impl Gates {
    fn map(&self) -> std::sync::MutexGuard<'_, Map> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for this process's turn on match `id`.
    pub async fn enter(&self, id: Uuid) -> Gate<'_> {
        let lock = self.map().entry(id).or_default().clone();
        Gate {
            gates: self,
            id,
            guard: Some(lock.lock_owned().await),
        }
    }

    /// Whether a request of this process is working on match `id` now.
    pub fn busy(&self, id: Uuid) -> bool {
        self.map().contains_key(&id)
    }
}

impl Drop for Gate<'_> {
    fn drop(&mut self) {
        let mut gates = self.gates.map();
        drop(self.guard.take());
        // Nobody holds or waits for it (waiters hold a clone): forget the match.
        if gates
            .get(&self.id)
            .is_some_and(|g| Arc::strong_count(g) == 1)
        {
            gates.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn requests_for_one_match_take_turns_and_the_entry_is_forgotten() {
        let gates: &'static Gates = Box::leak(Box::default());
        let id = Uuid::new_v4();
        assert!(!gates.busy(id));
        let first = gates.enter(id).await;
        assert!(gates.busy(id));
        let waiting = tokio::spawn(gates.enter(id));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !waiting.is_finished(),
            "the second request waits for the first"
        );
        let other = tokio::time::timeout(Duration::from_secs(1), gates.enter(Uuid::new_v4())).await;
        assert!(other.is_ok(), "other matches are not held up");
        drop(first);
        let second = tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .expect("let in once the first is done")
            .unwrap();
        drop(second);
        drop(other);
        assert!(
            !gates.busy(id),
            "forgotten once nobody holds or waits for it"
        );
    }
}
