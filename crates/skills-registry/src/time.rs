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

/// How long before `now` the RFC 3339 time `iso` was, for people: `just now`, `5 minutes
/// ago`, `yesterday`, `12 days ago`, then the date (`2026-03-14`); `iso` itself when it does
/// not parse.
#[must_use]
pub(crate) fn ago(iso: &str, now: OffsetDateTime) -> String {
    let Ok(then) = OffsetDateTime::parse(iso, &Rfc3339) else {
        return iso.to_string();
    };
    let seconds = (now - then).whole_seconds();
    let plural = |n: i64, unit: &str| {
        if n == 1 {
            format!("1 {unit} ago")
        } else {
            format!("{n} {unit}s ago")
        }
    };
    match seconds {
        s if s < 60 => "just now".to_string(),
        s if s < 3600 => plural(s / 60, "minute"),
        s if s < 86_400 => plural(s / 3600, "hour"),
        s if s < 2 * 86_400 => "yesterday".to_string(),
        s if s < 31 * 86_400 => plural(s / 86_400, "day"),
        _ => then.date().to_string(),
    }
}

/// Now, as [`ago`] takes it.
#[must_use]
pub(crate) fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_people_say_them() {
        let now = OffsetDateTime::parse("2026-11-27T12:00:00Z", &Rfc3339).unwrap();
        for (iso, said) in [
            ("2026-11-27T11:59:30Z", "just now"),
            ("2026-11-27T11:59:00Z", "1 minute ago"),
            ("2026-11-27T11:15:00.250Z", "44 minutes ago"),
            ("2026-11-27T09:00:00Z", "3 hours ago"),
            ("2026-11-26T10:00:00Z", "yesterday"),
            ("2026-11-20T12:00:00Z", "7 days ago"),
            ("2026-03-14T08:00:00Z", "2026-03-14"),
            ("not a time", "not a time"),
        ] {
            assert_eq!(ago(iso, now), said, "{iso}");
        }
    }

    #[test]
    fn milliseconds_format_as_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_764_000_000_123), "2025-11-24T16:00:00.123Z");
        assert_eq!(rfc3339(i64::MAX), "1970-01-01T00:00:00Z");
        assert!(now_ms() > 1_764_000_000_000);
    }
}
