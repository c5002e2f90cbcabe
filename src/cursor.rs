//! Cursors of lists ordered newest first by (time, id): a page's `next_before` is the last
//! row's position, and `before=` resumes after it.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};

pub fn encode(at: DateTime<Utc>, id: Uuid) -> String {
    format!("{}_{id}", at.timestamp_micros())
}

pub fn decode(c: &str) -> ApiResult<(DateTime<Utc>, Uuid)> {
    c.split_once('_')
        .and_then(|(at, id)| {
            let at = DateTime::from_timestamp_micros(at.parse().ok()?)?;
            Some((at, id.parse().ok()?))
        })
        .ok_or_else(|| {
            ApiError::Validation(format!(
                "before must be the next_before of an earlier page, got {c:?}"
            ))
        })
}

/// A page's `limit`: from 1 to `max`, `default` when absent.
pub fn limit(limit: Option<i64>, default: i64, max: i64) -> ApiResult<i64> {
    let l = limit.unwrap_or(default);
    if (1..=max).contains(&l) {
        Ok(l)
    } else {
        Err(ApiError::Validation(format!(
            "limit must be from 1 to {max}, got {l}"
        )))
    }
}

/// The query of a newest-first list: filters by game and status, and a page.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    pub game: Option<String>,
    pub status: Option<String>,
    pub limit: Option<i64>,
    /// The `next_before` of the previous page.
    pub before: Option<String>,
}

/// One page of `rows` fetched with `limit + 1`: the rows to show and the `next_before` cursor
/// (the last shown row's position, `at`) when more follow.
pub fn page<T, C>(mut rows: Vec<T>, limit: i64, at: impl Fn(&T) -> C) -> (Vec<T>, Option<C>) {
    let has_more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next = if has_more { rows.last().map(at) } else { None };
    (rows, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_and_garbage_is_refused() {
        let at = DateTime::from_timestamp_micros(1_790_000_000_123_456).unwrap();
        let id = Uuid::new_v4();
        assert_eq!(decode(&encode(at, id)).unwrap(), (at, id));
        for bad in [
            "",
            "_",
            "12",
            "x_",
            "1_not-a-uuid",
            &format!("9999999999999999999_{id}"),
        ] {
            assert!(decode(bad).is_err(), "{bad:?}");
        }
        assert!(limit(Some(0), 50, 200).is_err());
        assert_eq!(limit(None, 50, 200).unwrap(), 50);
    }
}
