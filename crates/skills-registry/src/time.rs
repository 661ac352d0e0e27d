//! Times as the registry stores them (Unix milliseconds) and shows them (RFC 3339, UTC).

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Now, in Unix milliseconds.
#[must_use]
pub(crate) fn now_ms() -> i64 {
    let nanos = OffsetDateTime::now_utc().unix_timestamp_nanos();
    i64::try_from(nanos / 1_000_000).unwrap_or(i64::MAX)
}

/// Now, in Unix seconds.
#[must_use]
pub(crate) fn unix_seconds() -> u64 {
    u64::try_from(OffsetDateTime::now_utc().unix_timestamp()).unwrap_or(0)
}

/// `ms` (Unix milliseconds) as RFC 3339 in UTC, `1970-01-01T00:00:00Z` for a value out of
/// range.
#[must_use]
pub fn rfc3339(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_format_as_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_764_000_000_123), "2025-11-24T16:00:00.123Z");
        assert_eq!(rfc3339(i64::MAX), "1970-01-01T00:00:00Z");
        assert!(now_ms() > 1_764_000_000_000);
    }
}
