//! The chats svc sends a model for its AI features: the wizard (what can be
//! extracted from a page), script generation, and AI Fix (repairing a script
//! that stopped working); and the reading and checking of what comes back.
//! Pages reach the model as [`svc_page_snapshot`] outlines
//! of at most [`SNAPSHOT_BUDGET_TOKENS`], made by the caller. Pure: the caller
//! calls the model and runs the scripts.

use serde_json::Value;
use svc_domain::task::FieldProposal;

use crate::ai::fix_policy::keys_of;
use crate::ai::model::ChatMessage;
use crate::ai::model_answer::json_from;

/// The token budget of the page outline put in a prompt.
pub const SNAPSHOT_BUDGET_TOKENS: usize = 6_000;
/// Field proposals kept of a wizard answer, at most.
pub const MAX_PROPOSALS: usize = 30;
/// Items of a generated script's data checked for the required fields.
pub const CHECKED_ITEMS: usize = 20;
/// Failed previous attempts shown in a prompt: the latest ones.
const MAX_PREVIOUS: usize = 5;
/// The longest previous attempt's script shown, in characters.
const MAX_PREVIOUS_SCRIPT_CHARS: usize = 8_000;
/// The longest description of what went wrong with an attempt, in characters.
const MAX_PROBLEM_CHARS: usize = 1_000;
/// Items of the last good data shown to AI Fix ...
const SAMPLE_ITEMS: usize = 3;
/// ... as pretty JSON cut to this many characters.
const SAMPLE_CHARS: usize = 2_000;

/// What a script is and may use (docs/scraps.md), for generation and AI Fix.
const SCRIPT_CONTRACT: &str = "\
You write extraction scripts for svc, a web-page extraction service. A script is the body of an async \
JavaScript function that svc runs inside the page, in a real browser, after the page's `load` event.

- Read the page through the DOM: document.querySelector, querySelectorAll, textContent, getAttribute and \
so on. The script runs in an isolated world: it sees the DOM but not the page's own JavaScript variables; \
data embedded in a <script> element can be read with JSON.parse(element.textContent).
- For content that appears after load, `await SVC.waitFor(selector, timeoutMs)` waits for an element \
matching the CSS selector and returns it (it throws after timeoutMs, 10000 by default), and \
`await SVC.sleep(ms)` pauses.
- `SVC.url` is the page's URL; `SVC.param` is the run's parameter set, `{key, value}`, or null.
- `SVC.account` is the scrap's login on the site, `{username, password}`, or null. Use it only to sign in \
when the page shows a login form instead of the content (fill the form, post it with fetch, read the answer \
with DOMParser); never put it in the returned data.
- Call `returnData(array)` exactly once, with an array of plain objects (strings, numbers, booleans, null, \
arrays and objects of these). The first call ends the run; a value that is not an array is an error, and so \
is finishing without calling it. Give every item the same keys, with null for a value the page lacks.
- No import, no require, no libraries: plain modern JavaScript. Do not navigate away from the page.
- Prefer selectors that last: ids, meaningful class names, attributes and structure, rather than \
generated class names.

Answer with the script in a single ```javascript fenced code block.";

/// The heading of the outline of a freshly loaded page.
const AFTER_LOAD: &str = "The page after load";

/// How to read a page outline.
const OUTLINE_NOTE: &str = "\
The page is shown as an outline, one element a line, indented by depth: tag#id.class[attribute=value] \
\"text\". Scripts, styles and hidden inputs are left out; `… N more li.item like these` stands for similar \
elements not shown, and a lone `…` for parts of the page left out.";

/// The chat that asks which fields can be extracted from the page at `url`,
/// given its outline `snapshot`.
pub fn wizard(url: &str, snapshot: &str) -> Vec<ChatMessage> {
    vec![
        ChatMessage::system(format!(
            "You help a user of svc, a web-page extraction service, decide what to extract from a page. svc \
             extracts a list of items (products, articles, table rows, search results, …) with a script run in \
             the page, each item an object with the same fields.\n\n{OUTLINE_NOTE}\n\nPropose the fields the \
             items of this page have, the main list first. Answer with a JSON array in a single ```json fenced \
             code block, one object a field: [{{\"name\": \"price\", \"description\": \"The product's price, as \
             shown\", \"example\": \"$10.00\"}}]. `name` is a short camelCase key, `description` says what the \
             field holds, `example` is its value for the first item, copied from the page. At most \
             {MAX_PROPOSALS} fields."
        )),
        ChatMessage::user(format!(
            "Page: {url}\n\n{}\n\nWhich fields can be extracted?",
            page_section(AFTER_LOAD, snapshot)
        )),
    ]
}

/// The proposals of a wizard answer: a JSON array, or an object with a
/// `fields` or `proposals` array, of objects with a non-empty string `name`
/// (a bare string counts as a name). Items without a name and repeated names
/// are skipped; at most [`MAX_PROPOSALS`] are kept. `Err` says why the answer
/// is unusable.
pub fn proposals_from(content: &str) -> Result<Vec<FieldProposal>, String> {
    let items = match json_from(content) {
        None => return Err("the answer holds no JSON".into()),
        Some(Value::Array(items)) => items,
        Some(Value::Object(mut object)) => match object.remove("fields").or_else(|| object.remove("proposals")) {
            Some(Value::Array(items)) => items,
            _ => return Err("the answer's JSON has no list of fields".into()),
        },
        Some(_) => return Err("the answer's JSON is not a list of fields".into()),
    };
    let mut proposals: Vec<FieldProposal> = Vec::new();
    for proposal in items.into_iter().filter_map(proposal) {
        if proposals.len() == MAX_PROPOSALS {
            break;
        }
        if !proposals.iter().any(|p| p.name == proposal.name) {
            proposals.push(proposal);
        }
    }
    if proposals.is_empty() {
        return Err("the answer proposes no fields".into());
    }
    Ok(proposals)
}

/// One proposal of a wizard answer, if it has a name.
fn proposal(item: Value) -> Option<FieldProposal> {
    let (name, description, example) = match item {
        Value::String(name) => (name, String::new(), Value::Null),
        Value::Object(mut object) => {
            let Some(Value::String(name)) = object.remove("name") else { return None };
            let description = match object.remove("description") {
                Some(Value::String(description)) => description.trim().to_string(),
                _ => String::new(),
            };
            (name, description, object.remove("example").unwrap_or(Value::Null))
        }
        _ => return None,
    };
    let name = name.trim().to_string();
    (!name.is_empty()).then_some(FieldProposal { name, description, example })
}

/// An earlier script that did not do: what it was and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub script: String,
    /// Why it failed or was rejected, e.g. "items lack the field `price`".
    pub problem: String,
}

/// The chat that asks for a script extracting `description` from the page at
/// `url` (outline `snapshot`), whose items have the keys `fields`, telling
/// the model what went wrong with its `previous` attempts.
pub fn generate(
    url: &str,
    description: &str,
    fields: &[String],
    snapshot: &str,
    previous: &[Attempt],
) -> Vec<ChatMessage> {
    let fields: Vec<&str> = fields.iter().map(|f| f.trim()).filter(|f| !f.is_empty()).collect();
    let keys = if fields.is_empty() {
        "Choose short camelCase keys for the items' fields.".to_string()
    } else {
        let word = if fields.len() == 1 { "key" } else { "keys" };
        format!("Each item must be an object with the {word} {}.", key_list(&fields))
    };
    let mut user = format!(
        "Page: {url}\n\nWhat to extract: {}\n\n{keys}\n\n{}",
        description.trim(),
        page_section(AFTER_LOAD, snapshot)
    );
    push_attempts(&mut user, previous, "Earlier scripts that did not work", "What went wrong");
    user.push_str("\n\nWrite the script.");
    vec![ChatMessage::system(format!("{SCRIPT_CONTRACT}\n\n{OUTLINE_NOTE}")), ChatMessage::user(user)]
}

/// Whether a generated script's test run gave what was asked for: a
/// non-empty array (`length` items) whose first [`CHECKED_ITEMS`] items are
/// objects with every key of `fields`. `Err` says what is wrong, for the
/// user and for the next attempt's prompt.
pub fn check_generated(json: &str, length: i64, fields: &[String]) -> Result<(), String> {
    let items = match serde_json::from_str::<Value>(json) {
        Ok(Value::Array(items)) => items,
        _ if length <= 0 => return Err("the script returned no items".into()),
        _ => return Err("the script's data is not a JSON array".into()),
    };
    if length <= 0 || items.is_empty() {
        return Err("the script returned no items".into());
    }
    let mut fields: Vec<&str> = fields.iter().map(|f| f.trim()).filter(|f| !f.is_empty()).collect();
    if fields.is_empty() {
        return Ok(());
    }
    fields.sort_unstable();
    fields.dedup();
    let checked = &items[..items.len().min(CHECKED_ITEMS)];
    if let Some((at, item)) = checked.iter().enumerate().find(|(_, item)| !item.is_object()) {
        return Err(format!("the items must be objects, item {} is {}", at + 1, a_json_type(item)));
    }
    let lacks = |item: &Value, field: &str| item.get(field).is_none();
    let missing: Vec<&str> = fields.iter().copied().filter(|f| checked.iter().any(|item| lacks(item, f))).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let word = if missing.len() == 1 { "field" } else { "fields" };
    let mut problem = format!("items lack the {word} {}", key_list(&missing));
    let lacking = checked.iter().filter(|item| missing.iter().any(|f| lacks(item, f))).count();
    if lacking < checked.len() {
        problem.push_str(&format!(" ({lacking} of the first {} items)", checked.len()));
    }
    Err(problem)
}

/// "a string", "an array".
fn a_json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What AI Fix knows about a script that stopped working.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixContext<'a> {
    /// The scrap's URL.
    pub url: &'a str,
    /// The script as it is, shown verbatim.
    pub script: &'a str,
    /// How the run ended: `error`, `empty` or `regression`.
    pub outcome: &'a str,
    /// The run's error message, for `error`.
    pub error: Option<&'a str>,
    /// Items the run returned.
    pub length: i64,
    /// Items the last good run returned.
    pub good_length: Option<i64>,
    /// The last good run's data, JSON text.
    pub last_good_sample: Option<&'a str>,
    /// The outline of the page as the run left it.
    pub snapshot: &'a str,
}

/// The chat that asks for a repaired script: what happened, the script,
/// the page, what the last good data looked like, and the `previous`
/// candidates that were rejected and why.
pub fn fix(ctx: &FixContext, previous: &[Attempt]) -> Vec<ChatMessage> {
    let mut user = format!(
        "This script stopped working on {}.\n\nWhat happened: {}\n\nThe script:\n{}\n\n{}",
        ctx.url,
        what_happened(ctx),
        fenced("javascript", ctx.script),
        page_section("The page as the run left it", ctx.snapshot)
    );
    if let Some(data) = ctx.last_good_sample.and_then(good_data_section) {
        user.push_str("\n\n");
        user.push_str(&data);
    }
    push_attempts(&mut user, previous, "Repaired scripts already tried and rejected", "Why it was rejected");
    user.push_str(
        "\n\nRepair the script: keep what still works, change what no longer matches the page, and keep the \
         shape of the items.",
    );
    let system = format!(
        "{SCRIPT_CONTRACT}\n\n{OUTLINE_NOTE}\n\nA script that used to work no longer does, most likely because \
         the page changed. Repair it."
    );
    vec![ChatMessage::system(system), ChatMessage::user(user)]
}

/// "the run failed with this error: …", "the run returned 2 items, the last
/// good run returned 10".
fn what_happened(ctx: &FixContext) -> String {
    let good = ctx.good_length.map(|n| format!(", the last good run returned {}", item_count(n))).unwrap_or_default();
    match ctx.outcome {
        "error" => match ctx.error.map(str::trim).filter(|e| !e.is_empty()) {
            Some(error) => format!("the run failed with this error: {error}"),
            None => "the run failed without an error message".into(),
        },
        "empty" => format!("the run returned no items{good}"),
        _ => format!("the run returned {}{good}", item_count(ctx.length)),
    }
}

/// The first items of the last good data and their keys; `None` when the
/// data holds no items.
fn good_data_section(data: &str) -> Option<String> {
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(data) else { return None };
    if items.is_empty() {
        return None;
    }
    let first = Value::Array(items.iter().take(SAMPLE_ITEMS).cloned().collect());
    let sample = cut(&serde_json::to_string_pretty(&first).unwrap_or_default(), SAMPLE_CHARS);
    let keys = keys_of(data);
    // The sample may be cut short, so its length is not the good run's count.
    let first = match items.len().min(SAMPLE_ITEMS) {
        1 => "The first item".to_string(),
        n => format!("The first {n} items"),
    };
    let mut section = format!("{first} of the last good run's data:\n{}", fenced("json", &sample));
    if keys.is_empty() {
        section.push_str("\nThe repaired script must return items like these.");
    } else {
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        section.push_str(&format!(
            "\nTheir keys: {}. The repaired script must return items with the same keys.",
            key_list(&keys)
        ));
    }
    Some(section)
}

/// "1 item", "3 items".
fn item_count(n: i64) -> String {
    if n == 1 { "1 item".into() } else { format!("{n} items") }
}

/// The page outline in a fenced block, under `heading`.
fn page_section(heading: &str, snapshot: &str) -> String {
    let snapshot = snapshot.trim_end();
    if snapshot.trim().is_empty() {
        return format!("{heading}: nothing (the outline is empty).");
    }
    format!("{heading}, as an outline:\n{}", fenced("text", snapshot))
}

/// Appends the latest [`MAX_PREVIOUS`] attempts under `title`, each with
/// its script and, after `why`, its problem.
fn push_attempts(out: &mut String, previous: &[Attempt], title: &str, why: &str) {
    if previous.is_empty() {
        return;
    }
    out.push_str(&format!("\n\n{title}; do not repeat their mistakes:"));
    let skipped = previous.len().saturating_sub(MAX_PREVIOUS);
    if skipped > 0 {
        out.push_str(&format!(" ({skipped} earlier ones not shown)"));
    }
    for (n, attempt) in previous.iter().enumerate().skip(skipped) {
        out.push_str(&format!(
            "\n\nAttempt {}:\n{}\n{why}: {}",
            n + 1,
            fenced("javascript", &cut(attempt.script.trim(), MAX_PREVIOUS_SCRIPT_CHARS)),
            cut(attempt.problem.trim(), MAX_PROBLEM_CHARS)
        ));
    }
}

/// "`a`, `b`".
fn key_list(keys: &[&str]) -> String {
    keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
}

/// `body` in a fenced block marked `language`, the fence longer than any run
/// of backticks in it.
fn fenced(language: &str, body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{language}\n{body}\n{fence}")
}

/// `text` cut to `max` characters, with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ai::model_answer::script_from;

    const SNAPSHOT: &str = "title \"Widgets\"\nul#products\n li.product\n  span.price \"$10.00\"";

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_wizard_shows_the_page_and_asks_for_json() {
        let chat = wizard("https://shop.example/widgets", SNAPSHOT);
        assert_eq!(chat.len(), 2);
        assert_eq!((chat[0].role, chat[1].role), ("system", "user"));
        assert!(chat[0].content.contains("```json") && chat[0].content.contains("\"example\""));
        assert!(chat[1].content.contains("https://shop.example/widgets"));
        assert!(chat[1].content.contains(&format!("```text\n{SNAPSHOT}\n```")));
        assert!(wizard("u", " \n")[1].content.contains("The page after load: nothing (the outline is empty)."));
    }

    #[test]
    fn proposals_are_read_leniently() {
        let answer = "Sure!\n```json\n[{\"name\": \"title\", \"description\": \"The name\", \"example\": \"Widget\"},\
            {\"name\": \" price \", \"example\": 10}, {\"description\": \"no name\"}, {\"name\": \"\"},\
            {\"name\": \"title\"}, \"url\", 7]\n```";
        let proposals = proposals_from(answer).unwrap();
        assert_eq!(
            proposals,
            vec![
                FieldProposal { name: "title".into(), description: "The name".into(), example: json!("Widget") },
                FieldProposal { name: "price".into(), description: String::new(), example: json!(10) },
                FieldProposal { name: "url".into(), description: String::new(), example: Value::Null },
            ]
        );
        let wrapped = proposals_from(r#"{"fields": [{"name": "a"}]}"#).unwrap();
        assert_eq!(wrapped[0].name, "a");
        assert_eq!(proposals_from(r#"{"proposals": ["b"]}"#).unwrap()[0].name, "b");
        assert_eq!(
            serde_json::to_value(&wrapped[0]).unwrap(),
            json!({"name": "a", "description": "", "example": null})
        );
    }

    #[test]
    fn proposals_are_capped_and_an_empty_list_is_an_error() {
        let many: Vec<Value> = (0..40).map(|i| json!({ "name": format!("f{i}") })).collect();
        let proposals = proposals_from(&serde_json::to_string(&many).unwrap()).unwrap();
        assert_eq!(proposals.len(), MAX_PROPOSALS);
        assert_eq!(proposals.last().unwrap().name, "f29");
        assert_eq!(proposals_from("[]").unwrap_err(), "the answer proposes no fields");
        assert_eq!(proposals_from("[{\"name\": 3}]").unwrap_err(), "the answer proposes no fields");
        assert_eq!(proposals_from("I cannot see the page.").unwrap_err(), "the answer holds no JSON");
        assert_eq!(proposals_from("{\"a\": 1}").unwrap_err(), "the answer's JSON has no list of fields");
        assert_eq!(proposals_from("42").unwrap_err(), "the answer's JSON is not a list of fields");
    }

    #[test]
    fn generation_carries_the_request_the_fields_the_page_and_earlier_failures() {
        let previous = vec![
            Attempt { script: "returnData(document.title);".into(), problem: "returnData expects an array".into() },
            Attempt { script: "returnData([]);".into(), problem: "the script returned no items".into() },
        ];
        let chat = generate(
            "https://shop.example/widgets",
            "All widgets with their prices",
            &strings(&["title", "price"]),
            SNAPSHOT,
            &previous,
        );
        let system = &chat[0].content;
        assert!(system.contains("returnData(array)") && system.contains("SVC.waitFor") && system.contains("SVC.sleep"));
        assert!(system.contains("```javascript") && system.contains("No import, no require"));
        let user = &chat[1].content;
        assert!(user.contains("https://shop.example/widgets"));
        assert!(user.contains("All widgets with their prices"));
        assert!(user.contains("the keys `title`, `price`"));
        assert!(user.contains(SNAPSHOT));
        assert!(user.contains("Attempt 1:\n```javascript\nreturnData(document.title);\n```"));
        assert!(user.contains("What went wrong: returnData expects an array"));
        assert!(user.contains("Attempt 2:") && user.contains("What went wrong: the script returned no items"));
        let one = generate("u", "d", &strings(&["title", " "]), SNAPSHOT, &[]);
        assert!(one[1].content.contains("with the key `title`."));
        let free = generate("u", "d", &[], SNAPSHOT, &[]);
        assert!(free[1].content.contains("Choose short camelCase keys") && !free[1].content.contains("Attempt"));
    }

    #[test]
    fn only_the_latest_attempts_are_shown() {
        let previous: Vec<Attempt> = (1..=7)
            .map(|i| Attempt { script: format!("returnData([{i}]);"), problem: format!("problem {i}") })
            .collect();
        let user = &generate("u", "d", &[], SNAPSHOT, &previous)[1].content;
        assert!(user.contains("(2 earlier ones not shown)"));
        assert!(!user.contains("problem 2") && user.contains("problem 3") && user.contains("problem 7"));
        assert!(user.contains("Attempt 7:"));
    }

    #[test]
    fn generated_data_needs_items_with_the_fields() {
        let fields = strings(&["title", "price"]);
        assert_eq!(check_generated(r#"[{"title": "A", "price": null}]"#, 1, &fields), Ok(()));
        assert_eq!(check_generated("[]", 0, &fields).unwrap_err(), "the script returned no items");
        assert_eq!(check_generated("", 0, &fields).unwrap_err(), "the script returned no items");
        assert_eq!(check_generated("{}", 1, &fields).unwrap_err(), "the script's data is not a JSON array");
        assert_eq!(check_generated(r#"[{"a": 1}]"#, 1, &[]), Ok(()));
        assert_eq!(
            check_generated(r#"[{"name": "A"}, {"name": "B"}]"#, 2, &fields).unwrap_err(),
            "items lack the fields `price`, `title`"
        );
        assert_eq!(
            check_generated(r#"[{"title": "A", "price": 1}, {"title": "B"}]"#, 2, &fields).unwrap_err(),
            "items lack the field `price` (1 of the first 2 items)"
        );
        assert_eq!(
            check_generated(r#"[{"title": "A", "price": 1}, "B"]"#, 2, &fields).unwrap_err(),
            "the items must be objects, item 2 is a string"
        );
        // Only the first items are checked.
        let mut items = vec![json!({"title": "A", "price": 1}); CHECKED_ITEMS];
        items.push(json!({}));
        assert_eq!(check_generated(&serde_json::to_string(&items).unwrap(), 21, &fields), Ok(()));
    }

    fn fix_context<'a>(outcome: &'a str, error: Option<&'a str>, sample: Option<&'a str>) -> FixContext<'a> {
        FixContext {
            url: "https://shop.example/widgets",
            script: "const rows = [...document.querySelectorAll('.old-product')];\nreturnData(rows.map(r => ({})));",
            outcome,
            error,
            length: 2,
            good_length: Some(10),
            last_good_sample: sample,
            snapshot: SNAPSHOT,
        }
    }

    #[test]
    fn the_fix_prompt_carries_the_script_the_error_and_the_page() {
        let ctx = fix_context("error", Some("the script threw: rows.map is not a function"), None);
        let previous =
            vec![Attempt { script: "returnData([1]);".into(), problem: "keys differ: missing `price`".into() }];
        let chat = fix(&ctx, &previous);
        assert!(chat[0].content.contains("returnData(array)") && chat[0].content.contains("Repair it"));
        let user = &chat[1].content;
        assert!(user.contains("https://shop.example/widgets"));
        assert!(user.contains("The page as the run left it, as an outline:"));
        assert!(user.contains(&format!("```javascript\n{}\n```", ctx.script)));
        assert!(user.contains("the run failed with this error: the script threw: rows.map is not a function"));
        assert!(user.contains(SNAPSHOT));
        assert!(
            user.contains("returnData([1]);") && user.contains("Why it was rejected: keys differ: missing `price`")
        );
        assert!(!user.contains("last good run returned"));
        let bare = &fix(&fix_context("error", None, None), &[])[1].content;
        assert!(bare.contains("without an error message") && !bare.contains("Attempt"));
    }

    #[test]
    fn the_fix_prompt_counts_items_and_shows_the_last_good_data() {
        let good: Vec<Value> =
            (0..10).map(|i| json!({"title": format!("Widget {i}"), "price": i, "url": format!("/p/{i}")})).collect();
        let good = serde_json::to_string(&good).unwrap();
        let user = &fix(&fix_context("regression", None, Some(&good)), &[])[1].content;
        assert!(user.contains("the run returned 2 items, the last good run returned 10"), "{user}");
        assert!(user.contains("The first 3 items of the last good run's data:\n```json\n[\n  {"));
        assert!(user.contains("\"Widget 2\"") && !user.contains("\"Widget 3\""));
        assert!(user.contains(
            "Their keys: `price`, `title`, `url`. The repaired script must return items with the same keys."
        ));
        let empty = &fix(&fix_context("empty", None, Some("[\"a\"]")), &[])[1].content;
        assert!(empty.contains("the run returned no items, the last good run returned 10"));
        assert!(empty.contains("The first item of the last good run's data:\n```json\n[\n  \"a\"\n]\n```"));
        assert!(empty.contains("must return items like these"));
    }

    #[test]
    fn the_good_sample_is_cut() {
        let good: Vec<Value> = (0..3).map(|_| json!({"text": "x".repeat(5_000)})).collect();
        let good = serde_json::to_string(&good).unwrap();
        let user = &fix(&fix_context("regression", None, Some(&good)), &[])[1].content;
        assert!(user.len() < SAMPLE_CHARS + 3_000, "{}", user.len());
        assert!(user.contains("Their keys: `text`"));
    }

    #[test]
    fn fences_outgrow_backticks_in_what_they_hold() {
        let script = "const s = `a`;\n// ```\nreturnData([s]);";
        let ctx = FixContext { script, ..fix_context("error", Some("x"), None) };
        let user = &fix(&ctx, &[])[1].content;
        assert!(user.contains(&format!("````javascript\n{script}\n````")));
        // What the model is shown is read back the same way.
        assert_eq!(script_from(&fenced("javascript", script)).as_deref(), Some(script));
    }
}
