//! Loading a match row (locked or not) and saving a transaction's changes in one statement.

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
         WHERE tt.match_id = m.id) AS tournament";

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
    pub const SNAPSHOT_VERSION: usize = 17;
}

const UNLOCKED_TAIL: &str = " FROM matches m WHERE m.id = $1";
const LOCKED_TAIL: &str =
    ", (SELECT s.version FROM matches s WHERE s.id = m.id) AS snapshot_version
   FROM matches m WHERE m.id = $1 FOR UPDATE OF m";

async fn fetch(conn: &mut PgConnection, id: Uuid, tail: &str) -> Result<PgRow, ApiError> {
    // Built from constants only.
    sqlx::query(sqlx::AssertSqlSafe(format!("{LOAD_SQL}{tail}")))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no match with id {id}")))
}

impl Table {
    /// Loads a match as committed, without locking it (a read).
    pub async fn read(conn: &mut PgConnection, id: Uuid) -> Result<Table, ApiError> {
        Table::from_row(&fetch(conn, id, UNLOCKED_TAIL).await?)
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
            let row = fetch(conn, id, LOCKED_TAIL).await?;
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
            options,
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
            last_result: row.try_get(col::LAST_RESULT)?,
            seats,
            now: Utc::now(),
            events: Vec::new(),
            actions: Vec::new(),
            dirty_seats: Vec::new(),
            statements: 0,
        })
    }

    /// Writes the state, events, actions and seat flags in one statement (one round trip),
    /// over the version the table was loaded at. Call once, at the end of the transaction's
    /// work: the transaction holds the row lock, so the row cannot have moved, and a row that
    /// did is an error (nothing is written), never a silent overwrite.
    pub async fn save(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        if self.save_over_loaded(conn, None).await? {
            return Ok(());
        }
        Err(ApiError::Internal(anyhow::anyhow!(
            "match {}: the row left version {} under this transaction's lock",
            self.id,
            self.loaded_version
        )))
    }

    /// The one statement of a move (`Runtime`'s fast path, and [`Table::save`]): the match
    /// row is updated only `WHERE version = loaded_version`, and every other write (events,
    /// actions, seat flags, the idempotent answer `keyed`) joins that update's result, so when
    /// the row has moved on nothing at all is written. `false`: the row was no longer at the
    /// loaded version (another process moved first). The table keeps its changes either way;
    /// after `false` it must be dropped.
    pub async fn save_over_loaded(
        &mut self,
        conn: &mut PgConnection,
        keyed: Option<Keyed<'_>>,
    ) -> Result<bool, sqlx::Error> {
        let first_seq = self.last_seq + 1;
        self.last_seq += self.events.len() as i64;
        let first_action = self.action_no + 1;
        self.action_no += self.actions.len() as i64;
        let events = std::mem::take(&mut self.events);
        let actions = std::mem::take(&mut self.actions);
        let seat_updates: Vec<&SeatRow> = std::mem::take(&mut self.dirty_seats)
            .into_iter()
            .filter_map(|i| self.seats[i].as_ref())
            .collect();
        // unnest cannot take an array of arrays of different lengths: each event's visibility
        // list travels as JSON and is expanded in SQL.
        let vis: Vec<Option<Value>> = events
            .iter()
            .map(|e| e.visible_to.as_ref().map(|v| json!(v)))
            .collect();
        let state_text = self.state.save();
        let hit: i64 = sqlx::query_scalar(
            "WITH m AS (
                 UPDATE matches SET state = $2, version = $3, last_seq = $4,
                        action_no = $5, status = $6, deadline_at = $7, commitment = $8,
                        last_result = $9, to_act = $26, hand_no = $27, updated_at = now()
                  WHERE id = $1 AND version = $28
              RETURNING id),
             e AS (
                 INSERT INTO match_events (match_id, seq, hand_no, kind, seat, data,
                                           visible_to, at)
                 SELECT $1, e.seq, e.hand_no, e.kind, e.seat, e.data,
                        CASE WHEN e.vis IS NULL THEN NULL
                             ELSE ARRAY(SELECT jsonb_array_elements_text(e.vis)::uuid) END,
                        $10
                   FROM m, unnest($11::bigint[], $12::int[], $13::text[], $14::int[],
                                  $15::jsonb[], $16::jsonb[])
                        AS e(seq, hand_no, kind, seat, data, vis)),
             a AS (
                 INSERT INTO match_actions (match_id, n, hand_no, seat, kind, action, now_ms)
                 SELECT $1, x.* FROM m, unnest($17::bigint[], $18::int[], $19::int[],
                                               $20::text[], $21::jsonb[], $22::bigint[])
                        AS x(n, hand_no, seat, kind, action, now_ms)),
             s AS (
                 UPDATE match_seats ms SET auto = v.auto, timeouts = v.timeouts
                   FROM m, unnest($23::int[], $24::bool[], $25::int[])
                        AS v(seat, auto, timeouts)
                  WHERE ms.match_id = m.id AND ms.seat = v.seat),
             k AS (
                 INSERT INTO idempotency (user_id, key, request, status, body)
                 SELECT $29::uuid, $30::text, $31::jsonb, 200, $32::jsonb
                   FROM m WHERE $30::text IS NOT NULL)
             SELECT count(*) FROM m",
        )
        .bind(self.id)
        .bind(&state_text)
        .bind(self.version)
        .bind(self.last_seq)
        .bind(self.action_no)
        .bind(self.status.as_str())
        .bind(self.deadline_at)
        .bind(&self.commitment)
        .bind(&self.last_result)
        .bind(self.now)
        .bind((first_seq..).take(events.len()).collect::<Vec<i64>>())
        .bind(events.iter().map(|e| e.hand_no).collect::<Vec<i32>>())
        .bind(
            events
                .iter()
                .map(|e| e.kind.as_str())
                .collect::<Vec<&str>>(),
        )
        .bind(events.iter().map(|e| e.seat).collect::<Vec<Option<i32>>>())
        .bind(events.iter().map(|e| &e.data).collect::<Vec<&Value>>())
        .bind(&vis)
        .bind((first_action..).take(actions.len()).collect::<Vec<i64>>())
        .bind(actions.iter().map(|a| a.hand_no).collect::<Vec<i32>>())
        .bind(actions.iter().map(|a| a.seat).collect::<Vec<i32>>())
        .bind(actions.iter().map(|a| a.kind).collect::<Vec<&str>>())
        .bind(
            actions
                .iter()
                .map(|a| &a.action)
                .collect::<Vec<&Option<Value>>>(),
        )
        .bind(actions.iter().map(|a| a.now_ms).collect::<Vec<i64>>())
        .bind(
            seat_updates
                .iter()
                .map(|s| s.seat as i32)
                .collect::<Vec<i32>>(),
        )
        .bind(seat_updates.iter().map(|s| s.auto).collect::<Vec<bool>>())
        .bind(
            seat_updates
                .iter()
                .map(|s| s.timeouts)
                .collect::<Vec<i32>>(),
        )
        .bind(
            self.to_act()
                .into_iter()
                .map(|s| s as i32)
                .collect::<Vec<i32>>(),
        )
        .bind(self.hand_no())
        .bind(self.loaded_version)
        .bind(keyed.as_ref().map(|k| k.user))
        .bind(keyed.as_ref().map(|k| k.key))
        .bind(keyed.as_ref().map(|k| k.request))
        .bind(keyed.as_ref().map(|k| k.body))
        .fetch_one(&mut *conn)
        .await?;
        self.statements += 1;
        if hit == 1 {
            self.loaded_version = self.version;
        }
        Ok(hit == 1)
    }
}

/// An Idempotency-Key's row written by the move's own statement: the key, the request it
/// names, and the answer (status 200) to replay.
pub struct Keyed<'a> {
    pub user: Uuid,
    pub key: &'a str,
    pub request: &'a Value,
    pub body: &'a Value,
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
        t.platform_event("created", None, json!({ "by": new.created_by }));
        Ok(t)
    }
}
