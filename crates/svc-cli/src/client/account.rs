//! `svc login`, `svc logout`, `svc whoami`.

use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use svc_client::Client;

use super::output::{self, Format};
use super::session::{self, SavedSession};
use super::{Common, OK, fail, usage};

fn read_password(from_stdin: bool) -> Result<String, String> {
    if from_stdin {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map_err(|e| format!("cannot read the password: {e}"))?;
        return Ok(line.trim_end_matches(['\r', '\n']).to_string());
    }
    if !std::io::stdin().is_terminal() {
        return Err("no terminal to ask for the password on: use --password-stdin".into());
    }
    rpassword::prompt_password("Password: ").map_err(|e| format!("cannot read the password: {e}"))
}

pub(crate) async fn login(common: &Common, email: &str, password_stdin: bool) -> ExitCode {
    let password = match read_password(password_stdin) {
        Ok(p) if !p.is_empty() => p,
        Ok(_) => return usage("the password is empty"),
        Err(e) => return usage(e),
    };
    // Logging in sends no other credential.
    let client = Client::new(&common.base_url, None);
    match client.login(email, &password).await {
        Ok(token) => {
            let saved = SavedSession {
                base_url: common.base_url.clone(),
                email: email.to_string(),
                token: token.token,
                expires_at: token.expires_at.clone(),
            };
            match session::save(&saved) {
                Ok(path) => {
                    if common.format() == Format::Table {
                        println!(
                            "Logged in as {email} (until {}); session saved in {}",
                            token.expires_at,
                            path.display()
                        );
                    }
                    if std::env::var("SVC_API_KEY").is_ok_and(|k| !k.is_empty()) {
                        eprintln!("svc: note: SVC_API_KEY is set and is used instead of this session");
                    }
                    ExitCode::from(OK)
                }
                Err(e) => usage(format!("cannot save the session: {e}")),
            }
        }
        Err(e) => fail(&e),
    }
}

/// Ends the saved session on the server (its token stops working on every
/// server), then forgets it. A server that cannot be reached, or that has
/// ended the session already, does not keep the local copy.
pub(crate) async fn logout(common: &Common) -> ExitCode {
    if let Some(saved) = session::load() {
        let client = Client::new(&saved.base_url, Some(svc_client::Credential::Session(saved.token)));
        if let Err(e) = client.logout().await {
            eprintln!("svc: note: the server did not end the session ({e}); it is forgotten here");
        }
    }
    let had = session::remove();
    if common.format() == Format::Table {
        println!("{}", if had { "Logged out." } else { "No saved session." });
    }
    ExitCode::from(OK)
}

pub(crate) async fn whoami(common: &Common) -> ExitCode {
    let client = super::client(common);
    let via = match client.credential() {
        Some(svc_client::Credential::ApiKey(_)) => "API key (SVC_API_KEY)",
        Some(svc_client::Credential::Session(_)) => "saved session",
        None => return usage("not logged in: run `svc login --email ...` or set SVC_API_KEY"),
    };
    if let Some(svc_client::Credential::ApiKey(key)) = client.credential() {
        // `/api/auth/me` is for web sessions; a key shows what it can reach.
        let shown: String = key.chars().take(8).collect();
        return match client.scraps(None, Some(1), Some(1)).await {
            Ok(page) => {
                match common.format() {
                    Format::Json => output::json(
                        &serde_json::json!({"credential": "apiKey", "prefix": shown, "scraps": page.total}),
                    ),
                    Format::Quiet => {}
                    Format::Table => output::fields(&[
                        ("via", via.to_string()),
                        ("key", format!("{shown}…")),
                        ("scraps visible", page.total.to_string()),
                    ]),
                }
                ExitCode::from(OK)
            }
            Err(e) => fail(&e),
        };
    }
    match client.me().await {
        Ok(me) => {
            match common.format() {
                Format::Json => output::json(&me),
                Format::Quiet => {}
                Format::Table => output::fields(&[
                    ("email", me.user.email.clone()),
                    ("user", me.user.id.clone()),
                    ("organization", format!("{} ({})", me.organization.name, me.organization.id)),
                    ("plan", me.organization.plan.clone()),
                    ("balance", me.organization.balance.to_string()),
                    ("via", via.to_string()),
                ]),
            }
            ExitCode::from(OK)
        }
        Err(e) => fail(&e),
    }
}
