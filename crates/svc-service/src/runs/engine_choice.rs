//! `scrapper: "auto"`: which engine a scrap's run uses, and what a run
//! teaches about the next one. Pure: `RunService` runs the engines and
//! keeps the memory (`engine_memory`).
//!
//! A run of an `auto` scrap tries `static` first and keeps its result when
//! it found items; otherwise the browser runs and its result is kept. The
//! first run of a script, and one run once [`CHECK_PERIOD`] has passed
//! since the last comparison, runs both and compares: `static` is chosen
//! when it found as many items as the browser with the same fields, else
//! `puppeteer` is, until the next comparison. A remembered `puppeteer`
//! skips the static attempt between comparisons.
//!
//! A period rather than a count of runs: runs between comparisons write
//! nothing, and a scrap run often is not compared more often for it (a
//! comparison runs the browser, about 20 static runs' work).

use chrono::{DateTime, TimeDelta, Utc};
use sha2::{Digest, Sha256};
use svc_domain::scrap::{DEFAULT_SCRAPPER, STATIC_SCRAPPER};
use svc_storage::EngineMemory;

use svc_engine::ScriptResult;

/// How long a comparison of the engines holds: the first run after it
/// compares again.
pub const CHECK_PERIOD: TimeDelta = TimeDelta::hours(1);

/// An engine `auto` can choose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Static,
    Browser,
}

impl Choice {
    pub fn id(self) -> &'static str {
        match self {
            Choice::Static => STATIC_SCRAPPER,
            Choice::Browser => DEFAULT_SCRAPPER,
        }
    }

    fn parse(id: &str) -> Option<Choice> {
        match id {
            STATIC_SCRAPPER => Some(Choice::Static),
            DEFAULT_SCRAPPER => Some(Choice::Browser),
            _ => None,
        }
    }
}

/// What a run of an `auto` scrap does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Try `static` first.
    pub static_first: bool,
    /// Run the browser too, whatever `static` found, and compare.
    pub compare: bool,
    /// The engine remembered for this URL and script.
    pub remembered: Option<Choice>,
}

/// What the decision is for: the URL and the script (another page or
/// script may need the other engine).
pub fn fingerprint(url: &str, script: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(url.as_bytes());
    hash.update([0]);
    hash.update(script.as_bytes());
    hash.finalize().iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// The plan for a run at `now`, from what is remembered for the scrap.
/// A due comparison must be claimed (`claim_engine_check`, from
/// [`due_before`]) by the run: one that loses the claim runs
/// [`Plan::without_check`].
pub fn plan(memory: Option<&EngineMemory>, fingerprint: &str, now: DateTime<Utc>) -> Plan {
    let known = memory
        .filter(|m| m.fingerprint == fingerprint)
        .and_then(|m| Choice::parse(&m.engine).map(|choice| (choice, m.checked_at)));
    match known {
        None => Plan { static_first: true, compare: true, remembered: None },
        Some((choice, checked_at)) => {
            Plan { static_first: true, compare: checked_at <= due_before(now), remembered: Some(choice) }
                .with_skip(choice)
        }
    }
}

/// Memory checked at or before this is due for a comparison at `now`.
pub fn due_before(now: DateTime<Utc>) -> DateTime<Utc> {
    now - CHECK_PERIOD
}

impl Plan {
    /// The plan when another run took the due comparison: the remembered
    /// engine alone.
    pub fn without_check(self) -> Plan {
        let plan = Plan { compare: false, ..self };
        match self.remembered {
            Some(choice) => plan.with_skip(choice),
            None => plan,
        }
    }

    /// A remembered browser skips the static attempt unless comparing.
    fn with_skip(self, remembered: Choice) -> Plan {
        Plan { static_first: self.compare || remembered == Choice::Static, ..self }
    }
}

/// Whether a static result can stand on its own: it found items.
pub fn static_found_items(result: &ScriptResult) -> bool {
    matches!(result, ScriptResult::Data { length, .. } if *length > 0)
}

/// What comparing the two engines on one run decided, and why (in words
/// for the activity log). `None`: nothing to learn (neither found items).
pub fn compare(static_result: &ScriptResult, browser: &ScriptResult) -> Option<(Choice, String)> {
    let found = |r: &ScriptResult| match r {
        ScriptResult::Data { json, length } if *length > 0 => Some((*length, first_fields(json))),
        _ => None,
    };
    match (found(static_result), found(browser)) {
        (None, None) => None,
        (Some((n, _)), None) => {
            Some((Choice::Static, format!("static found {n} items and the browser none ({})", outcome(browser))))
        }
        (None, Some((m, _))) => {
            Some((Choice::Browser, format!("the browser found {m} items and static {}", outcome(static_result))))
        }
        (Some((n, static_fields)), Some((m, browser_fields))) if n == m && static_fields == browser_fields => {
            Some((Choice::Static, format!("static found the same {n} items as the browser")))
        }
        (Some((n, _)), Some((m, _))) if n == m => {
            Some((Choice::Browser, format!("static found {n} items as the browser did, with other fields")))
        }
        (Some((n, _)), Some((m, _))) => Some((Choice::Browser, format!("the browser found {m} items and static {n}"))),
    }
}

/// What a run writes to the memory: what its comparison decided, at
/// `now` (`None`, nothing, when it did not compare or learned nothing).
pub fn remember(compared: Option<Choice>, fingerprint: &str, now: DateTime<Utc>) -> Option<EngineMemory> {
    compared.map(|choice| EngineMemory {
        engine: choice.id().to_string(),
        fingerprint: fingerprint.to_string(),
        checked_at: now,
    })
}

/// The field names of the first item, sorted (empty for a non-object).
fn first_fields(json: &str) -> Vec<String> {
    let items: Vec<serde_json::Value> = serde_json::from_str(json).unwrap_or_default();
    let mut fields: Vec<String> = match items.first() {
        Some(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
        _ => vec![],
    };
    fields.sort();
    fields
}

fn outcome(result: &ScriptResult) -> String {
    match result {
        ScriptResult::Data { .. } => "found nothing".to_string(),
        ScriptResult::Failed { message } => {
            let short: String = message.chars().take(160).collect();
            format!("failed: {short}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(json: &str) -> ScriptResult {
        let length = serde_json::from_str::<Vec<serde_json::Value>>(json).unwrap().len() as i64;
        ScriptResult::Data { json: json.into(), length }
    }

    fn failed(message: &str) -> ScriptResult {
        ScriptResult::Failed { message: message.into() }
    }

    fn at(minutes: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap() + TimeDelta::minutes(minutes)
    }

    fn mem(engine: &str, fp: &str, checked: i64) -> EngineMemory {
        EngineMemory { engine: engine.into(), fingerprint: fp.into(), checked_at: at(checked) }
    }

    #[test]
    fn the_first_run_and_the_first_after_an_hour_compare() {
        assert_eq!(plan(None, "f", at(0)), Plan { static_first: true, compare: true, remembered: None });
        assert_eq!(
            plan(Some(&mem("static", "f", 0)), "f", at(59)),
            Plan { static_first: true, compare: false, remembered: Some(Choice::Static) }
        );
        assert_eq!(
            plan(Some(&mem("puppeteer", "f", 0)), "f", at(59)),
            Plan { static_first: false, compare: false, remembered: Some(Choice::Browser) }
        );
        for engine in ["static", "puppeteer"] {
            let due = plan(Some(&mem(engine, "f", 0)), "f", at(60));
            assert_eq!((due.static_first, due.compare), (true, true), "{engine}");
            assert_eq!(due_before(at(60)), at(0), "what the run claims");
        }
        // Another script (or URL), or an engine this version does not know: start over.
        assert_eq!(plan(Some(&mem("static", "old", 0)), "new", at(1)).remembered, None);
        assert_eq!(plan(Some(&mem("selenium", "f", 0)), "f", at(1)).remembered, None);
    }

    #[test]
    fn a_run_that_lost_the_claim_runs_the_remembered_engine() {
        let browser = plan(Some(&mem("puppeteer", "f", 0)), "f", at(90)).without_check();
        assert_eq!(browser, Plan { static_first: false, compare: false, remembered: Some(Choice::Browser) });
        let fast = plan(Some(&mem("static", "f", 0)), "f", at(90)).without_check();
        assert_eq!(fast, Plan { static_first: true, compare: false, remembered: Some(Choice::Static) });
    }

    #[test]
    fn a_fingerprint_changes_with_the_url_or_the_script() {
        let a = fingerprint("https://a.example/", "returnData([])");
        assert_eq!(a, fingerprint("https://a.example/", "returnData([])"));
        assert_ne!(a, fingerprint("https://b.example/", "returnData([])"));
        assert_ne!(a, fingerprint("https://a.example/", "returnData([1])"));
        assert_ne!(fingerprint("ab", "c"), fingerprint("a", "bc"));
    }

    #[test]
    fn static_is_chosen_only_when_it_finds_what_the_browser_finds() {
        let same = compare(&data(r#"[{"a":1,"b":2},{"a":3,"b":4}]"#), &data(r#"[{"b":0,"a":0},{"a":5,"b":6}]"#));
        assert_eq!(same.map(|c| c.0), Some(Choice::Static));
        let fewer = compare(&data(r#"[{"a":1}]"#), &data(r#"[{"a":1},{"a":2}]"#)).unwrap();
        assert_eq!(fewer, (Choice::Browser, "the browser found 2 items and static 1".into()));
        let other_fields = compare(&data(r#"[{"a":""}]"#), &data(r#"[{"a":"x","price":"1"}]"#)).unwrap();
        assert_eq!(other_fields.0, Choice::Browser);
        let empty = compare(&data("[]"), &data(r#"[1,2]"#)).unwrap();
        assert_eq!(empty, (Choice::Browser, "the browser found 2 items and static found nothing".into()));
        let threw = compare(&failed("document.createElement is not supported"), &data("[1]")).unwrap();
        assert_eq!(threw.0, Choice::Browser);
        assert!(threw.1.contains("failed: document.createElement is not supported"), "{}", threw.1);
        let browser_broke = compare(&data("[1]"), &failed("timed out")).unwrap();
        assert_eq!(browser_broke.0, Choice::Static);
        assert_eq!(compare(&data("[]"), &failed("HTTP 500")), None);
        assert_eq!(compare(&failed("HTTP 500"), &data("[]")), None);
    }

    #[test]
    fn only_a_comparison_is_written() {
        assert_eq!(remember(Some(Choice::Static), "f", at(5)), Some(mem("static", "f", 5)));
        assert_eq!(remember(Some(Choice::Browser), "f", at(7)), Some(mem("puppeteer", "f", 7)));
        assert_eq!(remember(None, "f", at(5)), None, "nothing learned, nothing kept");
    }
}
