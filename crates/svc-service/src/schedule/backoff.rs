//! How background loops wait after a failure (the database unreachable,
//! most often): a bounded exponential delay, reset by the next success.

use std::time::Duration;

/// The first delay after a failure.
pub const FIRST: Duration = Duration::from_millis(500);
/// The longest delay, however many failures in a row.
pub const MAX: Duration = Duration::from_secs(10);

/// The delay after `failures` failures in a row (1 for the first): `first`,
/// doubled for each further failure, never more than `max`; zero when
/// nothing failed.
pub fn delay(failures: u32, first: Duration, max: Duration) -> Duration {
    let Some(doublings) = failures.checked_sub(1) else { return Duration::ZERO };
    first.checked_mul(1u32.checked_shl(doublings.min(31)).unwrap_or(u32::MAX)).unwrap_or(max).min(max)
}

/// A loop's failure count: [`Backoff::failed`] gives the delay to wait,
/// [`Backoff::succeeded`] resets it.
#[derive(Debug)]
pub struct Backoff {
    failures: u32,
    first: Duration,
    max: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::new(FIRST, MAX)
    }
}

impl Backoff {
    pub fn new(first: Duration, max: Duration) -> Self {
        Backoff { failures: 0, first, max }
    }

    /// One more failure: the delay to wait before trying again.
    pub fn failed(&mut self) -> Duration {
        self.failures = self.failures.saturating_add(1);
        delay(self.failures, self.first, self.max)
    }

    /// A success: returns how many failures in a row it ends (0: none).
    pub fn succeeded(&mut self) -> u32 {
        std::mem::take(&mut self.failures)
    }

    /// Failures in a row so far.
    pub fn failures(&self) -> u32 {
        self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_from_the_first_up_to_the_bound() {
        let (first, max) = (Duration::from_millis(500), Duration::from_secs(10));
        let delays: Vec<_> = (0..8).map(|n| delay(n, first, max).as_millis()).collect();
        assert_eq!(delays, [0, 500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
        assert_eq!(delay(u32::MAX, first, max), max, "no overflow however long the outage");
        assert_eq!(delay(40, Duration::from_secs(u64::MAX / 2), Duration::from_secs(30)), Duration::from_secs(30));
    }

    #[test]
    fn a_success_resets_the_count() {
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(4));
        assert_eq!([b.failed(), b.failed(), b.failed(), b.failed()].map(|d| d.as_secs()), [1, 2, 4, 4]);
        assert_eq!(b.succeeded(), 4);
        assert_eq!(b.succeeded(), 0);
        assert_eq!(b.failed(), Duration::from_secs(1));
    }
}
