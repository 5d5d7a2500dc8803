//! Sign up, log in, log out. The session JWT goes into an HttpOnly cookie;
//! the forms carry a double-submit token (`svc_form`) and must come from
//! svc's own origin.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use serde::Deserialize;
use svc_service::Services;
use svc_service::accounts::{Login, Signup};

use crate::browser_session::{self, FORM_COOKIE};
use crate::chrome::Chrome;
use crate::client_ip::LoginClient;
use crate::form_errors::FieldErrors;
use crate::page_error::PageError;
use crate::signed_in::{AnonymousForm, SignedForm};

#[derive(Template)]
#[template(path = "auth.html")]
struct AuthPage {
    chrome: Chrome,
    signup: bool,
    form_token: String,
    next: String,
    email: String,
    name: String,
    errors: FieldErrors,
    /// The sign-up of an invitation: the email is the invited address, read-only.
    email_locked: bool,
}

#[derive(Deserialize)]
pub(crate) struct NextQuery {
    next: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct AuthForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    name: String,
    next: Option<String>,
}

fn random_token() -> String {
    use std::fmt::Write;
    let bytes: [u8; 24] = rand::random();
    bytes.iter().fold(String::with_capacity(48), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The form page, keeping the browser's form token (or giving it one).
fn auth_page(
    services: &Services,
    headers: &HeaderMap,
    status: StatusCode,
    page: impl FnOnce(String) -> AuthPage,
) -> Result<Response, PageError> {
    let existing = browser_session::cookie(headers, FORM_COOKIE).map(str::to_string);
    let token = existing.clone().unwrap_or_else(random_token);
    let html = page(token.clone()).render()?;
    let mut response = (status, axum::response::Html(html)).into_response();
    if existing.is_none() {
        let secure = browser_session::is_secure(services.public_url());
        response.headers_mut().append(header::SET_COOKIE, browser_session::form_cookie(&token, secure));
    }
    Ok(response)
}

fn title(signup: bool) -> &'static str {
    if signup { "Sign up" } else { "Log in" }
}

fn blank(services: &Services, signup: bool, next: String) -> impl FnOnce(String) -> AuthPage {
    let chrome = Chrome::public(title(signup), services.public_url());
    move |form_token| AuthPage {
        chrome,
        signup,
        form_token,
        next,
        email: String::new(),
        name: String::new(),
        errors: FieldErrors::default(),
        email_locked: false,
    }
}

/// The empty form of log-in (`signup` false) or sign-up.
fn form_page(
    services: &Services,
    headers: &HeaderMap,
    next: Option<&str>,
    signup: bool,
) -> Result<Response, PageError> {
    let next = browser_session::local_path(next);
    auth_page(services, headers, StatusCode::OK, blank(services, signup, next))
}

pub(crate) async fn login_page(
    State(services): State<Arc<Services>>,
    headers: HeaderMap,
    Query(q): Query<NextQuery>,
) -> Result<Response, PageError> {
    form_page(&services, &headers, q.next.as_deref(), false)
}

pub(crate) async fn signup_page(
    State(services): State<Arc<Services>>,
    headers: HeaderMap,
    Query(q): Query<NextQuery>,
) -> Result<Response, PageError> {
    let next = browser_session::local_path(q.next.as_deref());
    // Coming from an invitation's page: the invited address, read-only.
    let invited = match next.strip_prefix("/invites/accept?token=") {
        Some(token) => services.members.invite_of_token(token).await.ok().map(|(invite, _)| invite.email),
        None => None,
    };
    let page = blank(&services, true, next);
    auth_page(&services, &headers, StatusCode::OK, move |form_token| match invited {
        Some(email) => AuthPage { email, email_locked: true, ..page(form_token) },
        None => page(form_token),
    })
}

/// Signed in: the cookie, and on to `next`.
fn signed_in(services: &Services, token: &str, expires_at: chrono::DateTime<Utc>, next: &str) -> Response {
    let secure = browser_session::is_secure(services.public_url());
    let max_age = (expires_at - Utc::now()).num_seconds().max(0);
    let mut response = Redirect::to(next).into_response();
    response.headers_mut().append(header::SET_COOKIE, browser_session::session_cookie(token, max_age, secure));
    response
}

/// The form again, with what was typed (never the password) and why it failed.
fn refused(
    services: &Services,
    headers: &HeaderMap,
    signup: bool,
    form: AuthForm,
    status: StatusCode,
    errors: FieldErrors,
) -> Result<Response, PageError> {
    let next = browser_session::local_path(form.next.as_deref());
    let chrome = Chrome::public(title(signup), services.public_url());
    auth_page(services, headers, status, move |form_token| AuthPage {
        chrome,
        signup,
        form_token,
        email_locked: signup && next.starts_with("/invites/accept?token="),
        next,
        email: form.email,
        name: form.name,
        errors,
    })
}

pub(crate) async fn login(
    State(services): State<Arc<Services>>,
    headers: HeaderMap,
    LoginClient(from): LoginClient,
    AnonymousForm(form): AnonymousForm<AuthForm>,
) -> Result<Response, PageError> {
    let login = Login { email: form.email.clone(), password: form.password.clone(), organization: None };
    match services.accounts.login(login, from).await {
        Ok(issued) => {
            let next = browser_session::local_path(form.next.as_deref());
            Ok(signed_in(&services, &issued.token, issued.expires_at, &next))
        }
        Err(e) => {
            let Some(mut errors) = FieldErrors::from_service(&e, "email") else { return Err(e.into()) };
            let status = match e {
                svc_service::ServiceError::Unauthorized(_) => {
                    errors = FieldErrors::default();
                    errors.general = Some("Wrong email or password.".into());
                    StatusCode::UNAUTHORIZED
                }
                svc_service::ServiceError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
                _ => StatusCode::UNPROCESSABLE_ENTITY,
            };
            refused(&services, &headers, false, form, status, errors)
        }
    }
}

pub(crate) async fn signup(
    State(services): State<Arc<Services>>,
    headers: HeaderMap,
    LoginClient(from): LoginClient,
    AnonymousForm(form): AnonymousForm<AuthForm>,
) -> Result<Response, PageError> {
    let name = Some(form.name.trim().to_string()).filter(|n| !n.is_empty());
    let signup = Signup { email: form.email.clone(), password: form.password.clone(), name };
    match services.accounts.signup(signup, from).await {
        Ok(created) => {
            let next = browser_session::local_path(form.next.as_deref());
            Ok(signed_in(&services, &created.token.token, created.token.expires_at, &next))
        }
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "email") else { return Err(e.into()) };
            let status = match e {
                svc_service::ServiceError::Conflict { .. } => StatusCode::CONFLICT,
                svc_service::ServiceError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
                svc_service::ServiceError::Forbidden(_) => StatusCode::FORBIDDEN,
                _ => StatusCode::UNPROCESSABLE_ENTITY,
            };
            refused(&services, &headers, true, form, status, errors)
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct Nothing {}

/// Logs out: ends the session on the server (every server refuses its
/// token from now on), then clears the cookie.
pub(crate) async fn logout(
    State(services): State<Arc<Services>>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    services.sessions.log_out(&user.session).await?;
    Ok(signed_out(&services))
}

/// The browser's side of an ended session: no cookie, on to the log-in page.
pub(crate) fn signed_out(services: &Services) -> Response {
    let secure = browser_session::is_secure(services.public_url());
    let mut response = Redirect::to("/login").into_response();
    response.headers_mut().append(header::SET_COOKIE, browser_session::clear_session_cookie(secure));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
