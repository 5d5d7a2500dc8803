//! A run's data in the shapes people read: a grid of columns, CSV, NDJSON,
//! an XLSX workbook, and JSON cut or pretty-printed. Pure functions, shared
//! by the web app's tables and downloads, the REST export
//! (`HistoryService::export`) and result emails.

pub mod csv;
pub mod diff;
pub mod grid;
pub mod json_text;
pub mod ndjson;
pub mod xlsx;

/// A file format of a run's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// The data exactly as stored.
    Json,
    Csv,
    Ndjson,
    Xlsx,
}

impl ExportFormat {
    pub const ALL: [ExportFormat; 4] =
        [ExportFormat::Json, ExportFormat::Csv, ExportFormat::Ndjson, ExportFormat::Xlsx];

    /// Its name (`json`, `csv`, `ndjson`, `xlsx`): the `format` query
    /// value and the file name's extension.
    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Json => "json",
            ExportFormat::Csv => "csv",
            ExportFormat::Ndjson => "ndjson",
            ExportFormat::Xlsx => "xlsx",
        }
    }

    /// The format named `name` (exactly, lowercase).
    pub fn parse(name: &str) -> Option<ExportFormat> {
        ExportFormat::ALL.into_iter().find(|f| f.as_str() == name)
    }

    pub fn content_type(self) -> &'static str {
        match self {
            ExportFormat::Json => "application/json",
            ExportFormat::Csv => "text/csv; charset=utf-8",
            ExportFormat::Ndjson => "application/x-ndjson",
            ExportFormat::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        }
    }
}

/// A run's data as a file to download.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportFile {
    pub format: ExportFormat,
    /// `<scrap title slug>-<run id>.<format>`.
    pub file_name: String,
    pub bytes: Vec<u8>,
}

impl ExportFile {
    pub fn content_type(&self) -> &'static str {
        self.format.content_type()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_name() {
        for f in ExportFormat::ALL {
            assert_eq!(ExportFormat::parse(f.as_str()), Some(f));
        }
        assert_eq!(ExportFormat::parse("XLSX"), None);
        assert_eq!(ExportFormat::parse("xml"), None);
        assert_eq!(ExportFormat::parse(""), None);
    }
}
