use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, patch, post, web};
use sqlx::PgPool;
use uuid::Uuid;

use crate::auth::AuthUser;
use crate::cursor::ListQuery;
use crate::error::{ApiResult, ProblemResponse};
use crate::tournaments::{self, CreateTournament, EditTournament};

#[utoipa::path(
    operation_id = "createTournament",
    tag = "tournaments",
    summary = "Create a knockout tournament (organiser or admin)",
    request_body(content = CreateTournament, example = json!({"entry_fee": 50, "game": "dazha", "hands_per_round": 8, "name": "Friday knockout", "options": {"turn_timeout_secs": 20}, "starts_at": "2026-12-04T19:00:00Z"})),
    responses(
        (status = 201, description = "The tournament", body = tournaments::TournamentDetail, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"), ("Location" = String, description = "where the created resource is read"))),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
#[post("/v1/tournaments")]
pub async fn create(
    pool: web::Data<PgPool>,
    user: AuthUser,
    body: web::Json<CreateTournament>,
) -> ApiResult<HttpResponse> {
    let t = tournaments::create(&pool, &user, body.into_inner()).await?;
    let location = format!("/v1/tournaments/{}", t.id());
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, location))
        .json(t))
}

#[utoipa::path(
    operation_id = "listTournaments",
    tag = "tournaments",
    summary = "List tournaments",
    params(
        ("status" = Option<String>, Query, description = "only this status"),
        ("game" = Option<String>, Query, description = "only this game"),
        ("limit" = Option<i64>, Query, description = "tournaments per page", minimum = 1, maximum = 200, example = 50),
        ("before" = Option<String>, Query, description = "the next_before of the previous page", max_length = 100),
    ),
    responses(
        (status = 200, description = "Tournaments", body = tournaments::TournamentPage, example = json!({"has_more": true, "next_before": "17964108000000009f8e7d6c-5b4a-4938-a271-605f4e3d2c1b", "tournaments": [{"created_at": "2026-11-23T10:00:00Z", "created_by": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "entry_fee": 50, "finished_at": null, "game": "dazha", "hands_per_round": 8, "id": "9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b", "name": "Friday knockout", "options": {"turn_timeout_secs": 20}, "prize_pool": 200, "round": 1, "started_at": "2026-12-04T19:00:01Z", "starts_at": "2026-12-04T19:00:00Z", "status": "running", "winner": null, "winners": []}]})),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
#[get("/v1/tournaments")]
pub async fn list(
    pool: web::Data<PgPool>,
    _user: AuthUser,
    q: web::Query<ListQuery>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(tournaments::list(&pool, &q).await?))
}

#[utoipa::path(
    operation_id = "getTournament",
    tag = "tournaments",
    summary = "A tournament: players with registration order, prize pool and the bracket (rounds → tables → seats, scores, match ids, who advanced)",
    params(
        ("id" = Uuid, Path),
    ),
    responses(
        (status = 200, description = "The tournament", body = tournaments::TournamentDetail, example = json!({"bracket": {"rounds": [{"round": 1, "tables": [{"advanced": null, "match_id": "3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b", "seats": [{"score": 6, "seat": 0, "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "username": "alice"}, {"score": -6, "seat": 1, "user_id": "0b6f3c9e-2a41-4d7b-8e15-5f9a2c3d4e61", "username": "bob"}, {"score": 6, "seat": 2, "user_id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a", "username": "carol"}, {"score": -6, "seat": 3, "user_id": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "username": "dave"}], "status": "playing", "table_no": 0, "advancers": []}]}]}, "created_at": "2026-11-23T10:00:00Z", "created_by": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "entry_fee": 50, "finished_at": null, "game": "dazha", "hands_per_round": 8, "id": "9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b", "name": "Friday knockout", "options": {"turn_timeout_secs": 20}, "players": [{"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 1, "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "username": "alice"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 2, "user_id": "0b6f3c9e-2a41-4d7b-8e15-5f9a2c3d4e61", "username": "bob"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 3, "user_id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a", "username": "carol"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 4, "user_id": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "username": "dave"}], "prize_pool": 200, "round": 1, "started_at": "2026-12-04T19:00:01Z", "starts_at": "2026-12-04T19:00:00Z", "status": "running", "winner": null, "winners": [], "advance_per_table": 1, "field_size": 4})),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
    ),
)]
#[get("/v1/tournaments/{id}")]
pub async fn detail(
    pool: web::Data<PgPool>,
    _user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(tournaments::get(&pool, path.into_inner()).await?))
}

#[utoipa::path(
    operation_id = "registerForTournament",
    tag = "tournaments",
    summary = "Register (before the start); a registered player plays nothing else until withdrawn, eliminated or the end",
    params(
        ("id" = Uuid, Path),
    ),
    responses(
        (status = 201, description = "Registered", body = tournaments::Registration, headers(("Cache-Control" = String, description = "private, no-cache"), ("ETag" = String, description = "the view's version, quoted"), ("Location" = String, description = "where the created resource is read")), example = json!({"reg_no": 1, "tournament_id": "9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b", "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b"})),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
#[post("/v1/tournaments/{id}/register")]
pub async fn register(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let r = tournaments::register(&pool, &user, id).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/tournaments/{id}")))
        .json(r))
}

#[utoipa::path(
    operation_id = "withdrawFromTournament",
    tag = "tournaments",
    summary = "Withdraw before the start",
    params(
        ("id" = Uuid, Path),
    ),
    responses(
        (status = 204, description = "Withdrawn"),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
    ),
)]
#[delete("/v1/tournaments/{id}/register")]
pub async fn withdraw(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    tournaments::withdraw(&pool, &user, path.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(
    operation_id = "startTournament",
    tag = "tournaments",
    summary = "Start now (the organiser who created it, or an admin); otherwise it starts at starts_at",
    params(
        ("id" = Uuid, Path),
    ),
    responses(
        (status = 200, description = "The tournament", body = tournaments::TournamentDetail, example = json!({"bracket": {"rounds": [{"round": 1, "tables": [{"advanced": null, "match_id": "3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b", "seats": [{"score": 6, "seat": 0, "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "username": "alice"}, {"score": -6, "seat": 1, "user_id": "0b6f3c9e-2a41-4d7b-8e15-5f9a2c3d4e61", "username": "bob"}, {"score": 6, "seat": 2, "user_id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a", "username": "carol"}, {"score": -6, "seat": 3, "user_id": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "username": "dave"}], "status": "playing", "table_no": 0, "advancers": []}]}]}, "created_at": "2026-11-23T10:00:00Z", "created_by": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "entry_fee": 50, "finished_at": null, "game": "dazha", "hands_per_round": 8, "id": "9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b", "name": "Friday knockout", "options": {"turn_timeout_secs": 20}, "players": [{"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 1, "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "username": "alice"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 2, "user_id": "0b6f3c9e-2a41-4d7b-8e15-5f9a2c3d4e61", "username": "bob"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 3, "user_id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a", "username": "carol"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 4, "user_id": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "username": "dave"}], "prize_pool": 200, "round": 1, "started_at": "2026-12-04T19:00:01Z", "starts_at": "2026-12-04T19:00:00Z", "status": "running", "winner": null, "winners": [], "advance_per_table": 1, "field_size": 4})),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
    ),
)]
#[post("/v1/tournaments/{id}/start")]
pub async fn start(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(tournaments::start_now(&pool, &user, path.into_inner()).await?))
}

// JSON, or CSV for `Accept: text/csv`.
#[utoipa::path(
    operation_id = "getStandings",
    tag = "tournaments",
    summary = "Every player's furthest round and score there, best first; CSV with Accept: text/csv",
    params(
        ("id" = Uuid, Path),
    ),
    responses(
        (status = 200, description = "Standings", content((tournaments::StandingsPage = "application/json", example = json!({"tournament_id": "9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b", "standings": [{"rank": 1, "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "username": "alice", "reg_no": 1, "furthest_round": 2, "score": 12, "status": "winner"}, {"rank": 2, "user_id": "0b6f3c9e-2a41-4d7b-8e15-5f9a2c3d4e61", "username": "bob", "reg_no": 2, "furthest_round": 2, "score": -12, "status": "eliminated"}]})), (String = "text/csv", example = "rank,username,user_id,reg_no,furthest_round,score,status\n1,alice,7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b,1,2,12,winner\n"))),
        (status = 401, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
    ),
)]
#[get("/v1/tournaments/{id}/standings")]
pub async fn standings(
    req: HttpRequest,
    pool: web::Data<PgPool>,
    _user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let rows = tournaments::standings(&pool, id).await?;
    let wants_csv = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|a| a.contains("text/csv"));
    if wants_csv {
        return Ok(HttpResponse::Ok()
            .content_type("text/csv; charset=utf-8")
            .insert_header((
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"standings-{id}.csv\""),
            ))
            .body(tournaments::standings_csv(&rows)));
    }
    Ok(HttpResponse::Ok().json(tournaments::StandingsPage {
        tournament_id: id,
        standings: rows,
    }))
}

#[utoipa::path(
    operation_id = "editTournament",
    tag = "tournaments",
    summary = "Change a tournament's settings before it starts (its organiser or an admin)",
    params(
        ("id" = Uuid, Path),
    ),
    request_body(content = EditTournament, example = json!({"entry_fee": 60, "name": "Saturday knockout"})),
    responses(
        (status = 200, description = "The tournament", body = tournaments::TournamentDetail, example = json!({"bracket": {"rounds": []}, "created_at": "2026-11-23T10:00:00Z", "created_by": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "entry_fee": 50, "finished_at": null, "game": "dazha", "hands_per_round": 8, "id": "9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b", "name": "Saturday knockout", "options": {"turn_timeout_secs": 20}, "players": [{"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 1, "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "username": "alice"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 2, "user_id": "0b6f3c9e-2a41-4d7b-8e15-5f9a2c3d4e61", "username": "bob"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 3, "user_id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a", "username": "carol"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 4, "user_id": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "username": "dave"}], "prize_pool": 0, "round": 0, "started_at": null, "starts_at": "2026-12-04T19:00:00Z", "status": "registering", "winner": null, "winners": [], "advance_per_table": 1, "field_size": 4})),
        (status = 400, response = ProblemResponse),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
        (status = 422, response = ProblemResponse),
    ),
)]
#[patch("/v1/tournaments/{id}")]
pub async fn edit(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
    body: web::Json<EditTournament>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok()
        .json(tournaments::edit(&pool, &user, path.into_inner(), body.into_inner()).await?))
}

#[utoipa::path(
    operation_id = "cancelTournament",
    tag = "tournaments",
    summary = "Cancel a tournament that has not ended; after its start every player's fee is refunded (tournament_refund) and its tables are aborted (its organiser or an admin)",
    params(
        ("id" = Uuid, Path),
    ),
    responses(
        (status = 200, description = "The cancelled tournament", body = tournaments::TournamentDetail, example = json!({"bracket": {"rounds": [{"round": 1, "tables": [{"advanced": null, "match_id": "3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b", "seats": [{"score": 6, "seat": 0, "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "username": "alice"}, {"score": -6, "seat": 1, "user_id": "0b6f3c9e-2a41-4d7b-8e15-5f9a2c3d4e61", "username": "bob"}, {"score": 6, "seat": 2, "user_id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a", "username": "carol"}, {"score": -6, "seat": 3, "user_id": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "username": "dave"}], "status": "playing", "table_no": 0, "advancers": []}]}]}, "created_at": "2026-11-23T10:00:00Z", "created_by": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "entry_fee": 50, "finished_at": "2026-12-04T19:30:00Z", "game": "dazha", "hands_per_round": 8, "id": "9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b", "name": "Friday knockout", "options": {"turn_timeout_secs": 20}, "players": [{"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 1, "user_id": "7c1f3a52-1d2e-4e8f-9a0b-3c4d5e6f7a8b", "username": "alice"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 2, "user_id": "0b6f3c9e-2a41-4d7b-8e15-5f9a2c3d4e61", "username": "bob"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 3, "user_id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a", "username": "carol"}, {"eliminated_round": null, "escaped": false, "in_field": true, "reg_no": 4, "user_id": "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d", "username": "dave"}], "prize_pool": 200, "round": 1, "started_at": "2026-12-04T19:00:01Z", "starts_at": "2026-12-04T19:00:00Z", "status": "cancelled", "winner": null, "winners": [], "advance_per_table": 1, "field_size": 4})),
        (status = 401, response = ProblemResponse),
        (status = 403, response = ProblemResponse),
        (status = 404, response = ProblemResponse),
        (status = 409, response = ProblemResponse),
    ),
)]
#[post("/v1/tournaments/{id}/cancel")]
pub async fn cancel(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(tournaments::cancel(&pool, &user, path.into_inner()).await?))
}
