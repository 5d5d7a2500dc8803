//! The OpenAPI 3.1 document of the REST API, served at `GET /api/openapi.json`
//! (docs/api.md). It is generated from the code in two steps:
//!
//! 1. utoipa builds the operations from the handlers' `#[utoipa::path]`
//!    annotations (path, parameters, request body, success answers) and the
//!    schemas from the `ToSchema` derives of `svc-api-types`;
//! 2. [`document`] completes each operation from its row in the route table
//!    (`routes::table`): the security requirement and `x-svc-auth` /
//!    `x-svc-scope` of its [`Access`], and its error responses, in the error
//!    shape (`ErrorBody`), each listing its codes in `x-svc-codes`. The
//!    failures that follow from the route's access, path ids, query and body
//!    are added here; those proper to one route are named in its row.
//!
//! Documented are the table's routes under `/api/` ([`is_documented`]); the
//! probes `/healthz` and `/readyz`, MCP (`/api/mcp`, JSON-RPC), `/metrics`
//! and the web app's pages are not REST routes.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, LazyLock};

use axum::Json;
use axum::extract::State;
use axum::http::Method;
use serde_json::{Value, json};
use svc_api_types::ErrorBody;
use svc_service::Services;
use svc_web::browser_session::{CSRF_HEADER, SESSION_COOKIE};
use utoipa::OpenApi;

use crate::routes::{self, Access, RestRoute};

/// One way a route fails: the status, the `code` of the error body, and when.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Failure {
    status: u16,
    code: &'static str,
    when: &'static str,
}

const fn failure(status: u16, code: &'static str, when: &'static str) -> Failure {
    Failure { status, code, when }
}

// The failures that follow from a route's access, parameters and body.
const UNAUTHORIZED: Failure =
    failure(401, "UNAUTHORIZED", "no credential, or one that is malformed, unknown, revoked or expired");
const KEY_REFUSED: Failure =
    failure(401, "UNAUTHORIZED", "the credential is an API key: this route takes a web session only");
const INSUFFICIENT_SCOPE: Failure = failure(
    403,
    "INSUFFICIENT_SCOPE",
    "the API key lacks the route's scope (`x-svc-scope`); `WWW-Authenticate` names it",
);
const CSRF: Failure = failure(
    403,
    "FORBIDDEN",
    "authenticated by the session cookie without svc's `Origin` and the session's CSRF token in `X-CSRF-Token`",
);
const BAD_ID: Failure = failure(422, "VALIDATION", "a path id is not 24 hexadecimal characters (`field` names it)");
const NOT_FOUND: Failure = failure(
    404,
    "NOT_FOUND",
    "no such resource in the caller's organization (another organization's is not found either)",
);
const BAD_QUERY: Failure =
    failure(422, "VALIDATION", "a query parameter is malformed or out of range (`field` names it)");
const BAD_BODY: Failure = failure(422, "VALIDATION", "a body field is missing, unknown or invalid (`field` names it)");
const INVALID_JSON: Failure = failure(400, "INVALID_JSON", "the body is not JSON");
const UNSUPPORTED_MEDIA_TYPE: Failure =
    failure(415, "UNSUPPORTED_MEDIA_TYPE", "the body is not sent as `Content-Type: application/json`");
const PAYLOAD_TOO_LARGE: Failure = failure(413, "PAYLOAD_TOO_LARGE", "the body is larger than 2 MiB");
const REQUEST_TIMEOUT: Failure =
    failure(408, "REQUEST_TIMEOUT", "the body was still arriving at the request's deadline");
const INTERNAL: Failure =
    failure(500, "INTERNAL", "svc failed; the `x-request-id` header identifies the request in its logs");
const UNAVAILABLE: Failure = failure(503, "UNAVAILABLE", "the database is unreachable (`Retry-After`)");
const TIMEOUT: Failure = failure(503, "TIMEOUT", "svc did not answer by the request's deadline");

// The failures proper to some routes, named in their rows of the route table.
pub(crate) const NOT_IN_KEY_SCOPE: Failure =
    failure(403, "SCRAP_NOT_IN_KEY_SCOPE", "the API key's scrap allow-list excludes the scrap");
pub(crate) const PLAN_REQUIRED: Failure =
    failure(403, "PLAN_REQUIRED", "the organization is on the Free plan: Growth or Pro only");
pub(crate) const INSUFFICIENT_BALANCE: Failure =
    failure(402, "INSUFFICIENT_BALANCE", "the organization's compute balance is not positive");
pub(crate) const RATE_LIMITED: Failure = failure(
    429,
    "RATE_LIMITED",
    "a rate limit is reached; `Retry-After` says when to try again (`RateLimit`, `RateLimit-Policy`)",
);
pub(crate) const EMAIL_TAKEN: Failure = failure(409, "EMAIL_TAKEN", "an account with this email exists");
pub(crate) const NOT_ORG_ADMIN: Failure =
    failure(403, "FORBIDDEN", "the caller's role in the organization is neither owner nor admin");
pub(crate) const SIGNUP_CLOSED: Failure = failure(403, "FORBIDDEN", "sign-up is closed on this server");
pub(crate) const BAD_CREDENTIALS: Failure = failure(401, "UNAUTHORIZED", "wrong email or password");
pub(crate) const ALREADY_CURRENT: Failure =
    failure(409, "ALREADY_CURRENT", "the version is the scrap's current script");
pub(crate) const AI_NOT_CONFIGURED: Failure =
    failure(503, "AI_NOT_CONFIGURED", "the operator has not configured a model (`SVC_AI_*`)");
pub(crate) const NOT_PLATFORM_ADMIN: Failure =
    failure(403, "FORBIDDEN", "the caller (for a key, its owner) is not a platform admin");
pub(crate) const EMAIL_OFF: Failure =
    failure(503, "UNAVAILABLE", "email is off on this server (the operator sets `SVC_SMTP_URL`)");
pub(crate) const UNKNOWN_SCRAP_FILTER: Failure =
    failure(404, "NOT_FOUND", "the `scrap` filter names no scrap of the organization");
pub(crate) const XLSX_TOO_LARGE: Failure = failure(
    422,
    "VALIDATION",
    "`format=xlsx` for data a worksheet cannot hold (over 1,048,575 items or 16,384 columns; `field` is `format`)",
);
pub(crate) const PAGE_NOT_SHOT: Failure =
    failure(422, "VALIDATION", "the scrap's page could not be loaded or shot (`field` is `url`; the message says why)");
pub(crate) const NO_BROWSER_HERE: Failure =
    failure(503, "UNAVAILABLE", "this server has no browser in its process (`SVC_EMBEDDED_WORKER=false`)");
pub(crate) const INACTIVE_WEBHOOK: Failure =
    failure(422, "VALIDATION", "the webhook is inactive (`field` is `active`): activate it first");

pub(crate) const ROLE_REFUSED: Failure =
    failure(403, "FORBIDDEN", "the caller's role in the organization may not do this (the description names it)");
pub(crate) const LAST_OWNER: Failure =
    failure(409, "LAST_OWNER", "the change would leave the organization without an owner");
pub(crate) const ALREADY_MEMBER: Failure =
    failure(409, "ALREADY_MEMBER", "the address is already a member of the organization");
pub(crate) const INVITE_ELSEWHERE: Failure =
    failure(403, "FORBIDDEN", "the invitation is for another address than the caller's");
pub(crate) const INVITE_GONE: Failure =
    failure(404, "NOT_FOUND", "no invitation has this token: used, withdrawn, expired or never made");
pub(crate) const NOT_A_MEMBER: Failure =
    failure(403, "FORBIDDEN", "`organizationId` names an organization the user is not a member of");
pub(crate) const ALREADY_CONFIRMED: Failure =
    failure(409, "ALREADY_CONFIRMED", "the address receives already: a member's own, or confirmed");
pub(crate) const CONFIRMATION_RECENTLY_SENT: Failure =
    failure(409, "CONFIRMATION_RECENTLY_SENT", "a confirmation mail went to the address less than an hour ago");
pub(crate) const NO_EMAIL_TO_CONFIRM: Failure =
    failure(409, "EMAIL_OFF", "the server sends no email (`SVC_SMTP_URL` is not set): no confirmation can be mailed");
pub(crate) const CHANNEL_EXISTS: Failure =
    failure(409, "CHANNEL_EXISTS", "the organization already has a channel of that name");

const API_KEY: &str = "apiKey";
const SESSION: &str = "session";
const SESSION_COOKIE_SCHEME: &str = "sessionCookie";

const DESCRIPTION: &str = "The REST API of svc, a web-page extraction service. \
Send `Authorization: Bearer <credential>`: an API key (`svc_...`) or a session token (JWT, from \
`POST /api/auth/login`). Each operation says who may call it: `x-svc-auth` is `key` (an API key \
holding the scope in `x-svc-scope`, or a web session), `session` (a web session only: an API key \
gets 401) or `none`. Every error answers the `ErrorBody` shape; `x-svc-codes` on an error response \
lists the `code` values it can carry. Lists answer `{data, total, page, perPage}`.";

#[derive(OpenApi)]
#[openapi(
    info(title = "svc REST API", version = env!("CARGO_PKG_VERSION"), description = DESCRIPTION),
    paths(
        serve,
        routes::accounts::signup,
        routes::accounts::login,
        routes::accounts::me,
        routes::accounts::logout,
        routes::accounts::change_password,
        routes::accounts::sessions,
        routes::accounts::end_session,
        routes::accounts::end_all_sessions,
        routes::members::list,
        routes::members::set_role,
        routes::members::remove,
        routes::members::invite,
        routes::members::invites,
        routes::members::withdraw,
        routes::members::accept,
        routes::recipients::list,
        routes::recipients::resend,
        routes::organization::audit,
        routes::organization::settings,
        routes::organization::update_settings,
        routes::scraps::list,
        routes::scraps::create,
        routes::scraps::get,
        routes::scraps::update,
        routes::scraps::delete,
        routes::scraps::activities,
        routes::scraps::versions,
        routes::scraps::version,
        routes::scraps::restore_version,
        routes::banners::upload,
        routes::banners::remove,
        routes::banners::screenshot,
        routes::site_accounts::get_account,
        routes::site_accounts::put_account,
        routes::site_accounts::delete_account,
        routes::site_accounts::delete_session,
        routes::ai::wizard,
        routes::ai::generate,
        routes::ai::task,
        routes::runs::live_data,
        routes::runs::worker,
        routes::runs::load,
        routes::history::list,
        routes::history::get,
        routes::history::pages,
        routes::history::export,
        routes::announcements::announce,
        routes::keys::list,
        routes::keys::create,
        routes::keys::revoke,
        routes::channels::list,
        routes::channels::create,
        routes::channels::delete,
        routes::channels::test,
        routes::webhooks::list,
        routes::webhooks::create,
        routes::webhooks::get,
        routes::webhooks::update,
        routes::webhooks::delete,
        routes::webhooks::deliveries,
        routes::webhooks::redeliver,
    ),
    components(schemas(ErrorBody)),
    tags(
        (name = "auth", description = "Sign-up, log-in, sessions and the caller"),
        (name = "members", description = "Members of the organization, their roles, and invitations"),
        (name = "scraps", description = "Scraps: configured extraction jobs"),
        (name = "runs", description = "Triggering runs and a scrap's live data"),
        (name = "history", description = "History rows: one per run"),
        (name = "versions", description = "Versions of a scrap's script"),
        (name = "site accounts", description = "A scrap's site login and saved browser session"),
        (name = "ai", description = "AI tasks: the wizard and script generation"),
        (name = "organization", description = "The organization's audit log and settings (owners and admins)"),
        (name = "keys", description = "API keys"),
        (name = "webhooks", description = "Webhooks and their deliveries"),
        (name = "channels", description = "Saved chat channels (Slack, Discord, Teams, Telegram, ntfy, Mattermost, JSON) for alerts and results"),
        (name = "announcements", description = "Release announcements (platform admins)"),
        (name = "meta", description = "This document"),
    )
)]
struct Annotated;

/// Whether a route of the table belongs to the REST API, and so must have
/// an operation in the document.
pub(crate) fn is_documented(path: &str) -> bool {
    path.starts_with("/api/")
}

/// The document, built once.
static DOCUMENT: LazyLock<Value> = LazyLock::new(|| document(&routes::table()));

/// The OpenAPI document
///
/// This document: OpenAPI 3.1, generated from svc's code. `servers` is this
/// server's public URL.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    operation_id = "openapi",
    tag = "meta",
    responses((status = 200, description = "the OpenAPI 3.1 document", body = serde_json::Value))
)]
pub(crate) async fn serve(State(services): State<Arc<Services>>) -> Json<Value> {
    let mut document = DOCUMENT.clone();
    document["servers"] = json!([{"url": services.public_url()}]);
    Json(document)
}

/// The annotated operations completed from the rows of `table`.
fn document(table: &[RestRoute]) -> Value {
    let mut doc = serde_json::to_value(Annotated::openapi()).expect("the document is JSON");
    doc["components"]["securitySchemes"] = security_schemes();
    // Creations take the partial update's body with fields required.
    creation_body(&mut doc, "/api/scraps", "ScrapBody", "NewScrapBody", &["title", "url", "request"]);
    creation_body(&mut doc, "/api/developers/webhooks", "WebhookBody", "NewWebhookBody", &["url", "events"]);
    let mut operation_ids = HashSet::new();
    for route in table.iter().filter(|r| is_documented(r.path)) {
        let pointer =
            format!("/paths/{}/{}", route.path.replace('~', "~0").replace('/', "~1"), method_key(&route.method));
        // A route without an operation is reported by the api suite's check.
        if let Some(operation) = doc.pointer_mut(&pointer) {
            complete(operation, route);
            // `method(put, patch)` gives both methods one operation id.
            if let Some(id) = operation["operationId"].as_str().map(str::to_string)
                && !operation_ids.insert(id.clone())
            {
                operation["operationId"] = json!(format!("{id}{}", capitalized(&method_key(&route.method))));
            }
        }
    }
    doc
}

/// Points the `POST` of `path` at a copy of the body schema `from` named
/// `name`, in which `required` are required and refuse `null` (the server
/// refuses a creation without them, and takes `null` as absent).
fn creation_body(doc: &mut Value, path: &str, from: &str, name: &str, required: &[&str]) {
    let mut schema = doc["components"]["schemas"][from].clone();
    assert!(schema.is_object(), "no schema {from}");
    for field in required {
        let property = &mut schema["properties"][*field];
        assert!(property.is_object(), "{from} has no property {field}");
        if let Some(types) = property["type"].as_array_mut() {
            types.retain(|t| t != "null");
            if types.len() == 1 {
                property["type"] = types[0].clone();
            }
        }
    }
    schema["required"] = json!(required);
    doc["components"]["schemas"][name] = schema;
    let pointer = format!("/paths/{}/post/requestBody/content/application~1json/schema", path.replace('/', "~1"));
    let body = doc.pointer_mut(&pointer).unwrap_or_else(|| panic!("POST {path} has no JSON body"));
    *body = json!({"$ref": format!("#/components/schemas/{name}")});
}

fn method_key(method: &Method) -> String {
    method.as_str().to_ascii_lowercase()
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

fn security_schemes() -> Value {
    json!({
        API_KEY: {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "svc_ API key",
            "description": "An API key (`svc_` and 40 characters). Its scopes are the requirement's \
                list; a key created without scopes holds them all."
        },
        SESSION: {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": "A session token from `POST /api/auth/login` or `/api/auth/signup` (24 h)."
        },
        SESSION_COOKIE_SCHEME: {
            "type": "apiKey",
            "in": "cookie",
            "name": SESSION_COOKIE,
            "description": format!("The web app's session cookie. A request that changes something \
                must also come from svc's origin (`Origin`) and carry the session's CSRF token in `{CSRF_HEADER}`.")
        }
    })
}

/// Adds to an annotated operation what its row of the table says.
fn complete(operation: &mut Value, route: &RestRoute) {
    let (auth, security, rule) = match route.access {
        Access::Public => ("none", json!([]), "No credential needed.".to_string()),
        Access::Key(scope) => (
            "key",
            json!([{API_KEY: [scope.as_str()]}, {SESSION: []}, {SESSION_COOKIE_SCHEME: []}]),
            format!("An API key with scope `{}`, or a web session.", scope.as_str()),
        ),
        Access::Session => (
            "session",
            json!([{SESSION: []}, {SESSION_COOKIE_SCHEME: []}]),
            "A web session only (JWT or the web app's cookie): an API key gets 401.".to_string(),
        ),
    };
    operation["security"] = security;
    operation["x-svc-auth"] = json!(auth);
    if let Access::Key(scope) = route.access {
        operation["x-svc-scope"] = json!(scope.as_str());
    }
    let description = operation["description"].as_str().map(|d| format!("{d}\n\n")).unwrap_or_default();
    operation["description"] = json!(format!("{description}**Auth:** {rule}"));
    for parameter in operation.get_mut("parameters").and_then(Value::as_array_mut).into_iter().flatten() {
        if parameter["in"] == "path" {
            // Every path parameter of this API is an id (`parse_id`).
            parameter["schema"]["pattern"] = json!("^[0-9a-fA-F]{24}$");
        }
    }

    let mut by_status: BTreeMap<u16, Vec<Failure>> = BTreeMap::new();
    for failure in failures(route, operation) {
        let same = by_status.entry(failure.status).or_default();
        if !same.iter().any(|f| f.code == failure.code && f.when == failure.when) {
            same.push(failure);
        }
    }
    let responses = operation["responses"].as_object_mut().expect("an operation has responses");
    for (status, failures) in by_status {
        let previous = responses.insert(status.to_string(), error_response(status, &failures));
        assert!(previous.is_none(), "{} {}: status {status} is both annotated and a failure", route.method, route.path);
    }
}

/// Every failure of a route: those of its access, path ids, query and
/// body, its own, and those of every request.
fn failures(route: &RestRoute, operation: &Value) -> Vec<Failure> {
    let mut all = Vec::new();
    match route.access {
        Access::Public => {}
        Access::Key(_) => all.extend([UNAUTHORIZED, INSUFFICIENT_SCOPE]),
        Access::Session => all.extend([UNAUTHORIZED, KEY_REFUSED]),
    }
    let changes = ![Method::GET, Method::HEAD, Method::OPTIONS].contains(&route.method);
    if route.access != Access::Public && changes {
        all.push(CSRF);
    }
    let parameters = operation["parameters"].as_array().cloned().unwrap_or_default();
    if parameters.iter().any(|p| p["in"] == "path") {
        all.extend([BAD_ID, NOT_FOUND]);
    }
    if parameters.iter().any(|p| p["in"] == "query") {
        all.push(BAD_QUERY);
    }
    if operation.get("requestBody").is_some() {
        all.extend([INVALID_JSON, UNSUPPORTED_MEDIA_TYPE, BAD_BODY, PAYLOAD_TOO_LARGE, REQUEST_TIMEOUT]);
    }
    all.extend_from_slice(route.failures);
    all.extend([INTERNAL, UNAVAILABLE, TIMEOUT]);
    all
}

fn error_response(status: u16, failures: &[Failure]) -> Value {
    let description = failures.iter().map(|f| format!("- `{}`: {}", f.code, f.when)).collect::<Vec<_>>().join("\n");
    let mut codes: Vec<&str> = Vec::new();
    for failure in failures {
        if !codes.contains(&failure.code) {
            codes.push(failure.code);
        }
    }
    let mut response = json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
        "x-svc-codes": codes,
    });
    let header = |description: &str| json!({"description": description, "schema": {"type": "string"}});
    let headers = match status {
        401 => json!({"WWW-Authenticate": header("`Bearer`")}),
        403 if codes.contains(&INSUFFICIENT_SCOPE.code) => json!({"WWW-Authenticate": header(
            "with `INSUFFICIENT_SCOPE`: `Bearer error=\"insufficient_scope\", scope=\"<missing scopes>\"` (RFC 6750)"
        )}),
        429 => json!({
            "Retry-After": header("seconds to wait"),
            "RateLimit-Policy": header("`<limit>;w=<window seconds>`"),
            "RateLimit": header("`limit=<n>, remaining=<n>, reset=<seconds>`"),
        }),
        503 if codes.contains(&UNAVAILABLE.code) => {
            json!({"Retry-After": header("with `UNAVAILABLE`: seconds to wait")})
        }
        _ => Value::Null,
    };
    if !headers.is_null() {
        response["headers"] = headers;
    }
    response
}
