use std::path::Path;
use std::process::ExitCode;

use crate::startup;
use clap::Subcommand;
use svc_domain::plan::Plan;

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
}

pub(crate) async fn run(file: Option<&Path>, command: AdminCommand) -> ExitCode {
    let config = match startup::config(file) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let app = match startup::app(config).await {
        Ok(app) => app,
        Err(code) => return code,
    };
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
