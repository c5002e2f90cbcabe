//! Money beyond doubt (docs/ledger.md): the ledger is append-only and its reasons a closed set,
//! a retried grant credits once, and a deleted account leaves a ledger that still balances.

use reqwest::{Method, StatusCode};
use serde_json::json;

use paiju::ledger::{MoneyColumns, Movement, Party, Reason, TRANSFER_SQL, TxMeta};

use crate::helpers::{assert_problem, spawn_app};

#[tokio::test]
async fn ledger_rows_cannot_be_changed_or_removed_and_reasons_are_a_closed_set() {
    let app = spawn_app().await;
    app.player("append", 100).await;
    for sql in [
        "UPDATE ledger_entries SET amount = amount + 1",
        "DELETE FROM ledger_entries",
        "UPDATE ledger_tx SET reason = 'grant'",
        "DELETE FROM ledger_tx",
        "TRUNCATE ledger_entries",
        "TRUNCATE ledger_tx CASCADE",
    ] {
        let err = sqlx::query(sql).execute(&app.pool).await.unwrap_err();
        assert!(err.to_string().contains("append-only"), "{sql}: {err}");
    }
    let err = sqlx::query("INSERT INTO ledger_tx (reason) VALUES ('gift')")
        .execute(&app.pool)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("ledger_tx_reason"), "{err}");
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn a_retried_grant_with_the_same_key_credits_once() {
    let app = spawn_app().await;
    let p = app.register("granted").await;
    let grant = |amount: i64, key: &'static str| {
        app.client
            .post(format!("{}/v1/admin/grants", app.address))
            .bearer_auth(&app.admin_token)
            .header("Idempotency-Key", key)
            .json(&json!({"user_id": p.id, "amount": amount, "note": "retry me"}))
            .send()
    };
    let first = grant(500, "grant-1").await.unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: serde_json::Value = first.json().await.unwrap();
    // The client never saw the answer and sends the grant again, twice at once.
    let (a, b) = tokio::join!(grant(500, "grant-1"), grant(500, "grant-1"));
    for again in [a.unwrap(), b.unwrap()] {
        assert_eq!(again.status(), StatusCode::CREATED);
        let again: serde_json::Value = again.json().await.unwrap();
        assert_eq!(again, first, "the first grant's entry, replayed");
    }
    assert_eq!(app.coins(&p).await, 500);
    let (s, body) = {
        let r = grant(900, "grant-1").await.unwrap();
        (r.status(), r.json::<serde_json::Value>().await.unwrap())
    };
    assert_problem(
        s,
        &body,
        StatusCode::UNPROCESSABLE_ENTITY,
        "validation_failed",
    );
    let other = grant(500, "grant-2").await.unwrap();
    assert_eq!(other.status(), StatusCode::CREATED);
    assert_eq!(app.coins(&p).await, 1000, "another key is another grant");
    app.assert_ledger_reconciles().await;
}

#[tokio::test]
async fn a_password_change_needs_the_old_password() {
    let app = spawn_app().await;
    let p = app.register("changer").await;
    let change = |old: &str, new: &str| {
        app.call(
            Method::PUT,
            "/v1/me/password",
            Some(&p.token),
            Some(json!({"old_password": old, "new_password": new})),
        )
    };
    let (s, b) = change("not-my-password", "new-password-1").await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");
    let (s, b) = change("password123", "short").await;
    assert_problem(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    let (s, session) = change("password123", "new-password-1").await;
    assert_eq!(s, StatusCode::OK, "a new session: {session}");
    assert!(session["access_token"].is_string(), "{session}");
    let login = |pw: &str| {
        app.call(
            Method::POST,
            "/v1/auth/login",
            None,
            Some(json!({"username": "changer", "password": pw})),
        )
    };
    assert_eq!(login("password123").await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(login("new-password-1").await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_deleted_account_loses_its_data_and_the_ledger_still_balances() {
    let app = spawn_app().await;
    let p = app.player("leaving", 250).await;
    let other = app.player("staying", 250).await;
    let token = p.token.clone();
    let delete = |pw: &str, _: &str| {
        app.call(
            Method::DELETE,
            "/v1/me",
            Some(&token),
            Some(json!({"password": pw})),
        )
    };
    // Seated at a table that is not over: refused.
    let (s, v) = app
        .post(
            "/v1/matches",
            &p.token,
            json!({"game": "chexuan", "seats": 2}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let (s, b) = delete("password123", &p.token).await;
    assert_problem(s, &b, StatusCode::CONFLICT, "conflict");
    assert!(
        b["detail"]
            .as_str()
            .unwrap()
            .contains("deleting your account"),
        "{b}"
    );
    let (s, _) = app
        .post(
            &format!("/v1/matches/{}/leave", v["id"].as_str().unwrap()),
            &p.token,
            json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, b) = delete("wrong-password", &p.token).await;
    assert_problem(s, &b, StatusCode::FORBIDDEN, "forbidden");

    let (s, _) = delete("password123", &p.token).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (s, b) = app.get("/v1/me", &p.token).await;
    assert_problem(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    let (s, _) = app
        .call(
            Method::POST,
            "/v1/auth/login",
            None,
            Some(json!({"username": "leaving", "password": "password123"})),
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, b) = app
        .post(
            "/v1/matches",
            &p.token,
            json!({"game": "chexuan", "seats": 2}),
        )
        .await;
    assert_problem(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    let (s, b) = app
        .post(
            "/v1/admin/grants",
            &app.admin_token,
            json!({"user_id": p.id, "amount": 5}),
        )
        .await;
    assert_problem(s, &b, StatusCode::NOT_FOUND, "not_found");

    let (name, hash): (String, String) =
        sqlx::query_as("SELECT username, password_hash FROM users WHERE id = $1")
            .bind(p.id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(
        name.starts_with("deleted_") && !name.contains("leaving"),
        "{name}"
    );
    assert!(hash.is_empty());
    let (reason, amount): (String, i64) = sqlx::query_as(
        "SELECT t.reason, e.amount FROM ledger_entries e JOIN ledger_tx t ON t.id = e.tx_id
           JOIN accounts a ON a.id = e.account_id WHERE a.user_id = $1 ORDER BY e.id DESC LIMIT 1",
    )
    .bind(p.id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!((reason.as_str(), amount), ("account_closed", -250));
    assert_eq!(app.coins(&other).await, 250);
    // The name is free again.
    app.register("leaving").await;
    app.assert_ledger_reconciles().await;
}

/// A wallet may not dip below zero between two movements of one statement: a stake it does not
/// cover is refused even when a later movement of the same statement returns it (as a 扯旋
/// 簸簸 set from a wallet spent at another table would be, when the hand then ends as a draw).
/// Nothing is written and the balance stays as it was.
#[tokio::test]
async fn a_stake_the_wallet_does_not_cover_is_refused_though_the_statement_returns_it() {
    let app = spawn_app().await;
    let p = app.player("spent", 200).await;
    let meta = |reason| TxMeta {
        reason,
        ..TxMeta::default()
    };
    let statement = |amount: i64| {
        let mut columns = MoneyColumns::default();
        let user = Party::User(p.id);
        for m in [
            Movement::new(
                meta(Reason::Stake),
                &[(user, -amount), (Party::House, amount)],
            ),
            Movement::new(
                meta(Reason::StakeReturn),
                &[(Party::House, -amount), (user, amount)],
            ),
        ] {
            columns.push(&m.unwrap().unwrap());
        }
        columns
    };
    let entries = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM ledger_entries e JOIN accounts a ON a.id = e.account_id
              WHERE a.user_id = $1",
        )
        .bind(p.id)
        .fetch_one(&app.pool)
        .await
        .unwrap()
    };
    let before = entries().await;
    let over = statement(500);
    let err = over
        .bind(sqlx::query(TRANSFER_SQL.as_str()))
        .execute(&app.pool)
        .await
        .unwrap_err();
    let db = err.as_database_error().expect("a database error");
    assert_eq!(db.code().as_deref(), Some("23514"), "{err}");
    assert_eq!(
        db.constraint(),
        Some("accounts_balance_not_negative"),
        "{err}"
    );
    assert_eq!(app.coins(&p).await, 200);
    assert_eq!(entries().await, before, "nothing written");
    // The whole wallet may go out and come back in one statement.
    let covered = statement(200);
    covered
        .bind(sqlx::query(TRANSFER_SQL.as_str()))
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(app.coins(&p).await, 200);
    assert_eq!(entries().await, before + 2);
    let low: i64 = sqlx::query_scalar(
        "SELECT min(e.balance_after) FROM ledger_entries e JOIN accounts a ON a.id = e.account_id
          WHERE a.user_id = $1",
    )
    .bind(p.id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(low, 0, "the running balance is recorded after each entry");
    app.assert_ledger_reconciles().await;
}
