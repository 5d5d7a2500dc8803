//! Extractors that make a page's caller known: [`SignedIn`] for pages behind
//! log-in (else a redirect to `/login?next=...`), [`SignedForm`] for the
//! forms that change something (signed in, from svc's own origin, with the
//! session's CSRF token), and [`AnonymousForm`] for log-in and sign-up.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use svc_domain::account::{Organization, User};
use svc_service::{Principal, ServiceError, Services, Session};

use crate::browser_session::{self, FORM_COOKIE, SESSION_COOKIE};
use crate::chrome::{Chrome, NavUser};
use crate::page_error::PageError;

/// A signed-in user of a page.
pub struct SignedIn {
    pub session: Session,
    pub user: User,
    pub organization: Organization,
    /// The session's CSRF token, for the page's forms and scripts.
    pub csrf: String,
    public_url: String,
}

impl SignedIn {
    pub fn principal(&self) -> Principal {
        Principal::Session(self.session.clone())
    }

    pub fn chrome(&self, title: impl Into<String>, section: &'static str) -> Chrome {
        Chrome {
            title: title.into(),
            user: Some(NavUser {
                email: self.user.email.clone(),
                is_admin: self.user.is_admin,
                plan: self.organization.plan.as_str(),
                organization: self.organization.name.clone(),
                role: self.session.role(),
            }),
            csrf: self.csrf.clone(),
            section,
            public_url: self.public_url.clone(),
            sign_in_links: false,
        }
    }
}

fn path_and_query(parts: &Parts) -> String {
    parts.uri.path_and_query().map(|p| p.as_str().to_string()).unwrap_or_else(|| "/".into())
}

/// The session token of the request's cookie, and the session it opens.
async fn session_of(parts: &Parts, services: &Services) -> Result<(String, Session), PageError> {
    let sign_in = || PageError::SignIn { next: path_and_query(parts) };
    let token = browser_session::cookie(&parts.headers, SESSION_COOKIE).ok_or_else(sign_in)?.to_string();
    match services.auth.session(&token).await {
        Ok(session) => Ok((token, session.from_address(crate::client_ip::request_ip(parts, services)))),
        Err(ServiceError::Unauthorized(_) | ServiceError::SessionRequired(_)) => Err(sign_in()),
        Err(e) => Err(e.into()),
    }
}

impl FromRequestParts<Arc<Services>> for SignedIn {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, services: &Arc<Services>) -> Result<Self, PageError> {
        let (token, session) = session_of(parts, services).await?;
        let (user, organization) = services.accounts.me(&session).await?;
        let public_url = services.public_url().to_string();
        Ok(SignedIn { csrf: services.auth.csrf_token(&token), session, user, organization, public_url })
    }
}

#[derive(Deserialize)]
struct CsrfOnly {
    #[serde(default)]
    csrf: String,
}

async fn form_body<T: DeserializeOwned>(request: Request, services: &Arc<Services>) -> Result<(Bytes, T), PageError> {
    let bytes = Bytes::from_request(request, services)
        .await
        .map_err(|e| PageError::BadRequest(format!("the form could not be read: {e}")))?;
    let form = serde_html_form::from_bytes::<T>(&bytes)
        .map_err(|e| PageError::BadRequest(format!("the form is malformed: {e}")))?;
    Ok((bytes, form))
}

fn csrf_of(bytes: &Bytes) -> String {
    serde_html_form::from_bytes::<CsrfOnly>(bytes).map(|c| c.csrf).unwrap_or_default()
}

/// A form that changes something, sent by a signed-in user from svc's own
/// page: its `Origin` names svc and its `csrf` field is the session's token.
pub struct SignedForm<T> {
    pub user: SignedIn,
    pub form: T,
}

impl<T: DeserializeOwned + Send> FromRequest<Arc<Services>> for SignedForm<T> {
    type Rejection = PageError;

    async fn from_request(request: Request, services: &Arc<Services>) -> Result<Self, PageError> {
        let (parts, body) = request.into_parts();
        if !browser_session::same_origin(&parts.headers, services.public_url()) {
            return Err(PageError::CsrfRefused);
        }
        let (token, session) = session_of(&parts, services).await?;
        let (bytes, form) = form_body::<T>(Request::from_parts(parts, body), services).await?;
        if !services.auth.csrf_valid(&token, &csrf_of(&bytes)) {
            return Err(PageError::CsrfRefused);
        }
        let (user, organization) = services.accounts.me(&session).await?;
        let public_url = services.public_url().to_string();
        let user = SignedIn { csrf: services.auth.csrf_token(&token), session, user, organization, public_url };
        Ok(SignedForm { user, form })
    }
}

/// The log-in and sign-up forms: no session yet, so the token they echo is
/// the `svc_form` cookie set when the form was shown (double submit), and
/// their `Origin` must name svc.
pub struct AnonymousForm<T>(pub T);

impl<T: DeserializeOwned + Send> FromRequest<Arc<Services>> for AnonymousForm<T> {
    type Rejection = PageError;

    async fn from_request(request: Request, services: &Arc<Services>) -> Result<Self, PageError> {
        let (parts, body) = request.into_parts();
        if !browser_session::same_origin(&parts.headers, services.public_url()) {
            return Err(PageError::CsrfRefused);
        }
        let expected = browser_session::cookie(&parts.headers, FORM_COOKIE).map(str::to_string);
        let (bytes, form) = form_body::<T>(Request::from_parts(parts, body), services).await?;
        match expected {
            Some(expected) if expected == csrf_of(&bytes) => Ok(AnonymousForm(form)),
            _ => Err(PageError::CsrfRefused),
        }
    }
}

/// A `multipart/form-data` form with one file (the banner upload), held to
/// [`SignedForm`]'s checks: svc's origin, a signed-in user, and the
/// session's token in its `csrf` part (which must come before the file, as
/// the page's form sends it). `file` is the bytes of its `file` part (empty
/// when none was chosen).
pub struct SignedUpload {
    pub user: SignedIn,
    pub file: Vec<u8>,
}

impl FromRequest<Arc<Services>> for SignedUpload {
    type Rejection = PageError;

    async fn from_request(request: Request, services: &Arc<Services>) -> Result<Self, PageError> {
        let (parts, body) = request.into_parts();
        if !browser_session::same_origin(&parts.headers, services.public_url()) {
            return Err(PageError::CsrfRefused);
        }
        let (token, session) = session_of(&parts, services).await?;
        let unreadable = |e: axum::extract::multipart::MultipartError| {
            if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                PageError::Refused {
                    status: axum::http::StatusCode::PAYLOAD_TOO_LARGE,
                    heading: "Image too large",
                    message: "A banner is at most 2 MiB.".into(),
                }
            } else {
                PageError::BadRequest(format!("the form could not be read: {}", e.body_text()))
            }
        };
        let mut form = axum::extract::Multipart::from_request(Request::from_parts(parts, body), services)
            .await
            .map_err(|e| PageError::BadRequest(format!("the form could not be read: {}", e.body_text())))?;
        let (mut csrf, mut file) = (String::new(), Vec::new());
        while let Some(field) = form.next_field().await.map_err(unreadable)? {
            match field.name() {
                Some("csrf") => csrf = field.text().await.map_err(unreadable)?,
                Some("file") => {
                    if !services.auth.csrf_valid(&token, &csrf) {
                        return Err(PageError::CsrfRefused);
                    }
                    file = field.bytes().await.map_err(unreadable)?.to_vec();
                }
                _ => {}
            }
        }
        if !services.auth.csrf_valid(&token, &csrf) {
            return Err(PageError::CsrfRefused);
        }
        let (user, organization) = services.accounts.me(&session).await?;
        let public_url = services.public_url().to_string();
        let user = SignedIn { csrf: services.auth.csrf_token(&token), session, user, organization, public_url };
        Ok(SignedUpload { user, file })
    }
}
