//! `GET /v1/me/stream`: one Server-Sent Events stream per player that says what happened to
//! them, so a client need not poll every match (docs/api.md § The player's stream).
//!
//! - `hello` first, on every (re)connect: the matches the player sits at that are not over,
//!   with their version, status, hand and whose turn. Match versions are state, not history: a
//!   client compares them with what it has.
//! - `match`: a followed match has a new version (someone moved, a hand ended, the table
//!   finished), with the player's view of it (`view`, as `GET /v1/matches/{id}` answers them,
//!   at that version or newer), so no request follows the event. Fed by the `paiju_match`
//!   notifications every process hears, so moves made through any server process reach every
//!   stream. The news and the view come from the table at that version: the one this process
//!   committed (no read at all), or else read from the database once for all the match's
//!   streams in this process (`Runtime::table_at_least`, counted by
//!   `paiju_stream_reads_total`).
//! - The player's notices (`notices`: seated, tournament table, eliminated, tournament
//!   finished), durable rows whose ids are the stream's event ids: a client reconnecting with
//!   `Last-Event-ID` gets every notice after it (kept for `notices::KEEP_DAYS`), and a `seated`
//!   notice makes the stream follow that match.
//! - `: ping` comments as heartbeats on an idle stream.
//!
//! The stream is pulled: nothing is read from the database until the client has taken what was
//! sent, and versions that came meanwhile are merged into one `match` event, so a slow client
//! costs no memory. One account may hold `StreamSettings::per_user` streams at once.
//!
//! A stream's setup uses at most one pooled connection at a time, briefly, so a burst of
//! reconnects cannot starve other requests. actix notices a client that went away only when
//! it writes to the connection: when an account is at its limit, its streams are asked to
//! write a probe ([`PROBE_GAP`] apart, twice: the first write to a closed peer succeeds, the
//! second fails), so streams whose clients are gone end and free their slots before the new
//! stream is refused. A refused stream says `Retry-After`. At shutdown every stream ends
//! ([`Streams::close_all`]), so the server stops without waiting for them.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
use super::runtime::Runtime;
use super::table::Table;
use super::view::View;
use crate::auth::AuthUser;
use crate::config::StreamSettings;
use crate::error::{ApiError, ApiResult};
use crate::notices;

/// The streams of this process.
pub struct Streams {
    pool: PgPool,
    hub: Hub,
    /// The tables the `match` events are made of (`Runtime::table_at_least`).
    runtime: Arc<Runtime>,
    settings: StreamSettings,
    open: Mutex<HashMap<Uuid, Slots>>,
    /// Set once the server shuts down: every stream ends.
    closing: watch::Sender<bool>,
}

/// One account's open streams in this process.
struct Slots {
    count: usize,
    /// Bumped to ask every stream of the account to write a probe.
    probe: watch::Sender<u64>,
}

/// Between a probe's two writes: time for a closed peer's reset to come back.
const PROBE_GAP: Duration = Duration::from_millis(40);
/// How long an open at the limit waits for probed streams to end before it is refused.
const PROBE_WAIT: Duration = Duration::from_millis(600);
/// What a refused stream's `Retry-After` says, in seconds.
const RETRY_AFTER_SECS: u32 = 5;

/// The stream's first event: who it is for and the live matches they sit at.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = StreamHello)]
pub struct Hello {
    user_id: Uuid,
    matches: Vec<MatchNews>,
}

/// A match the player sits at: in `hello`, where it stands; as the stream's `match` event, it
/// changed, and `view` is the player's view of it now.
#[derive(Clone, Debug, Serialize, sqlx::FromRow, utoipa::ToSchema)]
#[schema(as = StreamMatch)]
pub struct MatchNews {
    match_id: Uuid,
    version: i64,
    #[schema(value_type = crate::matches::table::Status)]
    status: String,
    hand_no: i32,
    /// The seats whose action the match waits for (only the player's own while who is asked
    /// is secret).
    to_act: Vec<i32>,
    /// Who is asked is a secret now: the news shows the player's own seat only.
    #[serde(skip)]
    to_act_hidden: bool,
    /// Playing and the player's seat is in `to_act`.
    #[sqlx(skip)]
    your_turn: bool,
    deadline: Option<DateTime<Utc>>,
    /// The player's seat; `None` once they left it.
    #[serde(skip)]
    seat: Option<i32>,
    /// The `match` event only (absent in `hello`): the player's view of the match, exactly
    /// what `GET /v1/matches/{id}` answers them, at `version` or newer (versions committed
    /// while the client was reading are merged into one event with the newest view).
    #[sqlx(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::api_types::MatchView>)]
    view: Option<View>,
}

impl MatchNews {
    /// `user`'s news of table `t`, as its row says (`seat`: theirs, `None` once they left).
    fn of(t: &Table, user: Uuid) -> MatchNews {
        // Who is asked, as the view shows it to this player: from the seat whose hand they
        // play (a newcomer in a seat whose hand was dealt to the player who left sees the
        // table as a spectator until the next deal).
        let hand_seat = t.hand_seat_of(user);
        let to_act: Vec<i32> = t
            .to_act_for(hand_seat)
            .into_iter()
            .map(|s| s as i32)
            .collect();
        let status = t.status().as_str().to_string();
        let your_turn =
            status == "playing" && hand_seat.is_some_and(|s| to_act.contains(&(s as i32)));
        MatchNews {
            match_id: t.id(),
            version: t.version(),
            status,
            hand_no: t.hand_no(),
            to_act,
            // Filtered above.
            to_act_hidden: false,
            your_turn,
            deadline: t.deadline_at(),
            seat: t.seat_of(user).map(|s| s as i32),
            view: None,
        }
    }

    /// A `hello` row as read (`seat`: the player's): who is asked as they may see it.
    fn finish(mut self) -> Self {
        if self.to_act_hidden {
            let seat = self.seat;
            self.to_act.retain(|&s| Some(s) == seat);
        }
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
    m.to_act_hidden, false AS your_turn, m.deadline_at AS deadline";

struct Followed {
    rx: watch::Receiver<i64>,
    sent: i64,
}

/// One open stream. Dropping it (the client went away) frees its place.
struct Live {
    streams: Arc<Streams>,
    /// Who opened the stream, as their token says (`user.generation`: the token's
    /// generation).
    user: AuthUser,
    /// The last notice sent: every event carries it as its id.
    last_id: i64,
    notices: watch::Receiver<u64>,
    matches: HashMap<Uuid, Followed>,
    queue: VecDeque<Bytes>,
    heartbeat: Interval,
    probe: watch::Receiver<u64>,
    /// A probe's second write is due.
    probing: bool,
    closing: watch::Receiver<bool>,
}

enum Wake {
    Notices,
    Match(Uuid),
    Heartbeat,
    Probe,
    Closing,
}

impl Streams {
    pub fn new(pool: PgPool, runtime: Arc<Runtime>, settings: StreamSettings) -> Streams {
        Streams {
            pool,
            hub: runtime.hub(),
            runtime,
            settings,
            open: Mutex::new(HashMap::new()),
            closing: watch::channel(false).0,
        }
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Slots>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Streams open in this process.
    pub fn open_count(&self) -> usize {
        self.slots().values().map(|s| s.count).sum()
    }

    /// Ends every stream (the server is shutting down) and refuses new ones.
    pub fn close_all(&self) {
        self.closing.send_replace(true);
    }

    /// Takes one of `user`'s slots: at the limit, probes the account's streams and waits up
    /// to [`PROBE_WAIT`] for those whose clients went away to end. Returns the account's probe
    /// receiver.
    async fn take_slot(&self, user: Uuid) -> ApiResult<watch::Receiver<u64>> {
        let until = Instant::now() + PROBE_WAIT;
        let mut probed = false;
        loop {
            if *self.closing.borrow() {
                return Err(ApiError::Unavailable("the server is shutting down".into()));
            }
            {
                let mut slots = self.slots();
                let s = slots.entry(user).or_insert_with(|| Slots {
                    count: 0,
                    probe: watch::channel(0).0,
                });
                if s.count < self.settings.per_user {
                    s.count += 1;
                    return Ok(s.probe.subscribe());
                }
                if !probed {
                    s.probe.send_modify(|n| *n = n.wrapping_add(1));
                    probed = true;
                }
            }
            if Instant::now() >= until {
                return Err(ApiError::RateLimited(
                    format!(
                        "an account may have {} streams open at once; close one first",
                        self.settings.per_user
                    ),
                    RETRY_AFTER_SECS,
                ));
            }
            tokio::time::sleep(PROBE_GAP).await;
        }
    }

    /// Opens a stream for `user`, resuming after notice `last_event_id` when given.
    pub async fn open(
        self: Arc<Self>,
        user: AuthUser,
        last_event_id: Option<i64>,
    ) -> ApiResult<impl Stream<Item = Result<Bytes, Infallible>> + use<>> {
        let probe = self.take_slot(user.id).await?;
        let period = self.settings.heartbeat;
        let mut heartbeat = tokio::time::interval_at(Instant::now() + period, period);
        heartbeat.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut live = Live {
            notices: self.hub.subscribe_user(user.id),
            closing: self.closing.subscribe(),
            streams: self,
            user,
            last_id: 0,
            matches: HashMap::new(),
            queue: VecDeque::new(),
            heartbeat,
            probe,
            probing: false,
        };
        live.start(last_event_id).await?;
        Ok(futures_util::stream::unfold(live, |mut live| async move {
            match live.next_frame().await {
                Ok(Some(frame)) => Some((Ok(frame), live)),
                Ok(None) => {
                    tracing::debug!(user_id = %live.user.id, "player stream closed: shutting down");
                    None
                }
                Err(e) => {
                    tracing::warn!(user_id = %live.user.id, error = %e, "player stream ended");
                    None
                }
            }
        }))
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let mut slots = self.streams.slots();
        if let Some(s) = slots.get_mut(&self.user.id) {
            s.count -= 1;
            if s.count == 0 {
                slots.remove(&self.user.id);
            }
        }
        drop(slots);
        // This stream's receiver goes after this; a later stream subscribes anew.
        let (_, closed) = watch::channel(0u64);
        drop(std::mem::replace(&mut self.notices, closed));
        self.streams.hub.unsubscribe_user(self.user.id);
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
    /// One pooled connection at a time, each held for its reads only.
    async fn start(&mut self, last_event_id: Option<i64>) -> ApiResult<()> {
        self.queue.push_back(Bytes::from_static(b"retry: 2000\n\n"));
        let live = {
            let mut conn = self.streams.pool.acquire().await?;
            if last_event_id.is_none() {
                self.last_id = notices::newest(&mut conn, self.user.id).await?;
            }
            let live: Vec<MatchNews> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "SELECT {NEWS_COLUMNS}, s.seat
                   FROM match_seats s JOIN matches m ON m.id = s.match_id
                  WHERE s.user_id = $1 AND m.status IN ('waiting', 'playing')
                  ORDER BY m.created_at"
            )))
            .bind(self.user.id)
            .fetch_all(&mut *conn)
            .await?;
            live
        };
        if let Some(id) = last_event_id {
            self.last_id = id;
            self.read_notices().await?;
        }
        let live: Vec<MatchNews> = live.into_iter().map(MatchNews::finish).collect();
        for m in &live {
            self.follow(m.match_id, m.version);
        }
        let hello = json!(Hello {
            user_id: self.user.id,
            matches: live,
        });
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

    /// The next frame to send; `None` when the server is shutting down.
    async fn next_frame(&mut self) -> ApiResult<Option<Bytes>> {
        loop {
            // The account was deleted, or its password changed, since the stream opened: its
            // token is refused now.
            if self.streams.hub.refuses(self.user.id, self.user.generation) {
                return Err(ApiError::Unauthorized(
                    "the token that opened this stream was revoked".into(),
                ));
            }
            if let Some(frame) = self.queue.pop_front() {
                return Ok(Some(frame));
            }
            if self.probing {
                // The first probe went out; a closed peer's reset has had time to come back,
                // and this write then fails, which ends the stream.
                self.probing = false;
                tokio::time::sleep(PROBE_GAP).await;
                return Ok(Some(Bytes::from_static(b": probe\n\n")));
            }
            // The reads are boxed: an idle stream's state is only what `wait` needs, not the
            // largest query future (docs/performance.md § Connected players).
            match self.wait().await {
                Wake::Notices => {
                    if let Err(e) = Box::pin(self.read_notices()).await {
                        self.notices.mark_changed();
                        self.read_failed(e).await;
                    }
                }
                Wake::Match(id) => {
                    if let Err(e) = Box::pin(self.match_changed(id)).await {
                        if let Some(f) = self.matches.get_mut(&id) {
                            f.rx.mark_changed();
                        }
                        self.read_failed(e).await;
                    }
                }
                Wake::Heartbeat => self.queue.push_back(Bytes::from_static(b": ping\n\n")),
                Wake::Probe => {
                    self.probing = true;
                    self.queue.push_back(Bytes::from_static(b": probe\n\n"));
                }
                Wake::Closing => return Ok(None),
            }
        }
    }

    /// A read failed (the pool busy past its timeout under a burst of seatings, the database
    /// away): the stream stays open and reads again after a pause of 0.5–1.5 s, spread so that
    /// streams that failed together do not retry together. What it tells is state (versions,
    /// notices after the last id), so nothing is lost by reading it later.
    async fn read_failed(&mut self, e: ApiError) {
        tracing::debug!(user_id = %self.user.id, error = %e, "player stream read failed; retrying");
        let pause = Duration::from_millis(500 + u64::from(self.user.id.as_u128() as u16) % 1000);
        tokio::time::sleep(pause).await;
    }

    async fn wait(&mut self) -> Wake {
        let Live {
            notices,
            matches,
            heartbeat,
            probe,
            closing,
            ..
        } = self;
        if *closing.borrow() {
            return Wake::Closing;
        }
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
            r = probe.changed() => {
                if r.is_err() {
                    return std::future::pending().await;
                }
                Wake::Probe
            }
            _ = closing.changed() => Wake::Closing,
        }
    }

    /// Sends the notices after the last one sent, and follows the matches they seat us at.
    async fn read_notices(&mut self) -> ApiResult<()> {
        loop {
            let mut conn = self.streams.pool.acquire().await?;
            let page = notices::after(&mut conn, self.user.id, self.last_id).await?;
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

    /// A followed match may have a new version: tell it, with the player's view, both from
    /// the table at that version or newer (the one this process holds, or else read once for
    /// all its seats' streams in this process).
    async fn match_changed(&mut self, id: Uuid) -> ApiResult<()> {
        let known = self
            .matches
            .get(&id)
            .map_or(super::notify::UNKNOWN, |f| *f.rx.borrow());
        let runtime = self.streams.runtime.clone();
        let mut table = runtime.table_at_least(id, known).await;
        if matches!(&table, Ok(t) if t.seat_of(self.user.id).is_none()) {
            // Seated after that version (or gone): the match as it is now.
            table = runtime.table_at_least(id, super::notify::UNKNOWN).await;
        }
        let t = match table {
            Ok(t) => t,
            Err(ApiError::NotFound(_)) => {
                self.matches.remove(&id);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let news = MatchNews::of(&t, self.user.id);

        let Some(f) = self.matches.get_mut(&id) else {
            return Ok(());
        };
        let last = news.last();
        if news.version > f.sent {
            f.sent = news.version;
            let mut news = news;
            news.view = Some(t.view(Some(self.user.id)));
            let data = json!(news);
            self.push("match", &data);
        }
        if last {
            self.matches.remove(&id);
        }
        Ok(())
    }
}
