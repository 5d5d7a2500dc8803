//! What every page shows around its content: the title, the navigation
//! with the signed-in user, and the CSRF token its forms and scripts send.

use std::sync::LazyLock;

use svc_domain::member::{Power, Role};
use svc_domain::scope::Scope;

use crate::assets;

/// The signed-in user as the navigation shows them.
#[derive(Clone, Debug)]
pub struct NavUser {
    pub email: String,
    pub is_admin: bool,
    pub plan: &'static str,
    /// The organization the session is in (the switcher's label).
    pub organization: String,
    /// The user's role there: the screens hide what it may not do.
    pub role: Role,
}

#[derive(Clone, Debug)]
pub struct Chrome {
    pub title: String,
    pub user: Option<NavUser>,
    /// The session's CSRF token (empty without a session).
    pub csrf: String,
    /// Which navigation entry is current: `scraps`, `keys`, `webhooks`, `settings`, `admin`.
    pub section: &'static str,
    /// svc's public URL, for the footer's API addresses (empty: no footer).
    pub public_url: String,
    /// Whether a page without a user offers Log in / Sign up (the log-in
    /// and sign-up pages do; error pages, which may be shown to a signed-in
    /// user, do not).
    pub sign_in_links: bool,
}

static CSS_HREF: LazyLock<String> = LazyLock::new(|| format!("/assets/app.css?v={}", assets::CSS_VERSION));
static JS_HREF: LazyLock<String> = LazyLock::new(|| format!("/assets/app.js?v={}", assets::JS_VERSION));

impl Chrome {
    /// A page without a session (log in, sign up, errors).
    pub fn anonymous(title: &str) -> Chrome {
        Chrome {
            title: title.to_string(),
            user: None,
            csrf: String::new(),
            section: "",
            public_url: String::new(),
            sign_in_links: false,
        }
    }

    /// A page without a session that names svc's addresses.
    pub fn public(title: &str, public_url: &str) -> Chrome {
        Chrome { public_url: public_url.to_string(), sign_in_links: true, ..Chrome::anonymous(title) }
    }

    pub fn css_href(&self) -> &str {
        &CSS_HREF
    }

    pub fn js_href(&self) -> &str {
        &JS_HREF
    }

    /// Whether the signed-in role may change and run scraps: the screens
    /// hide what would answer 403 (the server checks regardless).
    pub fn can_edit(&self) -> bool {
        self.user.as_ref().is_some_and(|u| u.role.may(Power::Act(Scope::ScrapsWrite)))
    }

    /// Whether the signed-in role may manage webhooks, channels and members.
    pub fn can_manage(&self) -> bool {
        self.user.as_ref().is_some_and(|u| u.role.may(Power::Act(Scope::WebhooksManage)))
    }

    /// The signed-in role's name (empty without a session).
    pub fn role(&self) -> &'static str {
        self.user.as_ref().map_or("", |u| u.role.as_str())
    }

    /// `aria-current` for the navigation entry of `section`.
    pub fn current(&self, section: &str) -> &'static str {
        if self.section == section { "page" } else { "false" }
    }
}
