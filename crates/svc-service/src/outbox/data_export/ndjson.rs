//! A run's data as NDJSON (newline-delimited JSON): each item on its own
//! line, as compact JSON with its keys in the order the script gave them,
//! every line ending in `\n`. Empty data is an empty file.

use super::grid::{DataError, items};
use super::json_text;

/// The NDJSON of `json` (a run's data).
pub fn from_json(json: &str) -> Result<String, DataError> {
    let all = items(json)?;
    let mut out = String::with_capacity(json.len() + all.len());
    for item in all {
        out.push_str(&json_text::compact(item.get()));
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_compact_item_per_line() {
        let json = "[ {\"b\": 1, \"a\": [1, 2]},\n \"x\\ny\", null, 1.50 ]";
        assert_eq!(from_json(json).unwrap(), "{\"b\":1,\"a\":[1,2]}\n\"x\\ny\"\nnull\n1.50\n");
        assert_eq!(from_json("[]").unwrap(), "");
        assert!(from_json("nope").is_err());
        // Every line parses back to its item.
        let lines: Vec<serde_json::Value> =
            from_json(json).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(serde_json::Value::Array(lines), serde_json::from_str::<serde_json::Value>(json).unwrap());
    }
}
