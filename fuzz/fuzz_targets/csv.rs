//! The CSV writer (svc_service::outbox::data_export::csv): any text is written as
//! CSV or refused as not JSON, never a panic; the CSV read back (RFC 4180)
//! is the header row of the data table's columns and one record per item,
//! each with one field per column, holding exactly the table's cells; file
//! name slugs are safe.

#![no_main]

use libfuzzer_sys::fuzz_target;
use svc_service::outbox::data_export::csv::{from_json, slug};
use svc_service::outbox::data_export::grid::{grid, items};

/// Reads RFC 4180 CSV: records end in CRLF; a quoted field may hold
/// commas, CR, LF and doubled quotes. An empty line is a record of one
/// empty field (as the grammar says; some readers skip it instead).
fn read(csv: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = csv.chars().peekable();
    let mut quoted = false;
    let mut at_field_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => {
                    quoted = false;
                    assert!(matches!(chars.peek(), Some(',' | '\r')), "text after a closing quote in {csv:?}");
                }
                other => field.push(other),
            }
            continue;
        }
        match c {
            '"' => {
                assert!(at_field_start, "a quote inside an unquoted field in {csv:?}");
                quoted = true;
                at_field_start = false;
                continue;
            }
            ',' => {
                record.push(std::mem::take(&mut field));
                at_field_start = true;
                continue;
            }
            '\r' => {
                assert_eq!(chars.next(), Some('\n'), "a bare CR in {csv:?}");
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
                at_field_start = true;
                continue;
            }
            '\n' => panic!("a bare LF in {csv:?}"),
            other => field.push(other),
        }
        at_field_start = false;
    }
    assert!(!quoted, "an unclosed quote in {csv:?}");
    assert!(field.is_empty() && record.is_empty(), "the last record does not end in CRLF: {csv:?}");
    records
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };

    let s = slug(text);
    assert!(!s.is_empty() && s.len() <= 60, "{s:?}");
    assert!(s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{s:?}");
    assert!(!s.starts_with('-') && !s.ends_with('-'), "{s:?}");

    let written = from_json(text);
    let Ok(all) = items(text) else {
        assert!(written.is_err(), "text that is not JSON was written");
        return;
    };
    let csv = written.expect("JSON is written");
    let table = grid(&all);
    if table.columns.is_empty() {
        assert_eq!(csv, "");
        return;
    }
    let records = read(&csv);
    assert_eq!(records.len(), table.rows.len() + 1, "a record per item and the header: {csv:?}");
    assert_eq!(records[0], table.columns);
    for (record, row) in records[1..].iter().zip(&table.rows) {
        assert_eq!(record.len(), table.columns.len());
        let cells: Vec<String> = row.iter().map(|c| c.clone().unwrap_or_default()).collect();
        assert_eq!(record, &cells);
    }
});
