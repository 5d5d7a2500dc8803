//! The `costs` and `meter` columns of `history`: JSON text in the public
//! API's shape (`{proxy, captcha, ai, fixAi, total, ...}` and `{units,
//! ratioVersion, breakdown}`), so that rows written before these types
//! existed read back unchanged. Totals are written for whoever reads the
//! table by hand and ignored on reading (the types compute them).

use serde::{Deserialize, Serialize};
use svc_domain::costs::{BYTES_FROM_CDP, Costs};
use svc_domain::meter::{Meter, MeterBreakdown, RATIO_VERSION};

use crate::StoreError;
use crate::records::json;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct CostsRecord {
    proxy: f64,
    captcha: f64,
    ai: f64,
    fix_ai: f64,
    total: f64,
    priced: bool,
    bytes: u64,
    bytes_source: String,
    provider: Option<String>,
    model: Option<String>,
}

impl Default for CostsRecord {
    fn default() -> Self {
        CostsRecord::from(&Costs::of_loads(0, 0.0, true))
    }
}

impl From<&Costs> for CostsRecord {
    fn from(c: &Costs) -> Self {
        CostsRecord {
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

impl From<CostsRecord> for Costs {
    fn from(r: CostsRecord) -> Self {
        Costs {
            proxy: r.proxy,
            captcha: r.captcha,
            ai: r.ai,
            fix_ai: r.fix_ai,
            priced: r.priced,
            bytes: r.bytes,
            bytes_source: if r.bytes_source.is_empty() { BYTES_FROM_CDP.into() } else { r.bytes_source },
            provider: r.provider,
            model: r.model,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct MeterRecord {
    #[serde(default)]
    units: i64,
    #[serde(default = "ratio_version")]
    ratio_version: i64,
    #[serde(default)]
    breakdown: BreakdownRecord,
}

fn ratio_version() -> i64 {
    RATIO_VERSION
}

#[derive(Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BreakdownRecord {
    #[serde(default)]
    run: i64,
    #[serde(default)]
    transfer: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tier: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ai: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fix_ai: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fix_runs: Option<i64>,
}

impl From<&Meter> for MeterRecord {
    fn from(m: &Meter) -> Self {
        let b = &m.breakdown;
        MeterRecord {
            units: m.units(),
            ratio_version: m.ratio_version,
            breakdown: BreakdownRecord {
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

impl From<MeterRecord> for Meter {
    fn from(r: MeterRecord) -> Self {
        let b = r.breakdown;
        Meter {
            ratio_version: r.ratio_version,
            breakdown: MeterBreakdown {
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

pub(crate) fn costs_json(c: &Costs) -> String {
    serde_json::to_string(&CostsRecord::from(c)).expect("plain data serializes")
}

pub(crate) fn meter_json(m: &Meter) -> String {
    serde_json::to_string(&MeterRecord::from(m)).expect("plain data serializes")
}

pub(crate) fn read_costs(s: Option<String>) -> Result<Option<Costs>, StoreError> {
    s.as_deref().map(|s| json::<CostsRecord>(s).map(Costs::from)).transpose()
}

pub(crate) fn read_meter(s: Option<String>) -> Result<Option<Meter>, StoreError> {
    s.as_deref().map(|s| json::<MeterRecord>(s).map(Meter::from)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_written_as_json_objects_read_back_typed() {
        // A run's costs as svc wrote them before the types: integer zeros, null model.
        let run = r#"{"proxy":0.0,"captcha":0,"ai":0,"fixAi":0,"total":0.0,"priced":true,"bytes":2048,"bytesSource":"cdp","provider":null,"model":null}"#;
        let c = read_costs(Some(run.into())).unwrap().unwrap();
        assert_eq!(c, Costs::of_loads(2048, 0.0, true));
        let meter = r#"{"units":3,"ratioVersion":1,"breakdown":{"run":1,"transfer":0,"tier":2,"ai":0}}"#;
        let m = read_meter(Some(meter.into())).unwrap().unwrap();
        assert_eq!((m.units(), m.breakdown.tier, m.breakdown.ai, m.breakdown.fix_ai), (3, Some(2), Some(0), None));
        assert_eq!(read_costs(None).unwrap(), None);
        assert!(matches!(read_costs(Some("{\"proxy\": ".into())), Err(StoreError::Corrupt(_))));
        assert!(matches!(read_meter(Some("\"units\"".into())), Err(StoreError::Corrupt(_))));
    }

    #[test]
    fn written_json_carries_the_totals_and_round_trips() {
        let mut c = Costs::of_loads(10, 0.5, false);
        c.ai = 0.25;
        c.by_model("p", "m");
        let text = costs_json(&c);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!((v["total"].as_f64(), v["fixAi"].as_f64(), v["model"].as_str()), (Some(0.75), Some(0.0), Some("m")));
        assert_eq!(read_costs(Some(text)).unwrap(), Some(c));
        let m = Meter::of_loads(1, 2, Some(2));
        let text = meter_json(&m);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"units": 4, "ratioVersion": 1, "breakdown": {"run": 1, "transfer": 1, "tier": 2}})
        );
        assert_eq!(read_meter(Some(text)).unwrap(), Some(m));
    }
}
