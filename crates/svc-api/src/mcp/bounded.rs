//! Bounding what a tool returns, so that one large run cannot flood an
//! agent's context: a row's `data` (a JSON-encoded array, as in REST) keeps
//! at most `MAX_ITEMS` items and `MAX_BYTES` of JSON per call. The row keeps
//! the REST shape (`length` is still the full count); what was left out is
//! described by a [`Cut`], which the tools turn into a separate note.

use serde_json::Value;
use svc_api_types::HistoryRowView;

pub const MAX_ITEMS: usize = 100;
pub const MAX_BYTES: usize = 50 * 1024;
/// Items of each row in a list of rows.
pub const LIST_ITEMS: usize = 10;
pub const LIST_BYTES: usize = 5 * 1024;

/// The part of a row's result that `bound_data` kept: items
/// `offset..offset + shown` of `total`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cut {
    pub offset: usize,
    pub shown: usize,
    pub total: usize,
}

impl Cut {
    /// The first item not shown.
    pub fn next(&self) -> usize {
        self.offset + self.shown
    }
}

/// Keeps in `row.data` at most `max_items` items from `offset`, and at most
/// `max_bytes` of JSON, still as a JSON-encoded array. Returns what was kept
/// when that is not the whole result; `None` when the row is whole (or its
/// data is not an array, which is then left as it is).
pub fn bound_data(row: &mut HistoryRowView, offset: usize, max_items: usize, max_bytes: usize) -> Option<Cut> {
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(&row.data) else { return None };
    let total = items.len();
    // Compact JSON of an array: brackets, the items, a comma between two.
    let mut size = 2;
    let mut kept = Vec::new();
    for item in items.into_iter().skip(offset).take(max_items) {
        let encoded = serde_json::to_string(&item).unwrap_or_default();
        let added = encoded.len() + usize::from(!kept.is_empty());
        if size + added > max_bytes {
            break;
        }
        size += added;
        kept.push(encoded);
    }
    let cut = Cut { offset, shown: kept.len(), total };
    if offset == 0 && cut.shown == total {
        return None;
    }
    row.data = format!("[{}]", kept.join(","));
    Some(cut)
}

/// The note on a row of `svc_get_history_row` (or a finished `svc_run_scrap`)
/// whose data was cut.
pub fn row_note(cut: Cut) -> String {
    let Cut { offset, shown, total } = cut;
    let next = cut.next();
    if offset >= total {
        return format!("data holds no items: dataOffset {offset} is past the last of the {total} items.");
    }
    if shown == 0 {
        return format!(
            "data holds no items: item {offset} alone is larger than {MAX_BYTES} bytes; \
             read it over REST (GET /api/historys/:id)."
        );
    }
    let mut note = format!("data holds items {offset} to {} of {total} (length is the whole count).", next - 1);
    if next < total {
        note.push_str(&format!(" {} more: call svc_get_history_row with dataOffset={next}.", total - next));
    }
    note
}

/// The note on a list of rows some of whose data was cut.
pub fn list_note(cuts: &[(String, Cut)]) -> String {
    let rows: Vec<String> =
        cuts.iter().map(|(id, cut)| format!("{id} (first {} of {} items)", cut.shown, cut.total)).collect();
    format!(
        "Each row's data holds its first items only; length is the whole count. Cut rows: {}. \
         Call svc_get_history_row with a row's historyId (and dataOffset) for the rest.",
        rows.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(items: &[Value]) -> HistoryRowView {
        HistoryRowView {
            id: "r".into(),
            scrap: Some("s".into()),
            organization_id: "o".into(),
            status: Some(true),
            status_detail: Some("success".into()),
            data: serde_json::to_string(items).unwrap(),
            length: items.len() as i64,
            time: None,
            digest: None,
            triggered_by: "api".into(),
            run_type: "scrap_run".into(),
            proxy_tier: "tier0".into(),
            costs: None,
            meter: None,
            fix_version_id: None,
            fixed_at: None,
            retries: 0,
            error: None,
            created_at: "t".into(),
            finished_at: None,
        }
    }

    fn data(row: &HistoryRowView) -> Vec<Value> {
        serde_json::from_str(&row.data).expect("data stays a JSON-encoded array")
    }

    #[test]
    fn large_results_are_cut_and_the_note_says_how_to_page() {
        let items: Vec<Value> = (0..250).map(|i| json!({"n": i})).collect();
        let mut first = row(&items);
        let cut = bound_data(&mut first, 0, MAX_ITEMS, MAX_BYTES).expect("cut");
        assert_eq!(data(&first), items[..100]);
        assert_eq!(first.length, 250, "length keeps the whole count");
        assert_eq!(cut, Cut { offset: 0, shown: 100, total: 250 });
        assert!(row_note(cut).contains("dataOffset=100"), "{}", row_note(cut));

        let mut last = row(&items);
        let cut = bound_data(&mut last, 200, MAX_ITEMS, MAX_BYTES).expect("items from an offset are a cut");
        assert_eq!(data(&last), items[200..]);
        assert!(!row_note(cut).contains("dataOffset="), "nothing after: {}", row_note(cut));
        assert!(row_note(cut).contains("items 200 to 249 of 250"), "{}", row_note(cut));

        let mut past = row(&items);
        let cut = bound_data(&mut past, 300, MAX_ITEMS, MAX_BYTES).unwrap();
        assert_eq!(data(&past), Vec::<Value>::new());
        assert!(row_note(cut).contains("past the last"), "{}", row_note(cut));
    }

    #[test]
    fn the_byte_bound_holds_exactly() {
        let big: Vec<Value> = (0..100).map(|i| json!(format!("{i:04}{}", "x".repeat(1996)))).collect();
        let mut heavy = row(&big);
        let cut = bound_data(&mut heavy, 0, MAX_ITEMS, MAX_BYTES).expect("cut");
        assert!(heavy.data.len() <= MAX_BYTES, "{}", heavy.data.len());
        assert_eq!(data(&heavy).len(), cut.shown);
        assert_eq!(data(&heavy), big[..cut.shown]);
        // One more item would not have fitted.
        assert!(serde_json::to_string(&big[..cut.shown + 1]).unwrap().len() > MAX_BYTES);

        let mut huge = row(&[json!("y".repeat(MAX_BYTES))]);
        let cut = bound_data(&mut huge, 0, MAX_ITEMS, MAX_BYTES).expect("cut");
        assert_eq!((cut.shown, huge.data.as_str()), (0, "[]"));
        assert!(row_note(cut).contains("REST"), "{}", row_note(cut));
    }

    #[test]
    fn whole_rows_and_non_array_data_are_left_alone() {
        let items: Vec<Value> = (0..3).map(|i| json!(i)).collect();
        let mut small = row(&items);
        assert_eq!(bound_data(&mut small, 0, MAX_ITEMS, MAX_BYTES), None);
        assert_eq!(small.data, "[0,1,2]");
        let mut pending = row(&[]);
        pending.data = String::new();
        assert_eq!(bound_data(&mut pending, 0, MAX_ITEMS, MAX_BYTES), None);
        assert_eq!(pending.data, "");
    }
}
