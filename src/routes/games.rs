//! The games this server runs, read from the registry (`games::all`), so that a client (the web
//! client, paiju-load) offers exactly what the server plays.

use actix_web::{HttpResponse, get};
use serde::Serialize;

/// Every game the server runs, in the registry's order.
#[derive(Serialize, utoipa::ToSchema)]
pub struct GameList {
    games: Vec<GameInfo>,
}

/// One game, with what a client needs to offer a new table of it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct GameInfo {
    /// The name the API uses (`game` of a new match, of a view, of the lobby's path).
    #[schema(value_type = crate::api_types::GameName)]
    name: &'static str,
    /// The game's Chinese name (扯旋, 上饶打炸…).
    title: &'static str,
    seats: SeatRange,
    /// Whether a table can be a coin room (金币场: `options.room: "coin"`, the lobby's queue).
    coin_rooms: bool,
}

/// The table sizes a game is played with.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SeatRange {
    #[schema(minimum = 1)]
    min: usize,
    #[schema(minimum = 1)]
    max: usize,
    /// The table size of a new match that leaves out `seats`; null when the game is played by
    /// several sizes and `seats` must be given.
    #[schema(minimum = 1, required = true)]
    default: Option<usize>,
}

/// The registry as clients see it.
fn list() -> GameList {
    GameList {
        games: ::games::all()
            .iter()
            .map(|g| GameInfo {
                name: g.name(),
                title: g.title(),
                seats: SeatRange {
                    min: *g.seats().start(),
                    max: *g.seats().end(),
                    default: g.table_size(),
                },
                coin_rooms: g.coin_rooms(),
            })
            .collect(),
    }
}

#[utoipa::path(
    operation_id = "listGames",
    tag = "matches",
    summary = "The games this server runs, with their table sizes: what a new table may be",
    responses(
        (status = 200, description = "Every game, in the order clients list them", body = GameList, example = json!({"games": [
            {"name": "chexuan", "title": "扯旋", "seats": {"min": 2, "max": 6, "default": null}, "coin_rooms": false},
            {"name": "dazha", "title": "上饶打炸", "seats": {"min": 4, "max": 4, "default": 4}, "coin_rooms": true},
        ]})),
    ),
    security(()),
)]
#[get("/v1/games")]
pub async fn list_games() -> HttpResponse {
    HttpResponse::Ok().json(list())
}
