//! The start-up steps every command shares, each failing with its exit code
//! (2: bad configuration, a master key that does not fit the database
//! included; 1: the database cannot be opened).

use std::path::Path;
use std::process::ExitCode;

use svc_server::{App, Config};

pub(crate) fn config(file: Option<&Path>) -> Result<Config, ExitCode> {
    Config::from_env(file).map_err(|e| {
        eprintln!("svc: configuration error: {e}");
        ExitCode::from(2)
    })
}

pub(crate) async fn app(config: Config) -> Result<App, ExitCode> {
    App::build(config).await.map_err(|e| {
        eprintln!("svc: {e}");
        if e.is_configuration() { ExitCode::from(2) } else { ExitCode::FAILURE }
    })
}
