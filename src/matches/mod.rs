//! Match lifecycle: create, join, leave, act, read, events, replay. Every change is one
//! transaction holding the match row lock (see `table`).

pub mod autoplay;
mod cache;
mod commit;
pub mod counters;
mod gate;
pub mod lists;
pub mod lobby;
pub mod notify;
pub mod options;
pub mod rematch;
pub mod room;
pub mod runtime;
pub mod steps;
pub mod stream;
pub mod sweeper;
pub mod table;
pub mod view;

use games::cards::{Card, canonical};
use serde::Deserialize;
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use self::options::PlatformOptions;
use self::table::{NewTable, Status, Table};
use self::view::View;
use crate::auth::{AuthUser, Role};
use crate::error::{ApiError, ApiResult};
use crate::ledger;
use crate::notices::Via;

/// A new match (api.md § Matches).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateMatch {
    /// The game (one of those served).
    #[schema(value_type = crate::api_types::GameName)]
    pub game: String,
    /// The table size, within the game's range; the game's default when absent.
    #[schema(minimum = 1)]
    pub seats: Option<u32>,
    /// The game's options (see docs/rules/<game>.md) plus the platform's: `turn_timeout_secs`
    /// (default 20, ≥ 1), `hands` (end the match after this many hands), and for a coin room
    /// `room: "coin"` with `stake`, `min_coins` (50), `room_fee` (1), `hands_per_game` (10).
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    /// Seat the creator (default true).
    #[schema(default = true)]
    pub join: Option<bool>,
    /// Coins the creator brings to the table, in games that stake from a buy-in.
    #[schema(minimum = 0)]
    pub buy_in: Option<i64>,
    /// Admin only: the shuffle's seed, 64 hex digits.
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    pub seed: Option<String>,
    /// Admin only: the first hand's cards in dealing order.
    #[schema(value_type = Option<Vec<crate::api_types::Card>>)]
    pub deck: Option<Vec<String>>,
    /// Seat this many server-side bots at the last seats (never in coin rooms; at least one
    /// seat stays for a player). In games that stake coins from the wallet each bot is funded
    /// by the house (PAIJU_BOT_COINS, plus the buy-in) and gives back what is left when the
    /// match ends.
    #[schema(minimum = 0, default = 0)]
    pub bots: Option<u32>,
}

/// Coins the house gives each bot at a table whose game stakes coins itself (扯旋), when the
/// table asks no more (`PAIJU_BOT_COINS`, default 2000; 0 refuses bots at such tables).
#[derive(Clone, Copy, Debug)]
pub struct BotSettings {
    pub coins: i64,
}

/// Taking a seat: a given seat, or the first free one.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinMatch {
    #[schema(minimum = 0)]
    pub seat: Option<u32>,
    /// Coins brought to the table, in games that stake from a buy-in.
    #[schema(minimum = 0)]
    pub buy_in: Option<i64>,
}

/// One action for the caller's seat, at the view's version.
#[derive(Debug, Deserialize, serde::Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    /// The `version` of the view the action was chosen from.
    pub version: i64,
    /// An action of the match's game (one of its `legal_actions`' types), or `{"type":"resume"}`.
    #[schema(value_type = crate::api_types::AnyAction)]
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

/// The coins each of `bots` bots is funded with, or why bots cannot sit at this table.
fn bot_bankroll(
    game: &dyn games::DynGame,
    platform: &PlatformOptions,
    settings: BotSettings,
    seats: usize,
    bots: usize,
    join: bool,
) -> ApiResult<i64> {
    let humans = usize::from(join);
    if bots + humans > seats {
        return Err(ApiError::Validation(format!(
            "bots must be from 0 to {}: the table has {seats} seats{}",
            seats - humans,
            if join { " and you take one" } else { "" }
        )));
    }
    if bots == seats {
        return Err(ApiError::Validation(
            "a table of bots only has nobody to play for: leave a seat for a player".into(),
        ));
    }
    if platform.room.is_some() {
        return Err(ApiError::Validation(
            "bots do not play in coin rooms (金币场): what players win there comes from players"
                .into(),
        ));
    }
    // A game that stakes coins itself needs coins in every wallet to play at all.
    let stakes = !game.coin_rooms();
    if stakes && settings.coins == 0 {
        return Err(ApiError::Validation(format!(
            "bots are switched off for {} on this server (PAIJU_BOT_COINS=0)",
            game.name()
        )));
    }
    Ok(platform
        .entry_coins()
        .max(if stakes { settings.coins } else { 0 }))
}

/// The game called `name`, or a 422 that lists the games we run.
pub fn game_named(name: &str) -> ApiResult<&'static dyn games::DynGame> {
    games::game(name).ok_or_else(|| {
        ApiError::Validation(format!(
            "unknown game {name:?}; games: {}",
            games::names().join(", ")
        ))
    })
}

pub async fn create(
    pool: &PgPool,
    bot_settings: BotSettings,
    user: &AuthUser,
    req: CreateMatch,
) -> ApiResult<Table> {
    let game = game_named(&req.game)?;
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
    let bots = req.bots.unwrap_or(0) as usize;
    let bot_coins = if bots > 0 {
        bot_bankroll(game, &platform, bot_settings, seats, bots, join)?
    } else {
        0
    };

    let mut tx = pool.begin().await?;
    if join {
        crate::players::lock_free_to_play(&mut tx, user.id).await?;
        require_coins(&mut tx, user.id, platform.entry_coins()).await?;
    } else {
        crate::players::lock(&mut tx, user.id).await?;
    }
    let mut t = Table::insert(
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
    let id = t.id();
    if join {
        t.seat_player(&mut tx, 0, user.id, &user.username, Via::Create)
            .await?;
    }
    for seat in seats - bots..seats {
        t.seat_bot(&mut tx, seat, bot_coins).await?;
    }
    t.advance(&mut tx).await?;
    t.save(&mut tx).await?;
    tx.commit().await?;
    tracing::info!(match_id = %id, game = game.name(), seats, "match created");
    Ok(t)
}

/// Seats `user` at match `id`; the committed table (the caller's view is `t.view`).
pub async fn join(pool: &PgPool, user: &AuthUser, id: Uuid, req: JoinMatch) -> ApiResult<Table> {
    let buy_in = check_buy_in(req.buy_in)?;
    let mut tx = pool.begin().await?;
    let mut t = Table::lock(&mut tx, id).await?;
    if t.tournament_id().is_some() {
        return Err(ApiError::Forbidden(
            "this is a tournament table: its seats are given by the tournament".into(),
        ));
    }
    if t.seat_of(user.id).is_some() {
        return Err(ApiError::Conflict(
            "you are already seated at this match".into(),
        ));
    }
    if matches!(t.status(), Status::Finished | Status::Aborted) {
        return Err(ApiError::Conflict(format!(
            "the match is {}",
            t.status().as_str()
        )));
    }
    if let Some(k) = req.seat
        && k as usize >= t.seat_count()
    {
        return Err(ApiError::Validation(format!(
            "seat must be from 0 to {}, got {k}",
            t.seat_count() - 1
        )));
    }
    // A rematch keeps its seats for the players of the match before it for a while.
    let reserved = if t.started() {
        Vec::new()
    } else {
        rematch::reserved(&mut tx, id).await?
    };
    let asked = req.seat.map(|k| k as usize);
    let chosen = rematch::choose_seat(&reserved, user.id, asked, t.seat_count(), |s| {
        t.seat(s).is_none()
    })?;
    let seat = match chosen {
        Some(k) if t.seat(k).is_some() => {
            return Err(ApiError::SeatTaken(format!("seat {k} is taken")));
        }
        Some(k) => k,
        None => t
            .free_seat()
            .ok_or_else(|| ApiError::MatchFull("every seat of this match is taken".into()))?,
    };
    let min = buy_in.max(t.platform().entry_coins());
    crate::players::lock_free_to_play(&mut tx, user.id).await?;
    require_coins(&mut tx, user.id, min).await?;
    t.seat_player(&mut tx, seat, user.id, &user.username, Via::Join)
        .await?;
    t.advance(&mut tx).await?;
    t.save(&mut tx).await?;
    tx.commit().await?;
    Ok(t)
}

pub async fn leave(pool: &PgPool, user: &AuthUser, id: Uuid) -> ApiResult<View> {
    let mut tx = pool.begin().await?;
    let mut t = Table::lock(&mut tx, id).await?;
    let seat = t
        .seat_of(user.id)
        .ok_or_else(|| ApiError::Conflict("you are not seated at this match".into()))?;
    if matches!(t.status(), Status::Finished | Status::Aborted) {
        return Err(ApiError::Conflict(format!(
            "the match is {}; there is nothing to leave",
            t.status().as_str()
        )));
    }
    if let Some(tid) = t.tournament_id() {
        // 逃跑 at a tournament table: eliminated at once, the seat plays on in 托管, and the
        // entry fee stays in the pool.
        crate::players::escape_tournament(&mut tx, tid, user.id).await?;
        t.put_in_auto(seat);
        t.record(
            Some(seat),
            table::events::Escaped {
                user_id: user.id,
                eliminated: Some(true),
            },
        );
        t.advance(&mut tx).await?;
    } else {
        t.unseat(&mut tx, seat).await?;
    }
    t.save(&mut tx).await?;
    tx.commit().await?;
    Ok(t.view(Some(user.id)))
}

/// One event of a match's log that the caller may see.
#[derive(sqlx::FromRow, serde::Serialize, utoipa::ToSchema)]
#[schema(as = Event)]
pub struct EventRow {
    /// Position in the match's log: increasing, with gaps where events are private to others.
    seq: i64,
    #[serde(rename = "type")]
    kind: String,
    /// The seat the event is about, if any.
    seat: Option<i32>,
    #[schema(value_type = Object)]
    data: Value,
    at: chrono::DateTime<chrono::Utc>,
    hand_no: i32,
}

/// One page of a match's events, oldest first.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct EventPage {
    /// The match's game: `events` are that game's.
    #[schema(value_type = crate::api_types::GameName)]
    pub game: String,
    pub events: Vec<EventRow>,
    /// More events after this page.
    pub has_more: bool,
    /// Pass as `after` for the next page.
    pub next_after: i64,
}

pub async fn events(
    pool: &PgPool,
    user: &AuthUser,
    id: Uuid,
    after: i64,
    limit: i64,
) -> ApiResult<EventPage> {
    let game: Option<String> = sqlx::query_scalar("SELECT game FROM matches WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?;
    let Some(game) = game else {
        return Err(ApiError::NotFound(format!("no match with id {id}")));
    };
    let events: Vec<EventRow> = sqlx::query_as(
        "SELECT seq, kind, seat, data, at, hand_no FROM match_events
          WHERE match_id = $1 AND seq > $2
            AND (visible_to IS NULL OR $3 = ANY (visible_to))
          ORDER BY seq LIMIT $4",
    )
    .bind(id)
    .bind(after)
    .bind(user.id)
    .bind(limit + 1)
    .fetch_all(pool)
    .await?;
    let mut events = events;
    let has_more = events.len() as i64 > limit;
    events.truncate(limit as usize);
    let next_after = events.last().map_or(after, |e| e.seq);
    Ok(EventPage {
        game,
        events,
        has_more,
        next_after,
    })
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

/// One action of a replayed hand, as the engine took it.
#[derive(sqlx::FromRow, serde::Serialize, utoipa::ToSchema)]
#[schema(as = ReplayAction)]
pub struct ActionRow {
    #[serde(skip)]
    hand_no: i32,
    seat: i32,
    /// `action`, or what the platform did for the seat (`timeout`, `leave`, …).
    kind: String,
    /// The game action, for `kind` `action`.
    #[schema(value_type = Option<crate::api_types::AnyAction>)]
    action: Option<Value>,
    /// The table clock at the action, in ms.
    now_ms: i64,
}

/// Every finished hand of a match, with what is needed to check its deal and play it again
/// (api.md § Replays).
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Replay {
    match_id: Uuid,
    #[schema(value_type = crate::api_types::GameName)]
    game: String,
    seats: i32,
    #[schema(value_type = Object)]
    options: Value,
    /// How a seed becomes the deck.
    shuffle: &'static str,
    hands: Vec<ReplayHand>,
}

/// One finished hand of a replay.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ReplayHand {
    hand_no: i32,
    /// Hex; null when an admin fixed the deck.
    seed: Option<String>,
    /// SHA-256 of the seed, published when the hand was dealt.
    shuffle_commitment: Option<String>,
    /// Whether an admin fixed the deck.
    #[schema(value_type = bool)]
    deck_fixed: Value,
    /// The cards in dealing order.
    #[schema(value_type = Vec<crate::api_types::Card>)]
    deck: Value,
    /// The game's state when the hand began.
    #[schema(value_type = Object)]
    start_state: Value,
    /// Each seat's wallet when the hand began.
    #[schema(value_type = Vec<i64>)]
    wallets: Value,
    /// Each seat's 积分 when the hand began.
    #[schema(value_type = Vec<i64>)]
    scores: Value,
    start_ms: i64,
    actions: Vec<ActionRow>,
    /// The hand played again: the table after the deal (`n` 0) and after each action, with
    /// every hand revealed; at most `steps::MAX_STEPS` (600).
    steps: Vec<steps::Step>,
    /// Whether `steps` reach the hand's last action (false past 600 steps).
    steps_complete: bool,
    /// The hand's result, as the view's `last_result` showed it.
    #[schema(value_type = Option<Object>)]
    result: Option<Value>,
}

pub async fn replay(pool: &PgPool, id: Uuid) -> ApiResult<Replay> {
    let m: Option<(String, i32, Value)> =
        sqlx::query_as("SELECT game, seats, options FROM matches WHERE id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await?;
    let (game, seats, options) =
        m.ok_or_else(|| ApiError::NotFound(format!("no match with id {id}")))?;
    let engine = game_named(&game)?;
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
    let mut actions = actions.into_iter().peekable();
    let hands = hands
        .into_iter()
        .map(|mut h| {
            // Both lists are in hand order: each hand takes the actions of its number.
            let mut acts = Vec::new();
            while let Some(a) = actions.next_if(|a| a.hand_no <= h.hand_no) {
                if a.hand_no == h.hand_no {
                    acts.push(a);
                }
            }
            let start_state = h.start_state.to_string();
            let (steps, replayed) = steps::replay(
                engine,
                seats as usize,
                steps::Start {
                    state: &start_state,
                    deck: &h.deck["cards"],
                    start_ms: h.start_ms,
                    wallets: &h.wallets,
                    scores: &h.scores,
                },
                acts.iter().map(|a| steps::Logged {
                    seat: a.seat as usize,
                    kind: &a.kind,
                    action: a.action.as_ref(),
                    now_ms: a.now_ms,
                }),
            );
            if let Err(e) = replayed {
                tracing::warn!(match_id = %id, hand_no = h.hand_no, error = %e,
                    "a finished hand does not play again");
            }
            let steps_complete = steps.len() == acts.len() + 1;
            ReplayHand {
                steps,
                steps_complete,
                hand_no: h.hand_no,
                seed: h.seed.map(|s| games::shuffle::to_hex(&s)),
                shuffle_commitment: h.commitment,
                deck_fixed: h.deck["fixed"].take(),
                deck: h.deck["cards"].take(),
                start_state: h.start_state,
                wallets: h.wallets,
                scores: h.scores,
                start_ms: h.start_ms,
                actions: acts,
                result: h.result,
            }
        })
        .collect();
    Ok(Replay {
        match_id: id,
        game,
        seats,
        options,
        shuffle: "Fisher-Yates over ChaCha20 seeded with the 32-byte seed; the deck order \
                  before shuffling is the game's deck listing (see docs/rules)",
        hands,
    })
}
