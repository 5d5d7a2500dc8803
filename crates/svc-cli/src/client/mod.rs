//! The command-line client: `svc login`, `svc scraps ...`, `svc history ...`,
//! `svc keys ...`, `svc webhooks ...`, `svc whoami`, over the typed client.
//!
//! Exit codes: 0 ok, 1 the server said no, 2 usage, 3 cannot connect,
//! 4 the run finished but failed (`scraps run --wait`).

mod account;
mod history;
mod keys;
mod members;
mod output;
mod scraps;
mod session;
mod webhooks;

use std::process::ExitCode;

use clap::{Args, Subcommand};
use svc_client::{Client, ClientError, Credential};

pub(crate) use account::{login, logout, whoami};
pub(crate) use history::HistoryCommand;
pub(crate) use keys::KeysCommand;
use output::Format;
pub(crate) use scraps::ScrapsCommand;
pub(crate) use webhooks::WebhooksCommand;

pub(crate) const OK: u8 = 0;
pub(crate) const REFUSED: u8 = 1;
pub(crate) const USAGE: u8 = 2;
pub(crate) const CANNOT_CONNECT: u8 = 3;
pub(crate) const RUN_FAILED: u8 = 4;

/// Options of every client command.
#[derive(Args, Clone, Debug)]
pub(crate) struct Common {
    /// The server (default: SVC_BASE_URL, else http://127.0.0.1:8080).
    #[arg(long, global = true, env = "SVC_BASE_URL", default_value = "http://127.0.0.1:8080", hide_env_values = true)]
    pub base_url: String,
    /// Print the API's JSON instead of tables (stable, for programs).
    #[arg(long, global = true)]
    pub json: bool,
    /// Print nothing but errors (and ids where a command creates something).
    #[arg(long, short, global = true)]
    pub quiet: bool,
}

impl Common {
    fn format(&self) -> Format {
        Format::pick(self.json, self.quiet)
    }
}

/// The one credential to send: `SVC_API_KEY` wins over the saved session.
fn credential() -> Option<Credential> {
    if let Some(key) = std::env::var("SVC_API_KEY").ok().filter(|k| !k.trim().is_empty()) {
        return Some(Credential::ApiKey(key.trim().to_string()));
    }
    session::load().map(|s| Credential::Session(s.token))
}

pub(crate) fn client(common: &Common) -> Client {
    Client::new(&common.base_url, credential()).on_rate_limit(|wait, attempt| {
        eprintln!("svc: rate limited by the server; retrying in {} s (attempt {attempt})", wait.as_secs().max(1));
    })
}

/// Prints a failure plainly on stderr and maps it to the exit code.
pub(crate) fn fail(e: &ClientError) -> ExitCode {
    match e {
        ClientError::Connect { .. } => {
            eprintln!("svc: {e}");
            ExitCode::from(CANNOT_CONNECT)
        }
        ClientError::Api { status, body } => {
            eprintln!("svc: {} ({status} {})", body.message, body.code);
            eprintln!("  {}", body.description);
            if *status == 401 && credential().is_none() {
                eprintln!("  Log in with `svc login`, or set SVC_API_KEY.");
            }
            ExitCode::from(REFUSED)
        }
        ClientError::Protocol { .. } => {
            eprintln!("svc: {e}");
            ExitCode::from(REFUSED)
        }
    }
}

pub(crate) fn usage(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("svc: {message}");
    ExitCode::from(USAGE)
}

/// The subcommands of the client, as the top-level `svc` parser nests them.
#[derive(Subcommand)]
pub(crate) enum ClientCommand {
    /// Scraps: list, show, run, create, update, delete.
    #[command(
        subcommand,
        after_help = "Examples:\n  svc scraps list\n  svc scraps run 6b02709a1c2d3e4f5a6b7c8d --wait\n  svc scraps create --file scrap.yaml"
    )]
    Scraps(ScrapsCommand),
    /// Runs (history rows): list, show, print a result, list a crawl's pages.
    #[command(
        subcommand,
        after_help = "Examples:\n  svc history list --scrap 6b02709a1c2d3e4f5a6b7c8d\n  svc history get 6b0270b21c2d3e4f5a6b7c8d --data --csv\n  svc history pages 6b0270b21c2d3e4f5a6b7c8d"
    )]
    History(HistoryCommand),
    /// API keys: list, create, revoke (needs `svc login`).
    #[command(
        subcommand,
        after_help = "Examples:\n  svc keys list\n  svc keys create --name ci --scope svc:scraps:run"
    )]
    Keys(KeysCommand),
    /// Webhooks: list, create, update, delete, deliveries (needs `svc login`).
    #[command(
        subcommand,
        after_help = "Examples:\n  svc webhooks list\n  svc webhooks deliveries 6b0270d41c2d3e4f5a6b7c8d"
    )]
    Webhooks(WebhooksCommand),
    /// Members of the organization and their roles (needs `svc login`).
    #[command(after_help = "Examples:\n  svc members\n  svc members --json")]
    Members {
        #[arg(long)]
        page: Option<i64>,
        #[arg(long)]
        per_page: Option<i64>,
    },
}

pub(crate) async fn run(common: Common, command: ClientCommand) -> ExitCode {
    let client = client(&common);
    let format = common.format();
    match command {
        ClientCommand::Scraps(c) => scraps::run(&client, format, c).await,
        ClientCommand::History(c) => history::run(&client, format, c).await,
        ClientCommand::Keys(c) => keys::run(&client, format, c).await,
        ClientCommand::Webhooks(c) => webhooks::run(&client, format, c).await,
        ClientCommand::Members { page, per_page } => members::list(&client, format, page, per_page).await,
    }
}
