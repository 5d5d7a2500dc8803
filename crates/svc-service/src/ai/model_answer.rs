//! Reading what a model answered (docs/ai.md): a script from the first
//! fenced JavaScript block, structured data from the first JSON block, or
//! either from the whole content when the answer has no fence. Anything else
//! in the answer is ignored. Pure: no I/O.
//!
//! Fences are read the CommonMark way, leniently: a line of three or more
//! backticks (after any indentation) opens a block, its info string (first
//! word, case-insensitive) names the language, and a line of at least as many
//! backticks and nothing else closes it. The opening fence's indentation is
//! removed from the block's lines. A block left open runs to the end of the
//! answer. CRLF line endings are read like LF.

use serde_json::Value;

/// Info strings taken as JavaScript (the empty one is a bare fence).
const SCRIPT_LANGUAGES: &[&str] = &["javascript", "js", ""];
/// Info strings taken as JSON.
const JSON_LANGUAGES: &[&str] = &["json", ""];

/// One fenced code block of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    /// The first word of the info string, lowercased; empty for a bare fence.
    language: String,
    /// The lines between the fences, joined with `\n`.
    body: String,
}

/// The script of an answer: the first fenced block marked `javascript` or
/// `js`, or bare; when the answer has no fence at all, the whole content.
/// Blocks in other languages are skipped. `None` when that is blank (or
/// when every block is in another language).
pub fn script_from(content: &str) -> Option<String> {
    let blocks = blocks(content);
    let script = if blocks.is_empty() {
        content.trim().to_string()
    } else {
        blocks.into_iter().find(|b| SCRIPT_LANGUAGES.contains(&b.language.as_str()))?.body.trim().to_string()
    };
    (!script.is_empty()).then_some(script)
}

/// The JSON of an answer: the first fenced block marked `json` (or bare)
/// that parses, else the whole content. An answer without any fence may also
/// wrap its JSON in prose ("Here are the fields: [...]"): then the span from
/// its first `[` or `{` to its last `]` or `}` is tried too. `None` when
/// nothing parses.
pub fn json_from(content: &str) -> Option<Value> {
    let parse = |text: &str| serde_json::from_str::<Value>(text.trim()).ok();
    let blocks = blocks(content);
    let fenced = blocks.iter().filter(|b| JSON_LANGUAGES.contains(&b.language.as_str())).find_map(|b| parse(&b.body));
    fenced
        .or_else(|| parse(content))
        .or_else(|| if blocks.is_empty() { outer_span(content).and_then(parse) } else { None })
}

/// From the first `[` or `{` to the last `]` or `}`, if in that order.
fn outer_span(content: &str) -> Option<&str> {
    let start = content.find(['[', '{'])?;
    let end = content.rfind([']', '}'])?;
    (end > start).then(|| &content[start..=end])
}

/// An opening or closing fence line: its indentation (in characters), the
/// number of backticks, and what follows them.
struct Fence<'a> {
    indent: usize,
    ticks: usize,
    rest: &'a str,
}

fn fence(line: &str) -> Option<Fence<'_>> {
    let trimmed = line.trim_start();
    let ticks = trimmed.chars().take_while(|&c| c == '`').count();
    if ticks < 3 {
        return None;
    }
    let indent = line[..line.len() - trimmed.len()].chars().count();
    Some(Fence { indent, ticks, rest: &trimmed[ticks..] })
}

/// The fenced blocks of `content`, in order.
fn blocks(content: &str) -> Vec<Block> {
    let mut out = Vec::new();
    // `lines` drops the `\r` of `\r\n` too.
    let mut lines = content.lines();
    while let Some(line) = lines.next() {
        // An info string with a backtick is not a fence (CommonMark), e.g. "```a```".
        let Some(open) = fence(line).filter(|f| !f.rest.contains('`')) else { continue };
        let language = open.rest.split_whitespace().next().unwrap_or("").to_lowercase();
        let mut body: Vec<&str> = Vec::new();
        let mut closed = false;
        for line in lines.by_ref() {
            if fence(line).is_some_and(|f| f.ticks >= open.ticks && f.rest.trim().is_empty()) {
                closed = true;
                break;
            }
            body.push(dedent(line, open.indent));
        }
        if !closed && let Some(last) = body.last_mut() {
            // "returnData(items);```": a closing fence glued to the last line.
            let line: &str = last;
            *last = line.trim_end().strip_suffix("```").unwrap_or(line);
        }
        out.push(Block { language, body: body.join("\n") });
    }
    out
}

/// `line` without up to `indent` leading whitespace characters.
fn dedent(line: &str, indent: usize) -> &str {
    let strip: usize = line.chars().take(indent).take_while(|c| c.is_whitespace()).map(char::len_utf8).sum();
    &line[strip..]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_script_comes_from_the_first_javascript_or_bare_block() {
        let answer = "Here is the script:\n\n```javascript\nconst rows = [];\nreturnData(rows);\n```\n\nIt works.";
        assert_eq!(script_from(answer).as_deref(), Some("const rows = [];\nreturnData(rows);"));
        assert_eq!(script_from("```js\nreturnData([1]);\n```").as_deref(), Some("returnData([1]);"));
        assert_eq!(script_from("```\nreturnData([2]);\n```").as_deref(), Some("returnData([2]);"));
        assert_eq!(script_from("```JavaScript\nreturnData([3]);\n```").as_deref(), Some("returnData([3]);"));
        let two = "```js\nreturnData([1]);\n```\nor\n```js\nreturnData([2]);\n```";
        assert_eq!(script_from(two).as_deref(), Some("returnData([1]);"));
    }

    #[test]
    fn blocks_in_other_languages_are_skipped() {
        let answer = "The data looks like:\n```json\n[{\"a\": 1}]\n```\nThe script:\n```js\nreturnData([]);\n```";
        assert_eq!(script_from(answer).as_deref(), Some("returnData([]);"));
        assert_eq!(script_from("```python\nprint(1)\n```"), None);
        assert_eq!(script_from("```typescript\nconst a: number = 1;\n```\nno script here"), None);
    }

    #[test]
    fn without_a_fence_the_whole_content_is_the_script() {
        assert_eq!(script_from("  \nreturnData([]);\n  ").as_deref(), Some("returnData([]);"));
        assert_eq!(script_from("   \n\t"), None);
        assert_eq!(script_from(""), None);
        // Inline backticks are not fences.
        assert_eq!(script_from("returnData([`a`]);").as_deref(), Some("returnData([`a`]);"));
    }

    #[test]
    fn an_empty_block_is_no_script() {
        assert_eq!(script_from("```js\n\n```"), None);
        assert_eq!(script_from("```js\n```\n```js\nreturnData([]);\n```"), None);
    }

    #[test]
    fn indented_fences_crlf_and_info_string_words() {
        let answer = "1. The script:\n   ```js title=\"x.js\"\r\n   if (a) {\r\n     b();\r\n   }\r\n   ```\r\nDone.";
        assert_eq!(script_from(answer).as_deref(), Some("if (a) {\n  b();\n}"));
    }

    #[test]
    fn an_unterminated_block_runs_to_the_end() {
        assert_eq!(script_from("```javascript\nreturnData([]);\n").as_deref(), Some("returnData([]);"));
        assert_eq!(script_from("```javascript\nreturnData([]);```").as_deref(), Some("returnData([]);"));
    }

    #[test]
    fn longer_fences_hold_shorter_ones() {
        let answer = "````js\nconst s = `\n```\n`;\nreturnData([s]);\n````";
        assert_eq!(script_from(answer).as_deref(), Some("const s = `\n```\n`;\nreturnData([s]);"));
    }

    #[test]
    fn json_comes_from_the_first_json_block_or_the_whole_content() {
        let answer = "Fields:\n```json\n[{\"name\": \"price\"}]\n```\n```json\n[2]\n```";
        assert_eq!(json_from(answer), Some(json!([{"name": "price"}])));
        assert_eq!(json_from("```\n{\"a\": 1}\n```"), Some(json!({"a": 1})));
        assert_eq!(json_from("  [1, 2]  "), Some(json!([1, 2])));
        assert_eq!(json_from("```JSON\r\n[true]\r\n```"), Some(json!([true])));
        // A block that does not parse gives way to the next one.
        assert_eq!(json_from("```\nnot json\n```\n```json\n[3]\n```"), Some(json!([3])));
    }

    #[test]
    fn json_around_prose_is_found_and_nonsense_is_none() {
        assert_eq!(json_from("Here you go: [{\"name\": \"a\"}]. Enjoy!"), Some(json!([{"name": "a"}])));
        assert_eq!(json_from("```js\nreturnData([]);\n```"), None);
        assert_eq!(json_from("no data here"), None);
        assert_eq!(json_from("] backwards ["), None);
        assert_eq!(json_from(""), None);
    }
}
