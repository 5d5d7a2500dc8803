//! What an AI operation spent: model tokens (priced with the operator's
//! prices) and page loads (metered as runs), as the `costs` and `meter`
//! of the row it writes or amends.

use serde_json::{Value, json};

use crate::ai::digest;
use crate::ai::model::{AiPricing, Completion};
use svc_domain::meter::units;
use svc_engine::EngineReport;

#[derive(Clone, Debug, PartialEq)]
pub struct Spend {
    pub provider: String,
    pub model: String,
    pricing: AiPricing,
    pub calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// USD.
    pub cost: f64,
    /// Compute units of the model calls.
    pub ai_units: i64,
    /// Page loads (probe and candidate runs).
    pub runs: i64,
    /// Bytes the browser received over all of them.
    pub bytes: u64,
    /// Compute units of the page loads.
    pub run_units: i64,
}

impl Spend {
    pub fn new(pricing: &AiPricing) -> Self {
        Spend {
            provider: pricing.provider.clone(),
            model: pricing.model.clone(),
            pricing: pricing.clone(),
            calls: 0,
            input_tokens: 0,
            output_tokens: 0,
            cost: 0.0,
            ai_units: 0,
            runs: 0,
            bytes: 0,
            run_units: 0,
        }
    }

    pub fn model_call(&mut self, c: &Completion) {
        self.calls += 1;
        self.input_tokens += c.input_tokens;
        self.output_tokens += c.output_tokens;
        self.cost += self.pricing.cost(c);
        self.ai_units += digest::units(c);
    }

    pub fn page_load(&mut self, report: &EngineReport) {
        self.runs += 1;
        self.bytes += report.bytes;
        self.run_units += units(report.bytes);
    }

    /// Everything charged to the organization.
    pub fn units(&self) -> i64 {
        self.ai_units + self.run_units
    }

    /// The `costs` of an AI operation's own row (the model's cost is `ai`).
    pub fn costs(&self) -> Value {
        json!({"proxy": 0, "captcha": 0, "ai": self.cost, "fixAi": 0, "total": self.cost, "priced": true,
               "bytes": self.bytes, "bytesSource": "cdp", "provider": self.provider, "model": self.model})
    }

    /// The `meter` of an AI operation's own row.
    pub fn meter(&self) -> Value {
        json!({"units": self.units(), "ratioVersion": 1,
               "breakdown": {"run": self.runs, "transfer": self.run_units - self.runs, "ai": self.ai_units}})
    }

    /// A run's `costs` with this fix's spend added as `fixAi`.
    pub fn add_fix_costs(&self, costs: &mut Option<Value>) {
        let c = costs.get_or_insert_with(|| json!({}));
        if let Some(c) = c.as_object_mut() {
            let total = c.get("total").and_then(Value::as_f64).unwrap_or(0.0);
            let fix = c.get("fixAi").and_then(Value::as_f64).unwrap_or(0.0);
            c.insert("fixAi".into(), json!(fix + self.cost));
            c.insert("total".into(), json!(total + self.cost));
            c.insert("provider".into(), json!(self.provider));
            c.insert("model".into(), json!(self.model));
        }
    }

    /// A run's `meter` with this fix's units added (`breakdown.fixAi`, and
    /// the shadow runs as `fixRuns`).
    pub fn add_fix_meter(&self, meter: &mut Option<Value>) {
        let m = meter.get_or_insert_with(|| json!({"units": 0, "ratioVersion": 1, "breakdown": {}}));
        if let Some(m) = m.as_object_mut() {
            let units = m.get("units").and_then(Value::as_i64).unwrap_or(0);
            m.insert("units".into(), json!(units + self.units()));
            if let Some(Value::Object(b)) = m.get_mut("breakdown") {
                b.insert("fixAi".into(), json!(self.ai_units));
                b.insert("fixRuns".into(), json!(self.run_units));
            }
        }
    }

    /// One line for an activity entry or a task: tokens and price.
    pub fn summary(&self) -> String {
        format!(
            "{} model call{}, {} input and {} output tokens, ${:.6}",
            self.calls,
            if self.calls == 1 { "" } else { "s" },
            self.input_tokens,
            self.output_tokens,
            self.cost
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_domain::meter::BYTES_PER_UNIT;
    use svc_engine::ScriptResult;

    fn pricing() -> AiPricing {
        AiPricing { provider: "local".into(), model: "m".into(), input_per_million: 1.0, output_per_million: 2.0 }
    }

    #[test]
    fn spend_adds_calls_and_page_loads() {
        let mut s = Spend::new(&pricing());
        s.model_call(&Completion { content: String::new(), input_tokens: 1500, output_tokens: 500 });
        s.model_call(&Completion { content: String::new(), input_tokens: 100, output_tokens: 0 });
        let report = EngineReport {
            result: ScriptResult::Data { json: "[]".into(), length: 0 },
            duration_ms: 1,
            bytes: BYTES_PER_UNIT + 1,
            snapshot: None,
            status: None,
            html: None,
            session: None,
        };
        s.page_load(&report);
        assert_eq!(s.ai_units, 3, "2,000 tokens are 2 units, 100 more are 1");
        assert_eq!(s.run_units, 2);
        assert_eq!(s.units(), 5);
        assert!((s.cost - 0.0026).abs() < 1e-12);
        assert_eq!(s.meter()["breakdown"], json!({"run": 1, "transfer": 1, "ai": 3}));
        assert_eq!(s.costs()["model"], "m");
    }

    #[test]
    fn a_fix_adds_to_the_runs_figures() {
        let mut s = Spend::new(&pricing());
        s.model_call(&Completion { content: String::new(), input_tokens: 1_000_000, output_tokens: 0 });
        let mut costs = Some(json!({"ai": 0.5, "fixAi": 0, "total": 0.5}));
        s.add_fix_costs(&mut costs);
        assert_eq!(costs.as_ref().unwrap()["fixAi"], json!(1.0));
        assert_eq!(costs.as_ref().unwrap()["total"], json!(1.5));
        let mut meter = Some(json!({"units": 1, "ratioVersion": 1, "breakdown": {"run": 1}}));
        s.add_fix_meter(&mut meter);
        assert_eq!(meter.as_ref().unwrap()["units"], json!(1 + 1000));
        assert_eq!(meter.as_ref().unwrap()["breakdown"]["fixAi"], json!(1000));
    }
}
