//! One error type for the whole API, rendered as RFC 7807 problem+json with our stable `code`s.

use crate::matches::view::View;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};
use games::cards::Card;
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
    /// A game's rules refused an action or options: the rule's code, the offending cards and
    /// the sentence in both languages (`localize` picks one).
    #[error("{}", .0.detail)]
    Refused(Box<RuleError>),
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
    /// A rematch of a match that offers none: not finished, a tournament table, a coin room.
    #[error("{0}")]
    RematchNotOffered(String),
    /// A seat of a rematch kept for the player who sat in it at the match before.
    #[error("{0}")]
    SeatReserved(String),
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
    pub const CODES: [&'static str; 18] = [
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
        "rematch_not_offered",
        "seat_reserved",
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
            ApiError::Refused(e) => match e.kind {
                RuleErrorKind::Invalid => "validation_failed",
                RuleErrorKind::Illegal => "illegal_action",
                RuleErrorKind::NotYourTurn => "not_your_turn",
                RuleErrorKind::InsufficientCoins => "insufficient_coins",
            },
            ApiError::NotYourTurn(_) => "not_your_turn",
            ApiError::VersionConflict(_) => "version_conflict",
            ApiError::InsufficientCoins(_) => "insufficient_coins",
            ApiError::SeatTaken(_) => "seat_taken",
            ApiError::MatchFull(_) => "match_full",
            ApiError::AlreadyRegistered(_) => "already_registered",
            ApiError::RateLimited(..) => "rate_limited",
            ApiError::Conflict(_) => "conflict",
            ApiError::RematchNotOffered(_) => "rematch_not_offered",
            ApiError::SeatReserved(_) => "seat_reserved",
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
            ApiError::Refused(e) => match e.kind {
                RuleErrorKind::Invalid => "Validation failed",
                RuleErrorKind::Illegal => "Illegal action",
                RuleErrorKind::NotYourTurn => "Not your turn",
                RuleErrorKind::InsufficientCoins => "Insufficient coins",
            },
            ApiError::NotYourTurn(_) => "Not your turn",
            ApiError::VersionConflict(_) => "Version conflict",
            ApiError::InsufficientCoins(_) => "Insufficient coins",
            ApiError::SeatTaken(_) => "Seat taken",
            ApiError::MatchFull(_) => "Match full",
            ApiError::AlreadyRegistered(_) => "Already registered",
            ApiError::RateLimited(..) => "Too many requests",
            ApiError::Conflict(_) => "Conflict",
            ApiError::RematchNotOffered(_) => "No rematch offered",
            ApiError::SeatReserved(_) => "Seat reserved",
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
        let refusal = match self {
            ApiError::Refused(e) => Some(&**e),
            _ => None,
        };
        Problem {
            kind: "about:blank",
            title: self.title(),
            status: self.status_code().as_u16(),
            code: self.code(),
            rule: refusal.map(|e| e.rule),
            cards: refusal
                .map(|e| e.cards.as_slice())
                .filter(|c| !c.is_empty()),
            detail: self.detail(),
            view: match self {
                ApiError::VersionConflict(view) => Some(&**view),
                _ => None,
            },
        }
    }
}

/// An error (RFC 7807 problem+json). Clients key on `code`; a `version_conflict` carries the
/// current view.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[schema(as = Problem)]
pub struct Problem<'a> {
    /// Always `about:blank`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub title: &'static str,
    /// The HTTP status.
    pub status: u16,
    /// What went wrong, stable: one of the codes listed here (api.md § Errors).
    #[schema(value_type = ProblemCode)]
    pub code: &'static str,
    /// A game's refusal: the rule broken, stable per game (see `<Game>RuleCode`); key on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::api_types::RuleCode>)]
    pub rule: Option<&'static str>,
    /// A game's refusal about particular cards: those of the action that break the rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<crate::api_types::Card>>)]
    pub cards: Option<&'a [Card]>,
    /// A sentence for people, never to parse. A game's refusal says it in Chinese when the
    /// request's `Accept-Language` prefers Chinese (`Content-Language` tells which).
    pub detail: String,
    /// `version_conflict`: the match as it is now, for the caller's seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::api_types::MatchView>)]
    pub view: Option<&'a View>,
}

/// The `code` of an error: [`ApiError::CODES`] and `internal`.
pub struct ProblemCode;

impl utoipa::PartialSchema for ProblemCode {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .enum_values(Some(ApiError::CODES.iter().copied().chain(["internal"])))
            .into()
    }
}

impl utoipa::ToSchema for ProblemCode {}

/// The response every error shares: a [`Problem`] as `application/problem+json`.
pub struct ProblemResponse;

impl<'r> utoipa::ToResponse<'r> for ProblemResponse {
    fn response() -> (
        &'r str,
        utoipa::openapi::RefOr<utoipa::openapi::response::Response>,
    ) {
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
        let content = ContentBuilder::new()
            .schema(Some(Ref::from_schema_name("Problem")))
            .build();
        (
            "Problem",
            ResponseBuilder::new()
                .description("An error")
                .content("application/problem+json", content)
                .into(),
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Validation(_) | ApiError::InsufficientCoins(_) => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ApiError::Refused(e) => match e.kind {
                RuleErrorKind::NotYourTurn => StatusCode::CONFLICT,
                _ => StatusCode::UNPROCESSABLE_ENTITY,
            },
            ApiError::NotYourTurn(_)
            | ApiError::VersionConflict(_)
            | ApiError::SeatTaken(_)
            | ApiError::MatchFull(_)
            | ApiError::AlreadyRegistered(_)
            | ApiError::Conflict(_)
            | ApiError::RematchNotOffered(_)
            | ApiError::SeatReserved(_) => StatusCode::CONFLICT,
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
        let problem = self.problem();
        let mut res = res.json(&problem);
        // The request log names the refusal (metrics::track).
        res.extensions_mut().insert(ErrorCode(self.code()));
        if let ApiError::Refused(e) = self {
            let chinese = Problem {
                detail: e.detail_zh.clone(),
                ..problem
            };
            if let Ok(body) = serde_json::to_vec(&chinese) {
                res.extensions_mut().insert(InChinese(body));
            }
        }
        res
    }
}

impl ApiError {
    /// The platform refusing an action for `rule`.
    pub fn refused(
        rule: crate::api_types::PlatformRule,
        detail: String,
        detail_zh: String,
    ) -> ApiError {
        ApiError::Refused(Box::new(RuleError::illegal(rule, detail, detail_zh)))
    }
}

/// A refusal's problem+json with its Chinese sentence, for `localize`.
struct InChinese(Vec<u8>);

/// A game's refusal answers in the language the request's `Accept-Language` prefers: Chinese
/// when it ranks `zh` above `en`, else English. Other errors are English only.
pub async fn localize(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let chinese = req
        .headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(prefers_chinese);
    let res = next.call(req).await?.map_into_boxed_body();
    let Some(body) = res
        .response()
        .extensions()
        .get::<InChinese>()
        .map(|b| b.0.clone())
    else {
        return Ok(res);
    };
    let mut res = if chinese {
        res.map_body(|_, _| BoxBody::new(body))
    } else {
        res
    };
    let headers = res.headers_mut();
    let language = if chinese { "zh" } else { "en" };
    headers.insert(header::CONTENT_LANGUAGE, HeaderValue::from_static(language));
    // Beside what CORS varies on.
    let vary = match headers.get(header::VARY).and_then(|v| v.to_str().ok()) {
        Some(v) if !v.is_empty() => format!("{v}, Accept-Language"),
        _ => "Accept-Language".to_string(),
    };
    if let Ok(v) = HeaderValue::from_str(&vary) {
        headers.insert(header::VARY, v);
    }
    Ok(res)
}

/// Whether an `Accept-Language` value ranks Chinese above English (RFC 9110 § 12.5.4: the
/// highest `q` wins, the earlier on a tie; a language not named has `q` 0).
fn prefers_chinese(value: &str) -> bool {
    let mut best: Option<(f32, bool)> = None;
    for item in value.split(',') {
        let mut parts = item.split(';');
        let tag = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let zh = tag == "zh" || tag.starts_with("zh-");
        let en = tag == "en" || tag.starts_with("en-");
        if (zh || en) && q > 0.0 && best.is_none_or(|(b, _)| q > b) {
            best = Some((q, zh));
        }
    }
    best.is_some_and(|(_, zh)| zh)
}

impl From<RuleError> for ApiError {
    fn from(e: RuleError) -> Self {
        ApiError::Refused(Box::new(e))
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
            ApiError::NotYourTurn(s()),
            ApiError::VersionConflict(Box::new(view)),
            ApiError::InsufficientCoins(s()),
            ApiError::SeatTaken(s()),
            ApiError::MatchFull(s()),
            ApiError::AlreadyRegistered(s()),
            ApiError::RateLimited(s(), 1),
            ApiError::Conflict(s()),
            ApiError::RematchNotOffered(s()),
            ApiError::SeatReserved(s()),
            ApiError::PayloadTooLarge(s()),
            ApiError::MethodNotAllowed(s()),
            ApiError::Unavailable(s()),
            ApiError::Refused(Box::new(RuleError::illegal(
                games::engine::Shared::NotInHand,
                "",
                "",
            ))),
        ];
        for e in &all {
            // A new variant must be added here, and its code to CODES.
            match e {
                ApiError::Unauthorized(_)
                | ApiError::Forbidden(_)
                | ApiError::NotFound(_)
                | ApiError::BadRequest(_)
                | ApiError::Validation(_)
                | ApiError::NotYourTurn(_)
                | ApiError::VersionConflict(_)
                | ApiError::InsufficientCoins(_)
                | ApiError::SeatTaken(_)
                | ApiError::MatchFull(_)
                | ApiError::AlreadyRegistered(_)
                | ApiError::RateLimited(..)
                | ApiError::Conflict(_)
                | ApiError::RematchNotOffered(_)
                | ApiError::SeatReserved(_)
                | ApiError::PayloadTooLarge(_)
                | ApiError::MethodNotAllowed(_)
                | ApiError::Unavailable(_)
                | ApiError::Refused(_)
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

    #[test]
    fn accept_language_picks_chinese_only_when_ranked_above_english() {
        assert!(prefers_chinese("zh-CN,zh;q=0.9,en;q=0.8"));
        assert!(prefers_chinese("zh"));
        assert!(prefers_chinese("fr, zh-Hans;q=0.5"));
        assert!(prefers_chinese("en;q=0.3, ZH-tw"));
        assert!(!prefers_chinese("en-US,en;q=0.9,zh;q=0.8"));
        assert!(!prefers_chinese("en, zh"));
        assert!(!prefers_chinese("zh;q=0, en;q=0.1"));
        assert!(!prefers_chinese("fr"));
        assert!(!prefers_chinese(""));
        assert!(!prefers_chinese("*"));
    }

    /// A refusal keeps its code, kind and cards, and renders the Chinese sentence for
    /// `localize` beside the English one.
    #[test]
    fn a_refusal_carries_its_rule_cards_and_both_sentences() {
        let card = games::cards::Card::parse("RJ").unwrap();
        let e: ApiError = RuleError::illegal(
            games::engine::Shared::NotInHand,
            "you do not hold RJ",
            "你没有 RJ",
        )
        .with_cards(vec![card])
        .into();
        assert_eq!(e.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
        let body = serde_json::to_value(e.problem()).unwrap();
        assert_eq!(body["code"], "illegal_action");
        assert_eq!(body["rule"], "not_in_hand");
        assert_eq!(body["cards"], serde_json::json!(["RJ"]));
        assert_eq!(body["detail"], "you do not hold RJ");
        let res = e.error_response();
        let zh = res.extensions().get::<InChinese>().unwrap().0.clone();
        let zh: serde_json::Value = serde_json::from_slice(&zh).unwrap();
        assert_eq!(zh["detail"], "你没有 RJ");
        assert_eq!(zh["rule"], "not_in_hand");
    }
}
