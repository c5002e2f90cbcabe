//! The one writer of tables: what the steps left pending ([`Pending`]) of one or several tables
//! (of different matches), written by ONE statement, each table over the version it was
//! loaded at. A table's row is updated only `WHERE version = loaded_version`, and every other
//! write of that table (events, actions, seat flags, its Idempotency-Key's row, its ledger
//! movements, its hands ended and dealt, their 积分) joins that update's result, so a table
//! whose row moved on writes nothing at all; nor does one whose step assumed wallets or 积分
//! (`GUARD`) that no longer hold. The transactional path writes through it as the
//! one-statement path does (a transaction holds the row lock, so its row cannot have moved).
//!
//! The statement is fixed text: its parameters are numbered once, below, and every one is
//! bound every time (empty arrays for rows a statement does not have). Parts a statement has no
//! rows for are left out of its text ([`Part`]): an `INSERT` or `UPDATE` that writes nothing
//! still opens its table and indexes at each execution (docs/performance.md § Only the parts a
//! statement needs). So there are `1 << PARTS` statements, each prepared against the schema by
//! a test ([`super::statements`]).

use std::sync::OnceLock;

use super::pending::Pending;
use super::*;
use crate::ledger::{MONEY_CTES, MoneyColumns};

/// Always sent, first: `v` the tables' new rows.
const ROWS: &str = "
    v AS (
        SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::bigint[],
                             $5::bigint[], $6::bigint[], $7::text[], $8::timestamptz[],
                             $9::text[], $10::jsonb[], $11::text[], $12::int[], $13::bool[])
             AS v(id, loaded, state, version, last_seq, action_no, status, deadline_at,
                  commitment, last_result, to_act, hand_no, to_act_hidden))";

/// The wallets and 积分 that tables' steps assumed ([`Table::plan_move`]), checked with the
/// wallets locked. Locks are taken in the order every writer takes them, so that no two
/// statements or transactions wait for each other in a cycle: `mk` the batch's match rows (in
/// id order; the transaction path holds its row before it reads the purses), then `gk` every
/// account the statement can touch — the assumed wallets and every movement's accounts — in
/// one pass in id order, the house's last, as `lk` later takes them again (already held),
/// reading them as they are now. `gd` names each table for which a wallet, or a 积分 as the
/// statement's snapshot has it (积分 are not locked: a deal records those it used), is not
/// what its step assumed. Sent
/// before [`WRITE`], whose `m` then leaves those tables' rows alone (and so everything else of
/// theirs).
const GUARD: &str = "
    mk AS MATERIALIZED (
        SELECT mm.id FROM matches mm WHERE mm.id = ANY($1::uuid[])
         ORDER BY mm.id FOR NO KEY UPDATE),
    gk AS MATERIALIZED (
        SELECT acc.user_id, acc.balance FROM accounts acc
         WHERE (SELECT count(*) FROM mk) >= 0
           AND (acc.user_id = ANY($70::uuid[])
                OR acc.user_id = ANY($47::uuid[]) OR acc.match_id = ANY($47::uuid[])
                OR acc.tournament_id = ANY($47::uuid[])
                OR (acc.kind = 'house' AND 'house' = ANY($46::text[])))
         ORDER BY acc.kind = 'house', acc.id FOR UPDATE),
    gd AS MATERIALIZED (
        SELECT DISTINCT a.match_id
          FROM unnest($69::uuid[], $70::uuid[], $71::bigint[], $72::bigint[], $73::text[])
               AS a(match_id, user_id, wallet, points, game)
          LEFT JOIN gk ON gk.user_id = a.user_id
          LEFT JOIN scores sc ON sc.user_id = a.user_id AND sc.game = a.game
         WHERE COALESCE(gk.balance, 0) <> a.wallet OR COALESCE(sc.points, 0) <> a.points)";

/// Always sent, after [`ROWS`] (and [`GUARD`]): `m` the id of each match row updated (those
/// still at their loaded version, and whose assumptions hold: `{guarded}` is where the guard's
/// condition goes), `ev` and `ac` their events and actions.
const WRITE: &str = "
    m AS (
        UPDATE matches mm SET state = v.state, version = v.version,
               last_seq = v.last_seq, action_no = v.action_no, status = v.status,
               deadline_at = v.deadline_at, commitment = v.commitment,
               last_result = COALESCE(v.last_result, mm.last_result), to_act = v.to_act::int[],
               to_act_hidden = v.to_act_hidden, hand_no = v.hand_no, updated_at = now()
          FROM v
         WHERE mm.id = v.id AND mm.version = v.loaded{guarded}
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
const SEATS: &str = "
    sf AS (
        UPDATE match_seats ms SET auto = x.auto, timeouts = x.timeouts
          FROM unnest($29::uuid[], $30::int[], $31::bool[], $32::int[])
               AS x(match_id, seat, auto, timeouts)
         WHERE ms.match_id = x.match_id AND ms.seat = x.seat
           AND x.match_id IN (SELECT id FROM m))";

/// Idempotency-Keys' rows with their answers.
const KEYS: &str = "
    k AS (
        INSERT INTO idempotency (user_id, key, request, status, body)
        SELECT x.user_id, x.key, x.request, 200, x.body
          FROM unnest($33::uuid[], $34::uuid[], $35::text[], $36::jsonb[], $37::jsonb[])
               AS x(match_id, user_id, key, request, body)
         WHERE x.match_id IN (SELECT id FROM m))";

/// Ledger movements ([`MONEY_CTES`], `ledger`'s), in order, of the tables updated.
const MONEY: &str = "
    money_in AS (
        SELECT * FROM unnest($38::bigint[], $39::text[], $40::uuid[], $41::uuid[], $42::int[],
                             $43::text[])
               AS i(ord, reason, match_id, tournament_id, hand_no, note)
         WHERE i.match_id IN (SELECT id FROM m)),
    legs_in AS (
        SELECT * FROM unnest($44::bigint[], $45::int[], $46::text[], $47::uuid[], $48::bigint[])
               AS l(ord, leg, kind, ref, amount)
         WHERE l.ord IN (SELECT ord FROM money_in)),";

/// Hands ended (`he`: their rows' results, each row ended once) and their 积分 (`pts` a row per
/// seat and hand, in order, read once the accounts are locked (`lk`), so that 积分 rows are
/// always locked after accounts; `up` each player's 积分 after the statement, upserted in
/// (user, game) order; `se` the entries, each with the 积分 after it), and hands dealt (`nh`: each row with every player's wallet and 积分
/// at the deal — those the deal was made from where it read them (`dealt_from`), else as the
/// statement leaves them (`bal`, `up`), or as they were, less what the statement moves after
/// the deal, each player's looked up by key, as a plan made once for any number of players
/// must — and, for a hand that ended at its deal, its result).
/// Sent with [`MONEY`]'s parts, whose `bal` it reads.
const HANDS: &str = "
    he AS (
        UPDATE hands h SET ended_at = now(), result = x.result
          FROM unnest($49::uuid[], $50::int[], $51::jsonb[]) AS x(match_id, hand_no, result)
         WHERE h.match_id = x.match_id AND h.hand_no = x.hand_no AND h.ended_at IS NULL
           AND x.match_id IN (SELECT id FROM m)),
    pts AS MATERIALIZED (
        SELECT x.* FROM unnest($52::uuid[], $53::int[], $54::uuid[], $55::bigint[], $56::text[])
               WITH ORDINALITY AS x(match_id, hand_no, user_id, delta, game, ord)
         WHERE x.match_id IN (SELECT id FROM m) AND (SELECT count(*) FROM lk) >= 0),
    up AS (
        INSERT INTO scores (user_id, game, points)
        SELECT user_id, game, sum(delta)::bigint FROM pts GROUP BY user_id, game
         ORDER BY user_id, game
        ON CONFLICT (user_id, game) DO UPDATE SET points = scores.points + EXCLUDED.points
     RETURNING user_id, game, points),
    se AS (
        INSERT INTO score_entries (user_id, game, match_id, hand_no, delta, points_after)
        SELECT p.user_id, p.game, p.match_id, p.hand_no, p.delta,
               up.points - COALESCE(sum(p.delta) OVER (
                   PARTITION BY p.user_id, p.game ORDER BY p.ord DESC
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
          FROM pts p JOIN up USING (user_id, game)),
    nh AS (
        INSERT INTO hands (match_id, hand_no, seed, commitment, deck, start_state, wallets,
                           scores, start_ms, users, ended_at, result)
        SELECT x.match_id, x.hand_no, x.seed, x.commitment, x.deck, x.start_state::jsonb,
               COALESCE(x.dealt_from->0, p.wallets), COALESCE(x.dealt_from->1, p.scores),
               x.start_ms,
               ARRAY(SELECT jsonb_array_elements_text(x.users)::uuid),
               CASE WHEN x.result IS NOT NULL THEN now() END, x.result
          FROM unnest($57::uuid[], $58::int[], $59::bytea[], $60::text[], $61::jsonb[],
                      $62::text[], $63::bigint[], $64::jsonb[], $65::jsonb[], $66::text[],
                      $67::jsonb[], $68::jsonb[])
               AS x(match_id, hand_no, seed, commitment, deck, start_state, start_ms, users,
                    after, game, result, dealt_from)
          CROSS JOIN LATERAL (
              SELECT jsonb_agg(COALESCE(
                         (SELECT b.balance FROM bal b JOIN accounts acc ON acc.id = b.id
                           WHERE acc.user_id = u.user_id::uuid),
                         (SELECT acc.balance FROM accounts acc
                           WHERE acc.user_id = u.user_id::uuid), 0)
                       - (a.v->>0)::bigint ORDER BY a.ord) AS wallets,
                     jsonb_agg(COALESCE(
                         (SELECT up.points FROM up
                           WHERE up.user_id = u.user_id::uuid AND up.game = x.game),
                         (SELECT sc.points FROM scores sc
                           WHERE sc.user_id = u.user_id::uuid AND sc.game = x.game), 0)
                       - (a.v->>1)::bigint ORDER BY a.ord) AS scores
                FROM jsonb_array_elements(x.after) WITH ORDINALITY AS a(v, ord)
                JOIN jsonb_array_elements_text(x.users) WITH ORDINALITY AS u(user_id, ord)
                     ON u.ord = a.ord) p
         WHERE x.match_id IN (SELECT id FROM m))";

/// The parts a statement may leave out, each a bit of its mask.
#[derive(Clone, Copy)]
enum Part {
    Guard,
    Seats,
    Keys,
    Money,
    Hands,
}

/// How many parts there are.
pub(super) const PARTS: usize = 5;

impl Part {
    const ALL: [Part; PARTS] = [
        Part::Guard,
        Part::Seats,
        Part::Keys,
        Part::Money,
        Part::Hands,
    ];

    fn bit(self) -> usize {
        1 << self as usize
    }
}

/// The statement with the parts of `mask` ([`Part::bit`]; hands come with money, whose
/// balances the deals read; the guard goes before `m`, which it gates); built once per mask.
pub(super) fn sql(mask: usize) -> &'static str {
    static SQL: [OnceLock<String>; 1 << PARTS] = [const { OnceLock::new() }; 1 << PARTS];
    let mask = if mask & Part::Hands.bit() != 0 {
        mask | Part::Money.bit()
    } else {
        mask
    };
    SQL[mask].get_or_init(|| {
        let guarded = mask & Part::Guard.bit() != 0;
        let mut text = format!("WITH {ROWS}");
        if guarded {
            text.extend([",", GUARD]);
        }
        let unless = " AND mm.id NOT IN (SELECT match_id FROM gd)";
        text.push(',');
        text.push_str(&WRITE.replace("{guarded}", if guarded { unless } else { "" }));
        for part in Part::ALL {
            if mask & part.bit() == 0 {
                continue;
            }
            match part {
                // Before `m`, above.
                Part::Guard => {}
                Part::Seats => text.extend([",", SEATS]),
                Part::Keys => text.extend([",", KEYS]),
                // `MONEY` ends with a comma: `MONEY_CTES` follows it.
                Part::Money => text.extend([",", MONEY, MONEY_CTES]),
                Part::Hands => text.extend([",", HANDS]),
            }
        }
        text.push_str("\nSELECT id FROM m");
        text
    })
}

/// An Idempotency-Key's row written by the move's own statement: the key, the request it
/// names, and the answer (status 200) to replay.
#[derive(Clone)]
pub struct Keyed {
    pub user: Uuid,
    pub key: String,
    pub request: Value,
    pub body: Value,
}

/// The columns of one statement: a row per table, event, action, changed seat, key, movement
/// and leg, hand ended, seat's 积分 and hand dealt.
#[derive(Default)]
struct Columns<'a> {
    ids: Vec<Uuid>,
    loaded: Vec<i64>,
    states: Vec<String>,
    versions: Vec<i64>,
    last_seqs: Vec<i64>,
    action_nos: Vec<i64>,
    statuses: Vec<&'static str>,
    deadlines: Vec<Option<DateTime<Utc>>>,
    commitments: Vec<Option<&'a str>>,
    last_results: Vec<Option<Json<&'a RawValue>>>,
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
    money: MoneyColumns,
    he_match: Vec<Uuid>,
    he_hand: Vec<i32>,
    he_result: Vec<&'a Value>,
    p_match: Vec<Uuid>,
    p_hand: Vec<i32>,
    p_user: Vec<Uuid>,
    p_delta: Vec<i64>,
    p_game: Vec<&'static str>,
    h_match: Vec<Uuid>,
    h_no: Vec<i32>,
    h_seed: Vec<Option<&'a [u8]>>,
    h_commitment: Vec<&'a str>,
    h_deck: Vec<&'a Value>,
    h_start_state: Vec<&'a str>,
    h_start_ms: Vec<i64>,
    h_users: Vec<Value>,
    h_after: Vec<Value>,
    h_game: Vec<&'static str>,
    h_result: Vec<Option<&'a Value>>,
    h_dealt_from: Vec<Option<Value>>,
    g_match: Vec<Uuid>,
    g_user: Vec<Uuid>,
    g_wallet: Vec<i64>,
    g_points: Vec<i64>,
    g_game: Vec<&'static str>,
}

impl<'a> Columns<'a> {
    /// The columns of `tables` in match id order, which the nested-loop plan of a short list
    /// locks in, so two statements rarely wait for each other's rows in a cycle.
    fn of(tables: &[(&'a Table, Option<&'a Keyed>)]) -> Columns<'a> {
        let mut order: Vec<usize> = (0..tables.len()).collect();
        order.sort_by_key(|&i| tables[i].0.id);
        let mut c = Columns::default();
        for &i in &order {
            let (t, keyed) = tables[i];
            c.add(t, keyed);
        }
        c
    }

    /// Adds a table's row and what its steps left pending.
    fn add(&mut self, t: &'a Table, keyed: Option<&'a Keyed>) {
        let id = t.id;
        let p: &'a Pending = &t.pending;
        self.ids.push(id);
        self.loaded.push(t.loaded_version);
        self.states.push(t.state.save());
        self.versions.push(t.version);
        self.last_seqs.push(t.last_seq + p.events.len() as i64);
        self.action_nos.push(t.action_no + p.actions.len() as i64);
        self.statuses.push(t.status.as_str());
        self.deadlines.push(t.deadline_at);
        self.commitments.push(t.commitment.as_deref());
        // The last result changes only when a hand ends (and never back to none): other rows
        // send none and keep the stored one, which PostgreSQL then neither parses nor
        // compresses again.
        let ended = !p.ends.is_empty();
        self.last_results.push(
            t.last_result
                .as_ref()
                .filter(|_| ended)
                .map(|r| Json(r.raw())),
        );
        let to_act: Vec<String> = t.to_act().iter().map(|s| s.to_string()).collect();
        self.to_acts.push(format!("{{{}}}", to_act.join(",")));
        self.hand_nos.push(t.hand_no());
        self.to_act_hiddens.push(t.state.to_act_hidden());
        for (e, seq) in p.events.iter().zip(t.last_seq + 1..) {
            self.e_match.push(id);
            self.e_seq.push(seq);
            self.e_hand.push(e.hand_no);
            self.e_kind.push(&e.kind);
            self.e_seat.push(e.seat);
            self.e_data.push(&e.data);
            // unnest cannot take an array of arrays of different lengths: each event's
            // visibility list travels as JSON and is expanded in SQL.
            self.e_vis.push(e.visible_to.as_ref().map(|v| json!(v)));
            self.e_at.push(t.now);
        }
        for (a, n) in p.actions.iter().zip(t.action_no + 1..) {
            self.a_match.push(id);
            self.a_n.push(n);
            self.a_hand.push(a.hand_no);
            self.a_seat.push(a.seat);
            self.a_kind.push(a.kind);
            self.a_action.push(a.action.as_ref());
            self.a_now_ms.push(a.now_ms);
        }
        for s in p.dirty_seats.iter().filter_map(|&i| t.seats[i].as_ref()) {
            self.s_match.push(id);
            self.s_seat.push(s.seat as i32);
            self.s_auto.push(s.auto);
            self.s_timeouts.push(s.timeouts);
        }
        if let Some(k) = keyed {
            self.k_match.push(id);
            self.k_user.push(k.user);
            self.k_key.push(&k.key);
            self.k_request.push(&k.request);
            self.k_body.push(&k.body);
        }
        for m in &p.money {
            self.money.push(m);
        }
        let game = t.game.name();
        if let Some(a) = &t.assumed {
            for (&user, &wallet) in &a.wallets {
                self.g_match.push(id);
                self.g_user.push(user);
                self.g_wallet.push(wallet);
                self.g_points
                    .push(a.scores.get(&user).copied().unwrap_or(0));
                self.g_game.push(game);
            }
        }
        let dealt_here = |hand_no: i32| p.deals.iter().any(|d| d.hand_no == hand_no);
        for e in &p.ends {
            // A hand dealt by the same statement is written ended (below): a statement does
            // not see the rows it inserts.
            if !dealt_here(e.hand_no) {
                self.he_match.push(id);
                self.he_hand.push(e.hand_no);
                self.he_result.push(&e.result);
            }
            for (user, delta) in e.users.iter().zip(&e.points) {
                if let Some(user) = user {
                    self.p_match.push(id);
                    self.p_hand.push(e.hand_no);
                    self.p_user.push(*user);
                    self.p_delta.push(*delta);
                    self.p_game.push(game);
                }
            }
        }
        for d in &p.deals {
            // What the statement moves for each player after the deal: the row records the
            // wallet and 积分 the hand was dealt from.
            let after: Vec<Value> = d
                .users
                .iter()
                .map(|&u| {
                    let coins: i64 = p.money[d.money_before..]
                        .iter()
                        .map(|m| m.amount_for(Party::User(u)))
                        .sum();
                    let ends = p.ends[d.ends_before..].iter();
                    let points: i64 = ends
                        .flat_map(|e| e.users.iter().zip(&e.points))
                        .filter(|(p, _)| **p == Some(u))
                        .map(|(_, d)| d)
                        .sum();
                    json!([coins, points])
                })
                .collect();
            self.h_match.push(id);
            self.h_no.push(d.hand_no);
            self.h_seed.push(d.seed.as_deref());
            self.h_commitment.push(&d.commitment);
            self.h_deck.push(&d.deck);
            self.h_start_state.push(&d.start_state);
            self.h_start_ms.push(d.start_ms);
            self.h_users.push(json!(d.users));
            self.h_after.push(Value::Array(after));
            self.h_game.push(game);
            let ended = p.ends.iter().find(|e| e.hand_no == d.hand_no);
            self.h_result.push(ended.map(|e| &e.result));
            self.h_dealt_from
                .push(d.dealt_from.as_ref().map(|f| json!(f)));
        }
    }

    /// The parts the statement needs: a bit per part with rows.
    fn mask(&self) -> usize {
        let needed = |part: Part, rows: bool| if rows { part.bit() } else { 0 };
        needed(Part::Guard, !self.g_match.is_empty())
            | needed(Part::Seats, !self.s_match.is_empty())
            | needed(Part::Keys, !self.k_match.is_empty())
            | needed(Part::Money, !self.money.is_empty())
            | needed(
                Part::Hands,
                !self.he_match.is_empty() || !self.p_match.is_empty() || !self.h_match.is_empty(),
            )
    }

    /// Binds every parameter, `$1` to `$73`, in order.
    fn bind<'q>(&'q self, q: ledger::PgQuery<'q>) -> ledger::PgQuery<'q> {
        let q = q
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
            .bind(&self.a_now_ms)
            .bind(&self.s_match)
            .bind(&self.s_seat)
            .bind(&self.s_auto)
            .bind(&self.s_timeouts)
            .bind(&self.k_match)
            .bind(&self.k_user)
            .bind(&self.k_key)
            .bind(&self.k_request)
            .bind(&self.k_body);
        self.money
            .bind(q)
            .bind(&self.he_match)
            .bind(&self.he_hand)
            .bind(&self.he_result)
            .bind(&self.p_match)
            .bind(&self.p_hand)
            .bind(&self.p_user)
            .bind(&self.p_delta)
            .bind(&self.p_game)
            .bind(&self.h_match)
            .bind(&self.h_no)
            .bind(&self.h_seed)
            .bind(&self.h_commitment)
            .bind(&self.h_deck)
            .bind(&self.h_start_state)
            .bind(&self.h_start_ms)
            .bind(&self.h_users)
            .bind(&self.h_after)
            .bind(&self.h_game)
            .bind(&self.h_result)
            .bind(&self.h_dealt_from)
            .bind(&self.g_match)
            .bind(&self.g_user)
            .bind(&self.g_wallet)
            .bind(&self.g_points)
            .bind(&self.g_game)
    }
}

/// Writes the pending changes of several tables (of different matches) in ONE statement,
/// each over the version it was loaded at (see the module's documentation). Each account's
/// balance moves once by the sum of its legs (one user may stake at two tables in one
/// statement). One table that finds its row moved on leaves the others' writes whole.
/// Returns, in order, which tables were written; the tables are not changed (each caller then
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
        .bind(sqlx::query(sql(c.mask())))
        .try_map(|row: PgRow| row.try_get(0))
        .fetch_all(&mut *conn)
        .await?;
    Ok(tables.iter().map(|(t, _)| hit.contains(&t.id)).collect())
}

/// Whether a statement that failed with `e` wrote nothing that the transactional path would
/// not answer better: an Idempotency-Key already used (a retry, or a reuse), a stake the
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
