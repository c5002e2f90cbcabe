use std::process::{Child, Command, Stdio};
use std::str::FromStr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use paiju::config::Config;
use paiju::startup::Application;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgConnection, PgPool};
use uuid::Uuid;

pub const ADMIN: (&str, &str) = ("admin", "admin-password");

/// The server every test database lives on: `DATABASE_URL`'s, or the project-local cluster.
fn server_options() -> PgConnectOptions {
    static URL: OnceLock<String> = OnceLock::new();
    let url = URL.get_or_init(|| match std::env::var("DATABASE_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => {
            let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
            paiju::pglocal::ensure(&data)
                .expect("starting the project-local PostgreSQL cluster")
                .url("postgres")
        }
    });
    PgConnectOptions::from_str(url).expect("a valid database URL")
}

/// Drops databases left by test runs that ended more than two hours ago.
async fn drop_stale_databases(conn: &mut PgConnection) {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::SeqCst) {
        return;
    }
    let cutoff = chrono::Utc::now().timestamp() - 7200;
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE datname LIKE 'paiju_test_%'")
            .fetch_all(&mut *conn)
            .await
            .unwrap_or_default();
    for name in names {
        let made: i64 = name
            .split('_')
            .nth(2)
            .and_then(|t| t.parse().ok())
            .unwrap_or(i64::MAX);
        if made < cutoff {
            let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
            )))
            .execute(&mut *conn)
            .await;
        }
    }
}

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub pool: PgPool,
    pub admin_token: String,
    /// `/metrics`' own listener, when the config gave it one (`PAIJU_METRICS_BIND`).
    pub metrics_address: Option<String>,
    /// The moves' own connections, when the server runs in this process.
    pub move_conns: Option<std::sync::Arc<paiju::db::MoveConns>>,
}

pub struct Player {
    pub id: Uuid,
    pub name: String,
    pub token: String,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// A fresh, empty database on the test server; returns its URL.
pub async fn fresh_database() -> String {
    let server = server_options();
    let db = format!(
        "paiju_test_{}_{}",
        chrono::Utc::now().timestamp(),
        Uuid::new_v4().simple()
    );
    let mut conn = PgConnection::connect_with(&server.clone().database("postgres"))
        .await
        .expect("connecting to PostgreSQL");
    drop_stale_databases(&mut conn).await;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{db}\"")))
        .execute(&mut conn)
        .await
        .expect("creating the test database");
    conn.close().await.ok();
    server.database(&db).to_url_lossy().to_string()
}

pub async fn spawn_app_with(configure: impl FnOnce(&mut Config)) -> TestApp {
    let database_url = fresh_database().await;
    let mut config = Config {
        database_url: Some(database_url),
        bind: "127.0.0.1:0".into(),
        jwt_secret: Some("test secret, never for production use".into()),
        admin: Some((ADMIN.0.into(), ADMIN.1.into())),
        data_dir: std::env::temp_dir(),
        local_db_name: "paiju".into(),
        db_pool: 8,
        db_wait: Duration::from_secs(10),
        sweep_every: Duration::from_millis(100),
        token_ttl: Duration::from_secs(3600),
        lobby_turn_timeout_secs: 1,
        auth_per_minute: 100_000,
        trusted_proxies: Vec::new(),
        cors_origins: Vec::new(),
        stream: paiju::config::StreamSettings::default(),
        bot_coins: 2000,
        workers: 2,
        fast_moves: true,
        commit_lanes: 2,
        commit_batch: 64,
        metrics_bind: None,
        metrics_token: None,
    };
    configure(&mut config);
    let app = Application::build(config).await.expect("building the app");
    let address = format!("http://127.0.0.1:{}", app.port());
    let metrics_address = app.metrics_port().map(|p| format!("http://127.0.0.1:{p}"));
    let pool = app.pool();
    let move_conns = app.move_conns();
    // No signal handlers in the test process: Ctrl-C still ends `cargo test`.
    tokio::spawn(app.run_until(std::future::pending()));
    let mut t = TestApp::connect(address, pool).await;
    t.metrics_address = metrics_address;
    t.move_conns = Some(move_conns);
    t
}

impl TestApp {
    /// A client of the server at `address` whose database `pool` reaches; logs the admin in.
    pub async fn connect(address: String, pool: PgPool) -> TestApp {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        let mut t = TestApp {
            address,
            client,
            pool,
            admin_token: String::new(),
            metrics_address: None,
            move_conns: None,
        };
        let (status, body) = t
            .call(
                Method::POST,
                "/v1/auth/login",
                None,
                Some(json!({"username": ADMIN.0, "password": ADMIN.1})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        t.admin_token = body["access_token"].as_str().unwrap().to_string();
        t
    }
}

impl TestApp {
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut req = self
            .client
            .request(method.clone(), format!("{}{path}", self.address));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = &body {
            req = req.json(b);
        }
        let res = req.send().await.expect("request sent");
        let status = res.status();
        let content_type = res
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let text = res.text().await.unwrap();
        crate::contract::check(
            &method,
            path,
            body.as_ref(),
            status,
            content_type.as_deref(),
            &text,
        );
        let value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        (status, value)
    }

    pub async fn get(&self, path: &str, token: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, Some(token), None).await
    }

    pub async fn post(&self, path: &str, token: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(token), Some(body)).await
    }

    pub async fn register(&self, name: &str) -> Player {
        let (status, body) = self
            .call(
                Method::POST,
                "/v1/auth/register",
                None,
                Some(json!({"username": name, "password": "password123"})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        Player {
            id: body["user"]["id"].as_str().unwrap().parse().unwrap(),
            name: name.to_string(),
            token: body["access_token"].as_str().unwrap().to_string(),
        }
    }

    /// Registers a player and grants it `coins`.
    pub async fn player(&self, name: &str, coins: i64) -> Player {
        let p = self.register(name).await;
        if coins > 0 {
            self.grant(&p, coins, "test").await;
        }
        p
    }

    /// The admin grants `p` `coins` (a ledger transaction from the house).
    pub async fn grant(&self, p: &Player, coins: i64, note: &str) {
        let (status, body) = self
            .post(
                "/v1/admin/grants",
                &self.admin_token,
                json!({"user_id": p.id, "amount": coins, "note": note}),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }

    /// Sets a user's role as the admin; the user's next token carries it.
    pub async fn set_role(&self, user: Uuid, role: &str) {
        let (status, body) = self
            .call(
                Method::PUT,
                &format!("/v1/admin/users/{user}/role"),
                Some(&self.admin_token),
                Some(json!({"role": role})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }

    /// Logs `p` in again: a token with the account's current role.
    pub async fn relogin(&self, p: &Player) -> Player {
        let (status, body) = self
            .call(
                Method::POST,
                "/v1/auth/login",
                None,
                Some(json!({"username": p.name, "password": "password123"})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        Player {
            id: p.id,
            name: p.name.clone(),
            token: body["access_token"].as_str().unwrap().to_string(),
        }
    }

    /// Registers `name` as an organiser, with a token that says so.
    pub async fn organiser(&self, name: &str) -> Player {
        let o = self.register(name).await;
        self.set_role(o.id, "organiser").await;
        self.relogin(&o).await
    }

    /// Four players named `prefix0`…`prefix3` holding `coins` each, seated in that order at a new
    /// match of `game` with `options`; returns the match id and the players.
    pub async fn table_of_four(
        &self,
        prefix: &str,
        coins: i64,
        game: &str,
        options: Value,
    ) -> (String, Vec<Player>) {
        self.table_of(4, prefix, coins, game, options).await
    }

    /// Four players who never act play one hand of `game` out through deadlines and 托管: the
    /// match finishes, its points sum to zero, the replay deals `deck_len` cards, and the ledger
    /// reconciles. Returns the finished view.
    pub async fn absent_players_play_out(&self, game: &str, deck_len: usize) -> Value {
        self.absent_players_play_out_at(4, game, json!({}), deck_len)
            .await
    }

    /// Deletes `p`'s account (`DELETE /v1/me` with the password every test player has).
    pub async fn delete_account(&self, p: &Player) {
        let (status, body) = self
            .call(
                Method::DELETE,
                "/v1/me",
                Some(&p.token),
                Some(json!({"password": "password123"})),
            )
            .await;
        assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    }

    pub async fn coins(&self, p: &Player) -> i64 {
        let (status, me) = self.get("/v1/me", &p.token).await;
        assert_eq!(status, StatusCode::OK, "{me}");
        me["coins"].as_i64().unwrap()
    }

    pub async fn view(&self, match_id: &str, p: &Player) -> Value {
        let (status, v) = self.get(&format!("/v1/matches/{match_id}"), &p.token).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        v
    }

    /// Sends an action at the view's current version; returns status and body.
    pub async fn act(&self, match_id: &str, p: &Player, action: Value) -> (StatusCode, Value) {
        let v = self.view(match_id, p).await;
        self.post(
            &format!("/v1/matches/{match_id}/actions"),
            &p.token,
            json!({"version": v["version"], "action": action}),
        )
        .await
    }

    /// Polls the match until `done` holds (the sweeper works in the background).
    pub async fn wait_for(
        &self,
        match_id: &str,
        p: &Player,
        secs: u64,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let until = tokio::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let v = self.view(match_id, p).await;
            if done(&v) {
                return v;
            }
            assert!(
                tokio::time::Instant::now() < until,
                "timed out waiting; last view {v}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The auditor's reconciliation (docs/ledger.md): every account's balance equals the sum of
    /// its entries, every transaction balances, and no non-house balance is negative.
    pub async fn assert_ledger_reconciles(&self) {
        let bad_accounts: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM accounts a
              WHERE a.balance <> COALESCE((SELECT sum(amount) FROM ledger_entries e
                                           WHERE e.account_id = a.id), 0)",
        )
        .fetch_one(&self.pool)
        .await
        .unwrap();
        assert_eq!(bad_accounts, 0, "balances differ from their entries");
        let unbalanced: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM (SELECT tx_id FROM ledger_entries GROUP BY tx_id
                                   HAVING sum(amount) <> 0) t",
        )
        .fetch_one(&self.pool)
        .await
        .unwrap();
        assert_eq!(unbalanced, 0, "unbalanced ledger transactions");
        let total: i64 =
            sqlx::query_scalar("SELECT COALESCE(sum(balance), 0)::bigint FROM accounts")
                .fetch_one(&self.pool)
                .await
                .unwrap();
        assert_eq!(total, 0, "coins were created or destroyed");
        let negative: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM accounts WHERE kind <> 'house' AND balance < 0",
        )
        .fetch_one(&self.pool)
        .await
        .unwrap();
        assert_eq!(negative, 0);
    }
}

/// Asserts a problem+json answer by its status and stable `code`; shows the body otherwise.
#[track_caller]
pub fn assert_problem(status: StatusCode, body: &Value, want: StatusCode, code: &str) {
    assert_eq!(
        (status, body["code"].as_str()),
        (want, Some(code)),
        "{body}"
    );
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Where a spawned server on `port` writes its log.
pub fn server_log(port: u16) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("paiju-test-server-{port}.log"))
}

/// Runs the real `paiju` binary against `database_url` on `port`.
/// A spawned `paiju` process, killed when dropped: a failing test leaves no server behind.
pub struct Server(Child);

impl std::ops::Deref for Server {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Server {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn spawn_server(database_url: &str, port: u16) -> Server {
    spawn_server_logging(database_url, port, "warn,paiju=info")
}

/// `spawn_server` with another `RUST_LOG`.
pub fn spawn_server_logging(database_url: &str, port: u16, rust_log: &str) -> Server {
    spawn_server_with(database_url, port, &[("RUST_LOG", rust_log)])
}

/// `spawn_server` with more (or other) environment variables.
pub fn spawn_server_with(database_url: &str, port: u16, env: &[(&str, &str)]) -> Server {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(server_log(port))
        .expect("a log file for the server");
    Server(
        Command::new(env!("CARGO_BIN_EXE_paiju"))
            .env("DATABASE_URL", database_url)
            .env("PAIJU_BIND", format!("127.0.0.1:{port}"))
            .env("JWT_SECRET", "test secret, never for production use")
            .env("PAIJU_ADMIN", format!("{}:{}", ADMIN.0, ADMIN.1))
            .env("PAIJU_SWEEP_MS", "100")
            .env("PAIJU_AUTH_PER_MIN", "100000")
            .env("RUST_LOG", "warn,paiju=info")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("starting the paiju binary"),
    )
}

pub async fn wait_healthy(address: &str) {
    let client = reqwest::Client::new();
    for _ in 0..300 {
        if let Ok(r) = client.get(format!("{address}/healthz")).send().await
            && r.status() == StatusCode::OK
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let port = address
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let log = std::fs::read_to_string(server_log(port)).unwrap_or_default();
    panic!("the server at {address} did not come up; its log:\n{log}");
}

// ----- Trick games (shengji, sandaha): fixed decks, events, counting the cards a seat sees -----

impl TestApp {
    /// [`TestApp::admin_table`] of four seats.
    pub async fn admin_table_of_four(
        &self,
        prefix: &str,
        game: &str,
        options: Value,
        deck: &[impl serde::Serialize],
    ) -> (String, Vec<Player>) {
        self.admin_table(4, prefix, game, options, deck).await
    }

    /// The admin creates a match of `game` for `n` seats dealing `deck` first (without taking
    /// a seat); players `prefix0`, `prefix1`, … take the seats in order, which deals the first
    /// hand.
    pub async fn admin_table(
        &self,
        n: usize,
        prefix: &str,
        game: &str,
        options: Value,
        deck: &[impl serde::Serialize],
    ) -> (String, Vec<Player>) {
        let (s, v) = self
            .post(
                "/v1/matches",
                &self.admin_token,
                json!({"game": game, "seats": n, "join": false, "options": options, "deck": deck}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let id = v["id"].as_str().unwrap().to_string();
        let players = self.seat_players(&id, prefix, n).await;
        (id, players)
    }

    /// New players `prefix0`, `prefix1`, … take seats 0 to `n - 1` of match `id` in order.
    pub async fn seat_players(&self, id: &str, prefix: &str, n: usize) -> Vec<Player> {
        self.seat_funded_players(id, prefix, n, 0).await
    }

    /// [`TestApp::seat_players`], each player granted `coins` first.
    pub async fn seat_funded_players(
        &self,
        id: &str,
        prefix: &str,
        n: usize,
        coins: i64,
    ) -> Vec<Player> {
        let mut players = Vec::new();
        for seat in 0..n {
            players.push(self.player(&format!("{prefix}{seat}"), coins).await);
        }
        self.join_seats(id, &players.iter().collect::<Vec<_>>())
            .await;
        players
    }

    /// `players[i]` takes seat `i` of match `id`, in order (the last join deals when it fills
    /// the table).
    pub async fn join_seats(&self, id: &str, players: &[&Player]) {
        for (seat, p) in players.iter().enumerate() {
            let (s, v) = self.join(id, p, Some(seat)).await;
            assert_eq!(s, StatusCode::OK, "{v}");
        }
    }

    /// `POST /v1/matches/{id}/join` for `p`, at `seat` or the first free one.
    pub async fn join(&self, id: &str, p: &Player, seat: Option<usize>) -> (StatusCode, Value) {
        let body = match seat {
            Some(seat) => json!({ "seat": seat }),
            None => json!({}),
        };
        self.post(&format!("/v1/matches/{id}/join"), &p.token, body)
            .await
    }

    /// Every event of the match as `p` may see it, in order (all pages).
    pub async fn all_events(&self, match_id: &str, p: &Player) -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        loop {
            let after = out.last().map_or(0, |e| e["seq"].as_i64().unwrap());
            let (s, b) = self
                .get(
                    &format!("/v1/matches/{match_id}/events?after={after}&limit=1000"),
                    &p.token,
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{b}");
            let page = b["events"].as_array().unwrap().clone();
            if page.is_empty() {
                return out;
            }
            out.extend(page);
        }
    }

    /// Sends an action at `version` (not re-read): for races and stale versions.
    pub async fn act_at(
        &self,
        match_id: &str,
        p: &Player,
        version: i64,
        action: Value,
    ) -> (StatusCode, Value) {
        self.post(
            &format!("/v1/matches/{match_id}/actions"),
            &p.token,
            json!({"version": version, "action": action}),
        )
        .await
    }
}

/// Every poker card named anywhere in `v` (strings in api.md notation: `"10H"`, `"RJ"`),
/// counted by face.
pub fn card_counts(v: &Value) -> std::collections::BTreeMap<String, usize> {
    fn walk(v: &Value, out: &mut std::collections::BTreeMap<String, usize>) {
        match v {
            Value::String(s) if is_poker_card(s) => *out.entry(s.clone()).or_default() += 1,
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(v, &mut out);
    out
}

/// Whether `s` is a poker card in api.md notation.
pub fn is_poker_card(s: &str) -> bool {
    if s == "RJ" || s == "BJ" {
        return true;
    }
    let Some(suit) = s.chars().last() else {
        return false;
    };
    let rank = &s[..s.len() - suit.len_utf8()];
    "SHDC".contains(suit)
        && [
            "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
        ]
        .contains(&rank)
}

/// Counts the faces of `cards`.
pub fn count_faces<'a>(
    cards: impl IntoIterator<Item = &'a String>,
) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for c in cards {
        *out.entry(c.clone()).or_default() += 1;
    }
    out
}

/// Asserts that `v` names no card more often than `allowed` lets it (cards a seat may see,
/// counted: with several decks one face is held in several copies), showing `what` otherwise.
#[track_caller]
pub fn assert_cards_within(
    v: &Value,
    allowed: &std::collections::BTreeMap<String, usize>,
    what: &str,
) {
    for (face, n) in card_counts(v) {
        let may = allowed.get(&face).copied().unwrap_or(0);
        assert!(
            n <= may,
            "{what}: names {face} {n} times, but only {may} may be seen: {v}"
        );
    }
}

/// A fixed permutation of `items` (xorshift64 Fisher–Yates from `seed`), for decks that are
/// the same on every run.
pub fn fixed_shuffle<T>(items: &mut [T], seed: u64) {
    let mut x = seed | 1;
    for i in (1..items.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        items.swap(i, (x % (i as u64 + 1)) as usize);
    }
}

/// The first hand's deck of `game` in the game's own order (`Game::deck`), as card names.
pub fn game_deck(game: &str, options: Value) -> Vec<String> {
    let deck = games::game(game).unwrap().deck(&options).unwrap();
    serde_json::from_value(json!(deck)).unwrap()
}

/// Card points in the trick games: 5 = 5, 10 and K = 10.
pub fn trick_points(card: &str) -> u32 {
    match card.get(..card.len() - 1) {
        Some("5") => 5,
        Some("10") | Some("K") => 10,
        _ => 0,
    }
}

/// An independent model of a trick game (升级, 三打哈) whose every lead is one card: which cards
/// are trumps, how strong a card is, and who wins a trick of singles. It shares no code with
/// the engines, so a hand played by it over HTTP checks the server's winners and points.
pub struct SingleCardTricks {
    /// The trump suit's letter.
    pub trump: char,
    /// Fixed trump ranks below the jokers, strongest first: 升级 `["2"]`, 三打哈 `["7", "2"]`.
    pub fixed: &'static [&'static str],
}

impl SingleCardTricks {
    fn split(card: &str) -> (&str, char) {
        let suit = card.chars().last().unwrap();
        (&card[..card.len() - 1], suit)
    }

    pub fn is_trump(&self, card: &str) -> bool {
        if card == "RJ" || card == "BJ" {
            return true;
        }
        let (rank, suit) = Self::split(card);
        suit == self.trump || self.fixed.contains(&rank)
    }

    /// The suit a card follows in: `None` for trumps.
    pub fn suit(&self, card: &str) -> Option<char> {
        (!self.is_trump(card)).then(|| Self::split(card).1)
    }

    /// Strength within its suit (trumps are one suit): jokers, then each fixed rank of the trump
    /// suit (主) above the same rank of the other suits (副, equal to each other), then A … 2.
    pub fn power(&self, card: &str) -> u32 {
        match card {
            "RJ" => return 100,
            "BJ" => return 99,
            _ => {}
        }
        let (rank, suit) = Self::split(card);
        if let Some(i) = self.fixed.iter().position(|r| *r == rank) {
            return 98 - 2 * i as u32 - u32::from(suit != self.trump);
        }
        match rank {
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            "A" => 14,
            n => n.parse().unwrap(),
        }
    }

    /// The leader's choice: its strongest card (trumps first).
    pub fn lead(&self, hand: &[String]) -> String {
        hand.iter()
            .max_by_key(|c| (self.is_trump(c), self.power(c), (*c).clone()))
            .unwrap()
            .clone()
    }

    /// A follower's choice: its strongest card of the led suit, or, void, its weakest card
    /// (plain suits before trumps).
    pub fn follow(&self, hand: &[String], led: &str) -> String {
        let suit = self.suit(led);
        hand.iter()
            .filter(|c| self.suit(c) == suit)
            .max_by_key(|c| (self.power(c), (*c).clone()))
            .or_else(|| {
                hand.iter()
                    .min_by_key(|c| (self.is_trump(c), self.power(c), (*c).clone()))
            })
            .unwrap()
            .clone()
    }

    /// The index of the winning play of a trick of singles: the strongest of the led suit,
    /// unless trumped; equal cards → the earlier.
    pub fn winner(&self, plays: &[String]) -> usize {
        let mut best = 0;
        for (i, c) in plays.iter().enumerate().skip(1) {
            let b = &plays[best];
            let beats = if self.suit(c) == self.suit(b) {
                self.power(c) > self.power(b)
            } else {
                self.is_trump(c)
            };
            if beats {
                best = i;
            }
        }
        best
    }
}

/// Cards of a JSON array, as names.
pub fn names(v: &Value) -> Vec<String> {
    serde_json::from_value(v.clone()).unwrap_or_default()
}

/// Removes one copy of `card` from `hand`.
#[track_caller]
pub fn take_card(hand: &mut Vec<String>, card: &str) {
    let i = hand
        .iter()
        .position(|c| c == card)
        .expect("the card is held");
    hand.remove(i);
}

impl TestApp {
    /// `n` players named `prefix0`…`prefix{n-1}` holding `coins` each, seated in that order at a
    /// new match of `game` for `n` seats with `options`; returns the match id and the players.
    pub async fn table_of(
        &self,
        n: usize,
        prefix: &str,
        coins: i64,
        game: &str,
        options: Value,
    ) -> (String, Vec<Player>) {
        let mut players = Vec::new();
        for i in 0..n {
            players.push(self.player(&format!("{prefix}{i}"), coins).await);
        }
        let (s, v) = self
            .post(
                "/v1/matches",
                &players[0].token,
                json!({"game": game, "seats": n, "options": options}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let id = v["id"].as_str().unwrap().to_string();
        for p in &players[1..] {
            let (s, v) = self
                .post(&format!("/v1/matches/{id}/join"), &p.token, json!({}))
                .await;
            assert_eq!(s, StatusCode::OK, "{v}");
        }
        (id, players)
    }

    /// `n` players who never act play one hand of `game` (with `options` besides a 1 s turn
    /// and one hand) out through deadlines and 托管: the match finishes, its points sum to
    /// zero, the replay deals `deck_len` cards, and the ledger reconciles. Returns the finished
    /// view.
    pub async fn absent_players_play_out_at(
        &self,
        n: usize,
        game: &str,
        options: Value,
        deck_len: usize,
    ) -> Value {
        let mut options = options;
        options["turn_timeout_secs"] = json!(1);
        options["hands"] = json!(1);
        let (id, players) = self.table_of(n, "absent", 0, game, options).await;
        let v = self
            .wait_for(&id, &players[0], 120, |v| v["status"] == "finished")
            .await;
        let points: i64 = v["last_result"]["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_i64().unwrap())
            .sum();
        assert_eq!(points, 0, "{v}");
        let (s, replay) = self
            .get(&format!("/v1/matches/{id}/replay"), &players[1].token)
            .await;
        assert_eq!(s, StatusCode::OK, "{replay}");
        assert_eq!(
            replay["hands"][0]["deck"].as_array().unwrap().len(),
            deck_len
        );
        self.assert_ledger_reconciles().await;
        v
    }
}

/// The `/metrics` scrape of the server at `base`, as text.
pub async fn metrics_text(client: &reqwest::Client, base: &str) -> String {
    client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// `paiju_moves_total` and `paiju_move_statements_total` of `path` (`fast` or `transaction`)
/// in the metrics of the server at `base`.
pub async fn moves_counted(client: &reqwest::Client, base: &str, path: &str) -> (u64, u64) {
    let text = metrics_text(client, base).await;
    let read = |name: &str| {
        let prefix = format!("{name}{{path=\"{path}\"}} ");
        text.lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .map_or(0, |n| n.trim().parse().unwrap())
    };
    (
        read("paiju_moves_total"),
        read("paiju_move_statements_total"),
    )
}
