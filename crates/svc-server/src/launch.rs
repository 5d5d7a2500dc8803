use std::future::Future;
use std::sync::Arc;

use svc_service::{ServiceConfig, Services};
use tokio::net::TcpListener;

use crate::Config;

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("cannot open the database: {0}")]
    Store(#[from] svc_storage::StoreError),
    #[error("server failed: {0}")]
    Serve(#[from] std::io::Error),
}

/// A built application: the store is open and migrated, the services ready.
pub struct App {
    config: Config,
    services: Arc<Services>,
}

impl App {
    pub async fn build(config: Config) -> Result<App, LaunchError> {
        let store = svc_storage::connect(&config.database_url).await?;
        let jwt_secret = match &config.jwt_secret {
            Some(secret) => secret.expose().as_bytes().to_vec(),
            None => {
                let fresh = hex::encode(rand::random::<[u8; 32]>());
                store.setting_or_init("jwt_secret", &fresh).await?.into_bytes()
            }
        };
        let services = Arc::new(Services::new(
            store,
            ServiceConfig {
                jwt_secret,
                free_grant: config.free_grant,
                cron_min_interval: config.cron_min_interval,
                key_cache_ttl: config.key_cache_ttl,
                run_timeout: config.run_timeout,
            },
        ));
        Ok(App { config, services })
    }

    pub fn services(&self) -> &Arc<Services> {
        &self.services
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Serves until `shutdown` resolves, then lets in-flight requests finish.
    pub async fn serve(self, listener: TcpListener, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<(), LaunchError> {
        let router = svc_api::router(self.services.clone());
        tracing::info!(address = %listener.local_addr()?, database = self.services.store.backend(), "svc serving");
        axum::serve(listener, router).with_graceful_shutdown(shutdown).await?;
        self.services.store.close().await;
        Ok(())
    }
}

/// Opens the store named by `config`, then serves on `listener` until `shutdown`.
pub async fn launch(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), LaunchError> {
    App::build(config).await?.serve(listener, shutdown).await
}
