//! Phone mode (`--mode phone`): every simulated player holds its stream (`GET /v1/me/stream`,
//! one HTTP/1.1 connection each) the way a phone at a table does, learns of its turn from the
//! stream's `match` events, fetches its view then (or takes the one the event carries), thinks
//! for a while and acts. The run has three phases: the streams open at `--connect-rate` a
//! second (the server's memory is sampled before and after: what an idle connected player
//! costs), the players sit down at their tables (a creator and its joiners, as in
//! `client.rs`), then they play for `--duration` seconds. What it measures besides moves: the
//! delay from a move's 200 to each other seat's stream event for that version (see
//! [`Track`]), and, given `--server-pid`, the servers' resident memory and CPU per move.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::api::{Api, Failure, View};
use crate::client::{BACKOFF, Client, Role};
use crate::stats::{ClientStats, PhoneReport};

/// A player waiting for its turn that hears nothing for this long fetches its view anyway,
/// and counts the silence as an error (`stream_silent`): a stream must not lose a turn.
const SILENCE: Duration = Duration::from_secs(30);
/// Moves whose event may still be on its way when the run ends: not counted as missed.
const IN_FLIGHT: Duration = Duration::from_secs(2);
/// How long the streams may take to open beyond what the connect rate needs.
const CONNECT_GRACE: Duration = Duration::from_secs(60);

/// Think time in milliseconds, uniform in `lo..=hi` (`--think 1000..3000`, or one number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Think {
    pub lo: u64,
    pub hi: u64,
}

impl std::str::FromStr for Think {
    type Err = String;

    fn from_str(s: &str) -> Result<Think, String> {
        let num = |t: &str| {
            t.trim()
                .parse::<u64>()
                .map_err(|_| format!("--think takes milliseconds, LO..HI or N, not {s:?}"))
        };
        let (lo, hi) = match s.split_once("..") {
            Some((lo, hi)) => (num(lo)?, num(hi.trim_start_matches('='))?),
            None => (num(s)?, num(s)?),
        };
        if lo > hi {
            return Err(format!("--think {s}: the low end is above the high end"));
        }
        Ok(Think { lo, hi })
    }
}

/// One stream event the player acts on.
#[derive(Debug)]
enum Heard {
    /// A `match` event (or a match of `hello`): its news, and the view when it carries one.
    News(News),
    /// The stream ended and was opened again: whatever was missed, `hello` said.
    Reopened,
}

/// The `match` event's data (api.md § The player's stream); `view` when the server sends the
/// owner's view with it.
#[derive(Debug, Deserialize)]
struct News {
    match_id: String,
    version: i64,
    status: String,
    #[serde(default)]
    your_turn: bool,
    #[serde(default)]
    view: Option<Box<View>>,
}

#[derive(Deserialize)]
struct Hello {
    #[serde(default)]
    matches: Vec<News>,
}

/// Server-Sent Events, parsed from the body's chunks as they come.
#[derive(Default)]
pub struct Sse {
    buf: Vec<u8>,
}

impl Sse {
    /// The complete events in `chunk` and what came before it: (event name, data). Comments
    /// (`: ping`) and blocks without data (`retry:`) are skipped.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<(String, String)> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        while let Some(end) = self.buf.windows(2).position(|w| w == b"\n\n") {
            let block: Vec<u8> = self.buf.drain(..end + 2).collect();
            let text = String::from_utf8_lossy(&block);
            let (mut event, mut data) = (String::from("message"), Vec::new());
            for line in text.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    event = v.trim().to_string();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push(v.strip_prefix(' ').unwrap_or(v));
                }
            }
            if !data.is_empty() {
                out.push((event, data.join("\n")));
            }
        }
        out
    }
}

/// A move waiting for the other seats' streams to show its version.
struct Pending {
    match_id: String,
    version: i64,
    at: Instant,
    waiting: Vec<usize>,
}

/// One table's bookkeeping of the delay from a move's 200 (the mover's clock) to each other
/// seat's stream event at that version or later (that seat's reader, same clock). A stream
/// that shows the version before the mover has its 200 counts a delay of 0.
#[derive(Default)]
pub struct Track {
    /// Per seat: the match and the newest version its stream showed.
    seen: Vec<Option<(String, i64)>>,
    pending: Vec<Pending>,
    /// Delays in microseconds, each with when its move had the 200.
    delays: Vec<(Instant, u64)>,
    /// Seats whose stream showed a move's version before its mover had the 200.
    early: u64,
}

impl Track {
    pub fn new(seats: usize) -> Track {
        Track {
            seen: vec![None; seats],
            ..Track::default()
        }
    }

    /// Seat `mover`'s move at `match_id` was accepted at `at`; the match is at `version`.
    pub fn moved(&mut self, match_id: &str, version: i64, at: Instant, mover: usize) {
        let mut waiting = Vec::new();
        for (seat, seen) in self.seen.iter().enumerate() {
            if seat == mover {
                continue;
            }
            match seen {
                Some((m, v)) if m == match_id && *v >= version => {
                    self.early += 1;
                    self.delays.push((at, 0));
                }
                _ => waiting.push(seat),
            }
        }
        if !waiting.is_empty() {
            self.pending.push(Pending {
                match_id: match_id.to_string(),
                version,
                at,
                waiting,
            });
        }
    }

    /// Seat `seat`'s stream showed `version` of `match_id` at `at`.
    pub fn saw(&mut self, seat: usize, match_id: &str, version: i64, at: Instant) {
        match &mut self.seen[seat] {
            Some((m, v)) if m == match_id => *v = (*v).max(version),
            s => *s = Some((match_id.to_string(), version)),
        }
        let delays = &mut self.delays;
        self.pending.retain_mut(|p| {
            if p.match_id == match_id
                && p.version <= version
                && let Some(i) = p.waiting.iter().position(|&s| s == seat)
            {
                p.waiting.swap_remove(i);
                delays.push((p.at, at.saturating_duration_since(p.at).as_micros() as u64));
            }
            !p.waiting.is_empty()
        });
    }

    /// (seat events never seen for moves accepted before `before`, those still in flight).
    pub fn unseen(&self, before: Instant) -> (u64, u64) {
        let (mut missed, mut flying) = (0, 0);
        for p in &self.pending {
            let n = p.waiting.len() as u64;
            if p.at < before {
                missed += n;
            } else {
                flying += n;
            }
        }
        (missed, flying)
    }
}

/// Counters every phone shares with the progress line.
#[derive(Default)]
pub struct PhoneLive {
    pub connected: AtomicU64,
    pub events: AtomicU64,
    pub reconnects: AtomicU64,
    /// Players seated at their table (each counted once).
    pub seated: AtomicU64,
}

/// When the players may sit down, and when the run ends.
#[derive(Clone, Copy, Debug)]
pub struct Go {
    /// When the go was given.
    pub at: Instant,
    /// When the streams' ramp began: each player sits down as long after `at` as it
    /// connected after `ramp`.
    pub ramp: Instant,
    pub deadline: Instant,
}

pub struct Phone {
    pub client: Client,
    pub track: Arc<Mutex<Track>>,
    pub think: Think,
    pub live: Arc<PhoneLive>,
    /// When this phone opens its stream (the ramp).
    pub connect_at: Instant,
    pub go: watch::Receiver<Option<Go>>,
}

impl Phone {
    /// Opens the stream, waits for the go, plays until the deadline; returns its counts.
    pub async fn run(mut self) -> ClientStats {
        tokio::time::sleep_until(self.connect_at).await;
        let (tx, mut rx) = mpsc::unbounded_channel();
        let reader = self.open(tx).await;
        let go = match self.go.wait_for(Option::is_some).await {
            Ok(go) => go.expect("waited for"),
            Err(_) => return self.client.play.stats,
        };
        self.client.play.deadline = go.deadline;
        // The players sit down at the connect rate too, not all in one second.
        tokio::time::sleep_until(go.at + self.connect_at.duration_since(go.ramp)).await;
        let _ = tokio::time::timeout_at(go.deadline, self.play(&mut rx)).await;
        if let Some(reader) = reader {
            reader.abort();
        }
        self.client.play.stats
    }

    /// Opens the stream (retrying until it opens or the go's deadline passes) and spawns its
    /// reader, which reopens it when it ends.
    async fn open(
        &mut self,
        tx: mpsc::UnboundedSender<Heard>,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let resp = loop {
            match self.client.api.stream().await {
                Ok(r) => break r,
                Err(f) => self.client.play.failed(&f),
            }
            if self
                .go
                .borrow()
                .is_some_and(|g| Instant::now() >= g.deadline)
            {
                return None;
            }
            tokio::time::sleep(BACKOFF * 10).await;
        };
        let reader = Reader {
            api: self.client.api.clone(),
            seat: self.client.seat,
            track: self.track.clone(),
            live: self.live.clone(),
            play_live: self.client.play.live.clone(),
            tx,
            connected: false,
        };
        Some(tokio::spawn(reader.run(resp)))
    }

    async fn play(&mut self, rx: &mut mpsc::UnboundedReceiver<Heard>) {
        let mut last: Option<String> = None;
        while let Some(view) = self.client.enter(last.as_deref()).await {
            if last.is_none() {
                self.live.seated.fetch_add(1, Ordering::Relaxed);
            }
            last = Some(view.id.clone());
            self.play_match(view, rx).await;
            if matches!(self.client.role, Role::Creator(_)) {
                self.client.play.stats.matches_finished += 1;
            }
        }
    }

    async fn think(&mut self) {
        let Think { lo, hi } = self.think;
        let ms = self.client.play.rng.u64(lo..=hi);
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }

    /// The view of match `id` now; retried until it comes.
    async fn fetch(&mut self, id: &str) -> View {
        loop {
            match self.client.api.view(id, None).await {
                Ok(v) => return v,
                Err(f) => self.client.play.failed(&f),
            }
            tokio::time::sleep(BACKOFF).await;
        }
    }

    /// Waits for the stream to say that match `id` passed `version` and that it is this
    /// seat's turn or the match is over; returns the view then.
    async fn next_turn(
        &mut self,
        id: &str,
        version: i64,
        rx: &mut mpsc::UnboundedReceiver<Heard>,
    ) -> View {
        loop {
            let heard = match tokio::time::timeout(SILENCE, rx.recv()).await {
                Ok(Some(h)) => h,
                // The reader is gone (the run is ending): nothing more comes.
                Ok(None) => std::future::pending().await,
                Err(_) => {
                    let f = Failure::Transport("stream_silent");
                    self.client.play.failed(&f);
                    return self.fetch(id).await;
                }
            };
            let news = match heard {
                Heard::News(n) => n,
                Heard::Reopened => return self.fetch(id).await,
            };
            if news.match_id != id || news.version <= version {
                continue;
            }
            if let Some(view) = news.view {
                return *view;
            }
            let over = matches!(news.status.as_str(), "finished" | "aborted");
            if news.your_turn || over {
                return self.fetch(id).await;
            }
        }
    }

    async fn play_match(&mut self, mut view: View, rx: &mut mpsc::UnboundedReceiver<Heard>) {
        let id = view.id.clone();
        let mut thought_at = -1;
        while !view.over() {
            if !view.my_turn() {
                view = self.next_turn(&id, view.version, rx).await;
                continue;
            }
            // A phone thinks once per turn; answering a refusal at the same version is quick.
            if thought_at != view.version {
                self.think().await;
                thought_at = view.version;
            }
            let Some(action) = self.client.play.choose(&self.client.api, &view).await else {
                view = self.next_turn(&id, view.version, rx).await;
                continue;
            };
            let started = std::time::Instant::now();
            let result = self.client.api.act(&id, view.version, &action).await;
            let took = started.elapsed();
            view = match result {
                Ok(next) => {
                    let at = Instant::now();
                    self.track.lock().unwrap_or_else(|e| e.into_inner()).moved(
                        &id,
                        next.version,
                        at,
                        self.client.seat,
                    );
                    self.client.play.moved(&action, took);
                    next
                }
                Err(f) => {
                    self.client.play.refused_at(view.version, &f);
                    match f {
                        Failure::Problem { view: Some(v), .. } => *v,
                        _ => {
                            tokio::time::sleep(BACKOFF).await;
                            self.fetch(&id).await
                        }
                    }
                }
            };
        }
    }
}

/// Reads one player's stream: records when each version shows (for [`Track`]) and hands the
/// news to the player. Reopens the stream when it ends.
struct Reader {
    api: Api,
    seat: usize,
    track: Arc<Mutex<Track>>,
    live: Arc<PhoneLive>,
    play_live: Arc<crate::client::Live>,
    tx: mpsc::UnboundedSender<Heard>,
    connected: bool,
}

impl Reader {
    async fn run(mut self, mut resp: reqwest::Response) {
        loop {
            let why = self.read(resp).await;
            self.play_live.errors.fetch_add(1, Ordering::Relaxed);
            self.live.reconnects.fetch_add(1, Ordering::Relaxed);
            eprintln!("paiju-load: a stream ended ({why}); reopening");
            resp = loop {
                tokio::time::sleep(BACKOFF * 10).await;
                if let Ok(r) = self.api.stream().await {
                    break r;
                }
            };
            if self.tx.send(Heard::Reopened).is_err() {
                return;
            }
        }
    }

    /// Reads until the stream ends; says why.
    async fn read(&mut self, mut resp: reqwest::Response) -> String {
        let mut sse = Sse::default();
        loop {
            let chunk = match resp.chunk().await {
                Ok(Some(c)) => c,
                Ok(None) => return "closed by the server".into(),
                Err(e) => return Failure::transport(&e).key(),
            };
            let at = Instant::now();
            for (event, data) in sse.feed(&chunk) {
                self.live.events.fetch_add(1, Ordering::Relaxed);
                let news = match event.as_str() {
                    "hello" => {
                        if !self.connected {
                            self.connected = true;
                            self.live.connected.fetch_add(1, Ordering::Relaxed);
                        }
                        match serde_json::from_str::<Hello>(&data) {
                            Ok(h) => h.matches,
                            Err(_) => return "an unreadable hello".into(),
                        }
                    }
                    "match" => match serde_json::from_str::<News>(&data) {
                        Ok(n) => vec![n],
                        Err(_) => return "an unreadable match event".into(),
                    },
                    _ => Vec::new(),
                };
                for n in news {
                    self.track.lock().unwrap_or_else(|e| e.into_inner()).saw(
                        self.seat,
                        &n.match_id,
                        n.version,
                        at,
                    );
                    // The player is gone once the run ended.
                    let _ = self.tx.send(Heard::News(n));
                }
            }
        }
    }
}

/// When every player sat, to the second (the run's progress loop looks once a second), and
/// the errors counted until then.
pub struct Seating {
    players: u64,
    start: Instant,
    done: Option<(Instant, u64)>,
}

impl Seating {
    /// `players` sitting down from the go at `start`.
    pub fn new(players: usize, start: Instant) -> Seating {
        Seating {
            players: players as u64,
            start,
            done: None,
        }
    }

    /// Notes the moment every player is seated, the first time it is so.
    pub fn check(&mut self, phones: &PhoneLive, live: &crate::client::Live) {
        if self.done.is_none() && phones.seated.load(Ordering::Relaxed) >= self.players {
            let at = Instant::now();
            self.done = Some((at, live.errors.load(Ordering::Relaxed)));
            eprintln!(
                "paiju-load: every player seated after {:.1} s",
                at.duration_since(self.start).as_secs_f64()
            );
        }
    }

    /// Puts when every player sat, and the errors since, in the report; returns that moment.
    pub fn into_report(
        self,
        report: &mut PhoneReport,
        live: &crate::client::Live,
    ) -> Option<Instant> {
        let (at, errors) = self.done?;
        report.seated_secs = Some(at.duration_since(self.start).as_secs_f64());
        report.errors_seated = live.errors.load(Ordering::Relaxed) - errors;
        Some(at)
    }
}

/// How long the ramp takes at `rate` streams a second, with its grace.
pub fn connect_budget(players: usize, rate: f64) -> Duration {
    Duration::from_secs_f64(players as f64 / rate.max(0.001)) + CONNECT_GRACE
}

/// Waits until every stream is connected (or the budget ran out), with a progress line a
/// second; returns how long it took.
pub async fn await_connected(live: &PhoneLive, players: usize, budget: Duration) -> Duration {
    let start = Instant::now();
    let mut tick = tokio::time::interval_at(start + Duration::from_secs(1), Duration::from_secs(1));
    loop {
        let n = live.connected.load(Ordering::Relaxed) as usize;
        if n >= players || start.elapsed() >= budget {
            return start.elapsed();
        }
        tick.tick().await;
        eprintln!(
            "[connect {:5.1}s] streams {n}/{players}",
            start.elapsed().as_secs_f64()
        );
    }
}

/// Builds the report from the tables' tracks and the players' counts; `seated`: when every
/// player was seated, if they were, whose delays from then on are also reported apart.
pub fn report(
    mut base: PhoneReport,
    tracks: &[Arc<Mutex<Track>>],
    end: Instant,
    seated: Option<Instant>,
    stats: ClientStats,
) -> PhoneReport {
    let mut delays = Vec::new();
    let mut once_seated = Vec::new();
    for t in tracks {
        let t = t.lock().unwrap_or_else(|e| e.into_inner());
        for &(at, delay) in &t.delays {
            delays.push(delay);
            if seated.is_some_and(|s| at >= s) {
                once_seated.push(delay);
            }
        }
        base.early += t.early;
        let (missed, flying) = t.unseen(end - IN_FLIGHT);
        base.missed += missed;
        base.in_flight += flying;
    }
    base.delay_samples = delays.len() as u64;
    base.delay = crate::stats::Latency::of_micros(delays);
    base.seated_samples = once_seated.len() as u64;
    base.delay_seated = crate::stats::Latency::of_micros(once_seated);
    base.set_moves(stats);
    base
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_takes_a_range_or_one_number() {
        assert_eq!("1000..3000".parse(), Ok(Think { lo: 1000, hi: 3000 }));
        assert_eq!("5".parse(), Ok(Think { lo: 5, hi: 5 }));
        assert!("3000..1000".parse::<Think>().is_err());
        assert!("fast".parse::<Think>().is_err());
    }

    #[test]
    fn sse_events_come_whole_across_chunks() {
        let mut sse = Sse::default();
        assert!(sse.feed(b"retry: 2000\n\nid: 3\nevent: hel").is_empty());
        let got = sse.feed(b"lo\ndata: {\"a\":1}\n\n: ping\n\nevent: match\ndata: {}\n\nev");
        assert_eq!(
            got,
            [
                ("hello".to_string(), "{\"a\":1}".to_string()),
                ("match".to_string(), "{}".to_string())
            ]
        );
        assert!(sse.feed(b"ent: match\n").is_empty());
    }

    #[test]
    fn a_move_is_timed_to_every_other_seats_stream() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut track = Track::new(4);
        // Seat 3's stream saw version 5 before seat 0 had its 200: a delay of 0.
        track.saw(3, "m", 5, ms(1));
        track.moved("m", 5, ms(2), 0);
        track.saw(1, "m", 5, ms(7));
        // Seat 2 saw a later version only (events merged): that counts for version 5 too.
        track.saw(2, "m", 6, ms(12));
        let delays: Vec<u64> = track.delays.iter().map(|d| d.1).collect();
        assert_eq!(delays, [0, 5000, 10000]);
        assert!(
            track.delays.iter().all(|d| d.0 == ms(2)),
            "timed from the 200"
        );
        assert_eq!(track.early, 1);
        assert!(track.pending.is_empty());
        // The mover's own stream does not count, another match's version neither.
        track.moved("m", 7, ms(20), 1);
        track.saw(1, "m", 7, ms(21));
        track.saw(0, "other", 9, ms(22));
        assert_eq!(track.unseen(ms(30)), (3, 0), "seats 0, 2 and 3 never saw 7");
        assert_eq!(track.unseen(ms(10)), (0, 3), "still in flight");
        track.saw(0, "m", 7, ms(25));
        track.saw(2, "m", 8, ms(25));
        track.saw(3, "m", 7, ms(25));
        assert_eq!(track.unseen(ms(30)), (0, 0));
        assert_eq!(track.delays.len(), 6);
    }
}
