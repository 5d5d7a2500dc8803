//! The generic cell rate algorithm (pure): `limit` requests per `window`,
//! spread evenly, with a burst of up to `limit`. Unlike a fixed window it
//! never lets twice the limit through around a window boundary.

use std::time::Duration;

/// A rate: `limit` requests per `window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub limit: u32,
    pub window: Duration,
}

/// The verdict on one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    /// The bucket's state to store (unchanged when refused).
    pub tat_ms: i64,
    /// Requests still allowed right now.
    pub remaining: u32,
    /// Until the bucket is full again.
    pub reset: Duration,
    /// When refused: until the next request would be allowed.
    pub retry_after: Duration,
}

impl Rate {
    pub const fn new(limit: u32, window: Duration) -> Self {
        Rate { limit, window }
    }

    fn emission_ms(&self) -> i64 {
        (self.window.as_millis() as i64 / self.limit.max(1) as i64).max(1)
    }

    /// Decides a request at `now_ms` given the stored state (`None`: a new bucket).
    pub fn decide(&self, stored_tat_ms: Option<i64>, now_ms: i64) -> Decision {
        let t = self.emission_ms();
        let window = t * self.limit.max(1) as i64;
        let tat = stored_tat_ms.unwrap_or(now_ms).max(now_ms);
        let new_tat = tat + t;
        let ms = |v: i64| Duration::from_millis(v.max(0) as u64);
        if new_tat - now_ms > window {
            return Decision {
                allowed: false,
                tat_ms: tat,
                remaining: 0,
                reset: ms(tat - now_ms),
                retry_after: ms(new_tat - now_ms - window),
            };
        }
        Decision {
            allowed: true,
            tat_ms: new_tat,
            remaining: ((window - (new_tat - now_ms)) / t) as u32,
            reset: ms(new_tat - now_ms),
            retry_after: Duration::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Duration = Duration::from_secs(60);

    /// Runs `n` requests at `at` ms, storing each allowed state.
    fn burst(rate: &Rate, tat: &mut Option<i64>, at: i64, n: u32) -> u32 {
        let mut allowed = 0;
        for _ in 0..n {
            let d = rate.decide(*tat, at);
            if d.allowed {
                allowed += 1;
                *tat = Some(d.tat_ms);
            }
        }
        allowed
    }

    #[test]
    fn a_full_bucket_allows_the_limit_then_refuses_with_a_retry_time() {
        let rate = Rate::new(60, MIN);
        let first = rate.decide(None, 0);
        assert!(first.allowed);
        assert_eq!(first.remaining, 59);
        let mut tat = Some(first.tat_ms);
        assert_eq!(burst(&rate, &mut tat, 0, 100), 59);
        let refused = rate.decide(tat, 0);
        assert!(!refused.allowed);
        assert_eq!(refused.retry_after, Duration::from_secs(1), "one request's worth");
        assert_eq!(refused.reset, MIN);
        assert!(rate.decide(tat, 1_000).allowed, "allowed once the retry time passed");
    }

    #[test]
    fn no_window_boundary_lets_twice_the_limit_through() {
        let rate = Rate::new(60, MIN);
        let mut tat = None;
        // 60 at the end of one "minute", then as many as possible right after.
        assert_eq!(burst(&rate, &mut tat, 59_000, 60), 60);
        assert_eq!(burst(&rate, &mut tat, 61_000, 60), 2, "only what two seconds refilled");
        // Over any 60 s span, at most 60 + what refills.
        let mut tat = None;
        let mut total = 0;
        for s in 0..120 {
            total += burst(&rate, &mut tat, s * 1_000, 5);
        }
        assert!(total <= 60 + 120, "{total}");
    }
}
