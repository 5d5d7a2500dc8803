//! The weekly plan renewal's calendar (pure): a renewal week starts on
//! Monday 00:00 UTC, and the first scheduler pass at or after that instant
//! tops Growth and Pro balances up to their weekly amount (`Scheduler::renew`,
//! `AccountStore::renew_plans`).

use chrono::{DateTime, Datelike, Days, Duration, Utc};

/// The Monday 00:00 UTC that starts the renewal week holding `at` (`at`
/// itself when it is that instant).
pub fn week_start(at: DateTime<Utc>) -> DateTime<Utc> {
    let back = Days::new(at.weekday().num_days_from_monday().into());
    let monday = at.date_naive().checked_sub_days(back).unwrap_or(chrono::NaiveDate::MIN);
    monday.and_time(chrono::NaiveTime::MIN).and_utc()
}

/// The next renewal strictly after `now`: the start of the following week
/// (at Monday 00:00 UTC exactly, that week's renewal is due now, so the
/// next one is a week later).
pub fn next_renewal(now: DateTime<Utc>) -> DateTime<Utc> {
    week_start(now) + Duration::days(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn a_week_starts_on_monday_at_midnight_utc() {
        // Monday 2026-01-12.
        assert_eq!(week_start(utc("2026-01-12T00:00:00Z")), utc("2026-01-12T00:00:00Z"));
        assert_eq!(week_start(utc("2026-01-12T00:00:00.001Z")), utc("2026-01-12T00:00:00Z"));
        assert_eq!(week_start(utc("2026-01-14T13:45:10Z")), utc("2026-01-12T00:00:00Z"));
        assert_eq!(week_start(utc("2026-01-18T23:59:59.999Z")), utc("2026-01-12T00:00:00Z"), "Sunday ends it");
        assert_eq!(week_start(utc("2026-01-11T23:59:00Z")), utc("2026-01-05T00:00:00Z"));
        // UTC, whatever offset the instant was written with.
        assert_eq!(week_start(utc("2026-01-12T00:30:00+02:00")), utc("2026-01-05T00:00:00Z"));
    }

    #[test]
    fn the_next_renewal_is_strictly_after_now() {
        assert_eq!(next_renewal(utc("2026-01-18T23:59:00Z")), utc("2026-01-19T00:00:00Z"), "Sunday 23:59");
        assert_eq!(next_renewal(utc("2026-01-18T23:59:59.999Z")), utc("2026-01-19T00:00:00Z"));
        assert_eq!(next_renewal(utc("2026-01-19T00:00:00Z")), utc("2026-01-26T00:00:00Z"), "Monday 00:00 exactly");
        assert_eq!(next_renewal(utc("2026-01-13T08:00:00Z")), utc("2026-01-19T00:00:00Z"));
    }

    #[test]
    fn weeks_cross_year_boundaries_and_leap_days() {
        // 2024 is a leap year: Thursday 29 February is in the week of Monday 26 February.
        assert_eq!(week_start(utc("2024-02-29T12:00:00Z")), utc("2024-02-26T00:00:00Z"));
        assert_eq!(next_renewal(utc("2024-02-29T12:00:00Z")), utc("2024-03-04T00:00:00Z"));
        assert_eq!(week_start(utc("2028-03-01T00:00:00Z")), utc("2028-02-28T00:00:00Z"), "across 29 Feb 2028");
        // 2100 is not a leap year.
        assert_eq!(next_renewal(utc("2100-02-27T00:00:00Z")), utc("2100-03-01T00:00:00Z"));
        // New Year's Day 2026 is a Thursday: its week started in 2025.
        assert_eq!(week_start(utc("2026-01-01T09:00:00Z")), utc("2025-12-29T00:00:00Z"));
        assert_eq!(next_renewal(utc("2025-12-31T23:59:59Z")), utc("2026-01-05T00:00:00Z"));
        // 2029 starts on a Monday.
        assert_eq!(week_start(utc("2029-01-01T00:00:00Z")), utc("2029-01-01T00:00:00Z"));
        assert_eq!(week_start(utc("2028-12-31T23:59:59Z")), utc("2028-12-25T00:00:00Z"));
        // The epoch was a Thursday.
        assert_eq!(week_start(DateTime::UNIX_EPOCH), utc("1969-12-29T00:00:00Z"));
    }

    #[test]
    fn every_instant_of_a_week_has_the_same_start() {
        let monday = utc("2026-03-02T00:00:00Z");
        for minutes in (0..7 * 24 * 60).step_by(37) {
            let at = monday + Duration::minutes(minutes);
            assert_eq!(week_start(at), monday, "{at}");
            assert_eq!(next_renewal(at), monday + Duration::days(7), "{at}");
        }
        assert_eq!(week_start(monday - Duration::milliseconds(1)), monday - Duration::days(7));
    }
}
