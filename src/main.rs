use paiju::config::Config;
use paiju::startup::Application;

// glibc's allocator showed as ~10 % of the server's CPU under load; mimalloc is leaner with
// many small, short-lived JSON allocations across threads.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    if std::env::args().nth(1).as_deref() == Some("healthcheck") {
        std::process::exit(healthcheck());
    }
    paiju::telemetry::init();
    paiju::fds::raise_and_log();
    let config = Config::from_env()?;
    let app = Application::build(config).await?;
    app.run_until_stopped().await
}

/// `paiju healthcheck` (a container's health probe): 0 when the server at `PAIJU_BIND` answers
/// `GET /healthz` with 200, 1 otherwise. Plain HTTP over a socket: no client library needed.
fn healthcheck() -> i32 {
    use std::io::{Read, Write};
    let bind = std::env::var("PAIJU_BIND").unwrap_or_else(|_| "127.0.0.1:8080".into());
    let port = bind.rsplit(':').next().unwrap_or("8080");
    let probe = || -> std::io::Result<bool> {
        let addr = format!("127.0.0.1:{port}");
        let timeout = std::time::Duration::from_secs(3);
        let mut s = std::net::TcpStream::connect_timeout(
            &addr.parse().map_err(std::io::Error::other)?,
            timeout,
        )?;
        s.set_read_timeout(Some(timeout))?;
        s.write_all(b"GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n")?;
        let mut head = [0u8; 16];
        let n = s.read(&mut head)?;
        Ok(head[..n].starts_with(b"HTTP/1.1 200") || head[..n].starts_with(b"HTTP/1.0 200"))
    };
    match probe() {
        Ok(true) => 0,
        Ok(false) => {
            eprintln!("paiju healthcheck: /healthz did not answer 200");
            1
        }
        Err(e) => {
            eprintln!("paiju healthcheck: {e}");
            1
        }
    }
}
