//! `svc`: one executable for the server, the operator commands and (later)
//! the command-line client.

mod admin;
mod server;
mod startup;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "svc", version, about = "Self-hostable web-page extraction service")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the API, web app and background tasks (configured by SVC_* variables).
    Server {
        /// A TOML file of settings (keys are the SVC_* names without the prefix, lowercased).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Run a worker only, for the container ID (scale-out; needs PostgreSQL to share runs).
    Worker {
        /// The container (worker) id whose runs this worker claims.
        #[arg(long)]
        id: String,
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Operator commands, straight on the database named by SVC_DATABASE_URL.
    Admin {
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        #[command(subcommand)]
        command: admin::AdminCommand,
    },
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("svc: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        match cli.command {
            Command::Server { config } => server::run(config.as_deref()).await,
            Command::Worker { id, config } => server::work(config.as_deref(), &id).await,
            Command::Admin { config, command } => admin::run(config.as_deref(), command).await,
        }
    })
}
