use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use sqlx::PgPool;

use crate::error::{ApiError, ApiResult, ProblemResponse};

/// The liveness answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Health {
    /// Always `ok`.
    status: &'static str,
}

// 200 once the database answers; 503 problem+json while it does not.
#[utoipa::path(
    operation_id = "health",
    tag = "platform",
    summary = "Liveness: 200 once the database answers",
    responses(
        (status = 200, description = "Healthy", body = Health, example = json!({"status": "ok"})),
        (status = 503, response = ProblemResponse),
    ),
    security(()),
)]
#[get("/healthz")]
pub async fn healthz(pool: web::Data<PgPool>) -> ApiResult<HttpResponse> {
    sqlx::query("SELECT 1")
        .execute(pool.get_ref())
        .await
        .map_err(|_| ApiError::Unavailable("the database does not answer".into()))?;
    Ok(HttpResponse::Ok().json(Health { status: "ok" }))
}

#[utoipa::path(
    operation_id = "openapi",
    tag = "platform",
    summary = "This document",
    responses(
        (status = 200, description = "The OpenAPI document", body = Object, content_type = "application/json", example = json!({"info": {"title": "paiju", "version": "1"}, "openapi": "3.1.0", "paths": {}})),
    ),
    security(()),
)]
#[get("/openapi.json")]
pub async fn openapi(index: web::Data<&'static super::ApiIndex>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(index.text)
}
