//! The load generator (`paiju-load`, whose figures docs/performance.md publishes) against the
//! real server: both drives play real 扯旋 and 打炸 tables with no error, and the ledger they
//! leave reconciles. This also runs the server's concurrent paths (moves of one table arriving
//! together, long-polls woken by notifications) under real load.

use clap::Parser;
use paiju_load::stats::Report;
use paiju_load::{Args, check, run};

use crate::helpers::{ADMIN, spawn_app};

async fn play(address: &str, drive: &[&str]) -> Report {
    let admin = format!("{}:{}", ADMIN.0, ADMIN.1);
    let mut argv = vec![
        "paiju-load",
        "--url",
        address,
        "--admin",
        &admin,
        "--duration",
        "3",
        "--seed",
        "7",
        "--game",
        "chexuan,dazha",
    ];
    argv.extend_from_slice(drive);
    let args = Args::try_parse_from(argv).expect("valid arguments");
    let seats = check(&args).expect("arguments that fit the games");
    run(args, seats).await.expect("the load run")
}

#[tokio::test]
async fn both_drives_play_both_games_without_errors() {
    let app = spawn_app().await;

    let table = play(&app.address, &["--drive", "table", "--clients", "2"]).await;
    let kinds = &table.stats.moves_by_type;
    assert!(table.moves >= 30, "moves keep flowing: {}", table.moves);
    assert!(table.stats.errors.is_empty(), "{:?}", table.stats.errors);
    assert!(
        table.stats.conflicts.is_empty(),
        "a client per table never races itself: {:?}",
        table.stats.conflicts
    );
    assert!(
        kinds.contains_key("set_bobo") && kinds.contains_key("play"),
        "one 扯旋 and one 打炸 table were played: {kinds:?}"
    );

    let seat = play(&app.address, &["--drive", "seat", "--clients", "8"]).await;
    assert!(seat.moves >= 30, "moves keep flowing: {}", seat.moves);
    assert!(seat.stats.errors.is_empty(), "{:?}", seat.stats.errors);
    assert!(
        seat.stats.conflicts.keys().all(|k| k == "version_conflict"),
        "the only 409s are seats of one table acting at one version: {:?}",
        seat.stats.conflicts
    );

    app.assert_ledger_reconciles().await;
}
