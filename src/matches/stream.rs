//! `GET /v1/me/stream`: one Server-Sent Events stream per player that says what happened to
//! them, so a client need not poll every match (docs/api.md § The player's stream).
//!
//! - `hello` first, on every (re)connect: the matches the player sits at that are not over,
//!   with their version, status, hand and whose turn. Match versions are state, not history: a
//!   client compares them with what it has.
//! - `match`: a followed match has a new version (someone moved, a hand ended, the table
//!   finished). Fed by the `paiju_match` notifications every process hears, so moves made
//!   through any server process reach every stream.
//! - The player's notices (`notices`: seated, tournament table, eliminated, tournament
//!   finished), durable rows whose ids are the stream's event ids: a client reconnecting with
//!   `Last-Event-ID` gets every notice after it (kept for `notices::KEEP_DAYS`), and a `seated`
//!   notice makes the stream follow that match.
//! - `: ping` comments as heartbeats on an idle stream.
//!
//! The stream is pulled: nothing is read from the database until the client has taken what was
//! sent, and versions that came meanwhile are merged into one `match` event, so a slow client
//! costs no memory. One account may hold `StreamSettings::per_user` streams at once.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use actix_web::web::Bytes;
use chrono::{DateTime, Utc};
use futures_util::Stream;
use serde::Serialize;
use serde_json::json;
use sqlx::PgPool;
use tokio::sync::watch;
use tokio::time::{Instant, Interval, MissedTickBehavior};
use uuid::Uuid;

use super::notify::Hub;
use crate::config::StreamSettings;
use crate::error::{ApiError, ApiResult};
use crate::notices;

/// The streams of this process.
pub struct Streams {
    pool: PgPool,
    hub: Hub,
    settings: StreamSettings,
    open: Mutex<HashMap<Uuid, usize>>,
}

/// What the stream says of a match.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
struct MatchNews {
    match_id: Uuid,
    version: i64,
    status: String,
    hand_no: i32,
    to_act: Vec<i32>,
    #[sqlx(skip)]
    your_turn: bool,
    deadline: Option<DateTime<Utc>>,
    /// The player's seat; `None` once they left it.
    #[serde(skip)]
    seat: Option<i32>,
}

impl MatchNews {
    fn finish(mut self) -> Self {
        self.your_turn =
            self.status == "playing" && self.seat.is_some_and(|s| self.to_act.contains(&s));
        self
    }

    /// Whether the stream stops following the match after this news.
    fn last(&self) -> bool {
        self.seat.is_none() || matches!(self.status.as_str(), "finished" | "aborted")
    }
}

const NEWS_COLUMNS: &str = "m.id AS match_id, m.version, m.status, m.hand_no, m.to_act,
    false AS your_turn, m.deadline_at AS deadline";

struct Followed {
    rx: watch::Receiver<i64>,
    sent: i64,
}

/// One open stream. Dropping it (the client went away) frees its place.
struct Live {
    streams: Arc<Streams>,
    user: Uuid,
    /// The last notice sent: every event carries it as its id.
    last_id: i64,
    notices: watch::Receiver<u64>,
    matches: HashMap<Uuid, Followed>,
    queue: VecDeque<Bytes>,
    heartbeat: Interval,
}

enum Wake {
    Notices,
    Match(Uuid),
    Heartbeat,
}

impl Streams {
    pub fn new(pool: PgPool, hub: Hub, settings: StreamSettings) -> Streams {
        Streams {
            pool,
            hub,
            settings,
            open: Mutex::new(HashMap::new()),
        }
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, usize>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens a stream for `user`, resuming after notice `last_event_id` when given.
    pub async fn open(
        self: Arc<Self>,
        user: Uuid,
        last_event_id: Option<i64>,
    ) -> ApiResult<impl Stream<Item = Result<Bytes, Infallible>> + use<>> {
        {
            let mut counts = self.counts();
            let n = counts.entry(user).or_default();
            if *n >= self.settings.per_user {
                return Err(ApiError::RateLimited(format!(
                    "an account may have {} streams open at once; close one first",
                    self.settings.per_user
                )));
            }
            *n += 1;
        }
        let period = self.settings.heartbeat;
        let mut heartbeat = tokio::time::interval_at(Instant::now() + period, period);
        heartbeat.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut live = Live {
            notices: self.hub.subscribe_user(user),
            streams: self,
            user,
            last_id: 0,
            matches: HashMap::new(),
            queue: VecDeque::new(),
            heartbeat,
        };
        live.start(last_event_id).await?;
        Ok(futures_util::stream::unfold(live, |mut live| async move {
            match live.next_frame().await {
                Ok(frame) => Some((Ok(frame), live)),
                Err(e) => {
                    tracing::warn!(user_id = %live.user, error = %e, "player stream ended");
                    None
                }
            }
        }))
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let mut counts = self.streams.counts();
        if let Some(n) = counts.get_mut(&self.user) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.user);
            }
        }
        drop(counts);
        // This stream's receiver goes after this; a later stream subscribes anew.
        let (_, closed) = watch::channel(0u64);
        drop(std::mem::replace(&mut self.notices, closed));
        self.streams.hub.unsubscribe_user(self.user);
    }
}

impl Live {
    fn push(&mut self, event: &str, data: &serde_json::Value) {
        self.queue.push_back(Bytes::from(format!(
            "id: {}\nevent: {event}\ndata: {data}\n\n",
            self.last_id
        )));
    }

    /// The first events: the retry delay, the notices missed since `last_event_id`, `hello`.
    async fn start(&mut self, last_event_id: Option<i64>) -> ApiResult<()> {
        self.queue.push_back(Bytes::from_static(b"retry: 2000\n\n"));
        let mut conn = self.streams.pool.acquire().await?;
        crate::players::current_role(&mut conn, self.user).await?;
        match last_event_id {
            Some(id) => {
                self.last_id = id;
                drop(conn);
                self.read_notices().await?;
            }
            None => self.last_id = notices::newest(&mut conn, self.user).await?,
        }
        let mut conn = self.streams.pool.acquire().await?;
        let live: Vec<MatchNews> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {NEWS_COLUMNS}, s.seat
               FROM match_seats s JOIN matches m ON m.id = s.match_id
              WHERE s.user_id = $1 AND m.status IN ('waiting', 'playing')
              ORDER BY m.created_at"
        )))
        .bind(self.user)
        .fetch_all(&mut *conn)
        .await?;
        let live: Vec<MatchNews> = live.into_iter().map(MatchNews::finish).collect();
        for m in &live {
            self.follow(m.match_id, m.version);
        }
        let hello = json!({ "user_id": self.user, "matches": live });
        self.push("hello", &hello);
        Ok(())
    }

    /// Follows a match whose version `sent` the client has been told of.
    fn follow(&mut self, id: Uuid, sent: i64) {
        let mut rx = self.streams.hub.subscribe(id);
        // A version committed between reading `sent` and subscribing would count as seen.
        rx.mark_changed();
        self.matches.entry(id).or_insert(Followed { rx, sent });
    }

    async fn next_frame(&mut self) -> ApiResult<Bytes> {
        loop {
            // The account was deleted since the stream opened: its token is refused now.
            if self.streams.hub.deleted(self.user) {
                return Err(ApiError::Unauthorized("the account was deleted".into()));
            }
            if let Some(frame) = self.queue.pop_front() {
                return Ok(frame);
            }
            match self.wait().await {
                Wake::Notices => self.read_notices().await?,
                Wake::Match(id) => self.match_changed(id).await?,
                Wake::Heartbeat => self.queue.push_back(Bytes::from_static(b": ping\n\n")),
            }
        }
    }

    async fn wait(&mut self) -> Wake {
        let Live {
            notices,
            matches,
            heartbeat,
            ..
        } = self;
        let changed = async {
            if matches.is_empty() {
                return std::future::pending().await;
            }
            let waits = matches.iter_mut().map(|(id, f)| {
                Box::pin(async move {
                    // A closed sender (never: the hub keeps it) would only end the wait.
                    let _ = f.rx.changed().await;
                    *id
                })
            });
            futures_util::future::select_all(waits).await.0
        };
        tokio::select! {
            r = notices.changed() => {
                if r.is_err() {
                    return std::future::pending().await;
                }
                Wake::Notices
            }
            id = changed => Wake::Match(id),
            _ = heartbeat.tick() => Wake::Heartbeat,
        }
    }

    /// Sends the notices after the last one sent, and follows the matches they seat us at.
    async fn read_notices(&mut self) -> ApiResult<()> {
        loop {
            let mut conn = self.streams.pool.acquire().await?;
            let page = notices::after(&mut conn, self.user, self.last_id).await?;
            drop(conn);
            let full = page.len() as i64 == notices::PAGE;
            for n in page {
                self.last_id = n.id;
                if n.kind == "seated"
                    && let Some(id) = n.data["match_id"].as_str().and_then(|s| s.parse().ok())
                {
                    self.follow(id, -1);
                }
                let mut data = n.data;
                data["at"] = json!(n.at);
                self.push(&n.kind, &data);
            }
            if !full {
                return Ok(());
            }
        }
    }

    /// A followed match may have a new version: tell it, from the row as committed now.
    async fn match_changed(&mut self, id: Uuid) -> ApiResult<()> {
        let mut conn = self.streams.pool.acquire().await?;
        let news: Option<MatchNews> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {NEWS_COLUMNS},
                    (SELECT s.seat FROM match_seats s WHERE s.match_id = m.id AND s.user_id = $2)
                        AS seat
               FROM matches m WHERE m.id = $1"
        )))
        .bind(id)
        .bind(self.user)
        .fetch_optional(&mut *conn)
        .await?;
        drop(conn);
        let Some(news) = news.map(MatchNews::finish) else {
            self.matches.remove(&id);
            return Ok(());
        };
        let Some(f) = self.matches.get_mut(&id) else {
            return Ok(());
        };
        if news.version > f.sent {
            f.sent = news.version;
            let data = json!(news);
            self.push("match", &data);
        }
        if news.last() {
            self.matches.remove(&id);
        }
        Ok(())
    }
}
