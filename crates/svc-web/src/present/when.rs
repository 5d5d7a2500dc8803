//! Times as people read them: relative ("5 min ago", "in 2 h") next to the
//! absolute instant (kept in the `datetime` attribute and the tooltip).

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

/// A time with its relative and absolute forms.
#[derive(Clone, Debug, PartialEq)]
pub struct Moment {
    /// RFC 3339, for `<time datetime>`.
    pub iso: String,
    /// "2026-11-23 14:05 UTC" (or in the given time zone).
    pub absolute: String,
    /// "5 min ago", "in 2 h", "just now".
    pub relative: String,
}

pub fn moment(at: DateTime<Utc>, now: DateTime<Utc>) -> Moment {
    Moment {
        iso: at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        absolute: at.format("%Y-%m-%d %H:%M UTC").to_string(),
        relative: relative(at, now),
    }
}

/// Like [`moment`], with the absolute form in time zone `tz`.
pub fn moment_in(at: DateTime<Utc>, now: DateTime<Utc>, tz: Tz) -> Moment {
    let local = at.with_timezone(&tz);
    Moment { absolute: local.format("%a %Y-%m-%d %H:%M %Z").to_string(), ..moment(at, now) }
}

fn relative(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let secs = (now - at).num_seconds();
    let (past, n) = (secs >= 0, secs.unsigned_abs());
    let amount = match n {
        0..=44 => return "just now".into(),
        45..=5_399 => format!("{} min", n.div_ceil(60).max(1)),
        5_400..=129_599 => format!("{} h", (n + 1_800) / 3_600),
        _ => format!("{} days", (n + 43_200) / 86_400),
    };
    if past { format!("{amount} ago") } else { format!("in {amount}") }
}

/// A duration in milliseconds as "850 ms", "3.2 s", "2 min 5 s".
pub fn duration_ms(ms: i64) -> String {
    match ms {
        ..=999 => format!("{ms} ms"),
        1_000..=59_999 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000),
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    #[test]
    fn relative_times_read_naturally() {
        let now = Utc::now();
        assert_eq!(relative(now, now), "just now");
        assert_eq!(relative(now - Duration::minutes(5), now), "5 min ago");
        assert_eq!(relative(now + Duration::minutes(15), now), "in 15 min");
        assert_eq!(relative(now - Duration::hours(3), now), "3 h ago");
        assert_eq!(relative(now - Duration::days(4), now), "4 days ago");
    }

    #[test]
    fn absolute_time_is_in_the_zone_asked() {
        let at = DateTime::parse_from_rfc3339("2026-11-23T14:05:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(moment(at, at).absolute, "2026-11-23 14:05 UTC");
        assert_eq!(moment_in(at, at, chrono_tz::Europe::Paris).absolute, "Mon 2026-11-23 15:05 CET");
        assert_eq!(moment(at, at).iso, "2026-11-23T14:05:00Z");
    }

    #[test]
    fn durations() {
        assert_eq!(duration_ms(850), "850 ms");
        assert_eq!(duration_ms(3_240), "3.2 s");
        assert_eq!(duration_ms(125_000), "2 min 5 s");
    }
}
