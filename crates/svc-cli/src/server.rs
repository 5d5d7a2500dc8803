use std::path::Path;
use std::process::ExitCode;

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

pub(crate) async fn run(file: Option<&Path>) -> ExitCode {
    let config = match startup::config(file) {
        Ok(c) => c,
        Err(code) => return code,
    };
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
    let app = match startup::app(config).await {
        Ok(app) => app,
        Err(code) => return code,
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
            eprintln!("svc: secrets sealed with master key {} ({})", app.secret_key_id(), app.secret_key_source());
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

pub(crate) async fn work(file: Option<&Path>, container: &str) -> ExitCode {
    let config = match startup::config(file) {
        Ok(c) => c,
        Err(code) => return code,
    };
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
    eprintln!("svc: secrets sealed with master key {} ({})", app.secret_key_id(), app.secret_key_source());
    app.work(container, shutdown_signal()).await;
    ExitCode::SUCCESS
}
