//! Who did something in a scrap's activity log, in words.

/// `actor` of an activity (`user:<id>`, `key:<id>`, `cron`, `system`) as a
/// person reads it; `me` is the id of the user reading.
pub fn words(actor: &str, me: &str) -> String {
    match actor.split_once(':') {
        Some(("user", id)) if id == me => "you".into(),
        Some(("user", _)) => "another user".into(),
        Some(("key", id)) => {
            let tail: Vec<char> = id.chars().rev().take(6).collect();
            format!("API key …{}", tail.into_iter().rev().collect::<String>())
        }
        _ => match actor {
            "cron" => "the schedule".into(),
            "system" => "svc".into(),
            other => other.into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actors_in_words() {
        assert_eq!(words("user:abc", "abc"), "you");
        assert_eq!(words("user:def", "abc"), "another user");
        assert_eq!(words("key:0123456789abcdef01234567", "abc"), "API key …234567");
        assert_eq!(words("cron", "abc"), "the schedule");
        assert_eq!(words("system", "abc"), "svc");
    }
}
