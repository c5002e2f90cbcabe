//! One client driving a whole table: it holds every seat's session and always sends the next
//! move, for whichever seat is to act, with that seat's own token and from that seat's own
//! view. N such clients keep N moves in flight, as pgbench's N connections keep N
//! transactions in flight; a client per seat (`client.rs`) spends most of its time waiting
//! for the other players.

use crate::api::{Api, Failure, View};
use crate::client::{BACKOFF, Play};
use crate::stats::ClientStats;

pub struct TableClient {
    /// One logged-in player per seat.
    pub players: Vec<Api>,
    /// Its game, clock, randomness and counts (`play.create` is sent by seat 0).
    pub play: Play,
}

impl TableClient {
    /// Plays until the deadline; whatever request is in flight then is dropped.
    pub async fn run(mut self) -> ClientStats {
        let deadline = self.play.deadline;
        let _ = tokio::time::timeout_at(deadline, self.play_matches()).await;
        self.play.stats
    }

    async fn play_matches(&mut self) {
        loop {
            let view = self.form().await;
            self.play_match(view).await;
            self.play.stats.matches_finished += 1;
        }
    }

    /// Creates a match with seat 0 and seats every other player, one after the other.
    async fn form(&mut self) -> View {
        let mut view = loop {
            match self.players[0].create(&self.play.create).await {
                Ok(v) => break v,
                Err(f) => self.play.failed(&f),
            }
            tokio::time::sleep(BACKOFF).await;
        };
        for seat in 1..self.players.len() {
            view = loop {
                match self.players[seat].join(&view.id, seat).await {
                    Ok(v) => break v,
                    // Seated by an earlier attempt whose answer was lost.
                    Err(f) if f.code() == Some("conflict") => {
                        self.play.failed(&f);
                        if let Ok(v) = self.players[seat].view(&view.id, None).await {
                            break v;
                        }
                    }
                    Err(f) => self.play.failed(&f),
                }
                tokio::time::sleep(BACKOFF).await;
            };
        }
        view
    }

    /// Seat `seat`'s view at `version` or later (a long-poll that answers at once when the
    /// match is already there); retried until it comes.
    async fn fetch(&mut self, id: &str, seat: usize, version: i64) -> View {
        loop {
            let wait = (version - 1, self.play.wait_secs());
            match self.players[seat].view(id, Some(wait)).await {
                Ok(v) => return v,
                Err(f) => self.play.failed(&f),
            }
            tokio::time::sleep(BACKOFF).await;
        }
    }

    /// The view of a seat that is asked to act at `version` (or a newer view, when the match
    /// moved on meanwhile); `None` when no seat is asked.
    async fn asked(&mut self, id: &str, version: i64) -> Option<View> {
        for seat in 0..self.players.len() {
            let v = self.fetch(id, seat, version).await;
            if v.version != version || v.my_turn() {
                return Some(v);
            }
        }
        None
    }

    async fn play_match(&mut self, mut view: View) {
        let mut views: Vec<Option<View>> = vec![None; self.players.len()];
        let id = view.id.clone();
        while !view.over() {
            if view.to_act.is_empty() {
                // A wait whose seats are each seat's own (a 扯胡子 claim window): ask every
                // seat's view. Else nobody is to act: wait for the server's next step.
                if view.deadline.is_some()
                    && let Some(asked) = self.asked(&id, view.version).await
                {
                    view = asked;
                } else {
                    view = self.fetch(&id, 0, view.version + 1).await;
                }
                continue;
            }
            let seat = view.to_act[self.play.rng.usize(..view.to_act.len())];
            let mine = match views[seat].take() {
                Some(v) if v.version == view.version => v,
                _ => self.fetch(&id, seat, view.version).await,
            };
            if mine.version != view.version || !mine.my_turn() {
                view = mine;
                continue;
            }
            let Some(action) = self.play.choose(&self.players[seat], &mine).await else {
                view = self.fetch(&id, seat, view.version + 1).await;
                continue;
            };
            let started = std::time::Instant::now();
            let result = self.players[seat].act(&id, mine.version, &action).await;
            let took = started.elapsed();
            view = match result {
                Ok(next) => {
                    self.play.moved(&action, took);
                    views[seat] = Some(next.clone());
                    next
                }
                Err(f) => {
                    self.play.refused_at(mine.version, &f);
                    match f {
                        Failure::Problem { view: Some(v), .. } => *v,
                        _ => {
                            tokio::time::sleep(BACKOFF).await;
                            self.fetch(&id, seat, view.version).await
                        }
                    }
                }
            };
        }
    }
}
