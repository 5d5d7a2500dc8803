//! What an AI operation spent: model tokens (priced with the operator's
//! prices) and page loads (metered as runs), as the `costs` and `meter`
//! of the row it writes or amends.

use crate::ai::digest;
use crate::ai::model::{AiPricing, Completion};
use svc_domain::costs::Costs;
use svc_domain::meter::{Meter, units};
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
    pub fn costs(&self) -> Costs {
        let mut costs = Costs { ai: self.cost, ..Costs::of_loads(self.bytes, 0.0, true) };
        costs.by_model(&self.provider, &self.model);
        costs
    }

    /// The `meter` of an AI operation's own row.
    pub fn meter(&self) -> Meter {
        let mut meter = Meter::of_loads(self.runs, self.run_units, None);
        meter.breakdown.ai = Some(self.ai_units);
        meter
    }

    /// A run's `costs` with this fix's spend added as `fixAi`.
    pub fn add_fix_costs(&self, costs: &mut Option<Costs>) {
        let c = costs.get_or_insert_with(|| Costs::of_loads(0, 0.0, true));
        c.fix_ai += self.cost;
        c.by_model(&self.provider, &self.model);
    }

    /// A run's `meter` with this fix's units added (`breakdown.fixAi`, and
    /// the shadow runs as `fixRuns`).
    pub fn add_fix_meter(&self, meter: &mut Option<Meter>) {
        let m = meter.get_or_insert_with(|| Meter::of_loads(0, 0, None));
        m.breakdown.fix_ai = Some(m.breakdown.fix_ai.unwrap_or(0) + self.ai_units);
        m.breakdown.fix_runs = Some(m.breakdown.fix_runs.unwrap_or(0) + self.run_units);
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
            enqueued: vec![],
        };
        s.page_load(&report);
        assert_eq!(s.ai_units, 3, "2,000 tokens are 2 units, 100 more are 1");
        assert_eq!(s.run_units, 2);
        assert_eq!(s.units(), 5);
        assert!((s.cost - 0.0026).abs() < 1e-12);
        let meter = s.meter();
        assert_eq!((meter.breakdown.run, meter.breakdown.transfer, meter.breakdown.ai), (1, 1, Some(3)));
        assert_eq!((meter.breakdown.tier, meter.units()), (None, 5));
        let costs = s.costs();
        assert_eq!((costs.ai, costs.total(), costs.bytes), (s.cost, s.cost, BYTES_PER_UNIT + 1));
        assert_eq!((costs.provider.as_deref(), costs.model.as_deref()), (Some("local"), Some("m")));
    }

    #[test]
    fn a_fix_adds_to_the_runs_figures() {
        let mut s = Spend::new(&pricing());
        s.model_call(&Completion { content: String::new(), input_tokens: 1_000_000, output_tokens: 0 });
        let mut costs = Some(Costs { ai: 0.5, ..Costs::of_loads(0, 0.0, true) });
        s.add_fix_costs(&mut costs);
        let costs = costs.unwrap();
        assert_eq!((costs.ai, costs.fix_ai, costs.total()), (0.5, 1.0, 1.5));
        let mut meter = Some(Meter::of_loads(1, 1, Some(0)));
        s.add_fix_meter(&mut meter);
        let meter = meter.unwrap();
        assert_eq!(meter.units(), 1 + 1000);
        assert_eq!((meter.breakdown.fix_ai, meter.breakdown.fix_runs), (Some(1000), Some(0)));
        let mut none = None;
        s.add_fix_meter(&mut none);
        assert_eq!(none.map(|m| m.units()), Some(1000), "a row with no meter gets one");
    }
}
