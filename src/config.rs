//! Settings from the environment (api.md § Process).

use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct Config {
    /// `DATABASE_URL`; `None` starts or reuses the project-local cluster under `data_dir/pg`.
    pub database_url: Option<String>,
    /// `PAIJU_BIND`, default `127.0.0.1:8080`.
    pub bind: String,
    /// `JWT_SECRET`; `None` draws a random one at start (tokens die with the process).
    pub jwt_secret: Option<String>,
    /// `PAIJU_ADMIN=username:password`.
    pub admin: Option<(String, String)>,
    /// `PAIJU_DATA_DIR`, default `./data`.
    pub data_dir: PathBuf,
    /// Database of the local cluster (`PAIJU_DB_NAME`, default `paiju`); unused with
    /// `DATABASE_URL`.
    pub local_db_name: String,
    /// `PAIJU_DB_POOL`: connections this process keeps (default 16).
    pub db_pool: u32,
    /// How often the deadline sweeper looks for overdue turns (`PAIJU_SWEEP_MS`, default 250).
    pub sweep_every: Duration,
    /// How long the first connection to PostgreSQL is retried (`PAIJU_DB_WAIT_SECS`, default
    /// 60): a server started beside its database waits for it instead of exiting.
    pub db_wait: Duration,
    /// Access token lifetime (`PAIJU_TOKEN_TTL_SECS`, default 86400).
    pub token_ttl: Duration,
    /// `turn_timeout_secs` of coin rooms the lobby makes (`PAIJU_LOBBY_TURN_SECS`, default 20).
    pub lobby_turn_timeout_secs: u32,
    /// HTTP worker threads (`PAIJU_WORKERS`, default: the number of CPUs).
    pub workers: usize,
    /// Whether a move whose table is cached may be committed by one statement
    /// (`PAIJU_FAST_MOVES`, default 1; 0 sends every move through the transactional path,
    /// for comparisons and as a switch).
    pub fast_moves: bool,
    /// Group commit of fast moves (src/matches/commit.rs): at most `PAIJU_COMMIT_LANES`
    /// statements in flight per process (default 2), each carrying at most
    /// `PAIJU_COMMIT_BATCH` moves of different matches (default 64; 1: one statement per move).
    pub commit_lanes: usize,
    pub commit_batch: usize,
    /// Register and login attempts allowed per client address per minute (`PAIJU_AUTH_PER_MIN`,
    /// default 30; the burst is the same number).
    pub auth_per_minute: u32,
    /// Reverse proxies whose `X-Forwarded-For` names the client (`PAIJU_TRUSTED_PROXIES`,
    /// comma-separated addresses; none by default).
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Origins whose pages may call the API from a browser (`PAIJU_CORS_ORIGINS`,
    /// comma-separated like `https://play.example.com`; none by default).
    pub cors_origins: Vec<String>,
    /// The per-user event stream (`GET /v1/me/stream`).
    pub stream: StreamSettings,
    /// `PAIJU_METRICS_BIND`: `/metrics` on a listener of its own at this address, and not on
    /// the API's port. Unset: the API's port serves it, to loopback clients only (docs/
    /// reliability.md § Observability).
    pub metrics_bind: Option<String>,
    /// `PAIJU_METRICS_TOKEN`: a bearer token that opens `/metrics` from anywhere.
    pub metrics_token: Option<String>,
    /// Coins the house gives a bot at a table of a game that stakes coins itself
    /// (`PAIJU_BOT_COINS`, default 2000; 0 refuses bots there).
    pub bot_coins: i64,
}

#[derive(Clone, Debug)]
pub struct StreamSettings {
    /// Seconds between heartbeats on an idle stream (`PAIJU_STREAM_HEARTBEAT_SECS`, default 15).
    pub heartbeat: Duration,
    /// Streams one account may hold open at once (`PAIJU_STREAMS_PER_USER`, default 4).
    pub per_user: usize,
}

impl Default for StreamSettings {
    fn default() -> Self {
        StreamSettings {
            heartbeat: Duration::from_secs(15),
            per_user: 4,
        }
    }
}

/// `PAIJU_CORS_ORIGINS`: each an origin (`scheme://host[:port]`, no path), or `*` for any.
fn cors_origins(v: &str) -> anyhow::Result<Vec<String>> {
    v.split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(|o| {
            let ok = o == "*"
                || o.split_once("://").is_some_and(|(scheme, rest)| {
                    matches!(scheme, "http" | "https") && !rest.is_empty() && !rest.contains('/')
                });
            if ok {
                Ok(o.to_string())
            } else {
                Err(anyhow::anyhow!(
                    "PAIJU_CORS_ORIGINS: {o:?} is not an origin like https://play.example.com"
                ))
            }
        })
        .collect()
}

impl Config {
    pub fn from_env() -> anyhow::Result<Config> {
        Config::from_lookup(|k| std::env::var(k).ok())
    }

    /// The settings from `lookup` (the environment, in `from_env`): every variable the server
    /// reads goes through it, so a test can list them (the README's table must name each).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> anyhow::Result<Config> {
        let var = |k: &str| lookup(k).filter(|v| !v.is_empty());
        let admin = match var("PAIJU_ADMIN") {
            None => None,
            Some(v) => {
                let (u, p) = v
                    .split_once(':')
                    .ok_or_else(|| anyhow::anyhow!("PAIJU_ADMIN must be username:password"))?;
                Some((u.to_string(), p.to_string()))
            }
        };
        let num = |k: &str, default: u64| -> anyhow::Result<u64> {
            match var(k) {
                None => Ok(default),
                Some(v) => v
                    .parse()
                    .map_err(|_| anyhow::anyhow!("{k} must be a whole number, got {v:?}")),
            }
        };
        Ok(Config {
            database_url: var("DATABASE_URL"),
            bind: var("PAIJU_BIND").unwrap_or_else(|| "127.0.0.1:8080".into()),
            jwt_secret: var("JWT_SECRET").map(check_secret).transpose()?,
            admin,
            data_dir: var("PAIJU_DATA_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("data")),
            local_db_name: var("PAIJU_DB_NAME").unwrap_or_else(|| "paiju".into()),
            db_pool: num("PAIJU_DB_POOL", 16)? as u32,
            db_wait: Duration::from_secs(num("PAIJU_DB_WAIT_SECS", 60)?),
            sweep_every: Duration::from_millis(num("PAIJU_SWEEP_MS", 250)?),
            token_ttl: Duration::from_secs(num("PAIJU_TOKEN_TTL_SECS", 86_400)?),
            lobby_turn_timeout_secs: num("PAIJU_LOBBY_TURN_SECS", 20)?.max(1) as u32,
            workers: match num("PAIJU_WORKERS", 0)? {
                0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
                n => n as usize,
            },
            fast_moves: num("PAIJU_FAST_MOVES", 1)? != 0,
            commit_lanes: num("PAIJU_COMMIT_LANES", 2)?.clamp(1, 64) as usize,
            commit_batch: num("PAIJU_COMMIT_BATCH", 64)?.clamp(1, 1024) as usize,
            auth_per_minute: num("PAIJU_AUTH_PER_MIN", 30)?.clamp(1, u32::MAX as u64) as u32,
            trusted_proxies: var("PAIJU_TRUSTED_PROXIES")
                .map(|v| {
                    v.split(',')
                        .map(|a| {
                            a.trim().parse().map_err(|_| {
                                anyhow::anyhow!("PAIJU_TRUSTED_PROXIES: {a:?} is not an IP address")
                            })
                        })
                        .collect::<anyhow::Result<Vec<_>>>()
                })
                .transpose()?
                .unwrap_or_default(),
            cors_origins: var("PAIJU_CORS_ORIGINS")
                .map(|v| cors_origins(&v))
                .transpose()?
                .unwrap_or_default(),
            stream: StreamSettings {
                heartbeat: Duration::from_secs(num("PAIJU_STREAM_HEARTBEAT_SECS", 15)?.max(1)),
                per_user: num("PAIJU_STREAMS_PER_USER", 4)?.clamp(1, 1000) as usize,
            },
            bot_coins: num("PAIJU_BOT_COINS", 2000)?.min(1_000_000_000) as i64,
            metrics_bind: var("PAIJU_METRICS_BIND"),
            metrics_token: var("PAIJU_METRICS_TOKEN")
                .map(|t| {
                    if t.len() >= 16 {
                        Ok(t)
                    } else {
                        Err(anyhow::anyhow!(
                            "PAIJU_METRICS_TOKEN must be at least 16 characters (it opens \
                             /metrics from anywhere)"
                        ))
                    }
                })
                .transpose()?,
        })
    }
}

/// The shortest `JWT_SECRET` accepted (HS256 keys should be at least the hash's 32 bytes).
pub const MIN_SECRET_BYTES: usize = 32;

/// Refuses a `JWT_SECRET` that anyone could guess: a placeholder from an example file, or one
/// shorter than `MIN_SECRET_BYTES`. (Unset is fine locally: a random secret is drawn.)
pub fn check_secret(secret: String) -> anyhow::Result<String> {
    let lower = secret.to_ascii_lowercase();
    let placeholder = [
        "change-me",
        "changeme",
        "change_me",
        "replace-me",
        "your-secret",
        "example",
    ]
    .iter()
    .any(|p| lower.contains(p))
        || ["secret", "jwt-secret", "jwt_secret", "password"].contains(&lower.as_str());
    if placeholder {
        anyhow::bail!(
            "JWT_SECRET is a placeholder; set it to a random secret of at least \
             {MIN_SECRET_BYTES} bytes (e.g. `openssl rand -hex 32`)"
        );
    }
    if secret.len() < MIN_SECRET_BYTES {
        anyhow::bail!(
            "JWT_SECRET is {} bytes; it must be at least {MIN_SECRET_BYTES} (e.g. `openssl rand \
             -hex 32`)",
            secret.len()
        );
    }
    Ok(secret)
}

#[cfg(test)]
mod tests {
    use super::check_secret;

    #[test]
    fn guessable_secrets_are_refused() {
        for bad in [
            "change-me-in-production",
            "CHANGEME",
            "secret",
            "short-but-random-x7",
        ] {
            assert!(check_secret(bad.into()).is_err(), "{bad}");
        }
        let good = "3f9c1e7a0b52d4c8e6f1a9b3c7d5e2f08a4b6c1d3e5f7092";
        assert_eq!(check_secret(good.into()).unwrap(), good);
    }
}
