//! How much a run uses, in units of the organization's compute balance.

/// Bytes transferred per extra metered unit.
pub const BYTES_PER_UNIT: u64 = 5 * 1024 * 1024;

/// Units a run costs: one, plus one per started 5 MiB received beyond the first.
pub fn units(bytes: u64) -> i64 {
    1 + (bytes / BYTES_PER_UNIT) as i64
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
}
