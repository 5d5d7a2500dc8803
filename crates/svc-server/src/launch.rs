use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use svc_domain::scrap::{DEFAULT_SCRAPPER, STATIC_SCRAPPER};
use svc_engine::{Engine, EnginesByScrapper};
use svc_runner::{ChromiumEngine, EngineConfig};
use svc_service::Worker;
use svc_service::outbox::dispatcher::{DispatchConfig, Dispatcher};
use svc_service::schedule::RunSlots;
use svc_service::{ServiceConfig, Services};
use svc_static::{StaticConfig, StaticEngine};
use svc_storage::Store;
use tokio::net::TcpListener;
use tokio::sync::watch;

use svc_service::outbox::channel_sender::ChannelSender;
use svc_service::outbox::mail_transport::{MailError, MailTransport};
use svc_service::outbox::mailer::Mailer;

use crate::Config;
use crate::mail_client::{MailSetupError, SmtpMailer};
use crate::secret_key::{self, KeyRotation, KeySource, KeyedStore, SecretKeyError};
use crate::webhook_client::HttpWebhookClient;
use svc_storage::MasterKey;

/// Webhook attempts in flight at once in one process.
const WEBHOOKS_IN_FLIGHT: usize = 1024;

/// After the shutdown grace period: how long the background loops may take
/// for their bookkeeping (releasing runs, recording attempts) before they
/// are stopped and the store closes.
const AFTER_GRACE: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("cannot open the database: {0}")]
    Store(#[from] svc_storage::StoreError),
    #[error("server failed: {0}")]
    Serve(#[from] std::io::Error),
    #[error("{0}")]
    Mail(#[from] MailSetupError),
    /// The master key does not fit the database (or cannot be read): a
    /// configuration error, like a bad setting.
    #[error("{0}")]
    SecretKey(#[from] SecretKeyError),
}

/// Runs after which a browser is replaced by a new one. Its process did not
/// grow over a fleet of 1,200 runs (89-93 MiB of PSS at 240 runs and at
/// 1,200); each replacement costs a browser start and a new page for every
/// group of runs that had one warm (docs/benchmarks.md).
const RUNS_PER_BROWSER: u64 = 1000;

impl LaunchError {
    /// Whether the operator's configuration is at fault (exit code 2), rather
    /// than the database or the network.
    pub fn is_configuration(&self) -> bool {
        matches!(self, LaunchError::SecretKey(_))
    }
}

/// A built application: the store is open and migrated, the services ready.
/// The app owns the store: it hands it to the services and the background
/// loops it composes, and closes it when they have stopped.
pub struct App {
    config: Config,
    store: Arc<dyn Store>,
    services: Arc<Services>,
    /// The SMTP client when email is on (`SVC_SMTP_URL`).
    smtp: Option<Arc<SmtpMailer>>,
    /// Where the master key came from, and its id.
    key_source: KeySource,
    key_id: String,
    /// `SVC_METRICS_LISTEN`, once bound ([`App::bind_metrics`]).
    metrics_listener: Option<TcpListener>,
}

impl App {
    pub async fn build(config: Config) -> Result<App, LaunchError> {
        let smtp = match config.mail() {
            Some(settings) => Some(Arc::new(SmtpMailer::from_config(&settings)?)),
            None => None,
        };
        // The master key, checked against the database's key check (or
        // generated at the very first start): see `secret_key`.
        let KeyedStore { store, source: key_source, key_id } = secret_key::open_store(&config).await?;
        // Secrets stored before sealing (or sealed with SVC_SECRET_KEY_PREVIOUS).
        let sealed = store.seal_plaintext_secrets().await?;
        if sealed.sealed + sealed.resealed > 0 {
            tracing::info!(
                sealed = sealed.sealed,
                resealed = sealed.resealed,
                key_id = %key_id,
                "sealed the secrets stored in plaintext or with a previous master key"
            );
        }
        for unreadable in &sealed.unreadable {
            tracing::warn!("a stored secret does not open with this server's master key: {unreadable}");
        }
        let jwt_secret = match &config.jwt_secret {
            Some(secret) => secret.expose().as_bytes().to_vec(),
            None => {
                let fresh = hex::encode(rand::random::<[u8; 32]>());
                store.secret_setting_or_init("jwt_secret", &fresh).await?.into_bytes()
            }
        };
        let services = Arc::new(Services::new(
            store.clone(),
            ServiceConfig {
                jwt_secret,
                free_grant: config.free_grant,
                cron_min_interval: config.cron_min_interval,
                key_cache_ttl: config.key_cache_ttl,
                run_timeout: config.run_timeout,
                cron_catchup_grace: config.cron_catchup_grace,
                allow_private_networks: config.allow_private_networks.clone(),
                trusted_proxies: config.trusted_proxies.clone(),
                public_url: config.public_url(),
                email_enabled: smtp.is_some(),
                ai_fix_daily: config.ai_fix_daily,
                crawl: config.crawl,
                signup: config.signup,
                tiers: config.tier_settings(),
                weekly_units: svc_service::WeeklyUnits { growth: config.growth_weekly, pro: config.pro_weekly },
                retention: config.retention,
            },
        ));
        if let Some(ai) = config.ai() {
            let model = Arc::new(crate::ai_client::OpenAiCompatible::from_settings(&ai));
            services.runs.attach_ai(model, ai.pricing);
        }
        let app = App { config, store, services, smtp, key_source, key_id, metrics_listener: None };
        app.services.channels.attach_sender(app.channel_sender());
        Ok(app)
    }

    /// Where this process's master key came from (`SVC_SECRET_KEY`, a key file).
    pub fn secret_key_source(&self) -> &KeySource {
        &self.key_source
    }

    /// The id of the master key the secrets are sealed with (not secret).
    pub fn secret_key_id(&self) -> &str {
        &self.key_id
    }

    /// `svc admin rotate-secret-key`: a new master key, every sealed value
    /// re-sealed with it in one transaction, and the key file replaced
    /// (crash-safe order in `secret_key::rotate`). `announce` gets the new
    /// key before the database changes; with `SVC_SECRET_KEY`, the operator
    /// must then replace the variable before the next start. This app keeps
    /// its old key: close it afterwards.
    pub async fn rotate_secret_key(&self, announce: impl FnOnce(&MasterKey)) -> Result<KeyRotation, LaunchError> {
        secret_key::rotate(&self.store, &self.key_source, announce).await
    }

    pub fn services(&self) -> &Arc<Services> {
        &self.services
    }

    /// The store, for what composes the app (the dispatcher, test fixtures
    /// and benchmarks); adapters use the services, commands `backend` and `close`.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The database behind the store: `sqlite` or `postgres`.
    pub fn backend(&self) -> &'static str {
        self.store.backend()
    }

    /// Closes the store, for a command that ends without serving (an operator command).
    pub async fn close(self) {
        self.store.close().await;
    }

    /// Binds `SVC_METRICS_LISTEN` (once), and returns the address bound:
    /// `None` when it is not set. `serve` and `work` bind it themselves
    /// when this was not called.
    pub async fn bind_metrics(&mut self) -> Result<Option<std::net::SocketAddr>, LaunchError> {
        if self.metrics_listener.is_none()
            && let Some(address) = self.config.metrics_listen
        {
            self.metrics_listener = Some(TcpListener::bind(address).await?);
        }
        Ok(match &self.metrics_listener {
            Some(listener) => Some(listener.local_addr()?),
            None => None,
        })
    }

    /// Serves `GET /metrics` on `SVC_METRICS_LISTEN` until `stop`, when set.
    async fn serve_metrics(
        &mut self,
        stop: watch::Receiver<bool>,
    ) -> Result<Option<tokio::task::JoinHandle<std::io::Result<()>>>, LaunchError> {
        self.bind_metrics().await?;
        let Some(listener) = self.metrics_listener.take() else { return Ok(None) };
        tracing::info!(address = %listener.local_addr()?, "serving /metrics");
        let router = svc_api::metrics_router(self.services.clone(), self.config.request_timeout);
        let header_timeout = self.config.header_read_timeout;
        Ok(Some(tokio::spawn(crate::serve::serve(listener, router, header_timeout, stopped(stop)))))
    }

    /// How the main listener's routes are set up (`GET /metrics`, the request deadline).
    fn http_options(&self) -> svc_api::HttpOptions {
        svc_api::HttpOptions {
            metrics_token: self.config.metrics_token.as_ref().map(|t| Arc::from(t.expose())),
            request_timeout: self.config.request_timeout,
        }
    }

    /// The Chromium engine as configured, counting its browser restarts in
    /// the services' metrics and reporting its sandbox to them.
    pub fn engine(&self) -> Arc<ChromiumEngine> {
        let engine = Arc::new(ChromiumEngine::new(EngineConfig {
            chromium: svc_runner::browser::find_chromium(self.config.chromium.as_deref()),
            browser_user: self.config.browser_user.clone(),
            sandbox: self.config.browser_sandbox,
            allow_private_networks: self.config.allow_private_networks.clone(),
            runs_per_browser: RUNS_PER_BROWSER,
            spare_pages: self.config.spare_pages,
            warm_pages: self.config.warm_pages,
            resolver: Default::default(),
            tiers: self.config.proxy_tiers.clone(),
        }));
        engine.share_warm_pages(self.config.warm_pages_shared);
        engine.count_in(self.services.metrics.clone());
        self.services.attach_isolation(engine.clone());
        engine
    }

    /// The static engine as configured (no browser: server-rendered pages).
    pub fn static_engine(&self) -> Arc<StaticEngine> {
        Arc::new(StaticEngine::new(StaticConfig {
            allow_private_networks: self.config.allow_private_networks.clone(),
            sandbox: svc_static::sandbox::SandboxConfig {
                user: self.config.browser_user.clone(),
                ..Default::default()
            },
            ..StaticConfig::default()
        }))
    }

    /// What runs jobs: each goes to the engine its scrap's `scrapper` names,
    /// `browser` for `puppeteer` and a static engine for `static`.
    pub fn engines(&self, browser: Arc<ChromiumEngine>) -> Arc<dyn Engine> {
        Arc::new(EnginesByScrapper::new().with(DEFAULT_SCRAPPER, browser).with(STATIC_SCRAPPER, self.static_engine()))
    }

    /// The webhook dispatcher over this app's store, sending with the real HTTP client.
    pub fn dispatcher(&self) -> Arc<Dispatcher> {
        let client = HttpWebhookClient::new(self.config.webhook_timeout, self.config.allow_private_networks.clone());
        let transport = Arc::new(client.sent_from(self.services.public_url()));
        Arc::new(
            Dispatcher::new(
                self.store.clone(),
                transport,
                DispatchConfig {
                    retry_delays: self.config.webhook_retry_delays.clone(),
                    sweep_interval: self.config.webhook_sweep_interval,
                    timeout: self.config.webhook_timeout,
                    max_in_flight: WEBHOOKS_IN_FLIGHT,
                },
                self.services.runs.signals.deliveries.clone(),
            )
            .with_shutdown_grace(self.config.shutdown_grace)
            .counted_in(self.services.metrics.clone()),
        )
    }

    /// The sender of the email outbox over this app's store: email through
    /// SMTP when email is on, chat messages through the vetted HTTP client
    /// always (a process without SMTP fails email rows at once; none are
    /// queued while email is off).
    pub fn mailer(&self) -> Option<Arc<Mailer>> {
        let (transport, rate, timeout): (Arc<dyn MailTransport>, u32, std::time::Duration) =
            match (self.smtp.clone(), self.config.mail()) {
                (Some(smtp), Some(settings)) => (smtp, settings.rate, settings.timeout),
                _ => (Arc::new(NoSmtp), self.config.mail_rate, self.config.webhook_timeout),
            };
        Some(Arc::new(
            Mailer::new(self.store.clone(), transport, rate, timeout, self.services.runs.signals.emails.clone())
                .counted_in(self.services.metrics.clone())
                .with_channels(self.channel_sender()),
        ))
    }

    /// What sends chat messages: the webhook client's vetted egress, the
    /// services' endpoints (`SVC_CHANNEL_API_URLS`).
    pub fn channel_sender(&self) -> Arc<ChannelSender> {
        let client = HttpWebhookClient::new(self.config.webhook_timeout, self.config.allow_private_networks.clone());
        let transport = Arc::new(client.sent_from(self.services.public_url()));
        Arc::new(ChannelSender::new(self.store.clone(), transport, self.config.channel_endpoints.clone()))
    }

    /// A run worker for `container` on this app's services.
    pub fn worker(&self, engine: Arc<dyn Engine>, container: &str, slots: RunSlots) -> Arc<Worker> {
        Arc::new(
            Worker::new(self.services.clone(), engine, container, slots)
                .with_affinity(self.config.claim_affinity)
                .with_shutdown_grace(self.config.shutdown_grace),
        )
    }

    /// This process's run slots (`SVC_WORKER_CONCURRENCY`), and its engines
    /// attached for test runs and AI tasks, which take from the same slots
    /// as the worker.
    fn attach_engines(&self, engines: &Arc<dyn Engine>) -> RunSlots {
        let slots = RunSlots::new(self.config.worker_concurrency);
        self.services.runs.attach_engine(engines.clone(), slots.clone());
        slots
    }

    /// Serves until `shutdown` resolves, then lets in-flight requests and
    /// runs finish within `SVC_SHUTDOWN_GRACE` (runs still going then are
    /// released for another worker, connections still open are closed) and
    /// the webhook dispatcher record the attempts it sent; the store closes
    /// last. Runs the embedded `default` worker, the scheduler and the
    /// webhook dispatcher unless configured off.
    pub async fn serve(
        mut self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), LaunchError> {
        let (stop_tx, stop_rx) = watch::channel(false);
        let mut background = Vec::new();
        let mut engine = None;
        if self.config.embedded_worker {
            let e = self.engine();
            let engines = self.engines(e.clone());
            // The embedded worker's engines and slots also serve test runs and AI tasks.
            let slots = self.attach_engines(&engines);
            let worker = self.worker(engines, "default", slots);
            engine = Some(e);
            background.push(tokio::spawn(worker.run(stopped(stop_rx.clone()))));
        }
        if self.config.scheduler {
            let scheduler = self.services.scheduler.clone();
            background.push(tokio::spawn(scheduler.run(stopped(stop_rx.clone()))));
        }
        if self.config.webhook_dispatcher {
            background.push(tokio::spawn(self.dispatcher().run(stopped(stop_rx.clone()))));
        }
        if let Some(mailer) = self.mailer().filter(|_| self.config.mailer) {
            background.push(tokio::spawn(mailer.run(stopped(stop_rx.clone()))));
        }
        // AI tasks need this process's browser and a model.
        if self.services.task_runner.ready() {
            background.push(tokio::spawn(self.services.task_runner.clone().run(stopped(stop_rx.clone()))));
        }
        let metrics = self.serve_metrics(stop_rx.clone()).await?;
        let router = svc_api::router(self.services.clone(), self.http_options());
        tracing::info!(
            address = %listener.local_addr()?,
            public_url = %self.services.public_url(),
            database = self.backend(),
            "svc serving"
        );
        let grace = self.config.shutdown_grace;
        let serving = crate::serve::serve(listener, router, self.config.header_read_timeout, async move {
            shutdown.await;
            let _ = stop_tx.send(true);
        });
        let stop = stop_rx.clone();
        let served = tokio::select! {
            served = serving => served,
            _ = async move {
                stopped(stop).await;
                tokio::time::sleep(grace).await;
            } => {
                tracing::warn!(grace_ms = grace.as_millis() as u64, "requests still open at the end of the shutdown grace period: closed");
                Ok(())
            }
        };
        // The loops were told to stop with the listener; they finish within
        // the grace period (counted from the signal) and their bookkeeping.
        join_within(background, grace + AFTER_GRACE).await;
        if let Some(metrics) = metrics
            && let Ok(Err(e)) = metrics.await
        {
            tracing::warn!(error = %e, "the metrics listener failed");
        }
        if let Some(engine) = engine {
            engine.close().await;
        }
        self.store.close().await;
        served?;
        Ok(())
    }
}

/// Awaits `tasks` for at most `limit`, then stops the ones still running.
async fn join_within(tasks: Vec<tokio::task::JoinHandle<()>>, limit: Duration) {
    let deadline = tokio::time::Instant::now() + limit;
    for mut task in tasks {
        if tokio::time::timeout_at(deadline, &mut task).await.is_err() {
            tracing::warn!("a background loop did not stop in time: stopped");
            task.abort();
            let _ = task.await;
        }
    }
}

/// Resolves once `stop` turns true.
pub async fn stopped(mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        if stop.changed().await.is_err() {
            return;
        }
    }
}

impl App {
    /// Runs a worker for `container` (no API) until `shutdown` resolves;
    /// then, as `serve`, the runs in flight get the grace period (and are
    /// released after it) and the dispatcher records what it sent before
    /// the store closes.
    pub async fn work(
        mut self,
        container: &str,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), LaunchError> {
        let engine = self.engine();
        let engines = self.engines(engine.clone());
        let slots = self.attach_engines(&engines);
        let (stop_tx, stop_rx) = watch::channel(false);
        // A worker's own counters (its runs, its browser) on SVC_METRICS_LISTEN.
        let metrics = self.serve_metrics(stop_rx.clone()).await?;
        let mut background = vec![tokio::spawn(self.worker(engines, container, slots).run(stopped(stop_rx.clone())))];
        // Runs finished here queue webhook deliveries: send them from here too.
        if self.config.webhook_dispatcher {
            background.push(tokio::spawn(self.dispatcher().run(stopped(stop_rx.clone()))));
        }
        if let Some(mailer) = self.mailer().filter(|_| self.config.mailer) {
            background.push(tokio::spawn(mailer.run(stopped(stop_rx.clone()))));
        }
        // AI Fix of the runs finished here, and the other AI tasks, when a model is set.
        if self.services.task_runner.ready() {
            background.push(tokio::spawn(self.services.task_runner.clone().run(stopped(stop_rx))));
        }
        shutdown.await;
        let _ = stop_tx.send(true);
        join_within(background, self.config.shutdown_grace + AFTER_GRACE).await;
        if let Some(metrics) = metrics {
            let _ = metrics.await;
        }
        engine.close().await;
        self.store.close().await;
        Ok(())
    }
}

/// Opens the store named by `config`, then serves on `listener` until
/// `shutdown`; the public URL defaults to the address `listener` is bound to.
pub async fn launch(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), LaunchError> {
    let config = config.listening_on(listener.local_addr()?);
    App::build(config).await?.serve(listener, shutdown).await
}

/// The mail transport of a process without `SVC_SMTP_URL`: no email row is
/// queued while email is off, so this only answers rows from before.
struct NoSmtp;

#[async_trait::async_trait]
impl MailTransport for NoSmtp {
    async fn send(&self, _: &svc_domain::email::Email) -> Result<(), MailError> {
        Err(MailError::Permanent("email is off on this server (SVC_SMTP_URL is not set)".into()))
    }
}
