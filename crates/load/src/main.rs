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
    if args.phone() {
        return match run_phone(args, seats).await {
            Ok(report) => {
                println!("{}", report.human());
                println!("{}", report.json());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("paiju-load: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match run(args, seats).await {
        Ok(report) => {
            println!("{}", report.human());
            println!("{}", report.json());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("paiju-load: {e}");
            ExitCode::FAILURE
        }
    }
}
