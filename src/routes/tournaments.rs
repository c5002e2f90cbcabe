use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, patch, post, web};
use sqlx::PgPool;
use uuid::Uuid;

use crate::auth::AuthUser;
use crate::cursor::ListQuery;
use crate::error::ApiResult;
use crate::tournaments::{self, CreateTournament, EditTournament};

#[post("/v1/tournaments")]
pub async fn create(
    pool: web::Data<PgPool>,
    user: AuthUser,
    body: web::Json<CreateTournament>,
) -> ApiResult<HttpResponse> {
    let t = tournaments::create(&pool, &user, body.into_inner()).await?;
    let location = format!("/v1/tournaments/{}", t["id"].as_str().unwrap_or_default());
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, location))
        .json(t))
}

#[get("/v1/tournaments")]
pub async fn list(
    pool: web::Data<PgPool>,
    _user: AuthUser,
    q: web::Query<ListQuery>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(tournaments::list(&pool, &q).await?))
}

#[get("/v1/tournaments/{id}")]
pub async fn detail(
    pool: web::Data<PgPool>,
    _user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(tournaments::get(&pool, path.into_inner()).await?))
}

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

#[delete("/v1/tournaments/{id}/register")]
pub async fn withdraw(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    tournaments::withdraw(&pool, &user, path.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[post("/v1/tournaments/{id}/start")]
pub async fn start(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(tournaments::start_now(&pool, &user, path.into_inner()).await?))
}

/// JSON, or CSV for `Accept: text/csv`.
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
    Ok(HttpResponse::Ok().json(serde_json::json!({ "tournament_id": id, "standings": rows })))
}

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

#[post("/v1/tournaments/{id}/cancel")]
pub async fn cancel(
    pool: web::Data<PgPool>,
    user: AuthUser,
    path: web::Path<Uuid>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(tournaments::cancel(&pool, &user, path.into_inner()).await?))
}
