//! Accounts: argon2 password hashes, HS256 access tokens, and the extractors that guard routes.

mod jwt;
mod password;

pub use jwt::{Checked, Claims, Jwt, Revoked};
pub use password::{hash_password, verify_password};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::future::LocalBoxFuture;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::error::ApiError;

#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
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
    /// The token's generation (a password change starts a new one).
    pub generation: i64,
}

impl AuthUser {
    /// Refuses a caller whose account's role, as it is now (not as the token says), is below
    /// `role`: a demoted admin loses admin powers at once.
    pub async fn require(&self, conn: &mut PgConnection, role: Role) -> Result<(), ApiError> {
        let current = current_role(conn, self.id).await?;
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

/// The account's role now (a token's role may be stale); 401 when the account is gone.
async fn current_role(conn: &mut PgConnection, user: Uuid) -> Result<Role, ApiError> {
    let role: Option<String> =
        sqlx::query_scalar("SELECT role FROM users WHERE id = $1 AND deleted_at IS NULL")
            .bind(user)
            .fetch_optional(conn)
            .await?;
    role.as_deref()
        .and_then(Role::parse)
        .ok_or_else(|| ApiError::Unauthorized("the account of this token no longer exists".into()))
}

/// The one gate of every authenticated route: a valid token of an account that exists, was
/// not deleted and has not changed its password since the token was issued.
impl FromRequest for AuthUser {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { authenticate_or_token(&req, None).await })
    }
}

/// The bearer token of `Authorization`.
fn bearer(req: &HttpRequest) -> Result<&str, ApiError> {
    let header = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .ok_or_else(|| ApiError::Unauthorized("missing Authorization: Bearer token".into()))?;
    // The scheme name is case-insensitive (RFC 7235).
    header
        .to_str()
        .ok()
        .and_then(|h| h.trim_start().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            ApiError::Unauthorized("the Authorization header must be \"Bearer <token>\"".into())
        })
}

fn app_data<T: 'static>(req: &HttpRequest) -> Result<&web::Data<T>, ApiError> {
    req.app_data::<web::Data<T>>().ok_or_else(|| {
        ApiError::Internal(anyhow::anyhow!(
            "{} is not configured",
            std::any::type_name::<T>()
        ))
    })
}

/// The caller from `Authorization: Bearer`, or else from `token` (an `access_token` query
/// parameter: a browser's `EventSource` cannot send headers). A token this process has not
/// seen before is checked against its account once, then remembered.
pub async fn authenticate_or_token(
    req: &HttpRequest,
    token: Option<&str>,
) -> Result<AuthUser, ApiError> {
    let token = match token {
        Some(t)
            if !req
                .headers()
                .contains_key(actix_web::http::header::AUTHORIZATION) =>
        {
            t
        }
        _ => bearer(req)?,
    };
    let jwt = app_data::<Jwt>(req)?;
    let claims = match jwt.verify(token)? {
        Checked::Known(c) => c,
        Checked::New(c) => {
            let pool = app_data::<PgPool>(req)?;
            let generation: Option<i64> = sqlx::query_scalar(
                "SELECT token_gen FROM users WHERE id = $1 AND deleted_at IS NULL",
            )
            .bind(c.sub)
            .fetch_optional(pool.get_ref())
            .await?;
            match generation {
                None => {
                    return Err(ApiError::Unauthorized(
                        "the account of this token does not exist".into(),
                    ));
                }
                Some(generation) if c.generation < generation => {
                    jwt.revoked().refuse_before(c.sub, generation);
                    return Err(ApiError::Unauthorized(
                        "the password was changed after this token was issued; log in again".into(),
                    ));
                }
                Some(_) => {
                    jwt.remember(token, &c);
                    c
                }
            }
        }
    };
    // The request's log lines name the caller (metrics::track's span).
    tracing::Span::current().record("user_id", tracing::field::display(claims.sub));
    Ok(AuthUser {
        id: claims.sub,
        username: claims.name,
        role: claims.role,
        generation: claims.generation,
    })
}
