//! The paiju-load binary; see the library (`src/lib.rs`) and docs/performance.md.

use std::process::ExitCode;

use clap::Parser;
use paiju_load::{Args, check, run, run_phone};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    let seats = match check(&args).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("paiju-load: {e}");
            return ExitCode::from(2);
        }
    };
    // Either mode's report, as words then as JSON.
    let report = if args.phone() {
        run_phone(args, seats)
            .await
            .map(|r| format!("{}\n{}", r.human(), r.json()))
    } else {
        run(args, seats)
            .await
            .map(|r| format!("{}\n{}", r.human(), r.json()))
    };
    match report {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("paiju-load: {e}");
            ExitCode::FAILURE
        }
    }
}
