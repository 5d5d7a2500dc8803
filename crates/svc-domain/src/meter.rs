//! How much a run uses, in units of the organization's compute balance.

/// Bytes transferred per extra metered unit.
pub const BYTES_PER_UNIT: u64 = 5 * 1024 * 1024;

/// Units a run costs: one, plus one per started 5 MiB received beyond the first.
pub fn units(bytes: u64) -> i64 {
    1 + (bytes / BYTES_PER_UNIT) as i64
}

/// The version of the units-per-resource ratios a meter was written with.
pub const RATIO_VERSION: i64 = 1;

/// What a history row charged to the organization's balance (admin-only
/// `meter`): units by what used them. The total is their sum, so it cannot
/// disagree with them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meter {
    pub ratio_version: i64,
    pub breakdown: MeterBreakdown,
}

/// Units by what used them. `run` and `transfer` are always counted; the
/// others only when the row had them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MeterBreakdown {
    /// One per page load.
    pub run: i64,
    /// One per started 5 MiB beyond the first, per page load.
    pub transfer: i64,
    /// What the proxy tiers' multipliers added (scrap runs).
    pub tier: Option<i64>,
    /// Model calls: an AI operation's own, or a run's digest.
    pub ai: Option<i64>,
    /// AI Fix's model calls on a run it repaired.
    pub fix_ai: Option<i64>,
    /// AI Fix's page loads (probe and candidate runs) on a run it repaired.
    pub fix_runs: Option<i64>,
}

impl Meter {
    /// A meter of `loads` page loads that received `bytes` in all at
    /// `base` units (see [`units`]), `tier` more added by proxy tiers.
    pub fn of_loads(loads: i64, base: i64, tier: Option<i64>) -> Self {
        Meter {
            ratio_version: RATIO_VERSION,
            breakdown: MeterBreakdown { run: loads, transfer: base - loads, tier, ..Default::default() },
        }
    }

    /// Every unit charged.
    pub fn units(&self) -> i64 {
        let b = &self.breakdown;
        b.run + b.transfer + [b.tier, b.ai, b.fix_ai, b.fix_runs].into_iter().flatten().sum::<i64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_costs_one_unit_and_one_per_started_5_mib_beyond_the_first() {
        assert_eq!(units(0), 1);
        assert_eq!(units(BYTES_PER_UNIT - 1), 1);
        assert_eq!(units(BYTES_PER_UNIT), 2);
    }

    #[test]
    fn a_meter_totals_its_breakdown() {
        let mut m = Meter::of_loads(2, 5, Some(4));
        assert_eq!((m.breakdown.run, m.breakdown.transfer, m.units()), (2, 3, 9));
        m.breakdown.ai = Some(3);
        m.breakdown.fix_ai = Some(10);
        m.breakdown.fix_runs = Some(1);
        assert_eq!(m.units(), 23);
        assert_eq!(Meter::default().units(), 0);
    }
}
