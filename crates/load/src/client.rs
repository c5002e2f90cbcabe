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
use crate::choose::Chooser;
use crate::stats::ClientStats;

/// Longest long-poll asked for; shorter near the end of the run.
const MAX_WAIT_SECS: u64 = 10;
/// Pause after an unexpected failure, so a repeated error cannot spin.
pub const BACKOFF: Duration = Duration::from_millis(50);
/// Moves refused (422) at one version after which a client stops choosing there and waits for
/// the next version: the turn's deadline, whose automatic action moves the table on.
const MAX_REFUSED: u32 = 3;

/// Counters the progress line reads while the run goes on.
#[derive(Default)]
pub struct Live {
    pub moves: AtomicU64,
    pub conflicts: AtomicU64,
    pub errors: AtomicU64,
}

/// What every client has, whichever way it drives the server (a seat here, a table in
/// `table.rs`): how it chooses its game's moves, the run's end, its randomness and its counts.
pub struct Play {
    /// The game's random chooser; `None` plays the server's hints.
    pub chooser: Option<Chooser>,
    /// Body of `POST /v1/matches`.
    pub create: Value,
    pub deadline: Instant,
    pub rng: Rng,
    pub live: Arc<Live>,
    pub stats: ClientStats,
    /// Moves refused (422) at one version: (version, how many).
    pub refused: (i64, u32),
}

impl Play {
    /// A move for the seat of `view` (whose player is `api`), unless there is none to make or
    /// `MAX_REFUSED` moves were already refused at this version (a chooser that keeps choosing
    /// a refused move must not loop: a random chooser gets these tries to pick another one,
    /// then the client waits). Without a chooser, the move is the server's hint, any game's
    /// legal move: `None` when the hint fails or the match has moved on since `view`.
    pub async fn choose(&mut self, api: &Api, view: &View) -> Option<Value> {
        if self.refused.0 == view.version && self.refused.1 >= MAX_REFUSED {
            return None;
        }
        match self.chooser {
            Some(chooser) => chooser.choose(view, &mut self.rng),
            None => match api.hint(&view.id).await {
                Ok(hint) => (hint.version == view.version).then_some(hint.action),
                Err(f) => {
                    self.failed(&f);
                    None
                }
            },
        }
    }

    /// Counts a failure: an expected race (409) or an error, by its key. `version`: the one the
    /// move was sent at, if it was a move.
    pub fn refused_at(&mut self, version: i64, f: &Failure) {
        if f.code() == Some("illegal_action") {
            if self.refused.0 == version {
                self.refused.1 += 1;
            } else {
                self.refused = (version, 1);
            }
        }
        self.failed(f);
    }

    /// Counts a failure: an expected race (409) or an error, by its key.
    pub fn failed(&mut self, f: &Failure) {
        let (map, live) = if f.expected() {
            (&mut self.stats.conflicts, &self.live.conflicts)
        } else {
            (&mut self.stats.errors, &self.live.errors)
        };
        *map.entry(f.key()).or_default() += 1;
        live.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts an accepted move and its latency.
    pub fn moved(&mut self, action: &Value, took: Duration) {
        self.stats.latencies_us.push(took.as_micros() as u64);
        let kind = action["type"].as_str().unwrap_or("?").to_string();
        *self.stats.moves_by_type.entry(kind).or_default() += 1;
        self.live.moves.fetch_add(1, Ordering::Relaxed);
    }

    /// Seconds to ask a long-poll for: at most `MAX_WAIT_SECS`, less near the end of the run.
    pub fn wait_secs(&self) -> u64 {
        let left = self.deadline.saturating_duration_since(Instant::now());
        left.as_secs().clamp(1, MAX_WAIT_SECS)
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
    pub seat: usize,
    pub role: Role,
    /// Its game, clock, randomness and counts (`play.create` is sent by seat 0 only).
    pub play: Play,
}

impl Client {
    /// Plays until the deadline; whatever request is in flight then is dropped.
    pub async fn run(mut self) -> ClientStats {
        let deadline = self.play.deadline;
        let _ = tokio::time::timeout_at(deadline, self.play_matches()).await;
        self.play.stats
    }

    async fn play_matches(&mut self) {
        let mut last: Option<String> = None;
        while let Some(view) = self.enter(last.as_deref()).await {
            last = Some(view.id.clone());
            self.play_match(view).await;
            if matches!(self.role, Role::Creator(_)) {
                self.play.stats.matches_finished += 1;
            }
        }
    }

    /// Takes this client's seat in its group's next match (not `last`); `None` once the
    /// group's creator has stopped.
    pub(crate) async fn enter(&mut self, last: Option<&str>) -> Option<View> {
        loop {
            let result = match &mut self.role {
                Role::Creator(tx) => {
                    let r = self.api.create(&self.play.create).await;
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
                            self.play.failed(&f);
                            self.api.view(&id, None).await
                        }
                        r => r,
                    }
                }
            };
            match result {
                Ok(v) if v.seat().is_some() => return Some(v),
                Ok(_) => {}
                Err(f) => self.play.failed(&f),
            }
            tokio::time::sleep(BACKOFF).await;
        }
    }

    /// The view of match `id`, waiting for a version after `after` when given; retried until
    /// it comes (the run's deadline bounds the retries).
    async fn fetch(&mut self, id: &str, after: Option<i64>) -> View {
        loop {
            let wait = after.map(|v| (v, self.play.wait_secs()));
            match self.api.view(id, wait).await {
                Ok(v) => return v,
                Err(f) => self.play.failed(&f),
            }
            tokio::time::sleep(BACKOFF).await;
        }
    }

    async fn play_match(&mut self, mut view: View) {
        while !view.over() {
            let action = if view.my_turn() {
                self.play.choose(&self.api, &view).await
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
                    self.play.moved(&action, took);
                    next
                }
                Err(f) => {
                    self.play.refused_at(view.version, &f);
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn play_with(chooser: Option<Chooser>) -> Play {
        Play {
            chooser,
            create: Value::Null,
            deadline: Instant::now(),
            rng: Rng::with_seed(1),
            live: Arc::default(),
            stats: ClientStats::default(),
            refused: (-1, 0),
        }
    }

    #[tokio::test]
    async fn a_version_where_moves_were_refused_three_times_gets_no_more_moves() {
        let mut play = play_with(Some(Chooser::Shengji));
        let api = Api::offline();
        let at = |version: i64| -> View {
            serde_json::from_value(json!({
                "id": "m", "version": version, "status": "playing", "you": { "seat": 0 },
                "to_act": [0], "legal_actions": [{ "type": "pass" }], "state": {},
            }))
            .unwrap()
        };
        let refusal = Failure::Problem {
            status: 422,
            code: "illegal_action".into(),
            view: None,
        };
        for _ in 0..MAX_REFUSED {
            assert_eq!(
                play.choose(&api, &at(5)).await,
                Some(json!({ "type": "pass" }))
            );
            play.refused_at(5, &refusal);
        }
        assert_eq!(
            play.choose(&api, &at(5)).await,
            None,
            "the client waits for the deadline"
        );
        assert!(
            play.choose(&api, &at(6)).await.is_some(),
            "a new version, new tries"
        );
        assert_eq!(play.stats.errors["illegal_action"], 3);
        // Races are not refusals.
        let race = Failure::Problem {
            status: 409,
            code: "version_conflict".into(),
            view: None,
        };
        play.refused_at(6, &race);
        assert_eq!(play.refused, (5, 3));
    }

    #[tokio::test]
    async fn a_game_without_a_chooser_asks_the_server_and_counts_a_failed_hint() {
        let mut play = play_with(None);
        let view: View = serde_json::from_value(json!({
            "id": "m", "version": 2, "status": "playing", "you": { "seat": 1 },
            "to_act": [1], "legal_actions": [{ "type": "pass" }], "state": {},
        }))
        .unwrap();
        assert_eq!(play.choose(&Api::offline(), &view).await, None);
        assert_eq!(
            play.stats.errors["transport_connect"], 1,
            "{:?}",
            play.stats
        );
    }
}
