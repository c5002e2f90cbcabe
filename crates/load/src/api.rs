//! The HTTP calls the load generator makes (api.md), and how a failed call is classified.

use std::time::Duration;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// Time allowed for any request that is not a long-poll.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);
/// Added to a long-poll's own timeout before the request is given up.
const LONG_POLL_GRACE: Duration = Duration::from_secs(10);

/// Why a call did not return what was asked for.
#[derive(Debug)]
pub enum Failure {
    /// An `application/problem+json` answer; a `version_conflict` carries the current view.
    Problem {
        status: u16,
        code: String,
        view: Option<Box<View>>,
    },
    /// A non-2xx answer without a readable problem body.
    Status(u16),
    /// No usable answer: connection refused, timeout, broken or unreadable body.
    Transport(&'static str),
}

impl Failure {
    /// The name this failure is counted under: the problem `code`, `http_<status>` or
    /// `transport_<kind>`.
    pub fn key(&self) -> String {
        match self {
            Failure::Problem { code, .. } => code.clone(),
            Failure::Status(s) => format!("http_{s}"),
            Failure::Transport(kind) => format!("transport_{kind}"),
        }
    }

    /// The 409s that races between seats of one match produce by design.
    pub fn expected(&self) -> bool {
        matches!(self, Failure::Problem { status: 409, code, .. }
            if code == "version_conflict" || code == "not_your_turn")
    }

    pub fn code(&self) -> Option<&str> {
        match self {
            Failure::Problem { code, .. } => Some(code),
            _ => None,
        }
    }

    pub fn transport(e: &reqwest::Error) -> Failure {
        Failure::Transport(if e.is_timeout() {
            "timeout"
        } else if e.is_connect() {
            "connect"
        } else if e.is_body() || e.is_decode() {
            "body"
        } else {
            "request"
        })
    }
}

/// The parts of a match view (api.md § The match view) the load generator reads.
#[derive(Clone, Debug, Deserialize)]
pub struct View {
    pub id: String,
    pub version: i64,
    pub status: String,
    pub you: Option<You>,
    #[serde(default)]
    pub to_act: Vec<usize>,
    /// When the current wait ends; set while the table waits for some seat.
    #[serde(default)]
    pub deadline: Option<String>,
    #[serde(default)]
    pub legal_actions: Vec<Value>,
    /// Kept as text: most views are only read for their version and turn, and building the
    /// state's tree for each was a third of the load generator's CPU.
    #[serde(default)]
    state: Option<Box<RawValue>>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct You {
    pub seat: usize,
}

impl View {
    pub fn seat(&self) -> Option<usize> {
        self.you.as_ref().map(|y| y.seat)
    }

    /// This seat is asked to act and has something it may do.
    pub fn my_turn(&self) -> bool {
        self.seat().is_some_and(|s| self.to_act.contains(&s)) && !self.legal_actions.is_empty()
    }

    /// The game-specific `state`, parsed (null when absent or unreadable).
    pub fn state(&self) -> Value {
        self.state
            .as_deref()
            .and_then(|s| serde_json::from_str(s.get()).ok())
            .unwrap_or(Value::Null)
    }

    pub fn over(&self) -> bool {
        matches!(self.status.as_str(), "finished" | "aborted")
    }
}

/// A game the server runs, as `GET /v1/games` lists it.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct ServerGame {
    pub name: String,
    pub seats: Seats,
}

/// A game's table sizes; `default` when a new match may leave `seats` out.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub struct Seats {
    pub min: usize,
    pub max: usize,
    pub default: Option<usize>,
}

#[derive(Deserialize)]
struct GameList {
    games: Vec<ServerGame>,
}

/// The games the server at `base` runs.
pub async fn games(http: &reqwest::Client, base: &str) -> Result<Vec<ServerGame>, Failure> {
    let list: GameList = send(
        http.get(format!("{base}/v1/games"))
            .timeout(REQUEST_TIMEOUT),
    )
    .await?;
    Ok(list.games)
}

/// The server's suggestion for the caller's seat (`GET /v1/matches/{id}/hint`), with the
/// version it was chosen at.
#[derive(Deserialize)]
pub struct Hint {
    pub version: i64,
    pub action: Value,
}

#[derive(Deserialize)]
struct Problem {
    code: String,
    view: Option<Box<View>>,
}

#[derive(Deserialize)]
struct Session {
    user: SessionUser,
    access_token: String,
}

#[derive(Deserialize)]
struct SessionUser {
    id: String,
}

/// A logged-in user on one server.
#[derive(Clone)]
pub struct Api {
    http: reqwest::Client,
    base: String,
    token: String,
    pub user_id: String,
}

async fn send<T: DeserializeOwned>(req: reqwest::RequestBuilder) -> Result<T, Failure> {
    let resp = req.send().await.map_err(|e| Failure::transport(&e))?;
    let status = resp.status();
    let body = resp.bytes().await.map_err(|e| Failure::transport(&e))?;
    if status.is_success() {
        return serde_json::from_slice(&body).map_err(|_| Failure::Transport("bad_json"));
    }
    match serde_json::from_slice::<Problem>(&body) {
        Ok(p) => Err(Failure::Problem {
            status: status.as_u16(),
            code: p.code,
            view: p.view,
        }),
        Err(_) => Err(Failure::Status(status.as_u16())),
    }
}

impl Api {
    async fn session(
        http: &reqwest::Client,
        base: &str,
        path: &str,
        username: &str,
        password: &str,
    ) -> Result<Api, Failure> {
        let s: Session = send(
            http.post(format!("{base}{path}"))
                .timeout(REQUEST_TIMEOUT)
                .json(&json!({ "username": username, "password": password })),
        )
        .await?;
        Ok(Api {
            http: http.clone(),
            base: base.to_string(),
            token: s.access_token,
            user_id: s.user.id,
        })
    }

    pub async fn login(
        http: &reqwest::Client,
        base: &str,
        username: &str,
        password: &str,
    ) -> Result<Api, Failure> {
        Api::session(http, base, "/v1/auth/login", username, password).await
    }

    pub async fn register(
        http: &reqwest::Client,
        base: &str,
        username: &str,
        password: &str,
    ) -> Result<Api, Failure> {
        Api::session(http, base, "/v1/auth/register", username, password).await
    }

    fn post(&self, path: &str) -> reqwest::RequestBuilder {
        self.http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .timeout(REQUEST_TIMEOUT)
    }

    /// Admin only: coins from the house to `user_id`.
    pub async fn grant(&self, user_id: &str, amount: i64) -> Result<(), Failure> {
        send::<Value>(self.post("/v1/admin/grants").json(&json!({
            "user_id": user_id, "amount": amount, "note": "paiju-load",
        })))
        .await
        .map(drop)
    }

    /// Creates a match and takes seat 0.
    pub async fn create(&self, body: &Value) -> Result<View, Failure> {
        send(self.post("/v1/matches").json(body)).await
    }

    pub async fn join(&self, id: &str, seat: usize) -> Result<View, Failure> {
        send(
            self.post(&format!("/v1/matches/{id}/join"))
                .json(&json!({ "seat": seat })),
        )
        .await
    }

    /// The caller's view; with `wait = Some((version, secs))`, a long-poll that answers once the
    /// version passes `version` or after `secs` seconds.
    pub async fn view(&self, id: &str, wait: Option<(i64, u64)>) -> Result<View, Failure> {
        let (query, timeout) = match wait {
            Some((v, secs)) => (
                format!("?wait_version={v}&timeout={secs}"),
                Duration::from_secs(secs) + LONG_POLL_GRACE,
            ),
            None => (String::new(), REQUEST_TIMEOUT),
        };
        send(
            self.http
                .get(format!("{}/v1/matches/{id}{query}", self.base))
                .bearer_auth(&self.token)
                .timeout(timeout),
        )
        .await
    }

    /// The move the game's bot policy would make for the caller's seat now.
    pub async fn hint(&self, id: &str) -> Result<Hint, Failure> {
        send(
            self.http
                .get(format!("{}/v1/matches/{id}/hint", self.base))
                .bearer_auth(&self.token)
                .timeout(REQUEST_TIMEOUT),
        )
        .await
    }

    /// Opens the player's stream (`GET /v1/me/stream`): the answer's body is read as it comes,
    /// on a connection of its own for as long as it is open (no timeout).
    pub async fn stream(&self) -> Result<reqwest::Response, Failure> {
        let resp = self
            .http
            .get(format!("{}/v1/me/stream", self.base))
            .bearer_auth(&self.token)
            .header("accept", "text/event-stream")
            .send()
            .await
            .map_err(|e| Failure::transport(&e))?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        let body = resp.bytes().await.map_err(|e| Failure::transport(&e))?;
        Err(match serde_json::from_slice::<Problem>(&body) {
            Ok(p) => Failure::Problem {
                status: status.as_u16(),
                code: p.code,
                view: p.view,
            },
            Err(_) => Failure::Status(status.as_u16()),
        })
    }

    pub async fn act(&self, id: &str, version: i64, action: &Value) -> Result<View, Failure> {
        send(
            self.post(&format!("/v1/matches/{id}/actions"))
                .json(&json!({ "version": version, "action": action })),
        )
        .await
    }
}

#[cfg(test)]
impl Api {
    /// A session with no server behind it (nothing listens on port 9): for tests of the
    /// choices a client makes, whose requests fail to connect.
    pub fn offline() -> Api {
        Api {
            http: reqwest::Client::new(),
            base: "http://127.0.0.1:9".into(),
            token: String::new(),
            user_id: String::new(),
        }
    }
}
