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
          ORDER BY kind = 'house', id FOR UPDATE",
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

/// One balanced ledger transaction: its reason and references, and its legs netted by party
/// (parties whose amounts cancel out are dropped), each a ledger entry. Every coin movement the
/// server makes is one: [`transfer`] writes one at once, a table's save statement writes a
/// move's in order ([`MONEY_CTES`] both).
#[derive(Clone, Debug)]
pub struct Movement {
    pub meta: TxMeta,
    legs: Vec<(Party, i64)>,
}

impl Movement {
    /// `legs` netted by party; `None` when nothing moves. An unbalanced set is a bug of the
    /// caller's.
    pub fn new(meta: TxMeta, legs: &[(Party, i64)]) -> Result<Option<Movement>, ApiError> {
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
        Ok((!net.is_empty()).then(|| Movement {
            meta,
            legs: net.into_iter().collect(),
        }))
    }

    /// What the movement puts into `party`'s account (negative: takes out of it).
    pub fn amount_for(&self, party: Party) -> i64 {
        self.legs
            .iter()
            .filter(|(p, _)| *p == party)
            .map(|(_, a)| a)
            .sum()
    }

    /// The parties whose balance moves, one ledger entry each, in party order.
    pub fn parties(&self) -> impl Iterator<Item = Party> + '_ {
        self.legs.iter().map(|(p, _)| *p)
    }
}

/// Movements as the columns of a statement's parameters, in the order they are written:
/// a row per movement (`ord`, its reason and references) and a row per leg (the `ord` of its
/// movement, its index, the account's kind and owner, the amount). [`MoneyColumns::bind`]
/// binds the eleven arrays; the statement unnests them into `money_in` and `legs_in`, which
/// [`MONEY_CTES`] reads.
#[derive(Default)]
pub struct MoneyColumns {
    ord: Vec<i64>,
    reason: Vec<&'static str>,
    match_id: Vec<Option<Uuid>>,
    tournament_id: Vec<Option<Uuid>>,
    hand_no: Vec<Option<i32>>,
    note: Vec<Option<String>>,
    l_ord: Vec<i64>,
    l_leg: Vec<i32>,
    l_kind: Vec<&'static str>,
    l_ref: Vec<Option<Uuid>>,
    l_amount: Vec<i64>,
}

impl MoneyColumns {
    /// Adds a movement after those already added.
    pub fn push(&mut self, m: &Movement) {
        let ord = self.ord.len() as i64;
        self.ord.push(ord);
        self.reason.push(m.meta.reason.as_str());
        self.match_id.push(m.meta.match_id);
        self.tournament_id.push(m.meta.tournament_id);
        self.hand_no.push(m.meta.hand_no);
        self.note.push(m.meta.note.clone());
        for (leg, &(party, amount)) in m.legs.iter().enumerate() {
            let (kind, owner) = match party {
                Party::House => ("house", None),
                Party::User(u) => ("user", Some(u)),
                Party::MatchEscrow(m) => ("escrow", Some(m)),
                Party::TournamentEscrow(t) => ("tournament", Some(t)),
            };
            self.l_ord.push(ord);
            self.l_leg.push(leg as i32);
            self.l_kind.push(kind);
            self.l_ref.push(owner);
            self.l_amount.push(amount);
        }
    }

    /// Whether no movement was added.
    pub fn is_empty(&self) -> bool {
        self.ord.is_empty()
    }

    /// The ledger entries the movements write.
    pub fn entries(&self) -> usize {
        self.l_ord.len()
    }

    /// Binds the eleven arrays, in the order of `money_in`'s six columns (`ord`, `reason`,
    /// `match_id`, `tournament_id`, `hand_no`, `note`: bigint, text, uuid, uuid, int, text)
    /// and `legs_in`'s five (`ord`, `leg`, `kind`, `ref`, `amount`: bigint, int, text, uuid,
    /// bigint).
    pub fn bind<'q>(&'q self, q: PgQuery<'q>) -> PgQuery<'q> {
        q.bind(&self.ord)
            .bind(&self.reason)
            .bind(&self.match_id)
            .bind(&self.tournament_id)
            .bind(&self.hand_no)
            .bind(&self.note)
            .bind(&self.l_ord)
            .bind(&self.l_leg)
            .bind(&self.l_kind)
            .bind(&self.l_ref)
            .bind(&self.l_amount)
    }
}

/// A query with its parameters bound one by one.
pub type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

/// The common table expressions that write movements, after the statement's own `money_in`
/// (a row per movement, in `ord` order) and `legs_in` (a row per leg) ([`MoneyColumns`]):
/// each movement becomes a `ledger_tx` (ids in `ord` order) and each leg a ledger entry; the
/// accounts are locked in id order, the house's last (concurrent statements never wait for
/// each other in a cycle: a transaction that read players' wallets locked holds them before
/// it moves the house's coins) and each balance moves once, by the sum of its legs in the statement; each entry's
/// `balance_after` is the balance after it, in transaction order. `bal` holds each moved
/// account's `id` and `balance` after the statement, `len` each entry's `id`, `tx_id` and
/// `account_id`. The CHECK on `accounts` refuses a balance below zero (→ insufficient_coins),
/// after any entry, not only at the end: where a running balance dips below zero (a stake the
/// wallet does not cover, returned later in the same statement) the update writes that low
/// point instead, so the CHECK fails the statement. The deferred trigger refuses a
/// transaction whose entries do not sum to zero (a leg whose account is missing is dropped by
/// the join, so that too fails the statement).
pub const MONEY_CTES: &str = "
    mv AS MATERIALIZED (
        SELECT i.ord, i.reason, i.match_id, i.tournament_id, i.hand_no, i.note,
               nextval('ledger_tx_id_seq') AS tx_id
          FROM money_in i ORDER BY i.ord),
    lg AS MATERIALIZED (
        SELECT mv.tx_id, l.leg, acc.id AS account_id, l.amount
          FROM legs_in l JOIN mv ON mv.ord = l.ord
          JOIN accounts acc ON acc.id = (
               CASE l.kind
                   WHEN 'user' THEN (SELECT id FROM accounts WHERE user_id = l.ref)
                   WHEN 'escrow' THEN (SELECT id FROM accounts WHERE match_id = l.ref)
                   WHEN 'tournament' THEN (SELECT id FROM accounts WHERE tournament_id = l.ref)
                   ELSE (SELECT id FROM accounts WHERE kind = 'house')
               END)),
    lk AS MATERIALIZED (
        SELECT acc.id FROM accounts acc
         WHERE acc.id IN (SELECT account_id FROM lg)
         ORDER BY acc.kind = 'house', acc.id FOR UPDATE),
    bal AS (
        UPDATE accounts acc
           SET balance = CASE WHEN acc.kind <> 'house' AND acc.balance + d.low < 0
                              THEN acc.balance + d.low
                              ELSE acc.balance + d.total END
          FROM (SELECT r.account_id, sum(r.amount)::bigint AS total, min(r.run)::bigint AS low
                  FROM (SELECT lg.account_id, lg.amount,
                               sum(lg.amount) OVER (PARTITION BY lg.account_id ORDER BY lg.tx_id
                                                    ROWS UNBOUNDED PRECEDING) AS run
                          FROM lg JOIN lk ON lk.id = lg.account_id) r
                 GROUP BY r.account_id) d
         WHERE acc.id = d.account_id
     RETURNING acc.id, acc.balance),
    ltx AS (
        INSERT INTO ledger_tx (id, reason, match_id, tournament_id, hand_no, note)
        SELECT tx_id, reason, match_id, tournament_id, hand_no, note FROM mv),
    len AS (
        INSERT INTO ledger_entries (tx_id, account_id, amount, balance_after)
        SELECT lg.tx_id, lg.account_id, lg.amount,
               bal.balance - COALESCE(sum(lg.amount) OVER (
                   PARTITION BY lg.account_id ORDER BY lg.tx_id DESC
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
          FROM lg JOIN bal ON bal.id = lg.account_id
         ORDER BY lg.tx_id, lg.account_id
     RETURNING id, tx_id, account_id)";

/// [`transfer`]'s statement: [`MONEY_CTES`] over the movement bound by [`MoneyColumns::bind`].
pub static TRANSFER_SQL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH money_in AS (
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::uuid[], $4::uuid[], $5::int[],
                                  $6::text[])
                    AS i(ord, reason, match_id, tournament_id, hand_no, note)),
         legs_in AS (
             SELECT * FROM unnest($7::bigint[], $8::int[], $9::text[], $10::uuid[],
                                  $11::bigint[])
                    AS l(ord, leg, kind, ref, amount)),
         {MONEY_CTES}
         SELECT lg.leg, len.id FROM len JOIN lg USING (tx_id, account_id)"
    )
});

/// Moves coins as one balanced transaction, in one statement ([`MONEY_CTES`]). `legs` are
/// (party, signed amount) and must sum to zero; legs of the same party are added up; zero
/// legs are dropped. Returns the ids of the entries written, by party, or `None` when nothing
/// moved (and no statement was sent).
pub async fn transfer(
    conn: &mut PgConnection,
    meta: &TxMeta,
    legs: &[(Party, i64)],
) -> Result<Option<BTreeMap<Party, i64>>, ApiError> {
    let Some(movement) = Movement::new(meta.clone(), legs)? else {
        return Ok(None);
    };
    let mut columns = MoneyColumns::default();
    columns.push(&movement);
    let entries: Vec<(i32, i64)> = columns
        .bind(sqlx::query(TRANSFER_SQL.as_str()))
        .fetch_all(&mut *conn)
        .await?
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect::<sqlx::Result<_>>()?;
    let by_leg: BTreeMap<i32, i64> = entries.into_iter().collect();
    movement
        .parties()
        .enumerate()
        .map(|(i, p)| match by_leg.get(&(i as i32)) {
            Some(id) => Ok((p, *id)),
            None => Err(ApiError::Internal(anyhow::anyhow!(
                "ledger account missing for {p:?}"
            ))),
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// The wallets and 积分 in `game` of `users`, their wallets locked (in account id order, as
/// every movement locks them) until the transaction ends; a user without a wallet or 积分 row
/// holds 0 of it.
pub async fn lock_purses(
    conn: &mut PgConnection,
    users: &[Uuid],
    game: &str,
) -> Result<Vec<(Uuid, i64, i64)>, ApiError> {
    Ok(sqlx::query_as(
        "WITH l AS MATERIALIZED (
             SELECT user_id, balance FROM accounts WHERE user_id = ANY($1)
              ORDER BY id FOR UPDATE)
         SELECT u.user_id, COALESCE(l.balance, 0), COALESCE(s.points, 0)
           FROM unnest($1::uuid[]) AS u(user_id)
           LEFT JOIN l ON l.user_id = u.user_id
           LEFT JOIN scores s ON s.user_id = u.user_id AND s.game = $2",
    )
    .bind(users)
    .bind(game)
    .fetch_all(conn)
    .await?)
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
