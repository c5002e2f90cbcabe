//! What a player is told on their stream (`GET /v1/me/stream`) besides match versions: the
//! durable events of `user_events`, written in the transaction that made them true (so a
//! rolled-back seat is never announced) and announced to every server process by the table's
//! notification trigger. Their ids are the stream's event ids.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::error::ApiResult;

/// How a player came to a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// They created the table and sat down.
    Create,
    /// They joined it.
    Join,
    /// The coin-room lobby matched them.
    Lobby,
    /// Their tournament seated them at its next table.
    Tournament,
    /// They asked for a rematch (the caller sits at once) or accepted one.
    Rematch,
}

impl Via {
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Create => "create",
            Via::Join => "join",
            Via::Lobby => "lobby",
            Via::Tournament => "tournament",
            Via::Rematch => "rematch",
        }
    }
}

/// One durable event of a player's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Seated at a match (every way: the stream starts following the match).
    Seated {
        match_id: Uuid,
        game: &'static str,
        seat: usize,
        via: Via,
    },
    /// Their tournament's table for the next round is ready.
    TournamentTable {
        tournament_id: Uuid,
        round: i32,
        table_no: i32,
        match_id: Uuid,
    },
    /// Out of a tournament: lost a round's table, or escaped (逃跑).
    Eliminated {
        tournament_id: Uuid,
        round: i32,
        escaped: bool,
    },
    /// A player they sat with asks for a rematch: a seat of the new match is kept for them
    /// (they join it to accept).
    Rematch {
        match_id: Uuid,
        from: Uuid,
        game: &'static str,
        seat: usize,
        by: String,
    },
    /// A tournament they played in is over.
    TournamentFinished {
        tournament_id: Uuid,
        /// One player, or the winning pair of fixed partners (`winner` is the first).
        winners: Vec<Uuid>,
    },
}

impl Notice {
    fn kind(&self) -> &'static str {
        match self {
            Notice::Seated { .. } => "seated",
            Notice::TournamentTable { .. } => "tournament_table",
            Notice::Eliminated { .. } => "eliminated",
            Notice::TournamentFinished { .. } => "tournament_finished",
            Notice::Rematch { .. } => "rematch",
        }
    }

    fn data(&self) -> Value {
        match self {
            Notice::Seated {
                match_id,
                game,
                seat,
                via,
            } => json!(Seated {
                match_id: *match_id,
                game,
                seat: *seat,
                via: via.as_str(),
            }),
            Notice::TournamentTable {
                tournament_id,
                round,
                table_no,
                match_id,
            } => json!(TournamentTable {
                tournament_id: *tournament_id,
                round: *round,
                table_no: *table_no,
                match_id: *match_id,
            }),
            Notice::Eliminated {
                tournament_id,
                round,
                escaped,
            } => json!(Eliminated {
                tournament_id: *tournament_id,
                round: *round,
                escaped: *escaped,
            }),
            Notice::Rematch {
                match_id,
                from,
                game,
                seat,
                by,
            } => json!(Rematch {
                match_id: *match_id,
                from: *from,
                game,
                seat: *seat,
                by,
            }),
            Notice::TournamentFinished {
                tournament_id,
                winners,
            } => json!(TournamentFinished {
                tournament_id: *tournament_id,
                winner: winners.first().copied(),
                winners,
            }),
        }
    }
}

/// The stream's `seated` event: the player sits at a match now (the stream follows it).
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = StreamSeated)]
pub struct Seated<'a> {
    match_id: Uuid,
    #[schema(value_type = crate::api_types::GameName)]
    game: &'a str,
    seat: usize,
    /// How: `create`, `join`, `lobby` (a coin room matched them), `tournament` or `rematch`.
    #[schema(value_type = SeatedVia)]
    via: &'static str,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeatedVia {
    Create,
    Join,
    Lobby,
    Tournament,
    Rematch,
}

/// The stream's `rematch` event: a player the caller sat with at a finished match asks for a
/// rematch; the caller's old seat is kept for them at the new match (join it to accept).
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = StreamRematch)]
pub struct Rematch<'a> {
    /// The new match.
    match_id: Uuid,
    /// The finished match it is a rematch of.
    from: Uuid,
    #[schema(value_type = crate::api_types::GameName)]
    game: &'a str,
    /// The seat kept for the caller.
    seat: usize,
    /// The username of the player who asked.
    by: &'a str,
}

/// The stream's `tournament_table` event: the player's table for the next round is ready.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = StreamTournamentTable)]
pub struct TournamentTable {
    tournament_id: Uuid,
    round: i32,
    table_no: i32,
    match_id: Uuid,
}

/// The stream's `eliminated` event: out of a tournament (lost a round's table, or escaped).
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = StreamEliminated)]
pub struct Eliminated {
    tournament_id: Uuid,
    round: i32,
    escaped: bool,
}

/// The stream's `tournament_finished` event: a tournament the player played in is over.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = StreamTournamentFinished)]
pub struct TournamentFinished<'a> {
    tournament_id: Uuid,
    /// The first of `winners`.
    winner: Option<Uuid>,
    /// One player, or the winning pair of fixed partners.
    winners: &'a [Uuid],
}

/// Records `notice` for `user` in the caller's transaction.
pub async fn push(conn: &mut PgConnection, user: Uuid, notice: &Notice) -> ApiResult<()> {
    push_many(conn, &[user], notice).await
}

/// Records the same notice for several players.
pub async fn push_many(conn: &mut PgConnection, users: &[Uuid], notice: &Notice) -> ApiResult<()> {
    if users.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO user_events (user_id, kind, data)
         SELECT u, $2, $3 FROM unnest($1::uuid[]) AS u",
    )
    .bind(users)
    .bind(notice.kind())
    .bind(notice.data())
    .execute(conn)
    .await?;
    Ok(())
}

/// A stored notice as the stream sends it.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
pub struct Stored {
    pub id: i64,
    pub kind: String,
    pub data: Value,
    pub at: DateTime<Utc>,
}

/// At most this many notices are read at once; a stream reads again for the rest.
pub const PAGE: i64 = 100;

/// `user`'s notices after `after`, oldest first, at most [`PAGE`].
pub async fn after(conn: &mut PgConnection, user: Uuid, after: i64) -> ApiResult<Vec<Stored>> {
    Ok(sqlx::query_as(
        "SELECT id, kind, data, at FROM user_events WHERE user_id = $1 AND id > $2
          ORDER BY id LIMIT $3",
    )
    .bind(user)
    .bind(after)
    .bind(PAGE)
    .fetch_all(conn)
    .await?)
}

/// The id of `user`'s newest notice (0 when none): where a stream opened without
/// `Last-Event-ID` starts.
pub async fn newest(conn: &mut PgConnection, user: Uuid) -> ApiResult<i64> {
    Ok(
        sqlx::query_scalar("SELECT COALESCE(max(id), 0) FROM user_events WHERE user_id = $1")
            .bind(user)
            .fetch_one(conn)
            .await?,
    )
}

/// How long notices are kept; the sweeper deletes older ones.
pub const KEEP_DAYS: i32 = 7;

/// Deletes notices older than [`KEEP_DAYS`] (a few thousand at a time); returns how many.
pub async fn prune(conn: &mut PgConnection) -> ApiResult<u64> {
    Ok(sqlx::query(
        "DELETE FROM user_events WHERE id IN (
             SELECT id FROM user_events WHERE at < now() - make_interval(days => $1) LIMIT 5000)",
    )
    .bind(KEEP_DAYS)
    .execute(conn)
    .await?
    .rows_affected())
}
