//! `scrapper: "auto"`: which engine a scrap's run uses, and what a run
//! teaches about the next one. Pure: `RunService` runs the engines and
//! keeps the memory (`engine_memory`).
//!
//! A run of an `auto` scrap tries `static` first and keeps its result when
//! it found items; otherwise the browser runs and its result is kept. The
//! first run of a script, and every [`CHECK_EVERY`]th after, runs both and
//! compares: `static` is chosen when it found as many items as the browser
//! with the same fields, else `puppeteer` is, until the next comparison.
//! A remembered `puppeteer` skips the static attempt between comparisons.

use sha2::{Digest, Sha256};
use svc_domain::scrap::{DEFAULT_SCRAPPER, STATIC_SCRAPPER};
use svc_storage::EngineMemory;

use crate::run_outcome::ScriptResult;

/// Every this many runs of an `auto` scrap, both engines run and are compared.
pub const CHECK_EVERY: i64 = 20;

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

/// The plan for the next run, from what is remembered for the scrap.
pub fn plan(memory: Option<&EngineMemory>, fingerprint: &str) -> Plan {
    let known = memory
        .filter(|m| m.fingerprint == fingerprint)
        .and_then(|m| Choice::parse(&m.engine).map(|choice| (choice, m.runs)));
    match known {
        None => Plan { static_first: true, compare: true, remembered: None },
        Some((choice, runs)) if runs + 1 >= CHECK_EVERY => {
            Plan { static_first: true, compare: true, remembered: Some(choice) }
        }
        Some((Choice::Static, _)) => Plan { static_first: true, compare: false, remembered: Some(Choice::Static) },
        Some((Choice::Browser, _)) => Plan { static_first: false, compare: false, remembered: Some(Choice::Browser) },
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

/// The memory after a run: `compared` is what a comparison decided (or
/// `None` when the engines were not compared or nothing was learned).
pub fn remember(
    plan: Plan,
    compared: Option<Choice>,
    previous: Option<&EngineMemory>,
    fingerprint: &str,
) -> Option<EngineMemory> {
    let memory = |choice: Choice, runs: i64| EngineMemory {
        engine: choice.id().to_string(),
        fingerprint: fingerprint.to_string(),
        runs,
    };
    match (compared, plan.remembered) {
        (Some(choice), _) => Some(memory(choice, 0)),
        (None, Some(choice)) => {
            let runs = previous.filter(|m| m.fingerprint == fingerprint).map_or(0, |m| m.runs);
            Some(memory(choice, runs + 1))
        }
        (None, None) => None,
    }
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

    fn mem(engine: &str, fp: &str, runs: i64) -> EngineMemory {
        EngineMemory { engine: engine.into(), fingerprint: fp.into(), runs }
    }

    #[test]
    fn the_first_run_and_every_20th_compare() {
        assert_eq!(plan(None, "f"), Plan { static_first: true, compare: true, remembered: None });
        assert_eq!(
            plan(Some(&mem("static", "f", 3)), "f"),
            Plan { static_first: true, compare: false, remembered: Some(Choice::Static) }
        );
        assert_eq!(
            plan(Some(&mem("puppeteer", "f", 3)), "f"),
            Plan { static_first: false, compare: false, remembered: Some(Choice::Browser) }
        );
        for engine in ["static", "puppeteer"] {
            assert!(plan(Some(&mem(engine, "f", CHECK_EVERY - 1)), "f").compare, "{engine}");
            assert!(!plan(Some(&mem(engine, "f", CHECK_EVERY - 2)), "f").compare, "{engine}");
        }
        // Another script (or URL), or an engine this version does not know: start over.
        assert_eq!(plan(Some(&mem("static", "old", 3)), "new").remembered, None);
        assert_eq!(plan(Some(&mem("selenium", "f", 3)), "f").remembered, None);
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
    fn memory_counts_runs_since_the_comparison() {
        let first = plan(None, "f");
        assert_eq!(remember(first, Some(Choice::Static), None, "f"), Some(mem("static", "f", 0)));
        assert_eq!(remember(first, None, None, "f"), None, "nothing learned, nothing kept");
        let kept = mem("static", "f", 4);
        let p = plan(Some(&kept), "f");
        assert_eq!(remember(p, None, Some(&kept), "f"), Some(mem("static", "f", 5)));
        let fell_back = remember(p, Some(Choice::Browser), Some(&kept), "f");
        assert_eq!(fell_back, Some(mem("puppeteer", "f", 0)));
        let due = mem("puppeteer", "f", CHECK_EVERY - 1);
        assert_eq!(remember(plan(Some(&due), "f"), Some(Choice::Static), Some(&due), "f"), Some(mem("static", "f", 0)));
        // A comparison that learned nothing still counts as a run.
        assert_eq!(remember(plan(Some(&due), "f"), None, Some(&due), "f"), Some(mem("puppeteer", "f", CHECK_EVERY)));
    }
}
