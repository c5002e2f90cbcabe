//! What this process knows of every match's current version, kept by PostgreSQL's
//! notifications: the `matches_version_changed` trigger NOTIFYs on commit and each process
//! LISTENs, so a long-poll learns of a new version, in this process or in any other, without
//! asking the database. A match whose version is unknown here (never notified since this
//! process started, or the listener reconnected since) is looked up in the database once.
//! The same listener hears of new player notices (`paiju_user`) and of revoked tokens
//! (`paiju_tokens_revoked`: a deleted account, a password change), which every process then
//! refuses.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::watch;
use uuid::Uuid;

use crate::auth::Revoked;

/// A version not known here.
pub const UNKNOWN: i64 = -1;

/// Matches remembered before those nobody waits for are forgotten.
const CAPACITY: usize = 50_000;

#[derive(Clone, Default)]
pub struct Hub {
    versions: Arc<Mutex<HashMap<Uuid, watch::Sender<i64>>>>,
    /// Players with a stream open in this process: bumped when a notice of theirs is committed
    /// (`paiju_user`), or when notifications may have been missed.
    users: Arc<Mutex<HashMap<Uuid, watch::Sender<u64>>>>,
    /// Accounts whose older tokens are refused (`paiju_tokens_revoked`).
    revoked: Option<Revoked>,
}

impl Hub {
    /// A hub that also keeps `revoked` up to date with every process's account deletions.
    pub fn new(revoked: Revoked) -> Hub {
        Hub {
            revoked: Some(revoked),
            ..Hub::default()
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, watch::Sender<i64>>> {
        self.versions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The map, with room for one more match: when full, the matches nobody waits for are
    /// forgotten.
    fn map_with_room(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, watch::Sender<i64>>> {
        let mut map = self.map();
        if map.len() >= CAPACITY {
            map.retain(|_, tx| tx.receiver_count() > 0);
        }
        map
    }

    /// Follows match `id`: the receiver holds the newest version known here, or `UNKNOWN`.
    pub fn subscribe(&self, id: Uuid) -> watch::Receiver<i64> {
        self.map_with_room()
            .entry(id)
            .or_insert_with(|| watch::channel(UNKNOWN).0)
            .subscribe()
    }

    /// Records that `version` of match `id` is committed (from a notification, a read, or this
    /// process's own commit) and wakes whoever waits for it.
    pub fn publish(&self, id: Uuid, version: i64) {
        self.map_with_room()
            .entry(id)
            .or_insert_with(|| watch::channel(UNKNOWN).0)
            .send_if_modified(|known| {
                let newer = *known < version;
                if newer {
                    *known = version;
                }
                newer
            });
    }

    /// Whether `user`'s tokens of generation `generation` are refused (the account was deleted, or
    /// its password changed since).
    pub fn refuses(&self, user: Uuid, generation: i64) -> bool {
        self.revoked
            .as_ref()
            .is_some_and(|r| r.refuses(user, generation))
    }

    fn user_map(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, watch::Sender<u64>>> {
        self.users.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Follows `user`'s notices: the receiver changes whenever one may have been committed.
    pub fn subscribe_user(&self, user: Uuid) -> watch::Receiver<u64> {
        self.user_map()
            .entry(user)
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// Forgets `user` once none of their streams follows them any more.
    pub fn unsubscribe_user(&self, user: Uuid) {
        let mut map = self.user_map();
        if map.get(&user).is_some_and(|tx| tx.receiver_count() == 0) {
            map.remove(&user);
        }
    }

    /// A notice of `user`'s was committed: wakes their streams in this process.
    fn publish_user(&self, user: Uuid) {
        if let Some(tx) = self.user_map().get(&user) {
            tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Forgets every version (notifications may have been missed): waiters wake and ask the
    /// database, and so does every stream.
    fn forget_all(&self) {
        let mut map = self.map();
        map.retain(|_, tx| tx.receiver_count() > 0);
        for tx in map.values() {
            tx.send_replace(UNKNOWN);
        }
        for tx in self.user_map().values() {
            tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Forwards the database's notifications to this process's waiters until the process ends.
    pub fn spawn_listener(&self, pool: PgPool) -> tokio::task::JoinHandle<()> {
        let hub = self.clone();
        tokio::spawn(async move {
            loop {
                match hub.listen(&pool).await {
                    Ok(()) => return,
                    Err(e) => {
                        tracing::warn!(error = %e, "match notifications interrupted; reconnecting");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
            }
        })
    }

    async fn listen(&self, pool: &PgPool) -> sqlx::Result<()> {
        let mut listener = PgListener::connect_with(pool).await?;
        listener
            .listen_all(["paiju_match", "paiju_user", "paiju_tokens_revoked"])
            .await?;
        // Commits made while no listener was connected were not announced.
        self.forget_all();
        if let Some(revoked) = &self.revoked {
            revoked.reload(pool).await?;
        }
        loop {
            // `recv` would reconnect silently and hide the notifications missed meanwhile: a
            // lost connection ends this listener, and the next one forgets and reloads after
            // its LISTEN, so nothing committed in between goes unheard.
            let Some(n) = listener.try_recv().await? else {
                return Err(sqlx::Error::Protocol(
                    "the notification connection was lost".into(),
                ));
            };
            if n.channel() == "paiju_tokens_revoked" {
                if let Some(revoked) = &self.revoked
                    && let Some((user, generation)) = n.payload().split_once(':')
                    && let Ok(user) = user.parse()
                {
                    match generation.parse() {
                        Ok(generation) => revoked.refuse_before(user, generation),
                        Err(_) => revoked.add(user),
                    }
                    // Their open streams wake, find their tokens refused and end.
                    self.publish_user(user);
                }
                continue;
            }
            let Some((id, n_or_version)) = n.payload().split_once(':') else {
                continue;
            };
            let Ok(id) = id.parse() else { continue };
            match n.channel() {
                "paiju_match" => {
                    if let Ok(version) = n_or_version.parse() {
                        self.publish(id, version);
                    }
                }
                _ => self.publish_user(id),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_only_move_forward_and_wake_subscribers() {
        let hub = Hub::default();
        let id = Uuid::new_v4();
        let mut rx = hub.subscribe(id);
        assert_eq!(*rx.borrow_and_update(), UNKNOWN);
        hub.publish(id, 5);
        assert!(rx.has_changed().unwrap());
        assert_eq!(*rx.borrow_and_update(), 5);
        hub.publish(id, 4);
        assert!(!rx.has_changed().unwrap(), "an older version is no news");
        hub.forget_all();
        assert_eq!(*rx.borrow_and_update(), UNKNOWN);
        let other = Uuid::new_v4();
        hub.publish(other, 2);
        assert_eq!(
            *hub.subscribe(other).borrow(),
            2,
            "known before anyone asked"
        );
    }
}
