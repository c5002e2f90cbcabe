//! Accounts: creating them, checking credentials, the caller's profile and roles. The routes
//! in `routes/auth.rs`, `routes/me.rs` and `routes/admin.rs` only read requests and write
//! responses; the `users` table is read and written here (and locked in `players`).

use std::sync::LazyLock;

use actix_web::web;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::auth::{Role, hash_password, verify_password};
use crate::error::{ApiError, ApiResult};
use crate::ledger;

/// A username and password, to register or log in.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// 3 to 32 characters of A-Z, a-z, 0-9 and _; names starting with `bot_` are the server's.
    #[schema(pattern = "^[A-Za-z0-9_]{3,32}$")]
    pub username: String,
    /// At least 8 characters, at most 1024 bytes.
    #[schema(min_length = 8, max_length = 1024)]
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    // Keeps passwords out of every log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// The rules of a new account's username and password (api.md § Accounts).
    pub fn check_new(&self) -> ApiResult<()> {
        let u = &self.username;
        let ok_len = (3..=32).contains(&u.len());
        let ok_chars = u.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !(ok_len && ok_chars) {
            return Err(ApiError::Validation(
                "username must be 3 to 32 characters of A-Z, a-z, 0-9 and _".into(),
            ));
        }
        if u.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("bot_")) {
            return Err(ApiError::Validation(
                "usernames starting with bot_ are kept for the server's bots".into(),
            ));
        }
        check_password(&self.password)
    }
}

/// The rules of a password: at least 8 characters, at most 1024 bytes.
pub fn check_password(p: &str) -> ApiResult<()> {
    if p.chars().count() < 8 {
        return Err(ApiError::Validation(
            "password must be at least 8 characters".into(),
        ));
    }
    if p.len() > 1024 {
        return Err(ApiError::Validation(
            "password must be at most 1024 bytes".into(),
        ));
    }
    Ok(())
}

/// Locks account `id` and checks `password` against it (403 when wrong: the caller is known,
/// the proof is not).
async fn lock_with_password(conn: &mut PgConnection, id: Uuid, password: &str) -> ApiResult<()> {
    let hash: Option<String> = sqlx::query_scalar(
        "SELECT password_hash FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE",
    )
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let hash =
        hash.ok_or_else(|| ApiError::Unauthorized("this account no longer exists".into()))?;
    let pw = password.to_string();
    let ok = web::block(move || verify_password(&pw, &hash))
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    if ok {
        Ok(())
    } else {
        Err(ApiError::Forbidden("the password is wrong".into()))
    }
}

/// Changes the password (the old one proves it is the owner) and starts a new token
/// generation: every token issued before is refused from the commit on, by every process
/// (`paiju_tokens_revoked`). Returns the account, of the new generation.
pub async fn change_password(pool: &PgPool, id: Uuid, old: &str, new: &str) -> ApiResult<User> {
    check_password(new)?;
    let mut tx = pool.begin().await?;
    lock_with_password(&mut tx, id, old).await?;
    let pw = new.to_string();
    let hash = web::block(move || hash_password(&pw))
        .await
        .map_err(|e| ApiError::Internal(e.into()))??;
    let (username, role, generation): (String, String, i64) = sqlx::query_as(
        "UPDATE users SET password_hash = $2, token_gen = token_gen + 1,
                          tokens_revoked_at = now()
          WHERE id = $1 RETURNING username, role, token_gen",
    )
    .bind(id)
    .bind(&hash)
    .fetch_one(&mut *tx)
    .await?;
    notify_revoked(&mut tx, id, Some(generation)).await?;
    tx.commit().await?;
    Ok(User {
        id,
        username,
        role: Role::parse(&role).unwrap_or(Role::Player),
        generation,
    })
}

/// Tells every process, at commit, that `user`'s tokens before generation `generation` (all of them
/// when `None`: the account was deleted) are refused.
async fn notify_revoked(
    conn: &mut PgConnection,
    user: Uuid,
    generation: Option<i64>,
) -> ApiResult<()> {
    let generation = generation.map_or_else(|| "deleted".to_string(), |g| g.to_string());
    sqlx::query("SELECT pg_notify('paiju_tokens_revoked', $1)")
        .bind(format!("{user}:{generation}"))
        .execute(conn)
        .await?;
    Ok(())
}

/// Deletes an account (app stores require it): its personal data (username, password) goes,
/// coins left in the wallet go to the house (ledger reason `account_closed`), and the row stays
/// anonymised, so the ledger and the score history keep balancing and every match, hand and
/// tournament that names it still reads. Refused while the player sits at a table that is not
/// over, waits in a lobby queue or is in a tournament that is not over.
pub async fn delete(pool: &PgPool, id: Uuid, password: &str) -> ApiResult<()> {
    let mut tx = pool.begin().await?;
    lock_with_password(&mut tx, id, password).await?;
    crate::players::lock_free_to_play(&mut tx, id).await?;
    crate::players::ensure_not_seated_or_queued(&mut tx, id)
        .await
        .map_err(|e| match e {
            ApiError::Conflict(m) => ApiError::Conflict(
                m.replace("registering for a tournament", "deleting your account"),
            ),
            other => other,
        })?;
    let balance = ledger::balance(&mut tx, id).await?;
    if balance > 0 {
        let meta = ledger::TxMeta {
            reason: ledger::Reason::AccountClosed,
            ..ledger::TxMeta::default()
        };
        ledger::transfer(
            &mut tx,
            &meta,
            &[
                (ledger::Party::User(id), -balance),
                (ledger::Party::House, balance),
            ],
        )
        .await?;
    }
    sqlx::query(
        "UPDATE users SET username = 'deleted_' || replace(id::text, '-', ''),
                          password_hash = '', role = 'player', deleted_at = now()
          WHERE id = $1",
    )
    .bind(id)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM idempotency WHERE user_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    // Every process refuses the account's tokens from the commit on.
    notify_revoked(&mut tx, id, None).await?;
    tx.commit().await?;
    Ok(())
}

/// Who an account is, as tokens and responses name it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct User {
    pub id: Uuid,
    pub username: String,
    pub role: Role,
    /// The account's token generation, for the tokens issued to it now.
    #[serde(skip)]
    pub generation: i64,
}

/// Creates an account with its wallet. Used by registration and by the `PAIJU_ADMIN` bootstrap.
pub async fn create(pool: &PgPool, username: &str, password: &str, role: Role) -> ApiResult<User> {
    let pw = password.to_string();
    let hash = web::block(move || hash_password(&pw))
        .await
        .map_err(|e| ApiError::Internal(e.into()))??;
    let id = Uuid::new_v4();
    let mut tx = pool.begin().await?;
    let inserted = sqlx::query(
        "INSERT INTO users (id, username, password_hash, role) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(username)
    .bind(&hash)
    .bind(role.as_str())
    .execute(&mut *tx)
    .await?;
    if inserted.rows_affected() == 0 {
        return Err(ApiError::Conflict(format!(
            "the username {username:?} is taken"
        )));
    }
    ledger::open_user_account(&mut tx, id).await?;
    tx.commit().await?;
    Ok(User {
        id,
        username: username.to_string(),
        role,
        generation: 0,
    })
}

/// The account these credentials open (usernames match case-insensitively), or 401. An unknown
/// username is checked against a dummy hash, so both failures take the same time.
pub async fn authenticate(pool: &PgPool, c: &Credentials) -> ApiResult<User> {
    let row: Option<(Uuid, String, String, String, i64)> = sqlx::query_as(
        "SELECT id, username, password_hash, role, token_gen FROM users
          WHERE lower(username) = lower($1) AND deleted_at IS NULL",
    )
    .bind(&c.username)
    .fetch_optional(pool)
    .await?;
    let hash = row.as_ref().map(|r| r.2.clone());
    let pw = c.password.clone();
    let ok = web::block(move || {
        static DUMMY: LazyLock<String> =
            LazyLock::new(|| hash_password("not anyone's password").unwrap_or_default());
        verify_password(&pw, hash.as_deref().unwrap_or(&DUMMY))
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?;
    match row {
        Some((id, username, _, role, generation)) if ok => Ok(User {
            id,
            username,
            role: Role::parse(&role).unwrap_or(Role::Player),
            generation,
        }),
        _ => Err(ApiError::Unauthorized("wrong username or password".into())),
    }
}

/// An account, its wallet and its 积分 per game (`GET /v1/me`, `GET /v1/admin/users/{id}`).
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Me)]
pub struct Profile {
    pub id: Uuid,
    pub username: String,
    #[schema(value_type = Role)]
    pub role: String,
    /// The wallet's balance (金币).
    pub coins: i64,
    /// 积分 per game played, by game name.
    #[schema(value_type = std::collections::BTreeMap<String, i64>)]
    pub scores: Value,
}

const SELECT_PROFILE: &str = "SELECT u.id, u.username, u.role, a.balance,
        COALESCE((SELECT jsonb_object_agg(s.game, s.points) FROM scores s
                   WHERE s.user_id = u.id), '{}'::jsonb)
   FROM users u JOIN accounts a ON a.user_id = u.id WHERE u.deleted_at IS NULL";

type ProfileRow = (Uuid, String, String, i64, Value);

fn to_profile((id, username, role, coins, scores): ProfileRow) -> Profile {
    Profile {
        id,
        username,
        role,
        coins,
        scores: if scores.is_object() {
            scores
        } else {
            Value::Object(Map::new())
        },
    }
}

/// The caller's own profile; 401 when the token outlived its account.
pub async fn profile(pool: &PgPool, id: Uuid) -> ApiResult<Profile> {
    find(pool, id)
        .await?
        .ok_or_else(|| ApiError::Unauthorized("this account no longer exists".into()))
}

/// Account `id`'s profile, if it exists.
pub async fn find(pool: &PgPool, id: Uuid) -> ApiResult<Option<Profile>> {
    let row: Option<ProfileRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_PROFILE} AND u.id = $1"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(to_profile))
}

/// The account called `username` (case-insensitively), if any.
pub async fn find_by_name(pool: &PgPool, username: &str) -> ApiResult<Option<Profile>> {
    let row: Option<ProfileRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_PROFILE} AND lower(u.username) = lower($1)"
    )))
    .bind(username)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(to_profile))
}

/// Gives account `id` a role (effective at once: role-gated routes read the role now). A
/// deleted account is not found; a bot's account is the server's and keeps its role. A change
/// is recorded in the admin audit trail, by `actor` (`None`: the `PAIJU_ADMIN` bootstrap,
/// recorded as the account's own).
pub async fn set_role(pool: &PgPool, actor: Option<Uuid>, id: Uuid, role: Role) -> ApiResult<User> {
    let mut tx = pool.begin().await?;
    let before: Option<(String, String, i64)> = sqlx::query_as(
        "SELECT username, role, token_gen FROM users
          WHERE id = $1 AND deleted_at IS NULL AND NOT bot FOR UPDATE",
    )
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((username, was, generation)) = before else {
        return Err(crate::players::player_account(&mut *tx, id)
            .await
            .err()
            .unwrap_or_else(|| {
                ApiError::Conflict(format!("the account {id} changed meanwhile; retry"))
            }));
    };
    if was != role.as_str() {
        sqlx::query("UPDATE users SET role = $2 WHERE id = $1")
            .bind(id)
            .bind(role.as_str())
            .execute(&mut *tx)
            .await?;
        crate::audit::record(
            &mut tx,
            crate::audit::Record {
                actor: actor.unwrap_or(id),
                action: crate::audit::Action::RoleChange,
                target_user: Some(id),
                tournament_id: None,
                detail: &serde_json::json!({
                    "from": was, "to": role.as_str(),
                    "via": if actor.is_some() { "api" } else { "PAIJU_ADMIN" },
                }),
            },
        )
        .await?;
    }
    tx.commit().await?;
    Ok(User {
        id,
        username,
        role,
        generation,
    })
}

/// `PAIJU_ADMIN`: creates the admin account, or makes an existing account with that password an
/// admin. An existing account with another password is left alone (someone else's account).
pub async fn ensure_admin(pool: &PgPool, username: &str, password: &str) -> anyhow::Result<()> {
    let creds = Credentials {
        username: username.to_string(),
        password: password.to_string(),
    };
    // Two processes starting together may both try to create it: the loser looks again.
    for _ in 0..2 {
        match authenticate(pool, &creds).await {
            Ok(user) => {
                set_role(pool, None, user.id, Role::Admin).await?;
                tracing::info!(username, "admin account present");
                return Ok(());
            }
            Err(ApiError::Unauthorized(_)) => {}
            Err(e) => anyhow::bail!("looking up the admin account: {e}"),
        }
        let taken: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM users WHERE lower(username) = lower($1))",
        )
        .bind(username)
        .fetch_one(pool)
        .await?;
        if taken {
            tracing::warn!(
                username,
                "PAIJU_ADMIN names an existing account with a different password; not \
                 making it an admin"
            );
            return Ok(());
        }
        match create(pool, username, password, Role::Admin).await {
            Ok(_) => {
                tracing::info!(username, "admin account created");
                return Ok(());
            }
            Err(ApiError::Conflict(_)) => continue,
            Err(e) => anyhow::bail!("creating the admin account: {e}"),
        }
    }
    anyhow::bail!("could not create or find the admin account {username:?}")
}
