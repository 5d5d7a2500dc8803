//! `svc`: one executable for the server, the worker, the operator commands
//! and the command-line client.

mod admin;
mod client;
mod server;
mod startup;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use svc_server::LogFormat;

#[derive(Parser)]
#[command(
    name = "svc",
    version,
    about = "Self-hostable web-page extraction service: the server, and its command-line client",
    after_help = "Examples:\n  svc server                                   # run the service (SVC_* settings)\n  svc login --email me@example.com             # then: svc scraps list\n  SVC_API_KEY=svc_... svc scraps run ID --wait  # with an API key instead\n\nThe client talks to SVC_BASE_URL (default http://127.0.0.1:8080). SVC_API_KEY, when set, is sent\ninstead of the saved session. Exit codes: 0 ok, 1 refused by the server, 2 usage, 3 cannot connect,\n4 the run finished but failed."
)]
struct Cli {
    #[command(flatten)]
    common: client::Common,
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
    /// Log in and save the session (in the user's config directory, mode 0600).
    #[command(
        after_help = "Examples:\n  svc login --email me@example.com\n  echo \"$PASSWORD\" | svc login --email me@example.com --password-stdin"
    )]
    Login {
        #[arg(long)]
        email: String,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
    },
    /// Forget the saved session.
    #[command(after_help = "Example:\n  svc logout")]
    Logout,
    /// Who the client is acting as.
    #[command(after_help = "Examples:\n  svc whoami\n  SVC_API_KEY=svc_... svc whoami --json")]
    Whoami,
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  svc completions bash > /etc/bash_completion.d/svc\n  svc completions zsh > \"${fpath[1]}/_svc\"\n  svc completions fish > ~/.config/fish/completions/svc.fish"
    )]
    Completions { shell: clap_complete::Shell },
    #[command(flatten)]
    Client(client::ClientCommand),
    /// The static engine's sandbox process: started by svc itself, with its channel (not by hand).
    #[command(hide = true)]
    Sandbox,
}

/// Crates whose debug and trace events carry what svc must never log:
/// chromiumoxide's DevTools messages (the scripts with `SVC.account`, the
/// runs' cookies), and what hyper, reqwest, rustls and lettre see of the
/// wire (headers with credentials, webhook URLs, the SMTP AUTH exchange).
const WIRE_TARGETS: [&str; 8] = ["chromiumoxide", "hyper", "hyper_util", "h2", "reqwest", "rustls", "lettre", "rmcp"];

/// Logs to stderr: `RUST_LOG` (default `info,sqlx=warn`) as text, or with
/// `SVC_LOG_FORMAT=json` one JSON object per line, with the fields of the
/// spans it happened in (a request's `request_id`) beside its own. The
/// crates of [`WIRE_TARGETS`] are never logged below info, whatever
/// `RUST_LOG` says.
fn init_logging(format: LogFormat) {
    use tracing_subscriber::EnvFilter;
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let at_most_info = tracing_subscriber::filter::filter_fn(|meta| {
        *meta.level() <= tracing::Level::INFO
            || !WIRE_TARGETS
                .iter()
                .any(|t| meta.target().strip_prefix(t).is_some_and(|rest| rest.is_empty() || rest.starts_with("::")))
    });
    let lines = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let lines = match format {
        LogFormat::Text => lines.boxed(),
        LogFormat::Json => lines.json().with_current_span(false).with_span_list(true).flatten_event(true).boxed(),
    };
    tracing_subscriber::registry().with(filter).with(lines.with_filter(at_most_info)).init();
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Sandbox = cli.command {
        return svc_static::sandbox::main();
    }
    if let Command::Completions { shell } = cli.command {
        use clap::CommandFactory;
        clap_complete::generate(shell, &mut Cli::command(), "svc", &mut std::io::stdout());
        return ExitCode::SUCCESS;
    }
    // The settings first: the log format is one of them (a bad value is
    // reported before any log line).
    let config = match &cli.command {
        Command::Server { config } | Command::Worker { config, .. } | Command::Admin { config, .. } => {
            match startup::config(config.as_deref()) {
                Ok(loaded) => {
                    init_logging(loaded.log_format);
                    Some(loaded)
                }
                Err(code) => return code,
            }
        }
        _ => None,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("svc: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        match cli.command {
            Command::Server { .. } => server::run(config.expect("loaded above")).await,
            Command::Worker { id, .. } => server::work(config.expect("loaded above"), &id).await,
            Command::Admin { command, .. } => admin::run(config.expect("loaded above"), command).await,
            Command::Login { email, password_stdin } => client::login(&cli.common, &email, password_stdin).await,
            Command::Logout => client::logout(&cli.common).await,
            Command::Whoami => client::whoami(&cli.common).await,
            Command::Client(command) => client::run(cli.common, command).await,
            Command::Completions { .. } | Command::Sandbox => ExitCode::SUCCESS,
        }
    })
}
