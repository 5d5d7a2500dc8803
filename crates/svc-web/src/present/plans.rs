//! Plans and compute units as people read them.

use svc_domain::plan::Plan;

pub fn name(plan: Plan) -> &'static str {
    match plan {
        Plan::Free => "Free",
        Plan::Growth => "Growth",
        Plan::Pro => "Pro",
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
    fn plans_have_names() {
        assert_eq!(name(Plan::Free), "Free");
        assert_eq!(name(Plan::Growth), "Growth");
        assert_eq!(name(Plan::Pro), "Pro");
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
