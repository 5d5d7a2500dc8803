//! A run's data (a JSON array) as a grid: one row per item, one column per
//! key in the order keys first appear; strings as they are, any other value
//! as compact JSON; items that are not objects in one `value` column. The
//! web app's tables, its CSV downloads and the CSV attachments of result
//! emails all take these columns.

use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::json_text;

/// The column of items that are not objects.
pub const VALUE_COLUMN: &str = "value";

/// Data that is not JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct DataError(pub String);

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the data is not valid JSON: {}", self.0)
    }
}

/// The items of a run's data, each as its JSON text. A value other than an
/// array (never stored by svc) is taken as the one item.
pub fn items(json: &str) -> Result<Vec<&RawValue>, DataError> {
    match serde_json::from_str::<Vec<&RawValue>>(json) {
        Ok(items) => Ok(items),
        Err(_) => serde_json::from_str::<&RawValue>(json).map(|one| vec![one]).map_err(|e| DataError(e.to_string())),
    }
}

/// An object's entries in their written order (a later duplicate key wins
/// its value, the first keeps its place).
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for EntriesVisitor<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Entries<'a>, M::Error> {
                let mut entries: Vec<(String, &'a RawValue)> = Vec::new();
                // Where each key is in `entries`: an object can have
                // thousands of keys, and a scan per key would be quadratic.
                let mut places: HashMap<String, usize> = HashMap::new();
                while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
                    match places.get(&key) {
                        Some(&at) => entries[at].1 = value,
                        None => {
                            places.insert(key.clone(), entries.len());
                            entries.push((key, value));
                        }
                    }
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor(std::marker::PhantomData))
    }
}

/// One item: an object's entries, or any other value.
enum Item<'a> {
    Object(Vec<(String, &'a RawValue)>),
    Other(&'a RawValue),
}

fn item<'a>(raw: &'a RawValue) -> Item<'a> {
    if raw.get().trim_start().starts_with('{')
        && let Ok(Entries(entries)) = serde_json::from_str::<Entries>(raw.get())
    {
        return Item::Object(entries);
    }
    Item::Other(raw)
}

/// What a cell shows of a value: a string as it is, anything else as compact JSON.
pub fn cell_text(raw: &RawValue) -> String {
    let text = raw.get().trim();
    if text.starts_with('"')
        && let Ok(s) = serde_json::from_str::<String>(text)
    {
        return s;
    }
    json_text::compact(text)
}

/// Items laid out in columns: each cell is `None` where the item has no such key.
pub struct Grid {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<String>>>,
}

/// The same layout with each cell's JSON value as the script wrote it (a
/// typed export, such as XLSX, decides per value).
pub struct RawGrid<'a> {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<&'a RawValue>>>,
}

enum Source {
    Key(String),
    Whole,
}

/// The columns of `items` (keys in first-seen order; `value` where an item
/// is not an object, `(value)` if an object already has a `value` key) and
/// their cells, as text.
pub fn grid(items: &[&RawValue]) -> Grid {
    let raw = raw_grid(items);
    let rows = raw.rows.iter().map(|row| row.iter().map(|cell| cell.map(cell_text)).collect()).collect();
    Grid { columns: raw.columns, rows }
}

/// The columns of [`grid`], each cell its JSON value.
pub fn raw_grid<'a>(items: &[&'a RawValue]) -> RawGrid<'a> {
    let parsed: Vec<Item<'a>> = items.iter().map(|raw| item(raw)).collect();
    // Each key's column, and the column of items that are not objects: a
    // lookup per cell, not a scan of the columns (data can be wide).
    let mut sources: Vec<Source> = Vec::new();
    let mut key_columns: HashMap<&str, usize> = HashMap::new();
    let mut whole_column: Option<usize> = None;
    for item in &parsed {
        match item {
            Item::Object(entries) => {
                for (key, _) in entries {
                    if !key_columns.contains_key(key.as_str()) {
                        key_columns.insert(key, sources.len());
                        sources.push(Source::Key(key.clone()));
                    }
                }
            }
            Item::Other(_) => {
                if whole_column.is_none() {
                    whole_column = Some(sources.len());
                    sources.push(Source::Whole);
                }
            }
        }
    }
    let value_key_taken = key_columns.contains_key(VALUE_COLUMN);
    let columns = sources
        .iter()
        .map(|s| match s {
            Source::Key(k) => k.clone(),
            Source::Whole if value_key_taken => format!("({VALUE_COLUMN})"),
            Source::Whole => VALUE_COLUMN.to_string(),
        })
        .collect();
    let rows = parsed
        .iter()
        .map(|item| {
            let mut row: Vec<Option<&'a RawValue>> = vec![None; sources.len()];
            match item {
                Item::Object(entries) => {
                    for (key, value) in entries {
                        row[key_columns[key.as_str()]] = Some(*value);
                    }
                }
                Item::Other(raw) => row[whole_column.expect("a column of whole items")] = Some(*raw),
            }
            row
        })
        .collect();
    RawGrid { columns, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn laid_out(json: &str) -> Grid {
        grid(&items(json).unwrap())
    }

    #[test]
    fn keys_in_first_seen_order_and_other_items_in_a_value_column() {
        let g = laid_out(r#"[{"b":1,"a":"x"},{"c":[1,2],"a":null},7,{"b":2,"b":3}]"#);
        assert_eq!(g.columns, ["b", "a", "c", "value"]);
        let text = |s: &str| Some(s.to_string());
        assert_eq!(
            g.rows,
            [
                vec![text("1"), text("x"), None, None],
                vec![None, text("null"), text("[1,2]"), None],
                vec![None, None, None, text("7")],
                // A repeated key keeps its place and takes the later value.
                vec![text("3"), None, None, None],
            ]
        );
        assert_eq!(laid_out(r#"[{"value":1},"v"]"#).columns, ["value", "(value)"]);
        assert!(laid_out("[]").columns.is_empty());
    }

    #[test]
    fn wide_objects_keep_every_column_in_order() {
        let keys: Vec<String> = (0..5_000).map(|i| format!("\"k{i}\":{i}")).collect();
        let g = laid_out(&format!("[{{{}}},{{\"k4999\":0,\"new\":1}}]", keys.join(",")));
        assert_eq!(g.columns.len(), 5_001);
        assert_eq!(
            (g.columns[0].as_str(), g.columns[4_999].as_str(), g.columns[5_000].as_str()),
            ("k0", "k4999", "new")
        );
        assert_eq!(g.rows[0][1_234].as_deref(), Some("1234"));
        assert_eq!(
            (g.rows[1][4_999].as_deref(), g.rows[1][5_000].as_deref(), g.rows[1][0].as_deref()),
            (Some("0"), Some("1"), None)
        );
    }
}
