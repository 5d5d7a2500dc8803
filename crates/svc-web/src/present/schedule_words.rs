//! A schedule in words: "every 15 minutes, Europe/Paris". Common shapes are
//! worded here; anything else takes croner's own description.

const DAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

fn number(field: &str, max: u32) -> Option<u32> {
    field.parse().ok().filter(|n| *n <= max)
}

fn step(field: &str) -> Option<u32> {
    field.strip_prefix("*/").and_then(|n| n.parse().ok()).filter(|n| *n > 0)
}

fn plural(n: u32, unit: &str) -> String {
    if n == 1 { format!("every {unit}") } else { format!("every {n} {unit}s") }
}

/// The five-field shapes people write most.
fn common(expr: &str) -> Option<String> {
    let fields: Vec<&str> = expr.split_whitespace().collect();
    let [minute, hour, dom, month, dow] = fields.as_slice() else { return None };
    if *month != "*" {
        return None;
    }
    let daily = *dom == "*" && *dow == "*";
    if daily && *hour == "*" {
        if *minute == "*" {
            return Some("every minute".into());
        }
        if let Some(n) = step(minute) {
            return Some(plural(n, "minute"));
        }
        return number(minute, 59).map(|m| format!("every hour at :{m:02}"));
    }
    let m = number(minute, 59)?;
    if daily && let Some(n) = step(hour) {
        return Some(format!("{} at :{m:02}", plural(n, "hour")));
    }
    let h = number(hour, 23)?;
    let at = format!("{h:02}:{m:02}");
    match (*dom, *dow) {
        ("*", "*") => Some(format!("every day at {at}")),
        ("*", "1-5") => Some(format!("every weekday at {at}")),
        ("*", d) => number(d, 7).map(|d| format!("every {} at {at}", DAYS[d as usize % 7])),
        (d, "*") => number(d, 31).filter(|d| *d >= 1).map(|d| format!("monthly on day {d} at {at}")),
        _ => None,
    }
}

/// How a scrap's schedule reads: "manual runs only" without a cron.
pub fn describe(cron: Option<&str>, timezone: &str) -> String {
    let Some(expr) = cron.map(str::trim).filter(|c| !c.is_empty()) else {
        return "manual runs only".into();
    };
    let words = common(expr).unwrap_or_else(|| match svc_service::schedule::cron::parse(expr) {
        Ok(parsed) => {
            let text = parsed.describe();
            let text = text.trim_end_matches('.');
            let mut chars = text.chars();
            match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => format!("cron {expr}"),
            }
        }
        Err(_) => format!("cron {expr}"),
    });
    format!("{words}, {timezone}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_schedules_read_as_sentences() {
        let paris = "Europe/Paris";
        assert_eq!(describe(Some("*/15 * * * *"), paris), "every 15 minutes, Europe/Paris");
        assert_eq!(describe(Some("* * * * *"), "UTC"), "every minute, UTC");
        assert_eq!(describe(Some("5 * * * *"), "UTC"), "every hour at :05, UTC");
        assert_eq!(describe(Some("0 */6 * * *"), "UTC"), "every 6 hours at :00, UTC");
        assert_eq!(describe(Some("30 9 * * *"), "UTC"), "every day at 09:30, UTC");
        assert_eq!(describe(Some("0 8 * * 1-5"), "UTC"), "every weekday at 08:00, UTC");
        assert_eq!(describe(Some("0 8 * * 1"), "UTC"), "every Monday at 08:00, UTC");
        assert_eq!(describe(Some("0 8 * * 7"), "UTC"), "every Sunday at 08:00, UTC");
        assert_eq!(describe(Some("0 0 1 * *"), "UTC"), "monthly on day 1 at 00:00, UTC");
        assert_eq!(describe(None, "UTC"), "manual runs only");
    }

    #[test]
    fn other_schedules_take_the_parsers_words() {
        let words = describe(Some("0 0-6 * * *"), "UTC");
        assert!(words.ends_with(", UTC") && words.contains("0-6"), "{words}");
        assert_eq!(describe(Some("not cron"), "UTC"), "cron not cron, UTC");
    }
}
