//! Loading a match row (locked or not), and inserting a new one.

use std::sync::LazyLock;

use super::*;

const LOAD_SQL: &str = "
SELECT m.id, m.game, m.seats, m.options, m.status, m.version, m.last_seq, m.action_no,
       m.state, m.deadline_at, m.tournament_id, m.fixed_seed, m.fixed_deck,
       m.commitment, m.last_result,
       COALESCE((SELECT json_agg(json_build_object('seat', s.seat, 'user_id', s.user_id,
                                 'username', u.username, 'auto', s.auto,
                                 'timeouts', s.timeouts, 'bot', u.bot) ORDER BY s.seat)
                   FROM match_seats s JOIN users u ON u.id = s.user_id
                  WHERE s.match_id = m.id), '[]'::json)::jsonb AS seat_rows,
       (SELECT json_build_object('id', tt.tournament_id, 'round', tt.round,
                                 'table_no', tt.table_no, 'prize_pool', t.prize_pool)::jsonb
          FROM tournament_tables tt JOIN tournaments t ON t.id = tt.tournament_id
         WHERE tt.match_id = m.id) AS tournament,
       (SELECT h.users FROM hands h WHERE h.match_id = m.id
         ORDER BY h.hand_no DESC LIMIT 1) AS dealt_in";

/// Column positions in `LOAD_SQL` and its tails.
mod col {
    pub const ID: usize = 0;
    pub const GAME: usize = 1;
    pub const SEATS: usize = 2;
    pub const OPTIONS: usize = 3;
    pub const STATUS: usize = 4;
    pub const VERSION: usize = 5;
    pub const LAST_SEQ: usize = 6;
    pub const ACTION_NO: usize = 7;
    pub const STATE: usize = 8;
    pub const DEADLINE_AT: usize = 9;
    pub const TOURNAMENT_ID: usize = 10;
    pub const FIXED_SEED: usize = 11;
    pub const FIXED_DECK: usize = 12;
    pub const COMMITMENT: usize = 13;
    pub const LAST_RESULT: usize = 14;
    pub const SEAT_ROWS: usize = 15;
    pub const TOURNAMENT: usize = 16;
    pub const DEALT_IN: usize = 17;
    pub const SNAPSHOT_VERSION: usize = 18;
}

const UNLOCKED_TAIL: &str = " FROM matches m WHERE m.id = $1";
const LOCKED_TAIL: &str =
    ", (SELECT s.version FROM matches s WHERE s.id = m.id) AS snapshot_version
   FROM matches m WHERE m.id = $1 FOR UPDATE OF m";

/// The load of a match row with its seats, as it is read (`LOAD_SQL` and a tail).
pub(super) static LOAD_UNLOCKED: LazyLock<String> =
    LazyLock::new(|| format!("{LOAD_SQL}{UNLOCKED_TAIL}"));
pub(super) static LOAD_LOCKED: LazyLock<String> =
    LazyLock::new(|| format!("{LOAD_SQL}{LOCKED_TAIL}"));

async fn fetch(conn: &mut PgConnection, id: Uuid, sql: &'static str) -> Result<PgRow, ApiError> {
    sqlx::query(sql)
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no match with id {id}")))
}

impl Table {
    /// Loads a match as committed, without locking it (a read).
    pub async fn read(conn: &mut PgConnection, id: Uuid) -> Result<Table, ApiError> {
        Table::from_row(&fetch(conn, id, &LOAD_UNLOCKED).await?)
    }

    /// Loads a match and takes the row lock that serialises every change to one match.
    pub async fn lock(conn: &mut PgConnection, id: Uuid) -> Result<Table, ApiError> {
        Table::lock_reusing(conn, id, |_| None).await
    }

    /// [`Table::lock`], taking the table from `committed` (a copy this process holds parsed)
    /// when it has the locked row's version: a committed version's content never changes, so
    /// that saves decoding the row and parsing its state.
    pub async fn lock_reusing(
        conn: &mut PgConnection,
        id: Uuid,
        committed: impl Fn(i64) -> Option<Table>,
    ) -> Result<Table, ApiError> {
        // A statement that waited for the row lock sees the locked row as committed by the
        // lock's previous holder, but its sub-selects (the seats) still see the snapshot taken
        // before the wait. `snapshot_version` is the version in that snapshot: when it differs,
        // the row changed while we waited, and a second read (the lock is ours now, so it
        // cannot wait again) sees everything as committed.
        for fetched in 1..=2 {
            let row = fetch(conn, id, &LOAD_LOCKED).await?;
            let version: i64 = row.try_get(col::VERSION)?;
            if row.try_get::<Option<i64>, _>(col::SNAPSHOT_VERSION)? == Some(version) {
                let mut t = match committed(version) {
                    Some(t) => t,
                    None => Table::from_row(&row)?,
                };
                t.statements = fetched;
                return Ok(t);
            }
        }
        Err(ApiError::Conflict(
            "the match changed while loading; retry".into(),
        ))
    }

    pub(super) fn from_row(row: &PgRow) -> Result<Table, ApiError> {
        let id: Uuid = row.try_get(col::ID)?;
        let corrupt = |what: &str, e: String| {
            ApiError::Internal(anyhow::anyhow!("match {id}: stored {what} unreadable: {e}"))
        };
        let name: &str = row.try_get(col::GAME)?;
        let game =
            games::game(name).ok_or_else(|| corrupt("game", format!("unknown game {name}")))?;
        let state = game
            .load(row.try_get(col::STATE)?)
            .map_err(|e| corrupt("state", e))?;
        let options: Value = row.try_get(col::OPTIONS)?;
        let platform = PlatformOptions::from_stored(&options);
        let seat_count = row.try_get::<i32, _>(col::SEATS)? as usize;
        let rows: Json<Vec<SeatRow>> = row.try_get(col::SEAT_ROWS)?;
        let mut seats = vec![None; seat_count];
        for r in rows.0 {
            let i = r.seat;
            *seats
                .get_mut(i)
                .ok_or_else(|| corrupt("seats", format!("seat {i} of {seat_count}")))? = Some(r);
        }
        let fixed_deck = match row.try_get::<Option<Value>, _>(col::FIXED_DECK)? {
            Some(d) => Some(serde_json::from_value(d).map_err(|e| corrupt("deck", e.to_string()))?),
            None => None,
        };
        Ok(Table {
            id,
            game,
            seat_count,
            options: Stored::of(&options),
            platform,
            status: Status::parse(row.try_get(col::STATUS)?),
            version: row.try_get(col::VERSION)?,
            loaded_version: row.try_get(col::VERSION)?,
            last_seq: row.try_get(col::LAST_SEQ)?,
            action_no: row.try_get(col::ACTION_NO)?,
            state,
            deadline_at: row.try_get(col::DEADLINE_AT)?,
            tournament_id: row.try_get(col::TOURNAMENT_ID)?,
            tournament: row
                .try_get::<Option<Json<TournamentSeat>>, _>(col::TOURNAMENT)?
                .map(|t| t.0),
            fixed_seed: row.try_get(col::FIXED_SEED)?,
            fixed_deck,
            commitment: row.try_get(col::COMMITMENT)?,
            last_result: row
                .try_get::<Option<Value>, _>(col::LAST_RESULT)?
                .as_ref()
                .map(Stored::of),
            seats,
            dealt_in: row
                .try_get::<Option<Vec<Uuid>>, _>(col::DEALT_IN)?
                .map(|users| users.into_iter().map(Some).collect())
                .unwrap_or_default(),
            now: clock(),
            entropy: fresh_entropy()?,
            reads: None,
            known: None,
            assumed: None,
            pending: Pending::default(),
            statements: 0,
        })
    }
}

/// What a new match is made of, once validated.
pub struct NewTable {
    pub game: &'static dyn games::DynGame,
    pub seats: usize,
    pub platform: PlatformOptions,
    pub game_options: Value,
    pub created_by: Option<Uuid>,
    pub tournament_id: Option<Uuid>,
    pub seed: Option<games::shuffle::Seed>,
    pub deck: Option<Vec<Card>>,
}

impl Table {
    /// Inserts the match row and its escrow account and returns it loaded and locked.
    pub async fn insert(conn: &mut PgConnection, new: NewTable) -> Result<Table, ApiError> {
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
        let mut t = Table::lock(conn, id).await?;
        t.note(None, events::Created { by: new.created_by });
        Ok(t)
    }
}
