//! Builds the application: database (local cluster when `DATABASE_URL` is unset), migrations,
//! admin bootstrap, HTTP server, deadline sweeper and the notification listener.

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::http::header;
use actix_web::{App, HttpServer, middleware, web};
use anyhow::Context;
use sqlx::PgPool;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::auth::Jwt;
use crate::config::Config;
use crate::db::MoveConns;
use crate::matches::BotSettings;
use crate::matches::lobby::LobbySettings;
use crate::matches::notify::Hub;
use crate::matches::runtime::Runtime;
use crate::matches::stream::Streams;
use crate::matches::sweeper;
use crate::metrics::{self, Metrics, MetricsAccess, RateLimiter, Readers};
use crate::{db, pglocal, routes};

pub struct Application {
    port: u16,
    server: Server,
    pool: PgPool,
    /// The moves' own connections (the runtime's), for what they prepared.
    move_conns: Arc<MoveConns>,
    stop: watch::Sender<bool>,
    background: Vec<JoinHandle<()>>,
    streams: web::Data<Streams>,
    /// `/metrics` on its own address (`PAIJU_METRICS_BIND`), with that address's port.
    metrics_server: Option<(Server, u16)>,
}

/// The database to use: `DATABASE_URL`, or the project-local cluster (created on first run).
pub async fn database_url(config: &Config) -> anyhow::Result<String> {
    if let Some(url) = &config.database_url {
        return Ok(url.clone());
    }
    let dir = config.data_dir.clone();
    let cluster = tokio::task::spawn_blocking(move || pglocal::ensure(&dir)).await??;
    tracing::info!(
        data = %cluster.dir.display(),
        port = cluster.port,
        "DATABASE_URL is unset: using the project-local PostgreSQL cluster"
    );
    Ok(cluster.url(&config.local_db_name))
}

/// The first connection, retried with backoff for up to `wait` (a server started beside its
/// database, as `docker compose up` does, waits for it), each failure logged.
async fn connect_first(url: &str, wait: std::time::Duration) -> anyhow::Result<()> {
    let until = tokio::time::Instant::now() + wait;
    let mut pause = std::time::Duration::from_millis(250);
    let mut attempt = 1;
    loop {
        match db::create_database_if_missing(url).await {
            Ok(()) => return Ok(()),
            Err(e) if tokio::time::Instant::now() + pause < until => {
                tracing::warn!(
                    attempt,
                    retry_in_ms = pause.as_millis() as u64,
                    error = %format!("{e:#}"),
                    "PostgreSQL is not reachable yet; retrying"
                );
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(std::time::Duration::from_secs(5));
                attempt += 1;
            }
            Err(e) => {
                return Err(e).context(format!(
                    "connecting to PostgreSQL (gave up after {} s; PAIJU_DB_WAIT_SECS)",
                    wait.as_secs()
                ));
            }
        }
    }
}

impl Application {
    pub async fn build(config: Config) -> anyhow::Result<Application> {
        // The API document (and the route list read from it) is generated before the first
        // request, not during it.
        let routes = crate::openapi::index().routes().len();
        tracing::debug!(routes, "API document generated");
        let url = database_url(&config).await?;
        connect_first(&url, config.db_wait).await?;
        let pool = db::pool(&url, config.db_pool)?;
        db::migrate(&pool).await?;
        if let Some((user, password)) = &config.admin {
            crate::accounts::ensure_admin(&pool, user, password).await?;
        }
        let secret = match &config.jwt_secret {
            Some(s) => s.as_bytes().to_vec(),
            None => {
                tracing::warn!(
                    "JWT_SECRET is unset: using a random secret, so tokens stop working when \
                     this process exits and are not accepted by other server processes"
                );
                let mut s = vec![0u8; 32];
                getrandom::fill(&mut s).map_err(|e| anyhow::anyhow!("OS randomness: {e}"))?;
                s
            }
        };
        let jwt = web::Data::new(Jwt::new(&secret, config.token_ttl));
        // Tokens of accounts deleted while they may still be valid are refused from the first
        // request on; the listener keeps the list up to date.
        jwt.revoked()
            .reload(&pool)
            .await
            .context("reading the deleted accounts whose tokens are refused")?;
        let runtime = web::Data::new(Runtime::new(
            pool.clone(),
            config.db_pool,
            config.fast_moves,
            (config.commit_lanes, config.commit_batch),
            Hub::new(jwt.revoked().clone()),
        ));
        let move_conns = runtime.move_conns();
        let (stop, stop_rx) = watch::channel(false);
        let background = vec![
            runtime.spawn_listener(),
            tokio::spawn(sweeper::run(
                pool.clone(),
                config.sweep_every,
                |pool| Box::pin(crate::tournaments::tick(pool)),
                stop_rx,
            )),
        ];

        let listener =
            TcpListener::bind(&config.bind).with_context(|| format!("binding {}", config.bind))?;
        let port = listener.local_addr()?.port();
        let pool_data = web::Data::new(pool.clone());
        let metrics = web::Data::new(Metrics::new(|path| {
            crate::openapi::index().pattern_of(path)
        }));
        metrics.register_moves(runtime.move_counters())?;
        let limiter = web::Data::new(RateLimiter::new(
            config.auth_per_minute,
            config.trusted_proxies.clone(),
        ));
        let lobby_data = web::Data::new(LobbySettings {
            turn_timeout_secs: config.lobby_turn_timeout_secs,
        });
        let streams = web::Data::new(Streams::new(
            pool.clone(),
            runtime.clone().into_inner(),
            config.stream.clone(),
        ));
        let app_streams = streams.clone();
        let cors_origins = config.cors_origins.clone();
        let bot_data = web::Data::new(BotSettings {
            coins: config.bot_coins,
        });
        // Without a listener of its own, the API's port serves `/metrics` to this host's
        // clients only while the API itself listens on loopback: publishing the API (on
        // 0.0.0.0, say) takes the figures off it, save for the token's holder.
        let api_on_loopback = listener.local_addr()?.ip().to_canonical().is_loopback();
        if config.metrics_bind.is_none() && !api_on_loopback && config.metrics_token.is_none() {
            tracing::warn!(
                "the API listens beyond loopback: /metrics is refused on its port; set \
                 PAIJU_METRICS_BIND (its own address) or PAIJU_METRICS_TOKEN to scrape it"
            );
        }
        let metrics_access = web::Data::new(MetricsAccess {
            elsewhere: config.metrics_bind.is_some(),
            without_token: if api_on_loopback {
                Readers::ThisHost
            } else {
                Readers::Nobody
            },
            token: config.metrics_token.clone(),
        });
        let metrics_server = match &config.metrics_bind {
            Some(bind) => Some(metrics_listener(
                bind,
                MetricsAccess {
                    elsewhere: false,
                    without_token: Readers::Anyone,
                    token: config.metrics_token.clone(),
                },
                (
                    pool_data.clone(),
                    runtime.clone(),
                    metrics.clone(),
                    streams.clone(),
                ),
            )?),
            None => None,
        };
        let server = HttpServer::new(move || {
            App::new()
                .wrap(middleware::Condition::new(
                    !cors_origins.is_empty(),
                    cors(&cors_origins),
                ))
                .wrap(middleware::from_fn(crate::error::localize))
                .wrap(middleware::from_fn(metrics::track))
                .app_data(metrics.clone())
                .app_data(metrics_access.clone())
                .app_data(limiter.clone())
                .app_data(pool_data.clone())
                .app_data(jwt.clone())
                .app_data(runtime.clone())
                .app_data(lobby_data.clone())
                .app_data(bot_data.clone())
                .app_data(streams.clone())
                .app_data(web::Data::new(crate::openapi::index()))
                .configure(routes::configure)
                .default_service(web::to(routes::no_route))
        })
        .listen(listener)?
        .workers(config.workers)
        .shutdown_timeout(10)
        // SIGINT/SIGTERM are ours (`run_until_stopped`): open streams end before the server
        // waits for its connections.
        .disable_signals()
        .run();
        tracing::info!(
            address = %format!("http://{}:{port}", config.bind.rsplit_once(':').map_or("127.0.0.1", |b| b.0)),
            "paiju listening"
        );
        Ok(Application {
            port,
            server,
            move_conns,
            pool,
            stop,
            background,
            streams: app_streams,
            metrics_server,
        })
    }

    /// The port of `/metrics`' own listener, when `PAIJU_METRICS_BIND` gave it one.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics_server.as_ref().map(|m| m.1)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn pool(&self) -> PgPool {
        self.pool.clone()
    }

    /// The connections moves are committed on ([`MoveConns`]): each keeps the statements it
    /// prepared, which `tests/api/statements.rs` reads back.
    pub fn move_conns(&self) -> Arc<MoveConns> {
        self.move_conns.clone()
    }

    /// Serves until SIGINT/SIGTERM (`main`): see [`Application::run_until`]. A second signal
    /// stops at once, without waiting for requests in flight.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        self.run_until(shutdown_signal()).await
    }

    /// Serves until `stop` finishes (it names why): open streams end at once, requests in
    /// flight finish (for up to 10 s; a signal meanwhile cuts that short), then the sweeper
    /// stops.
    pub async fn run_until(
        self,
        stop: impl std::future::Future<Output = &'static str>,
    ) -> anyhow::Result<()> {
        let handle = self.server.handle();
        let streams = self.streams.clone();
        let mut server = self.server;
        let metrics = self.metrics_server.map(|(m, _)| {
            let h = m.handle();
            tokio::spawn(m);
            h
        });
        let result = tokio::select! {
            r = &mut server => r,
            why = stop => {
                tracing::info!(why, open_streams = streams.open_count(), "shutting down");
                streams.close_all();
                // The command is sent now; the server, polled below, carries it out.
                drop(handle.stop(true));
                tokio::select! {
                    r = &mut server => r,
                    again = shutdown_signal() => {
                        tracing::warn!(signal = again, "second signal: stopping at once");
                        drop(handle.stop(false));
                        server.await
                    }
                }
            }
        };
        if let Some(m) = metrics {
            m.stop(false).await;
        }
        let _ = self.stop.send(true);
        for task in self.background {
            task.abort();
        }
        self.pool.close().await;
        tracing::info!("paiju stopped");
        Ok(result?)
    }
}

/// `/metrics` alone on `bind` (`PAIJU_METRICS_BIND`): what a scrape reads, on an address the
/// API's clients never see. Returns the server and its port.
fn metrics_listener(
    bind: &str,
    access: MetricsAccess,
    (pool, runtime, metrics, streams): (
        web::Data<PgPool>,
        web::Data<Runtime>,
        web::Data<Metrics>,
        web::Data<Streams>,
    ),
) -> anyhow::Result<(Server, u16)> {
    let listener =
        TcpListener::bind(bind).with_context(|| format!("binding PAIJU_METRICS_BIND {bind}"))?;
    let port = listener.local_addr()?.port();
    let access = web::Data::new(access);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(access.clone())
            .app_data(pool.clone())
            .app_data(runtime.clone())
            .app_data(metrics.clone())
            .app_data(streams.clone())
            .service(metrics::scrape)
    })
    .listen(listener)?
    .workers(1)
    .disable_signals()
    .run();
    tracing::info!(address = %bind, port, "metrics listening");
    Ok((server, port))
}

/// The first SIGINT or SIGTERM, by name.
async fn shutdown_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(mut term), Ok(mut int)) => tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            },
            _ => {
                tracing::warn!("could not listen for signals; stop the server by killing it");
                std::future::pending().await
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "ctrl-c"
    }
}

/// CORS for browser clients on the origins of `PAIJU_CORS_ORIGINS` (none by default: a
/// cross-origin page gets no CORS headers, so the browser keeps its answers from it). Tokens
/// travel in `Authorization`, never in cookies, so no credentials are allowed.
fn cors(origins: &[String]) -> actix_cors::Cors {
    let mut cors = actix_cors::Cors::default()
        .allowed_methods(["GET", "POST", "PUT", "PATCH", "DELETE"])
        .allowed_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::IF_NONE_MATCH,
            header::HeaderName::from_static("idempotency-key"),
            header::HeaderName::from_static("last-event-id"),
            header::HeaderName::from_static(crate::metrics::REQUEST_ID),
        ])
        .expose_headers([
            header::ETAG,
            header::LOCATION,
            header::RETRY_AFTER,
            header::HeaderName::from_static(crate::metrics::REQUEST_ID),
        ])
        .max_age(3600);
    for o in origins {
        cors = if o == "*" {
            cors.allow_any_origin()
        } else {
            cors.allowed_origin(o)
        };
    }
    cors
}
