//! What a history row cost in money (admin-only `costs`), as opposed to
//! what it charged in units ([`crate::meter::Meter`]).

/// USD figures of a row and how they were observed. The total is the sum
/// of the figures, so it cannot disagree with them.
#[derive(Clone, Debug, PartialEq)]
pub struct Costs {
    /// Upstream proxy traffic, by each tier's price per GB.
    pub proxy: f64,
    /// Captcha solving (no solver exists yet: always 0).
    pub captcha: f64,
    /// Model calls: an AI operation's own, or a run's digest.
    pub ai: f64,
    /// AI Fix's model calls on a run it repaired.
    pub fix_ai: f64,
    /// False when a tier the row used has no price (its traffic is not in `proxy`).
    pub priced: bool,
    /// Bytes the browser received.
    pub bytes: u64,
    /// Who counted `bytes` (`cdp`: the browser, through DevTools).
    pub bytes_source: String,
    /// The model provider and model of the row's model calls, if any.
    pub provider: Option<String>,
    pub model: Option<String>,
}

/// The counter of every byte figure svc records today.
pub const BYTES_FROM_CDP: &str = "cdp";

impl Costs {
    /// A row that loaded `bytes` (counted by the browser) and spent `proxy` USD on tiers.
    pub fn of_loads(bytes: u64, proxy: f64, priced: bool) -> Self {
        Costs {
            proxy,
            captcha: 0.0,
            ai: 0.0,
            fix_ai: 0.0,
            priced,
            bytes,
            bytes_source: BYTES_FROM_CDP.to_string(),
            provider: None,
            model: None,
        }
    }

    /// Every USD figure together.
    pub fn total(&self) -> f64 {
        self.proxy + self.captcha + self.ai + self.fix_ai
    }

    /// Names the model that the row's AI figures paid for.
    pub fn by_model(&mut self, provider: &str, model: &str) {
        self.provider = Some(provider.to_string());
        self.model = Some(model.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_is_every_figure_together() {
        let mut c = Costs::of_loads(2048, 0.25, true);
        assert_eq!((c.total(), c.bytes, c.bytes_source.as_str()), (0.25, 2048, "cdp"));
        c.ai = 0.5;
        c.fix_ai = 1.0;
        c.by_model("openai", "m");
        assert_eq!(c.total(), 1.75);
        assert_eq!((c.provider.as_deref(), c.model.as_deref()), (Some("openai"), Some("m")));
    }
}
