//! A sliding-log limit (pure): at most `limit` requests in **any** span of
//! `window`, which GCRA cannot promise (a full GCRA bucket lets `limit`
//! through at once and then one more per `window / limit`, so up to twice
//! the limit in one window). The state is the times of the latest
//! requests, at most `limit` of them.

use std::time::Duration;

use crate::accounts::gcra::{Decision, Rate};

/// The verdict on a request at `now_ms` given the stored times (any order,
/// older ones ignored), and the times to store when allowed.
pub fn decide(rate: &Rate, stored: &[i64], now_ms: i64) -> (Decision, Vec<i64>) {
    let window = rate.window.as_millis() as i64;
    let limit = rate.limit.max(1) as usize;
    let mut recent: Vec<i64> = stored.iter().copied().filter(|&t| t > now_ms - window && t <= now_ms).collect();
    recent.sort_unstable();
    let ms = |v: i64| Duration::from_millis(v.max(0) as u64);
    if recent.len() >= limit {
        // The request becomes possible when the oldest of the last `limit` leaves the window.
        let frees_at = recent[recent.len() - limit] + window;
        let decision = Decision {
            allowed: false,
            tat_ms: 0,
            remaining: 0,
            reset: ms(recent[recent.len() - 1] + window - now_ms),
            retry_after: ms(frees_at - now_ms),
        };
        return (decision, recent);
    }
    recent.push(now_ms);
    let decision = Decision {
        allowed: true,
        tat_ms: 0,
        remaining: (limit - recent.len()) as u32,
        reset: ms(recent[0] + window - now_ms),
        retry_after: Duration::ZERO,
    };
    (decision, recent)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: Rate = Rate::new(60, Duration::from_secs(15 * 60));

    /// A client asking once a second for 45 minutes, on a fake clock: no
    /// 15-minute span ever holds more than 60 allowed requests, and the
    /// long-run rate is the limit's.
    #[test]
    fn no_window_ever_holds_more_than_the_limit() {
        let mut stamps: Vec<i64> = Vec::new();
        let mut allowed = Vec::new();
        for second in 0..45 * 60 {
            let now = second * 1000;
            let (d, next) = decide(&RATE, &stamps, now);
            if d.allowed {
                allowed.push(now);
                stamps = next;
            }
        }
        let window = 15 * 60 * 1000;
        for (i, &start) in allowed.iter().enumerate() {
            let in_span = allowed[i..].iter().take_while(|&&t| t < start + window).count();
            assert!(in_span <= 60, "{in_span} requests in the span from {start} ms");
        }
        assert_eq!(allowed.len(), 180, "60 per 15 minutes over 45 minutes");
        assert!(stamps.len() <= 60, "the state stays bounded");
    }

    #[test]
    fn a_refusal_says_when_the_oldest_request_leaves_the_window() {
        let stamps: Vec<i64> = (0..60).map(|i| i * 1000).collect();
        let (d, _) = decide(&RATE, &stamps, 100_000);
        assert!(!d.allowed);
        assert_eq!(d.retry_after, Duration::from_millis(900_000 - 100_000));
        let (d, next) = decide(&RATE, &stamps, 900_000);
        assert!(d.allowed, "the first request left the window");
        assert_eq!(next.len(), 60);
        let (d, _) = decide(&RATE, &stamps[..10], 10_000);
        assert!(d.allowed);
        assert_eq!(d.remaining, 49);
    }
}
