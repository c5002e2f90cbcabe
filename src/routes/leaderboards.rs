use actix_web::{HttpResponse, get, web};
use serde::Deserialize;
use sqlx::PgPool;

use crate::auth::AuthUser;
use crate::error::{ApiResult, ProblemResponse};
use crate::leaderboards::{self, Leaderboard};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardQuery {
    limit: Option<i64>,
    cursor: Option<String>,
}

#[utoipa::path(
    operation_id = "getLeaderboard",
    tag = "accounts",
    summary = "A game's 积分 leaderboard, best first, with the caller's place",
    description = "Every player's 积分 in `game` (bots and deleted accounts left out), by points descending then username; `rank` is 1 + the number of players with more points, so ties share a rank. Cursor-paged: pass `next_cursor` back as `cursor`. `me` is the caller's rank and points, null when they have none in this game. An unknown game is 404.",
    params(
        ("game" = String, Path, description = "a game's name (GET /v1/games)"),
        ("limit" = Option<i64>, Query, description = "entries per page (default 50)", minimum = 1, maximum = 100, example = 50),
        ("cursor" = Option<String>, Query, description = "the next_cursor of the previous page", max_length = 100),
    ),
    responses(
        (status = 200, description = "A page of the board", body = Leaderboard, example = json!({"game": "dazha", "entries": [{"rank": 1, "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "username": "alice", "points": 37}, {"rank": 2, "user_id": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "username": "bob", "points": 12}], "next_cursor": "12_bob", "me": {"rank": 12, "points": 5}})),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
    ),
)]
#[get("/v1/leaderboards/{game}")]
pub async fn show(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<String>,
    q: web::Query<BoardQuery>,
) -> ApiResult<HttpResponse> {
    let board = leaderboards::page(&pool, user.id, &path, q.limit, q.cursor.as_deref()).await?;
    Ok(HttpResponse::Ok().json(board))
}
