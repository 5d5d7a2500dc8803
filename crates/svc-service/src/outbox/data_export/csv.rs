//! A run's data as CSV (RFC 4180): a header row of the data table's columns
//! ([`super::grid`]), then one record per item; strings as they are,
//! other values JSON-encoded, a missing key an empty field. Records end in
//! CRLF; a field with a comma, a quote, CR or LF is quoted, quotes doubled.

use std::borrow::Cow;

use super::grid::{DataError, grid, items};

/// One field, quoted when it must be.
fn field(text: &str) -> Cow<'_, str> {
    if text.contains([',', '"', '\r', '\n']) {
        Cow::Owned(format!("\"{}\"", text.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(text)
    }
}

fn record(out: &mut String, fields: impl Iterator<Item = impl AsRef<str>>) {
    let start = out.len();
    let mut count = 0;
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&field(f.as_ref()));
        count += 1;
    }
    // A record of one empty field would be a blank line, which CSV
    // readers skip (the row would be lost): quoted, it is a record.
    if count == 1 && out.len() == start {
        out.push_str("\"\"");
    }
    out.push_str("\r\n");
}

/// The CSV of `json` (a run's data); empty when there are no columns.
pub fn from_json(json: &str) -> Result<String, DataError> {
    let all = items(json)?;
    let grid = grid(&all);
    let mut out = String::new();
    if grid.columns.is_empty() {
        return Ok(out);
    }
    record(&mut out, grid.columns.iter());
    for row in &grid.rows {
        record(&mut out, row.iter().map(|cell| cell.as_deref().unwrap_or("")));
    }
    Ok(out)
}

/// A file name part from a title: lowercase ASCII letters and digits,
/// other runs of characters as one `-`, at most 60 characters; `scrap`
/// when nothing is left.
pub fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.truncate(60);
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() { "scrap".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_then_one_record_per_item() {
        let json = r#"[{"name":"Lamp, desk","price":12.5,"tags":["a","b"]},{"name":"Say \"hi\"\nnow","sku":null}]"#;
        let csv = from_json(json).unwrap();
        assert_eq!(
            csv,
            "name,price,tags,sku\r\n\
             \"Lamp, desk\",12.5,\"[\"\"a\"\",\"\"b\"\"]\",\r\n\
             \"Say \"\"hi\"\"\nnow\",,,null\r\n"
        );
    }

    #[test]
    fn plain_values_in_the_value_column_and_empty_data_is_empty() {
        assert_eq!(from_json(r#"["a", 1, true]"#).unwrap(), "value\r\na\r\n1\r\ntrue\r\n");
        assert_eq!(from_json("[]").unwrap(), "");
        assert_eq!(from_json("[{}]").unwrap(), "");
        assert!(from_json("nope").is_err());
    }

    #[test]
    fn an_empty_value_alone_is_still_a_record() {
        let csv = from_json(r#"["a", "", {"other": 1}]"#).unwrap();
        assert_eq!(csv, "value,other\r\na,\r\n,\r\n,1\r\n", "several columns: the commas keep the record");
        let csv = from_json(r#"["", "b", ""]"#).unwrap();
        assert_eq!(csv, "value\r\n\"\"\r\nb\r\n\"\"\r\n");
        // What a CSV reader makes of it: every item a record.
        assert_eq!(csv.lines().filter(|line| !line.is_empty()).count(), 4);
    }

    #[test]
    fn every_item_is_a_record_however_many() {
        let json = serde_json::to_string(&(0..1000).collect::<Vec<_>>()).unwrap();
        assert_eq!(from_json(&json).unwrap().lines().count(), 1001);
    }

    #[test]
    fn slugs_are_safe_file_names() {
        assert_eq!(slug("Prices — Shop #1 (EU)"), "prices-shop-1-eu");
        assert_eq!(slug("  déjà vu  "), "d-j-vu");
        assert_eq!(slug("***"), "scrap");
        assert_eq!(slug(&"a".repeat(100)).len(), 60);
        assert_eq!(slug("ab-cd"), "ab-cd");
    }
}
