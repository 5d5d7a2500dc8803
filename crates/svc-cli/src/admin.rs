use std::process::ExitCode;

use std::io::Write;

use crate::startup;
use clap::Subcommand;
use svc_domain::plan::Plan;
use svc_server::secret_key::KeySource;

#[derive(Subcommand)]
pub(crate) enum AdminCommand {
    /// Set the plan of the organization of the user with this email.
    SetPlan {
        #[arg(long)]
        email: String,
        #[arg(long, value_parser = ["free", "growth", "pro"])]
        plan: String,
    },
    /// Make the user with this email a platform admin.
    GrantAdmin {
        #[arg(long)]
        email: String,
    },
    /// Add compute units to the organization of the user with this email.
    AddBalance {
        #[arg(long)]
        email: String,
        #[arg(long, allow_negative_numbers = true)]
        units: i64,
    },
    /// Replace the master key that seals the stored secrets: every secret is
    /// re-sealed with a new key in one transaction, then the key file is
    /// replaced (with SVC_SECRET_KEY, the new key is printed for you to set).
    /// Stop the servers and workers of this database first.
    #[command(
        after_help = "The key file (SVC_SECRET_KEY_FILE, or secret.key beside a SQLite database) is replaced in place.
With SVC_SECRET_KEY, the new key is printed on standard output: set SVC_SECRET_KEY to it before the
next start (SVC_SECRET_KEY_PREVIOUS may hold the old one meanwhile)."
    )]
    RotateSecretKey,
}

pub(crate) async fn run(config: svc_server::Config, command: AdminCommand) -> ExitCode {
    let app = match startup::app(config).await {
        Ok(app) => app,
        Err(code) => return code,
    };
    if let AdminCommand::RotateSecretKey = command {
        return rotate_secret_key(app).await;
    }
    let admin = &app.services().admin;
    let outcome = match &command {
        AdminCommand::SetPlan { email, plan } => {
            let plan: Plan = plan.parse().expect("clap restricts the values");
            admin.set_plan(email, plan).await.map(|()| format!("{email}: plan set to {plan}"))
        }
        AdminCommand::GrantAdmin { email } => {
            admin.grant_admin(email).await.map(|()| format!("{email} is now a platform admin"))
        }
        AdminCommand::AddBalance { email, units } => {
            admin.add_balance(email, *units).await.map(|balance| format!("{email}: balance is now {balance} units"))
        }
        AdminCommand::RotateSecretKey => unreachable!("handled above"),
    };
    app.close().await;
    match outcome {
        Ok(message) => {
            println!("{message}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("svc: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `svc admin rotate-secret-key`. With `SVC_SECRET_KEY`, the new key is
/// printed (stdout) before the database is sealed with it, so that it is
/// never in use without the operator having seen it.
async fn rotate_secret_key(app: svc_server::App) -> ExitCode {
    let from_env = *app.secret_key_source() == KeySource::Env;
    let mut new_id = String::new();
    let rotated = app
        .rotate_secret_key(|key| {
            if from_env {
                println!("SVC_SECRET_KEY={}", key.to_base64());
                let _ = std::io::stdout().flush();
            }
            new_id = key.id().to_string();
        })
        .await;
    app.close().await;
    match rotated {
        Ok(done) => {
            eprintln!(
                "svc: master key rotated from {} to {}: {} sealed values re-sealed",
                done.from_key, done.to_key, done.resealed
            );
            match &done.source {
                KeySource::File(path) => eprintln!("svc: the new key is in {}", path.display()),
                _ => eprintln!(
                    "svc: set SVC_SECRET_KEY to the value printed above before the next start of any svc server, \
                     worker or admin command on this database (the old key no longer opens it; \
                     SVC_SECRET_KEY_PREVIOUS=<old key> lets a process read what another still running seals with it)"
                ),
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("svc: {e}");
            if from_env && !new_id.is_empty() {
                eprintln!(
                    "svc: the database normally stays sealed with the current key; should a start say it is sealed \
                     with master key {new_id}, set SVC_SECRET_KEY to the value printed above"
                );
            }
            if e.is_configuration() { ExitCode::from(2) } else { ExitCode::FAILURE }
        }
    }
}
