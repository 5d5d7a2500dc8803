use std::path::Path;
use std::process::ExitCode;

use crate::startup;
use tokio::net::TcpListener;

/// Resolves on SIGINT or SIGTERM.
pub(crate) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down");
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
    let app = match startup::app(config).await {
        Ok(app) => app,
        Err(code) => return code,
    };
    match listener.local_addr() {
        Ok(addr) => eprintln!("svc: listening on http://{addr} (database: {})", app.services().store.backend()),
        Err(e) => eprintln!("svc: listening (address unknown: {e})"),
    }
    match app.serve(listener, shutdown_signal()).await {
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
    eprintln!("svc: worker for container `{container}` (database: {})", app.services().store.backend());
    app.work(container, shutdown_signal()).await;
    ExitCode::SUCCESS
}
