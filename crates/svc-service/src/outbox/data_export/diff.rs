//! What changed between two runs' data, by value. When every item on both
//! sides is an object with a key whose values are present (not null) and
//! unique on each side, items are matched on that key (`id`, `url`,
//! `link`, `sku`, `name`, `title` preferred in that order, then any such
//! key) and a matched item whose value differs is *changed*, field by
//! field. Otherwise whole items are compared as a multiset: an item is
//! *added* when the current data holds it more times than the previous,
//! *removed* the other way round.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

/// The keys tried first, in this order.
pub const PREFERRED_KEYS: [&str; 6] = ["id", "url", "link", "sku", "name", "title"];

/// A field of a matched item whose value differs (`None`: the key is missing on that side).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldChange {
    pub field: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// An item present on both sides (same key value) with other values.
#[derive(Clone, Debug, PartialEq)]
pub struct Changed {
    /// The value of the matching key.
    pub key_value: Value,
    /// Index in the previous data.
    pub previous: usize,
    /// Index in the current data.
    pub current: usize,
    pub fields: Vec<FieldChange>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataDiff {
    /// The key items were matched on; `None`: whole items were compared.
    pub key: Option<String>,
    /// Indices in the current data, in its order.
    pub added: Vec<usize>,
    /// Indices in the previous data, in its order.
    pub removed: Vec<usize>,
    /// In the current data's order.
    pub changed: Vec<Changed>,
    pub unchanged: usize,
}

impl DataDiff {
    pub fn is_same(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// A text of `value` that is equal for equal values (object keys sorted).
fn canonical(value: &Value) -> String {
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    write(&map[k], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(v, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// Whether `key` identifies the items of one side: present, not null, unique.
fn identifies(key: &str, side: &[&Map<String, Value>]) -> bool {
    let mut seen = HashSet::with_capacity(side.len());
    side.iter().all(|item| match item.get(key) {
        None | Some(Value::Null) => false,
        Some(v) => seen.insert(canonical(v)),
    })
}

/// The key to match items on, if every item is an object and one identifies both sides.
pub fn match_key(previous: &[Value], current: &[Value]) -> Option<String> {
    fn objects(side: &[Value]) -> Option<Vec<&Map<String, Value>>> {
        side.iter().map(Value::as_object).collect()
    }
    let (before, after) = (objects(previous)?, objects(current)?);
    let first = before.first().or(after.first())?;
    let works = |key: &str| identifies(key, &before) && identifies(key, &after);
    PREFERRED_KEYS
        .iter()
        .map(|k| k.to_string())
        .chain(first.keys().filter(|k| !PREFERRED_KEYS.contains(&k.as_str())).cloned())
        .find(|k| works(k))
}

fn field_changes(before: &Map<String, Value>, after: &Map<String, Value>) -> Vec<FieldChange> {
    let fields = after.keys().chain(before.keys().filter(|k| !after.contains_key(*k)));
    fields
        .filter(|f| before.get(*f) != after.get(*f))
        .map(|f| FieldChange { field: f.clone(), before: before.get(f).cloned(), after: after.get(f).cloned() })
        .collect()
}

/// What changed from `previous` to `current`.
pub fn diff(previous: &[Value], current: &[Value]) -> DataDiff {
    let mut out = DataDiff::default();
    if let Some(key) = match_key(previous, current) {
        let index: HashMap<String, usize> =
            previous.iter().enumerate().map(|(i, v)| (canonical(&v[&key]), i)).collect();
        let mut matched = vec![false; previous.len()];
        for (i, item) in current.iter().enumerate() {
            let Some(&p) = index.get(&canonical(&item[&key])) else {
                out.added.push(i);
                continue;
            };
            matched[p] = true;
            if previous[p] == *item {
                out.unchanged += 1;
                continue;
            }
            let (Some(before), Some(after)) = (previous[p].as_object(), item.as_object()) else { continue };
            out.changed.push(Changed {
                key_value: item[&key].clone(),
                previous: p,
                current: i,
                fields: field_changes(before, after),
            });
        }
        out.removed = (0..previous.len()).filter(|p| !matched[*p]).collect();
        out.key = Some(key);
        return out;
    }
    let mut waiting: HashMap<String, VecDeque<usize>> = HashMap::new();
    for (p, item) in previous.iter().enumerate() {
        waiting.entry(canonical(item)).or_default().push_back(p);
    }
    for (i, item) in current.iter().enumerate() {
        match waiting.get_mut(&canonical(item)).and_then(VecDeque::pop_front) {
            Some(_) => out.unchanged += 1,
            None => out.added.push(i),
        }
    }
    out.removed = waiting.into_values().flatten().collect();
    out.removed.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn values(v: Value) -> Vec<Value> {
        v.as_array().unwrap().clone()
    }

    #[test]
    fn objects_with_an_id_are_matched_on_it() {
        let before = values(json!([
            {"id": 1, "name": "a", "price": 1},
            {"id": 2, "name": "b", "price": 2},
            {"id": 3, "name": "c", "price": 3},
        ]));
        let after = values(json!([
            {"id": 4, "name": "d", "price": 4},
            {"id": 2, "name": "b", "price": 5, "stock": true},
            {"id": 1, "name": "a", "price": 1},
        ]));
        let d = diff(&before, &after);
        assert_eq!(d.key.as_deref(), Some("id"));
        assert_eq!((d.added.clone(), d.removed.clone(), d.unchanged), (vec![0], vec![2], 1));
        assert_eq!(
            d.changed,
            [Changed {
                key_value: json!(2),
                previous: 1,
                current: 1,
                fields: vec![
                    FieldChange { field: "price".into(), before: Some(json!(2)), after: Some(json!(5)) },
                    FieldChange { field: "stock".into(), before: None, after: Some(json!(true)) },
                ],
            }]
        );
        assert!(!d.is_same());
    }

    #[test]
    fn preferred_keys_come_first_then_any_identifying_key() {
        // `id` repeats, `url` is missing once: `name` it is.
        let before = values(json!([{"id": 1, "name": "a", "url": "u"}, {"id": 1, "name": "b"}]));
        let after = values(json!([{"id": 1, "name": "b", "url": "v"}]));
        assert_eq!(match_key(&before, &after).as_deref(), Some("name"));
        let d = diff(&before, &after);
        assert_eq!((d.removed.clone(), d.changed.len()), (vec![0], 1));
        assert_eq!(d.changed[0].fields[0], FieldChange { field: "url".into(), before: None, after: Some(json!("v")) });
        // No preferred key works: another key that does.
        let before = values(json!([{"ref": "x", "n": 1}, {"ref": "y", "n": 1}]));
        let after = values(json!([{"ref": "y", "n": 2}]));
        assert_eq!(match_key(&before, &after).as_deref(), Some("ref"));
        // A null key value does not identify.
        assert_eq!(match_key(&values(json!([{"id": null}])), &values(json!([{"id": 1}]))), None);
    }

    #[test]
    fn without_a_key_whole_items_are_a_multiset() {
        let before = values(json!(["a", "b", "b", {"x": 1, "y": 2}, 3]));
        let after = values(json!(["b", "c", {"y": 2, "x": 1}, "a", "a"]));
        let d = diff(&before, &after);
        assert_eq!(d.key, None);
        assert_eq!(d.added, [1, 4], "`c` and the second `a`");
        assert_eq!(d.removed, [2, 4], "the second `b` and 3");
        assert_eq!((d.changed.len(), d.unchanged), (0, 3), "key order does not matter");
        // Objects that share no identifying key: compared whole.
        let before = values(json!([{"n": 1}, {"n": 1}]));
        let after = values(json!([{"n": 1}, {"n": 2}]));
        let d = diff(&before, &after);
        assert_eq!((d.key.clone(), d.added.clone(), d.removed.clone()), (None, vec![1], vec![1]));
    }

    #[test]
    fn empty_sides() {
        let some = values(json!([{"id": 1}, {"id": 2}]));
        let d = diff(&[], &some);
        assert_eq!((d.added.clone(), d.removed.len()), (vec![0, 1], 0));
        let d = diff(&some, &[]);
        assert_eq!((d.added.len(), d.removed.clone()), (0, vec![0, 1]));
        let same = diff(&some, &some);
        assert!(same.is_same());
        assert_eq!(same.unchanged, 2);
        assert!(diff(&[], &[]).is_same());
    }
}
