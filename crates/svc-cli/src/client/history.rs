//! `svc history list|get|pages`.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::Value;
use svc_client::types::{ListView, RunPageView};
use svc_client::{Client, ClientError};

use super::output::{self, Format, opt};
use super::scraps::summary;
use super::{OK, fail, usage};

#[derive(Subcommand)]
pub(crate) enum HistoryCommand {
    /// List runs, newest first (of one scrap with --scrap).
    #[command(
        after_help = "Examples:\n  svc history list\n  svc history list --scrap 6b02709a1c2d3e4f5a6b7c8d --per-page 5"
    )]
    List {
        #[arg(long)]
        scrap: Option<String>,
        #[arg(long)]
        page: Option<i64>,
        #[arg(long)]
        per_page: Option<i64>,
    },
    /// Show one run; --data prints its result (JSON, or CSV with --csv).
    #[command(
        after_help = "Examples:\n  svc history get 6b0270b21c2d3e4f5a6b7c8d\n  svc history get 6b0270b21c2d3e4f5a6b7c8d --data > result.json\n  svc history get 6b0270b21c2d3e4f5a6b7c8d --data --csv > result.csv"
    )]
    Get {
        id: String,
        /// Print the run's result data instead of the run.
        #[arg(long)]
        data: bool,
        /// With --data: as CSV (one row per item; objects' keys become columns).
        #[arg(long, requires = "data")]
        csv: bool,
    },
    /// Download a run's data as a file: JSON, CSV, NDJSON or an Excel workbook.
    #[command(
        after_help = "Examples:\n  svc history export 6b0270b21c2d3e4f5a6b7c8d --format xlsx -o prices.xlsx\n  svc history export 6b0270b21c2d3e4f5a6b7c8d --format ndjson | jq .title"
    )]
    Export {
        id: String,
        /// json (the data as stored), csv, ndjson (one item per line) or xlsx.
        #[arg(long, default_value = "json", value_parser = ["json", "csv", "ndjson", "xlsx"])]
        format: String,
        /// The file to write (replaced if it exists); without it, standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<std::path::PathBuf>,
    },
    /// The pages of a crawl's run (every one, not just a first page of them).
    #[command(
        after_help = "Examples:\n  svc history pages 6b0270b21c2d3e4f5a6b7c8d\n  svc history pages 6b0270b21c2d3e4f5a6b7c8d --json > pages.json"
    )]
    Pages { id: String },
}

/// Pages asked for per request (the API's largest `perPage`).
const PAGES_PER_REQUEST: i64 = 100;
/// The characters of a page's error the table shows.
const ERROR_CHARS: usize = 60;
/// The statuses of a run's pages, in the order the table's count names them.
const PAGE_STATUSES: [&str; 4] = ["ok", "error", "skipped_robots", "skipped_limit"];

/// Every page run `id` lists, requested `PAGES_PER_REQUEST` at a time, as
/// one list (`page` 1, `perPage` the number of pages).
async fn all_pages(client: &Client, id: &str) -> Result<ListView<RunPageView>, ClientError> {
    let first = client.history_pages(id, Some(1), Some(PAGES_PER_REQUEST)).await?;
    let total = first.total;
    let mut data = first.data;
    let mut page = 1;
    while (data.len() as i64) < total {
        page += 1;
        let next = client.history_pages(id, Some(page), Some(PAGES_PER_REQUEST)).await?;
        if next.data.is_empty() {
            break;
        }
        data.extend(next.data);
    }
    Ok(ListView { per_page: data.len() as i64, data, total, page: 1 })
}

/// The first line of `error`, cut to `ERROR_CHARS` characters (with `…`
/// when anything was left out).
fn short(error: &Option<String>) -> String {
    let Some(text) = error.as_deref().map(str::trim) else { return "-".into() };
    let line = text.lines().next().unwrap_or_default();
    if line == text && line.chars().count() <= ERROR_CHARS {
        return line.to_string();
    }
    let mut cut: String = line.chars().take(ERROR_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// `108 pages: 103 ok, 1 error, 1 skipped_robots, 3 skipped_limit`.
fn page_counts(pages: &[RunPageView]) -> String {
    let counts: Vec<String> = PAGE_STATUSES
        .iter()
        .map(|s| (s, pages.iter().filter(|p| p.status == *s).count()))
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    let plural = if pages.len() == 1 { "" } else { "s" };
    format!("{} page{plural}: {}", pages.len(), counts.join(", "))
}

fn page_rows(pages: &[RunPageView]) -> Vec<Vec<String>> {
    pages
        .iter()
        .map(|p| {
            vec![
                p.position.to_string(),
                p.status.clone(),
                opt(&p.label),
                p.depth.to_string(),
                p.items.to_string(),
                if p.status.starts_with("skipped") { "-".into() } else { format!("{} ms", p.time) },
                p.url.clone(),
                short(&p.error),
            ]
        })
        .collect()
}

async fn pages(client: &Client, format: Format, id: &str) -> ExitCode {
    let list = match all_pages(client, id).await {
        Ok(list) => list,
        Err(e) => return fail(&e),
    };
    match format {
        Format::Json => output::json(&list),
        Format::Quiet => list.data.iter().for_each(|p| println!("{}", p.url)),
        Format::Table if list.data.is_empty() => {
            // None listed: a run of one page, or a crawl not finished yet.
            match client.history_row(id).await {
                Ok(row) if row.status_detail.is_none() => {
                    println!("Run {id} has not finished: its pages are listed once it has.")
                }
                Ok(_) => println!("Run {id} had one page (it was not a crawl): no pages are listed."),
                Err(e) => return fail(&e),
            }
        }
        Format::Table => {
            output::table(&["#", "STATUS", "LABEL", "DEPTH", "ITEMS", "TIME", "URL", "ERROR"], page_rows(&list.data));
            println!("{}", page_counts(&list.data));
        }
    }
    ExitCode::from(OK)
}

/// The result items as CSV: objects give one column per key (keys in
/// alphabetical order within each object, new keys appended as they first
/// appear), anything else one `value` column.
pub(crate) fn to_csv(items: &[Value]) -> Result<String, String> {
    let mut keys: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    for item in items {
        if let Value::Object(map) = item {
            for k in map.keys() {
                if seen.insert(k.clone()) {
                    keys.push(k.clone());
                }
            }
        }
    }
    let cell = |v: Option<&Value>| match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    if keys.is_empty() {
        w.write_record(["value"]).map_err(|e| e.to_string())?;
        for item in items {
            w.write_record([cell(Some(item))]).map_err(|e| e.to_string())?;
        }
    } else {
        w.write_record(&keys).map_err(|e| e.to_string())?;
        for item in items {
            let row: Vec<String> = keys.iter().map(|k| cell(item.get(k))).collect();
            w.write_record(&row).map_err(|e| e.to_string())?;
        }
    }
    String::from_utf8(w.into_inner().map_err(|e| e.to_string())?).map_err(|e| e.to_string())
}

pub(crate) async fn run(client: &Client, format: Format, command: HistoryCommand) -> ExitCode {
    match command {
        HistoryCommand::List { scrap, page, per_page } => {
            match client.history(scrap.as_deref(), page, per_page).await {
                Ok(list) => {
                    match format {
                        Format::Json => output::json(&list),
                        Format::Quiet => list.data.iter().for_each(|r| println!("{}", r.id)),
                        Format::Table => {
                            let rows = list
                                .data
                                .iter()
                                .map(|r| {
                                    vec![
                                        r.id.clone(),
                                        r.scrap.clone().unwrap_or_else(|| r.run_type.clone()),
                                        opt(&r.status_detail),
                                        r.length.to_string(),
                                        r.time.map(|t| format!("{t} ms")).unwrap_or_else(|| "-".into()),
                                        r.triggered_by.clone(),
                                        r.created_at.clone(),
                                    ]
                                })
                                .collect();
                            output::table(&["ID", "SCRAP", "STATUS", "ITEMS", "TIME", "BY", "CREATED"], rows);
                            println!("{} of {} (page {})", list.data.len(), list.total, list.page);
                        }
                    }
                    ExitCode::from(OK)
                }
                Err(e) => fail(&e),
            }
        }
        HistoryCommand::Get { id, data, csv } => match client.history_row(&id).await {
            Ok(row) if data => {
                let items: Value = match serde_json::from_str(&row.data) {
                    Ok(v) => v,
                    Err(e) => return usage(format!("the run's data is not JSON: {e}")),
                };
                if csv {
                    match to_csv(items.as_array().map(Vec::as_slice).unwrap_or_default()) {
                        Ok(text) => print!("{text}"),
                        Err(e) => return usage(e),
                    }
                } else {
                    output::json(&items);
                }
                ExitCode::from(OK)
            }
            Ok(row) => {
                match format {
                    Format::Json => output::json(&row),
                    Format::Quiet => println!("{}", row.id),
                    Format::Table => {
                        output::fields(&[
                            ("id", row.id.clone()),
                            ("scrap", row.scrap.clone().unwrap_or_else(|| row.run_type.clone())),
                            ("result", summary(&row)),
                            ("triggered by", row.triggered_by.clone()),
                            ("created", row.created_at.clone()),
                            ("finished", opt(&row.finished_at)),
                        ]);
                    }
                }
                ExitCode::from(OK)
            }
            Err(e) => fail(&e),
        },
        HistoryCommand::Pages { id } => pages(client, format, &id).await,
        HistoryCommand::Export { id, format: file_format, output } => {
            export(client, format, &id, &file_format, output.as_deref()).await
        }
    }
}

/// `svc history export`: the file the server makes, written as it came.
async fn export(client: &Client, format: Format, id: &str, file_format: &str, file: Option<&Path>) -> ExitCode {
    if file.is_none() && file_format == "xlsx" && std::io::stdout().is_terminal() {
        return usage("an XLSX workbook is binary: write it to a file with -o FILE (or redirect the output)");
    }
    let bytes = match client.history_export(id, file_format).await {
        Ok(bytes) => bytes,
        Err(e) => return fail(&e),
    };
    let Some(path) = file else {
        let mut out = std::io::stdout().lock();
        if let Err(e) = out.write_all(&bytes).and_then(|_| out.flush()) {
            return usage(format!("cannot write the output: {e}"));
        }
        return ExitCode::from(OK);
    };
    if let Err(e) = std::fs::write(path, &bytes) {
        return usage(format!("cannot write {}: {e}", path.display()));
    }
    match format {
        Format::Json => output::json(&serde_json::json!({"file": path, "format": file_format, "bytes": bytes.len()})),
        Format::Quiet => {}
        Format::Table => println!("Wrote {} ({} bytes, {file_format}).", path.display(), bytes.len()),
    }
    ExitCode::from(OK)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn csv_columns_come_from_the_objects_keys() {
        let items = vec![json!({"title": "A, b", "price": 3}), json!({"title": "C", "url": "u"})];
        assert_eq!(to_csv(&items).unwrap(), "price,title,url\n3,\"A, b\",\n,C,u\n");
        assert_eq!(to_csv(&[json!("x"), json!(2)]).unwrap(), "value\nx\n2\n");
    }

    fn page(position: i64, status: &str, error: Option<&str>) -> RunPageView {
        RunPageView {
            position,
            url: format!("https://example.com/{position}"),
            label: None,
            depth: 1,
            status: status.into(),
            items: 1,
            time: 12,
            error: error.map(str::to_string),
        }
    }

    #[test]
    fn errors_are_shortened_to_their_first_line_and_60_characters() {
        assert_eq!(short(&None), "-");
        assert_eq!(short(&Some("the page answered 500".into())), "the page answered 500");
        assert_eq!(short(&Some("first line\nsecond line".into())), "first line…");
        let long = short(&Some("é".repeat(200)));
        assert_eq!((long.chars().count(), long.ends_with('…')), (60, true));
    }

    #[test]
    fn the_table_counts_pages_by_status_and_times_only_pages_that_ran() {
        let pages = [
            page(0, "ok", None),
            page(1, "error", Some("HTTP 500")),
            page(2, "skipped_limit", Some("the crawl's page limit (pages=2) was reached")),
            page(3, "ok", None),
        ];
        assert_eq!(page_counts(&pages), "4 pages: 2 ok, 1 error, 1 skipped_limit");
        assert_eq!(page_counts(&pages[..1]), "1 page: 1 ok");
        let rows = page_rows(&pages);
        assert_eq!(rows[1], ["1", "error", "-", "1", "1", "12 ms", "https://example.com/1", "HTTP 500"]);
        assert_eq!(rows[2][5], "-", "a skipped page did not run");
    }
}
