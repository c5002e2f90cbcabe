use paiju::config::Config;
use paiju::startup::Application;

// glibc's allocator showed as ~10 % of the server's CPU under load; mimalloc is leaner with
// many small, short-lived JSON allocations across threads.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    paiju::telemetry::init();
    let config = Config::from_env()?;
    let app = Application::build(config).await?;
    app.run_until_stopped().await
}
