//! A tournament as the API shows it (its players and bracket), and the list of tournaments.

use std::collections::HashMap;

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::settings::format_of;
use super::store::{self, TableRow, TournamentRow, live_scores, table_scores};
use super::{Bracket, BracketRound, BracketSeat, BracketTable, TournamentDetail, TournamentPage};
use crate::error::{ApiError, ApiResult};

/// A position in the list (newest start first): the start time and id of the last row shown.
fn cursor(t: &TournamentRow) -> String {
    crate::cursor::encode(t.starts_at, t.id)
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
    let rows = store::page(pool, &q.status, &q.game, before, limit + 1).await?;
    let (rows, next_before) = crate::cursor::page(rows, limit, cursor);
    Ok(TournamentPage {
        tournaments: rows.iter().map(TournamentRow::summary).collect(),
        has_more: next_before.is_some(),
        next_before,
    })
}

/// The rounds `1..=round` of the bracket: each table with its seats' players, names and
/// scores, and who advanced from it.
fn rounds(
    round: i32,
    tables: &[TableRow],
    live: &HashMap<(Uuid, Uuid), i64>,
    names: &HashMap<Uuid, &str>,
) -> Vec<BracketRound> {
    (1..=round)
        .map(|r| BracketRound {
            round: r,
            tables: tables
                .iter()
                .filter(|x| x.round == r)
                .map(|x| {
                    let scores = table_scores(x, live);
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
        .collect()
}

pub async fn detail(conn: &mut PgConnection, id: Uuid) -> ApiResult<TournamentDetail> {
    let t = store::load(conn, id, false).await?;
    let players = store::players(conn, id).await?;
    let tables = store::tables(conn, id).await?;
    let live = live_scores(conn, id).await?;
    let names: HashMap<Uuid, &str> = players
        .iter()
        .map(|p| (p.user_id, p.username.as_str()))
        .collect();
    let rounds = rounds(t.round, &tables, &live, &names);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn table(round: i32, table_no: i32, players: &[Uuid]) -> TableRow {
        TableRow {
            round,
            table_no,
            match_id: Uuid::new_v4(),
            players: players.to_vec(),
            scores: None,
            advancers: None,
            match_status: "playing".into(),
        }
    }

    #[test]
    fn each_round_lists_its_tables_with_their_seats_scores_and_advancers() {
        let p: Vec<Uuid> = (0..8).map(|_| Uuid::new_v4()).collect();
        let mut first = table(1, 0, &p[..4]);
        first.scores = Some(vec![9, -3, -3, -3]);
        first.advancers = Some(vec![p[0]]);
        first.match_status = "finished".into();
        let second = table(1, 1, &p[4..]);
        let live = HashMap::from([((second.match_id, p[5]), 7)]);
        let names = HashMap::from([(p[0], "alice"), (p[5], "bob")]);
        let tables = [first, second];

        assert!(
            rounds(0, &tables, &live, &names).is_empty(),
            "before the start"
        );
        let r = rounds(2, &tables, &live, &names);
        assert_eq!(r.len(), 2, "the round being played is listed, even empty");
        assert_eq!((r[0].round, r[0].tables.len()), (1, 2));
        assert!(r[1].tables.is_empty());

        let done = &r[0].tables[0];
        assert_eq!((done.table_no, done.status.as_str()), (0, "finished"));
        assert_eq!(
            (done.advanced, done.advancers.clone()),
            (Some(p[0]), vec![p[0]])
        );
        let seats: Vec<_> = done
            .seats
            .iter()
            .map(|s| (s.seat, s.user_id, s.username.clone(), s.score))
            .collect();
        assert_eq!(seats[0], (0, p[0], Some("alice".to_string()), 9));
        assert_eq!(seats[3], (3, p[3], None, -3));

        let playing = &r[0].tables[1];
        assert_eq!((playing.advanced, playing.advancers.len()), (None, 0));
        let scores: Vec<i64> = playing.seats.iter().map(|s| s.score).collect();
        assert_eq!(scores, [0, 7, 0, 0]);
        assert_eq!(playing.seats[1].username.as_deref(), Some("bob"));
    }
}
