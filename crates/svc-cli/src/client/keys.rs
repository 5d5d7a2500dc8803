//! `svc keys list|create|revoke`.

use std::process::ExitCode;

use clap::Subcommand;
use svc_client::Client;
use svc_client::types::NewKeyBody;

use super::output::{self, Format, opt};
use super::{OK, fail};

#[derive(Subcommand)]
pub(crate) enum KeysCommand {
    /// List API keys (never the keys themselves, only their prefixes).
    #[command(after_help = "Example:\n  svc keys list")]
    List {
        #[arg(long)]
        page: Option<i64>,
        #[arg(long)]
        per_page: Option<i64>,
    },
    /// Create an API key; the key is printed once.
    #[command(
        after_help = "Examples:\n  svc keys create --name ci --scope svc:scraps:run --scope svc:history:read\n  export SVC_API_KEY=$(svc keys create --name ci --quiet)"
    )]
    Create {
        #[arg(long)]
        name: String,
        /// A scope to grant (repeat; none: every scope).
        #[arg(long = "scope")]
        scopes: Vec<String>,
        /// Limit the key to this scrap (repeat).
        #[arg(long = "scrap")]
        scrap_ids: Vec<String>,
        /// ISO 8601 expiry (default one year, at most two).
        #[arg(long)]
        expires_at: Option<String>,
    },
    /// Revoke an API key: it stops working at once.
    #[command(after_help = "Example:\n  svc keys revoke 6b0270c31c2d3e4f5a6b7c8d")]
    Revoke { id: String },
}

pub(crate) async fn run(client: &Client, format: Format, command: KeysCommand) -> ExitCode {
    match command {
        KeysCommand::List { page, per_page } => match client.keys(page, per_page).await {
            Ok(list) => {
                match format {
                    Format::Json => output::json(&list),
                    Format::Quiet => list.data.iter().for_each(|k| println!("{}", k.id)),
                    Format::Table => {
                        let rows = list
                            .data
                            .iter()
                            .map(|k| {
                                let scopes = if k.scopes.is_empty() { "all".to_string() } else { k.scopes.join(" ") };
                                vec![k.id.clone(), k.name.clone(), format!("{}…", k.prefix), scopes, opt(&k.expires_at)]
                            })
                            .collect();
                        output::table(&["ID", "NAME", "KEY", "SCOPES", "EXPIRES"], rows);
                    }
                }
                ExitCode::from(OK)
            }
            Err(e) => fail(&e),
        },
        KeysCommand::Create { name, scopes, scrap_ids, expires_at } => {
            let body = NewKeyBody { name: Some(name), expires_at, scopes: Some(scopes), scrap_ids: Some(scrap_ids) };
            match client.create_key(&body).await {
                Ok(created) => {
                    match format {
                        Format::Json => output::json(&created),
                        Format::Quiet => println!("{}", created.plain_key),
                        Format::Table => {
                            println!("Created key {} ({}). It is shown this once:", created.key.name, created.key.id);
                            println!("{}", created.plain_key);
                        }
                    }
                    ExitCode::from(OK)
                }
                Err(e) => fail(&e),
            }
        }
        KeysCommand::Revoke { id } => match client.revoke_key(&id).await {
            Ok(()) => {
                if format == Format::Table {
                    println!("Revoked key {id}.");
                }
                ExitCode::from(OK)
            }
            Err(e) => fail(&e),
        },
    }
}
