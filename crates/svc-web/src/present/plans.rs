//! Plans and compute units as people read them.

use svc_domain::plan::Plan;

pub fn name(plan: Plan) -> &'static str {
    match plan {
        Plan::Free => "Free",
        Plan::Growth => "Growth",
        Plan::Pro => "Pro",
    }
}

/// The balance a plan is to be topped up to every week (contract §2); Free
/// has a one-shot signup grant instead. Weekly renewal is not active yet.
pub fn weekly_units(plan: Plan) -> Option<i64> {
    match plan {
        Plan::Free => None,
        Plan::Growth => Some(10_000),
        Plan::Pro => Some(100_000),
    }
}

/// A whole number with thousands separators: `12,345`.
pub fn grouped(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_have_names_and_renewals() {
        assert_eq!(name(Plan::Growth), "Growth");
        assert_eq!(weekly_units(Plan::Free), None);
        assert_eq!(weekly_units(Plan::Growth), Some(10_000));
        assert_eq!(weekly_units(Plan::Pro), Some(100_000));
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(100_000), "100,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(-4_200), "-4,200");
    }
}
