//! Accounts: argon2 password hashes, HS256 access tokens, and the extractors that guard routes.

mod jwt;
mod password;

pub use jwt::{Claims, Jwt, Revoked};
pub use password::{hash_password, verify_password};

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::error::ApiError;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Player,
    Organiser,
    Admin,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Organiser => "organiser",
            Role::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "player" => Role::Player,
            "organiser" => Role::Organiser,
            "admin" => Role::Admin,
            _ => return None,
        })
    }
}

/// The caller, from a valid bearer token.
#[derive(Clone, Debug)]
pub struct AuthUser {
    pub id: Uuid,
    pub username: String,
    pub role: Role,
}

impl AuthUser {
    /// Refuses a caller whose account's role, as it is now (not as the token says), is below
    /// `role`: a demoted admin loses admin powers at once.
    pub async fn require(&self, conn: &mut PgConnection, role: Role) -> Result<(), ApiError> {
        let current = crate::players::current_role(conn, self.id).await?;
        if current >= role {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!(
                "this needs the {} role; you are {}",
                role.as_str(),
                current.as_str()
            )))
        }
    }
}

impl FromRequest for AuthUser {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(authenticate(req))
    }
}

fn authenticate(req: &HttpRequest) -> Result<AuthUser, ApiError> {
    let jwt = req
        .app_data::<web::Data<Jwt>>()
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("Jwt is not configured")))?;
    let header = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .ok_or_else(|| ApiError::Unauthorized("missing Authorization: Bearer token".into()))?;
    // The scheme name is case-insensitive (RFC 7235).
    let token = header
        .to_str()
        .ok()
        .and_then(|h| h.trim_start().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            ApiError::Unauthorized("the Authorization header must be \"Bearer <token>\"".into())
        })?;
    verify(jwt, token)
}

fn verify(jwt: &Jwt, token: &str) -> Result<AuthUser, ApiError> {
    let claims = jwt.verify(token)?;
    Ok(AuthUser {
        id: claims.sub,
        username: claims.name,
        role: claims.role,
    })
}

/// The caller from `Authorization: Bearer`, or else from `token` (an `access_token` query
/// parameter: a browser's `EventSource` cannot send headers).
pub fn authenticate_or_token(req: &HttpRequest, token: Option<&str>) -> Result<AuthUser, ApiError> {
    match token {
        Some(t)
            if !req
                .headers()
                .contains_key(actix_web::http::header::AUTHORIZATION) =>
        {
            let jwt = req
                .app_data::<web::Data<Jwt>>()
                .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("Jwt is not configured")))?;
            verify(jwt, t)
        }
        _ => authenticate(req),
    }
}
