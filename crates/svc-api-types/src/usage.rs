//! The admin-only `costs` and `meter` of a history row (interface.md,
//! History), from svc-domain's `Costs` and `Meter`.

use serde::{Deserialize, Serialize};
use svc_domain::costs::Costs;
use svc_domain::meter::Meter;
use utoipa::ToSchema;

/// What a row cost in USD, and how its bytes were counted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CostsView {
    /// Upstream proxy traffic, by each tier's price per GB.
    pub proxy: f64,
    /// Captcha solving (always 0: svc has no solver).
    pub captcha: f64,
    /// Model calls of an AI operation, or of a run's digest.
    pub ai: f64,
    /// AI Fix's model calls on a run it repaired.
    pub fix_ai: f64,
    /// The sum of the figures above.
    pub total: f64,
    /// False when a tier the row used has no price.
    pub priced: bool,
    /// Bytes the browser received.
    pub bytes: u64,
    /// Who counted `bytes`: `cdp` (the browser, through DevTools).
    pub bytes_source: String,
    pub provider: Option<String>,
    pub model: Option<String>,
}

impl From<&Costs> for CostsView {
    fn from(c: &Costs) -> Self {
        CostsView {
            proxy: c.proxy,
            captcha: c.captcha,
            ai: c.ai,
            fix_ai: c.fix_ai,
            total: c.total(),
            priced: c.priced,
            bytes: c.bytes,
            bytes_source: c.bytes_source.clone(),
            provider: c.provider.clone(),
            model: c.model.clone(),
        }
    }
}

/// What a row charged to the organization's balance, in units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeterView {
    /// The sum of `breakdown`.
    pub units: i64,
    /// The version of the units-per-resource ratios.
    pub ratio_version: i64,
    pub breakdown: MeterBreakdownView,
}

/// Units by what used them; members other than `run` and `transfer` are
/// present only when the row had them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeterBreakdownView {
    /// One per page load.
    pub run: i64,
    /// One per started 5 MiB beyond the first, per page load.
    pub transfer: i64,
    /// What proxy tiers' multipliers added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<i64>,
    /// Model calls (an AI operation's, or a digest's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai: Option<i64>,
    /// AI Fix's model calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_ai: Option<i64>,
    /// AI Fix's page loads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_runs: Option<i64>,
}

impl From<&Meter> for MeterView {
    fn from(m: &Meter) -> Self {
        let b = &m.breakdown;
        MeterView {
            units: m.units(),
            ratio_version: m.ratio_version,
            breakdown: MeterBreakdownView {
                run: b.run,
                transfer: b.transfer,
                tier: b.tier,
                ai: b.ai,
                fix_ai: b.fix_ai,
                fix_runs: b.fix_runs,
            },
        }
    }
}
