//! Every failure of a page, rendered as a page that says why (never a stack
//! trace). Internal causes are logged with the request id, as in REST.

use askama::Template;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use svc_service::ServiceError;

use crate::chrome::Chrome;

#[derive(Debug)]
pub enum PageError {
    /// Not signed in (or the session ended): to `/login?next=...`.
    SignIn {
        next: String,
    },
    NotFound(String),
    Forbidden(String),
    /// A state-changing request without svc's CSRF proof.
    CsrfRefused,
    /// A request no page of svc sends (malformed form).
    BadRequest(String),
    /// A refusal with its own status (rate limit, balance).
    Refused {
        status: StatusCode,
        heading: &'static str,
        message: String,
    },
    Internal(String),
}

impl From<ServiceError> for PageError {
    fn from(e: ServiceError) -> Self {
        use ServiceError as S;
        match e {
            S::Unauthorized(_) | S::SessionRequired(_) => PageError::SignIn { next: "/".into() },
            S::NotFound(what) => PageError::NotFound(format!("This {what} does not exist, or is not yours to see.")),
            S::Forbidden(m) => PageError::Forbidden(m),
            e @ (S::InsufficientScope(_) | S::ScrapNotInKeyScope | S::PlanRequired(_)) => {
                PageError::Forbidden(e.to_string())
            }
            e @ S::Validation { .. } => PageError::BadRequest(e.to_string()),
            e @ S::Conflict { .. } => {
                PageError::Refused { status: StatusCode::CONFLICT, heading: "Conflict", message: e.to_string() }
            }
            e @ S::RateLimited(_) => PageError::Refused {
                status: StatusCode::TOO_MANY_REQUESTS,
                heading: "Too many requests",
                message: e.to_string(),
            },
            e @ S::InsufficientBalance => PageError::Refused {
                status: StatusCode::PAYMENT_REQUIRED,
                heading: "No compute balance left",
                message: e.to_string(),
            },
            S::Unavailable(message) => PageError::Refused {
                status: StatusCode::SERVICE_UNAVAILABLE,
                heading: "Not set up on this server",
                message,
            },
            e @ S::StoreUnavailable(_) => PageError::Refused {
                status: StatusCode::SERVICE_UNAVAILABLE,
                heading: "Temporarily unavailable",
                message: e.to_string(),
            },
            e @ S::AiNotConfigured => PageError::Refused {
                status: StatusCode::SERVICE_UNAVAILABLE,
                heading: "Not set up on this server",
                message: e.to_string(),
            },
            S::Internal(cause) => PageError::Internal(cause),
        }
    }
}

impl From<askama::Error> for PageError {
    fn from(e: askama::Error) -> Self {
        PageError::Internal(format!("template: {e}"))
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    chrome: Chrome,
    heading: String,
    message: String,
}

impl PageError {
    fn parts(self) -> (StatusCode, String, String, Option<String>) {
        match self {
            PageError::SignIn { .. } => unreachable!("handled before"),
            PageError::NotFound(m) => (StatusCode::NOT_FOUND, "Not found".into(), m, None),
            PageError::Forbidden(m) => (StatusCode::FORBIDDEN, "Not allowed".into(), m, None),
            PageError::CsrfRefused => (
                StatusCode::FORBIDDEN,
                "Request refused".into(),
                "This form did not come from svc's own page, or the page is too old. Go back, reload the page and \
                 try again."
                    .into(),
                None,
            ),
            PageError::BadRequest(m) => (StatusCode::BAD_REQUEST, "Bad request".into(), m, None),
            PageError::Refused { status, heading, message } => (status, heading.into(), message, None),
            PageError::Internal(cause) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong".into(),
                "svc failed to answer this page. The error is in the server's log under this request's id \
                 (the x-request-id response header)."
                    .into(),
                Some(cause),
            ),
        }
    }
}

/// Carried to the logging middleware with the response of an internal error.
#[derive(Clone, Debug)]
pub struct InternalCause(pub String);

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        if let PageError::SignIn { next } = &self {
            let target =
                format!("/login?next={}", url::form_urlencoded::byte_serialize(next.as_bytes()).collect::<String>());
            return Redirect::to(&target).into_response();
        }
        let (status, heading, message, cause) = self.parts();
        let page = ErrorPage { chrome: Chrome::anonymous(&heading), heading, message };
        let mut response = match page.render() {
            Ok(html) => (status, Html(html)).into_response(),
            Err(_) => (status, "svc could not render its error page").into_response(),
        };
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if let Some(cause) = cause {
            response.extensions_mut().insert(InternalCause(cause));
        }
        response
    }
}

/// The page for a method a path does not take (a form sent to a page that
/// only shows, say).
pub fn method_not_allowed_page() -> Response {
    PageError::Refused {
        status: StatusCode::METHOD_NOT_ALLOWED,
        heading: "Not a request this page takes",
        message: "This address does not take that kind of request. Go back and use the page's own buttons.".into(),
    }
    .into_response()
}

/// A page for a request refused before any page saw it (a body too
/// large, a request that took too long): `heading` and `message` say why.
pub fn refused_page(status: StatusCode, heading: &'static str, message: String) -> Response {
    PageError::Refused { status, heading, message }.into_response()
}

/// The page for a path no route serves.
pub fn not_found_page() -> Response {
    PageError::NotFound("There is no page at this address.".into()).into_response()
}
