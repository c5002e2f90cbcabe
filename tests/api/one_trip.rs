//! One statement per move (docs/architecture.md § One step, one writer): a move whose table
//! is cached at its version is committed by one statement that writes only over that version.
//! These tests hold it to what the transactional path does: the same rows, one winner when two
//! processes race, stored answers for retried keys, and 409s (never a second application) when
//! another process moved first. Fast moves of different tables ready at once share a statement
//! (group commit): that writes what one statement per move writes, and a table whose row moved
//! on, or a statement that fails, costs the other moves nothing.

use futures_util::future::join_all;
use paiju::matches::table::{Keyed, Table, save_many};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, fixed_shuffle, fresh_database, game_deck, moves_counted,
    spawn_app, spawn_app_with,
};

/// A server process on the database `url`, with the fast path on or off.
async fn process_on(url: &str, fast: bool) -> TestApp {
    let url = url.to_string();
    spawn_app_with(move |c| {
        c.database_url = Some(url);
        c.fast_moves = fast;
    })
    .await
}

/// A 打炸 table of four whose every hand is shuffled from a fixed seed, for `hands` hands,
/// seating players named `{prefix}0`…`{prefix}3`.
pub(crate) async fn seeded_table(app: &TestApp, hands: u32, prefix: &str) -> (String, Vec<Player>) {
    let mut deck = game_deck("dazha", json!({}));
    fixed_shuffle(&mut deck, 0x18);
    let (s, v) = app
        .post(
            "/v1/matches",
            &app.admin_token,
            json!({"game": "dazha", "seats": 4, "join": false, "deck": deck,
                   "seed": "18".repeat(32),
                   "options": {"hands": hands, "turn_timeout_secs": 300}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let players = app.seat_players(&id, prefix, 4).await;
    (id, players)
}

/// A 扯旋 table of three shuffled from a fixed seed, for `hands` hands, seating players named
/// `{prefix}0`…`{prefix}2` with 1,000 coins each: every hand opens with each seat staking its
/// 簸簸 from its wallet.
pub(crate) async fn staking_table(
    app: &TestApp,
    hands: u32,
    prefix: &str,
) -> (String, Vec<Player>) {
    let (s, v) = app
        .post(
            "/v1/matches",
            &app.admin_token,
            json!({"game": "chexuan", "seats": 3, "join": false, "seed": "5a".repeat(32),
                   "options": {"hands": hands, "turn_timeout_secs": 300}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let players = app.seat_funded_players(&id, prefix, 3, 1000).await;
    (id, players)
}

/// The table of a move that one statement commits ([`Table::plan_move`]).
fn plain(worked: Option<Table>) -> Table {
    worked.expect("a move that one statement commits")
}

/// The seat to act, its player and the 提示 for it (the action and the version it is for).
async fn next_move<'a>(app: &TestApp, id: &str, players: &'a [Player]) -> (&'a Player, Value) {
    let v = app.view(id, &players[0]).await;
    let seat = v["to_act"][0].as_u64().expect("a seat to act") as usize;
    let p = &players[seat];
    let (s, hint) = app.get(&format!("/v1/matches/{id}/hint"), &p.token).await;
    assert_eq!(s, StatusCode::OK, "{hint}");
    (p, hint)
}

async fn post_keyed(
    app: &TestApp,
    id: &str,
    p: &Player,
    key: &str,
    body: &Value,
) -> (StatusCode, Value) {
    let res = app
        .client
        .post(format!("{}/v1/matches/{id}/actions", app.address))
        .bearer_auth(&p.token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = res.status();
    (status, res.json().await.unwrap())
}

/// Plays the match to its end with 提示s, every move with its own Idempotency-Key when
/// `keyed`; returns the moves sent.
pub(crate) async fn play_out(app: &TestApp, id: &str, players: &[Player], keyed: bool) -> usize {
    let mut n = 0;
    while app.view(id, &players[0]).await["status"] != "finished" {
        assert!(n < 2_000, "the match does not end");
        let (p, hint) = next_move(app, id, players).await;
        let body = json!({"version": hint["version"], "action": hint["action"]});
        let (s, b) = if keyed {
            post_keyed(app, id, p, &format!("move-{n}"), &body).await
        } else {
            app.post(&format!("/v1/matches/{id}/actions"), &p.token, body)
                .await
        };
        assert_eq!(s, StatusCode::OK, "{hint} refused: {b}");
        n += 1;
    }
    n
}

/// Every row the match wrote, with ids replaced by names so that two databases compare.
async fn rows_of(app: &TestApp, id: &str) -> Value {
    let dump: String = sqlx::query_scalar(
        "SELECT json_build_object(
           'match', (SELECT json_build_object('version', version, 'last_seq', last_seq,
                            'action_no', action_no, 'status', status, 'hand_no', hand_no,
                            'to_act', to_act)
                       FROM matches WHERE id = $1::uuid),
           'events', (SELECT json_agg(json_build_object('seq', seq, 'hand_no', hand_no,
                             'kind', kind, 'seat', seat, 'data', data,
                             'visible_to', visible_to) ORDER BY seq)
                        FROM match_events WHERE match_id = $1::uuid),
           'actions', (SELECT json_agg(json_build_object('n', n, 'hand_no', hand_no,
                              'seat', seat, 'kind', kind, 'action', action) ORDER BY n)
                         FROM match_actions WHERE match_id = $1::uuid),
           'hands', (SELECT json_agg(json_build_object('hand_no', hand_no,
                            'commitment', commitment, 'result', result,
                            'wallets', wallets, 'scores', scores,
                            'ended', ended_at IS NOT NULL) ORDER BY hand_no)
                       FROM hands WHERE match_id = $1::uuid),
           'scores', (SELECT json_agg(json_build_object('user', s.user_id, 'game', s.game,
                             'points', s.points) ORDER BY u.username)
                        FROM scores s JOIN users u ON u.id = s.user_id),
           'score_entries', (SELECT json_agg(json_build_object('user', e.user_id,
                                    'hand_no', e.hand_no, 'delta', e.delta,
                                    'after', e.points_after) ORDER BY e.hand_no, u.username)
                               FROM score_entries e JOIN users u ON u.id = e.user_id
                              WHERE e.match_id = $1::uuid),
           'ledger', (SELECT json_agg(json_build_object('reason', t.reason,
                             'hand_no', t.hand_no, 'account', COALESCE(u.username, a.kind),
                             'amount', e.amount, 'after', e.balance_after)
                             ORDER BY t.id, a.kind, u.username)
                        FROM ledger_tx t JOIN ledger_entries e ON e.tx_id = t.id
                        JOIN accounts a ON a.id = e.account_id
                        LEFT JOIN users u ON u.id = a.user_id
                       WHERE t.match_id = $1::uuid),
           'keys', (SELECT json_agg(json_build_object('user', k.user_id, 'key', k.key,
                           'request', k.request, 'status', k.status,
                           'version', k.body->'version', 'to_act', k.body->'to_act')
                           ORDER BY k.key)
                      FROM idempotency k))::text",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let names: Vec<(String, String)> =
        sqlx::query_as("SELECT id::text, username FROM users ORDER BY username")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    let mut dump = dump.replace(id, "MATCH");
    for (user, name) in names {
        dump = dump.replace(&user, &name);
    }
    serde_json::from_str(&dump).unwrap()
}

/// Two processes with the fast path on one database.
async fn two_processes() -> (TestApp, TestApp) {
    let url = fresh_database().await;
    (process_on(&url, true).await, process_on(&url, true).await)
}

/// Two processes on databases of their own: one with the fast path, one without.
async fn fast_and_slow() -> (TestApp, TestApp) {
    (
        process_on(&fresh_database().await, true).await,
        process_on(&fresh_database().await, false).await,
    )
}

/// Plays the same match on two processes to its end ([`play_out`], keyed) and asserts that
/// both wrote the same rows; returns the moves sent to each and those rows.
async fn play_out_both(
    one: (&TestApp, &str, &[Player]),
    other: (&TestApp, &str, &[Player]),
) -> (usize, Value) {
    play_out_both_keyed(one, other, true).await
}

async fn play_out_both_keyed(
    one: (&TestApp, &str, &[Player]),
    other: (&TestApp, &str, &[Player]),
    keyed: bool,
) -> (usize, Value) {
    let moves = play_out(one.0, one.1, one.2, keyed).await;
    assert_eq!(play_out(other.0, other.1, other.2, keyed).await, moves);
    let rows = rows_of(one.0, one.1).await;
    assert_eq!(rows, rows_of(other.0, other.1).await);
    (moves, rows)
}

#[tokio::test]
async fn fast_and_transactional_moves_write_the_same_rows_through_hand_ends() {
    let (fast, slow) = fast_and_slow().await;
    let (fast_id, fast_players) = seeded_table(&fast, 2, "trip").await;
    let (slow_id, slow_players) = seeded_table(&slow, 2, "trip").await;
    let (moves, a) = play_out_both(
        (&fast, &fast_id, &fast_players),
        (&slow, &slow_id, &slow_players),
    )
    .await;
    // Both hands ended and were settled once each (积分 per seat per hand), the second was
    // dealt after the first, and every move left its stored answer.
    let hands = a["hands"].as_array().unwrap();
    assert_eq!(hands.len(), 2, "{a}");
    assert!(hands.iter().all(|h| h["ended"] == true), "{a}");
    assert_eq!(a["score_entries"].as_array().unwrap().len(), 8, "{a}");
    assert_eq!(a["keys"].as_array().unwrap().len(), moves);
    assert_eq!(a["match"]["status"], "finished");

    // Every move of the fast process took the fast path, one statement each, the move that
    // ended the first hand too: the move, the hand's end, the next deal — a hand that ends at
    // its deal by 摊牌, which finishes the match — and the key's row. The other process sent no
    // move down the fast path.
    let (fast_moves, fast_statements) = moves_counted(&fast.client, &fast.address, "fast").await;
    assert_eq!(
        moves_counted(&fast.client, &fast.address, "transaction").await,
        (0, 0)
    );
    assert_eq!(fast_moves, moves as u64);
    assert_eq!(fast_statements, fast_moves);
    assert_eq!(
        moves_counted(&slow.client, &slow.address, "fast").await,
        (0, 0)
    );
    let (slow_moves, slow_statements) =
        moves_counted(&slow.client, &slow.address, "transaction").await;
    assert_eq!(slow_moves, moves as u64);
    // BEGIN, key, load, save, answer, COMMIT at least.
    assert!(slow_statements >= 6 * slow_moves);
    fast.assert_ledger_reconciles().await;
}

/// A move that ends a hand at a table that deals the next at once is one statement too, when
/// the next deal reads no wallet or 积分 (打炸): the move, the hand's end, its 积分 and the deal.
/// A 扯旋 deal reads them (each seat's 簸簸 comes from its wallet): the join that fills the
/// table deals the first hand in its transaction, which reads them locked, and the process
/// keeps that table (seatings are kept like moves); every move that ends a hand then assumes
/// what the process knows since (that read, moved on by every save), which its one statement
/// checks — and every move writes what the other process writes.
#[tokio::test]
async fn a_hand_end_and_the_deal_after_it_are_one_statement_once_the_purses_are_known() {
    let (fast, slow) = fast_and_slow().await;
    let (fast_id, fast_players) = seeded_table(&fast, 4, "ends").await;
    let (slow_id, slow_players) = seeded_table(&slow, 4, "ends").await;
    let (moves, a) = play_out_both_keyed(
        (&fast, &fast_id, &fast_players),
        (&slow, &slow_id, &slow_players),
        true,
    )
    .await;
    let hands = a["hands"].as_array().unwrap();
    assert!(hands.len() >= 2, "{a}");
    assert!(hands.iter().all(|h| h["ended"] == true), "{a}");
    let (fast_moves, fast_statements) = moves_counted(&fast.client, &fast.address, "fast").await;
    let (tx_moves, _) = moves_counted(&fast.client, &fast.address, "transaction").await;
    assert_eq!(tx_moves, 0);
    assert_eq!(fast_moves, moves as u64);
    assert_eq!(fast_statements, fast_moves);

    let (fast, slow) = fast_and_slow().await;
    let (fast_id, fast_players) = staking_table(&fast, 4, "xends").await;
    let (slow_id, slow_players) = staking_table(&slow, 4, "xends").await;
    let (xmoves, a) = play_out_both_keyed(
        (&fast, &fast_id, &fast_players),
        (&slow, &slow_id, &slow_players),
        true,
    )
    .await;
    let hands = a["hands"].as_array().unwrap();
    assert_eq!(hands.len(), 4, "{a}");
    assert!(hands.iter().all(|h| h["ended"] == true), "{a}");
    // Hands 1, 2 and 3 ended by one statement each, which checked the purses it assumed (those
    // the filling join read, moved on) and dealt the next; the move that ended the fourth
    // finished the match: one statement. No move took a transaction.
    let (fast_moves, fast_statements) = moves_counted(&fast.client, &fast.address, "fast").await;
    let (tx_moves, _) = moves_counted(&fast.client, &fast.address, "transaction").await;
    assert_eq!(tx_moves, 0);
    assert_eq!(fast_moves + tx_moves, xmoves as u64);
    assert_eq!(fast_statements, fast_moves);
    fast.assert_ledger_reconciles().await;
}

/// Plays the 提示 of the seat to act, without a key.
async fn play_hint(app: &TestApp, id: &str, players: &[Player]) {
    let (p, hint) = next_move(app, id, players).await;
    let body = json!({"version": hint["version"], "action": hint["action"]});
    let (s, b) = app
        .post(&format!("/v1/matches/{id}/actions"), &p.token, body)
        .await;
    assert_eq!(s, StatusCode::OK, "{hint} refused: {b}");
}

/// Plays `id` with 提示s until its view shows hand `hand`; returns the moves sent.
async fn play_until_hand(app: &TestApp, id: &str, players: &[Player], hand: i64) -> usize {
    let mut n = 0;
    while app.view(id, &players[0]).await["hand_no"].as_i64().unwrap() < hand {
        assert!(n < 1_000, "hand {hand} never came");
        play_hint(app, id, players).await;
        n += 1;
    }
    n
}

/// Coins granted to a player during hand 1, 积分 of the same game added to another player's
/// during hand 2 (as another table's hand end would), coins granted again during hand 3: the
/// next 扯旋 deal is made from the wallets and 积分 the ledger holds then, read and locked by
/// the hand-ending move's transaction, on either process. (The ends of hands 2 and 3 assume
/// the purses the process knows; each statement finds one changed, 积分 then a wallet, and
/// writes nothing, and the move takes the transaction.)
#[tokio::test]
async fn a_deal_is_made_from_wallets_and_scores_that_moved_elsewhere_mid_hand() {
    let (fast, slow) = fast_and_slow().await;
    let (fast_id, fast_players) = staking_table(&fast, 4, "moved").await;
    let (slow_id, slow_players) = staking_table(&slow, 4, "moved").await;
    let both: [(&TestApp, &str, &[Player]); 2] = [
        (&fast, &fast_id, &fast_players),
        (&slow, &slow_id, &slow_players),
    ];
    // A first move, so that the fast process holds the table (and its players' wallets);
    // then the grant.
    let mut before = Vec::new();
    for (app, id, players) in both {
        let mut moves = play_until_hand(app, id, players, 1).await;
        play_hint(app, id, players).await;
        moves += 1;
        app.grant(&players[1], 7, "mid-hand").await;
        moves += play_until_hand(app, id, players, 2).await;
        sqlx::query(
            "INSERT INTO scores (user_id, game, points) VALUES ($1, 'chexuan', 5)
             ON CONFLICT (user_id, game) DO UPDATE SET points = scores.points + 5",
        )
        .bind(players[2].id)
        .execute(&app.pool)
        .await
        .unwrap();
        moves += play_until_hand(app, id, players, 3).await;
        app.grant(&players[1], 11, "mid-hand").await;
        before.push(moves);
    }
    assert_eq!(before[0], before[1]);
    let (moves, a) = play_out_both_keyed(both[0], both[1], true).await;
    let hands = a["hands"].as_array().unwrap();
    assert_eq!(hands.len(), 4, "{a}");
    // Hands 2 and 4 were dealt from the wallet with the grants, hand 3 from the 积分 with the
    // points added: what the player has now, less what the later hands moved.
    let wallet_before = |hand: i32| {
        sqlx::query_scalar::<_, i64>(
            "SELECT (a.balance - COALESCE(sum(e.amount), 0))::bigint
               FROM accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
                    AND e.tx_id IN (SELECT id FROM ledger_tx
                                     WHERE match_id = $2::uuid AND hand_no >= $3)
              WHERE a.user_id = $1 GROUP BY a.balance",
        )
        .bind(fast_players[1].id)
        .bind(&fast_id)
        .bind(hand)
        .fetch_one(&fast.pool)
    };
    assert_eq!(
        hands[3]["wallets"][1],
        json!(wallet_before(4).await.unwrap()),
        "{a}"
    );
    let (wallet, points): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT (a.balance - COALESCE(sum(e.amount), 0))::bigint
                   FROM accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
                        AND e.tx_id IN (SELECT id FROM ledger_tx
                                         WHERE match_id = $3::uuid AND hand_no >= 2)
                  WHERE a.user_id = $1 GROUP BY a.balance),
                (SELECT (s.points - COALESCE((SELECT sum(delta) FROM score_entries
                                              WHERE user_id = $2 AND match_id = $3::uuid
                                                AND hand_no >= 3), 0))::bigint
                   FROM scores s WHERE s.user_id = $2 AND s.game = 'chexuan')",
    )
    .bind(fast_players[1].id)
    .bind(fast_players[2].id)
    .bind(&fast_id)
    .fetch_one(&fast.pool)
    .await
    .unwrap();
    // (Hand 2's wallet: less the 11 granted during hand 3.)
    assert_eq!(hands[1]["wallets"][1], json!(wallet - 11), "{a}");
    assert_eq!(hands[2]["scores"][2], json!(points), "{a}");
    // Hands 1 to 3 ended in a transaction each, which dealt the next (hand 1's because the
    // process knew no purses yet, the others' because one had moved); the fourth finished the
    // match in one statement.
    let (fast_moves, _) = moves_counted(&fast.client, &fast.address, "fast").await;
    let (tx_moves, _) = moves_counted(&fast.client, &fast.address, "transaction").await;
    assert_eq!(tx_moves, 3);
    assert_eq!(fast_moves + tx_moves, (before[0] + moves) as u64);
    fast.assert_ledger_reconciles().await;
}

/// 积分 that another table's hand end adds between a 扯旋 hand-ending move's read and its write
/// (the read does not lock 积分; here a transaction of the test's holds the row, and commits
/// +1,000 once the move waits for it): the next hand is dealt from the 积分 it read, and its
/// `hands` row records those, from which the replay deals it again, not what the statement
/// leaves.
#[tokio::test]
async fn a_deal_records_the_scores_it_was_dealt_from_though_they_move_before_its_write() {
    let app = spawn_app().await;
    let (id, players) = staking_table(&app, 2, "raced").await;
    let waiting = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .fetch_one(&app.pool)
        .await
        .unwrap()
    };
    let mut moves = 0;
    loop {
        assert!(moves < 200, "hand 1 never ended");
        let (p, hint) = next_move(&app, &id, &players).await;
        let mut side = app.pool.begin().await.unwrap();
        sqlx::query(
            "INSERT INTO scores (user_id, game, points) VALUES ($1, 'chexuan', 1000)
             ON CONFLICT (user_id, game) DO UPDATE SET points = scores.points + 1000",
        )
        .bind(players[0].id)
        .execute(&mut *side)
        .await
        .unwrap();
        let body = json!({"version": hint["version"], "action": hint["action"]});
        let path = format!("/v1/matches/{id}/actions");
        let mut submit = Box::pin(app.post(&path, &p.token, body));
        let blocked = loop {
            tokio::select! {
                (s, b) = &mut submit => {
                    assert_eq!(s, StatusCode::OK, "{b}");
                    break false;
                }
                _ = tokio::time::sleep(std::time::Duration::from_millis(20)) => {
                    if waiting().await > 0 {
                        break true;
                    }
                }
            }
        };
        moves += 1;
        if !blocked {
            side.rollback().await.unwrap();
            continue;
        }
        // The move ends hand 1 and waits to write its 积分: the other table's commit goes first.
        side.commit().await.unwrap();
        let (s, b) = submit.await;
        assert_eq!(s, StatusCode::OK, "{b}");
        break;
    }
    let (dealt, now, hand1): (Value, i64, i64) = sqlx::query_as(
        "SELECT h.scores, s.points,
                COALESCE((SELECT delta FROM score_entries
                           WHERE user_id = $2 AND match_id = $1::uuid AND hand_no = 1), 0)
           FROM hands h, scores s
          WHERE h.match_id = $1::uuid AND h.hand_no = 2
            AND s.user_id = $2 AND s.game = 'chexuan'",
    )
    .bind(&id)
    .bind(players[0].id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        now,
        1000 + hand1,
        "both the hand's 积分 and the other table's are kept"
    );
    assert_eq!(
        dealt[0],
        json!(hand1),
        "hand 2 was dealt from the 积分 read before the other table's 1,000 came in"
    );
    let (s, v) = app
        .get(&format!("/v1/matches/{id}"), &players[0].token)
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["hand_no"], 2, "{v}");
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn stakes_on_the_fast_path_write_the_ledger_the_transaction_writes() {
    let (fast, slow) = fast_and_slow().await;
    let (fast_id, fast_players) = staking_table(&fast, 2, "stake").await;
    let (slow_id, slow_players) = staking_table(&slow, 2, "stake").await;

    // The first 簸簸 moves coins from a wallet to the escrow by the move's one statement.
    let mut first = Vec::new();
    for (app, id, players) in [
        (&fast, &fast_id, &fast_players),
        (&slow, &slow_id, &slow_players),
    ] {
        let (p, hint) = next_move(app, id, players).await;
        assert_eq!(hint["action"]["type"], "set_bobo", "{hint}");
        let body = json!({"version": hint["version"], "action": hint["action"]});
        let (s, b) = post_keyed(app, id, p, "first-bobo", &body).await;
        assert_eq!(s, StatusCode::OK, "{b}");
        first.push((p, hint["action"]["amount"].as_i64().unwrap()));
    }
    let (p, amount) = first[0];
    assert_eq!(
        moves_counted(&fast.client, &fast.address, "fast").await,
        (1, 1)
    );
    assert_eq!(
        moves_counted(&fast.client, &fast.address, "transaction").await,
        (0, 0)
    );
    assert_eq!(fast.coins(p).await, 1000 - amount);

    let (_, a) = play_out_both(
        (&fast, &fast_id, &fast_players),
        (&slow, &slow_id, &slow_players),
    )
    .await;
    // Both hands staked every seat's 簸簸 and were settled.
    let ledger = a["ledger"].as_array().unwrap();
    let count = |reason: &str| {
        ledger
            .iter()
            .filter(|e| e["reason"] == reason && e["account"] != "escrow")
            .count()
    };
    assert_eq!(count("stake"), 6, "{a}");
    assert!(count("hand_settlement") >= 2, "{a}");
    assert_eq!(a["match"]["status"], "finished");
    let (fast_moves, _) = moves_counted(&fast.client, &fast.address, "fast").await;
    assert!(fast_moves > 1, "{fast_moves} fast moves");
    for (fp, sp) in fast_players.iter().zip(&slow_players) {
        assert_eq!(fast.coins(fp).await, slow.coins(sp).await);
    }
    fast.assert_ledger_reconciles().await;
}

/// A hand's end is written with the move and the next hand's deal by one statement (the
/// settlement's ledger transaction, the hand's result, the 积分, the new hand's row): a move
/// that ends a 扯旋 hand sends BEGIN, the locked load, the locked read of the players' wallets
/// and 积分 the deal starts from, that statement and COMMIT; the move that finishes the match
/// reads nothing. Each new hand starts from the wallets and 积分 after the previous one's
/// settlement, as its row records.
#[tokio::test]
async fn a_hand_end_and_the_next_deal_are_one_statement() {
    let app = process_on(&fresh_database().await, false).await;
    let (id, players) = staking_table(&app, 4, "end").await;
    let ended = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM hands WHERE match_id = $1::uuid AND ended_at IS NOT NULL",
        )
        .bind(&id)
        .fetch_one(&app.pool)
        .await
        .unwrap()
    };
    let mut moves = 0;
    let mut ends = Vec::new();
    while app.view(&id, &players[0]).await["status"] != "finished" {
        assert!(moves < 2_000, "the match does not end");
        let (p, hint) = next_move(&app, &id, &players).await;
        let (before, hands) = (
            moves_counted(&app.client, &app.address, "transaction").await,
            ended().await,
        );
        // Every bet all in where the game allows it, so that coins change hands at showdown.
        let betting = !["set_bobo", "sit_out", "split"]
            .contains(&hint["action"]["type"].as_str().unwrap_or(""));
        let url = format!("/v1/matches/{id}/actions");
        let mut answer = (StatusCode::UNPROCESSABLE_ENTITY, Value::Null);
        if betting {
            let body = json!({"version": hint["version"], "action": {"type": "all_in"}});
            answer = app.post(&url, &p.token, body).await;
        }
        if answer.0 != StatusCode::OK {
            let body = json!({"version": hint["version"], "action": hint["action"]});
            answer = app.post(&url, &p.token, body).await;
        }
        assert_eq!(answer.0, StatusCode::OK, "{hint} refused: {}", answer.1);
        moves += 1;
        let after = moves_counted(&app.client, &app.address, "transaction").await;
        assert_eq!(after.0, before.0 + 1);
        if ended().await > hands {
            ends.push(after.1 - before.1);
        }
    }
    assert_eq!(
        ends,
        [5, 5, 5, 4],
        "statements of the moves that ended a hand"
    );

    // Each hand's recorded wallets and 积分 are those after the hands before it: the last
    // balance the ledger gave each player in this match before it (1,000 granted), and the
    // 积分 the previous hand left.
    let rows: Vec<(i32, Value, Value, Value, Value)> = sqlx::query_as(
        "SELECT h.hand_no, h.wallets, h.scores,
                (SELECT jsonb_agg(COALESCE(
                        (SELECT e.balance_after FROM ledger_entries e
                           JOIN ledger_tx t ON t.id = e.tx_id
                           JOIN accounts a ON a.id = e.account_id
                          WHERE a.user_id = s.user_id AND t.match_id = h.match_id
                            AND t.hand_no < h.hand_no
                          ORDER BY e.id DESC LIMIT 1), 1000) ORDER BY s.seat)
                   FROM match_seats s WHERE s.match_id = h.match_id),
                (SELECT jsonb_agg(COALESCE(
                        (SELECT p.points_after FROM score_entries p
                          WHERE p.user_id = s.user_id AND p.match_id = h.match_id
                            AND p.hand_no = h.hand_no - 1), 0) ORDER BY s.seat)
                   FROM match_seats s WHERE s.match_id = h.match_id)
           FROM hands h WHERE h.match_id = $1::uuid ORDER BY h.hand_no",
    )
    .bind(&id)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(rows.len(), 4);
    for (hand, wallets, scores, settled, points) in &rows {
        assert_eq!(wallets, settled, "hand {hand}");
        assert_eq!(scores, points, "hand {hand}");
    }
    assert!(
        rows.iter().any(|r| r.1 != json!([1000, 1000, 1000])),
        "no hand moved coins: {rows:?}"
    );
    app.assert_ledger_reconciles().await;
}

/// Seats `p` (with a new player beside it) at a new 扯旋 table of two, which deals: both
/// seats are to put up their 簸簸.
async fn two_seat_table(app: &TestApp, p: &Player, other: &str) -> String {
    let (s, v) = app
        .post(
            "/v1/matches",
            &app.admin_token,
            json!({"game": "chexuan", "seats": 2, "join": false}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let q = app.player(other, 1000).await;
    app.join_seats(&id, &[p, &q]).await;
    id
}

#[tokio::test]
async fn one_statement_stakes_one_wallet_at_two_tables_and_never_overdraws_it() {
    let app = process_on(&fresh_database().await, true).await;
    let p = app.player("twice", 1000).await;
    let x = two_seat_table(&app, &p, "besidex").await;
    let y = two_seat_table(&app, &p, "besidey").await;
    let z = two_seat_table(&app, &p, "besidez").await;
    let mut conn = app.pool.acquire().await.unwrap();
    let bobo_at = |table: &Table, amount: i64| {
        plain(table.plan_move(p.id, &json!({"type": "set_bobo", "amount": amount})))
    };
    let tx = Table::read(&mut conn, x.parse().unwrap()).await.unwrap();
    let ty = Table::read(&mut conn, y.parse().unwrap()).await.unwrap();

    // 300 + 800 is more than the wallet: the statement fails and writes nothing at all.
    let (x_before, y_before) = (rows_of(&app, &x).await, rows_of(&app, &y).await);
    let over = save_many(
        &mut conn,
        &[(&bobo_at(&tx, 300), None), (&bobo_at(&ty, 800), None)],
    )
    .await;
    assert!(
        matches!(&over, Err(sqlx::Error::Database(e)) if e.is_check_violation()),
        "{over:?}"
    );
    assert_eq!(rows_of(&app, &x).await, x_before);
    assert_eq!(rows_of(&app, &y).await, y_before);
    assert_eq!(app.coins(&p).await, 1000);

    // 300 + 400: one statement moves the wallet once by both stakes, and each entry carries
    // the balance after it.
    let hits = save_many(
        &mut conn,
        &[(&bobo_at(&ty, 400), None), (&bobo_at(&tx, 300), None)],
    )
    .await
    .unwrap();
    assert_eq!(hits, [true, true]);
    assert_eq!(app.coins(&p).await, 300);
    let entries: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT e.amount, e.balance_after FROM ledger_entries e
           JOIN accounts a ON a.id = e.account_id JOIN ledger_tx t ON t.id = e.tx_id
          WHERE a.user_id = $1 AND t.reason = 'stake' ORDER BY e.id",
    )
    .bind(p.id)
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    let mut running = 1000;
    for &(amount, after) in &entries {
        running += amount;
        assert_eq!(after, running, "{entries:?}");
    }
    assert_eq!(running, 300, "{entries:?}");
    for (id, staked) in [(&x, 300), (&y, 400)] {
        let escrow: i64 =
            sqlx::query_scalar("SELECT balance FROM accounts WHERE match_id = $1::uuid")
                .bind(id)
                .fetch_one(&mut *conn)
                .await
                .unwrap();
        assert_eq!(escrow, staked);
    }

    // The third table was dealt while the wallet held 1,000: a 簸簸 of 500 passes the hand's
    // check, but the wallet holds 300 now. The fast statement fails, and the transaction
    // answers that the coins are missing, with nothing written.
    let z_before = rows_of(&app, &z).await;
    app.view(&z, &p).await;
    let (s, b) = app
        .act(&z, &p, json!({"type": "set_bobo", "amount": 500}))
        .await;
    assert_problem(
        s,
        &b,
        StatusCode::UNPROCESSABLE_ENTITY,
        "insufficient_coins",
    );
    assert_eq!(
        moves_counted(&app.client, &app.address, "fast").await,
        (0, 1)
    );
    assert_eq!(rows_of(&app, &z).await, z_before);
    assert_eq!(app.coins(&p).await, 300);
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn two_processes_racing_the_same_move_apply_it_once() {
    let (a, b) = two_processes().await;
    let (id, players) = seeded_table(&a, 1, "trip").await;
    let rounds = 12;
    for _ in 0..rounds {
        let (p, hint) = next_move(&a, &id, &players).await;
        // Both processes hold the table at this version.
        assert_eq!(b.view(&id, p).await["version"], hint["version"]);
        let body = json!({"version": hint["version"], "action": hint["action"]});
        let path = format!("/v1/matches/{id}/actions");
        let ((sa, va), (sb, vb)) = tokio::join!(
            a.post(&path, &p.token, body.clone()),
            b.post(&path, &p.token, body.clone())
        );
        let (won, lost, lost_status) = match (sa, sb) {
            (StatusCode::OK, _) => (va, vb, sb),
            (_, StatusCode::OK) => (vb, va, sa),
            _ => panic!("neither process applied {body}: {va} / {vb}"),
        };
        assert_problem(lost_status, &lost, StatusCode::CONFLICT, "version_conflict");
        assert_eq!(lost["view"]["version"], won["version"], "{lost}");
    }
    let (actions, events, last_seq, version): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM match_actions WHERE match_id = m.id),
                (SELECT count(*) FROM match_events WHERE match_id = m.id),
                m.last_seq, m.version
           FROM matches m WHERE m.id = $1::uuid",
    )
    .bind(&id)
    .fetch_one(&a.pool)
    .await
    .unwrap();
    assert_eq!(actions, rounds);
    assert_eq!(events, last_seq);
    assert_eq!(a.view(&id, &players[0]).await["version"], version);
    // Every winner was a fast move: a race costs the loser, never a double application.
    let fast_moves = moves_counted(&a.client, &a.address, "fast").await.0
        + moves_counted(&b.client, &b.address, "fast").await.0;
    assert_eq!(fast_moves, rounds as u64);
}

/// Two processes holding the table at the version before a hand-ending move both get it at
/// once, and both send their one statement: one ends the hand (its 积分 written once) and
/// deals the next, the other answers 409.
#[tokio::test]
async fn two_processes_racing_a_hand_ending_move_end_the_hand_once() {
    let (a, b) = two_processes().await;
    let (id, players) = seeded_table(&a, 3, "race").await;
    let mut conn = a.pool.acquire().await.unwrap();
    let path = format!("/v1/matches/{id}/actions");
    let mut moves = 0;
    let (won, lost, lost_status, v, next) = loop {
        assert!(moves < 500, "no hand ended");
        let (p, hint) = next_move(&a, &id, &players).await;
        let body = json!({"version": hint["version"], "action": hint["action"]});
        let t = Table::read(&mut conn, id.parse().unwrap()).await.unwrap();
        let next = plain(t.plan_move(p.id, &hint["action"]));
        let hand = |t: &Table| serde_json::to_value(t.view(None)).unwrap()["hand_no"].clone();
        if hand(&next) == hand(&t) {
            let (s, v) = a.post(&path, &p.token, body).await;
            assert_eq!(s, StatusCode::OK, "{v}");
            moves += 1;
            continue;
        }
        // Both processes hold the table at this version.
        assert_eq!(b.view(&id, p).await["version"], hint["version"]);
        let ((sa, va), (sb, vb)) = tokio::join!(
            a.post(&path, &p.token, body.clone()),
            b.post(&path, &p.token, body.clone())
        );
        let v = hint["version"].as_i64().unwrap();
        let next = (next.version(), hand(&next).as_i64().unwrap());
        break match (sa, sb) {
            (StatusCode::OK, _) => (va, vb, sb, v, next),
            (_, StatusCode::OK) => (vb, va, sa, v, next),
            _ => panic!("neither process applied {body}: {va} / {vb}"),
        };
    };
    assert_problem(lost_status, &lost, StatusCode::CONFLICT, "version_conflict");
    // The winner answers the dealt table (a hand ended at its deal by 摊牌 and the one after
    // it included, as the move worked out); the loser saw the row past v.
    let (version, hand_now) = next;
    assert_eq!(won["version"], version, "{won}");
    assert_eq!(won["hand_no"], hand_now, "{won}");
    let seen = lost["view"]["version"].as_i64().unwrap();
    assert!(seen > v, "{lost}");
    let (hands, ended, entries): (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM hands WHERE match_id = $1::uuid),
                (SELECT count(*) FROM hands WHERE match_id = $1::uuid AND ended_at IS NOT NULL),
                (SELECT count(*) FROM score_entries WHERE match_id = $1::uuid)",
    )
    .bind(&id)
    .fetch_one(&a.pool)
    .await
    .unwrap();
    assert_eq!(
        (hands, ended),
        (hand_now, hand_now - 1),
        "each hand ended once, each dealt once"
    );
    assert_eq!(entries, 4 * ended, "each hand's 积分 written once");
    assert_eq!(a.view(&id, &players[0]).await["version"], version);
    a.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn a_move_on_a_stale_cache_is_a_409_with_the_view_and_writes_nothing() {
    let (a, b) = two_processes().await;
    let (id, players) = seeded_table(&a, 1, "trip").await;
    let (p, hint) = next_move(&a, &id, &players).await;
    let v = hint["version"].as_i64().unwrap();
    assert_eq!(b.view(&id, p).await["version"], v);
    let body = json!({"version": v, "action": hint["action"]});
    let path = format!("/v1/matches/{id}/actions");
    let (s, moved) = b.post(&path, &p.token, body.clone()).await;
    assert_eq!(s, StatusCode::OK, "{moved}");
    let before = rows_of(&a, &id).await;

    // `a` still holds version v: its one statement finds the row moved on.
    let (s, refused) = a.post(&path, &p.token, body).await;
    assert_problem(s, &refused, StatusCode::CONFLICT, "version_conflict");
    assert_eq!(refused["view"]["version"], moved["version"]);
    assert_eq!(rows_of(&a, &id).await, before);
    // One statement sent, no move applied by either path.
    assert_eq!(moves_counted(&a.client, &a.address, "fast").await, (0, 1));
    assert_eq!(
        moves_counted(&a.client, &a.address, "transaction").await,
        (0, 0)
    );

    // The next move through `a` reads the new version and goes fast again.
    let (p, hint) = next_move(&a, &id, &players).await;
    let (s, b2) = a
        .post(
            &path,
            &p.token,
            json!({"version": hint["version"], "action": hint["action"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b2}");
    assert_eq!(moves_counted(&a.client, &a.address, "fast").await, (1, 2));
}

#[tokio::test]
async fn a_keyed_retry_gets_the_stored_answer_from_either_process() {
    let (a, b) = two_processes().await;
    let (id, players) = seeded_table(&a, 1, "trip").await;
    let (p, hint) = next_move(&a, &id, &players).await;
    assert_eq!(b.view(&id, p).await["version"], hint["version"]);
    let body = json!({"version": hint["version"], "action": hint["action"]});
    let (s, first) = post_keyed(&a, &id, p, "retry-me", &body).await;
    assert_eq!(s, StatusCode::OK, "{first}");
    assert_eq!(moves_counted(&a.client, &a.address, "fast").await, (1, 1));
    let before = rows_of(&a, &id).await;

    // From the process that moved, and from the one whose cache still holds the old version.
    for app in [&a, &b] {
        let (s, again) = post_keyed(app, &id, p, "retry-me", &body).await;
        assert_eq!(s, StatusCode::OK, "{again}");
        assert_eq!(again, first);
    }
    assert_eq!(rows_of(&a, &id).await, before);

    // The same player's same key for their next move (at the current version, so the fast
    // statement runs and meets the key's row): refused, and nothing of that move is written.
    let keyed_player = p.id;
    let (p, hint) = loop {
        let (q, hint) = next_move(&a, &id, &players).await;
        if q.id == keyed_player {
            break (q, hint);
        }
        let body = json!({"version": hint["version"], "action": hint["action"]});
        let (s, b) = a
            .post(&format!("/v1/matches/{id}/actions"), &q.token, body)
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
    };
    let before = rows_of(&a, &id).await;
    let fast_before = moves_counted(&a.client, &a.address, "fast").await;
    let other = json!({"version": hint["version"], "action": hint["action"]});
    let (s, refused) = post_keyed(&a, &id, p, "retry-me", &other).await;
    assert_problem(
        s,
        &refused,
        StatusCode::UNPROCESSABLE_ENTITY,
        "validation_failed",
    );
    assert_eq!(rows_of(&a, &id).await, before);
    // The fast statement was sent and refused; no move was counted.
    assert_eq!(
        moves_counted(&a.client, &a.address, "fast").await,
        (fast_before.0, fast_before.1 + 1)
    );
}

/// An `Idempotency-Key` is kept a day (`idempotency::KEEP_HOURS`): the sweeper's prune deletes
/// older keys and nothing younger, and a request sent again with an expired key is a new
/// request (here a 409 at the version it was first sent at), never the old answer.
#[tokio::test]
async fn idempotency_keys_expire_after_a_day() {
    let app = spawn_app().await;
    let (id, players) = seeded_table(&app, 1, "expire").await;
    let (p, hint) = next_move(&app, &id, &players).await;
    let body = json!({"version": hint["version"], "action": hint["action"]});
    let (s, first) = post_keyed(&app, &id, p, "old-key", &body).await;
    assert_eq!(s, StatusCode::OK, "{first}");
    let (q, hint) = next_move(&app, &id, &players).await;
    let next = json!({"version": hint["version"], "action": hint["action"]});
    let (s, v) = post_keyed(&app, &id, q, "new-key", &next).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    sqlx::query(
        "UPDATE idempotency SET created_at = now() - interval '25 hours' WHERE key = 'old-key'",
    )
    .execute(&app.pool)
    .await
    .unwrap();

    let mut conn = app.pool.acquire().await.unwrap();
    assert_eq!(paiju::idempotency::prune(&mut conn).await.unwrap(), 1);
    assert_eq!(paiju::idempotency::prune(&mut conn).await.unwrap(), 0);
    let keys: Vec<String> = sqlx::query_scalar("SELECT key FROM idempotency ORDER BY key")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(keys, ["new-key"]);

    let (s, again) = post_keyed(&app, &id, p, "old-key", &body).await;
    assert_problem(s, &again, StatusCode::CONFLICT, "version_conflict");
    let (s, again) = post_keyed(&app, &id, q, "new-key", &next).await;
    assert_eq!(s, StatusCode::OK, "{again}");
    assert_eq!(again, v);
}

/// A process on the database `url` whose fast moves are committed by one lane, at most `batch`
/// moves to a statement.
async fn grouping_process(url: &str, batch: usize) -> TestApp {
    let url = url.to_string();
    spawn_app_with(move |c| {
        c.database_url = Some(url);
        c.commit_lanes = 1;
        c.commit_batch = batch;
    })
    .await
}

/// Plays every table to its end with 提示s, each round sending one move per table still playing,
/// all at once; returns the moves sent.
async fn play_together(app: &TestApp, tables: &[(String, Vec<Player>)]) -> usize {
    let mut sent = 0;
    for round in 0.. {
        assert!(round < 2_000, "the matches do not end");
        let mut moves = Vec::new();
        for (id, players) in tables {
            if app.view(id, &players[0]).await["status"] == "finished" {
                continue;
            }
            let (p, hint) = next_move(app, id, players).await;
            let body = json!({"version": hint["version"], "action": hint["action"]});
            moves.push((format!("/v1/matches/{id}/actions"), p, body));
        }
        if moves.is_empty() {
            return sent;
        }
        sent += moves.len();
        let answers = join_all(
            moves
                .iter()
                .map(|(path, p, body)| app.post(path, &p.token, body.clone())),
        )
        .await;
        for (s, b) in answers {
            assert_eq!(s, StatusCode::OK, "{b}");
        }
    }
    unreachable!()
}

#[tokio::test]
async fn moves_of_many_tables_committed_together_write_what_one_by_one_writes() {
    let grouped = grouping_process(&fresh_database().await, 64).await;
    let alone = grouping_process(&fresh_database().await, 1).await;
    let mut on_grouped = Vec::new();
    let mut on_alone = Vec::new();
    for t in 0..6 {
        let prefix = format!("group{t}s");
        on_grouped.push(seeded_table(&grouped, 1, &prefix).await);
        on_alone.push(seeded_table(&alone, 1, &prefix).await);
    }
    let moves = play_together(&grouped, &on_grouped).await;
    assert_eq!(play_together(&alone, &on_alone).await, moves);
    for ((g, _), (a, _)) in on_grouped.iter().zip(&on_alone) {
        assert_eq!(rows_of(&grouped, g).await, rows_of(&alone, a).await);
    }

    // Six moves sent at once through one lane: the first statement carries one, the moves
    // that arrive while it runs leave together in the next.
    let (g_moves, g_statements) = moves_counted(&grouped.client, &grouped.address, "fast").await;
    let (a_moves, a_statements) = moves_counted(&alone.client, &alone.address, "fast").await;
    assert_eq!(g_moves, a_moves);
    assert_eq!(a_statements, a_moves);
    assert!(
        g_statements < g_moves,
        "{g_moves} fast moves in {g_statements} statements"
    );
    grouped.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn a_group_commit_skips_a_table_whose_row_moved_on_and_an_error_writes_nothing() {
    let app = process_on(&fresh_database().await, true).await;
    let x = seeded_table(&app, 1, "gx").await;
    let y = seeded_table(&app, 1, "gy").await;
    let mut conn = app.pool.acquire().await.unwrap();
    // Each table's next move worked out in memory on its committed row.
    let mut worked = Vec::new();
    let mut movers = Vec::new();
    for (id, players) in [&x, &y] {
        let (p, hint) = next_move(&app, id, players).await;
        let t = Table::read(&mut conn, id.parse().unwrap()).await.unwrap();
        assert_eq!(t.version(), hint["version"].as_i64().unwrap());
        worked.push(plain(t.plan_move(p.id, &hint["action"])));
        movers.push(p.id);
    }
    // y's row moves on: its move is played through the server first.
    let (p, hint) = next_move(&app, &y.0, &y.1).await;
    let (s, b) = app
        .post(
            &format!("/v1/matches/{}/actions", y.0),
            &p.token,
            json!({"version": hint["version"], "action": hint["action"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");

    // x's mover already used the key: the statement fails, and writes nothing for either.
    sqlx::query(
        "INSERT INTO idempotency (user_id, key, request, status, body)
         VALUES ($1, 'used', '{}', 200, '{}')",
    )
    .bind(movers[0])
    .execute(&app.pool)
    .await
    .unwrap();
    let (x_before, y_before) = (rows_of(&app, &x.0).await, rows_of(&app, &y.0).await);
    let keyed = Keyed {
        user: movers[0],
        key: "used".into(),
        request: json!({}),
        body: json!({}),
    };
    let failed = save_many(&mut conn, &[(&worked[0], Some(&keyed)), (&worked[1], None)]).await;
    assert!(
        matches!(&failed, Err(sqlx::Error::Database(e)) if e.is_unique_violation()),
        "{failed:?}"
    );
    assert_eq!(rows_of(&app, &x.0).await, x_before);
    assert_eq!(rows_of(&app, &y.0).await, y_before);

    // Without the key: x's move is saved, y's (its row left that version) is not.
    let hits = save_many(&mut conn, &[(&worked[1], None), (&worked[0], None)])
        .await
        .unwrap();
    assert_eq!(hits, [false, true]);
    assert_eq!(rows_of(&app, &y.0).await, y_before);
    let x_after = rows_of(&app, &x.0).await;
    assert_eq!(x_after["match"]["version"], worked[0].version());
    let logged = |rows: &serde_json::Value| rows["actions"].as_array().map_or(0, Vec::len);
    assert_eq!(logged(&x_after), logged(&x_before) + 1);
    let events = x_after["events"].as_array().unwrap();
    assert_eq!(x_after["match"]["last_seq"], events.len());
    // The server reads the new version, and x plays on from it.
    let (p, hint) = next_move(&app, &x.0, &x.1).await;
    assert_eq!(hint["version"], worked[0].version());
    let (s, b) = app
        .post(
            &format!("/v1/matches/{}/actions", x.0),
            &p.token,
            json!({"version": hint["version"], "action": hint["action"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    app.assert_ledger_reconciles().await;
}

/// A 扯旋 table of three for `players` (seated in order), shuffled from a fixed seed.
async fn staking_table_of(app: &TestApp, players: &[&Player]) -> String {
    let (s, v) = app
        .post(
            "/v1/matches",
            &app.admin_token,
            json!({"game": "chexuan", "seats": 3, "join": false, "seed": "5a".repeat(32),
                   "options": {"hands": 4, "turn_timeout_secs": 300}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    app.join_seats(&id, players).await;
    id
}

/// Two tables' saves never share a statement when one of them assumed a purse the other
/// moves: the statement's guard checks each table against the purses as they were before the
/// statement, so it would not see the other's movement (`Table::clashes_with`, which the
/// commit lanes obey). Table a is played through its `Table` here: its first hand end reads
/// the purses in a transaction, its second assumes them; b's plan stakes from x's wallet.
#[tokio::test]
async fn a_table_that_assumed_a_purse_shares_no_statement_with_one_that_moves_it() {
    let app = process_on(&fresh_database().await, true).await;
    let mut a_players = Vec::new();
    let mut others = Vec::new();
    for name in ["clash_x", "clash_a1", "clash_a2"] {
        a_players.push(app.player(name, 1000).await);
    }
    for name in ["clash_b1", "clash_b2", "clash_c0", "clash_c1", "clash_c2"] {
        others.push(app.player(name, 1000).await);
    }
    let x = &a_players[0];
    let a = staking_table_of(&app, &a_players.iter().collect::<Vec<_>>()).await;
    let b = staking_table_of(&app, &[x, &others[0], &others[1]]).await;
    let c = staking_table_of(&app, &[&others[2], &others[3], &others[4]]).await;
    let mut conn = app.pool.acquire().await.unwrap();
    let stake = json!({"type": "set_bobo", "amount": 300});
    let read = |id: &str| id.parse::<uuid::Uuid>().unwrap();
    let b_plan = plain(
        Table::read(&mut conn, read(&b))
            .await
            .unwrap()
            .plan_move(x.id, &stake),
    );
    let c_plan = plain(
        Table::read(&mut conn, read(&c))
            .await
            .unwrap()
            .plan_move(others[2].id, &stake),
    );
    assert!(!b_plan.clashes_with(&c_plan), "b and c share no player");

    let mut t = Table::read(&mut conn, read(&a)).await.unwrap();
    let mut in_transaction = 0;
    for _ in 0..400 {
        let (p, hint) = next_move(&app, &a, &a_players).await;
        assert_eq!(t.version(), hint["version"].as_i64().unwrap());
        match t.plan_move(p.id, &hint["action"]) {
            Some(mut w) => {
                if w.clashes_with(&b_plan) {
                    // The hand end that assumed x's purse: not with b's stake of x, but with
                    // c's, which touches none of a's players.
                    assert_eq!(in_transaction, 1, "the first hand end read the purses");
                    assert!(b_plan.clashes_with(&w));
                    assert!(!w.clashes_with(&c_plan));
                    return;
                }
                let hits = save_many(&mut conn, &[(&w, None)]).await.unwrap();
                assert_eq!(hits, [true]);
                w.saved(true);
                t = w;
            }
            // The step needs purses this table does not know yet: a transaction reads them.
            None => {
                in_transaction += 1;
                let seat = t.seat_of(p.id).unwrap();
                let mut tx = sqlx::Acquire::begin(&mut *conn).await.unwrap();
                let mut w = Table::lock_reusing(&mut tx, t.id(), |_| None)
                    .await
                    .unwrap();
                let action = hint["action"].clone();
                w.run(&mut tx, paiju::matches::table::Input::Act { seat, action })
                    .await
                    .unwrap();
                w.save(&mut tx).await.unwrap();
                tx.commit().await.unwrap();
                t = w;
            }
        }
    }
    panic!("table a's second hand never ended");
}
