//! `svc history list|get`.

use std::collections::BTreeSet;
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::Value;
use svc_client::Client;

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
    }
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
}
