//! The load generator (`paiju-load`, whose figures docs/performance.md publishes) against the
//! real server: both drives play real 扯旋 and 打炸 tables with no error, whole hands of 升级,
//! 三打哈 and 扯胡子 are played without an error or a stall, three-seat 扯胡子 tables mix with
//! four-seat ones, every game the server lists is played from its hints alone (the path of a
//! game the load generator has no chooser for), a game the server does not run is refused
//! with the server's list, and the ledger they leave reconciles. This also runs the server's
//! concurrent paths (moves of one table arriving together, long-polls woken by
//! notifications, 扯胡子's simultaneous claim windows) under real load. Phone mode runs small:
//! players holding their streams learn of every turn from them.

use clap::Parser;
use paiju_load::stats::Report;
use paiju_load::{Args, check, run, run_phone};

use crate::helpers::{ADMIN, spawn_app};

async fn play(address: &str, drive: &[&str]) -> Report {
    play_games(address, "chexuan,dazha", "3", drive).await
}

/// A run with a client per seat kept flowing: enough moves, no error, and no 409 but the
/// version conflicts of seats answering at once.
fn assert_seat_run_flowed(seat: &Report) {
    assert!(seat.moves >= 30, "moves keep flowing: {}", seat.moves);
    assert!(seat.stats.errors.is_empty(), "{:?}", seat.stats.errors);
    assert!(
        seat.stats.conflicts.keys().all(|k| k == "version_conflict"),
        "{:?}",
        seat.stats.conflicts
    );
}

async fn play_games(address: &str, games: &str, secs: &str, drive: &[&str]) -> Report {
    let admin = format!("{}:{}", ADMIN.0, ADMIN.1);
    let mut argv = vec![
        "paiju-load",
        "--url",
        address,
        "--admin",
        &admin,
        "--duration",
        secs,
        "--seed",
        "7",
        "--game",
        games,
    ];
    argv.extend_from_slice(drive);
    let args = Args::try_parse_from(argv).expect("valid arguments");
    let layout = check(&args).await.expect("arguments that fit the games");
    run(args, layout).await.expect("the load run")
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

#[tokio::test]
async fn the_trick_games_are_played_to_the_end_of_their_hands() {
    let app = spawn_app().await;
    // A match of one hand each: a finished match is a whole hand played out (for 三打哈, or a
    // deal that all four passed). A client per table never waits for a deadline, so a chooser
    // that stalled or sent a refused move would show here.
    for (game, first) in [("shengji", "declare"), ("sandaha", "bury")] {
        let r = play_games(
            &app.address,
            game,
            "8",
            &["--drive", "table", "--clients", "2", "--hands", "1"],
        )
        .await;
        assert!(r.stats.errors.is_empty(), "{game}: {:?}", r.stats.errors);
        assert!(
            r.stats.conflicts.is_empty(),
            "{game}: {:?}",
            r.stats.conflicts
        );
        assert!(
            r.stats.matches_finished >= 2,
            "{game}: whole hands are played: {}",
            r.human()
        );
        let kinds = &r.stats.moves_by_type;
        assert!(
            kinds.contains_key(first) && kinds.get("play").is_some_and(|&n| n >= 100),
            "{game}: {kinds:?}"
        );
    }

    // Both games with a client per seat: turns come by long-poll, nothing is refused.
    let seat = play_games(
        &app.address,
        "shengji,sandaha",
        "4",
        &["--drive", "seat", "--clients", "8"],
    )
    .await;
    assert_seat_run_flowed(&seat);
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn chehuzi_is_played_to_the_end_of_its_hands() {
    let app = spawn_app().await;
    // Matches of one hand, a client per table: each finished match is a whole hand (a win or
    // 荒庄) played from the views' `legal_actions` alone, with no refused move and no wait for
    // a deadline (the 60 s turn timeout is far longer than the run).
    let r = play_games(
        &app.address,
        "chehuzi",
        "6",
        &["--drive", "table", "--clients", "2", "--hands", "1"],
    )
    .await;
    assert!(r.stats.errors.is_empty(), "{:?}", r.stats.errors);
    assert!(r.stats.conflicts.is_empty(), "{:?}", r.stats.conflicts);
    assert!(
        r.stats.matches_finished >= 2,
        "whole hands are played: {}",
        r.human()
    );
    let kinds = &r.stats.moves_by_type;
    assert!(
        kinds.get("discard").is_some_and(|&n| n >= 40) && kinds.contains_key("pass"),
        "discards and claim answers: {kinds:?}"
    );

    // Three-seat 扯胡子 tables beside four-seat 打炸 ones, a client per seat (7 = 3 + 4): the
    // claim windows' simultaneous answers race only at one version.
    let seat = play_games(
        &app.address,
        "chehuzi,dazha",
        "4",
        &["--drive", "seat", "--clients", "7"],
    )
    .await;
    assert_seat_run_flowed(&seat);
    let kinds = &seat.stats.moves_by_type;
    assert!(
        kinds.contains_key("discard") && kinds.contains_key("play"),
        "both games were played: {kinds:?}"
    );
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn every_game_the_server_lists_is_played_from_its_hints() {
    let app = spawn_app().await;
    // `--moves hint` plays every move from GET /v1/matches/{id}/hint: what a game without a
    // chooser of the load generator's own gets. A table of each game, one hand per match.
    let r = play_games(
        &app.address,
        "all",
        "8",
        &[
            "--moves",
            "hint",
            "--drive",
            "table",
            "--clients",
            "5",
            "--hands",
            "1",
        ],
    )
    .await;
    assert!(r.stats.errors.is_empty(), "{:?}", r.stats.errors);
    assert!(r.stats.conflicts.is_empty(), "{:?}", r.stats.conflicts);
    assert!(
        r.stats.matches_finished >= 5,
        "whole hands are played: {}",
        r.human()
    );
    let kinds = &r.stats.moves_by_type;
    for kind in ["set_bobo", "play", "bury", "discard"] {
        assert!(
            kinds.contains_key(kind),
            "扯旋, the trick games, 三打哈 and 扯胡子 were played: {kinds:?}"
        );
    }
    app.assert_ledger_reconciles().await;
}

/// Phone mode, small: 200 players (50 tables of 打炸) each hold their stream, learn of their
/// turns from it alone, think 20–60 ms and act. Every stream connects, moves flow, and every
/// accepted move's version reaches each other seat's stream (none missed: what is not seen yet
/// is a move of the last 2 s), with no error.
#[tokio::test]
async fn phones_learn_their_turns_from_their_streams_and_see_every_move() {
    let app = spawn_app().await;
    let admin = format!("{}:{}", ADMIN.0, ADMIN.1);
    let args = Args::try_parse_from([
        "paiju-load",
        "--url",
        &app.address,
        "--admin",
        &admin,
        "--mode",
        "phone",
        "--clients",
        "200",
        "--game",
        "dazha",
        "--think",
        "20..60",
        "--connect-rate",
        "1000",
        "--duration",
        "5",
        "--seed",
        "7",
        "--server-pid",
        &std::process::id().to_string(),
    ])
    .expect("valid arguments");
    let layout = check(&args).await.expect("arguments that fit the game");
    let r = run_phone(args, layout).await.expect("the phone run");
    let report = r.human();
    assert_eq!(r.connected, 200, "{report}");
    assert!(r.stats.errors.is_empty(), "{report}");
    assert!(
        r.stats.conflicts.is_empty(),
        "打炸 asks one seat at a time, and a phone acts only on its turn: {report}"
    );
    assert!(r.moves >= 200, "moves flow: {report}");
    assert_eq!(r.missed, 0, "every seat saw every move: {report}");
    assert_eq!(
        r.delay_samples + r.in_flight,
        3 * r.moves,
        "each move is timed to the three other seats: {report}"
    );
    let delay = r.delay.expect("delays measured");
    assert!(delay.p50 < 1000.0, "{report}");
    // Every phone sat within the run, and the moves after that are also reported apart.
    assert!(r.seated_secs.is_some(), "{report}");
    assert!(
        r.seated_samples > 0 && r.seated_samples <= r.delay_samples,
        "{report}"
    );
    assert!(r.delay_seated.is_some() && r.errors_seated == 0, "{report}");
    assert_eq!(r.reconnects, 0, "{report}");
    assert!(r.cpu_ms_per_move().is_some(), "{report}");
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn a_game_the_server_does_not_run_is_refused_with_its_list() {
    let app = spawn_app().await;
    let args = Args::try_parse_from([
        "paiju-load",
        "--url",
        &app.address,
        "--game",
        "dazha,majiang",
    ])
    .expect("valid arguments");
    let e = check(&args).await.expect_err("majiang is not served");
    assert_eq!(
        e,
        format!(
            "the server runs no game \"majiang\": its games are {} (or all)",
            games::names().join(", ")
        )
    );
}
