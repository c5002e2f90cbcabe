//! Standings: every player's furthest round and score there, best first, as JSON or CSV.

use std::collections::HashMap;

use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use super::TournamentPlayer;
use super::store::{self, TableRow, TournamentRow, table_scores};
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
    let t = store::load(&mut conn, id, false).await?;
    let players = store::players(&mut conn, id).await?;
    let tables = store::tables(&mut conn, id).await?;
    let live = store::live_scores(&mut conn, id).await?;
    Ok(rank(&t, &players, &tables, &live))
}

/// The standings of tournament `t` from its players, its tables and the points made so far at
/// those still being played: the winners first, then by furthest round, score there and
/// registration.
fn rank(
    t: &TournamentRow,
    players: &[TournamentPlayer],
    tables: &[TableRow],
    live: &HashMap<(Uuid, Uuid), i64>,
) -> Vec<Standing> {
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
                    (x.round, table_scores(x, live)[i])
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
    rows
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

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;

    fn tournament(status: &str, winners: Option<Vec<Uuid>>) -> TournamentRow {
        TournamentRow {
            id: Uuid::new_v4(),
            name: "Friday knockout".into(),
            game: "dazha".into(),
            entry_fee: 50,
            starts_at: Utc::now(),
            hands_per_round: 4,
            options: serde_json::json!({}),
            status: status.into(),
            seed: vec![0; 32],
            prize_pool: 0,
            round: 2,
            winner: winners.as_ref().and_then(|w| w.first().copied()),
            winners,
            created_by: Uuid::new_v4(),
            created_at: Utc::now(),
            started_at: None,
            finished_at: None,
        }
    }

    fn player(
        user_id: Uuid,
        username: &str,
        reg_no: i32,
        in_field: Option<bool>,
        eliminated_round: Option<i32>,
        escaped: bool,
    ) -> TournamentPlayer {
        TournamentPlayer {
            user_id,
            username: username.into(),
            reg_no,
            in_field,
            eliminated_round,
            escaped,
        }
    }

    fn table(round: i32, players: &[Uuid], scores: Option<Vec<i64>>) -> TableRow {
        TableRow {
            round,
            table_no: 0,
            match_id: Uuid::new_v4(),
            players: players.to_vec(),
            scores,
            advancers: None,
            match_status: "playing".into(),
        }
    }

    fn lines(rows: &[Standing]) -> Vec<(usize, &str, i32, i64, StandingStatus)> {
        rows.iter()
            .map(|s| {
                (
                    s.rank,
                    s.username.as_str(),
                    s.furthest_round,
                    s.score,
                    s.status,
                )
            })
            .collect()
    }

    #[test]
    fn the_furthest_round_ranks_first_then_the_score_there_then_registration() {
        use StandingStatus::*;
        let [a, b, c, e, f] = [(); 5].map(|_| Uuid::new_v4());
        let mut players = vec![
            player(a, "a", 1, Some(true), None, false),
            player(b, "b", 2, Some(true), None, false),
            player(c, "c", 3, Some(true), Some(1), false),
            player(e, "e", 5, Some(false), None, false),
            player(f, "f", 6, Some(true), Some(1), true),
        ];
        let second = table(2, &[a, b], None);
        let live = HashMap::from([((second.match_id, a), 2), ((second.match_id, b), 6)]);
        let tables = [table(1, &[a, b, c, f], Some(vec![5, 3, -4, -4])), second];
        let running = rank(&tournament("running", None), &players, &tables, &live);
        assert_eq!(
            lines(&running),
            [
                (1, "b", 2, 6, Playing),
                (2, "a", 2, 2, Playing),
                (3, "c", 1, -4, Eliminated),
                (4, "f", 1, -4, Escaped),
                (5, "e", 0, 0, Cut),
            ]
        );

        // The final's winner comes first whatever the score.
        players[1].eliminated_round = Some(2);
        let done = rank(
            &tournament("finished", Some(vec![a])),
            &players,
            &tables,
            &live,
        );
        assert_eq!(
            lines(&done)[..2],
            [(1, "a", 2, 2, Winner), (2, "b", 2, 6, Eliminated)]
        );
        // A row written before `winners` names its winner alone.
        let mut old = tournament("finished", None);
        old.winner = Some(a);
        assert_eq!(lines(&rank(&old, &players, &tables, &live))[0].4, Winner);

        let cancelled = rank(&tournament("cancelled", None), &players, &tables, &live);
        assert!(cancelled.iter().all(|s| s.status == Cancelled));
    }

    #[test]
    fn before_the_start_everyone_is_registered_in_registration_order() {
        let [a, b] = [(); 2].map(|_| Uuid::new_v4());
        let players = [
            player(b, "b", 2, None, None, false),
            player(a, "a", 1, None, None, false),
        ];
        let rows = rank(
            &tournament("registering", None),
            &players,
            &[],
            &HashMap::new(),
        );
        assert_eq!(
            lines(&rows),
            [
                (1, "a", 0, 0, StandingStatus::Registered),
                (2, "b", 0, 0, StandingStatus::Registered)
            ]
        );
    }

    #[test]
    fn the_csv_has_a_header_and_a_line_per_player() {
        let id = Uuid::nil();
        let rows = [Standing {
            rank: 1,
            user_id: id,
            username: "alice".into(),
            reg_no: 3,
            furthest_round: 2,
            score: -12,
            status: StandingStatus::Eliminated,
        }];
        assert_eq!(
            standings_csv(&rows),
            format!(
                "rank,username,user_id,reg_no,furthest_round,score,status\n\
                 1,alice,{id},3,2,-12,eliminated\n"
            )
        );
        assert_eq!(
            standings_csv(&[]),
            "rank,username,user_id,reg_no,furthest_round,score,status\n"
        );
    }
}
