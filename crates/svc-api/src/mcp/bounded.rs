//! Bounding what a tool returns, so that one large run cannot flood an
//! agent's context: at most `MAX_ITEMS` result items and `MAX_BYTES` of
//! JSON per call, with a note saying how to get the rest.

use serde_json::{Value, json};

pub(crate) const MAX_ITEMS: usize = 100;
pub(crate) const MAX_BYTES: usize = 50 * 1024;
/// Items of each row in a list of rows.
pub(crate) const LIST_ITEMS: usize = 10;
pub(crate) const LIST_BYTES: usize = 5 * 1024;

/// Replaces a row's `data` (a JSON string, as in REST) with at most
/// `max_items` items from `offset` (and at most `max_bytes` of JSON), as
/// a JSON value, and says what was left out.
pub(crate) fn bound_row_data(row: &mut Value, offset: usize, max_items: usize, max_bytes: usize, tool_hint: &str) {
    let Some(obj) = row.as_object_mut() else { return };
    let items: Vec<Value> = obj
        .get("data")
        .and_then(Value::as_str)
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
    let total = items.len();
    let mut kept: Vec<Value> = items.into_iter().skip(offset).take(max_items).collect();
    while !kept.is_empty() && serde_json::to_vec(&kept).map(|b| b.len()).unwrap_or(0) > max_bytes {
        kept.pop();
    }
    let next = offset + kept.len();
    obj.insert("dataTotalItems".into(), json!(total));
    obj.insert("dataOffset".into(), json!(offset));
    if next < total {
        obj.insert(
            "dataNote".into(),
            json!(format!(
                "{} of {total} items shown (from item {offset}); {} more: call {tool_hint} with dataOffset={next}",
                kept.len(),
                total - next
            )),
        );
    }
    obj.insert("data".into(), Value::Array(kept));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_results_are_cut_with_a_note_on_how_to_page() {
        let items: Vec<Value> = (0..250).map(|i| json!({"n": i})).collect();
        let mut row = json!({"id": "x", "data": serde_json::to_string(&items).unwrap()});
        bound_row_data(&mut row, 0, MAX_ITEMS, MAX_BYTES, "svc_get_history_row");
        assert_eq!(row["data"].as_array().unwrap().len(), 100);
        assert_eq!(row["dataTotalItems"], 250);
        assert!(row["dataNote"].as_str().unwrap().contains("dataOffset=100"));

        let mut last = json!({"data": serde_json::to_string(&items).unwrap()});
        bound_row_data(&mut last, 200, MAX_ITEMS, MAX_BYTES, "t");
        assert_eq!(last["data"].as_array().unwrap().len(), 50);
        assert!(last.get("dataNote").is_none());

        let big: Vec<Value> = (0..100).map(|_| json!("x".repeat(2000))).collect();
        let mut heavy = json!({"data": serde_json::to_string(&big).unwrap()});
        bound_row_data(&mut heavy, 0, MAX_ITEMS, MAX_BYTES, "t");
        assert!(serde_json::to_vec(&heavy["data"]).unwrap().len() <= MAX_BYTES);
        assert!(heavy["dataNote"].is_string());
    }
}
