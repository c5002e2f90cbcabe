//! Prometheus metrics (`GET /metrics`) and the per-address rate limit of register and login.

use crate::error::ProblemResponse;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{Error, HttpResponse, ResponseError, get, web};
use prometheus::{
    Encoder, Gauge, Histogram, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, IntGaugeVec,
    Opts, Registry, TextEncoder,
};
use sqlx::PgPool;

use crate::matches::counters::MoveCounters;

use crate::error::ApiError;

/// Upper bounds (seconds) of the latency histograms' buckets.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

/// Names the route pattern that serves a path (`routes::ApiIndex::pattern_of`), for labels.
pub type RouteOf = fn(&str) -> Option<&'static str>;

/// This process's metrics, in a registry of its own (the `prometheus` crate): requests and
/// their latency per route, the process (CPU, memory, file descriptors), the database pool, the
/// build, and at each scrape what the database says.
pub struct Metrics {
    route_of: RouteOf,
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
    actions: Histogram,
    database_up: IntGauge,
    matches: IntGaugeVec,
    sweeper_lag: Gauge,
    pool: IntGaugeVec,
    open_streams: IntGauge,
    cached_tables: IntGauge,
    tournaments: IntGaugeVec,
    seated_bots: IntGauge,
    ledger: LedgerCount,
}

/// `paiju_ledger_transactions_total{reason}`: every ledger transaction committed (by any
/// process) since this process's first scrape read them all, then only the ones after the
/// newest id it had seen (an index range, not the whole ledger). A transaction whose id was
/// drawn before one already seen but committed after it is not counted: at most a few at a
/// scrape's boundary.
struct LedgerCount {
    total: IntCounterVec,
    seen: std::sync::Mutex<Option<i64>>,
}

impl Metrics {
    pub fn new(route_of: RouteOf) -> Metrics {
        Metrics::build(route_of).expect("metric definitions are valid and registered once")
    }

    fn build(route_of: RouteOf) -> prometheus::Result<Metrics> {
        let registry = Registry::new();
        let requests = IntCounterVec::new(
            Opts::new(
                "paiju_http_requests_total",
                "HTTP requests by method, route and status.",
            ),
            &["method", "route", "status"],
        )?;
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "paiju_http_request_duration_seconds",
                "Latency of HTTP requests by method and route.",
            )
            .buckets(BUCKETS.to_vec()),
            &["method", "route"],
        )?;
        let actions = Histogram::with_opts(
            HistogramOpts::new(
                "paiju_action_seconds",
                "Latency of POST /v1/matches/{id}/actions.",
            )
            .buckets(BUCKETS.to_vec()),
        )?;
        let database_up = IntGauge::new(
            "paiju_database_up",
            "Whether the database answered this scrape.",
        )?;
        let matches = IntGaugeVec::new(
            Opts::new("paiju_matches", "Matches by status."),
            &["status"],
        )?;
        let sweeper_lag = Gauge::new(
            "paiju_sweeper_lag_seconds",
            "How long the most overdue turn has waited past its deadline.",
        )?;
        let pool = IntGaugeVec::new(
            Opts::new(
                "paiju_db_connections",
                "This process's database connections: the request pool's idle and in use, and \
                 the ones kept for moves.",
            ),
            &["pool", "state"],
        )?;
        let build = IntGaugeVec::new(
            Opts::new("paiju_build_info", "The running build; always 1."),
            &["version"],
        )?;
        build.with_label_values(&[env!("CARGO_PKG_VERSION")]).set(1);
        let open_streams = IntGauge::new(
            "paiju_open_streams",
            "GET /v1/me/stream connections open in this process.",
        )?;
        let cached_tables = IntGauge::new(
            "paiju_cached_tables",
            "Matches whose newest table this process holds parsed.",
        )?;
        let tournaments = IntGaugeVec::new(
            Opts::new("paiju_tournaments", "Tournaments by status."),
            &["status"],
        )?;
        let seated_bots = IntGauge::new(
            "paiju_seated_bots",
            "Server-side bots seated at tables not over.",
        )?;
        let ledger = LedgerCount {
            total: IntCounterVec::new(
                Opts::new(
                    "paiju_ledger_transactions_total",
                    "Ledger transactions committed, by reason (all processes; counted since \
                     this process's first scrape).",
                ),
                &["reason"],
            )?,
            seen: std::sync::Mutex::new(None),
        };
        for r in crate::ledger::Reason::ALL {
            ledger.total.with_label_values(&[r.as_str()]);
        }

        registry.register(Box::new(requests.clone()))?;
        registry.register(Box::new(latency.clone()))?;
        registry.register(Box::new(actions.clone()))?;
        registry.register(Box::new(database_up.clone()))?;
        registry.register(Box::new(matches.clone()))?;
        registry.register(Box::new(sweeper_lag.clone()))?;
        registry.register(Box::new(pool.clone()))?;
        registry.register(Box::new(build))?;
        registry.register(Box::new(open_streams.clone()))?;
        registry.register(Box::new(cached_tables.clone()))?;
        registry.register(Box::new(tournaments.clone()))?;
        registry.register(Box::new(seated_bots.clone()))?;
        registry.register(Box::new(ledger.total.clone()))?;
        registry.register(Box::new(
            prometheus::process_collector::ProcessCollector::for_self(),
        ))?;
        Ok(Metrics {
            route_of,
            registry,
            requests,
            latency,
            actions,
            database_up,
            matches,
            sweeper_lag,
            pool,
            open_streams,
            cached_tables,
            tournaments,
            seated_bots,
            ledger,
        })
    }

    fn observe(&self, method: &'static str, route: &'static str, status: u16, secs: f64) {
        self.requests
            .with_label_values(&[method, route, status.to_string().as_str()])
            .inc();
        self.latency
            .with_label_values(&[method, route])
            .observe(secs);
        if route == "/v1/matches/{id}/actions" {
            self.actions.observe(secs);
        }
    }

    /// Shows the match runtime's move counters.
    pub fn register_moves(&self, counters: &MoveCounters) -> prometheus::Result<()> {
        for c in counters.collectors() {
            self.registry.register(c)?;
        }
        Ok(())
    }

    /// The Prometheus text exposition of everything registered.
    fn render(&self) -> String {
        let mut out = Vec::new();
        if let Err(e) = TextEncoder::new().encode(&self.registry.gather(), &mut out) {
            tracing::warn!(error = %e, "metrics: encoding failed");
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

fn method_label(m: &Method) -> &'static str {
    match *m {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        _ => "OTHER",
    }
}

/// The header that carries a request's id, taken from the client (or a proxy) when it sends a
/// usable one, made here otherwise, and returned in the response.
pub const REQUEST_ID: &str = "x-request-id";

/// The request id a client sent, if it is one we can log as it is: 1–64 characters of
/// letters, digits, `-`, `_`, `.` and `:`.
fn usable_request_id(sent: Option<&str>) -> Option<&str> {
    sent.map(str::trim).filter(|id| {
        (1..=64).contains(&id.len())
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
    })
}

/// Counts every request by its route pattern (not its path, so ids do not explode the labels)
/// and logs it in one line at info level: method, route template, status, duration, the
/// caller's user id when a token named one (`auth` records it), the error `code` of a refusal,
/// and the request id (`X-Request-Id`), which every log line of the request carries (its
/// span) and the response returns.
pub async fn track(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    use tracing::Instrument;
    let started = Instant::now();
    let registry = req.app_data::<web::Data<Metrics>>().cloned();
    let method = method_label(req.method());
    // A label only (an odd spelling of a path counts as "unmatched"); limits and auth key on
    // what the router matched.
    let route = registry
        .as_ref()
        .and_then(|m| (m.route_of)(req.path()))
        .unwrap_or("unmatched");
    let request_id = usable_request_id(req.headers().get(REQUEST_ID).and_then(|v| v.to_str().ok()))
        .map_or_else(|| uuid::Uuid::new_v4().simple().to_string(), str::to_owned);
    let span = tracing::info_span!(
        "request",
        request_id = %request_id,
        user_id = tracing::field::Empty
    );
    let mut res = next
        .call(req)
        .instrument(span.clone())
        .await?
        .map_into_boxed_body();
    let (status, secs) = (res.status().as_u16(), started.elapsed().as_secs_f64());
    if let Some(m) = registry {
        m.observe(method, route, status, secs);
    }
    let code = res
        .response()
        .extensions()
        .get::<crate::error::ErrorCode>()
        .map(|c| c.0);
    // Paths name matches and tournaments, never secrets; bodies and headers are not logged.
    span.in_scope(|| {
        tracing::info!(
            method,
            route,
            path = res.request().path(),
            status,
            ms = (secs * 1e5).round() / 100.0,
            code,
            "request"
        )
    });
    if let Ok(v) = actix_web::http::header::HeaderValue::from_str(&request_id) {
        res.headers_mut().insert(
            actix_web::http::header::HeaderName::from_static(REQUEST_ID),
            v,
        );
    }
    Ok(res)
}

/// A token bucket per client address for the routes that hash passwords (they wrap themselves
/// with [`rate_limit`]). The buckets live in this process: with several processes behind a
/// balancer, each allows its own `per_minute`.
pub struct RateLimiter {
    per_minute: f64,
    burst: f64,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
    /// Peers whose `X-Forwarded-For` is believed (`PAIJU_TRUSTED_PROXIES`).
    trusted: Vec<IpAddr>,
}

impl RateLimiter {
    const MAX_TRACKED: usize = 100_000;

    pub fn new(per_minute: u32, trusted: Vec<IpAddr>) -> RateLimiter {
        RateLimiter {
            per_minute: per_minute as f64,
            burst: per_minute.max(1) as f64,
            buckets: Mutex::new(HashMap::new()),
            trusted,
        }
    }

    /// The client's address: the peer's, or, when the peer is a trusted proxy, the last address
    /// in `X-Forwarded-For` that is not itself a trusted proxy (the ones before it are the
    /// client's to write and prove nothing).
    pub fn client(&self, peer: IpAddr, forwarded_for: Option<&str>) -> IpAddr {
        if !self.trusted.contains(&peer) {
            return peer;
        }
        forwarded_for
            .into_iter()
            .flat_map(|h| h.rsplit(','))
            .map_while(|a| a.trim().parse::<IpAddr>().ok())
            .find(|a| !self.trusted.contains(a))
            .unwrap_or(peer)
    }

    /// Takes a token for `ip`; `false` when its bucket is empty.
    pub fn allow(&self, ip: IpAddr, now: Instant) -> bool {
        let Ok(mut buckets) = self.buckets.lock() else {
            return true;
        };
        if buckets.len() >= Self::MAX_TRACKED {
            // Addresses whose buckets have refilled carry no information: forget them.
            let (rate, burst) = (self.per_minute / 60.0, self.burst);
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * rate < burst
            });
        }
        let (tokens, at) = buckets.entry(ip).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * self.per_minute / 60.0)
            .min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

pub async fn rate_limit(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    if let Some(limiter) = req.app_data::<web::Data<RateLimiter>>()
        && let Some(peer) = req.peer_addr().map(|a| a.ip())
        && !limiter.allow(
            limiter.client(
                peer,
                req.headers()
                    .get("x-forwarded-for")
                    .and_then(|v| v.to_str().ok()),
            ),
            Instant::now(),
        )
    {
        let err = ApiError::RateLimited(
            "too many register, login or password attempts from this address; wait a minute".into(),
            60,
        );
        return Ok(req.into_response(err.error_response()));
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

// Prometheus text format. The process's own figures are always there; the database's are
// refreshed when it answers, and `paiju_database_up` says whether it did, so an outage does
// not blank the scrape (the figures only the database knows are left out then).
#[utoipa::path(
    operation_id = "metrics",
    tag = "platform",
    summary = "Prometheus metrics: requests by route and status, action latency histogram, moves and their statements (round trips) by path (fast, transaction), matches by status, sweeper lag",
    description = "The operator's: with PAIJU_METRICS_BIND it is served on a listener of its own and this port answers 404; otherwise only clients on the server's host whose request no proxy forwarded may read it (403 otherwise), or a holder of PAIJU_METRICS_TOKEN as a bearer token.",
    responses(
        (status = 200, description = "Prometheus text format", body = String, content_type = "text/plain"),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 503, response = ProblemResponse),
    ),
    security(()),
)]
#[get("/metrics")]
pub async fn scrape(
    req: actix_web::HttpRequest,
    access: web::Data<MetricsAccess>,
    pool: web::Data<PgPool>,
    runtime: web::Data<crate::matches::runtime::Runtime>,
    m: web::Data<Metrics>,
    streams: web::Data<crate::matches::stream::Streams>,
) -> Result<HttpResponse, ApiError> {
    access.check(&req)?;
    m.open_streams.set(streams.open_count() as i64);
    m.cached_tables.set(runtime.cached_tables() as i64);
    let idle = pool.num_idle() as i64;
    m.pool.with_label_values(&["requests", "idle"]).set(idle);
    m.pool
        .with_label_values(&["requests", "in_use"])
        .set(i64::from(pool.size()) - idle);
    m.pool
        .with_label_values(&["moves", "idle"])
        .set(runtime.idle_move_connections() as i64);
    match database_figures(&pool, &m.ledger).await {
        Ok(f) => {
            m.database_up.set(1);
            for status in ["waiting", "playing", "finished", "aborted"] {
                let n = f.matches.iter().find(|r| r.0 == status).map_or(0, |r| r.1);
                m.matches.with_label_values(&[status]).set(n);
            }
            for status in ["registering", "running", "finished", "cancelled"] {
                let n = f
                    .tournaments
                    .iter()
                    .find(|r| r.0 == status)
                    .map_or(0, |r| r.1);
                m.tournaments.with_label_values(&[status]).set(n);
            }
            m.seated_bots.set(f.seated_bots);
            m.sweeper_lag.set(f.lag);
        }
        Err(e) => {
            tracing::warn!(error = %e, "metrics: the database did not answer");
            m.database_up.set(0);
            m.matches.reset();
            m.tournaments.reset();
            m.seated_bots.set(0);
            m.sweeper_lag.set(0.0);
        }
    }
    Ok(HttpResponse::Ok()
        .content_type(prometheus::TEXT_FORMAT)
        .body(m.render()))
}

/// Who may read `/metrics` where it is served: the figures tell an outsider how busy the
/// service is and which routes fail, so publishing the API must not publish them.
pub struct MetricsAccess {
    /// This listener is the API's, and `/metrics` has one of its own (`PAIJU_METRICS_BIND`):
    /// not served here.
    pub elsewhere: bool,
    /// Who may read it without the token.
    pub without_token: Readers,
    /// `PAIJU_METRICS_TOKEN`: `Authorization: Bearer <token>` opens it from anywhere.
    pub token: Option<String>,
}

/// Who may read `/metrics` without the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Readers {
    /// Anyone who reaches the listener (`/metrics`' own, with no token set).
    Anyone,
    /// Clients on this host whose request no proxy forwarded (the API's port, listening on
    /// loopback).
    ThisHost,
    /// Nobody (the API's port, listening beyond loopback).
    Nobody,
}

impl MetricsAccess {
    fn check(&self, req: &actix_web::HttpRequest) -> Result<(), ApiError> {
        if self.elsewhere {
            return Err(ApiError::NotFound(
                "/metrics is served on its own address (PAIJU_METRICS_BIND)".into(),
            ));
        }
        let bearer = req
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim());
        if let Some(token) = &self.token
            && bearer.is_some_and(|b| constant_time_eq(b.as_bytes(), token.as_bytes()))
        {
            return Ok(());
        }
        let forwarded = ["x-forwarded-for", "forwarded", "x-real-ip"]
            .iter()
            .any(|h| req.headers().contains_key(*h));
        let this_host = req
            .peer_addr()
            .is_some_and(|a| a.ip().to_canonical().is_loopback())
            && !forwarded;
        match self.without_token {
            Readers::Anyone if self.token.is_none() => Ok(()),
            Readers::ThisHost if this_host => Ok(()),
            _ => Err(ApiError::Forbidden(
                "/metrics is for the operator: from this host, on its own address \
                 (PAIJU_METRICS_BIND), or with PAIJU_METRICS_TOKEN as a bearer token"
                    .into(),
            )),
        }
    }
}

/// Compares two byte strings in time that depends on their lengths only.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What a scrape asks the database.
struct DatabaseFigures {
    matches: Vec<(String, i64)>,
    tournaments: Vec<(String, i64)>,
    seated_bots: i64,
    lag: f64,
}

async fn database_figures(
    pool: &PgPool,
    ledger: &LedgerCount,
) -> Result<DatabaseFigures, sqlx::Error> {
    let matches: Vec<(String, i64)> =
        sqlx::query_as("SELECT status, count(*) FROM matches GROUP BY status ORDER BY status")
            .fetch_all(pool)
            .await?;
    let tournaments: Vec<(String, i64)> =
        sqlx::query_as("SELECT status, count(*) FROM tournaments GROUP BY status")
            .fetch_all(pool)
            .await?;
    let seated_bots: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM match_seats s JOIN users u ON u.id = s.user_id
           JOIN matches m ON m.id = s.match_id
          WHERE u.bot AND m.status IN ('waiting', 'playing')",
    )
    .fetch_one(pool)
    .await?;
    let lag: f64 = sqlx::query_scalar(
        "SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(deadline_at)), 0)::float8
           FROM matches WHERE deadline_at <= now()",
    )
    .fetch_one(pool)
    .await?;
    let after = ledger.seen.lock().map(|s| *s).unwrap_or(None);
    let new: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT reason, count(*), max(id) FROM ledger_tx
          WHERE $1::bigint IS NULL OR id > $1 GROUP BY reason",
    )
    .bind(after)
    .fetch_all(pool)
    .await?;
    if let Ok(mut seen) = ledger.seen.lock()
        && *seen == after
    {
        // (Another scrape that counted these meanwhile moved `seen` on: counted once.)
        for (reason, n, _) in &new {
            ledger.total.with_label_values(&[reason]).inc_by(*n as u64);
        }
        let newest = new.iter().map(|r| r.2).max();
        *seen = newest.max(after).or(Some(0));
    }
    Ok(DatabaseFigures {
        matches,
        tournaments,
        seated_bots,
        lag,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_request_id_is_taken_only_when_it_can_be_logged_as_it_is() {
        use super::usable_request_id as id;
        assert_eq!(id(Some("abc-123_x.y:z")), Some("abc-123_x.y:z"));
        assert_eq!(id(Some(" padded ")), Some("padded"));
        assert_eq!(id(Some("")), None);
        assert_eq!(id(Some("two words")), None);
        assert_eq!(id(Some("x\"y")), None);
        assert_eq!(id(Some(&"a".repeat(65))), None);
        assert_eq!(id(None), None);
    }

    use std::time::Duration;

    use super::*;

    #[test]
    fn a_bucket_empties_and_refills_with_time() {
        let l = RateLimiter::new(3, Vec::new());
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let t0 = Instant::now();
        assert!((0..3).all(|_| l.allow(ip, t0)));
        assert!(!l.allow(ip, t0));
        assert!(
            l.allow("10.0.0.2".parse().unwrap(), t0),
            "other addresses have their own bucket"
        );
        assert!(
            l.allow(ip, t0 + Duration::from_secs(21)),
            "one token back after 20 s"
        );
        assert!(!l.allow(ip, t0 + Duration::from_secs(21)));
    }

    #[test]
    fn forwarded_addresses_count_only_behind_a_trusted_proxy() {
        let proxy: IpAddr = "10.0.0.9".parse().unwrap();
        let client: IpAddr = "203.0.113.7".parse().unwrap();
        let l = RateLimiter::new(3, vec![proxy]);
        let xff = Some("198.51.100.1, 203.0.113.7");
        assert_eq!(l.client(proxy, xff), client, "the address the proxy saw");
        assert_eq!(l.client(client, xff), client, "an untrusted peer is itself");
        assert_eq!(l.client(proxy, None), proxy);
        assert_eq!(l.client(proxy, Some("garbage")), proxy);
        assert_eq!(
            l.client(proxy, Some("203.0.113.7, 10.0.0.9")),
            client,
            "proxies in the chain are skipped"
        );
    }

    #[test]
    fn latencies_land_in_cumulative_buckets_per_route() {
        let m = Metrics::new(|_| None);
        m.observe("POST", "/v1/matches/{id}/actions", 200, 0.003);
        m.observe("GET", "/healthz", 200, 0.0001);
        let out = m.render();
        assert!(
            out.contains("paiju_action_seconds_bucket{le=\"0.0025\"} 0"),
            "{out}"
        );
        assert!(out.contains("paiju_action_seconds_bucket{le=\"0.005\"} 1"));
        assert!(out.contains("paiju_action_seconds_count 1"));
        assert!(out.contains(
            "paiju_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} 1"
        ));
        assert!(out.contains(
            "paiju_http_request_duration_seconds_bucket{method=\"GET\",route=\"/healthz\",le=\"0.001\"} 1"
        ));
        assert!(out.contains("paiju_build_info{version="));
        assert!(
            out.contains("process_resident_memory_bytes"),
            "process metrics: {out}"
        );
    }
}
