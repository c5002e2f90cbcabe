//! Wakes long-polls when a match changes, in this process and in every other one: the
//! `matches_version_changed` trigger NOTIFYs on commit and each process LISTENs.

use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::broadcast;
use uuid::Uuid;

#[derive(Clone)]
pub struct Hub {
    tx: broadcast::Sender<(Uuid, i64)>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            tx: broadcast::channel(4096).0,
        }
    }
}

impl Hub {
    pub fn subscribe(&self) -> broadcast::Receiver<(Uuid, i64)> {
        self.tx.subscribe()
    }

    /// Waits until `id` is announced; returns its new version, or `None` when the channel
    /// lagged (the caller must look in the database).
    pub async fn changed(rx: &mut broadcast::Receiver<(Uuid, i64)>, id: Uuid) -> Option<i64> {
        loop {
            match rx.recv().await {
                Ok((m, version)) if m == id => return Some(version),
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(_)) => return None,
                Err(broadcast::error::RecvError::Closed) => {
                    std::future::pending::<()>().await;
                }
            }
        }
    }

    /// Forwards the database's notifications to this process's waiters until the process ends.
    pub fn spawn_listener(&self, pool: PgPool) -> tokio::task::JoinHandle<()> {
        let tx = self.tx.clone();
        tokio::spawn(async move {
            loop {
                match listen(&pool, &tx).await {
                    Ok(()) => return,
                    Err(e) => {
                        tracing::warn!(error = %e, "match notifications interrupted; reconnecting");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
            }
        })
    }
}

async fn listen(pool: &PgPool, tx: &broadcast::Sender<(Uuid, i64)>) -> sqlx::Result<()> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen("paiju_match").await?;
    loop {
        let n = listener.recv().await?;
        if let Some((id, version)) = n.payload().split_once(':')
            && let (Ok(id), Ok(version)) = (id.parse(), version.parse())
        {
            // No receivers is normal: nobody is long-polling right now.
            let _ = tx.send((id, version));
        }
    }
}
