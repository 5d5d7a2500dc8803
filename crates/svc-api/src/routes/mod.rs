//! The REST routes, in one table that both builds the router and describes
//! each route for the OpenAPI document (`crate::openapi`): who may call it
//! and the failures proper to it. Every route under `/api/` must have an
//! operation in that document (docs/api.md); the api test suite's
//! `openapi::` tests compare the two. Add a route here, never with a bare
//! `.route(...)` elsewhere.

pub(crate) mod accounts;
pub(crate) mod ai;
pub(crate) mod announcements;
pub(crate) mod banners;
pub(crate) mod channels;
pub(crate) mod history;
mod home;
pub(crate) mod keys;
pub(crate) mod members;
pub(crate) mod organization;
pub(crate) mod recipients;
pub(crate) mod runs;
pub(crate) mod scraps;
pub(crate) mod site_accounts;
pub(crate) mod webhooks;

use std::sync::Arc;

use axum::Router;
use axum::handler::Handler;
use axum::http::Method;
use axum::routing::{MethodFilter, MethodRouter, on};
use svc_domain::scope::Scope;
use svc_service::Services;

use crate::openapi::{self, Failure};

/// Who may call a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// No credential.
    Public,
    /// An API key holding the scope (a key with no scopes holds them all),
    /// or a web session.
    Key(Scope),
    /// A web session only (JWT bearer or the web app's cookie); an API key gets 401.
    Session,
}

/// One method on one path.
pub(crate) struct RestRoute {
    pub method: Method,
    pub path: &'static str,
    pub access: Access,
    /// The failures proper to this route; `crate::openapi` adds those that
    /// follow from its access, parameters and body.
    pub failures: &'static [Failure],
    handler: MethodRouter<Arc<Services>>,
}

impl RestRoute {
    fn failing(self, failures: &'static [Failure]) -> Self {
        RestRoute { failures, ..self }
    }
}

fn at<H, T>(method: Method, path: &'static str, access: Access, handler: H) -> RestRoute
where
    H: Handler<T, Arc<Services>>,
    T: 'static,
{
    let filter = MethodFilter::try_from(method.clone()).expect("a method axum routes");
    RestRoute { method, path, access, failures: &[], handler: on(filter, handler) }
}

/// Every route of this module. `/healthz` and `/readyz` are probes, not
/// part of the REST API, so the document leaves them out (see
/// `crate::openapi::is_documented`).
pub(crate) fn table() -> Vec<RestRoute> {
    use Access::{Key, Public, Session};
    use Method as M;
    use Scope::{HistoryRead, MailAnnounce, ScrapsRead, ScrapsRun};
    use openapi::{
        AI_NOT_CONFIGURED, ALREADY_CURRENT, BAD_CREDENTIALS, CHANNEL_EXISTS, EMAIL_OFF, EMAIL_TAKEN, INACTIVE_WEBHOOK,
        INSUFFICIENT_BALANCE, NO_BROWSER_HERE, NOT_IN_KEY_SCOPE, NOT_ORG_ADMIN, NOT_PLATFORM_ADMIN, PAGE_NOT_SHOT,
        PLAN_REQUIRED, RATE_LIMITED, SIGNUP_CLOSED, UNKNOWN_SCRAP_FILTER, XLSX_TOO_LARGE,
    };
    use openapi::{ALREADY_CONFIRMED, CONFIRMATION_RECENTLY_SENT, NO_EMAIL_TO_CONFIRM};
    use openapi::{ALREADY_MEMBER, INVITE_ELSEWHERE, INVITE_GONE, LAST_OWNER, NOT_A_MEMBER, ROLE_REFUSED};
    const RUN: &[Failure] = &[NOT_IN_KEY_SCOPE, ROLE_REFUSED, INSUFFICIENT_BALANCE, RATE_LIMITED];
    const AI_TASK: &[Failure] = &[ROLE_REFUSED, AI_NOT_CONFIGURED, INSUFFICIENT_BALANCE, RATE_LIMITED];
    const ROLE: &[Failure] = &[ROLE_REFUSED];
    vec![
        at(M::GET, "/healthz", Public, home::healthz),
        at(M::GET, "/readyz", Public, home::readyz),
        at(M::GET, "/api/openapi.json", Public, openapi::serve),
        at(M::POST, "/api/auth/signup", Public, accounts::signup).failing(&[EMAIL_TAKEN, SIGNUP_CLOSED, RATE_LIMITED]),
        at(M::POST, "/api/auth/login", Public, accounts::login).failing(&[BAD_CREDENTIALS, NOT_A_MEMBER, RATE_LIMITED]),
        at(M::GET, "/api/auth/me", Session, accounts::me),
        at(M::POST, "/api/auth/logout", Session, accounts::logout),
        at(M::PUT, "/api/auth/password", Session, accounts::change_password),
        at(M::GET, "/api/auth/sessions", Session, accounts::sessions),
        at(M::DELETE, "/api/auth/sessions", Session, accounts::end_all_sessions),
        at(M::DELETE, "/api/auth/sessions/{id}", Session, accounts::end_session),
        at(M::GET, "/api/organization/members", Session, members::list),
        at(M::PUT, "/api/organization/members/{userId}", Session, members::set_role)
            .failing(&[ROLE_REFUSED, LAST_OWNER]),
        at(M::DELETE, "/api/organization/members/{userId}", Session, members::remove)
            .failing(&[ROLE_REFUSED, LAST_OWNER]),
        at(M::GET, "/api/organization/invites", Session, members::invites).failing(&[ROLE_REFUSED]),
        at(M::POST, "/api/organization/invites", Session, members::invite).failing(&[ROLE_REFUSED, ALREADY_MEMBER]),
        at(M::DELETE, "/api/organization/invites/{id}", Session, members::withdraw).failing(&[ROLE_REFUSED]),
        at(M::POST, "/api/invites/accept", Session, members::accept).failing(&[INVITE_ELSEWHERE, INVITE_GONE]),
        at(M::GET, "/api/organization/recipients", Session, recipients::list),
        at(M::POST, "/api/organization/recipients/resend", Session, recipients::resend).failing(&[
            ROLE_REFUSED,
            ALREADY_CONFIRMED,
            CONFIRMATION_RECENTLY_SENT,
            NO_EMAIL_TO_CONFIRM,
        ]),
        at(M::GET, "/api/organization/audit", Session, organization::audit).failing(&[NOT_ORG_ADMIN]),
        at(M::GET, "/api/organization/settings", Session, organization::settings).failing(&[NOT_ORG_ADMIN]),
        at(M::PUT, "/api/organization/settings", Session, organization::update_settings).failing(&[NOT_ORG_ADMIN]),
        at(M::GET, "/api/scraps", Key(ScrapsRead), scraps::list),
        at(M::POST, "/api/scraps", Session, scraps::create).failing(ROLE),
        at(M::GET, "/api/scraps/{id}", Key(ScrapsRead), scraps::get).failing(&[NOT_IN_KEY_SCOPE]),
        at(M::PUT, "/api/scraps/{id}", Session, scraps::update).failing(ROLE),
        at(M::PATCH, "/api/scraps/{id}", Session, scraps::update).failing(ROLE),
        at(M::DELETE, "/api/scraps/{id}", Session, scraps::delete).failing(ROLE),
        at(M::GET, "/api/scraps/{id}/activities", Key(HistoryRead), scraps::activities).failing(&[NOT_IN_KEY_SCOPE]),
        at(M::GET, "/api/scraps/{id}/account", Key(ScrapsRead), site_accounts::get_account)
            .failing(&[NOT_IN_KEY_SCOPE]),
        at(M::PUT, "/api/scraps/{id}/account", Session, site_accounts::put_account).failing(ROLE),
        at(M::DELETE, "/api/scraps/{id}/account", Session, site_accounts::delete_account).failing(ROLE),
        at(M::DELETE, "/api/scraps/{id}/session", Session, site_accounts::delete_session).failing(ROLE),
        at(M::POST, "/api/scraps/{id}/banner", Session, banners::upload).failing(ROLE),
        at(M::DELETE, "/api/scraps/{id}/banner", Session, banners::remove).failing(ROLE),
        at(M::POST, "/api/scraps/{id}/banner/screenshot", Session, banners::screenshot).failing(&[
            ROLE_REFUSED,
            INSUFFICIENT_BALANCE,
            RATE_LIMITED,
            PAGE_NOT_SHOT,
            NO_BROWSER_HERE,
        ]),
        at(M::GET, "/api/scraps/{id}/versions", Key(ScrapsRead), scraps::versions).failing(&[NOT_IN_KEY_SCOPE]),
        at(M::GET, "/api/scraps/{id}/versions/{version}", Key(ScrapsRead), scraps::version)
            .failing(&[NOT_IN_KEY_SCOPE]),
        at(M::POST, "/api/scraps/{id}/versions/{version}/restore", Session, scraps::restore_version).failing(&[
            NOT_IN_KEY_SCOPE,
            ROLE_REFUSED,
            ALREADY_CURRENT,
        ]),
        at(M::POST, "/api/ai/wizard", Session, ai::wizard).failing(AI_TASK),
        at(M::POST, "/api/ai/generate", Session, ai::generate).failing(AI_TASK),
        at(M::GET, "/api/tasks/{id}", Session, ai::task),
        at(M::GET, "/api/scraps/{id}/data", Session, runs::live_data).failing(&[PLAN_REQUIRED]),
        at(M::POST, "/api/scraps/worker/{id}", Key(ScrapsRun), runs::worker).failing(RUN),
        at(M::GET, "/api/scraps/load/{id}", Key(ScrapsRun), runs::load).failing(RUN),
        at(M::GET, "/api/historys", Key(HistoryRead), history::list).failing(&[NOT_IN_KEY_SCOPE, UNKNOWN_SCRAP_FILTER]),
        at(M::GET, "/api/historys/{id}", Key(HistoryRead), history::get).failing(&[NOT_IN_KEY_SCOPE]),
        at(M::GET, "/api/historys/{id}/pages", Key(HistoryRead), history::pages).failing(&[NOT_IN_KEY_SCOPE]),
        at(M::GET, "/api/historys/{id}/data", Key(HistoryRead), history::export)
            .failing(&[NOT_IN_KEY_SCOPE, XLSX_TOO_LARGE]),
        at(M::POST, "/api/developers/announcements", Key(MailAnnounce), announcements::announce)
            .failing(&[NOT_PLATFORM_ADMIN, EMAIL_OFF]),
        at(M::GET, "/api/developers/keys", Session, keys::list),
        at(M::POST, "/api/developers/keys", Session, keys::create),
        at(M::DELETE, "/api/developers/keys/{id}", Session, keys::revoke).failing(ROLE),
        at(M::GET, "/api/developers/channels", Session, channels::list),
        at(M::POST, "/api/developers/channels", Session, channels::create).failing(&[ROLE_REFUSED, CHANNEL_EXISTS]),
        at(M::DELETE, "/api/developers/channels/{id}", Session, channels::delete).failing(&[ROLE_REFUSED]),
        at(M::POST, "/api/developers/channels/{id}/test", Session, channels::test).failing(&[ROLE_REFUSED]),
        at(M::GET, "/api/developers/webhooks", Session, webhooks::list),
        at(M::POST, "/api/developers/webhooks", Session, webhooks::create).failing(&[ROLE_REFUSED, PLAN_REQUIRED]),
        at(M::GET, "/api/developers/webhooks/{id}", Session, webhooks::get),
        at(M::PUT, "/api/developers/webhooks/{id}", Session, webhooks::update).failing(&[ROLE_REFUSED, PLAN_REQUIRED]),
        at(M::PATCH, "/api/developers/webhooks/{id}", Session, webhooks::update)
            .failing(&[ROLE_REFUSED, PLAN_REQUIRED]),
        at(M::DELETE, "/api/developers/webhooks/{id}", Session, webhooks::delete)
            .failing(&[ROLE_REFUSED, PLAN_REQUIRED]),
        at(M::GET, "/api/developers/webhooks/{id}/deliveries", Session, webhooks::deliveries),
        at(M::POST, "/api/developers/webhooks/{id}/deliveries/{deliveryId}/redeliver", Session, webhooks::redeliver)
            .failing(&[ROLE_REFUSED, PLAN_REQUIRED, INACTIVE_WEBHOOK]),
    ]
}

/// The router of [`table`]: the methods of one path merge into one route.
pub(crate) fn routes() -> Router<Arc<Services>> {
    table().into_iter().fold(Router::new(), |router, route| router.route(route.path, route.handler))
}
