//! Two versions of a script as a line diff (the versions page): added and
//! removed lines with a few unchanged lines of context around each change,
//! the longer unchanged stretches folded into one "N unchanged lines" row.

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

/// Unchanged lines shown before and after each change.
pub const CONTEXT: usize = 3;
/// The diff gives up looking for the smallest edit after this (it is then
/// still correct, only coarser).
const TIMEOUT: Duration = Duration::from_millis(500);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    Added,
    Removed,
    Same,
    /// Unchanged lines left out (`text` says how many).
    Folded,
}

impl LineKind {
    /// CSS modifier of the row.
    pub fn class(self) -> &'static str {
        match self {
            LineKind::Added => "add",
            LineKind::Removed => "del",
            LineKind::Same => "same",
            LineKind::Folded => "fold",
        }
    }

    /// The sign in the margin.
    pub fn sign(self) -> &'static str {
        match self {
            LineKind::Added => "+",
            LineKind::Removed => "−",
            LineKind::Same | LineKind::Folded => "",
        }
    }

    /// What the sign means, for screen readers.
    pub fn words(self) -> &'static str {
        match self {
            LineKind::Added => "added",
            LineKind::Removed => "removed",
            LineKind::Same | LineKind::Folded => "",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    pub kind: LineKind,
    /// Line number in the older script (1-based).
    pub old: Option<usize>,
    /// Line number in the newer script (1-based).
    pub new: Option<usize>,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptDiff {
    pub lines: Vec<DiffLine>,
    pub added: usize,
    pub removed: usize,
}

impl ScriptDiff {
    /// The two scripts are the same.
    pub fn is_empty(&self) -> bool {
        self.added == 0 && self.removed == 0
    }
}

fn folded(count: usize) -> DiffLine {
    let text = if count == 1 { "1 unchanged line".to_string() } else { format!("{count} unchanged lines") };
    DiffLine { kind: LineKind::Folded, old: None, new: None, text }
}

/// The changes from `before` to `after`, line by line.
pub fn diff(before: &str, after: &str) -> ScriptDiff {
    let diff = TextDiff::configure().timeout(TIMEOUT).diff_lines(before, after);
    let old_total = diff.ops().last().map_or(0, |op| op.old_range().end);
    let mut out = ScriptDiff { lines: Vec::new(), added: 0, removed: 0 };
    let mut shown_up_to = 0; // old lines before this index are shown or folded
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let start = first.old_range().start;
        if start > shown_up_to {
            out.lines.push(folded(start - shown_up_to));
        }
        for op in &group {
            for change in diff.iter_changes(op) {
                let kind = match change.tag() {
                    ChangeTag::Insert => LineKind::Added,
                    ChangeTag::Delete => LineKind::Removed,
                    ChangeTag::Equal => LineKind::Same,
                };
                match kind {
                    LineKind::Added => out.added += 1,
                    LineKind::Removed => out.removed += 1,
                    _ => {}
                }
                let text = change.value().trim_end_matches(['\n', '\r']).to_string();
                out.lines.push(DiffLine {
                    kind,
                    old: change.old_index().map(|i| i + 1),
                    new: change.new_index().map(|i| i + 1),
                    text,
                });
            }
        }
        shown_up_to = last.old_range().end;
    }
    if !out.lines.is_empty() && shown_up_to < old_total {
        out.lines.push(folded(old_total - shown_up_to));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(d: &ScriptDiff) -> Vec<(LineKind, String)> {
        d.lines.iter().map(|l| (l.kind, l.text.clone())).collect()
    }

    #[test]
    fn a_changed_line_is_removed_then_added_with_context_around() {
        let before = "a\nb\nc\n";
        let after = "a\nB\nc\n";
        let d = diff(before, after);
        assert_eq!((d.added, d.removed), (1, 1));
        assert_eq!(
            kinds(&d),
            vec![
                (LineKind::Same, "a".into()),
                (LineKind::Removed, "b".into()),
                (LineKind::Added, "B".into()),
                (LineKind::Same, "c".into()),
            ]
        );
        assert_eq!((d.lines[1].old, d.lines[1].new), (Some(2), None));
        assert_eq!((d.lines[2].old, d.lines[2].new), (None, Some(2)));
        assert_eq!((d.lines[3].old, d.lines[3].new), (Some(3), Some(3)));
    }

    #[test]
    fn long_unchanged_stretches_are_folded() {
        let before: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let after = before.replace("line 10\n", "line ten\n");
        let d = diff(&before, &after);
        assert_eq!(d.lines.first().unwrap(), &folded(6), "lines 1-6 folded");
        assert_eq!(d.lines.last().unwrap(), &folded(7), "lines 14-20 folded");
        let shown: Vec<_> = d.lines.iter().filter(|l| l.kind == LineKind::Same).map(|l| l.text.as_str()).collect();
        assert_eq!(shown, ["line 7", "line 8", "line 9", "line 11", "line 12", "line 13"]);
        assert_eq!(folded(1).text, "1 unchanged line");
    }

    #[test]
    fn the_first_version_is_all_added_and_equal_scripts_have_no_lines() {
        let d = diff("", "one\ntwo");
        assert_eq!((d.added, d.removed), (2, 0));
        assert_eq!(kinds(&d), vec![(LineKind::Added, "one".into()), (LineKind::Added, "two".into())]);
        let same = diff("x\ny\n", "x\ny\n");
        assert!(same.is_empty() && same.lines.is_empty());
    }

    #[test]
    fn signs_and_words() {
        assert_eq!((LineKind::Added.sign(), LineKind::Added.words(), LineKind::Added.class()), ("+", "added", "add"));
        assert_eq!((LineKind::Removed.sign(), LineKind::Removed.class()), ("−", "del"));
        assert_eq!(LineKind::Folded.class(), "fold");
    }
}
