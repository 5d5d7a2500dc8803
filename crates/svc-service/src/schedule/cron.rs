//! Cron schedules: parsing (five fields, or six with seconds first, or an
//! `@` alias) and the next firing instant in the scrap's time zone.
//!
//! Daylight-saving policy (Vixie cron, as croner implements it): a local
//! time that does not exist (spring forward) fires once, at the next valid
//! instant; a local time that occurs twice (fall back) fires once, at its
//! first occurrence.

use std::time::Duration;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

/// Parses a cron expression; the error says what is wrong with it.
pub fn parse(expr: &str) -> Result<Cron, String> {
    CronParser::builder()
        .seconds(Seconds::Optional)
        .year(Year::Disallowed)
        .build()
        .parse(expr)
        .map_err(|e| format!("invalid cron expression: {e}"))
}

/// The first firing strictly after `after`, or `None` if it never fires again.
pub fn next_fire(cron: &Cron, tz: Tz, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
    cron.find_next_occurrence(&after.with_timezone(&tz), false).ok().map(|t| t.with_timezone(&Utc))
}

/// The first firing of a scrap's schedule strictly after `after` (`None`
/// for manual-only scraps and for expressions that never fire again).
pub fn next_fire_of(cron: Option<&str>, timezone: &str, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let cron = parse(cron?).ok()?;
    let tz: Tz = timezone.parse().ok()?;
    next_fire(&cron, tz, after)
}

/// The shortest gap between the next `samples` firings after `from`
/// (`None` when it fires fewer than twice).
pub fn shortest_gap(cron: &Cron, tz: Tz, from: DateTime<Utc>, samples: usize) -> Option<Duration> {
    let mut at = next_fire(cron, tz, from)?;
    let mut shortest: Option<Duration> = None;
    for _ in 1..samples {
        let Some(next) = next_fire(cron, tz, at) else { break };
        let gap = (next - at).to_std().unwrap_or_default();
        shortest = Some(shortest.map_or(gap, |s| s.min(gap)));
        at = next;
    }
    shortest
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn next(expr: &str, tz: Tz, after: &str) -> String {
        next_fire(&parse(expr).unwrap(), tz, utc(after)).unwrap().to_rfc3339()
    }

    #[test]
    fn five_and_six_fields_and_aliases() {
        assert_eq!(next("*/15 * * * *", chrono_tz::UTC, "2026-01-01T00:07:00Z"), "2026-01-01T00:15:00+00:00");
        assert_eq!(next("30 */10 * * * *", chrono_tz::UTC, "2026-01-01T00:07:00Z"), "2026-01-01T00:10:30+00:00");
        assert_eq!(next("@hourly", chrono_tz::UTC, "2026-01-01T00:07:00Z"), "2026-01-01T01:00:00+00:00");
        assert!(parse("not cron").is_err());
        assert!(parse("61 * * * *").is_err());
        assert!(parse("* * * * * * 2026").is_err(), "no year field");
    }

    #[test]
    fn firing_is_strictly_after_the_given_instant() {
        assert_eq!(next("0 9 * * *", chrono_tz::UTC, "2026-01-01T09:00:00Z"), "2026-01-02T09:00:00+00:00");
    }

    #[test]
    fn paris_spring_forward_fires_once_at_the_next_valid_instant() {
        // 2026-03-29: 02:00 -> 03:00 local in Europe/Paris; 02:30 does not exist.
        let tz = chrono_tz::Europe::Paris;
        assert_eq!(next("30 2 * * *", tz, "2026-03-29T00:00:00Z"), "2026-03-29T01:00:00+00:00");
        assert_eq!(next("30 2 * * *", tz, "2026-03-29T01:00:00Z"), "2026-03-30T00:30:00+00:00");
    }

    #[test]
    fn new_york_fall_back_fires_once() {
        // 2026-11-01: 02:00 EDT -> 01:00 EST; 01:30 happens twice.
        let tz = chrono_tz::America::New_York;
        let first = next("30 1 * * *", tz, "2026-11-01T04:00:00Z");
        assert_eq!(first, "2026-11-01T05:30:00+00:00", "the first 01:30 (EDT)");
        assert_eq!(
            next("30 1 * * *", tz, "2026-11-01T05:30:00Z"),
            "2026-11-02T06:30:00+00:00",
            "not again at 01:30 EST"
        );
    }

    #[test]
    fn lord_howe_half_hour_shift_and_kathmandu_offset() {
        // Lord Howe moves clocks by 30 minutes: 2026-10-04 02:00 -> 02:30 local.
        let lh = chrono_tz::Australia::Lord_Howe;
        let fired = next_fire(&parse("15 2 * * *").unwrap(), lh, utc("2026-10-03T12:00:00Z")).unwrap();
        assert_eq!(fired.with_timezone(&lh).format("%Y-%m-%d %H:%M").to_string(), "2026-10-04 02:30");
        // Kathmandu is UTC+05:45 all year.
        assert_eq!(next("0 9 * * *", chrono_tz::Asia::Kathmandu, "2026-06-01T00:00:00Z"), "2026-06-01T03:15:00+00:00");
    }

    #[test]
    fn next_fire_is_always_after_the_instant_across_zones_and_expressions() {
        let zones = [
            chrono_tz::UTC,
            chrono_tz::Europe::Paris,
            chrono_tz::America::New_York,
            chrono_tz::Australia::Lord_Howe,
            chrono_tz::Asia::Kathmandu,
        ];
        let exprs = ["* * * * *", "*/7 * * * * *", "30 2 * * *", "0 0 1 * *", "15 1 * * SUN", "59 23 31 12 *"];
        let mut t = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        let mut state: u64 = 0x9e3779b97f4a7c15;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            t += chrono::Duration::seconds((state % 86_400) as i64 * 3 + 1);
            let tz = zones[(state % zones.len() as u64) as usize];
            let expr = exprs[((state >> 8) % exprs.len() as u64) as usize];
            let fired = next_fire(&parse(expr).unwrap(), tz, t).unwrap();
            assert!(fired > t, "{expr} in {tz} after {t}: {fired}");
        }
    }

    #[test]
    fn gaps() {
        let gap = shortest_gap(&parse("*/10 * * * * *").unwrap(), chrono_tz::UTC, Utc::now(), 6).unwrap();
        assert_eq!(gap, Duration::from_secs(10));
        assert!(shortest_gap(&parse("0 0 30 2 *").unwrap(), chrono_tz::UTC, Utc::now(), 6).is_none());
    }
}
