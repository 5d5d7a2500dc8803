//! `svc scraps list|get|run|create|update|delete`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use svc_client::types::{HistoryRowView, ScrapBody};
use svc_client::{Client, RunAnswer};
use svc_domain::history::MAX_RUN_WAIT_SECS;

use super::output::{self, Format, opt};
use super::{OK, RUN_FAILED, fail, usage};

#[derive(Subcommand)]
pub(crate) enum ScrapsCommand {
    /// List scraps, newest first.
    #[command(
        after_help = "Examples:\n  svc scraps list\n  svc scraps list --search prices --per-page 50\n  svc scraps list --json | jq '.data[].id'"
    )]
    List {
        /// Text to find in title, description or URL.
        #[arg(long)]
        search: Option<String>,
        #[arg(long)]
        page: Option<i64>,
        #[arg(long)]
        per_page: Option<i64>,
    },
    /// Show one scrap.
    #[command(after_help = "Example:\n  svc scraps get 6b02709a1c2d3e4f5a6b7c8d")]
    Get { id: String },
    /// Run a scrap now; with --wait, show progress and the result.
    #[command(
        after_help = "Examples:\n  svc scraps run 6b02709a1c2d3e4f5a6b7c8d\n  svc scraps run 6b02709a1c2d3e4f5a6b7c8d --wait\n  svc scraps run 6b02709a1c2d3e4f5a6b7c8d --wait --param fr --quiet && echo ok\n\nExit code 4 when the run finishes but fails (error, empty or regression)."
    )]
    Run {
        id: String,
        /// Wait for the run to finish (up to --timeout).
        #[arg(long)]
        wait: bool,
        /// Seconds to wait at most, 1 to 120.
        #[arg(long, default_value_t = MAX_RUN_WAIT_SECS, value_parser = clap::value_parser!(u64).range(1..=MAX_RUN_WAIT_SECS))]
        timeout: u64,
        /// The key of one of the scrap's parameter sets.
        #[arg(long)]
        param: Option<String>,
    },
    /// Create a scrap from a JSON or YAML file, or from flags (needs `svc login`).
    #[command(
        after_help = "Examples:\n  svc scraps create --title Prices --url https://example.com/prices --request-file extract.js\n  svc scraps create --file scrap.yaml\n\nA file holds the scrap's fields as in the API: title, url, request, cron, cronTimezone, params, ..."
    )]
    Create(ScrapFields),
    /// Change some fields of a scrap (needs `svc login`).
    #[command(
        after_help = "Examples:\n  svc scraps update 6b02709a1c2d3e4f5a6b7c8d --cron '0 9 * * *' --cron-timezone Europe/Paris\n  svc scraps update 6b02709a1c2d3e4f5a6b7c8d --file changes.json"
    )]
    Update {
        id: String,
        #[command(flatten)]
        fields: ScrapFields,
    },
    /// Delete a scrap and its runs (needs `svc login`).
    #[command(after_help = "Example:\n  svc scraps delete 6b02709a1c2d3e4f5a6b7c8d")]
    Delete { id: String },
}

#[derive(Args)]
pub(crate) struct ScrapFields {
    /// A JSON or YAML file with the scrap's fields (flags override it).
    #[arg(long, short)]
    file: Option<PathBuf>,
    #[arg(long)]
    title: Option<String>,
    #[arg(long)]
    url: Option<String>,
    #[arg(long)]
    description: Option<String>,
    /// The extraction script, inline.
    #[arg(long, conflicts_with = "request_file")]
    request: Option<String>,
    /// The extraction script, from a file.
    #[arg(long)]
    request_file: Option<PathBuf>,
    /// A cron expression; `none` for manual runs only.
    #[arg(long)]
    cron: Option<String>,
    #[arg(long)]
    cron_timezone: Option<String>,
}

/// A scrap's fields from a JSON or YAML file, as the API takes them
/// (unknown fields are refused, read-only ones ignored).
fn read_document(path: &Path) -> Result<ScrapBody, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let is_json = path.extension().is_some_and(|e| e == "json") || text.trim_start().starts_with('{');
    if is_json {
        serde_json::from_str(&text).map_err(|e| format!("{}: invalid JSON: {e}", path.display()))
    } else {
        serde_yaml::from_str(&text).map_err(|e| format!("{}: invalid YAML: {e}", path.display()))
    }
}

impl ScrapFields {
    /// The file's fields, then the flags over them.
    fn body(&self) -> Result<ScrapBody, String> {
        let mut body = match &self.file {
            Some(path) => read_document(path)?,
            None => ScrapBody::default(),
        };
        if let Some(v) = &self.title {
            body.title = Some(v.clone());
        }
        if let Some(v) = &self.url {
            body.url = Some(v.clone());
        }
        if let Some(v) = &self.description {
            body.description = Some(v.clone());
        }
        if let Some(v) = &self.request {
            body.request = Some(v.clone());
        }
        if let Some(path) = &self.request_file {
            let script = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            body.request = Some(script);
        }
        if let Some(v) = &self.cron {
            body.cron = Some(if v == "none" || v.is_empty() { None } else { Some(v.clone()) });
        }
        if let Some(v) = &self.cron_timezone {
            body.cron_timezone = Some(v.clone());
        }
        if body == ScrapBody::default() {
            return Err("nothing to send: give --file or field flags (see --help)".into());
        }
        Ok(body)
    }
}

fn show_scrap(format: Format, s: &svc_client::types::ScrapView) {
    match format {
        Format::Json => output::json(s),
        Format::Quiet => println!("{}", s.id),
        Format::Table => output::fields(&[
            ("id", s.id.clone()),
            ("title", s.title.clone()),
            ("url", s.url.clone()),
            ("cron", opt(&s.cron)),
            ("time zone", s.cron_timezone.clone()),
            ("containers", s.containers.join(", ")),
            ("params", s.params.iter().map(|p| p.key.clone()).collect::<Vec<_>>().join(", ")),
            ("runs", s.history.len().to_string()),
            ("updated", s.updated_at.clone()),
        ]),
    }
}

/// One line about a finished run.
pub(crate) fn summary(row: &HistoryRowView) -> String {
    let detail = row.status_detail.clone().unwrap_or_else(|| "pending".into());
    let time = row.time.map(|t| format!(" in {t} ms")).unwrap_or_default();
    let error = row.error.as_ref().map(|e| format!(": {e}")).unwrap_or_default();
    format!("{detail}: {} items{time} (run {}){error}", row.length, row.id)
}

async fn run_scrap(
    client: &Client,
    format: Format,
    id: &str,
    wait: bool,
    timeout: u64,
    param: Option<&str>,
) -> ExitCode {
    if !wait {
        return match client.run_scrap(id, None, param).await {
            Ok(RunAnswer::Pending(p)) => {
                match format {
                    Format::Json => output::json(&p),
                    Format::Quiet => println!("{}", p.history_id),
                    Format::Table => println!("Queued run {} (see `svc history get {}`)", p.history_id, p.history_id),
                }
                ExitCode::from(OK)
            }
            Ok(RunAnswer::Finished(row)) => finished(format, &row),
            Err(e) => fail(&e),
        };
    }
    let spinner = (format == Format::Table).then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(ProgressStyle::with_template("{spinner} running {msg} {elapsed}").expect("valid template"));
        bar.set_message(id.to_string());
        bar.enable_steady_tick(Duration::from_millis(100));
        bar
    });
    let started = Instant::now();
    let answer = client.run_scrap(id, Some(timeout), param).await;
    if let Some(bar) = &spinner {
        bar.finish_and_clear();
    }
    match answer {
        Ok(RunAnswer::Finished(row)) => finished(format, &row),
        Ok(RunAnswer::Pending(p)) => {
            eprintln!(
                "svc: the run {} did not finish within {:.0} s; see `svc history get {}`",
                p.history_id,
                started.elapsed().as_secs_f64(),
                p.history_id
            );
            if format == Format::Json {
                output::json(&p);
            }
            ExitCode::from(RUN_FAILED)
        }
        Err(e) => fail(&e),
    }
}

fn finished(format: Format, row: &HistoryRowView) -> ExitCode {
    let ok = row.status == Some(true);
    match format {
        Format::Json => output::json(row),
        Format::Quiet => {}
        Format::Table => println!("{} {}", if ok { "✔" } else { "✘" }, summary(row)),
    }
    if !ok && format == Format::Quiet {
        eprintln!("svc: run failed: {}", summary(row));
    }
    ExitCode::from(if ok { OK } else { RUN_FAILED })
}

pub(crate) async fn run(client: &Client, format: Format, command: ScrapsCommand) -> ExitCode {
    match command {
        ScrapsCommand::List { search, page, per_page } => {
            match client.scraps(search.as_deref(), page, per_page).await {
                Ok(list) => {
                    match format {
                        Format::Json => output::json(&list),
                        Format::Quiet => list.data.iter().for_each(|s| println!("{}", s.id)),
                        Format::Table => {
                            let rows = list
                                .data
                                .iter()
                                .map(|s| {
                                    vec![
                                        s.id.clone(),
                                        s.title.clone(),
                                        s.url.clone(),
                                        opt(&s.cron),
                                        s.history.len().to_string(),
                                    ]
                                })
                                .collect();
                            output::table(&["ID", "TITLE", "URL", "CRON", "RUNS"], rows);
                            println!("{} of {} (page {})", list.data.len(), list.total, list.page);
                        }
                    }
                    ExitCode::from(OK)
                }
                Err(e) => fail(&e),
            }
        }
        ScrapsCommand::Get { id } => match client.scrap(&id).await {
            Ok(s) => {
                show_scrap(format, &s);
                ExitCode::from(OK)
            }
            Err(e) => fail(&e),
        },
        ScrapsCommand::Run { id, wait, timeout, param } => {
            run_scrap(client, format, &id, wait, timeout, param.as_deref()).await
        }
        ScrapsCommand::Create(fields) => {
            let body = match fields.body() {
                Ok(b) => b,
                Err(e) => return usage(e),
            };
            match client.create_scrap(&body).await {
                Ok(s) => {
                    show_scrap(format, &s);
                    ExitCode::from(OK)
                }
                Err(e) => fail(&e),
            }
        }
        ScrapsCommand::Update { id, fields } => {
            let body = match fields.body() {
                Ok(b) => b,
                Err(e) => return usage(e),
            };
            match client.update_scrap(&id, &body).await {
                Ok(s) => {
                    show_scrap(format, &s);
                    ExitCode::from(OK)
                }
                Err(e) => fail(&e),
            }
        }
        ScrapsCommand::Delete { id } => match client.delete_scrap(&id).await {
            Ok(()) => {
                if format == Format::Table {
                    println!("Deleted scrap {id}.");
                }
                ExitCode::from(OK)
            }
            Err(e) => fail(&e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(file: Option<PathBuf>, cron: Option<&str>) -> ScrapFields {
        ScrapFields {
            file,
            title: None,
            url: None,
            description: None,
            request: None,
            request_file: None,
            cron: cron.map(str::to_string),
            cron_timezone: None,
        }
    }

    #[test]
    fn a_file_is_read_as_the_api_body_and_flags_go_over_it() {
        let dir = tempfile::tempdir().unwrap();
        let yaml = dir.path().join("scrap.yaml");
        std::fs::write(&yaml, "title: T\ncron: '0 9 * * *'\nid: read-only, ignored\n").unwrap();
        let body = fields(Some(yaml.clone()), Some("none")).body().unwrap();
        assert_eq!(serde_json::to_string(&body).unwrap(), r#"{"title":"T","cron":null}"#, "--cron none clears");
        let typo = dir.path().join("typo.json");
        std::fs::write(&typo, r#"{"titel": "T"}"#).unwrap();
        let refused = fields(Some(typo), None).body().unwrap_err();
        assert!(refused.contains("unknown field `titel`"), "{refused}");
        assert!(fields(None, None).body().unwrap_err().starts_with("nothing to send"));
    }
}
