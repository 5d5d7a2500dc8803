//! A run's data (a JSON array) as a table: one row per item, one column per
//! key in the order keys first appear; strings shown as they are, any other
//! value as compact JSON; items that are not objects in one `value` column.
//! The scrap page, the run page and the editor's test run show it with the
//! `data_table.html` partial; the CSV download ([`super::csv`]) takes the
//! same columns.

use serde_json::value::RawValue;
use svc_service::outbox::data_export::grid::{grid, items};
use svc_service::outbox::data_export::json_text;

pub use svc_service::outbox::data_export::grid::DataError;

/// The longest text a cell of the page shows (in bytes); the downloads
/// carry the whole value.
pub const MAX_CELL_CHARS: usize = 500;

/// One cell as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub text: String,
    /// The item has no such key (shown empty, unlike an empty string).
    pub absent: bool,
    /// The text was cut to [`MAX_CELL_CHARS`].
    pub cut: bool,
}

/// A link to where all the items are, shown when the table is capped.
#[derive(Clone, Debug, PartialEq)]
pub struct MoreLink {
    pub href: String,
    pub label: String,
}

/// Up to `max_rows` items of a run's data, ready for `data_table.html`.
#[derive(Clone, Debug, PartialEq)]
pub struct DataTable {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    /// How many items the data holds (more than `rows` when capped).
    pub total: usize,
    /// A word for the table's caption: "Latest data", "Added items".
    pub caption: String,
    pub more: Option<MoreLink>,
}

impl DataTable {
    /// The first `max_rows` items of `json` (a JSON array); the columns are
    /// those of the rows shown.
    pub fn from_json(json: &str, max_rows: usize) -> Result<DataTable, DataError> {
        let all = items(json)?;
        Ok(Self::from_items(&all, max_rows))
    }

    /// The first `max_rows` of `items`.
    pub(crate) fn from_items(items: &[&RawValue], max_rows: usize) -> DataTable {
        let shown = &items[..items.len().min(max_rows)];
        let grid = grid(shown);
        let rows = grid
            .rows
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|cell| match cell {
                        None => Cell { text: String::new(), absent: true, cut: false },
                        Some(text) => {
                            let (shown, cut) = json_text::cut(&text, MAX_CELL_CHARS);
                            let text = if cut { format!("{shown}…") } else { text };
                            Cell { text, absent: false, cut }
                        }
                    })
                    .collect()
            })
            .collect();
        DataTable { columns: grid.columns, rows, total: items.len(), caption: "Data".into(), more: None }
    }

    pub fn with_caption(mut self, caption: impl Into<String>) -> Self {
        self.caption = caption.into();
        self
    }

    /// Where to see all the items when the rows are capped.
    pub fn with_more(mut self, href: impl Into<String>, label: impl Into<String>) -> Self {
        self.more = Some(MoreLink { href: href.into(), label: label.into() });
        self
    }

    pub fn is_capped(&self) -> bool {
        self.rows.len() < self.total
    }

    pub fn shown(&self) -> usize {
        self.rows.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(table: &DataTable) -> Vec<Vec<&str>> {
        table.rows.iter().map(|r| r.iter().map(|c| c.text.as_str()).collect()).collect()
    }

    #[test]
    fn columns_are_the_union_of_keys_in_first_seen_order() {
        let json = r#"[{"name":"a","price":1.50,"tags":["x","y"]},{"sku":7,"name":"b","extra":{"z":1, "a":null}},{}]"#;
        let table = DataTable::from_json(json, 100).unwrap();
        assert_eq!(table.columns, ["name", "price", "tags", "sku", "extra"]);
        assert_eq!(
            texts(&table),
            [
                vec!["a", "1.50", r#"["x","y"]"#, "", ""],
                vec!["b", "", "", "7", r#"{"z":1,"a":null}"#],
                vec!["", "", "", "", ""],
            ]
        );
        assert!(table.rows[1][1].absent && !table.rows[0][0].absent);
        assert_eq!(table.total, 3);
        assert!(!table.is_capped());
    }

    #[test]
    fn strings_are_raw_and_other_values_json() {
        let json = r#"[{"s":"quote \" and <b>","n":null,"b":true,"e":""}]"#;
        let table = DataTable::from_json(json, 100).unwrap();
        assert_eq!(texts(&table), [vec!["quote \" and <b>", "null", "true", ""]]);
        assert!(!table.rows[0][3].absent, "an empty string is a value");
    }

    #[test]
    fn items_that_are_not_objects_go_in_one_value_column() {
        let table = DataTable::from_json(r#"["Item 0", 2, [1,2], {"k": "v"}, null]"#, 100).unwrap();
        assert_eq!(table.columns, ["value", "k"]);
        assert_eq!(texts(&table), [["Item 0", ""], ["2", ""], ["[1,2]", ""], ["", "v"], ["null", ""]]);
        let clash = DataTable::from_json(r#"[{"value": 1}, 2]"#, 100).unwrap();
        assert_eq!(clash.columns, ["value", "(value)"]);
        assert_eq!(texts(&clash), [["1", ""], ["", "2"]]);
    }

    #[test]
    fn rows_are_capped_and_say_so() {
        let json = serde_json::to_string(&(0..250).map(|i| serde_json::json!({"i": i})).collect::<Vec<_>>()).unwrap();
        let table = DataTable::from_json(&json, 100).unwrap();
        assert_eq!((table.shown(), table.total, table.is_capped()), (100, 250, true));
        assert_eq!(table.rows[99][0].text, "99");
        let empty = DataTable::from_json("[]", 100).unwrap();
        assert_eq!((empty.columns.len(), empty.total), (0, 0));
    }

    #[test]
    fn long_cells_are_cut_for_the_page() {
        let long = "x".repeat(MAX_CELL_CHARS + 10);
        let table = DataTable::from_json(&serde_json::to_string(&[&long]).unwrap(), 10).unwrap();
        assert!(table.rows[0][0].cut);
        assert_eq!(table.rows[0][0].text.chars().count(), MAX_CELL_CHARS + 1);
    }

    #[test]
    fn bad_json_is_an_error_and_a_lone_value_one_item() {
        assert!(DataTable::from_json("[1,", 10).is_err());
        assert!(DataTable::from_json("", 10).unwrap_err().to_string().starts_with("the data is not valid JSON"));
        let one = DataTable::from_json(r#"{"a": 1}"#, 10).unwrap();
        assert_eq!((one.columns.clone(), texts(&one)), (vec!["a".to_string()], vec![vec!["1"]]));
    }

    #[test]
    fn duplicate_keys_keep_their_first_place() {
        let table = DataTable::from_json(r#"[{"a":1,"b":2,"a":3}]"#, 10).unwrap();
        assert_eq!(table.columns, ["a", "b"]);
        assert_eq!(texts(&table), [["3", "2"]]);
    }
}
