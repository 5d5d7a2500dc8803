//! Request extractors: credentials, JSON bodies, ids and list queries, each
//! failing with an `ApiError` in the error shape of docs/decisions.md (Errors).

mod auth;
mod id;
mod json;
mod list_query;

pub(crate) use auth::{Caller, WebSession};
pub(crate) use id::parse_id;
pub(crate) use json::ApiJson;
pub(crate) use list_query::{ListQuery, Paging};
