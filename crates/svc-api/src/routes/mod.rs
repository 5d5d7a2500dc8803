mod accounts;
mod ai;
mod announcements;
mod history;
mod home;
mod keys;
mod runs;
mod scraps;
mod site_accounts;
mod webhooks;

use std::sync::Arc;

use axum::Router;
use axum::routing::{delete, get, post};
use svc_service::Services;

pub(crate) fn routes() -> Router<Arc<Services>> {
    Router::new()
        .route("/healthz", get(home::healthz))
        .route("/readyz", get(home::readyz))
        .route("/api/auth/signup", post(accounts::signup))
        .route("/api/auth/login", post(accounts::login))
        .route("/api/auth/me", get(accounts::me))
        .route("/api/scraps", get(scraps::list).post(scraps::create))
        .route("/api/scraps/{id}", get(scraps::get).put(scraps::update).patch(scraps::update).delete(scraps::delete))
        .route("/api/scraps/{id}/activities", get(scraps::activities))
        .route(
            "/api/scraps/{id}/account",
            get(site_accounts::get_account).put(site_accounts::put_account).delete(site_accounts::delete_account),
        )
        .route("/api/scraps/{id}/session", delete(site_accounts::delete_session))
        .route("/api/scraps/{id}/versions", get(scraps::versions))
        .route("/api/scraps/{id}/versions/{version}", get(scraps::version))
        .route("/api/scraps/{id}/versions/{version}/restore", post(scraps::restore_version))
        .route("/api/ai/wizard", post(ai::wizard))
        .route("/api/ai/generate", post(ai::generate))
        .route("/api/tasks/{id}", get(ai::task))
        .route("/api/scraps/{id}/data", get(runs::live_data))
        .route("/api/scraps/worker/{id}", post(runs::trigger))
        .route("/api/scraps/load/{id}", get(runs::trigger))
        .route("/api/historys", get(history::list))
        .route("/api/historys/{id}", get(history::get))
        .route("/api/developers/announcements", post(announcements::announce))
        .route("/api/developers/keys", get(keys::list).post(keys::create))
        .route("/api/developers/keys/{id}", delete(keys::revoke))
        .route("/api/developers/webhooks", get(webhooks::list).post(webhooks::create))
        .route(
            "/api/developers/webhooks/{id}",
            get(webhooks::get).put(webhooks::update).patch(webhooks::update).delete(webhooks::delete),
        )
        .route("/api/developers/webhooks/{id}/deliveries", get(webhooks::deliveries))
        .route("/api/developers/webhooks/{id}/deliveries/{delivery}/redeliver", post(webhooks::redeliver))
}
