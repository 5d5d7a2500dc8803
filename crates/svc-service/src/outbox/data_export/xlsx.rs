//! A run's data as an Excel workbook (XLSX): one worksheet, `Data`, whose
//! first row (bold, frozen) holds the columns of the data table
//! ([`super::grid`]) and each next row one item. Cells are typed by value:
//! a JSON number is a number cell, `true`/`false` a boolean cell, a string
//! a text cell, an array or object its compact JSON as text, `null` and a
//! missing key an empty cell. What a worksheet cannot hold exactly is
//! written as text: a number beyond ±2^53 (or beyond a float's range) keeps
//! its JSON spelling. Text is cut at 32,767 UTF-16 units (Excel's limit for
//! a cell). Data with more rows or columns than a worksheet has is refused.

use rust_xlsxwriter::{ColNum, Format, RowNum, Workbook, XlsxError};
use serde_json::value::RawValue;

use super::grid::{DataError, items, raw_grid};
use super::json_text;

/// The sheet's name.
pub const SHEET: &str = "Data";
/// The most text a cell holds, in UTF-16 units.
pub const MAX_CELL_TEXT: usize = 32_767;
/// The most items a worksheet holds (its rows, less the header row).
pub const MAX_ITEMS: usize = 1_048_575;
/// The most columns a worksheet holds.
pub const MAX_COLUMNS: usize = 16_384;
/// Above this many items the columns keep a fixed width (fitting each to
/// its text reads every cell again).
const AUTOFIT_ITEMS: usize = 5_000;
/// The widest a fitted column gets, in pixels.
const AUTOFIT_MAX_PX: u32 = 400;
/// The largest integer a float holds exactly (2^53).
const EXACT_INTEGER: f64 = 9_007_199_254_740_992.0;

/// Why a run's data has no workbook.
#[derive(Clone, Debug, PartialEq)]
pub enum XlsxRefusal {
    /// The data is not JSON.
    Data(DataError),
    /// More items or columns than a worksheet holds.
    TooLarge(String),
    /// The writer failed.
    Writer(String),
}

impl From<XlsxError> for XlsxRefusal {
    fn from(e: XlsxError) -> Self {
        XlsxRefusal::Writer(e.to_string())
    }
}

/// What a cell holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Empty,
    Number(f64),
    Bool(bool),
    Text(String),
}

/// `text` cut to at most [`MAX_CELL_TEXT`] UTF-16 units, at a character boundary.
fn cell_text(text: String) -> String {
    if text.len() <= MAX_CELL_TEXT {
        return text;
    }
    let mut units = 0;
    for (i, c) in text.char_indices() {
        units += c.len_utf16();
        if units > MAX_CELL_TEXT {
            return text[..i].to_string();
        }
    }
    text
}

/// The cell of one JSON value.
pub fn cell(raw: &RawValue) -> Cell {
    let text = raw.get().trim();
    match text.as_bytes().first() {
        None => Cell::Empty,
        Some(b'n') => Cell::Empty,
        Some(b't') => Cell::Bool(true),
        Some(b'f') => Cell::Bool(false),
        Some(b'"') => match serde_json::from_str::<String>(text) {
            Ok(s) => Cell::Text(cell_text(s)),
            Err(_) => Cell::Text(cell_text(text.to_string())),
        },
        Some(b'[' | b'{') => Cell::Text(cell_text(json_text::compact(text))),
        Some(_) => match text.parse::<f64>() {
            Ok(n) if n.is_finite() && n.abs() <= EXACT_INTEGER => Cell::Number(n),
            // Not exact as a float (or not finite): its spelling, as text.
            _ => Cell::Text(text.to_string()),
        },
    }
}

/// The workbook of `json` (a run's data), as the bytes of an `.xlsx` file.
/// Empty data gives a workbook with an empty sheet.
pub fn from_json(json: &str) -> Result<Vec<u8>, XlsxRefusal> {
    let all = items(json).map_err(XlsxRefusal::Data)?;
    if all.len() > MAX_ITEMS {
        return Err(XlsxRefusal::TooLarge(format!(
            "the run has {} items, more than a worksheet's {MAX_ITEMS} rows",
            all.len()
        )));
    }
    let grid = raw_grid(&all);
    if grid.columns.len() > MAX_COLUMNS {
        return Err(XlsxRefusal::TooLarge(format!(
            "the data has {} columns, more than a worksheet's {MAX_COLUMNS}",
            grid.columns.len()
        )));
    }
    let mut workbook = Workbook::new();
    let sheet = workbook.add_worksheet();
    sheet.set_name(SHEET)?;
    let header = Format::new().set_bold();
    for (c, name) in grid.columns.iter().enumerate() {
        sheet.write_string_with_format(0, c as ColNum, cell_text(name.clone()), &header)?;
    }
    if !grid.columns.is_empty() {
        sheet.set_freeze_panes(1, 0)?;
    }
    for (r, row) in grid.rows.iter().enumerate() {
        let r = (r + 1) as RowNum;
        for (c, value) in row.iter().enumerate() {
            let c = c as ColNum;
            match value.map(cell).unwrap_or(Cell::Empty) {
                Cell::Empty => {}
                Cell::Number(n) => {
                    sheet.write_number(r, c, n)?;
                }
                Cell::Bool(b) => {
                    sheet.write_boolean(r, c, b)?;
                }
                Cell::Text(s) => {
                    sheet.write_string(r, c, s)?;
                }
            }
        }
    }
    if grid.rows.len() <= AUTOFIT_ITEMS {
        sheet.set_autofit_max_width(AUTOFIT_MAX_PX);
        sheet.autofit();
    }
    Ok(workbook.save_to_buffer()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_string()).unwrap()
    }

    #[test]
    fn cells_are_typed_by_value() {
        assert_eq!(cell(&raw("12.5")), Cell::Number(12.5));
        assert_eq!(cell(&raw("-3")), Cell::Number(-3.0));
        assert_eq!(cell(&raw("1e3")), Cell::Number(1000.0));
        assert_eq!(cell(&raw("true")), Cell::Bool(true));
        assert_eq!(cell(&raw("false")), Cell::Bool(false));
        assert_eq!(cell(&raw("null")), Cell::Empty);
        assert_eq!(cell(&raw(r#""a \"b\"\n""#)), Cell::Text("a \"b\"\n".into()));
        assert_eq!(cell(&raw(r#"{ "b": [1, 2], "a": null }"#)), Cell::Text(r#"{"b":[1,2],"a":null}"#.into()));
        // Not exact as a float: its spelling.
        assert_eq!(cell(&raw("12345678901234567890")), Cell::Text("12345678901234567890".into()));
        assert_eq!(cell(&raw("9007199254740992")), Cell::Number(9_007_199_254_740_992.0));
        assert_eq!(cell(&raw("1e400")), Cell::Text("1e400".into()));
    }

    #[test]
    fn long_text_is_cut_at_excels_limit() {
        let long = format!("\"{}\"", "é".repeat(40_000));
        let Cell::Text(cut) = cell(&raw(&long)) else { panic!() };
        assert_eq!(cut.chars().count(), MAX_CELL_TEXT);
        // A character outside the BMP counts two units.
        let Cell::Text(cut) = cell(&raw(&format!("\"{}\"", "😀".repeat(20_000)))) else { panic!() };
        assert_eq!(cut.encode_utf16().count(), MAX_CELL_TEXT - 1);
    }

    #[test]
    fn a_workbook_is_a_zip_and_bad_data_is_refused() {
        let bytes = from_json(r#"[{"a":1},{"b":"x"}]"#).unwrap();
        assert_eq!(&bytes[..2], b"PK");
        assert_eq!(&from_json("[]").unwrap()[..2], b"PK");
        assert!(matches!(from_json("nope"), Err(XlsxRefusal::Data(_))));
        let wide = format!("[{{{}}}]", (0..=MAX_COLUMNS).map(|i| format!("\"k{i}\":1")).collect::<Vec<_>>().join(","));
        assert!(matches!(from_json(&wide), Err(XlsxRefusal::TooLarge(_))));
    }
}
