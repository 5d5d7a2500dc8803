//! Proxy tiers: which tier a run starts on, when it escalates, and what the
//! tiers it used cost (docs/proxy-tiers.md). Pure functions: the run
//! flow (`RunService::execute`) hands in what it knows.
//!
//! `tier0` goes straight to the target (through svc's own egress proxy);
//! `tier1`..`tier4` chain to the operator's upstream proxies. A scrap with a
//! fixed `proxyTier` runs on that tier only. `null` is **auto**: start on the
//! tier that last worked for the target's host in this organization,
//! escalate to the next configured tier within the same run when the page
//! is blocked (`fix_policy::diagnose`), and every [`PROBE_LOWER_EVERY`]th run
//! on a remembered tier start one configured tier lower, so that cost
//! drifts down when a site stops blocking.

use svc_domain::costs::Costs;
use svc_domain::meter::{Meter, units};

/// `tier0` .. `tier4`.
pub const TIER_COUNT: usize = 5;
/// Runs on a remembered tier between two tries of the tier below.
pub const PROBE_LOWER_EVERY: i64 = 10;
const BYTES_PER_GB: f64 = 1e9;

/// What the operator configured for each tier (`tier0` is always there).
#[derive(Clone, Debug, PartialEq)]
pub struct TierSettings {
    /// Whether upstream proxies exist for the tier (`tier0`: always).
    pub configured: [bool; TIER_COUNT],
    /// USD per GB through the tier; `None` when no price is set (`tier0`: 0).
    pub price_per_gb: [Option<f64>; TIER_COUNT],
    /// Compute units of a run on the tier = its base units × this.
    pub multiplier: [i64; TIER_COUNT],
}

impl Default for TierSettings {
    /// Only `tier0`.
    fn default() -> Self {
        TierSettings {
            configured: [true, false, false, false, false],
            price_per_gb: [Some(0.0), None, None, None, None],
            multiplier: default_multipliers(),
        }
    }
}

/// `tierN` costs N + 1 times the units of a direct run by default.
pub fn default_multipliers() -> [i64; TIER_COUNT] {
    [1, 2, 3, 4, 5]
}

/// `"tier2"` → 2.
pub fn parse_tier(name: &str) -> Option<u8> {
    let n: u8 = name.strip_prefix("tier")?.parse().ok()?;
    ((n as usize) < TIER_COUNT && name.len() == 5).then_some(n)
}

pub fn tier_name(tier: u8) -> String {
    format!("tier{tier}")
}

impl TierSettings {
    pub fn is_configured(&self, tier: u8) -> bool {
        self.configured.get(tier as usize).copied().unwrap_or(false)
    }

    /// Whether no tier but `tier0` is configured: a run can go nowhere but
    /// direct, so there is no tier to remember for a host.
    pub fn only_direct(&self) -> bool {
        self.next_up(0).is_none()
    }

    /// The next configured tier above `tier`.
    pub fn next_up(&self, tier: u8) -> Option<u8> {
        ((tier + 1)..TIER_COUNT as u8).find(|&t| self.is_configured(t))
    }

    /// The next configured tier below `tier`.
    pub fn next_down(&self, tier: u8) -> Option<u8> {
        (0..tier).rev().find(|&t| self.is_configured(t))
    }
}

/// How a run picks its tiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TierMode {
    /// The scrap's `proxyTier`: that tier only.
    Fixed(u8),
    /// `proxyTier: null`: start at `start`, escalate when blocked.
    Auto { start: u8 },
}

impl TierMode {
    pub fn start(self) -> u8 {
        match self {
            TierMode::Fixed(t) | TierMode::Auto { start: t } => t,
        }
    }
}

/// What an organization remembers of a host: the tier that last worked
/// there, and how many runs in a row it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remembered {
    pub tier: u8,
    pub runs: i64,
}

/// The tier mode of a run of a scrap whose `proxyTier` is `fixed`, given
/// what the organization remembers of the target's host.
pub fn mode(fixed: Option<u8>, remembered: Option<Remembered>, settings: &TierSettings) -> TierMode {
    if let Some(tier) = fixed {
        return TierMode::Fixed(tier);
    }
    let Some(Remembered { tier, runs }) = remembered.filter(|r| settings.is_configured(r.tier)) else {
        return TierMode::Auto { start: 0 };
    };
    let probe_lower = tier > 0 && runs > 0 && runs % PROBE_LOWER_EVERY == 0;
    let start = if probe_lower { settings.next_down(tier).unwrap_or(tier) } else { tier };
    TierMode::Auto { start }
}

/// The host a tier is remembered for: the URL's host, lowercased, without `www.`.
pub fn memory_key(url: &str) -> Option<String> {
    let host = url::Url::parse(url).ok()?.host_str()?.to_ascii_lowercase();
    Some(host.strip_prefix("www.").map(str::to_string).unwrap_or(host))
}

/// One page load of a run, on one tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TierAttempt {
    pub tier: u8,
    /// Bytes the browser received (encoded lengths from the network events).
    pub bytes: u64,
}

/// Compute units of a run's attempts: each attempt's base units (one, plus
/// one per 5 MiB beyond the first) times its tier's multiplier.
pub fn run_units(attempts: &[TierAttempt], settings: &TierSettings) -> i64 {
    attempts.iter().map(|a| units(a.bytes) * multiplier(settings, a.tier)).sum()
}

fn multiplier(settings: &TierSettings, tier: u8) -> i64 {
    settings.multiplier.get(tier as usize).copied().unwrap_or(1).max(1)
}

/// The run's `meter`: `breakdown.run` page loads, `transfer` units for
/// bytes, `tier` units the tiers' multipliers added.
pub fn meter(attempts: &[TierAttempt], settings: &TierSettings) -> Meter {
    let base: i64 = attempts.iter().map(|a| units(a.bytes)).sum();
    let total = run_units(attempts, settings);
    Meter::of_loads(attempts.len() as i64, base, Some(total - base))
}

/// The run's `costs`: `proxy` is the bytes through each priced tier times
/// its price per GB; `priced` is false when a tier used has no price.
/// Bytes are counted by the browser (`bytesSource: "cdp"`). No captcha
/// solver exists, so `captcha` is 0.
pub fn costs(attempts: &[TierAttempt], settings: &TierSettings) -> Costs {
    let mut proxy = 0.0;
    let mut priced = true;
    for a in attempts {
        match settings.price_per_gb.get(a.tier as usize).copied().flatten() {
            Some(price) => proxy += a.bytes as f64 / BYTES_PER_GB * price,
            None => priced = false,
        }
    }
    let bytes: u64 = attempts.iter().map(|a| a.bytes).sum();
    Costs::of_loads(bytes, proxy, priced)
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_domain::meter::BYTES_PER_UNIT;

    fn tiers(configured: [bool; 5]) -> TierSettings {
        TierSettings {
            configured,
            price_per_gb: [Some(0.0), Some(1.0), Some(4.0), None, Some(10.0)],
            multiplier: default_multipliers(),
        }
    }

    #[test]
    fn names() {
        assert_eq!(parse_tier("tier0"), Some(0));
        assert_eq!(parse_tier("tier4"), Some(4));
        for bad in ["tier5", "tier", "tier01", "TIER1", "t1", "tier-1"] {
            assert_eq!(parse_tier(bad), None, "{bad}");
        }
        assert_eq!(tier_name(3), "tier3");
        assert_eq!(memory_key("https://WWW.Shop.example:8443/a?b"), Some("shop.example".into()));
        assert_eq!(memory_key("not a url"), None);
    }

    #[test]
    fn escalation_skips_unconfigured_tiers() {
        let s = tiers([true, true, false, true, false]);
        assert_eq!(s.next_up(0), Some(1));
        assert_eq!(s.next_up(1), Some(3));
        assert_eq!(s.next_up(3), None);
        assert_eq!(s.next_down(3), Some(1));
        assert_eq!(s.next_down(0), None);
    }

    #[test]
    fn auto_starts_where_it_last_worked_and_probes_lower_every_tenth_run() {
        let s = tiers([true, true, true, false, false]);
        assert_eq!(mode(Some(2), Some(Remembered { tier: 0, runs: 5 }), &s), TierMode::Fixed(2));
        assert_eq!(mode(None, None, &s), TierMode::Auto { start: 0 });
        assert_eq!(mode(None, Some(Remembered { tier: 2, runs: 1 }), &s), TierMode::Auto { start: 2 });
        assert_eq!(mode(None, Some(Remembered { tier: 2, runs: 9 }), &s), TierMode::Auto { start: 2 });
        assert_eq!(mode(None, Some(Remembered { tier: 2, runs: 10 }), &s), TierMode::Auto { start: 1 });
        assert_eq!(mode(None, Some(Remembered { tier: 2, runs: 20 }), &s), TierMode::Auto { start: 1 });
        assert_eq!(mode(None, Some(Remembered { tier: 0, runs: 10 }), &s), TierMode::Auto { start: 0 });
        // A remembered tier the operator no longer configures is forgotten.
        assert_eq!(mode(None, Some(Remembered { tier: 4, runs: 3 }), &s), TierMode::Auto { start: 0 });
    }

    #[test]
    fn costs_and_units_follow_the_tiers_used() {
        let s = tiers([true, true, true, true, true]);
        let attempts = [
            TierAttempt { tier: 0, bytes: 1_000 },
            TierAttempt { tier: 1, bytes: 2_000_000 },
            TierAttempt { tier: 2, bytes: BYTES_PER_UNIT + 500_000_000 },
        ];
        let c = costs(&attempts, &s);
        let expected = 2_000_000.0 / 1e9 * 1.0 + (BYTES_PER_UNIT as f64 + 5e8) / 1e9 * 4.0;
        assert!((c.proxy - expected).abs() < 1e-12, "{c:?}");
        assert_eq!(c.total(), c.proxy);
        assert!(c.priced);
        assert_eq!(c.bytes_source, "cdp");
        // 1×1 + 1×2 + (1 + 96 transfer units)×3
        let third = units(BYTES_PER_UNIT + 500_000_000);
        assert_eq!(run_units(&attempts, &s), 1 + 2 + third * 3);
        let m = meter(&attempts, &s);
        assert_eq!(m.breakdown.run, 3);
        assert_eq!(m.breakdown.transfer, third - 1);
        assert_eq!(m.units(), 1 + 2 + third * 3);
        // A tier without a price cannot be priced.
        assert!(!costs(&[TierAttempt { tier: 3, bytes: 10 }], &s).priced);
        // A direct run is what it always was.
        assert_eq!(run_units(&[TierAttempt { tier: 0, bytes: 0 }], &s), 1);
        assert_eq!(meter(&[TierAttempt { tier: 0, bytes: 0 }], &s).units(), 1);
    }
}
