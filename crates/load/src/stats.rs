//! What each client counts, and the summary printed at the end.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// One client's figures; merged into the run's at the end.
#[derive(Debug, Default)]
pub struct ClientStats {
    /// Latency of every accepted move (the POST alone), in microseconds.
    pub latencies_us: Vec<u64>,
    /// Accepted moves by action type.
    pub moves_by_type: BTreeMap<String, u64>,
    /// The 409s that races produce by design (`version_conflict`, `not_your_turn`).
    pub conflicts: BTreeMap<String, u64>,
    /// Every other failure, by problem code or transport error.
    pub errors: BTreeMap<String, u64>,
    pub matches_finished: u64,
}

fn add_counts(into: &mut BTreeMap<String, u64>, from: BTreeMap<String, u64>) {
    for (k, n) in from {
        *into.entry(k).or_default() += n;
    }
}

impl ClientStats {
    pub fn merge(&mut self, other: ClientStats) {
        self.latencies_us.extend(other.latencies_us);
        add_counts(&mut self.moves_by_type, other.moves_by_type);
        add_counts(&mut self.conflicts, other.conflicts);
        add_counts(&mut self.errors, other.errors);
        self.matches_finished += other.matches_finished;
    }
}

/// Latency percentiles in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Latency {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
    pub mean: f64,
}

/// Nearest-rank percentile (`p` in 0..=100) of sorted samples.
fn percentile(sorted: &[u64], p: f64) -> u64 {
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Latency {
    /// `None` without samples.
    pub fn of_micros(mut samples: Vec<u64>) -> Option<Latency> {
        if samples.is_empty() {
            return None;
        }
        samples.sort_unstable();
        let ms = |us: u64| us as f64 / 1000.0;
        let sum: u64 = samples.iter().sum();
        Some(Latency {
            p50: ms(percentile(&samples, 50.0)),
            p95: ms(percentile(&samples, 95.0)),
            p99: ms(percentile(&samples, 99.0)),
            max: ms(*samples.last()?),
            mean: ms(sum) / samples.len() as f64,
        })
    }
}

/// The run's result.
pub struct Report {
    /// The games played, comma-separated.
    pub game: String,
    pub clients: usize,
    /// What a client plays: "seat" or "table".
    pub drive: &'static str,
    pub urls: Vec<String>,
    pub seconds: f64,
    pub moves: u64,
    pub latency: Option<Latency>,
    pub stats: ClientStats,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Report {
    pub fn new(
        game: String,
        clients: usize,
        drive: &'static str,
        urls: Vec<String>,
        seconds: f64,
        mut stats: ClientStats,
    ) -> Report {
        let samples = std::mem::take(&mut stats.latencies_us);
        Report {
            game,
            clients,
            drive,
            urls,
            seconds,
            moves: samples.len() as u64,
            latency: Latency::of_micros(samples),
            stats,
        }
    }

    pub fn moves_per_sec(&self) -> f64 {
        if self.seconds > 0.0 {
            self.moves as f64 / self.seconds
        } else {
            0.0
        }
    }

    fn counts(map: &BTreeMap<String, u64>) -> String {
        if map.is_empty() {
            return "none".into();
        }
        map.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The summary for people.
    pub fn human(&self) -> String {
        let lat = match self.latency {
            Some(l) => format!(
                "p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms (mean {:.2} ms)",
                l.p50, l.p95, l.p99, l.max, l.mean
            ),
            None => "no move completed".into(),
        };
        format!(
            "game {} · {} clients (a client per {}) · {} · {:.1} s\n\
             moves        {} ({:.1}/s), matches finished {}\n\
             latency      {lat}\n\
             by action    {}\n\
             expected 409 {}\n\
             errors       {}",
            self.game,
            self.clients,
            self.drive,
            self.urls.join(" "),
            self.seconds,
            self.moves,
            self.moves_per_sec(),
            self.stats.matches_finished,
            Report::counts(&self.stats.moves_by_type),
            Report::counts(&self.stats.conflicts),
            Report::counts(&self.stats.errors),
        )
    }

    /// One JSON object for scripts (perf/run.sh).
    pub fn json(&self) -> Value {
        let l = self.latency;
        let ms = |f: fn(&Latency) -> f64| l.as_ref().map(|l| round3(f(l)));
        json!({
            "game": self.game,
            "clients": self.clients,
            "drive": self.drive,
            "urls": self.urls,
            "seconds": round3(self.seconds),
            "moves": self.moves,
            "moves_per_sec": round3(self.moves_per_sec()),
            "p50_ms": ms(|l| l.p50),
            "p95_ms": ms(|l| l.p95),
            "p99_ms": ms(|l| l.p99),
            "max_ms": ms(|l| l.max),
            "mean_ms": ms(|l| l.mean),
            "matches_finished": self.stats.matches_finished,
            "moves_by_type": self.stats.moves_by_type,
            "conflicts": self.stats.conflicts,
            "errors": self.stats.errors,
        })
    }
}

/// The result of a run in phone mode (`phone.rs`).
#[derive(Debug, Default)]
pub struct PhoneReport {
    /// The games played, comma-separated.
    pub game: String,
    pub players: usize,
    pub tables: usize,
    pub urls: Vec<String>,
    /// Think time, milliseconds (low, high).
    pub think_ms: (u64, u64),
    /// Streams opened a second during the ramp.
    pub connect_rate: f64,
    /// The load generator's open-file limit (before, after raising it).
    pub fd_limit: (u64, u64),
    /// Streams that got their `hello`, and how long the ramp took.
    pub connected: u64,
    pub connect_secs: f64,
    /// Seconds of play.
    pub seconds: f64,
    pub moves: u64,
    /// The moves' own latency (the POST alone).
    pub latency: Option<Latency>,
    /// From a move's 200 to each other seat's stream event at that version or later.
    pub delay: Option<Latency>,
    /// Of those, seats whose stream showed the version before the mover had its 200.
    pub early: u64,
    /// How many delays were measured.
    pub delay_samples: u64,
    /// Seconds from the go until every player was seated (`None`: some never were).
    pub seated_secs: Option<f64>,
    /// The delays of the moves made once every player was seated: the tables playing, no
    /// seating in the way.
    pub delay_seated: Option<Latency>,
    /// How many of the delays were measured once every player was seated.
    pub seated_samples: u64,
    /// Errors once every player was seated.
    pub errors_seated: u64,
    /// Seat events never seen for moves accepted more than 2 s before the end.
    pub missed: u64,
    /// Seat events still on their way at the end (moves of its last 2 s).
    pub in_flight: u64,
    pub events: u64,
    pub reconnects: u64,
    /// The servers' figures (`--server-pid`): before the streams, once connected, when the
    /// play started, at the end.
    pub server: [Option<crate::proc::Sample>; 4],
    pub stats: ClientStats,
}

impl PhoneReport {
    /// Takes the players' counts: moves, their latency, errors.
    pub fn set_moves(&mut self, mut stats: ClientStats) {
        let samples = std::mem::take(&mut stats.latencies_us);
        self.moves = samples.len() as u64;
        self.latency = Latency::of_micros(samples);
        self.stats = stats;
    }

    pub fn moves_per_sec(&self) -> f64 {
        if self.seconds > 0.0 {
            self.moves as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// What one idle connected player cost the servers: the resident memory the streams
    /// added, per stream, in bytes.
    pub fn bytes_per_stream(&self) -> Option<f64> {
        let (before, connected) = (self.server[0]?, self.server[1]?);
        (self.connected > 0).then(|| {
            (connected.rss_kb as f64 - before.rss_kb as f64) * 1024.0 / self.connected as f64
        })
    }

    /// The servers' CPU milliseconds per move over the play.
    pub fn cpu_ms_per_move(&self) -> Option<f64> {
        let (start, end) = (self.server[2]?, self.server[3]?);
        (self.moves > 0).then(|| (end.cpu_secs() - start.cpu_secs()) * 1000.0 / self.moves as f64)
    }

    /// The servers' CPU over the play, in cores (1.0 = one core busy).
    pub fn cpu_cores(&self) -> Option<f64> {
        let (start, end) = (self.server[2]?, self.server[3]?);
        (self.seconds > 0.0).then(|| (end.cpu_secs() - start.cpu_secs()) / self.seconds)
    }

    fn lat(l: Option<Latency>) -> String {
        match l {
            Some(l) => format!(
                "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (mean {:.2} ms)",
                l.p50, l.p99, l.max, l.mean
            ),
            None => "none".into(),
        }
    }

    /// The summary for people.
    pub fn human(&self) -> String {
        let mb = |s: Option<crate::proc::Sample>| {
            s.map_or("-".into(), |s| {
                format!("{:.1} MB", s.rss_kb as f64 / 1024.0)
            })
        };
        let server = if self.server[0].is_some() {
            format!(
                "server RSS   before {}, connected {}, end {} · {} per idle stream\n\
                 server CPU   {} ms per move ({} cores)",
                mb(self.server[0]),
                mb(self.server[1]),
                mb(self.server[3]),
                self.bytes_per_stream()
                    .map_or("-".into(), |b| format!("{:.1} KB", b / 1024.0)),
                self.cpu_ms_per_move()
                    .map_or("-".into(), |c| format!("{c:.3}")),
                self.cpu_cores().map_or("-".into(), |c| format!("{c:.2}")),
            )
        } else {
            "server       (no --server-pid: memory and CPU not read)".into()
        };
        format!(
            "phone mode · game {} · {} players at {} tables · think {}..{} ms · {}\n\
             connected    {}/{} streams in {:.1} s (at {}/s; fd limit {} -> {})\n\
             moves        {} in {:.1} s ({:.1}/s), matches finished {}\n\
             move POST    {}\n\
             move->event  {} over {} seat events ({} before the 200)\n\
             all seated   {} · then move->event {} over {} seat events, errors {}\n\
             unseen       {} missed, {} in flight at the end · stream events {}, reopened {}\n\
             {server}\n\
             expected 409 {}\n\
             errors       {}",
            self.game,
            self.players,
            self.tables,
            self.think_ms.0,
            self.think_ms.1,
            self.urls.join(" "),
            self.connected,
            self.players,
            self.connect_secs,
            self.connect_rate,
            self.fd_limit.0,
            self.fd_limit.1,
            self.moves,
            self.seconds,
            self.moves_per_sec(),
            self.stats.matches_finished,
            PhoneReport::lat(self.latency),
            PhoneReport::lat(self.delay),
            self.delay_samples,
            self.early,
            self.seated_secs
                .map_or("never".into(), |s| format!("{s:.1} s after the go")),
            PhoneReport::lat(self.delay_seated),
            self.seated_samples,
            self.errors_seated,
            self.missed,
            self.in_flight,
            self.events,
            self.reconnects,
            Report::counts(&self.stats.conflicts),
            Report::counts(&self.stats.errors),
        )
    }

    /// One JSON object for scripts (perf/connected.sh).
    pub fn json(&self) -> Value {
        let ms = |l: Option<Latency>, f: fn(&Latency) -> f64| l.as_ref().map(|l| round3(f(l)));
        let kb = |s: Option<crate::proc::Sample>| s.map(|s| s.rss_kb);
        json!({
            "mode": "phone",
            "game": self.game,
            "players": self.players,
            "tables": self.tables,
            "urls": self.urls,
            "think_ms": [self.think_ms.0, self.think_ms.1],
            "connect_rate": self.connect_rate,
            "fd_limit": [self.fd_limit.0, self.fd_limit.1],
            "connected": self.connected,
            "connect_secs": round3(self.connect_secs),
            "seconds": round3(self.seconds),
            "moves": self.moves,
            "moves_per_sec": round3(self.moves_per_sec()),
            "move_p50_ms": ms(self.latency, |l| l.p50),
            "move_p99_ms": ms(self.latency, |l| l.p99),
            "event_p50_ms": ms(self.delay, |l| l.p50),
            "event_p99_ms": ms(self.delay, |l| l.p99),
            "event_max_ms": ms(self.delay, |l| l.max),
            "event_samples": self.delay_samples,
            "event_before_200": self.early,
            "seated_secs": self.seated_secs.map(round3),
            "seated_event_p50_ms": ms(self.delay_seated, |l| l.p50),
            "seated_event_p99_ms": ms(self.delay_seated, |l| l.p99),
            "seated_event_max_ms": ms(self.delay_seated, |l| l.max),
            "seated_event_samples": self.seated_samples,
            "seated_errors": self.errors_seated,
            "missed": self.missed,
            "in_flight": self.in_flight,
            "stream_events": self.events,
            "reopened": self.reconnects,
            "server_rss_kb": {
                "before": kb(self.server[0]),
                "connected": kb(self.server[1]),
                "play_start": kb(self.server[2]),
                "end": kb(self.server[3]),
            },
            "bytes_per_idle_stream": self.bytes_per_stream().map(|b| b.round()),
            "server_cpu_ms_per_move": self.cpu_ms_per_move().map(round3),
            "server_cpu_cores": self.cpu_cores().map(round3),
            "matches_finished": self.stats.matches_finished,
            "moves_by_type": self.stats.moves_by_type,
            "conflicts": self.stats.conflicts,
            "errors": self.stats.errors,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        // 1..=100 ms in microseconds, shuffled order must not matter.
        let mut v: Vec<u64> = (1..=100).map(|i| i * 1000).collect();
        v.reverse();
        let l = Latency::of_micros(v).unwrap();
        assert_eq!((l.p50, l.p95, l.p99, l.max), (50.0, 95.0, 99.0, 100.0));
        assert_eq!(l.mean, 50.5);
    }

    #[test]
    fn small_samples_take_the_top_value_for_high_percentiles() {
        let l = Latency::of_micros(vec![2500, 1500]).unwrap();
        assert_eq!((l.p50, l.p95, l.p99, l.max), (1.5, 2.5, 2.5, 2.5));
        let one = Latency::of_micros(vec![700]).unwrap();
        assert_eq!((one.p50, one.p99), (0.7, 0.7));
        assert_eq!(Latency::of_micros(Vec::new()), None);
    }

    #[test]
    fn merged_stats_add_up_and_report_per_second() {
        let mut a = ClientStats {
            latencies_us: vec![1000, 3000],
            ..ClientStats::default()
        };
        a.errors.insert("illegal_action".into(), 1);
        a.moves_by_type.insert("call".into(), 2);
        let mut b = ClientStats {
            latencies_us: vec![2000],
            matches_finished: 1,
            ..ClientStats::default()
        };
        b.errors.insert("illegal_action".into(), 2);
        b.conflicts.insert("version_conflict".into(), 4);
        b.moves_by_type.insert("fold".into(), 1);
        a.merge(b);
        let r = Report::new("chexuan".into(), 2, "seat", vec!["http://x".into()], 2.0, a);
        let j = r.json();
        assert_eq!(j["moves"], 3);
        assert_eq!(j["moves_per_sec"], 1.5);
        assert_eq!(j["p50_ms"], 2.0);
        assert_eq!(j["max_ms"], 3.0);
        assert_eq!(j["errors"]["illegal_action"], 3);
        assert_eq!(j["conflicts"]["version_conflict"], 4);
        assert_eq!(j["matches_finished"], 1);
        assert!(
            r.human().contains("moves        3 (1.5/s)"),
            "{}",
            r.human()
        );
    }
}
