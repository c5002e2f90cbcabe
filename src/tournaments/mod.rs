//! 比赛场: knockout tournaments for every game played by a fixed number of seats. Every table is an ordinary match owned by
//! the tournament (`matches.tournament_id`, `hands` = `hands_per_round`); the sweeper starts
//! tournaments at `starts_at` and moves them on when a round's tables have all finished. All
//! state is in the database, so a restart loses nothing. `bracket` holds the bracket's rules
//! as pure code.

pub mod bracket;
mod standings;

pub use standings::{Standing, StandingsPage, standings, standings_csv};

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::auth::{AuthUser, Role};
use crate::error::{ApiError, ApiResult};
use crate::ledger::{self, Party, Reason, TxMeta};
use crate::matches::options::PlatformOptions;
use crate::matches::table::TournamentSeat;
use crate::matches::table::{NewTable, Table};
use crate::notices::{self, Notice, Via};
use bracket::{Contender, Format};

const MAX_FEE: i64 = 1_000_000_000;

/// A new knockout tournament (比赛场) of a game played by a fixed number of seats.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTournament {
    #[schema(value_type = crate::schema::TournamentGame)]
    pub game: String,
    #[schema(max_length = 100)]
    pub name: Option<String>,
    /// Coins each player pays at the start into the prize pool (奖池).
    #[schema(minimum = 0, maximum = 1_000_000_000)]
    pub entry_fee: i64,
    pub starts_at: DateTime<Utc>,
    /// Hands each table plays per round: at least the table size (4, or 3 for chehuzi: a round
    /// is never decided by one deal); default 10, the seed's 局.
    #[schema(minimum = 3, maximum = 100, default = 10)]
    pub hands_per_round: Option<u32>,
    /// The game's options plus `turn_timeout_secs`.
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
}

/// `PATCH /v1/tournaments/{id}`: any of the settings, before the start.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = TournamentEdit)]
pub struct EditTournament {
    #[schema(max_length = 100)]
    pub name: Option<String>,
    #[schema(minimum = 0, maximum = 1_000_000_000)]
    pub entry_fee: Option<i64>,
    pub starts_at: Option<DateTime<Utc>>,
    #[schema(minimum = 3, maximum = 100)]
    pub hands_per_round: Option<u32>,
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
}

/// A tournament as the list shows it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TournamentSummary {
    id: Uuid,
    name: String,
    #[schema(value_type = crate::schema::TournamentGame)]
    game: String,
    #[schema(value_type = TournamentStatus)]
    status: String,
    entry_fee: i64,
    starts_at: DateTime<Utc>,
    hands_per_round: i32,
    #[schema(value_type = Object)]
    options: Value,
    /// 奖池总数: the entry fees paid.
    prize_pool: i64,
    /// The round being played (0 before the start).
    round: i32,
    /// The first of `winners`.
    winner: Option<Uuid>,
    /// The final's winners: one player, or the pair of fixed partners (升级) who share the pool.
    winners: Vec<Uuid>,
    created_by: Uuid,
    created_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    finished_at: Option<DateTime<Utc>>,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    Registering,
    Running,
    Finished,
    Cancelled,
}

/// A tournament with its players and bracket.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Tournament)]
pub struct TournamentDetail {
    #[serde(flatten)]
    summary: TournamentSummary,
    players: Vec<TournamentPlayer>,
    bracket: Bracket,
    /// Players who advance from each table: 2 for a game with fixed partners (升级: the
    /// winning pair), else 1.
    #[schema(minimum = 1, maximum = 2)]
    advance_per_table: usize,
    /// How many players the field keeps: before the start, of those registered now (the
    /// largest 4^k, 3^k for chehuzi, or 4·2^k for 升级's pairs, not above the registrations:
    /// the latest registrants beyond it are left out and pay nothing); after it, the field.
    field_size: usize,
}

impl TournamentDetail {
    pub fn id(&self) -> Uuid {
        self.summary.id
    }
}

/// A registered player.
#[derive(Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct TournamentPlayer {
    user_id: Uuid,
    username: String,
    /// Registration order, from 1.
    reg_no: i32,
    /// Whether the player is in the field (null before the start).
    in_field: Option<bool>,
    /// The round the player lost, if any.
    eliminated_round: Option<i32>,
    escaped: bool,
}

/// The rounds played so far.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Bracket {
    rounds: Vec<BracketRound>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct BracketRound {
    round: i32,
    tables: Vec<BracketTable>,
}

/// One table of a round: an ordinary match owned by the tournament.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BracketTable {
    table_no: i32,
    match_id: Uuid,
    #[schema(value_type = crate::matches::table::Status)]
    status: String,
    seats: Vec<BracketSeat>,
    /// The first of `advancers`.
    advanced: Option<Uuid>,
    /// Who advanced: one player, or the winning pair.
    advancers: Vec<Uuid>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct BracketSeat {
    seat: usize,
    user_id: Uuid,
    username: Option<String>,
    /// The table's score (积分) of this seat in the round.
    score: i64,
}

/// One page of tournaments, latest start first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct TournamentPage {
    tournaments: Vec<TournamentSummary>,
    /// More tournaments below this page.
    has_more: bool,
    /// Pass as `before` for the next page; null on the last.
    next_before: Option<String>,
}

/// A registration for a tournament.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Registration {
    tournament_id: Uuid,
    user_id: Uuid,
    /// Registration order, from 1: earlier registrants keep their place in a full field.
    reg_no: i32,
}

/// A position in the list (newest start first): the start time and id of the last row shown.
fn cursor(t: &TournamentRow) -> String {
    crate::cursor::encode(t.starts_at, t.id)
}

#[derive(sqlx::FromRow)]
struct TournamentRow {
    id: Uuid,
    name: String,
    game: String,
    entry_fee: i64,
    starts_at: DateTime<Utc>,
    hands_per_round: i32,
    options: Value,
    status: String,
    seed: Vec<u8>,
    prize_pool: i64,
    round: i32,
    winner: Option<Uuid>,
    /// The final's winners: one player, or a pair of fixed partners.
    winners: Option<Vec<Uuid>>,
    created_by: Uuid,
    created_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    finished_at: Option<DateTime<Utc>>,
}

impl TournamentRow {
    fn summary(&self) -> TournamentSummary {
        TournamentSummary {
            id: self.id,
            name: self.name.clone(),
            game: self.game.clone(),
            status: self.status.clone(),
            entry_fee: self.entry_fee,
            starts_at: self.starts_at,
            hands_per_round: self.hands_per_round,
            options: self.options.clone(),
            prize_pool: self.prize_pool,
            round: self.round,
            winner: self.winner,
            winners: self.winners.clone().unwrap_or_default(),
            created_by: self.created_by,
            created_at: self.created_at,
            started_at: self.started_at,
            finished_at: self.finished_at,
        }
    }
}

const SELECT_TOURNAMENT: &str = "SELECT id, name, game, entry_fee, starts_at, hands_per_round,
    options, status, seed, prize_pool, round, winner, winners, created_by, created_at, started_at,
    finished_at FROM tournaments";

async fn load(conn: &mut PgConnection, id: Uuid, lock: bool) -> ApiResult<TournamentRow> {
    let query = if lock {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{SELECT_TOURNAMENT} WHERE id = $1 FOR UPDATE"
        )))
    } else {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{SELECT_TOURNAMENT} WHERE id = $1"
        )))
    };
    query
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no tournament with id {id}")))
}

/// A round's hands: enough for any game's 局, few enough that a table of absent players
/// (paced at one hand per turn time) still ends its round in reasonable time.
const MAX_HANDS_PER_ROUND: u32 = 100;
/// A round's hands when the organiser does not say: the seed's 局 (金币场: 10把为一局).
pub const DEFAULT_HANDS_PER_ROUND: u32 = 10;

/// A tournament's settings, checked: what creating and editing it share.
struct Settings {
    game: &'static dyn games::DynGame,
    name: String,
    entry_fee: i64,
    starts_at: DateTime<Utc>,
    hands_per_round: u32,
    /// The game's options completed, with `turn_timeout_secs`.
    options: Value,
}

fn check_settings(req: CreateTournament) -> ApiResult<Settings> {
    let game = crate::matches::game_named(&req.game)?;
    let Some(format) = Format::of(game) else {
        return Err(ApiError::Validation(format!(
            "tournaments need a game played by a fixed number of seats; {} seats {} to {}",
            game.name(),
            game.seats().start(),
            game.seats().end()
        )));
    };
    if !(0..=MAX_FEE).contains(&req.entry_fee) {
        return Err(ApiError::Validation(format!(
            "entry_fee must be from 0 to {MAX_FEE}, got {}",
            req.entry_fee
        )));
    }
    let table_size = format.table_size;
    // Never one deal decides a round: at least as many hands as seats (rulings 7).
    let hands_per_round = req.hands_per_round.unwrap_or(DEFAULT_HANDS_PER_ROUND);
    if !(table_size as u32..=MAX_HANDS_PER_ROUND).contains(&hands_per_round) {
        return Err(ApiError::Validation(format!(
            "hands_per_round must be from {table_size} (the table size: a round is never \
             decided by one deal) to {MAX_HANDS_PER_ROUND}, got {hands_per_round}"
        )));
    }
    let now = Utc::now();
    let earliest = now - chrono::Duration::days(1);
    let latest = now + chrono::Duration::days(366);
    if !(earliest..=latest).contains(&req.starts_at) {
        return Err(ApiError::Validation(format!(
            "starts_at must be between {} and {} (a time already past starts the tournament \
             at once), got {}",
            earliest.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            latest.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            req.starts_at
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        )));
    }
    let name = req
        .name
        .unwrap_or_else(|| format!("{} knockout", game.name()));
    if name.is_empty() || name.chars().count() > 100 {
        return Err(ApiError::Validation(
            "name must be 1 to 100 characters".into(),
        ));
    }
    let (platform, raw) = PlatformOptions::split(req.options.as_ref())?;
    if platform.hands.is_some() || platform.room.is_some() {
        return Err(ApiError::Validation(
            "tournament options take turn_timeout_secs and the game's options; hands come from \
             hands_per_round and tournaments are not coin rooms"
                .into(),
        ));
    }
    let game_options = game.options(table_size, &raw)?;
    let mut stored = game_options.as_object().cloned().unwrap_or_default();
    stored.insert(
        "turn_timeout_secs".into(),
        platform.turn_timeout_secs.into(),
    );
    Ok(Settings {
        game,
        name,
        entry_fee: req.entry_fee,
        starts_at: req.starts_at,
        hands_per_round,
        options: Value::Object(stored),
    })
}

pub async fn create(
    pool: &PgPool,
    user: &AuthUser,
    req: CreateTournament,
) -> ApiResult<TournamentDetail> {
    user.require(&mut *pool.acquire().await?, Role::Organiser)
        .await?;
    let Settings {
        game,
        name,
        entry_fee,
        starts_at,
        hands_per_round,
        options,
    } = check_settings(req)?;
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("OS randomness: {e}")))?;
    let id = Uuid::new_v4();
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO tournaments (id, name, game, entry_fee, starts_at, hands_per_round, options,
                                  status, seed, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'registering', $8, $9)",
    )
    .bind(id)
    .bind(&name)
    .bind(game.name())
    .bind(entry_fee)
    .bind(starts_at)
    .bind(hands_per_round as i32)
    .bind(&options)
    .bind(seed.to_vec())
    .bind(user.id)
    .execute(&mut *tx)
    .await?;
    sqlx::query("INSERT INTO accounts (kind, tournament_id) VALUES ('escrow', $1)")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let body = detail(&mut tx, id).await?;
    tx.commit().await?;
    tracing::info!(tournament_id = %id, game = game.name(), "tournament created");
    Ok(body)
}

pub async fn list(pool: &PgPool, q: &crate::cursor::ListQuery) -> ApiResult<TournamentPage> {
    if let Some(s) = &q.status
        && !["registering", "running", "finished", "cancelled"].contains(&s.as_str())
    {
        return Err(ApiError::Validation(format!(
            "status must be registering, running, finished or cancelled, got {s:?}"
        )));
    }
    let limit = crate::cursor::limit(q.limit, 50, 200)?;
    let before = q.before.as_deref().map(crate::cursor::decode).transpose()?;
    let rows: Vec<TournamentRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_TOURNAMENT} WHERE ($1::text IS NULL OR status = $1)
            AND ($2::text IS NULL OR game = $2)
            AND ($3::timestamptz IS NULL OR (starts_at, id) < ($3, $4))
          ORDER BY starts_at DESC, id DESC LIMIT $5"
    )))
    .bind(&q.status)
    .bind(&q.game)
    .bind(before.map(|b| b.0))
    .bind(before.map(|b| b.1))
    .bind(limit + 1)
    .fetch_all(pool)
    .await?;
    let (rows, next_before) = crate::cursor::page(rows, limit, cursor);
    Ok(TournamentPage {
        tournaments: rows.iter().map(TournamentRow::summary).collect(),
        has_more: next_before.is_some(),
        next_before,
    })
}

async fn players(conn: &mut PgConnection, id: Uuid) -> ApiResult<Vec<TournamentPlayer>> {
    Ok(sqlx::query_as(
        "SELECT p.user_id, u.username, p.reg_no, p.in_field, p.eliminated_round, p.escaped
           FROM tournament_players p JOIN users u ON u.id = p.user_id
          WHERE p.tournament_id = $1 ORDER BY p.reg_no",
    )
    .bind(id)
    .fetch_all(conn)
    .await?)
}

#[derive(sqlx::FromRow)]
struct TableRow {
    round: i32,
    table_no: i32,
    match_id: Uuid,
    players: Vec<Uuid>,
    scores: Option<Vec<i64>>,
    /// Who advanced: one player, or a pair of fixed partners.
    advancers: Option<Vec<Uuid>>,
    match_status: String,
}

async fn tables(conn: &mut PgConnection, id: Uuid) -> ApiResult<Vec<TableRow>> {
    Ok(sqlx::query_as(
        "SELECT tt.round, tt.table_no, tt.match_id, tt.players, tt.scores, tt.advancers,
                m.status AS match_status
           FROM tournament_tables tt JOIN matches m ON m.id = tt.match_id
          WHERE tt.tournament_id = $1 ORDER BY tt.round, tt.table_no",
    )
    .bind(id)
    .fetch_all(conn)
    .await?)
}

/// Points each player has made at each table so far (for tables still being played).
async fn live_scores(conn: &mut PgConnection, id: Uuid) -> ApiResult<HashMap<(Uuid, Uuid), i64>> {
    let rows: Vec<(Uuid, Uuid, i64)> = sqlx::query_as(
        "SELECT e.match_id, e.user_id, sum(e.delta)::bigint FROM score_entries e
           JOIN tournament_tables tt ON tt.match_id = e.match_id
          WHERE tt.tournament_id = $1 GROUP BY e.match_id, e.user_id",
    )
    .bind(id)
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().map(|(m, u, s)| ((m, u), s)).collect())
}

fn table_scores(t: &TableRow, live: &HashMap<(Uuid, Uuid), i64>) -> Vec<i64> {
    t.scores.clone().unwrap_or_else(|| {
        t.players
            .iter()
            .map(|u| live.get(&(t.match_id, *u)).copied().unwrap_or(0))
            .collect()
    })
}

pub async fn detail(conn: &mut PgConnection, id: Uuid) -> ApiResult<TournamentDetail> {
    let t = load(conn, id, false).await?;
    let players = players(conn, id).await?;
    let tables = tables(conn, id).await?;
    let live = live_scores(conn, id).await?;
    let names: HashMap<Uuid, &str> = players
        .iter()
        .map(|p| (p.user_id, p.username.as_str()))
        .collect();
    let rounds = (1..=t.round)
        .map(|r| BracketRound {
            round: r,
            tables: tables
                .iter()
                .filter(|x| x.round == r)
                .map(|x| {
                    let scores = table_scores(x, &live);
                    BracketTable {
                        table_no: x.table_no,
                        match_id: x.match_id,
                        status: x.match_status.clone(),
                        seats: x
                            .players
                            .iter()
                            .enumerate()
                            .map(|(seat, u)| BracketSeat {
                                seat,
                                user_id: *u,
                                username: names.get(u).map(|n| n.to_string()),
                                score: scores[seat],
                            })
                            .collect(),
                        advanced: x.advancers.as_ref().and_then(|a| a.first().copied()),
                        advancers: x.advancers.clone().unwrap_or_default(),
                    }
                })
                .collect(),
        })
        .collect();
    // How many players the field keeps: before the start, of those registered now (the latest
    // registrants beyond it are left out, and so are those who cannot pay at the start); after
    // it, the field itself.
    let format = format_of(&t.game)?;
    let field_size = if t.status == "registering" {
        format.field_size(players.len())
    } else {
        players.iter().filter(|p| p.in_field == Some(true)).count()
    };
    Ok(TournamentDetail {
        summary: t.summary(),
        players,
        bracket: Bracket { rounds },
        advance_per_table: format.advance,
        field_size,
    })
}

pub async fn get(pool: &PgPool, id: Uuid) -> ApiResult<TournamentDetail> {
    let mut conn = pool.acquire().await?;
    detail(&mut conn, id).await
}

pub async fn register(pool: &PgPool, user: &AuthUser, id: Uuid) -> ApiResult<Registration> {
    let mut tx = pool.begin().await?;
    let t = load(&mut tx, id, true).await?;
    if t.status != "registering" {
        return Err(ApiError::Conflict(format!(
            "registration is closed: the tournament is {}",
            t.status
        )));
    }
    let already: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM tournament_players WHERE tournament_id = $1 AND user_id = $2)",
    )
    .bind(id)
    .bind(user.id)
    .fetch_one(&mut *tx)
    .await?;
    if already {
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
    let reg_no: i32 = sqlx::query_scalar(
        "INSERT INTO tournament_players (tournament_id, user_id, reg_no)
         SELECT $1, $2, COALESCE(max(reg_no), 0) + 1 FROM tournament_players
          WHERE tournament_id = $1
         RETURNING reg_no",
    )
    .bind(id)
    .bind(user.id)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Registration {
        tournament_id: id,
        user_id: user.id,
        reg_no,
    })
}

pub async fn withdraw(pool: &PgPool, user: &AuthUser, id: Uuid) -> ApiResult<()> {
    let mut tx = pool.begin().await?;
    let t = load(&mut tx, id, true).await?;
    if t.status != "registering" {
        return Err(ApiError::Conflict(format!(
            "the tournament is {}: withdrawing is only possible before the start",
            t.status
        )));
    }
    let gone =
        sqlx::query("DELETE FROM tournament_players WHERE tournament_id = $1 AND user_id = $2")
            .bind(id)
            .bind(user.id)
            .execute(&mut *tx)
            .await?;
    if gone.rows_affected() == 0 {
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
    let t = load(conn, id, true).await?;
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
    let settings = check_settings(CreateTournament {
        game: t.game.clone(),
        name: Some(req.name.unwrap_or(t.name)),
        entry_fee: req.entry_fee.unwrap_or(t.entry_fee),
        starts_at: req.starts_at.unwrap_or(t.starts_at),
        hands_per_round: Some(req.hands_per_round.unwrap_or(t.hands_per_round as u32)),
        options: Some(req.options.unwrap_or(t.options)),
    })?;
    sqlx::query(
        "UPDATE tournaments SET name = $2, entry_fee = $3, starts_at = $4, hands_per_round = $5,
                                options = $6
          WHERE id = $1",
    )
    .bind(id)
    .bind(&settings.name)
    .bind(settings.entry_fee)
    .bind(settings.starts_at)
    .bind(settings.hands_per_round as i32)
    .bind(&settings.options)
    .execute(&mut *tx)
    .await?;
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
        let field: Vec<Uuid> = sqlx::query_scalar(
            "SELECT user_id FROM tournament_players WHERE tournament_id = $1 AND in_field
              ORDER BY reg_no",
        )
        .bind(id)
        .fetch_all(&mut *tx)
        .await?;
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
        // Aborted tables take no more moves; the version step wakes their long-polls.
        sqlx::query(
            "UPDATE matches SET status = 'aborted', deadline_at = NULL, version = version + 1
              WHERE tournament_id = $1 AND status IN ('waiting', 'playing')",
        )
        .bind(id)
        .execute(&mut *tx)
        .await?;
    }
    sqlx::query(
        "UPDATE tournaments SET status = 'cancelled', finished_at = now(),
                                started_at = COALESCE(started_at, now())
          WHERE id = $1",
    )
    .bind(id)
    .execute(&mut *tx)
    .await?;
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

async fn start(conn: &mut PgConnection, mut t: TournamentRow) -> ApiResult<()> {
    let registered = players(conn, t.id).await?;
    let users: Vec<Uuid> = registered.iter().map(|p| p.user_id).collect();
    let balances = ledger::lock_balances(conn, &users).await?;
    // Registrants who can no longer pay the fee are passed over like late registrants.
    let able: Vec<&TournamentPlayer> = registered
        .iter()
        .zip(&balances)
        .filter(|(_, b)| **b >= t.entry_fee)
        .map(|(p, _)| p)
        .collect();
    let format = format_of(&t.game)?;
    let table_size = format.table_size;
    let field = format.field_size(able.len());
    let in_field: Vec<Uuid> = able.iter().take(field).map(|p| p.user_id).collect();
    sqlx::query(
        "UPDATE tournament_players SET in_field = (user_id = ANY($2)) WHERE tournament_id = $1",
    )
    .bind(t.id)
    .bind(&in_field)
    .execute(&mut *conn)
    .await?;
    if field == 0 {
        sqlx::query(
            "UPDATE tournaments SET status = 'cancelled', started_at = now(), finished_at = now()
              WHERE id = $1",
        )
        .bind(t.id)
        .execute(&mut *conn)
        .await?;
        tracing::info!(tournament_id = %t.id, registered = registered.len(), table_size, "tournament cancelled: too few players for one table");
        return Ok(());
    }
    let pool_total = t.entry_fee * field as i64;
    let meta = TxMeta {
        reason: Reason::TournamentFee,
        tournament_id: Some(t.id),
        ..TxMeta::default()
    };
    let mut legs: Vec<(Party, i64)> = in_field
        .iter()
        .map(|&u| (Party::User(u), -t.entry_fee))
        .collect();
    legs.push((Party::TournamentEscrow(t.id), pool_total));
    ledger::transfer(conn, &meta, &legs).await?;
    sqlx::query(
        "UPDATE tournaments SET status = 'running', started_at = now(), prize_pool = $2, round = 1
          WHERE id = $1",
    )
    .bind(t.id)
    .bind(pool_total)
    .execute(&mut *conn)
    .await?;
    t.prize_pool = pool_total;
    t.round = 1;
    let mut seed = [0u8; 32];
    seed.copy_from_slice(&t.seed[..32]);
    let mut order = in_field;
    games::shuffle::shuffle(&mut order, &seed);
    tracing::info!(tournament_id = %t.id, players = field, prize_pool = pool_total, "tournament started");
    seat_round(conn, &t, 1, &order).await
}

/// Seats `order` at tables of the game's size for `round` and deals.
async fn seat_round(
    conn: &mut PgConnection,
    t: &TournamentRow,
    round: i32,
    order: &[Uuid],
) -> ApiResult<()> {
    let game = games::game(&t.game).ok_or_else(|| {
        ApiError::Internal(anyhow::anyhow!("tournament of unknown game {}", t.game))
    })?;
    let format = format_of(&t.game)?;
    let (platform, game_options) = PlatformOptions::split(Some(&t.options))?;
    let names: HashMap<Uuid, String> =
        sqlx::query_as::<_, (Uuid, String)>("SELECT id, username FROM users WHERE id = ANY($1)")
            .bind(order)
            .fetch_all(&mut *conn)
            .await?
            .into_iter()
            .collect();
    // 托管 follows a player from table to table until they act again.
    let auto: Vec<Uuid> = sqlx::query_scalar(
        "SELECT s.user_id FROM match_seats s JOIN tournament_tables tt ON tt.match_id = s.match_id
          WHERE tt.tournament_id = $1 AND tt.round = $2 - 1 AND s.auto",
    )
    .bind(t.id)
    .bind(round)
    .fetch_all(&mut *conn)
    .await?;
    for (table_no, group) in order.chunks(format.table_size).enumerate() {
        // Partners (a pair advanced together) sit opposite.
        let group = &format.seating(group)[..];
        let mut table = Table::insert(
            conn,
            NewTable {
                game,
                seats: format.table_size,
                platform: PlatformOptions {
                    hands: Some(t.hands_per_round as u32),
                    ..platform.clone()
                },
                game_options: game_options.clone(),
                created_by: Some(t.created_by),
                tournament_id: Some(t.id),
                seed: None,
                deck: None,
            },
        )
        .await?;
        table.set_tournament(TournamentSeat {
            id: t.id,
            round,
            table_no: table_no as i32,
            prize_pool: t.prize_pool,
        });
        for (seat, user) in group.iter().enumerate() {
            let name = names.get(user).map_or("", String::as_str);
            table
                .seat_player(conn, seat, *user, name, Via::Tournament)
                .await?;
            if auto.contains(user) {
                table.put_in_auto(seat);
            }
        }
        table.advance(conn).await?;
        table.save(conn).await?;
        sqlx::query(
            "INSERT INTO tournament_tables (tournament_id, round, table_no, match_id, players)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(t.id)
        .bind(round)
        .bind(table_no as i32)
        .bind(table.id())
        .bind(group)
        .execute(&mut *conn)
        .await?;
        notices::push_many(
            conn,
            group,
            &Notice::TournamentTable {
                tournament_id: t.id,
                round,
                table_no: table_no as i32,
                match_id: table.id(),
            },
        )
        .await?;
    }
    Ok(())
}

/// The bracket format of a tournament's game.
fn format_of(game: &str) -> ApiResult<Format> {
    games::game(game).and_then(Format::of).ok_or_else(|| {
        ApiError::Internal(anyhow::anyhow!(
            "tournament of game {game}, which has no fixed table size"
        ))
    })
}

/// Closes a round whose tables have all finished: records scores, advances the winners (one
/// per table, or a pair of fixed partners), and seats the next round or pays the prize.
async fn close_round(conn: &mut PgConnection, t: TournamentRow) -> ApiResult<()> {
    let format = format_of(&t.game)?;
    let all = tables(conn, t.id).await?;
    let live = live_scores(conn, t.id).await?;
    let players = players(conn, t.id).await?;
    let info: HashMap<Uuid, &TournamentPlayer> = players.iter().map(|p| (p.user_id, p)).collect();
    let mut winners = Vec::new();
    for table in all.iter().filter(|x| x.round == t.round) {
        let scores = table_scores(table, &live);
        let contenders: Vec<Contender> = table
            .players
            .iter()
            .zip(&scores)
            .map(|(u, &score)| {
                let p = info.get(u);
                Contender {
                    score,
                    reg_no: p.map_or(i32::MAX, |p| p.reg_no),
                    escaped: p.is_some_and(|p| p.escaped),
                }
            })
            .collect();
        let advancing: Vec<Uuid> = format
            .advancers(&contenders)
            .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("empty tournament table")))?
            .into_iter()
            .map(|seat| table.players[seat])
            .collect();
        winners.extend(&advancing);
        sqlx::query(
            "UPDATE tournament_tables SET scores = $4, advanced = ($5::uuid[])[1], advancers = $5
              WHERE tournament_id = $1 AND round = $2 AND table_no = $3",
        )
        .bind(t.id)
        .bind(t.round)
        .bind(table.table_no)
        .bind(&scores)
        .bind(&advancing)
        .execute(&mut *conn)
        .await?;
        let losers: Vec<Uuid> = table
            .players
            .iter()
            .copied()
            .filter(|u| !advancing.contains(u))
            .collect();
        sqlx::query(
            "UPDATE tournament_players SET eliminated_round = $3
              WHERE tournament_id = $1 AND user_id = ANY($2) AND eliminated_round IS NULL",
        )
        .bind(t.id)
        .bind(&losers)
        .bind(t.round)
        .execute(&mut *conn)
        .await?;
        // Escapers were told when they escaped.
        let lost: Vec<Uuid> = losers
            .iter()
            .copied()
            .filter(|u| !info.get(u).is_some_and(|p| p.escaped))
            .collect();
        notices::push_many(
            conn,
            &lost,
            &Notice::Eliminated {
                tournament_id: t.id,
                round: t.round,
                escaped: false,
            },
        )
        .await?;
    }
    if winners.len() <= format.advance {
        return finish(conn, &t, &players, winners).await;
    }
    let next = t.round + 1;
    sqlx::query("UPDATE tournaments SET round = $2 WHERE id = $1")
        .bind(t.id)
        .bind(next)
        .execute(&mut *conn)
        .await?;
    tracing::info!(tournament_id = %t.id, round = next, players = winners.len(), "tournament round seated");
    seat_round(conn, &t, next, &winners).await
}

/// The final is over: its winners (one player, or a pair) share the pool equally, the earlier
/// registrant taking a coin that does not divide; an escaper among them takes no share
/// ([`bracket::prize_winners`]).
async fn finish(
    conn: &mut PgConnection,
    t: &TournamentRow,
    players: &[TournamentPlayer],
    mut winners: Vec<Uuid>,
) -> ApiResult<()> {
    let reg_no = |u: &Uuid| {
        players
            .iter()
            .find(|p| p.user_id == *u)
            .map_or(i32::MAX, |p| p.reg_no)
    };
    winners.sort_by_key(reg_no);
    let escaped = |u: &Uuid| players.iter().any(|p| p.user_id == *u && p.escaped);
    let winners =
        bracket::prize_winners(&winners.iter().map(|u| (*u, escaped(u))).collect::<Vec<_>>());
    if t.prize_pool > 0 {
        let meta = TxMeta {
            reason: Reason::TournamentPrize,
            tournament_id: Some(t.id),
            ..TxMeta::default()
        };
        let mut legs: Vec<(Party, i64)> = winners
            .iter()
            .zip(bracket::shares(t.prize_pool, winners.len()))
            .map(|(&u, share)| (Party::User(u), share))
            .collect();
        legs.push((Party::TournamentEscrow(t.id), -t.prize_pool));
        ledger::transfer(conn, &meta, &legs).await?;
    }
    sqlx::query(
        "UPDATE tournaments SET status = 'finished', winner = ($2::uuid[])[1], winners = $2,
                                finished_at = now()
          WHERE id = $1",
    )
    .bind(t.id)
    .bind(&winners)
    .execute(&mut *conn)
    .await?;
    let field: Vec<Uuid> = players
        .iter()
        .filter(|p| p.in_field == Some(true))
        .map(|p| p.user_id)
        .collect();
    notices::push_many(
        conn,
        &field,
        &Notice::TournamentFinished {
            tournament_id: t.id,
            winners: winners.clone(),
        },
    )
    .await?;
    tracing::info!(tournament_id = %t.id, winners = ?winners, prize = t.prize_pool, "tournament finished");
    Ok(())
}

/// One pass of the tournament driver (run by every server process's sweeper): starts due
/// tournaments and closes finished rounds. Returns how many steps it took.
pub async fn tick(pool: &PgPool) -> ApiResult<usize> {
    let mut steps = 0;
    loop {
        let mut tx = pool.begin().await?;
        let due: Option<Uuid> = sqlx::query_scalar(
            "SELECT id FROM tournaments WHERE status = 'registering' AND starts_at <= now()
              ORDER BY starts_at LIMIT 1 FOR UPDATE SKIP LOCKED",
        )
        .fetch_optional(&mut *tx)
        .await?;
        let Some(id) = due else { break };
        let t = load(&mut tx, id, true).await?;
        start(&mut tx, t).await?;
        tx.commit().await?;
        steps += 1;
    }
    loop {
        let mut tx = pool.begin().await?;
        let ready: Option<Uuid> = sqlx::query_scalar(
            "SELECT t.id FROM tournaments t
              WHERE t.status = 'running'
                AND NOT EXISTS (SELECT 1 FROM tournament_tables tt JOIN matches m ON m.id = tt.match_id
                                 WHERE tt.tournament_id = t.id AND tt.round = t.round
                                   AND m.status NOT IN ('finished', 'aborted'))
              LIMIT 1 FOR UPDATE OF t SKIP LOCKED",
        )
        .fetch_optional(&mut *tx)
        .await?;
        let Some(id) = ready else { break };
        let t = load(&mut tx, id, true).await?;
        close_round(&mut tx, t).await?;
        tx.commit().await?;
        steps += 1;
    }
    Ok(steps)
}
