//! How results are shown: a table for people, the API's JSON for programs.

use std::io::IsTerminal;

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Table,
    Json,
    Quiet,
}

impl Format {
    pub(crate) fn pick(json: bool, quiet: bool) -> Format {
        if quiet {
            Format::Quiet
        } else if json {
            Format::Json
        } else {
            Format::Table
        }
    }
}

pub(crate) fn json<T: Serialize>(value: &T) {
    println!("{}", serde_json::to_string_pretty(value).expect("API values serialize"));
}

/// Prints `rows` under `headers` (plain columns when not on a terminal).
pub(crate) fn table(headers: &[&str], rows: Vec<Vec<String>>) {
    let mut t = Table::new();
    if std::io::stdout().is_terminal() {
        t.load_preset(UTF8_FULL_CONDENSED);
        // Wrap to the terminal's width when it is known and usable.
        if t.width().is_some_and(|w| w >= 60) {
            t.set_content_arrangement(ContentArrangement::Dynamic);
        }
    } else {
        t.load_preset(comfy_table::presets::NOTHING);
    }
    t.set_header(headers.iter().copied());
    for r in rows {
        t.add_row(r);
    }
    println!("{t}");
}

/// `key: value` lines for one object.
pub(crate) fn fields(pairs: &[(&str, String)]) {
    let width = pairs.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in pairs {
        println!("{k:width$}  {v}");
    }
}

pub(crate) fn opt(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "-".into())
}
