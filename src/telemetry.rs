use tracing_subscriber::EnvFilter;

/// The environment variables logging reads (beside `Config`'s).
pub const VARIABLES: [&str; 2] = ["RUST_LOG", "PAIJU_LOG_FORMAT"];

/// Logs to stderr; `RUST_LOG` filters (default: info for us, warn for libraries).
/// `PAIJU_LOG_FORMAT=json` writes one JSON object per line (with the request's span: its
/// `request_id` and `user_id`) for log shippers; anything else, readable text.
pub fn init() {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("warn,paiju=info,games=info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(std::io::stderr);
    let _ = if json_logs(std::env::var("PAIJU_LOG_FORMAT").ok().as_deref()) {
        builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .try_init()
    } else {
        builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init()
    };
}

/// Whether `PAIJU_LOG_FORMAT` asks for JSON lines.
fn json_logs(format: Option<&str>) -> bool {
    format.is_some_and(|f| f.trim().eq_ignore_ascii_case("json"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_is_chosen_by_name_only() {
        assert!(super::json_logs(Some("json")));
        assert!(super::json_logs(Some(" JSON ")));
        assert!(!super::json_logs(Some("text")));
        assert!(!super::json_logs(None));
    }
}
