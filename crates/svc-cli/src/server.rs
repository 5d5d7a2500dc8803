use std::process::ExitCode;

use svc_server::{Config, SandboxSetting};

use crate::startup;
use tokio::net::TcpListener;

/// Resolves on SIGINT or SIGTERM. The handlers are installed when this is
/// called (not when first polled), so a signal that arrives right after
/// the server says it is listening is not lost (nor fatal).
pub(crate) fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let (interrupt, terminate) = {
        use tokio::signal::unix::{SignalKind, signal};
        (signal(SignalKind::interrupt()).ok(), signal(SignalKind::terminate()).ok())
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = wait(interrupt) => {},
                _ = wait(terminate) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
        tracing::info!("shutting down");
    }
}

pub(crate) async fn run(config: Config) -> ExitCode {
    let listener = match TcpListener::bind(config.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("svc: cannot listen on {}: {e}", config.listen);
            return ExitCode::FAILURE;
        }
    };
    let config = match listener.local_addr() {
        Ok(bound) => config.listening_on(bound),
        Err(_) => config,
    };
    let mut app = match startup::app(config).await {
        Ok(app) => app,
        Err(code) => return code,
    };
    let metrics = match app.bind_metrics().await {
        Ok(bound) => bound,
        Err(e) => {
            eprintln!("svc: cannot listen for metrics on SVC_METRICS_LISTEN: {e}");
            return ExitCode::FAILURE;
        }
    };
    let shutdown = shutdown_signal();
    match listener.local_addr() {
        Ok(addr) => {
            eprintln!("svc: listening on http://{addr} (database: {})", app.backend());
            eprintln!("svc: public URL {}", app.services().public_url());
            match (app.config().mail(), app.config().mail_off_reason()) {
                (Some(mail), _) => eprintln!("svc: email via {} from {}", mail.smtp.redacted(), mail.from),
                (None, reason) => eprintln!("svc: email off: {}", reason.unwrap_or("not configured")),
            }
            if app.config().embedded_worker {
                eprintln!("svc: {}", sandbox_line(app.config()));
            }
            eprintln!("svc: secrets sealed with master key {} ({})", app.secret_key_id(), app.secret_key_source());
            match (metrics, app.config().metrics_token.is_some()) {
                (Some(at), _) => eprintln!("svc: metrics on http://{at}/metrics"),
                (None, true) => eprintln!("svc: metrics on /metrics (with SVC_METRICS_TOKEN)"),
                (None, false) => eprintln!("svc: metrics off (set SVC_METRICS_TOKEN or SVC_METRICS_LISTEN)"),
            }
        }
        Err(e) => eprintln!("svc: listening (address unknown: {e})"),
    }
    match app.serve(listener, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("svc: {e}");
            ExitCode::FAILURE
        }
    }
}

pub(crate) async fn work(config: Config, container: &str) -> ExitCode {
    let valid = !container.is_empty()
        && container.len() <= 64
        && container.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if !valid {
        eprintln!("svc: --id must be 1-64 of A-Z a-z 0-9 . _ -");
        return ExitCode::from(2);
    }
    let app = match startup::app(config).await {
        Ok(app) => app,
        Err(code) => return code,
    };
    eprintln!("svc: worker for container `{container}` (database: {})", app.backend());
    eprintln!("svc: {}", sandbox_line(app.config()));
    eprintln!("svc: secrets sealed with master key {} ({})", app.secret_key_id(), app.secret_key_source());
    match app.work(container, shutdown_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("svc: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The start-up line about Chromium's sandbox (`SVC_BROWSER_SANDBOX`).
fn sandbox_line(config: &Config) -> &'static str {
    match config.browser_sandbox {
        SandboxSetting::Required => "browser sandbox on: Chromium does not start without it (SVC_BROWSER_SANDBOX)",
        SandboxSetting::Off => {
            "browser sandbox OFF (SVC_BROWSER_SANDBOX=off): Chromium runs pages without its sandbox; a page that \
             exploits the browser is not contained"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_up_line_says_when_the_browser_sandbox_is_off() {
        let env = |value: &str| vec![("SVC_BROWSER_SANDBOX".to_string(), value.to_string())];
        let off = Config::load(None, env("off")).unwrap();
        assert!(sandbox_line(&off).starts_with("browser sandbox OFF (SVC_BROWSER_SANDBOX=off)"));
        let on = Config::load(None, env("on")).unwrap();
        assert!(sandbox_line(&on).starts_with("browser sandbox on"));
    }
}
