//! One simulated player: sits at one seat of a match formed with the other clients of its
//! group, plays its turns, and moves on to a new match when one finishes.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use fastrand::Rng;
use serde_json::Value;
use tokio::sync::{Mutex, watch};
use tokio::time::Instant;

use crate::api::{Api, Failure, View};
use crate::choose::Game;
use crate::stats::ClientStats;

/// Longest long-poll asked for; shorter near the end of the run.
const MAX_WAIT_SECS: u64 = 10;
/// Pause after an unexpected failure, so a repeated error cannot spin.
const BACKOFF: Duration = Duration::from_millis(50);

/// Counters the progress line reads while the run goes on.
#[derive(Default)]
pub struct Live {
    pub moves: AtomicU64,
    pub conflicts: AtomicU64,
    pub errors: AtomicU64,
}

impl Live {
    /// Counts a failure: an expected race (409) or an error, by its key.
    pub fn failed(&self, stats: &mut ClientStats, f: &Failure) {
        let (map, live) = if f.expected() {
            (&mut stats.conflicts, &self.conflicts)
        } else {
            (&mut stats.errors, &self.errors)
        };
        *map.entry(f.key()).or_default() += 1;
        live.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts an accepted move and its latency.
    pub fn moved(&self, stats: &mut ClientStats, action: &Value, took: Duration) {
        stats.latencies_us.push(took.as_micros() as u64);
        let kind = action["type"].as_str().unwrap_or("?").to_string();
        *stats.moves_by_type.entry(kind).or_default() += 1;
        self.moves.fetch_add(1, Ordering::Relaxed);
    }
}

/// How a client finds its group's current match: seat 0 creates it and announces its id; the
/// others join it one at a time, holding the group's gate. (Concurrent joins of one match can
/// leave it full but never dealt: a join that waited for the match row lock reads the seats
/// with the snapshot from before the other join committed.)
pub enum Role {
    Creator(watch::Sender<Option<String>>),
    Joiner(watch::Receiver<Option<String>>, Arc<Mutex<()>>),
}

pub struct Client {
    pub api: Api,
    pub game: Game,
    pub seat: usize,
    pub role: Role,
    /// Body of `POST /v1/matches` (seat 0 only).
    pub create: Value,
    pub deadline: Instant,
    pub rng: Rng,
    pub live: Arc<Live>,
    pub stats: ClientStats,
}

impl Client {
    /// Plays until the deadline; whatever request is in flight then is dropped.
    pub async fn run(mut self) -> ClientStats {
        let deadline = self.deadline;
        let _ = tokio::time::timeout_at(deadline, self.play()).await;
        self.stats
    }

    async fn play(&mut self) {
        let mut last: Option<String> = None;
        while let Some(view) = self.enter(last.as_deref()).await {
            last = Some(view.id.clone());
            self.play_match(view).await;
            if matches!(self.role, Role::Creator(_)) {
                self.stats.matches_finished += 1;
            }
        }
    }

    fn failed(&mut self, f: &Failure) {
        self.live.failed(&mut self.stats, f);
    }

    /// Takes this client's seat in its group's next match (not `last`); `None` once the
    /// group's creator has stopped.
    async fn enter(&mut self, last: Option<&str>) -> Option<View> {
        loop {
            let result = match &mut self.role {
                Role::Creator(tx) => {
                    let r = self.api.create(&self.create).await;
                    if let Ok(v) = &r {
                        tx.send_replace(Some(v.id.clone()));
                    }
                    r
                }
                Role::Joiner(rx, gate) => {
                    let id = rx
                        .wait_for(|id| id.as_deref().is_some_and(|id| Some(id) != last))
                        .await
                        .ok()?
                        .clone()?;
                    let gate = gate.clone();
                    let _turn = gate.lock().await;
                    match self.api.join(&id, self.seat).await {
                        // Seated by an earlier attempt whose answer was lost.
                        Err(f) if f.code() == Some("conflict") => {
                            self.failed(&f);
                            self.api.view(&id, None).await
                        }
                        r => r,
                    }
                }
            };
            match result {
                Ok(v) if v.seat().is_some() => return Some(v),
                Ok(_) => {}
                Err(f) => self.failed(&f),
            }
            tokio::time::sleep(BACKOFF).await;
        }
    }

    /// The view of match `id`, waiting for a version after `after` when given; retried until
    /// it comes (the run's deadline bounds the retries).
    async fn fetch(&mut self, id: &str, after: Option<i64>) -> View {
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let wait = after.map(|v| (v, left.as_secs().clamp(1, MAX_WAIT_SECS)));
            match self.api.view(id, wait).await {
                Ok(v) => return v,
                Err(f) => self.failed(&f),
            }
            tokio::time::sleep(BACKOFF).await;
        }
    }

    async fn play_match(&mut self, mut view: View) {
        while !view.over() {
            let action = if view.my_turn() {
                self.game.choose(&view, &mut self.rng)
            } else {
                None
            };
            let Some(action) = action else {
                view = self.fetch(&view.id, Some(view.version)).await;
                continue;
            };
            let started = std::time::Instant::now();
            let result = self.api.act(&view.id, view.version, &action).await;
            let took = started.elapsed();
            view = match result {
                Ok(next) => {
                    self.live.moved(&mut self.stats, &action, took);
                    next
                }
                Err(f) => {
                    self.failed(&f);
                    let expected = f.expected();
                    match f {
                        Failure::Problem { view: Some(v), .. } => *v,
                        _ => {
                            if !expected {
                                tokio::time::sleep(BACKOFF).await;
                            }
                            self.fetch(&view.id, None).await
                        }
                    }
                }
            };
        }
    }
}
