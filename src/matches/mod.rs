//! Match lifecycle: create, join, leave, act, read, events, replay. Every change is one
//! transaction holding the match row lock (see `table`).

pub mod autoplay;
pub mod cache;
pub mod gate;
pub mod lobby;
pub mod notify;
pub mod options;
pub mod room;
pub mod sweeper;
pub mod table;
pub mod view;

use std::sync::Arc;
use std::time::Duration;

use games::cards::{Card, canonical};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection, PgPool};
use uuid::Uuid;

use self::notify::Hub;
use self::options::PlatformOptions;
use self::table::{ActionKind, SeatRow, Status, Table};
use self::view::View;
use crate::auth::{AuthUser, Role};
use crate::db::MoveConns;
use crate::error::{ApiError, ApiResult};
use crate::ledger;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateMatch {
    pub game: String,
    pub seats: Option<u32>,
    pub options: Option<Value>,
    pub join: Option<bool>,
    pub buy_in: Option<i64>,
    pub seed: Option<String>,
    pub deck: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinMatch {
    pub seat: Option<u32>,
    pub buy_in: Option<i64>,
}

#[derive(Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    pub version: i64,
    pub action: Value,
}

fn parse_deck(game: &dyn games::DynGame, options: &Value, raw: &[String]) -> ApiResult<Vec<Card>> {
    let deck: Vec<Card> = raw
        .iter()
        .enumerate()
        .map(|(i, c)| Card::parse(c).map_err(|e| ApiError::Validation(format!("deck[{i}]: {e}"))))
        .collect::<Result<_, _>>()?;
    let full = game
        .deck(options)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!(e)))?;
    if canonical(&deck) != canonical(&full) {
        let mut missing = canonical(&full);
        let mut extra = Vec::new();
        for c in &deck {
            match missing.iter().position(|m| m == c) {
                Some(i) => {
                    missing.remove(i);
                }
                None => extra.push(c.to_string()),
            }
        }
        let missing: Vec<String> = missing.iter().map(ToString::to_string).collect();
        return Err(ApiError::Validation(format!(
            "deck must hold exactly the {} cards of {} once each: {} given; \
             not in the game's deck or duplicated: [{}]; missing: [{}]",
            full.len(),
            game.name(),
            deck.len(),
            extra.join(", "),
            missing.join(", ")
        )));
    }
    Ok(deck)
}

fn check_buy_in(buy_in: Option<i64>) -> ApiResult<i64> {
    match buy_in {
        None => Ok(0),
        Some(b) if (0..=1_000_000_000_000).contains(&b) => Ok(b),
        Some(b) => Err(ApiError::Validation(format!(
            "buy_in must be from 0 to 1000000000000, got {b}"
        ))),
    }
}

/// The coins a player must hold to take a seat. Games stake from the wallet as they play, so
/// a buy-in reserves nothing: it is the table's entry requirement.
async fn require_coins(conn: &mut PgConnection, user: Uuid, buy_in: i64) -> ApiResult<()> {
    let balance = ledger::balance(conn, user).await?;
    if balance < buy_in {
        return Err(ApiError::InsufficientCoins(format!(
            "this seat needs {buy_in} coins and your wallet holds {balance}"
        )));
    }
    Ok(())
}

/// Seats a player (the caller checked the seat is free and the player may sit).
pub(crate) async fn insert_seat(
    conn: &mut PgConnection,
    t: &mut Table,
    seat: usize,
    user_id: Uuid,
    username: &str,
) -> ApiResult<()> {
    sqlx::query("INSERT INTO match_seats (match_id, seat, user_id) VALUES ($1, $2, $3)")
        .bind(t.id)
        .bind(seat as i32)
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    t.seats[seat] = Some(SeatRow {
        seat,
        user_id,
        username: username.to_string(),
        auto: false,
        timeouts: 0,
    });
    t.platform_event(
        "joined",
        Some(seat),
        json!({ "user_id": user_id, "username": username }),
    );
    t.version += 1;
    Ok(())
}

/// What a new match is made of, once validated.
pub(crate) struct NewTable {
    pub game: &'static dyn games::DynGame,
    pub seats: usize,
    pub platform: PlatformOptions,
    pub game_options: Value,
    pub created_by: Option<Uuid>,
    pub tournament_id: Option<Uuid>,
    pub seed: Option<games::shuffle::Seed>,
    pub deck: Option<Vec<Card>>,
}

/// Inserts the match row and its escrow account and returns it loaded and locked.
pub(crate) async fn insert_table(conn: &mut PgConnection, new: NewTable) -> ApiResult<Table> {
    let id = Uuid::new_v4();
    let state = new
        .game
        .new_match(&new.game_options, new.seats)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!(e)))?;
    sqlx::query(
        "INSERT INTO matches (id, game, seats, options, status, state, created_by, fixed_seed,
                              fixed_deck, tournament_id)
         VALUES ($1, $2, $3, $4, 'waiting', $5, $6, $7, $8, $9)",
    )
    .bind(id)
    .bind(new.game.name())
    .bind(new.seats as i32)
    .bind(new.platform.merge_into(new.game_options))
    .bind(state.save())
    .bind(new.created_by)
    .bind(new.seed.map(|s| s.to_vec()))
    .bind(new.deck.map(|d| json!(d)))
    .bind(new.tournament_id)
    .execute(&mut *conn)
    .await?;
    ledger::open_match_escrow(&mut *conn, id).await?;
    let mut t = Table::load(conn, id, true).await?;
    t.platform_event("created", None, json!({ "by": new.created_by }));
    Ok(t)
}

pub async fn create(pool: &PgPool, user: &AuthUser, req: CreateMatch) -> ApiResult<View> {
    let game = games::game(&req.game).ok_or_else(|| {
        ApiError::Validation(format!(
            "unknown game {:?}; games: {}",
            req.game,
            games::names().join(", ")
        ))
    })?;
    let range = game.seats();
    let seats = match req.seats {
        Some(n) => n as usize,
        None if range.start() == range.end() => *range.start(),
        None => {
            return Err(ApiError::Validation(format!(
                "seats is required: {} is played by {} to {}",
                game.name(),
                range.start(),
                range.end()
            )));
        }
    };
    let (mut platform, raw) = PlatformOptions::split(req.options.as_ref())?;
    let game_options = game.options(seats, &raw)?;
    if platform.room.is_some() && !game.coin_rooms() {
        return Err(ApiError::Validation(format!(
            "{} has no coin rooms: it stakes coins itself",
            game.name()
        )));
    }
    if req.seed.is_some() || req.deck.is_some() {
        user.require(&mut *pool.acquire().await?, Role::Admin)
            .await
            .map_err(|e| match e {
                ApiError::Forbidden(_) => {
                    ApiError::Forbidden("only an admin may fix the seed or the deck".into())
                }
                other => other,
            })?;
    }
    let seed = req
        .seed
        .as_deref()
        .map(games::shuffle::parse_seed)
        .transpose()
        .map_err(ApiError::Validation)?;
    let deck = req
        .deck
        .as_deref()
        .map(|d| parse_deck(game, &game_options, d))
        .transpose()?;
    platform.buy_in = check_buy_in(req.buy_in)?;
    let join = req.join.unwrap_or(true);

    let mut tx = pool.begin().await?;
    if join {
        crate::players::lock_free_to_play(&mut tx, user.id).await?;
        require_coins(&mut tx, user.id, platform.entry_coins()).await?;
    } else {
        crate::players::lock(&mut tx, user.id).await?;
    }
    let mut t = insert_table(
        &mut tx,
        NewTable {
            game,
            seats,
            platform,
            game_options,
            created_by: Some(user.id),
            tournament_id: None,
            seed,
            deck,
        },
    )
    .await?;
    let id = t.id;
    if join {
        insert_seat(&mut tx, &mut t, 0, user.id, &user.username).await?;
    }
    t.advance(&mut tx).await?;
    t.save(&mut tx).await?;
    tx.commit().await?;
    tracing::info!(match_id = %id, game = game.name(), seats, "match created");
    Ok(t.view(Some(user.id)))
}

pub async fn join(pool: &PgPool, user: &AuthUser, id: Uuid, req: JoinMatch) -> ApiResult<View> {
    let buy_in = check_buy_in(req.buy_in)?;
    let mut tx = pool.begin().await?;
    let mut t = Table::load(&mut tx, id, true).await?;
    if t.tournament_id.is_some() {
        return Err(ApiError::Forbidden(
            "this is a tournament table: its seats are given by the tournament".into(),
        ));
    }
    if t.seat_of(user.id).is_some() {
        return Err(ApiError::Conflict(
            "you are already seated at this match".into(),
        ));
    }
    if matches!(t.status, Status::Finished | Status::Aborted) {
        return Err(ApiError::Conflict(format!(
            "the match is {}",
            t.status.as_str()
        )));
    }
    let seat = match req.seat {
        Some(k) => {
            let k = k as usize;
            if k >= t.seat_count {
                return Err(ApiError::Validation(format!(
                    "seat must be from 0 to {}, got {k}",
                    t.seat_count - 1
                )));
            }
            if t.seats[k].is_some() {
                return Err(ApiError::SeatTaken(format!("seat {k} is taken")));
            }
            k
        }
        None => t
            .seats
            .iter()
            .position(Option::is_none)
            .ok_or_else(|| ApiError::MatchFull("every seat of this match is taken".into()))?,
    };
    let min = buy_in.max(t.platform.entry_coins());
    crate::players::lock_free_to_play(&mut tx, user.id).await?;
    require_coins(&mut tx, user.id, min).await?;
    insert_seat(&mut tx, &mut t, seat, user.id, &user.username).await?;
    t.advance(&mut tx).await?;
    t.save(&mut tx).await?;
    tx.commit().await?;
    Ok(t.view(Some(user.id)))
}

pub async fn leave(pool: &PgPool, user: &AuthUser, id: Uuid) -> ApiResult<View> {
    let mut tx = pool.begin().await?;
    let mut t = Table::load(&mut tx, id, true).await?;
    let seat = t
        .seat_of(user.id)
        .ok_or_else(|| ApiError::Conflict("you are not seated at this match".into()))?;
    if matches!(t.status, Status::Finished | Status::Aborted) {
        return Err(ApiError::Conflict(format!(
            "the match is {}; there is nothing to leave",
            t.status.as_str()
        )));
    }
    if let Some(tid) = t.tournament_id {
        // 逃跑 at a tournament table: eliminated at once, the seat plays on in 托管, and the
        // entry fee stays in the pool.
        crate::players::escape_tournament(&mut tx, tid, user.id).await?;
        if let Some(s) = t.seats[seat].as_mut() {
            s.auto = true;
            t.mark_seat(seat);
        }
        t.platform_event(
            "escaped",
            Some(seat),
            json!({ "user_id": user.id, "eliminated": true }),
        );
        t.version += 1;
    } else {
        let started = t.state.hand_no() > 0;
        if started {
            t.escape(&mut tx, seat).await?;
        }
        sqlx::query("DELETE FROM match_seats WHERE match_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat as i32)
            .execute(&mut *tx)
            .await?;
        t.seats[seat] = None;
        t.platform_event(
            if started { "escaped" } else { "left" },
            Some(seat),
            json!({ "user_id": user.id }),
        );
        t.version += 1;
        if !started && t.seats.iter().all(Option::is_none) {
            t.status = Status::Aborted;
        }
    }
    if t.status != Status::Aborted {
        t.advance(&mut tx).await?;
    }
    t.save(&mut tx).await?;
    tx.commit().await?;
    Ok(t.view(Some(user.id)))
}

/// A move at a version below one this process has seen committed is certainly a 409: answer
/// it from the cached row instead of queueing for the row lock behind the move that won.
/// Tournament tables are left to the locked path, which checks escapes first.
fn refuse_if_surely_stale(user: &AuthUser, id: Uuid, version: i64) -> ApiResult<()> {
    let Some(t) = cache::at_least(id, version + 1) else {
        return Ok(());
    };
    if t.tournament_id.is_none() && t.seat_of(user.id).is_some() {
        return Err(ApiError::VersionConflict(Box::new(t.view(Some(user.id)))));
    }
    Ok(())
}

/// One client action, with optional idempotent replay.
pub async fn act(
    conns: &MoveConns,
    hub: &Hub,
    user: &AuthUser,
    id: Uuid,
    req: ActionRequest,
    idempotency_key: Option<String>,
) -> ApiResult<View> {
    // Moves of this match sent to this process take turns here rather than at the row lock.
    let _gate = gate::enter(id).await;
    // A retry with an Idempotency-Key carries the version it was first sent at: only requests
    // without one can be refused before the idempotency lookup.
    if idempotency_key.is_none() {
        refuse_if_surely_stale(user, id, req.version)?;
    }
    let mut conn = conns.acquire().await?;
    let mut tx = conn.begin().await?;
    let acted = match act_in(&mut tx, user, id, req, idempotency_key).await {
        Ok(acted) => acted,
        Err(e) => {
            // A refused move ends its transaction here, so its connection comes back clean.
            if tx.rollback().await.is_ok() {
                conn.release();
            }
            return Err(e);
        }
    };
    tx.commit().await?;
    conn.release();
    match acted {
        Acted::Applied(t, view) => {
            // The table first, so that waiters woken by the news find it.
            let version = t.version;
            cache::put(Arc::new(*t));
            hub.publish(id, version);
            Ok(view)
        }
        Acted::Replayed(view) => Ok(view),
    }
}

enum Acted {
    /// The move was applied: the table to publish once committed, and the caller's view.
    Applied(Box<Table>, View),
    /// A retry of a request already answered (Idempotency-Key): its stored answer.
    Replayed(View),
}

/// One move inside its transaction; nothing is committed here.
async fn act_in(
    tx: &mut PgConnection,
    user: &AuthUser,
    id: Uuid,
    req: ActionRequest,
    idempotency_key: Option<String>,
) -> ApiResult<Acted> {
    if let Some(key) = &idempotency_key {
        let fingerprint = json!({ "match_id": id, "request": req });
        let fresh = sqlx::query(
            "INSERT INTO idempotency (user_id, key, request) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
        )
        .bind(user.id)
        .bind(key)
        .bind(&fingerprint)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if !fresh {
            let (request, body): (Value, Option<Value>) = sqlx::query_as(
                "SELECT request, body FROM idempotency WHERE user_id = $1 AND key = $2",
            )
            .bind(user.id)
            .bind(key)
            .fetch_one(&mut *tx)
            .await?;
            if request != fingerprint {
                return Err(ApiError::Validation(
                    "this Idempotency-Key was already used for a different request".into(),
                ));
            }
            return match body {
                Some(body) => View::from_stored(&body)
                    .map(Acted::Replayed)
                    .ok_or_else(|| {
                        ApiError::Internal(anyhow::anyhow!(
                            "a stored idempotent answer lacks its id or version"
                        ))
                    }),
                None => Err(ApiError::Conflict(
                    "the first request with this Idempotency-Key is still running".into(),
                )),
            };
        }
    }
    let mut t = Table::load(&mut *tx, id, true).await?;
    let seat = t
        .seat_of(user.id)
        .ok_or_else(|| ApiError::Forbidden("you are not seated at this match".into()))?;
    if let Some(tid) = t.tournament_id
        && crate::players::escaped_tournament(&mut *tx, tid, user.id).await?
    {
        return Err(ApiError::Forbidden(
            "you left this tournament table; its seat is played automatically now".into(),
        ));
    }
    if req.version != t.version {
        return Err(ApiError::VersionConflict(Box::new(t.view(Some(user.id)))));
    }
    if t.status != Status::Playing {
        return Err(ApiError::Illegal(format!(
            "the match is {}, not playing",
            t.status.as_str()
        )));
    }
    if req.action.get("type").and_then(Value::as_str) == Some("resume") {
        if !t.seats[seat].as_ref().is_some_and(|s| s.auto) {
            return Err(ApiError::Illegal(
                "resume ends automatic play (托管), and your seat is not in it".into(),
            ));
        }
        t.platform_event("resumed", Some(seat), json!({}));
        t.version += 1;
    } else {
        t.apply(&mut *tx, seat, req.action, ActionKind::Client)
            .await?;
    }
    if let Some(s) = t.seats[seat].as_mut()
        && (s.auto || s.timeouts != 0)
    {
        s.auto = false;
        s.timeouts = 0;
        t.mark_seat(seat);
    }
    t.advance(&mut *tx).await?;
    t.save(&mut *tx).await?;
    let view = t.view(Some(user.id));
    if let Some(key) = &idempotency_key {
        sqlx::query(
            "UPDATE idempotency SET status = 200, body = $3 WHERE user_id = $1 AND key = $2",
        )
        .bind(user.id)
        .bind(key)
        .bind(sqlx::types::Json(&view))
        .execute(&mut *tx)
        .await?;
    }
    Ok(Acted::Applied(Box::new(t), view))
}

/// The caller's view; with `wait_version`, waits (up to `timeout`) for a newer version.
pub async fn get(
    pool: &PgPool,
    hub: &Hub,
    user: &AuthUser,
    id: Uuid,
    wait: Option<(i64, Duration)>,
) -> ApiResult<View> {
    let mut newer: Option<i64> = None;
    if let Some((after, timeout)) = wait {
        let mut rx = hub.subscribe(id);
        let until = tokio::time::Instant::now() + timeout;
        loop {
            let mut version = *rx.borrow_and_update();
            if version == notify::UNKNOWN {
                version = sqlx::query_scalar("SELECT version FROM matches WHERE id = $1")
                    .bind(id)
                    .fetch_optional(pool)
                    .await?
                    .ok_or_else(|| ApiError::NotFound(format!("no match with id {id}")))?;
                // Wakes `rx` too, so the next turn of the loop reads whichever is newer.
                hub.publish(id, version);
            }
            if version > after {
                newer = Some(version);
                break;
            }
            // At the timeout the answer comes from the database (below), not from what this
            // process was told.
            match tokio::time::timeout_at(until, rx.changed()).await {
                Ok(Ok(())) => {}
                _ => break,
            }
        }
    }
    // A committed version's content never changes, and any version past `after` answers a
    // long-poll: a cached table that new is as good as the database's row.
    let mut cached = newer.and_then(|v| cache::at_least(id, v));
    if let Some(v) = newer
        && cached.is_none()
        && gate::busy(id)
    {
        // The notification can overtake the commit's reply to the move's own request in this
        // process: once that request is done, its row is in the cache. (A request that waits
        // for another process's row lock is not waited for long: the database answers then.)
        if let Ok(gate) = tokio::time::timeout(Duration::from_millis(500), gate::enter(id)).await {
            drop(gate);
            cached = cache::at_least(id, v);
        }
    }
    let t = match cached {
        Some(t) => t,
        None => {
            let mut conn = pool.acquire().await?;
            let t = Arc::new(Table::load(&mut conn, id, false).await?);
            cache::put(t.clone());
            t
        }
    };
    Ok(t.view(Some(user.id)))
}

#[derive(sqlx::FromRow, serde::Serialize)]
struct EventRow {
    seq: i64,
    #[serde(rename = "type")]
    kind: String,
    seat: Option<i32>,
    data: Value,
    at: chrono::DateTime<chrono::Utc>,
    hand_no: i32,
}

pub async fn events(
    pool: &PgPool,
    user: &AuthUser,
    id: Uuid,
    after: i64,
    limit: i64,
) -> ApiResult<Value> {
    let exists: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM matches WHERE id = $1)")
        .bind(id)
        .fetch_one(pool)
        .await?;
    if !exists {
        return Err(ApiError::NotFound(format!("no match with id {id}")));
    }
    let events: Vec<EventRow> = sqlx::query_as(
        "SELECT seq, kind, seat, data, at, hand_no FROM match_events
          WHERE match_id = $1 AND seq > $2
            AND (visible_to IS NULL OR $3 = ANY (visible_to))
          ORDER BY seq LIMIT $4",
    )
    .bind(id)
    .bind(after)
    .bind(user.id)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    Ok(json!({ "events": events }))
}

#[derive(sqlx::FromRow)]
struct HandRow {
    hand_no: i32,
    seed: Option<Vec<u8>>,
    commitment: Option<String>,
    deck: Value,
    start_state: Value,
    wallets: Value,
    scores: Value,
    start_ms: i64,
    result: Option<Value>,
}

#[derive(sqlx::FromRow, serde::Serialize)]
struct ActionRow {
    #[serde(skip)]
    hand_no: i32,
    seat: i32,
    kind: String,
    action: Option<Value>,
    now_ms: i64,
}

pub async fn replay(pool: &PgPool, id: Uuid) -> ApiResult<Value> {
    let m: Option<(String, i32, Value)> =
        sqlx::query_as("SELECT game, seats, options FROM matches WHERE id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await?;
    let (game, seats, options) =
        m.ok_or_else(|| ApiError::NotFound(format!("no match with id {id}")))?;
    let hands: Vec<HandRow> = sqlx::query_as(
        "SELECT hand_no, seed, commitment, deck, start_state, wallets, scores, start_ms, result
           FROM hands WHERE match_id = $1 AND ended_at IS NOT NULL ORDER BY hand_no",
    )
    .bind(id)
    .fetch_all(pool)
    .await?;
    let actions: Vec<ActionRow> = sqlx::query_as(
        "SELECT a.hand_no, a.seat, a.kind, a.action, a.now_ms FROM match_actions a
          WHERE a.match_id = $1
            AND EXISTS (SELECT 1 FROM hands h WHERE h.match_id = a.match_id
                           AND h.hand_no = a.hand_no AND h.ended_at IS NOT NULL)
          ORDER BY a.n",
    )
    .bind(id)
    .fetch_all(pool)
    .await?;
    let hands: Vec<Value> = hands
        .into_iter()
        .map(|h| {
            let acts: Vec<&ActionRow> = actions.iter().filter(|a| a.hand_no == h.hand_no).collect();
            json!({
                "hand_no": h.hand_no,
                "seed": h.seed.map(|s| games::shuffle::to_hex(&s)),
                "shuffle_commitment": h.commitment,
                "deck_fixed": h.deck["fixed"],
                "deck": h.deck["cards"],
                "start_state": h.start_state,
                "wallets": h.wallets,
                "scores": h.scores,
                "start_ms": h.start_ms,
                "actions": acts,
                "result": h.result,
            })
        })
        .collect();
    Ok(json!({
        "match_id": id,
        "game": game,
        "seats": seats,
        "options": options,
        "shuffle": "Fisher-Yates over ChaCha20 seeded with the 32-byte seed; the deck order \
                    before shuffling is the game's deck listing (see docs/rules)",
        "hands": hands,
    }))
}
