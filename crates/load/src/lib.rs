//! paiju-load: registers players, plays real games over HTTP with random legal moves, and
//! reports moves/s, move latency and errors. See docs/performance.md. The binary parses
//! `Args` and calls `check` and `run`; tests call them in-process.

mod api;
mod choose;
mod client;
pub mod stats;
mod table;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::Parser;
use serde_json::json;
use tokio::sync::{Mutex, Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::api::Api;
use crate::choose::Game;
use crate::client::{Client, Live, Play, Role};
use crate::stats::{ClientStats, Report};
use crate::table::TableClient;

/// Coins granted to every player: at most 10 × min_bobo is staked per hand (see choose.rs),
/// so this lasts far longer than any run.
const GRANT: i64 = 10_000_000;
const PASSWORD: &str = "load-password";
/// Registrations in flight at once (each costs the server an argon2 hash).
const SETUP_PARALLEL: usize = 4;
/// A rate-limited registration is retried this often, this far apart (about three minutes).
const RATE_LIMIT_RETRIES: u32 = 90;
const RATE_LIMIT_PAUSE: Duration = Duration::from_secs(2);

#[derive(Parser, Debug)]
#[command(
    version,
    about = "Plays real paiju games over HTTP and reports moves/s and latency"
)]
pub struct Args {
    /// Server base URL; repeat to spread the clients round-robin over several servers.
    #[arg(long = "url", default_value = "http://127.0.0.1:8080")]
    urls: Vec<String>,
    /// Concurrent clients: with --drive seat, one seat each (a multiple of --seats); with
    /// --drive table, one table each.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// What a client plays: one seat, waiting for the others' moves like a phone at a table,
    /// or every seat of one table, always sending the next move like a pgbench connection.
    #[arg(long, value_enum, default_value_t = Drive::Seat)]
    drive: Drive,
    /// Seconds of play, after the players are registered.
    #[arg(long, default_value_t = 30)]
    duration: u64,
    /// The games played; with several (`chexuan,dazha`), tables take them in turn.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "chexuan")]
    game: Vec<Game>,
    /// Seats per match (default: 4).
    #[arg(long)]
    seats: Option<usize>,
    /// Admin account that grants coins to the players, as user:password.
    #[arg(long, default_value = "admin:admin-password")]
    admin: String,
    /// The matches' turn_timeout_secs (long, so the deadline sweeper stays out of the way).
    #[arg(long, default_value_t = 60)]
    timeout_secs: u64,
    /// Hands per match; when a match ends its players form a new one.
    #[arg(long, default_value_t = 10)]
    hands: u32,
    /// Seed of the move choices (random by default).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Drive {
    Seat,
    Table,
}

impl Drive {
    fn name(self) -> &'static str {
        match self {
            Drive::Seat => "seat",
            Drive::Table => "table",
        }
    }
}

/// Checks the arguments; returns the seats per table.
pub fn check(args: &Args) -> Result<usize, String> {
    let seats = args.seats.unwrap_or(Game::DEFAULT_SEATS);
    for game in &args.game {
        let (lo, hi) = game.seat_range();
        if !(lo..=hi).contains(&seats) {
            return Err(format!(
                "{} is played by {lo} to {hi} seats, not {seats}",
                game.name()
            ));
        }
    }
    if args.clients == 0 || (args.drive == Drive::Seat && !args.clients.is_multiple_of(seats)) {
        return Err(format!(
            "--clients must be a positive multiple of the {seats} seats of a match, got {}",
            args.clients
        ));
    }
    if args.duration == 0 || args.timeout_secs == 0 || args.hands == 0 {
        return Err("--duration, --timeout-secs and --hands must be at least 1".into());
    }
    if args.admin.split_once(':').is_none() {
        return Err("--admin must be user:password".into());
    }
    Ok(seats)
}

/// Registers `count` players (spread over `urls`) and grants each one coins.
async fn register(
    http: &reqwest::Client,
    urls: &[String],
    admin: &Api,
    count: usize,
    tag: u32,
) -> Result<Vec<Api>, String> {
    let gate = Arc::new(Semaphore::new(SETUP_PARALLEL));
    let mut set = JoinSet::new();
    for i in 0..count {
        let (http, url, admin, gate) = (
            http.clone(),
            urls[i % urls.len()].clone(),
            admin.clone(),
            gate.clone(),
        );
        set.spawn(async move {
            let _permit = gate.acquire().await;
            let name = format!("load_{tag:08x}_{i}");
            let mut attempts = 0;
            let api = loop {
                match Api::register(&http, &url, &name, PASSWORD).await {
                    Err(f) if f.code() == Some("rate_limited") && attempts < RATE_LIMIT_RETRIES => {
                        if attempts == 0 {
                            eprintln!(
                                "paiju-load: {url} rate-limits registrations; retrying (start \
                                 the server with PAIJU_AUTH_PER_MIN=100000 to avoid the wait)"
                            );
                        }
                        attempts += 1;
                        tokio::time::sleep(RATE_LIMIT_PAUSE).await;
                    }
                    r => {
                        break r
                            .map_err(|f| format!("registering {name} at {url}: {}", f.key()))?;
                    }
                }
            };
            admin
                .grant(&api.user_id, GRANT)
                .await
                .map_err(|f| format!("granting coins to {name}: {}", f.key()))?;
            Ok::<_, String>((i, api))
        });
    }
    let mut players: Vec<Option<Api>> = vec![None; count];
    while let Some(r) = set.join_next().await {
        let (i, api) = r.map_err(|e| e.to_string())??;
        players[i] = Some(api);
    }
    Ok(players.into_iter().flatten().collect())
}

/// Registers the players, plays for the duration with a progress line every second, and
/// returns the report.
pub async fn run(args: Args, seats: usize) -> Result<Report, String> {
    let urls: Vec<String> = args
        .urls
        .iter()
        .map(|u| u.trim_end_matches('/').to_string())
        .collect();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(args.clients * 2)
        .build()
        .map_err(|e| e.to_string())?;
    let (admin_user, admin_password) = args.admin.split_once(':').unwrap_or_default();
    let admin = Api::login(&http, &urls[0], admin_user, admin_password)
        .await
        .map_err(|f| {
            format!(
                "admin login at {} failed ({}): start the server with PAIJU_ADMIN={}",
                urls[0],
                f.key(),
                args.admin
            )
        })?;
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let tag = fastrand::u32(..);
    let games = args
        .game
        .iter()
        .map(|g| g.name())
        .collect::<Vec<_>>()
        .join(",");
    let (players, tables) = match args.drive {
        Drive::Seat => (args.clients, args.clients / seats),
        Drive::Table => (args.clients * seats, args.clients),
    };
    eprintln!(
        "paiju-load: registering {players} players ({tables} matches of {seats} {}, a client \
         per {}) on {}",
        games,
        args.drive.name(),
        urls.join(" ")
    );
    let players = register(&http, &urls, &admin, players, tag).await?;

    let live = Arc::new(Live::default());
    // perf/run.sh starts its CPU accounting at this line.
    eprintln!("paiju-load: playing for {} s", args.duration);
    let start = Instant::now();
    let deadline = start + Duration::from_secs(args.duration);
    // Client i plays table number `table`: the games take turns by table.
    let play = |i: usize, table: usize| {
        let game = args.game[table % args.game.len()];
        Play {
            game,
            create: json!({
                "game": game.name(),
                "seats": seats,
                "options": { "turn_timeout_secs": args.timeout_secs, "hands": args.hands },
            }),
            deadline,
            rng: fastrand::Rng::with_seed(seed.wrapping_add(i as u64)),
            live: live.clone(),
            stats: ClientStats::default(),
            refused: (-1, 0),
        }
    };
    let mut clients = JoinSet::new();
    match args.drive {
        Drive::Table => {
            let mut players = players.into_iter();
            for i in 0..args.clients {
                let client = TableClient {
                    players: players.by_ref().take(seats).collect(),
                    play: play(i, i),
                };
                clients.spawn(client.run());
            }
        }
        Drive::Seat => {
            let mut group = None;
            for (i, api) in players.into_iter().enumerate() {
                let seat = i % seats;
                let role = if seat == 0 {
                    let (tx, rx) = watch::channel(None);
                    group = Some((rx, Arc::new(Mutex::new(()))));
                    Role::Creator(tx)
                } else {
                    let (rx, gate) = group.clone().ok_or("no creator for a group")?;
                    Role::Joiner(rx, gate)
                };
                let client = Client {
                    api,
                    seat,
                    role,
                    play: play(i, i / seats),
                };
                clients.spawn(client.run());
            }
        }
    }

    let mut tick = tokio::time::interval_at(start + Duration::from_secs(1), Duration::from_secs(1));
    let mut previous = 0;
    while Instant::now() < deadline {
        tick.tick().await;
        let moves = live.moves.load(Ordering::Relaxed);
        let elapsed = start.elapsed().as_secs_f64();
        eprintln!(
            "[{elapsed:5.1}s] moves {moves:7} {:8.1}/s (last 1 s {:6}) · 409s {} · errors {}",
            moves as f64 / elapsed,
            moves - previous,
            live.conflicts.load(Ordering::Relaxed),
            live.errors.load(Ordering::Relaxed),
        );
        previous = moves;
    }
    let mut total = ClientStats::default();
    while let Some(r) = clients.join_next().await {
        total.merge(r.map_err(|e| e.to_string())?);
    }
    Ok(Report::new(
        games,
        args.clients,
        args.drive.name(),
        urls,
        args.duration as f64,
        total,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Args {
        Args::try_parse_from([&["paiju-load"], args].concat()).unwrap()
    }

    #[test]
    fn tables_must_be_whole_and_fit_the_game() {
        assert_eq!(check(&parse(&[])), Ok(4));
        assert_eq!(check(&parse(&["--clients", "6", "--seats", "3"])), Ok(3));
        assert!(check(&parse(&["--clients", "6"])).is_err());
        assert_eq!(
            check(&parse(&["--clients", "6", "--drive", "table"])),
            Ok(4),
            "a client per table plays any number of tables"
        );
        assert!(
            check(&parse(&[
                "--game",
                "dazha",
                "--seats",
                "3",
                "--clients",
                "6"
            ]))
            .is_err()
        );
        assert!(check(&parse(&["--seats", "7", "--clients", "7"])).is_err());
        assert!(
            check(&parse(&[
                "--game",
                "chexuan,dazha",
                "--seats",
                "3",
                "--clients",
                "6"
            ]))
            .is_err(),
            "every game must take the seats"
        );
        assert_eq!(
            parse(&["--game", "chexuan,dazha"]).game,
            [Game::Chexuan, Game::Dazha]
        );
        let all = parse(&["--game", "chexuan,dazha,shengji,sandaha", "--clients", "8"]);
        assert_eq!(
            all.game,
            [Game::Chexuan, Game::Dazha, Game::Shengji, Game::Sandaha],
            "perf/run.sh's GAMES=chexuan,dazha,shengji,sandaha"
        );
        assert_eq!(check(&all), Ok(4));
        assert!(
            check(&parse(&[
                "--game",
                "chexuan,shengji",
                "--seats",
                "3",
                "--clients",
                "6"
            ]))
            .is_err(),
            "升级 takes four seats"
        );
        assert!(check(&parse(&["--duration", "0"])).is_err());
        assert!(check(&parse(&["--admin", "nopassword"])).is_err());
    }

    #[test]
    fn urls_repeat() {
        let a = parse(&["--url", "http://127.0.0.1:1", "--url", "http://127.0.0.1:2"]);
        assert_eq!(a.urls, ["http://127.0.0.1:1", "http://127.0.0.1:2"]);
        assert_eq!(parse(&[]).urls, ["http://127.0.0.1:8080"]);
    }
}
