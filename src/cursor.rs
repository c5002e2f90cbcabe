//! Cursors of lists ordered newest first by (time, id): a page's `next_before` is the last
//! row's position, and `before=` resumes after it.

use chrono::{DateTime, Utc};
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
