use actix_web::{HttpResponse, get, web};
use serde_json::json;
use sqlx::PgPool;

use crate::error::{ApiError, ApiResult};

/// 200 once the database answers; 503 problem+json while it does not.
#[get("/healthz")]
pub async fn healthz(pool: web::Data<PgPool>) -> ApiResult<HttpResponse> {
    sqlx::query("SELECT 1")
        .execute(pool.get_ref())
        .await
        .map_err(|_| ApiError::Unavailable("the database does not answer".into()))?;
    Ok(HttpResponse::Ok().json(json!({ "status": "ok" })))
}

#[get("/openapi.json")]
pub async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(crate::openapi::DOCUMENT)
}
