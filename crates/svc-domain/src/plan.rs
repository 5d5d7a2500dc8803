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
