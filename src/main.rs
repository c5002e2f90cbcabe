use paiju::config::Config;
use paiju::startup::Application;

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    paiju::telemetry::init();
    let config = Config::from_env()?;
    let app = Application::build(config).await?;
    app.run_until_stopped().await
}
