//! One error type for the whole API, rendered as RFC 7807 problem+json with our stable `code`s.

use crate::matches::view::View;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use games::engine::{RuleError, RuleErrorKind};

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    /// Malformed input: unparsable JSON, unknown fields, wrong types (400).
    #[error("{0}")]
    BadRequest(String),
    /// Well-formed input with values we refuse (422).
    #[error("{0}")]
    Validation(String),
    #[error("{0}")]
    Illegal(String),
    #[error("{0}")]
    NotYourTurn(String),
    #[error("the match is at version {}", .0.version())]
    VersionConflict(Box<View>),
    #[error("{0}")]
    InsufficientCoins(String),
    #[error("{0}")]
    SeatTaken(String),
    #[error("{0}")]
    MatchFull(String),
    #[error("{0}")]
    AlreadyRegistered(String),
    /// Too many requests; the second field is the `Retry-After` in seconds.
    #[error("{0}")]
    RateLimited(String, u32),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    /// The path is served, not with this method (405, with `Allow`).
    #[error("{0}")]
    MethodNotAllowed(String),
    #[error("{0}")]
    Unavailable(String),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

pub type ApiResult<T> = Result<T, ApiError>;

/// The `code` of an error response, kept in the response's extensions for the request log.
#[derive(Clone, Copy, Debug)]
pub struct ErrorCode(pub &'static str);

impl ApiError {
    /// Every `code` an error response may carry (the docs name each: a test compares them).
    pub const CODES: [&'static str; 16] = [
        "unauthorized",
        "forbidden",
        "not_found",
        "validation_failed",
        "illegal_action",
        "not_your_turn",
        "version_conflict",
        "insufficient_coins",
        "seat_taken",
        "match_full",
        "already_registered",
        "rate_limited",
        "conflict",
        "payload_too_large",
        "method_not_allowed",
        "unavailable",
    ];

    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::NotFound(_) => "not_found",
            ApiError::BadRequest(_) | ApiError::Validation(_) => "validation_failed",
            ApiError::Illegal(_) => "illegal_action",
            ApiError::NotYourTurn(_) => "not_your_turn",
            ApiError::VersionConflict(_) => "version_conflict",
            ApiError::InsufficientCoins(_) => "insufficient_coins",
            ApiError::SeatTaken(_) => "seat_taken",
            ApiError::MatchFull(_) => "match_full",
            ApiError::AlreadyRegistered(_) => "already_registered",
            ApiError::RateLimited(..) => "rate_limited",
            ApiError::Conflict(_) => "conflict",
            ApiError::PayloadTooLarge(_) => "payload_too_large",
            ApiError::MethodNotAllowed(_) => "method_not_allowed",
            ApiError::Unavailable(_) => "unavailable",
            ApiError::Internal(_) => "internal",
        }
    }

    fn title(&self) -> &'static str {
        match self {
            ApiError::Unauthorized(_) => "Unauthorized",
            ApiError::Forbidden(_) => "Forbidden",
            ApiError::NotFound(_) => "Not found",
            ApiError::BadRequest(_) => "Bad request",
            ApiError::Validation(_) => "Validation failed",
            ApiError::Illegal(_) => "Illegal action",
            ApiError::NotYourTurn(_) => "Not your turn",
            ApiError::VersionConflict(_) => "Version conflict",
            ApiError::InsufficientCoins(_) => "Insufficient coins",
            ApiError::SeatTaken(_) => "Seat taken",
            ApiError::MatchFull(_) => "Match full",
            ApiError::AlreadyRegistered(_) => "Already registered",
            ApiError::RateLimited(..) => "Too many requests",
            ApiError::Conflict(_) => "Conflict",
            ApiError::PayloadTooLarge(_) => "Payload too large",
            ApiError::MethodNotAllowed(_) => "Method not allowed",
            ApiError::Unavailable(_) => "Service unavailable",
            ApiError::Internal(_) => "Internal error",
        }
    }

    fn detail(&self) -> String {
        match self {
            ApiError::Internal(_) => "the server failed to handle this request".into(),
            ApiError::VersionConflict(view) => format!(
                "the action was for another version; the match is now at version {}",
                view.version()
            ),
            other => other.to_string(),
        }
    }

    /// The problem+json body.
    pub fn problem(&self) -> Problem<'_> {
        Problem {
            kind: "about:blank",
            title: self.title(),
            status: self.status_code().as_u16(),
            code: self.code(),
            detail: self.detail(),
            view: match self {
                ApiError::VersionConflict(view) => Some(&**view),
                _ => None,
            },
        }
    }
}

/// RFC 7807 body; a `version_conflict` carries the current view.
#[derive(Debug, serde::Serialize)]
pub struct Problem<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub title: &'static str,
    pub status: u16,
    pub code: &'static str,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<&'a View>,
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Validation(_) | ApiError::Illegal(_) | ApiError::InsufficientCoins(_) => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ApiError::NotYourTurn(_)
            | ApiError::VersionConflict(_)
            | ApiError::SeatTaken(_)
            | ApiError::MatchFull(_)
            | ApiError::AlreadyRegistered(_)
            | ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::RateLimited(..) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Internal(e) = self {
            tracing::error!(error = ?e, "request failed");
        }
        let mut res = HttpResponse::build(self.status_code());
        res.content_type("application/problem+json");
        if matches!(self, ApiError::Unauthorized(_)) {
            res.insert_header(("WWW-Authenticate", "Bearer"));
        }
        match self {
            ApiError::Unavailable(_) => {
                res.insert_header(("Retry-After", "2"));
            }
            ApiError::RateLimited(_, secs) => {
                res.insert_header(("Retry-After", secs.to_string()));
            }
            _ => {}
        }
        let mut res = res.json(self.problem());
        // The request log names the refusal (metrics::track).
        res.extensions_mut().insert(ErrorCode(self.code()));
        res
    }
}

impl From<RuleError> for ApiError {
    fn from(e: RuleError) -> Self {
        match e.kind {
            RuleErrorKind::Invalid => ApiError::Validation(e.detail),
            RuleErrorKind::Illegal => ApiError::Illegal(e.detail),
            RuleErrorKind::NotYourTurn => ApiError::NotYourTurn(e.detail),
            RuleErrorKind::InsufficientCoins => ApiError::InsufficientCoins(e.detail),
        }
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        if let Some(db) = e.as_database_error() {
            match db.code().as_deref() {
                // lock_not_available: another request holds the match; the client retries.
                Some("55P03") => {
                    return ApiError::Conflict(
                        "the match is busy with another action; retry".into(),
                    );
                }
                Some("40001") | Some("40P01") => {
                    return ApiError::Conflict("concurrent update; retry".into());
                }
                // Text PostgreSQL cannot store: a NUL character in a string or JSON value.
                Some("22021") | Some("22P05") => {
                    return ApiError::BadRequest(
                        "text and JSON strings must not contain NUL (\\u0000) characters".into(),
                    );
                }
                // The server is shutting down or restarting, or the connection broke.
                Some(code) if code.starts_with("57P") || code.starts_with("08") => {
                    return ApiError::Unavailable(
                        "the database is not reachable right now; retry".into(),
                    );
                }
                Some("23514") if db.constraint() == Some("accounts_balance_not_negative") => {
                    return ApiError::InsufficientCoins(
                        "not enough coins in the wallet for this".into(),
                    );
                }
                _ => {}
            }
        }
        if matches!(
            e,
            sqlx::Error::PoolTimedOut | sqlx::Error::Io(_) | sqlx::Error::PoolClosed
        ) {
            return ApiError::Unavailable("the database is not reachable right now; retry".into());
        }
        ApiError::Internal(e.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `CODES` lists the code of every variant (an internal error's `internal` included).
    #[test]
    fn codes_lists_every_variant() {
        let s = String::new;
        let view = View::render(uuid::Uuid::nil(), 1, &serde_json::json!({}));
        let all = [
            ApiError::Unauthorized(s()),
            ApiError::Forbidden(s()),
            ApiError::NotFound(s()),
            ApiError::BadRequest(s()),
            ApiError::Validation(s()),
            ApiError::Illegal(s()),
            ApiError::NotYourTurn(s()),
            ApiError::VersionConflict(Box::new(view)),
            ApiError::InsufficientCoins(s()),
            ApiError::SeatTaken(s()),
            ApiError::MatchFull(s()),
            ApiError::AlreadyRegistered(s()),
            ApiError::RateLimited(s(), 1),
            ApiError::Conflict(s()),
            ApiError::PayloadTooLarge(s()),
            ApiError::MethodNotAllowed(s()),
            ApiError::Unavailable(s()),
        ];
        for e in &all {
            // A new variant must be added here, and its code to CODES.
            match e {
                ApiError::Unauthorized(_)
                | ApiError::Forbidden(_)
                | ApiError::NotFound(_)
                | ApiError::BadRequest(_)
                | ApiError::Validation(_)
                | ApiError::Illegal(_)
                | ApiError::NotYourTurn(_)
                | ApiError::VersionConflict(_)
                | ApiError::InsufficientCoins(_)
                | ApiError::SeatTaken(_)
                | ApiError::MatchFull(_)
                | ApiError::AlreadyRegistered(_)
                | ApiError::RateLimited(..)
                | ApiError::Conflict(_)
                | ApiError::PayloadTooLarge(_)
                | ApiError::MethodNotAllowed(_)
                | ApiError::Unavailable(_)
                | ApiError::Internal(_) => {}
            }
            assert!(ApiError::CODES.contains(&e.code()), "{}", e.code());
        }
        let used: std::collections::BTreeSet<_> = all.iter().map(ApiError::code).collect();
        assert_eq!(
            used.len(),
            ApiError::CODES.len(),
            "no code in CODES is unused"
        );
        assert_eq!(ApiError::Internal(anyhow::anyhow!("x")).code(), "internal");
    }
}
