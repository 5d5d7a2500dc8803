//! The JSON shapes of the public interface live in `svc-api-types` (shared
//! with the typed client); here are the conversions from service results
//! that only the server knows.

use svc_api_types::iso;
pub(crate) use svc_api_types::{
    ActivityView, AttemptView, CreatedKeyView, CreatedWebhookView, HistoryRowView, KeyView, ListView, LoginView,
    MeView, RedeliveryView, RunPageView, ScrapView, SessionView, SignupView, TriggerAccepted, VersionView, WebhookView,
};
use svc_service::accounts::keys::CreatedKey;
use svc_service::accounts::sessions::SessionEntry;
use svc_service::accounts::{IssuedToken, SignedUp};
use svc_service::outbox::webhooks::CreatedWebhook;
use svc_service::paging::Paged;
use svc_service::runs::history::HistoryView;

/// `{"data": [...], "total": N, "page": P, "perPage": PP}`.
pub(crate) fn list<U, T>(paged: Paged<U>, view: impl FnMut(U) -> T) -> ListView<T> {
    ListView {
        data: paged.items.into_iter().map(view).collect(),
        total: paged.total,
        page: paged.page.page,
        per_page: paged.page.per_page,
    }
}

/// A history row as the caller may see it (cost fields for platform admins only).
pub(crate) fn history_row(v: HistoryView) -> HistoryRowView {
    HistoryRowView::new(v.row, v.admin_fields)
}

pub(crate) fn signup(s: SignedUp) -> SignupView {
    SignupView {
        token: s.token.token,
        expires_at: iso(s.token.expires_at),
        user: s.user.into(),
        organization: s.organization.into(),
    }
}

pub(crate) fn login(t: IssuedToken) -> LoginView {
    LoginView { token: t.token, expires_at: iso(t.expires_at) }
}

/// A session as its user sees it.
pub(crate) fn session(e: SessionEntry) -> SessionView {
    let s = e.session;
    SessionView {
        id: s.id.to_string(),
        device: s.device,
        address: s.address,
        created_at: iso(s.created_at),
        last_seen_at: iso(s.last_seen_at),
        expires_at: iso(s.expires_at),
        current: e.current,
    }
}

/// The key creation answer: the key plus `plainKey`, shown this once.
pub(crate) fn created_key(c: CreatedKey) -> CreatedKeyView {
    CreatedKeyView { key: c.key.into(), plain_key: c.plain_key }
}

/// The webhook creation answer: the webhook plus `plainSecret`, shown this once.
pub(crate) fn created_webhook(c: CreatedWebhook) -> CreatedWebhookView {
    CreatedWebhookView { webhook: c.webhook.into(), plain_secret: c.plain_secret }
}
