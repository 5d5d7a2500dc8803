//! Cron parsing and the next firing (svc_service::schedule::cron): any text is
//! parsed or refused without a panic, and in every zone the next firing
//! after an instant is strictly after it (and the one after that, after it).

#![no_main]

use arbitrary::Arbitrary;
use chrono::{DateTime, Utc};
use libfuzzer_sys::fuzz_target;
use svc_service::schedule::cron::{next_fire, next_fire_of, parse, shortest_gap};

/// Pieces that cron fields are made of, so that most generated expressions
/// are valid ones.
const TOKENS: &[&str] = &[
    "*", "?", "0", "1", "2", "3", "5", "7", "10", "12", "15", "23", "24", "28", "29", "30", "31", "32", "59", "60",
    "-", ",", "/", "L", "W", "#", "LW", "5L", "MON", "SUN", "SAT", "FRI", "JAN", "FEB", "DEC", "1-5", "*/2", "0-59/7",
];
const ALIASES: &[&str] =
    &["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly", "@reboot", "@every"];

/// 1900-01-01 to 2400-01-01 (UTC), the instants tried.
const FROM: i64 = -2_208_988_800;
const SPAN: i64 = 13_569_465_600 - FROM;

#[derive(Arbitrary, Debug)]
enum Expr {
    Text(String),
    Fields(Vec<Vec<u8>>),
    Alias(u8),
}

#[derive(Arbitrary, Debug)]
struct Input {
    expr: Expr,
    zone: u16,
    zone_text: String,
    secs: i64,
    nanos: u32,
}

fn text(expr: &Expr) -> String {
    match expr {
        Expr::Text(s) => s.clone(),
        Expr::Fields(fields) => fields
            .iter()
            .take(7)
            .map(|f| f.iter().take(6).map(|&t| TOKENS[usize::from(t) % TOKENS.len()]).collect::<String>())
            .collect::<Vec<_>>()
            .join(" "),
        Expr::Alias(a) => ALIASES[usize::from(*a) % ALIASES.len()].to_string(),
    }
}

fn check_after(expr: &str, zone: &str, after: DateTime<Utc>, next: Option<DateTime<Utc>>) {
    if let Some(next) = next {
        assert!(next > after, "`{expr}` in {zone}: {next} is not after {after}");
    }
}

fuzz_target!(|input: Input| {
    let expr = text(&input.expr);
    let secs = FROM + input.secs.rem_euclid(SPAN);
    let Some(after) = DateTime::from_timestamp(secs, input.nanos % 1_000_000_000) else { return };
    let tz = chrono_tz::TZ_VARIANTS[usize::from(input.zone) % chrono_tz::TZ_VARIANTS.len()];

    if let Ok(cron) = parse(&expr) {
        let next = next_fire(&cron, tz, after);
        check_after(&expr, tz.name(), after, next);
        if let Some(next) = next {
            check_after(&expr, tz.name(), next, next_fire(&cron, tz, next));
        }
        let _ = shortest_gap(&cron, tz, after, 3);
    }
    // A scrap's own zone text, which may be anything.
    check_after(&expr, &input.zone_text, after, next_fire_of(Some(&expr), &input.zone_text, after));
    check_after(&expr, tz.name(), after, next_fire_of(Some(&expr), tz.name(), after));
});
