//! `svc webhooks list|create|update|delete|deliveries`.

use std::process::ExitCode;

use clap::Subcommand;
use svc_client::Client;
use svc_client::types::WebhookBody;

use super::output::{self, Format, opt};
use super::{OK, fail, usage};

#[derive(Subcommand)]
pub(crate) enum WebhooksCommand {
    /// List webhooks.
    #[command(after_help = "Example:\n  svc webhooks list")]
    List {
        #[arg(long)]
        page: Option<i64>,
        #[arg(long)]
        per_page: Option<i64>,
    },
    /// Create a webhook (Growth and Pro); its signing secret is printed once.
    #[command(
        after_help = "Examples:\n  svc webhooks create --url https://hooks.example.com/svc --event scrap.success --event scrap.failure\n  svc webhooks create --url https://hooks.example.com/svc --event scrap.failure --scrap 6b02709a1c2d3e4f5a6b7c8d"
    )]
    Create {
        #[arg(long)]
        url: String,
        /// scrap.success or scrap.failure (repeat).
        #[arg(long = "event", required = true)]
        events: Vec<String>,
        /// Only for this scrap (repeat; none: every scrap).
        #[arg(long = "scrap")]
        scrap_ids: Vec<String>,
    },
    /// Change a webhook: only what is given changes.
    #[command(
        after_help = "Examples:\n  svc webhooks update 6b0270d41c2d3e4f5a6b7c8d --inactive\n  svc webhooks update 6b0270d41c2d3e4f5a6b7c8d --all-scraps --event scrap.failure"
    )]
    Update {
        id: String,
        #[arg(long)]
        url: Option<String>,
        #[arg(long = "event")]
        events: Vec<String>,
        /// Only for these scraps (repeat; replaces the list).
        #[arg(long = "scrap", conflicts_with = "all_scraps")]
        scrap_ids: Vec<String>,
        /// Every scrap of the organization.
        #[arg(long)]
        all_scraps: bool,
        #[arg(long, conflicts_with = "inactive")]
        active: bool,
        #[arg(long)]
        inactive: bool,
    },
    /// Delete a webhook.
    #[command(after_help = "Example:\n  svc webhooks delete 6b0270d41c2d3e4f5a6b7c8d")]
    Delete { id: String },
    /// The delivery log of a webhook, newest first.
    #[command(after_help = "Example:\n  svc webhooks deliveries 6b0270d41c2d3e4f5a6b7c8d")]
    Deliveries {
        id: String,
        #[arg(long)]
        page: Option<i64>,
        #[arg(long)]
        per_page: Option<i64>,
    },
}

fn show(format: Format, w: &svc_client::types::WebhookView) {
    match format {
        Format::Json => output::json(w),
        Format::Quiet => println!("{}", w.id),
        Format::Table => output::fields(&[
            ("id", w.id.clone()),
            ("url", w.url.clone()),
            ("events", w.events.join(", ")),
            ("scraps", if w.scrap_ids.is_empty() { "all".into() } else { w.scrap_ids.join(", ") }),
            ("active", w.active.to_string()),
        ]),
    }
}

pub(crate) async fn run(client: &Client, format: Format, command: WebhooksCommand) -> ExitCode {
    match command {
        WebhooksCommand::List { page, per_page } => match client.webhooks(page, per_page).await {
            Ok(list) => {
                match format {
                    Format::Json => output::json(&list),
                    Format::Quiet => list.data.iter().for_each(|w| println!("{}", w.id)),
                    Format::Table => {
                        let rows = list
                            .data
                            .iter()
                            .map(|w| {
                                let scraps = if w.scrap_ids.is_empty() {
                                    "all".to_string()
                                } else {
                                    w.scrap_ids.len().to_string()
                                };
                                vec![w.id.clone(), w.url.clone(), w.events.join(" "), scraps, w.active.to_string()]
                            })
                            .collect();
                        output::table(&["ID", "URL", "EVENTS", "SCRAPS", "ACTIVE"], rows);
                    }
                }
                ExitCode::from(OK)
            }
            Err(e) => fail(&e),
        },
        WebhooksCommand::Create { url, events, scrap_ids } => {
            let body = WebhookBody { url: Some(url), events: Some(events), scrap_ids: Some(scrap_ids), active: None };
            match client.create_webhook(&body).await {
                Ok(created) => {
                    match format {
                        Format::Json => output::json(&created),
                        Format::Quiet => println!("{}", created.plain_secret),
                        Format::Table => {
                            show(format, &created.webhook);
                            println!("Signing secret (shown this once):\n{}", created.plain_secret);
                        }
                    }
                    ExitCode::from(OK)
                }
                Err(e) => fail(&e),
            }
        }
        WebhooksCommand::Update { id, url, events, scrap_ids, all_scraps, active, inactive } => {
            let body = WebhookBody {
                url,
                events: (!events.is_empty()).then_some(events),
                scrap_ids: if all_scraps { Some(Vec::new()) } else { (!scrap_ids.is_empty()).then_some(scrap_ids) },
                active: (active || inactive).then_some(active),
            };
            if body == WebhookBody::default() {
                return usage("nothing to change: give --url, --event, --scrap, --all-scraps, --active or --inactive");
            }
            match client.update_webhook(&id, &body).await {
                Ok(w) => {
                    show(format, &w);
                    ExitCode::from(OK)
                }
                Err(e) => fail(&e),
            }
        }
        WebhooksCommand::Delete { id } => match client.delete_webhook(&id).await {
            Ok(()) => {
                if format == Format::Table {
                    println!("Deleted webhook {id}.");
                }
                ExitCode::from(OK)
            }
            Err(e) => fail(&e),
        },
        WebhooksCommand::Deliveries { id, page, per_page } => match client.deliveries(&id, page, per_page).await {
            Ok(list) => {
                match format {
                    Format::Json => output::json(&list),
                    Format::Quiet => list.data.iter().for_each(|a| println!("{}", a.id)),
                    Format::Table => {
                        let rows = list
                            .data
                            .iter()
                            .map(|a| {
                                vec![
                                    a.created_at.clone(),
                                    a.event.clone(),
                                    a.attempt.to_string(),
                                    a.state.clone(),
                                    a.response_status.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
                                    opt(&a.error),
                                    opt(&a.next_retry_at),
                                ]
                            })
                            .collect();
                        output::table(&["AT", "EVENT", "ATTEMPT", "STATE", "STATUS", "ERROR", "NEXT RETRY"], rows);
                    }
                }
                ExitCode::from(OK)
            }
            Err(e) => fail(&e),
        },
    }
}
