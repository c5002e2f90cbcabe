//! Loading a match row (locked or not) and saving a transaction's changes in one statement.

use std::sync::{LazyLock, OnceLock};

use crate::ledger::{STAKE_CTES, shift_params};

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
         ORDER BY h.hand_no DESC LIMIT 1) AS dealt_in,
       (SELECT json_build_object(
                   'wallets', COALESCE(json_agg(COALESCE(a.balance, 0) ORDER BY s.seat), '[]'),
                   'scores', COALESCE(json_agg(COALESCE(sc.points, 0) ORDER BY s.seat), '[]')
               )::jsonb
          FROM match_seats s LEFT JOIN accounts a ON a.user_id = s.user_id
          LEFT JOIN scores sc ON sc.user_id = s.user_id AND sc.game = m.game
         WHERE s.match_id = m.id) AS purse";

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
    pub const PURSE: usize = 18;
    pub const SNAPSHOT_VERSION: usize = 19;
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
        // The wallets and 积分 of a full table's players, by seat, as the load read them.
        let purse = match row.try_get::<Option<Json<Purse>>, _>(col::PURSE)? {
            Some(Json(p)) if seats.iter().all(Option::is_some) && p.wallets.len() == seat_count => {
                Some(p)
            }
            _ => None,
        };
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
            dealt_in: row
                .try_get::<Option<Vec<Uuid>>, _>(col::DEALT_IN)?
                .map(|users| users.into_iter().map(Some).collect())
                .unwrap_or_default(),
            now: Utc::now(),
            events: Vec::new(),
            actions: Vec::new(),
            dirty_seats: Vec::new(),
            stakes: Vec::new(),
            ending: None,
            dealing: None,
            purse,
            statements: 0,
        })
    }

    /// Writes the state, events, actions and seat flags in one statement (one round trip),
    /// over the version the table was loaded at. Call once, at the end of the transaction's
    /// work: the transaction holds the row lock, so the row cannot have moved, and a row that
    /// did is an error (nothing is written), never a silent overwrite.
    pub async fn save(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        self.settle(conn).await?;
        if self.save_if_unmoved(conn, None).await? {
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
    /// loaded version (another process moved first), and the table must be dropped. On an
    /// error nothing was written and the table is unchanged.
    pub async fn save_if_unmoved(
        &mut self,
        conn: &mut PgConnection,
        keyed: Option<&Keyed>,
    ) -> Result<bool, sqlx::Error> {
        let hit = save_many(conn, &[(&*self, keyed)]).await? == [true];
        self.statements += 1;
        self.saved(hit);
        Ok(hit)
    }

    /// Logs what a save wrote (in the request's span, so with its request id): every move
    /// (a client's, a timeout's, 托管's or a bot's, with its action: stakes are actions), every
    /// stake the save's own statement moved, and the table's platform and money events —
    /// seats taken and left, 逃跑, timeouts, and each hand's settlement with its coins and 积分.
    fn log_saved(&self) {
        let game = self.game.name();
        for a in &self.actions {
            tracing::info!(match_id = %self.id, game, hand_no = a.hand_no, seat = a.seat,
                kind = a.kind, action = %a.action.as_ref().map_or(serde_json::Value::Null, Clone::clone),
                "move");
        }
        for s in &self.stakes {
            tracing::info!(match_id = %self.id, game, hand_no = s.hand_no, user_id = %s.user,
                amount = s.amount, "stake");
        }
        for e in &self.events {
            let kind = e.kind.as_str();
            if !matches!(
                kind,
                "hand_ended"
                    | "escaped"
                    | "left"
                    | "joined"
                    | "timeout"
                    | "auto"
                    | "resumed"
                    | "abandoned"
                    | "room_dissolved"
            ) {
                continue;
            }
            if kind == "hand_ended" {
                tracing::info!(match_id = %self.id, game, hand_no = e.hand_no,
                    coins = %e.data["coins"], points = %e.data["points"], "hand settled");
            } else {
                tracing::info!(match_id = %self.id, game, hand_no = e.hand_no, seat = e.seat,
                    kind, data = %e.data, "table event");
            }
        }
    }

    /// After the statement of [`save_many`] that carried this table: its changes are the
    /// row's now (`hit`), or were dropped because the row had moved on.
    pub fn saved(&mut self, hit: bool) {
        if hit {
            self.log_saved();
        }
        self.last_seq += self.events.len() as i64;
        self.action_no += self.actions.len() as i64;
        self.events.clear();
        self.actions.clear();
        self.dirty_seats.clear();
        self.stakes.clear();
        self.dealing = None;
        if hit {
            self.loaded_version = self.version;
        }
    }

    /// Adds this table's changes to the columns of a save statement.
    fn add_to<'a>(&'a self, c: &mut Columns<'a>, keyed: Option<&'a Keyed>) {
        let id = self.id;
        c.ids.push(id);
        c.loaded.push(self.loaded_version);
        c.states.push(self.state.save());
        c.versions.push(self.version);
        c.last_seqs.push(self.last_seq + self.events.len() as i64);
        c.action_nos
            .push(self.action_no + self.actions.len() as i64);
        c.statuses.push(self.status.as_str());
        c.deadlines.push(self.deadline_at);
        c.commitments.push(self.commitment.as_deref());
        c.last_results.push(self.last_result.as_ref());
        let to_act: Vec<String> = self.to_act().iter().map(|s| s.to_string()).collect();
        c.to_acts.push(format!("{{{}}}", to_act.join(",")));
        c.hand_nos.push(self.hand_no());
        c.to_act_hiddens.push(self.state.to_act_hidden());
        for (e, seq) in self.events.iter().zip(self.last_seq + 1..) {
            c.e_match.push(id);
            c.e_seq.push(seq);
            c.e_hand.push(e.hand_no);
            c.e_kind.push(&e.kind);
            c.e_seat.push(e.seat);
            c.e_data.push(&e.data);
            // unnest cannot take an array of arrays of different lengths: each event's
            // visibility list travels as JSON and is expanded in SQL.
            c.e_vis.push(e.visible_to.as_ref().map(|v| json!(v)));
            c.e_at.push(self.now);
        }
        for (a, n) in self.actions.iter().zip(self.action_no + 1..) {
            c.a_match.push(id);
            c.a_n.push(n);
            c.a_hand.push(a.hand_no);
            c.a_seat.push(a.seat);
            c.a_kind.push(a.kind);
            c.a_action.push(a.action.as_ref());
            c.a_now_ms.push(a.now_ms);
        }
        for s in self
            .dirty_seats
            .iter()
            .filter_map(|&i| self.seats[i].as_ref())
        {
            c.s_match.push(id);
            c.s_seat.push(s.seat as i32);
            c.s_auto.push(s.auto);
            c.s_timeouts.push(s.timeouts);
        }
        for st in &self.stakes {
            c.st_match.push(id);
            c.st_user.push(st.user);
            c.st_amount.push(st.amount);
            c.st_hand.push(st.hand_no);
        }
        if let Some(h) = &self.dealing {
            c.h_match.push(id);
            c.h_no.push(h.hand_no);
            c.h_seed.push(h.seed.as_deref());
            c.h_commitment.push(&h.commitment);
            c.h_deck.push(&h.deck);
            c.h_start_state.push(&h.start_state);
            c.h_wallets.push(json!(h.wallets));
            c.h_scores.push(json!(h.scores));
            c.h_start_ms.push(h.start_ms);
            c.h_users.push(json!(h.users));
        }
        match keyed {
            Some(k) if k.answered => {
                c.ka_match.push(id);
                c.ka_user.push(k.user);
                c.ka_key.push(&k.key);
                c.ka_body.push(&k.body);
            }
            Some(k) => {
                c.k_match.push(id);
                c.k_user.push(k.user);
                c.k_key.push(&k.key);
                c.k_request.push(&k.request);
                c.k_body.push(&k.body);
            }
            None => {}
        }
    }
}

/// An Idempotency-Key's row written by the move's own statement: the key, the request it
/// names, and the answer (status 200) to replay.
#[derive(Clone)]
pub struct Keyed {
    pub user: Uuid,
    pub key: String,
    pub request: Value,
    pub body: Value,
    /// The key's row was written by an earlier statement of the same move (the hand's end
    /// before its deal): only its answer is replaced.
    pub answered: bool,
}

/// The columns of one save statement: a row per table, event, action, changed seat and key.
#[derive(Default)]
pub(super) struct Columns<'a> {
    ids: Vec<Uuid>,
    loaded: Vec<i64>,
    states: Vec<String>,
    versions: Vec<i64>,
    last_seqs: Vec<i64>,
    action_nos: Vec<i64>,
    statuses: Vec<&'static str>,
    deadlines: Vec<Option<DateTime<Utc>>>,
    commitments: Vec<Option<&'a str>>,
    last_results: Vec<Option<&'a Value>>,
    to_acts: Vec<String>,
    hand_nos: Vec<i32>,
    to_act_hiddens: Vec<bool>,
    e_match: Vec<Uuid>,
    e_seq: Vec<i64>,
    e_hand: Vec<i32>,
    e_kind: Vec<&'a str>,
    e_seat: Vec<Option<i32>>,
    e_data: Vec<&'a Value>,
    e_vis: Vec<Option<Value>>,
    e_at: Vec<DateTime<Utc>>,
    a_match: Vec<Uuid>,
    a_n: Vec<i64>,
    a_hand: Vec<i32>,
    a_seat: Vec<i32>,
    a_kind: Vec<&'static str>,
    a_action: Vec<Option<&'a Value>>,
    a_now_ms: Vec<i64>,
    s_match: Vec<Uuid>,
    s_seat: Vec<i32>,
    s_auto: Vec<bool>,
    s_timeouts: Vec<i32>,
    k_match: Vec<Uuid>,
    k_user: Vec<Uuid>,
    k_key: Vec<&'a str>,
    k_request: Vec<&'a Value>,
    k_body: Vec<&'a Value>,
    st_match: Vec<Uuid>,
    st_user: Vec<Uuid>,
    st_amount: Vec<i64>,
    st_hand: Vec<i32>,
    h_match: Vec<Uuid>,
    h_no: Vec<i32>,
    h_seed: Vec<Option<&'a [u8]>>,
    h_commitment: Vec<&'a str>,
    h_deck: Vec<&'a Value>,
    h_start_state: Vec<&'a str>,
    h_wallets: Vec<Value>,
    h_scores: Vec<Value>,
    h_start_ms: Vec<i64>,
    h_users: Vec<Value>,
    ka_match: Vec<Uuid>,
    ka_user: Vec<Uuid>,
    ka_key: Vec<&'a str>,
    ka_body: Vec<&'a Value>,
}

/// The parts of a save statement ([`save_many`]), each with its parameters numbered from `$1`
/// ([`Columns::bind`] binds them in this order). `BASE_CTES`, always sent: `m` holds the id of
/// each match row updated (those still at their loaded version), and every other write joins
/// it. The others are sent only when some table of the statement has rows for them: an
/// `INSERT` or `UPDATE` that writes nothing still opens its table and indexes at every
/// execution (docs/performance.md § Only the parts a statement needs).
const BASE_CTES: &str = "

    v AS (
        SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::bigint[],
                             $5::bigint[], $6::bigint[], $7::text[], $8::timestamptz[],
                             $9::text[], $10::jsonb[], $11::text[], $12::int[], $13::bool[])
             AS v(id, loaded, state, version, last_seq, action_no, status, deadline_at,
                  commitment, last_result, to_act, hand_no, to_act_hidden) /*guard*/),
    m AS (
        UPDATE matches mm SET state = v.state, version = v.version,
               last_seq = v.last_seq, action_no = v.action_no, status = v.status,
               deadline_at = v.deadline_at, commitment = v.commitment,
               last_result = v.last_result, to_act = v.to_act::int[],
               to_act_hidden = v.to_act_hidden, hand_no = v.hand_no, updated_at = now()
          FROM v
         WHERE mm.id = v.id AND mm.version = v.loaded
     RETURNING mm.id),
    ev AS (
        INSERT INTO match_events (match_id, seq, hand_no, kind, seat, data, visible_to, at)
        SELECT x.match_id, x.seq, x.hand_no, x.kind, x.seat, x.data,
               CASE WHEN x.vis IS NULL THEN NULL
                    ELSE ARRAY(SELECT jsonb_array_elements_text(x.vis)::uuid) END,
               x.at
          FROM unnest($14::uuid[], $15::bigint[], $16::int[], $17::text[], $18::int[],
                      $19::jsonb[], $20::jsonb[], $21::timestamptz[])
               AS x(match_id, seq, hand_no, kind, seat, data, vis, at)
         WHERE x.match_id IN (SELECT id FROM m)),
    ac AS (
        INSERT INTO match_actions (match_id, n, hand_no, seat, kind, action, now_ms)
        SELECT x.* FROM unnest($22::uuid[], $23::bigint[], $24::int[], $25::int[],
                               $26::text[], $27::jsonb[], $28::bigint[])
               AS x(match_id, n, hand_no, seat, kind, action, now_ms)
         WHERE x.match_id IN (SELECT id FROM m))";

/// Seat flags (托管, timeouts in a row).
const SEAT_CTES: &str = "
    sf AS (
        UPDATE match_seats ms SET auto = x.auto, timeouts = x.timeouts
          FROM unnest($1::uuid[], $2::int[], $3::bool[], $4::int[])
               AS x(match_id, seat, auto, timeouts)
         WHERE ms.match_id = x.match_id AND ms.seat = x.seat
           AND x.match_id IN (SELECT id FROM m))";

/// Idempotency-Keys' rows with their answers.
const KEY_CTES: &str = "
    k AS (
        INSERT INTO idempotency (user_id, key, request, status, body)
        SELECT x.user_id, x.key, x.request, 200, x.body
          FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[], $5::jsonb[])
               AS x(match_id, user_id, key, request, body)
         WHERE x.match_id IN (SELECT id FROM m))";

/// The `hands` rows of hands dealt in memory.
const HAND_CTES: &str = "
    nh AS (
        INSERT INTO hands (match_id, hand_no, seed, commitment, deck, start_state, wallets,
                           scores, start_ms, users)
        SELECT x.match_id, x.hand_no, x.seed, x.commitment, x.deck, x.start_state::jsonb,
               x.wallets, x.scores, x.start_ms,
               ARRAY(SELECT jsonb_array_elements_text(x.users)::uuid)
          FROM unnest($1::uuid[], $2::int[], $3::bytea[], $4::text[], $5::jsonb[],
                      $6::text[], $7::jsonb[], $8::jsonb[], $9::bigint[], $10::jsonb[])
               AS x(match_id, hand_no, seed, commitment, deck, start_state, wallets, scores,
                    start_ms, users)
         WHERE x.match_id IN (SELECT id FROM m))";

/// Answers replacing the ones an earlier statement of the same move wrote.
const ANSWER_CTES: &str = "
    ka AS (
        UPDATE idempotency i SET body = x.body
          FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[])
               AS x(match_id, user_id, key, body)
         WHERE i.user_id = x.user_id AND i.key = x.key
           AND x.match_id IN (SELECT id FROM m))";

/// The optional parts, in the order their parameters follow `BASE_CTES`'s, with their
/// parameter counts.
const PART_CTES: [(&str, usize); PARTS] = [
    (SEAT_CTES, 4),
    (KEY_CTES, 5),
    (STAKE_CTES, 5),
    (HAND_CTES, 10),
    (ANSWER_CTES, 4),
];
const BASE_PARAMS: usize = 28;
/// Where a statement may add a condition on the rows of `v` (so on every write, all gated by
/// `m`): [`Table::end_if_unmoved`]'s check of the wallets a deal was made from.
pub(super) const GUARD_SLOT: &str = "/*guard*/";
/// How many optional parts there are.
pub(super) const PARTS: usize = 5;

/// The CTEs of a save statement with the optional parts in `mask` (bit i: `PART_CTES[i]`), and
/// its number of parameters; built once per mask.
pub(super) fn save_ctes(mask: usize) -> &'static (String, usize) {
    static BUILT: [OnceLock<(String, usize)>; 1 << PARTS] = [const { OnceLock::new() }; 1 << PARTS];
    BUILT[mask].get_or_init(|| {
        let mut ctes = BASE_CTES.to_string();
        let mut params = BASE_PARAMS;
        for (i, (part, n)) in PART_CTES.iter().enumerate() {
            if mask & (1 << i) != 0 {
                ctes.push_str(",\n");
                ctes.push_str(&shift_params(part, params));
                params += n;
            }
        }
        (ctes, params)
    })
}

impl<'a> Columns<'a> {
    /// The columns of `tables` in match id order, which the nested-loop plan of a short list
    /// locks in, so two statements rarely wait for each other's rows in a cycle.
    pub(super) fn of(tables: &[(&'a Table, Option<&'a Keyed>)]) -> Columns<'a> {
        let mut order: Vec<usize> = (0..tables.len()).collect();
        order.sort_by_key(|&i| tables[i].0.id);
        let mut c = Columns::default();
        for &i in &order {
            let (t, keyed) = tables[i];
            t.add_to(&mut c, keyed);
        }
        c
    }

    /// Which optional parts ([`PART_CTES`]) the statement needs: a bit per part with rows.
    pub(super) fn mask(&self) -> usize {
        [
            !self.s_match.is_empty(),
            !self.k_match.is_empty(),
            !self.st_match.is_empty(),
            !self.h_match.is_empty(),
            !self.ka_match.is_empty(),
        ]
        .iter()
        .enumerate()
        .map(|(i, &needed)| usize::from(needed) << i)
        .sum()
    }

    /// Binds the parameters of [`save_ctes`]`(self.mask())`, in order.
    pub(super) fn bind<'q>(&'q self, q: ledger::PgQuery<'q>) -> ledger::PgQuery<'q> {
        let mask = self.mask();
        let mut q = q
            .bind(&self.ids)
            .bind(&self.loaded)
            .bind(&self.states)
            .bind(&self.versions)
            .bind(&self.last_seqs)
            .bind(&self.action_nos)
            .bind(&self.statuses)
            .bind(&self.deadlines)
            .bind(&self.commitments)
            .bind(&self.last_results)
            .bind(&self.to_acts)
            .bind(&self.hand_nos)
            .bind(&self.to_act_hiddens)
            .bind(&self.e_match)
            .bind(&self.e_seq)
            .bind(&self.e_hand)
            .bind(&self.e_kind)
            .bind(&self.e_seat)
            .bind(&self.e_data)
            .bind(&self.e_vis)
            .bind(&self.e_at)
            .bind(&self.a_match)
            .bind(&self.a_n)
            .bind(&self.a_hand)
            .bind(&self.a_seat)
            .bind(&self.a_kind)
            .bind(&self.a_action)
            .bind(&self.a_now_ms);
        if mask & 1 != 0 {
            q = q
                .bind(&self.s_match)
                .bind(&self.s_seat)
                .bind(&self.s_auto)
                .bind(&self.s_timeouts);
        }
        if mask & 2 != 0 {
            q = q
                .bind(&self.k_match)
                .bind(&self.k_user)
                .bind(&self.k_key)
                .bind(&self.k_request)
                .bind(&self.k_body);
        }
        if mask & 4 != 0 {
            q = q
                .bind(&self.st_match)
                .bind(&self.st_user)
                .bind(&self.st_amount)
                .bind(&self.st_hand)
                .bind(Reason::Stake.as_str());
        }
        if mask & 8 != 0 {
            q = q
                .bind(&self.h_match)
                .bind(&self.h_no)
                .bind(&self.h_seed)
                .bind(&self.h_commitment)
                .bind(&self.h_deck)
                .bind(&self.h_start_state)
                .bind(&self.h_wallets)
                .bind(&self.h_scores)
                .bind(&self.h_start_ms)
                .bind(&self.h_users);
        }
        if mask & 16 != 0 {
            q = q
                .bind(&self.ka_match)
                .bind(&self.ka_user)
                .bind(&self.ka_key)
                .bind(&self.ka_body);
        }
        q
    }
}

/// [`save_many`]'s statement for the optional parts in `mask`.
pub(super) fn save_sql(mask: usize) -> &'static str {
    static SQL: [OnceLock<String>; 1 << PARTS] = [const { OnceLock::new() }; 1 << PARTS];
    SQL[mask].get_or_init(|| format!("WITH {} SELECT id FROM m", save_ctes(mask).0))
}

/// Saves the changes of several tables (of different matches) in ONE statement, each over the
/// version it was loaded at: a table's row is updated only `WHERE version = loaded_version`,
/// and its events, actions, seat flags, key row, stakes and the `hands` row of a hand it dealt
/// are written only when that update hit. A stake is a ledger transaction of its own (reason
/// `stake`, wallet → the match's escrow, both entries with their `balance_after`); the
/// accounts are locked in id order after the match rows, as every transfer locks them, and
/// each account's balance moves once by the sum of its legs (one user may stake at two tables
/// in one statement). One table that finds its row moved on leaves the others' saves whole.
/// Returns, in order, which tables were saved; the tables are not changed (each caller then
/// calls [`Table::saved`]). An error (an Idempotency-Key already used, a stake the wallet no
/// longer covers, a deadlock with another process's statement) writes nothing for any of
/// them. The rows go in match id order ([`Columns::of`]); PostgreSQL breaks a rare cycle of
/// two statements waiting for each other's rows with an error.
pub async fn save_many(
    conn: &mut PgConnection,
    tables: &[(&Table, Option<&Keyed>)],
) -> Result<Vec<bool>, sqlx::Error> {
    let c = Columns::of(tables);
    let hit: Vec<Uuid> = c
        .bind(sqlx::query(save_sql(c.mask())))
        .try_map(|row: PgRow| row.try_get(0))
        .fetch_all(&mut *conn)
        .await?;
    Ok(tables.iter().map(|(t, _)| hit.contains(&t.id)).collect())
}

/// Whether a save statement that failed with `e` wrote nothing that the transactional path
/// would not answer better: an Idempotency-Key already used (a retry, or a reuse), a stake the
/// wallet no longer covers, or a deadlock or serialization failure with another process's
/// statement (a player at two tables whose hands end at once). The move then takes the
/// transaction, which replays, refuses or applies it as it always has.
pub fn transaction_decides(e: &sqlx::Error) -> bool {
    e.as_database_error().is_some_and(|db| {
        db.is_unique_violation()
            || db.is_check_violation()
            || matches!(db.code().as_deref(), Some("40P01" | "40001"))
    })
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
