use std::fmt;
use std::str::FromStr;

/// Billing plan of an organization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    Free,
    Growth,
    Pro,
}

impl Plan {
    pub const ALL: [Plan; 3] = [Plan::Free, Plan::Growth, Plan::Pro];

    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Growth => "growth",
            Plan::Pro => "pro",
        }
    }

    /// Growth and Pro unlock webhook writes and the live JSON endpoint.
    pub fn has_developer_features(self) -> bool {
        !matches!(self, Plan::Free)
    }
}

/// The balance each plan is topped up to once a week (`SVC_GROWTH_WEEKLY`,
/// `SVC_PRO_WEEKLY`). Free is not renewed: it keeps its one-shot grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeeklyUnits {
    pub growth: i64,
    pub pro: i64,
}

impl WeeklyUnits {
    /// The weekly amount of `plan`; `None` for a plan that is not renewed.
    pub fn of(&self, plan: Plan) -> Option<i64> {
        match plan {
            Plan::Free => None,
            Plan::Growth => Some(self.growth),
            Plan::Pro => Some(self.pro),
        }
    }

    /// The plans renewed every week.
    pub fn renewed_plans(&self) -> impl Iterator<Item = Plan> + '_ {
        Plan::ALL.into_iter().filter(|plan| self.of(*plan).is_some())
    }
}

impl Default for WeeklyUnits {
    /// Growth 10,000 and Pro 100,000 units a week.
    fn default() -> Self {
        WeeklyUnits { growth: 10_000, pro: 100_000 }
    }
}

impl FromStr for Plan {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "free" => Ok(Plan::Free),
            "growth" => Ok(Plan::Growth),
            "pro" => Ok(Plan::Pro),
            other => Err(format!("unknown plan `{other}` (expected free, growth or pro)")),
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
