//! Coin transfers: every movement is one balanced ledger transaction; balances cannot go below
//! zero (a CHECK constraint on `accounts`); the deferred trigger `ledger_entries_balanced`
//! refuses to commit a transaction whose entries do not sum to zero.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::error::ApiError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Party {
    House,
    User(Uuid),
    MatchEscrow(Uuid),
    TournamentEscrow(Uuid),
}

/// Why coins moved: a closed set (the `ledger_tx_reason` CHECK holds the same list; every
/// reason is explained in docs/ledger.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// House → user: an admin's grant, the only way coins enter.
    #[default]
    Grant,
    /// User → match escrow: a stake put on the table (扯旋's 簸簸).
    Stake,
    /// Match escrow → users at the end of a hand.
    HandSettlement,
    /// Match escrow → a user: the rest of a folded seat's stake when it leaves during the hand.
    StakeReturn,
    /// Escrow or user → house: 逃跑.
    EscapePenalty,
    /// User → house: a coin room's fee per 局.
    RoomFee,
    /// Between wallets: a coin-room hand's units × stake.
    CoinRoom,
    /// User → tournament escrow.
    TournamentFee,
    /// Tournament escrow → the winner.
    TournamentPrize,
    /// Tournament escrow → players: the tournament was cancelled.
    TournamentRefund,
    /// User → house: the account was deleted with coins left.
    AccountClosed,
    /// House → a bot: the coins a server-side bot plays with at its table.
    BotFunding,
    /// A bot → house: what the bot holds when its table ends.
    BotReturn,
}

impl Reason {
    /// Every reason (the docs name each: a test compares them).
    pub const ALL: [Reason; 13] = [
        Reason::Grant,
        Reason::Stake,
        Reason::HandSettlement,
        Reason::StakeReturn,
        Reason::EscapePenalty,
        Reason::RoomFee,
        Reason::CoinRoom,
        Reason::TournamentFee,
        Reason::TournamentPrize,
        Reason::TournamentRefund,
        Reason::AccountClosed,
        Reason::BotFunding,
        Reason::BotReturn,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Grant => "grant",
            Reason::Stake => "stake",
            Reason::HandSettlement => "hand_settlement",
            Reason::StakeReturn => "stake_return",
            Reason::EscapePenalty => "escape_penalty",
            Reason::RoomFee => "room_fee",
            Reason::CoinRoom => "coin_room",
            Reason::TournamentFee => "tournament_fee",
            Reason::TournamentPrize => "tournament_prize",
            Reason::TournamentRefund => "tournament_refund",
            Reason::AccountClosed => "account_closed",
            Reason::BotFunding => "bot_funding",
            Reason::BotReturn => "bot_return",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct TxMeta {
    pub reason: Reason,
    pub match_id: Option<Uuid>,
    pub tournament_id: Option<Uuid>,
    pub hand_no: Option<i32>,
    pub note: Option<String>,
}

/// Creates the wallet of a new user.
pub async fn open_user_account(conn: &mut PgConnection, user: Uuid) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO accounts (kind, user_id) VALUES ('user', $1)")
        .bind(user)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn open_match_escrow(conn: &mut PgConnection, match_id: Uuid) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO accounts (kind, match_id) VALUES ('escrow', $1)")
        .bind(match_id)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn balance(conn: &mut PgConnection, user: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT balance FROM accounts WHERE user_id = $1")
        .bind(user)
        .fetch_one(conn)
        .await
}

/// Locks the wallets of `users` (in id order) and returns their balances in the given order.
pub async fn lock_balances(conn: &mut PgConnection, users: &[Uuid]) -> Result<Vec<i64>, ApiError> {
    let parties: Vec<Party> = users.iter().map(|&u| Party::User(u)).collect();
    let accounts = lock_accounts(conn, &parties).await?;
    Ok(parties.iter().map(|p| accounts[p].1).collect())
}

/// Locks the accounts of `parties` in id order (so concurrent transfers never deadlock) and
/// returns their ids and balances.
async fn lock_accounts(
    conn: &mut PgConnection,
    parties: &[Party],
) -> Result<BTreeMap<Party, (i64, i64)>, ApiError> {
    let mut users = Vec::new();
    let mut matches = Vec::new();
    let mut tournaments = Vec::new();
    let mut house = false;
    for p in parties {
        match *p {
            Party::House => house = true,
            Party::User(u) => users.push(u),
            Party::MatchEscrow(m) => matches.push(m),
            Party::TournamentEscrow(t) => tournaments.push(t),
        }
    }
    type Row = (i64, Option<Uuid>, Option<Uuid>, Option<Uuid>, i64);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, user_id, match_id, tournament_id, balance FROM accounts
          WHERE ($1 AND kind = 'house') OR user_id = ANY($2) OR match_id = ANY($3)
             OR tournament_id = ANY($4)
          ORDER BY id FOR UPDATE",
    )
    .bind(house)
    .bind(&users)
    .bind(&matches)
    .bind(&tournaments)
    .fetch_all(&mut *conn)
    .await?;
    let mut found = BTreeMap::new();
    for (id, user, m, t, balance) in rows {
        let party = match (user, m, t) {
            (Some(u), _, _) => Party::User(u),
            (_, Some(m), _) => Party::MatchEscrow(m),
            (_, _, Some(t)) => Party::TournamentEscrow(t),
            _ => Party::House,
        };
        found.insert(party, (id, balance));
    }
    if let Some(missing) = parties.iter().find(|p| !found.contains_key(p)) {
        return Err(ApiError::Internal(anyhow::anyhow!(
            "ledger account missing for {missing:?}"
        )));
    }
    Ok(found)
}

/// One balanced transfer netted by party (parties whose amounts cancel out drop), as the
/// parameters of [`TRANSFER_CTES`].
pub struct Legs {
    parties: Vec<Party>,
    kinds: Vec<&'static str>,
    refs: Vec<Option<Uuid>>,
    amounts: Vec<i64>,
    legs: Vec<i32>,
}

impl Legs {
    /// Nets `legs` by party; an unbalanced set is a bug of the caller's.
    pub fn net(meta: &TxMeta, legs: &[(Party, i64)]) -> Result<Legs, ApiError> {
        let mut net: BTreeMap<Party, i64> = BTreeMap::new();
        for &(p, a) in legs {
            *net.entry(p).or_default() += a;
        }
        net.retain(|_, a| *a != 0);
        if net.values().sum::<i64>() != 0 {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "unbalanced transfer {legs:?} for {}",
                meta.reason.as_str()
            )));
        }
        let (kinds, refs) = net
            .keys()
            .map(|p| match *p {
                Party::House => ("house", None),
                Party::User(u) => ("user", Some(u)),
                Party::MatchEscrow(m) => ("escrow", Some(m)),
                Party::TournamentEscrow(t) => ("tournament", Some(t)),
            })
            .unzip();
        Ok(Legs {
            parties: net.keys().copied().collect(),
            kinds,
            refs,
            amounts: net.values().copied().collect(),
            legs: (0..net.len() as i32).collect(),
        })
    }

    /// Nothing moves.
    pub fn is_empty(&self) -> bool {
        self.parties.is_empty()
    }

    /// The parties whose balance moves: one ledger entry each.
    pub fn len(&self) -> usize {
        self.parties.len()
    }

    /// Binds the nine parameters of [`TRANSFER_CTES`], in order (copies: the query may
    /// outlive the legs).
    pub fn bind<'q>(&self, meta: &TxMeta, q: PgQuery<'q>) -> PgQuery<'q> {
        q.bind(meta.reason.as_str())
            .bind(meta.match_id)
            .bind(meta.tournament_id)
            .bind(meta.hand_no)
            .bind(meta.note.clone())
            .bind(self.kinds.clone())
            .bind(self.refs.clone())
            .bind(self.amounts.clone())
            .bind(self.legs.clone())
    }
}

/// A query with its parameters bound one by one.
pub type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

/// The common table expressions of one ledger transaction, its nine parameters numbered from
/// `$1` ([`Legs::bind`]): lock the accounts in id order (concurrent transfers never
/// deadlock), add the amounts, write the transaction and its entries with each account's
/// balance after. `u` holds each moved account's `id`, `balance` (after), `amount` and `leg`;
/// `e` each entry's `account_id` and `id`. Empty legs write nothing, not even the
/// transaction; so does a `go` (a CTE the statement defines before these) without rows: a
/// statement that writes the transfer only when its other writes hit ([`GO`] otherwise). The
/// CHECK on `accounts` refuses a balance below zero (→ insufficient_coins) and the deferred
/// trigger checks the sum.
pub const TRANSFER_CTES: &str = "
    l AS (SELECT * FROM unnest($6::text[], $7::uuid[], $8::bigint[], $9::int[])
                 AS l(kind, ref, amount, leg)
           WHERE EXISTS (SELECT FROM go)),
    a AS (SELECT acc.id, l.amount, l.leg FROM l JOIN accounts acc ON acc.id = (
                 CASE l.kind
                     WHEN 'user' THEN (SELECT id FROM accounts WHERE user_id = l.ref)
                     WHEN 'escrow' THEN (SELECT id FROM accounts WHERE match_id = l.ref)
                     WHEN 'tournament'
                         THEN (SELECT id FROM accounts WHERE tournament_id = l.ref)
                     ELSE (SELECT id FROM accounts WHERE kind = 'house')
                 END)
           ORDER BY acc.id FOR UPDATE OF acc),
    t AS (INSERT INTO ledger_tx (reason, match_id, tournament_id, hand_no, note)
          SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT FROM l) RETURNING id),
    u AS (UPDATE accounts acc SET balance = acc.balance + a.amount
            FROM a WHERE acc.id = a.id
          RETURNING acc.id, acc.balance, a.amount, a.leg),
    e AS (INSERT INTO ledger_entries (tx_id, account_id, amount, balance_after)
          SELECT t.id, u.id, u.amount, u.balance FROM t, u
          RETURNING account_id, id)";

/// Stakes of a save statement (`matches::table`'s fast path), each a ledger transaction of its
/// own: reason `$5`, the user's wallet → the match's escrow, for `$1` the match, `$2` the user,
/// `$3` the amount, `$4` the hand; written only for matches whose row the statement updated
/// (`m`). The rows [`transfer`] writes for the same movement: the accounts locked in id order,
/// each balance moved once by the sum of its legs, each entry's `balance_after` the balance
/// after it in `tx_id` order.
pub const STAKE_CTES: &str = "
    st AS MATERIALIZED (
        SELECT x.*, nextval('ledger_tx_id_seq') AS tx_id
          FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::int[])
               AS x(match_id, user_id, amount, hand_no)
         WHERE x.match_id IN (SELECT id FROM m)),
    stx AS (
        INSERT INTO ledger_tx (id, reason, match_id, hand_no)
        SELECT tx_id, $5, match_id, hand_no FROM st),
    sleg AS MATERIALIZED (
        SELECT st.tx_id, acc.id AS account_id, -st.amount AS amount
          FROM st JOIN accounts acc ON acc.user_id = st.user_id
        UNION ALL
        SELECT st.tx_id, acc.id, st.amount
          FROM st JOIN accounts acc ON acc.match_id = st.match_id),
    slk AS MATERIALIZED (
        SELECT acc.id FROM accounts acc
         WHERE acc.id IN (SELECT account_id FROM sleg)
         ORDER BY acc.id FOR UPDATE),
    sbal AS (
        UPDATE accounts acc SET balance = acc.balance + d.total
          FROM (SELECT sleg.account_id, sum(sleg.amount)::bigint AS total
                  FROM sleg JOIN slk ON slk.id = sleg.account_id
                 GROUP BY sleg.account_id) d
         WHERE acc.id = d.account_id
     RETURNING acc.id, acc.balance),
    sle AS (
        INSERT INTO ledger_entries (tx_id, account_id, amount, balance_after)
        SELECT sleg.tx_id, sleg.account_id, sleg.amount,
               sbal.balance - COALESCE(sum(sleg.amount) OVER (
                   PARTITION BY sleg.account_id ORDER BY sleg.tx_id DESC
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
          FROM sleg JOIN sbal ON sbal.id = sleg.account_id
         ORDER BY sleg.tx_id, sleg.account_id)";

/// The `go` of a statement whose CTEs write unconditionally (one row).
pub const GO: &str = "go AS (SELECT)";

/// `sql` with each parameter `$n` renumbered `$(n + by)`: CTEs numbered from `$1` placed after
/// others' parameters.
pub fn shift_params(sql: &str, by: usize) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut rest = sql;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if let Ok(n) = rest[..digits].parse::<usize>() {
            out.push_str(&(n + by).to_string());
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

/// [`transfer`]'s statement.
pub static TRANSFER_SQL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH {GO}, {TRANSFER_CTES}
         SELECT u.leg::bigint, e.id FROM u JOIN e ON e.account_id = u.id"
    )
});

/// Moves coins as one balanced transaction, in one statement ([`TRANSFER_CTES`]). `legs` are
/// (party, signed amount) and must sum to zero; legs of the same party are added up; zero
/// legs are dropped. Returns the ids of the entries written, by party, or `None` when nothing
/// moved (and no statement was sent).
pub async fn transfer(
    conn: &mut PgConnection,
    meta: &TxMeta,
    legs: &[(Party, i64)],
) -> Result<Option<BTreeMap<Party, i64>>, ApiError> {
    let legs = Legs::net(meta, legs)?;
    if legs.is_empty() {
        return Ok(None);
    }
    let entries: Vec<(i64, i64)> = legs
        .bind(meta, sqlx::query(TRANSFER_SQL.as_str()))
        .fetch_all(&mut *conn)
        .await?
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect::<sqlx::Result<_>>()?;
    let by_leg: BTreeMap<i64, i64> = entries.into_iter().collect();
    legs.parties
        .iter()
        .enumerate()
        .map(|(i, p)| match by_leg.get(&(i as i64)) {
            Some(id) => Ok((*p, *id)),
            None => Err(ApiError::Internal(anyhow::anyhow!(
                "ledger account missing for {p:?}"
            ))),
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// Takes up to `amount` from a user's wallet to the house, never below zero; returns what was
/// taken.
pub async fn take_up_to(
    conn: &mut PgConnection,
    meta: &TxMeta,
    user: Uuid,
    amount: i64,
) -> Result<i64, ApiError> {
    let accounts = lock_accounts(conn, &[Party::User(user)]).await?;
    let (_, balance) = accounts[&Party::User(user)];
    let take = amount.min(balance).max(0);
    transfer(
        conn,
        meta,
        &[(Party::User(user), -take), (Party::House, take)],
    )
    .await?;
    Ok(take)
}

/// One wallet movement as api.md shows it (`GET /v1/me/ledger`, a grant's answer).
#[derive(sqlx::FromRow, serde::Serialize, utoipa::ToSchema)]
#[schema(as = LedgerEntry)]
pub struct Entry {
    pub id: i64,
    /// Coins in (positive) or out (negative) of the wallet.
    pub amount: i64,
    pub balance_after: i64,
    /// Why the coins moved (docs/ledger.md).
    #[schema(value_type = Reason)]
    pub reason: String,
    pub match_id: Option<Uuid>,
    pub tournament_id: Option<Uuid>,
    pub hand_no: Option<i32>,
    pub note: Option<String>,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// A user's ledger entries, newest first, below entry `before` when given.
pub async fn entries(
    conn: &mut PgConnection,
    user: Uuid,
    limit: i64,
    before: Option<i64>,
) -> sqlx::Result<Vec<Entry>> {
    sqlx::query_as(
        "SELECT e.id, e.amount, e.balance_after, t.reason, t.match_id, t.tournament_id,
                t.hand_no, t.note, e.created_at
           FROM ledger_entries e
           JOIN accounts a ON a.id = e.account_id
           JOIN ledger_tx t ON t.id = e.tx_id
          WHERE a.user_id = $1 AND ($2::bigint IS NULL OR e.id < $2)
          ORDER BY e.id DESC LIMIT $3",
    )
    .bind(user)
    .bind(before)
    .bind(limit)
    .fetch_all(conn)
    .await
}

/// The largest single grant.
pub const MAX_GRANT: i64 = 1_000_000_000_000;

/// Coins enter the system (api.md: the only way): `amount` from the house to `user`'s wallet.
/// Returns the user's new ledger entry.
pub async fn grant(
    conn: &mut PgConnection,
    user: Uuid,
    amount: i64,
    note: Option<String>,
) -> Result<Entry, ApiError> {
    if !(1..=MAX_GRANT).contains(&amount) {
        return Err(ApiError::Validation(format!(
            "amount must be from 1 to {MAX_GRANT}, got {amount}"
        )));
    }
    if note.as_ref().is_some_and(|n| n.len() > 500) {
        return Err(ApiError::Validation(
            "note must be at most 500 bytes".into(),
        ));
    }
    crate::players::player_account(&mut *conn, user).await?;
    let meta = TxMeta {
        reason: Reason::Grant,
        note,
        ..TxMeta::default()
    };
    let ids = transfer(
        conn,
        &meta,
        &[(Party::House, -amount), (Party::User(user), amount)],
    )
    .await?
    .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("a grant moved nothing")))?;
    let id = ids[&Party::User(user)];
    entries(conn, user, 1, Some(id + 1))
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("the grant's entry vanished")))
}

#[cfg(test)]
mod tests {
    use super::shift_params;

    #[test]
    fn parameters_are_renumbered_and_nothing_else_changes() {
        assert_eq!(
            shift_params("SELECT $1, $10::int[], '$' || $2 FROM t WHERE x = $9", 55),
            "SELECT $56, $65::int[], '$' || $57 FROM t WHERE x = $64"
        );
        assert_eq!(shift_params("no parameters", 3), "no parameters");
    }
}
