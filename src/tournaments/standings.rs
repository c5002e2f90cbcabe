//! Standings: every player's furthest round and score there, best first, as JSON or CSV.

use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use super::{live_scores, load, players, table_scores, tables};
use crate::error::ApiResult;

/// One player's line of the standings.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Standing {
    pub rank: usize,
    pub user_id: Uuid,
    pub username: String,
    pub reg_no: i32,
    /// The last round the player sat at a table in (0 before the start).
    pub furthest_round: i32,
    /// The player's score (积分) at that round's table.
    pub score: i64,
    pub status: StandingStatus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StandingStatus {
    Winner,
    Playing,
    Eliminated,
    Escaped,
    Cut,
    Registered,
    Cancelled,
}

impl StandingStatus {
    fn as_str(self) -> &'static str {
        match self {
            StandingStatus::Winner => "winner",
            StandingStatus::Playing => "playing",
            StandingStatus::Eliminated => "eliminated",
            StandingStatus::Escaped => "escaped",
            StandingStatus::Cut => "cut",
            StandingStatus::Registered => "registered",
            StandingStatus::Cancelled => "cancelled",
        }
    }
}

/// A tournament's standings, best first.
#[derive(Serialize, utoipa::ToSchema)]
pub struct StandingsPage {
    pub tournament_id: Uuid,
    pub standings: Vec<Standing>,
}

pub async fn standings(pool: &PgPool, id: Uuid) -> ApiResult<Vec<Standing>> {
    let mut conn = pool.acquire().await?;
    let t = load(&mut conn, id, false).await?;
    let players = players(&mut conn, id).await?;
    let tables = tables(&mut conn, id).await?;
    let live = live_scores(&mut conn, id).await?;
    let mut rows: Vec<Standing> = players
        .iter()
        .map(|p| {
            let last = tables
                .iter()
                .filter(|x| x.players.contains(&p.user_id))
                .max_by_key(|x| x.round);
            let (furthest_round, score) = match last {
                Some(x) => {
                    let i = x.players.iter().position(|u| *u == p.user_id).unwrap_or(0);
                    (x.round, table_scores(x, &live)[i])
                }
                None => (0, 0),
            };
            let won = t
                .winners
                .as_ref()
                .map_or(t.winner == Some(p.user_id), |w| w.contains(&p.user_id));
            let status = if won {
                StandingStatus::Winner
            } else if t.status == "cancelled" {
                StandingStatus::Cancelled
            } else if p.in_field == Some(false) {
                StandingStatus::Cut
            } else if p.escaped {
                StandingStatus::Escaped
            } else if p.eliminated_round.is_some() {
                StandingStatus::Eliminated
            } else if t.status == "registering" {
                StandingStatus::Registered
            } else {
                StandingStatus::Playing
            };
            Standing {
                rank: 0,
                user_id: p.user_id,
                username: p.username.clone(),
                reg_no: p.reg_no,
                furthest_round,
                score,
                status,
            }
        })
        .collect();
    rows.sort_by_key(|s| {
        (
            s.status != StandingStatus::Winner,
            std::cmp::Reverse(s.furthest_round),
            std::cmp::Reverse(s.score),
            s.reg_no,
        )
    });
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = i + 1;
    }
    Ok(rows)
}

pub fn standings_csv(rows: &[Standing]) -> String {
    let mut out = String::from("rank,username,user_id,reg_no,furthest_round,score,status\n");
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            r.rank,
            r.username,
            r.user_id,
            r.reg_no,
            r.furthest_round,
            r.score,
            r.status.as_str()
        ));
    }
    out
}
