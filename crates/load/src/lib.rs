//! paiju-load: registers players, plays real games over HTTP with random legal moves, and
//! reports moves/s, move latency and errors. See docs/performance.md. The games are the
//! server's (`GET /v1/games`): a game the load generator has no chooser for is played from the
//! server's hints. The binary parses `Args` and calls `check` and `run`; tests call them
//! in-process.

mod api;
mod choose;
mod client;
mod phone;
pub mod proc;
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

use crate::api::{Api, ServerGame};
use crate::choose::Chooser;
use crate::client::{Client, Live, Play, Role};
use crate::phone::{Go, Phone, PhoneLive, Think, Track};
use crate::stats::{ClientStats, PhoneReport, Report};
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
    /// Concurrent clients: with --drive seat, one seat each (filling whole tables, taken in
    /// turn); with --drive table, one table each.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// What a client plays: one seat, waiting for the others' moves like a phone at a table,
    /// or every seat of one table, always sending the next move like a pgbench connection.
    #[arg(long, value_enum, default_value_t = Drive::Seat)]
    drive: Drive,
    /// Seconds of play, after the players are registered.
    #[arg(long, default_value_t = 30)]
    duration: u64,
    /// The games played, by the names the server lists at GET /v1/games (`all`: every one of
    /// them); with several (`chexuan,dazha`), tables take them in turn.
    #[arg(long, value_delimiter = ',', default_value = "chexuan")]
    game: Vec<String>,
    /// How moves are chosen: at random by the load generator's own chooser of the game (the
    /// server's hint for a game it has none for), or always the server's hint
    /// (GET /v1/matches/{id}/hint, one more request per move).
    #[arg(long, value_enum, default_value_t = Moves::Random)]
    moves: Moves,
    /// Seats per match, for every game (default: the game's own count, or 4 within its range
    /// for a game played by several).
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
    /// `play`: clients as --drive says. `phone`: --clients players, a seat each, each holding
    /// its stream (GET /v1/me/stream), learning of its turn from it, thinking, then acting;
    /// the report adds the delay from a move's 200 to the other seats' stream events.
    #[arg(long, value_enum, default_value_t = Mode::Play)]
    mode: Mode,
    /// Phone mode: think time before each move, milliseconds, uniform in LO..HI (or N).
    #[arg(long, default_value = "1000..3000")]
    think: Think,
    /// Phone mode: streams opened per second while they ramp up.
    #[arg(long, default_value_t = 500.0)]
    connect_rate: f64,
    /// Phone mode: a server process on this machine whose memory (VmRSS) and CPU the report
    /// reads; repeat for several.
    #[arg(long = "server-pid")]
    server_pids: Vec<u32>,
}

/// How the clients play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// As `--drive` says, answering every turn at once.
    Play,
    /// Like phones: a stream each, turns learnt from it, a think time before each move.
    Phone,
}

/// Where a client's moves come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Moves {
    /// The game's random chooser (`choose.rs`), else the server's hint.
    Random,
    /// The server's hint, for every game.
    Hint,
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

/// Which game each table plays, and with how many seats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The games of `--game` (`all` spelled out), in its order.
    pub games: Vec<String>,
    /// Seats per table of each game, in that order.
    pub seats: Vec<usize>,
    /// The game of each table (an index into `games`): the games take turns by table.
    pub tables: Vec<usize>,
}

impl Layout {
    /// Seats of table `t`.
    fn seats_of(&self, t: usize) -> usize {
        self.seats[self.tables[t]]
    }

    /// Players needed: every seat of every table.
    fn players(&self) -> usize {
        (0..self.tables.len()).map(|t| self.seats_of(t)).sum()
    }
}

/// Checks the arguments against the games the server at the first `--url` runs; returns the
/// tables to play.
pub async fn check(args: &Args) -> Result<Layout, String> {
    let base = args.urls.first().ok_or("--url is needed")?;
    let base = base.trim_end_matches('/');
    let offered = api::games(&reqwest::Client::new(), base)
        .await
        .map_err(|f| {
            format!(
                "could not read the games at {base}/v1/games ({}): is paiju running there?",
                f.key()
            )
        })?;
    layout(args, &offered)
}

/// The games of `--game` among those `offered`, `all` standing for every one.
fn named<'a>(names: &[String], offered: &'a [ServerGame]) -> Result<Vec<&'a ServerGame>, String> {
    let mut games = Vec::new();
    for name in names {
        if name == "all" {
            games.extend(offered);
        } else if let Some(g) = offered.iter().find(|g| &g.name == name) {
            games.push(g);
        } else {
            let list: Vec<&str> = offered.iter().map(|g| g.name.as_str()).collect();
            return Err(format!(
                "the server runs no game {name:?}: its games are {} (or all)",
                list.join(", ")
            ));
        }
    }
    Ok(games)
}

/// The tables to play the games of `--game` (among those `offered`) on. Each game is played
/// with `--seats` or, without it, its own count (four when it is played by several), so games
/// of different table sizes mix: with a client per table any number of clients does; with a
/// client per seat `--clients` must fill whole tables taken in turn.
fn layout(args: &Args, offered: &[ServerGame]) -> Result<Layout, String> {
    let games = named(&args.game, offered)?;
    let mut seats = Vec::with_capacity(games.len());
    for game in &games {
        let (lo, hi) = (game.seats.min, game.seats.max);
        let n = args.seats.or(game.seats.default).unwrap_or(4.clamp(lo, hi));
        if !(lo..=hi).contains(&n) {
            let range = if lo == hi {
                format!("{lo}")
            } else {
                format!("{lo} to {hi}")
            };
            return Err(format!("{} is played by {range} seats, not {n}", game.name));
        }
        seats.push(n);
    }
    let games: Vec<String> = games.into_iter().map(|g| g.name.clone()).collect();
    if seats.is_empty() || args.clients == 0 {
        return Err("--game and a positive --clients are needed".into());
    }
    let drive = match args.mode {
        Mode::Phone => Drive::Seat,
        Mode::Play => args.drive,
    };
    let tables: Vec<usize> = match drive {
        Drive::Table => (0..args.clients).map(|t| t % seats.len()).collect(),
        Drive::Seat => {
            let (mut tables, mut filled) = (Vec::new(), 0);
            while filled < args.clients {
                let g = tables.len() % seats.len();
                filled += seats[g];
                tables.push(g);
            }
            if filled != args.clients {
                if seats.iter().all(|&n| n == seats[0]) {
                    return Err(format!(
                        "--clients must be a positive multiple of the {} seats of a match, got {}",
                        seats[0], args.clients
                    ));
                }
                let below = filled - seats[tables[tables.len() - 1]];
                let sizes: Vec<String> = seats.iter().map(usize::to_string).collect();
                let fits = if below == 0 {
                    format!("{filled}")
                } else {
                    format!("{below} or {filled}")
                };
                return Err(format!(
                    "--clients {} with a client per seat does not fill whole tables: tables of \
                     {} take {} seats in turn, so {fits} clients would (or use --drive table)",
                    args.clients,
                    games.join(","),
                    sizes.join(","),
                ));
            }
            tables
        }
    };
    if args.duration == 0 || args.timeout_secs == 0 || args.hands == 0 {
        return Err("--duration, --timeout-secs and --hands must be at least 1".into());
    }
    if args.admin.split_once(':').is_none() {
        return Err("--admin must be user:password".into());
    }
    if args.mode == Mode::Phone && (!args.connect_rate.is_finite() || args.connect_rate <= 0.0) {
        return Err("--connect-rate must be positive".into());
    }
    Ok(Layout {
        games,
        seats,
        tables,
    })
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

/// The base URLs of `--url`, without a trailing slash.
fn urls_of(args: &Args) -> Vec<String> {
    args.urls
        .iter()
        .map(|u| u.trim_end_matches('/').to_string())
        .collect()
}

/// The admin's session at the first server.
async fn admin_login(http: &reqwest::Client, urls: &[String], admin: &str) -> Result<Api, String> {
    let (user, password) = admin.split_once(':').unwrap_or_default();
    Api::login(http, &urls[0], user, password)
        .await
        .map_err(|f| {
            format!(
                "admin login at {} failed ({}): start the server with PAIJU_ADMIN={admin}",
                urls[0],
                f.key(),
            )
        })
}

/// The tables of the layout, for people: "2 chexuan of 4, 1 dazha of 4".
fn describe(layout: &Layout) -> String {
    let matches: Vec<String> = layout
        .games
        .iter()
        .zip(&layout.seats)
        .enumerate()
        .map(|(g, (game, seats))| {
            let n = layout.tables.iter().filter(|&&t| t == g).count();
            format!("{n} {game} of {seats}")
        })
        .collect();
    format!("{} matches: {}", layout.tables.len(), matches.join(", "))
}

/// The chooser of each game of the layout; `None` plays the server's hints.
fn choosers(args: &Args, layout: &Layout) -> Vec<Option<Chooser>> {
    let choosers: Vec<Option<Chooser>> = layout
        .games
        .iter()
        .map(|g| match args.moves {
            Moves::Random => Chooser::of(g),
            Moves::Hint => None,
        })
        .collect();
    let hinted: Vec<&str> = layout
        .games
        .iter()
        .zip(&choosers)
        .filter(|(_, c)| c.is_none())
        .map(|(g, _)| g.as_str())
        .collect();
    if !hinted.is_empty() {
        eprintln!(
            "paiju-load: the moves of {} are the server's hints",
            hinted.join(", ")
        );
    }
    choosers
}

/// Registers the players, plays for the duration with a progress line every second, and
/// returns the report.
pub async fn run(args: Args, layout: Layout) -> Result<Report, String> {
    if args.mode == Mode::Phone {
        return Err("phone mode is run by run_phone".into());
    }
    let urls = urls_of(&args);
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(args.clients * 2)
        .build()
        .map_err(|e| e.to_string())?;
    let admin = admin_login(&http, &urls, &args.admin).await?;
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let tag = fastrand::u32(..);
    let games = layout.games.join(",");
    let choosers = choosers(&args, &layout);
    eprintln!(
        "paiju-load: registering {} players ({}; a client per {}) on {}",
        layout.players(),
        describe(&layout),
        args.drive.name(),
        urls.join(" ")
    );
    let players = register(&http, &urls, &admin, layout.players(), tag).await?;

    let live = Arc::new(Live::default());
    // perf/run.sh starts its CPU accounting at this line.
    eprintln!("paiju-load: playing for {} s", args.duration);
    let start = Instant::now();
    let deadline = start + Duration::from_secs(args.duration);
    // Client i plays table number `table` (its game and seats from the layout).
    let play = |i: usize, table: usize| {
        let game = layout.tables[table];
        Play {
            chooser: choosers[game],
            create: json!({
                "game": layout.games[game],
                "seats": layout.seats_of(table),
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
            for i in 0..layout.tables.len() {
                let client = TableClient {
                    players: players.by_ref().take(layout.seats_of(i)).collect(),
                    play: play(i, i),
                };
                clients.spawn(client.run());
            }
        }
        Drive::Seat => {
            let mut players = players.into_iter().enumerate();
            for table in 0..layout.tables.len() {
                let (tx, rx) = watch::channel(None);
                let gate = Arc::new(Mutex::new(()));
                let mut creator = Some(tx);
                for (seat, (i, api)) in players.by_ref().take(layout.seats_of(table)).enumerate() {
                    let role = match creator.take() {
                        Some(tx) => Role::Creator(tx),
                        None => Role::Joiner(rx.clone(), gate.clone()),
                    };
                    let client = Client {
                        api,
                        seat,
                        role,
                        play: play(i, table),
                    };
                    clients.spawn(client.run());
                }
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

impl Args {
    /// Phone mode: `run_phone` runs these arguments, not `run`.
    pub fn phone(&self) -> bool {
        self.mode == Mode::Phone
    }
}

/// Phone mode (`phone.rs`): registers the players, opens their streams at `--connect-rate`
/// (the servers' memory read before and after), seats them, lets them play for `--duration`
/// seconds with a progress line every second, and returns the report.
pub async fn run_phone(args: Args, layout: Layout) -> Result<PhoneReport, String> {
    if !args.phone() {
        return Err("run_phone runs --mode phone".into());
    }
    let players = layout.players();
    // A stream and a request connection or two per player, with room to spare.
    let fd_limit = proc::raise_fd_limit(players as u64 * 2 + 1024)?;
    if fd_limit.1 < players as u64 + 256 {
        eprintln!(
            "paiju-load: open-file limit {} is too low for {players} streams; streams will fail",
            fd_limit.1
        );
    }
    let urls = urls_of(&args);
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(players)
        .build()
        .map_err(|e| e.to_string())?;
    let admin = admin_login(&http, &urls, &args.admin).await?;
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let tag = fastrand::u32(..);
    let choosers = choosers(&args, &layout);
    eprintln!(
        "paiju-load: registering {players} players ({}; phones) on {}",
        describe(&layout),
        urls.join(" ")
    );
    let accounts = register(&http, &urls, &admin, players, tag).await?;

    let pids = &args.server_pids;
    let mut report = PhoneReport {
        game: layout.games.join(","),
        players,
        tables: layout.tables.len(),
        urls: urls.clone(),
        think_ms: (args.think.lo, args.think.hi),
        connect_rate: args.connect_rate,
        fd_limit,
        ..PhoneReport::default()
    };
    report.server[0] = proc::sample(pids);
    let live = Arc::new(Live::default());
    let phones = Arc::new(PhoneLive::default());
    let (go_tx, go_rx) = watch::channel(None);
    eprintln!(
        "paiju-load: opening {players} streams at {}/s",
        args.connect_rate
    );
    let ramp = Instant::now();
    let mut tracks = Vec::with_capacity(layout.tables.len());
    let mut tasks = JoinSet::new();
    let mut accounts = accounts.into_iter().enumerate();
    for table in 0..layout.tables.len() {
        let game = layout.tables[table];
        let seats = layout.seats_of(table);
        let track = Arc::new(std::sync::Mutex::new(Track::new(seats)));
        tracks.push(track.clone());
        let (tx, rx) = watch::channel(None);
        let gate = Arc::new(Mutex::new(()));
        let mut creator = Some(tx);
        for (seat, (i, api)) in accounts.by_ref().take(seats).enumerate() {
            let role = match creator.take() {
                Some(tx) => Role::Creator(tx),
                None => Role::Joiner(rx.clone(), gate.clone()),
            };
            let play = Play {
                chooser: choosers[game],
                create: json!({
                    "game": layout.games[game],
                    "seats": seats,
                    "options": { "turn_timeout_secs": args.timeout_secs, "hands": args.hands },
                }),
                // Set at the go.
                deadline: ramp,
                rng: fastrand::Rng::with_seed(seed.wrapping_add(i as u64)),
                live: live.clone(),
                stats: ClientStats::default(),
                refused: (-1, 0),
            };
            let phone = Phone {
                client: Client {
                    api,
                    seat,
                    role,
                    play,
                },
                track: track.clone(),
                think: args.think,
                live: phones.clone(),
                connect_at: ramp + Duration::from_secs_f64(i as f64 / args.connect_rate),
                go: go_rx.clone(),
            };
            tasks.spawn(phone.run());
        }
    }
    let budget = phone::connect_budget(players, args.connect_rate);
    let took = phone::await_connected(&phones, players, budget).await;
    report.connected = phones.connected.load(Ordering::Relaxed);
    report.connect_secs = took.as_secs_f64();
    // The streams settle (their first reads, the allocator's pages) before memory is read.
    tokio::time::sleep(Duration::from_secs(2)).await;
    report.server[1] = proc::sample(pids);
    if let Some(per) = report.bytes_per_stream() {
        eprintln!(
            "paiju-load: {} streams connected in {:.1} s; {:.1} KB of server memory each",
            report.connected,
            report.connect_secs,
            per / 1024.0
        );
    }

    // The players sit down at the connect rate (a burst of every seating at once queues on
    // the servers' pools), then play for the duration.
    let seating = Duration::from_secs_f64(players as f64 / args.connect_rate);
    eprintln!(
        "paiju-load: seating for {:.1} s, then playing for {} s",
        seating.as_secs_f64(),
        args.duration
    );
    let start = Instant::now();
    let deadline = start + seating + Duration::from_secs(args.duration);
    report.server[2] = proc::sample(pids);
    go_tx.send_replace(Some(Go {
        at: start,
        ramp,
        deadline,
    }));
    let mut tick = tokio::time::interval_at(start + Duration::from_secs(1), Duration::from_secs(1));
    let mut previous = 0;
    let mut seating = phone::Seating::new(players, start);
    while Instant::now() < deadline {
        tick.tick().await;
        seating.check(&phones, &live);
        let moves = live.moves.load(Ordering::Relaxed);
        eprintln!(
            "[{:5.1}s] moves {moves:7} (last 1 s {:6}) · streams {} · events {} · 409s {} · errors {}",
            start.elapsed().as_secs_f64(),
            moves - previous,
            phones.connected.load(Ordering::Relaxed),
            phones.events.load(Ordering::Relaxed),
            live.conflicts.load(Ordering::Relaxed),
            live.errors.load(Ordering::Relaxed),
        );
        previous = moves;
    }
    report.server[3] = proc::sample(pids);
    report.seconds = start.elapsed().as_secs_f64();
    let end = Instant::now();
    let mut total = ClientStats::default();
    while let Some(r) = tasks.join_next().await {
        total.merge(r.map_err(|e| e.to_string())?);
    }
    report.events = phones.events.load(Ordering::Relaxed);
    report.reconnects = phones.reconnects.load(Ordering::Relaxed);
    if report.connected < players as u64 {
        *total
            .errors
            .entry("stream_not_connected".into())
            .or_default() += players as u64 - report.connected;
    }
    let seated = seating.into_report(&mut report, &live);
    Ok(phone::report(report, &tracks, end, seated, total))
}

#[cfg(test)]
mod tests;
