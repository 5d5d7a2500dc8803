//! The AI digest of a run: what changed since the previous successful run,
//! computed here (never by the model), then the model's summary following
//! the scrap's `digestPrompt`. Pure: the caller calls the model.

use serde_json::Value;

use crate::ai::model::{ChatMessage, Completion};
use crate::outbox::data_export::diff::{DataDiff, diff};

/// Items of each kind the digest and the prompt list.
pub const LISTED: usize = 10;
/// Items of the current data the prompt shows the model.
pub const SAMPLE_ITEMS: usize = 20;
/// The longest JSON shown for one item.
const ITEM_CHARS: usize = 300;
/// Tokens the model's answer costs in compute units: one unit per this many.
pub const TOKENS_PER_UNIT: u64 = 1_000;

const DEFAULT_INSTRUCTIONS: &str = "Summarize what this data says and what changed, for a busy reader.";

fn items(json: &str) -> Vec<Value> {
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Array(items)) => items,
        _ => vec![],
    }
}

fn short(item: &Value) -> String {
    let text = item.to_string();
    if text.chars().count() <= ITEM_CHARS {
        return text;
    }
    let cut: String = text.chars().take(ITEM_CHARS).collect();
    format!("{cut}…")
}

/// "What changed" as markdown, from the two runs' data (`None` previous:
/// the first successful run).
pub fn changes_markdown(previous: Option<&str>, current: &str) -> String {
    let now = items(current);
    let Some(previous) = previous else {
        return format!("**What changed:** first successful run, {} items.", now.len());
    };
    let before = items(previous);
    let d: DataDiff = diff(&before, &now);
    if d.is_same() {
        return format!("**What changed:** nothing since the previous successful run ({} items).", now.len());
    }
    let mut out = format!(
        "**What changed** since the previous successful run: {} added, {} removed, {} changed, {} unchanged.",
        d.added.len(),
        d.removed.len(),
        d.changed.len(),
        d.unchanged
    );
    let list = |out: &mut String, title: &str, shown: Vec<String>, total: usize| {
        if shown.is_empty() {
            return;
        }
        out.push_str(&format!("\n\n{title}:\n"));
        for s in shown {
            out.push_str(&format!("- `{s}`\n"));
        }
        if total > LISTED {
            out.push_str(&format!("- … and {} more\n", total - LISTED));
        }
    };
    list(&mut out, "Added", d.added.iter().take(LISTED).map(|&i| short(&now[i])).collect(), d.added.len());
    list(&mut out, "Removed", d.removed.iter().take(LISTED).map(|&i| short(&before[i])).collect(), d.removed.len());
    let changed = d
        .changed
        .iter()
        .take(LISTED)
        .map(|c| {
            let fields: Vec<String> = c
                .fields
                .iter()
                .map(|f| {
                    let v = |x: &Option<Value>| x.as_ref().map(|v| v.to_string()).unwrap_or_else(|| "—".into());
                    format!("{}: {} → {}", f.field, v(&f.before), v(&f.after))
                })
                .collect();
            format!("{} ({})", short(&c.key_value), fields.join(", "))
        })
        .collect();
    list(&mut out, "Changed", changed, d.changed.len());
    out.trim_end().to_string()
}

/// The chat that asks for the digest: the instructions, the computed
/// changes, and a sample of the data.
pub fn prompt(title: &str, instructions: Option<&str>, changes: &str, current: &str) -> Vec<ChatMessage> {
    let now = items(current);
    let sample: Vec<String> = now.iter().take(SAMPLE_ITEMS).map(short).collect();
    let instructions = instructions.map(str::trim).filter(|s| !s.is_empty()).unwrap_or(DEFAULT_INSTRUCTIONS);
    vec![
        ChatMessage::system(
            "You write the digest of a web extraction run: a short markdown summary. The changes since the \
             previous run were computed exactly and are given; do not recount them, and do not invent data. \
             Answer with the summary only.",
        ),
        ChatMessage::user(format!(
            "Scrap: {title}\nInstructions: {instructions}\n\n{changes}\n\nThe data ({} items; the first {} shown, \
             one JSON item per line):\n{}",
            now.len(),
            sample.len(),
            sample.join("\n")
        )),
    ]
}

/// The digest stored on the row: the computed changes first, then the
/// model's summary. `None` when the answer holds no text.
pub fn digest_text(changes: &str, completion: &Completion) -> Option<String> {
    let summary = completion.content.trim();
    if summary.is_empty() {
        return None;
    }
    Some(format!("{changes}\n\n{summary}"))
}

/// Compute units of a model call.
pub fn units(completion: &Completion) -> i64 {
    (completion.input_tokens + completion.output_tokens).div_ceil(TOKENS_PER_UNIT) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_counted_and_listed_by_the_code_not_the_model() {
        let before = r#"[{"id":1,"price":10},{"id":2,"price":20},{"id":3,"price":30}]"#;
        let after = r#"[{"id":1,"price":10},{"id":2,"price":25},{"id":4,"price":40}]"#;
        let md = changes_markdown(Some(before), after);
        assert!(
            md.starts_with(
                "**What changed** since the previous successful run: 1 added, 1 removed, 1 changed, 1 unchanged."
            ),
            "{md}"
        );
        assert!(md.contains("Added:\n- `{\"id\":4,\"price\":40}`"), "{md}");
        assert!(md.contains("Removed:\n- `{\"id\":3,\"price\":30}`"), "{md}");
        assert!(md.contains("2 (price: 20 → 25)"), "{md}");
        assert_eq!(changes_markdown(None, after), "**What changed:** first successful run, 3 items.");
        assert!(changes_markdown(Some(after), after).contains("nothing since"));
    }

    #[test]
    fn the_prompt_carries_the_instructions_the_changes_and_a_bounded_sample() {
        let data = serde_json::to_string(&(0..50).map(|i| serde_json::json!({"n": i})).collect::<Vec<_>>()).unwrap();
        let chat = prompt("Prices", Some("Focus on drops."), "**What changed** …", &data);
        let user = &chat[1].content;
        assert!(user.contains("Focus on drops.") && user.contains("**What changed** …"));
        assert!(
            user.contains("50 items; the first 20 shown")
                && user.contains("{\"n\":19}")
                && !user.contains("{\"n\":20}")
        );
        assert!(prompt("P", Some("  "), "c", "[]")[1].content.contains(DEFAULT_INSTRUCTIONS));
    }

    #[test]
    fn an_empty_answer_is_no_digest_and_tokens_become_units() {
        let c = Completion { content: "  \n".into(), input_tokens: 1500, output_tokens: 10 };
        assert_eq!(digest_text("x", &c), None);
        assert_eq!(units(&c), 2);
        let c = Completion { content: "Prices fell.".into(), input_tokens: 10, output_tokens: 5 };
        assert_eq!(digest_text("changes", &c).as_deref(), Some("changes\n\nPrices fell."));
    }
}
