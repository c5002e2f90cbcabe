//! What organisers and players do to a tournament: create, edit, cancel and start it early;
//! register and withdraw. Each is one transaction; the rounds are in `rounds`.

use chrono::Utc;
use serde_json::json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::rounds::start;
use super::settings::check_settings;
use super::store::{self, TournamentRow};
use super::view::detail;
use super::{CreateTournament, EditTournament, Registration, TournamentDetail};
use crate::auth::{AuthUser, Role};
use crate::error::{ApiError, ApiResult};
use crate::ledger::{self, Party, Reason, TxMeta};

pub async fn create(
    pool: &PgPool,
    user: &AuthUser,
    req: CreateTournament,
) -> ApiResult<TournamentDetail> {
    user.require(&mut *pool.acquire().await?, Role::Organiser)
        .await?;
    let settings = check_settings(req, Utc::now())?;
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("OS randomness: {e}")))?;
    let id = Uuid::new_v4();
    let mut tx = pool.begin().await?;
    store::insert(&mut tx, id, &settings, &seed, user.id).await?;
    let body = detail(&mut tx, id).await?;
    tx.commit().await?;
    tracing::info!(tournament_id = %id, game = settings.game.name(), "tournament created");
    Ok(body)
}

pub async fn register(pool: &PgPool, user: &AuthUser, id: Uuid) -> ApiResult<Registration> {
    let mut tx = pool.begin().await?;
    let t = store::load(&mut tx, id, true).await?;
    if t.status != "registering" {
        return Err(ApiError::Conflict(format!(
            "registration is closed: the tournament is {}",
            t.status
        )));
    }
    if store::is_registered(&mut tx, id, user.id).await? {
        return Err(ApiError::AlreadyRegistered(
            "you are already registered in this tournament".into(),
        ));
    }
    crate::players::lock_free_to_play(&mut tx, user.id).await?;
    crate::players::ensure_not_seated_or_queued(&mut tx, user.id).await?;
    let balance = ledger::balance(&mut tx, user.id).await?;
    if balance < t.entry_fee {
        return Err(ApiError::InsufficientCoins(format!(
            "the entry fee is {} coins and your wallet holds {balance}",
            t.entry_fee
        )));
    }
    let reg_no = store::add_player(&mut tx, id, user.id).await?;
    tx.commit().await?;
    Ok(Registration {
        tournament_id: id,
        user_id: user.id,
        reg_no,
    })
}

pub async fn withdraw(pool: &PgPool, user: &AuthUser, id: Uuid) -> ApiResult<()> {
    let mut tx = pool.begin().await?;
    let t = store::load(&mut tx, id, true).await?;
    if t.status != "registering" {
        return Err(ApiError::Conflict(format!(
            "the tournament is {}: withdrawing is only possible before the start",
            t.status
        )));
    }
    if !store::remove_player(&mut tx, id, user.id).await? {
        return Err(ApiError::NotFound(
            "you are not registered in this tournament".into(),
        ));
    }
    tx.commit().await?;
    Ok(())
}

/// Loads a tournament locked, for a change only its organiser or an admin may make.
async fn lock_as_organiser(
    conn: &mut PgConnection,
    user: &AuthUser,
    id: Uuid,
    what: &str,
) -> ApiResult<TournamentRow> {
    user.require(&mut *conn, Role::Organiser).await?;
    let t = store::load(conn, id, true).await?;
    if t.created_by != user.id && user.role != Role::Admin {
        return Err(ApiError::Forbidden(format!(
            "only the tournament's organiser or an admin may {what} it"
        )));
    }
    Ok(t)
}

/// The organiser (or an admin) changes the settings before the start. Registrations stay; a
/// higher fee is checked at the start like any fee (players who cannot pay are passed over).
pub async fn edit(
    pool: &PgPool,
    user: &AuthUser,
    id: Uuid,
    req: EditTournament,
) -> ApiResult<TournamentDetail> {
    let mut tx = pool.begin().await?;
    let t = lock_as_organiser(&mut tx, user, id, "edit").await?;
    if t.status != "registering" {
        return Err(ApiError::Conflict(format!(
            "the tournament is {}: only a tournament that has not started can be edited",
            t.status
        )));
    }
    let settings = check_settings(
        CreateTournament {
            game: t.game.clone(),
            name: Some(req.name.unwrap_or(t.name)),
            entry_fee: req.entry_fee.unwrap_or(t.entry_fee),
            starts_at: req.starts_at.unwrap_or(t.starts_at),
            hands_per_round: Some(req.hands_per_round.unwrap_or(t.hands_per_round as u32)),
            options: Some(req.options.unwrap_or(t.options)),
        },
        Utc::now(),
    )?;
    store::update_settings(&mut tx, id, &settings).await?;
    let change = json!({
        "name": settings.name, "entry_fee": settings.entry_fee,
        "starts_at": settings.starts_at, "hands_per_round": settings.hands_per_round,
        "options": settings.options,
    });
    crate::audit::record(
        &mut tx,
        crate::audit::Record::tournament(
            user.id,
            crate::audit::Action::TournamentEdit,
            id,
            &change,
        ),
    )
    .await?;
    let body = detail(&mut tx, id).await?;
    tx.commit().await?;
    tracing::info!(tournament_id = %id, by = %user.id, "tournament edited");
    Ok(body)
}

/// The organiser (or an admin) cancels a tournament that has not ended. Before the start nobody
/// has paid; after it every player in the field gets the entry fee back from the escrow
/// (ledger reason `tournament_refund`) and the tables still playing are aborted.
pub async fn cancel(pool: &PgPool, user: &AuthUser, id: Uuid) -> ApiResult<TournamentDetail> {
    let mut tx = pool.begin().await?;
    let t = lock_as_organiser(&mut tx, user, id, "cancel").await?;
    if !["registering", "running"].contains(&t.status.as_str()) {
        return Err(ApiError::Conflict(format!(
            "the tournament is already {}",
            t.status
        )));
    }
    if t.status == "running" {
        let field = store::field(&mut tx, id).await?;
        let mut legs: Vec<(Party, i64)> = field
            .iter()
            .map(|&u| (Party::User(u), t.entry_fee))
            .collect();
        legs.push((
            Party::TournamentEscrow(id),
            -t.entry_fee * field.len() as i64,
        ));
        let meta = TxMeta {
            reason: Reason::TournamentRefund,
            tournament_id: Some(id),
            ..TxMeta::default()
        };
        ledger::transfer(&mut tx, &meta, &legs).await?;
        store::abort_tables(&mut tx, id).await?;
    }
    store::set_cancelled(&mut tx, id).await?;
    let change = json!({ "was": t.status, "refunded": t.status == "running" });
    crate::audit::record(
        &mut tx,
        crate::audit::Record::tournament(
            user.id,
            crate::audit::Action::TournamentCancel,
            id,
            &change,
        ),
    )
    .await?;
    let body = detail(&mut tx, id).await?;
    tx.commit().await?;
    tracing::info!(tournament_id = %id, by = %user.id, refunded = t.status == "running", "tournament cancelled");
    Ok(body)
}

/// The organiser (or an admin) starts the tournament before `starts_at`.
pub async fn start_now(pool: &PgPool, user: &AuthUser, id: Uuid) -> ApiResult<TournamentDetail> {
    let mut tx = pool.begin().await?;
    let t = lock_as_organiser(&mut tx, user, id, "start").await?;
    if t.status != "registering" {
        return Err(ApiError::Conflict(format!(
            "the tournament is already {}",
            t.status
        )));
    }
    start(&mut tx, t).await?;
    let body = detail(&mut tx, id).await?;
    tx.commit().await?;
    Ok(body)
}
