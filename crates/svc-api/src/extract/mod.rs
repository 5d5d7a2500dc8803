//! Request extractors: credentials, JSON bodies, path ids and queries, each
//! failing with an `ApiError` in the error shape of docs/decisions.md (Errors).

mod auth;
mod id;
mod json;
mod list_query;
mod query;

pub(crate) use auth::{Caller, TriggerCaller, WebSession};
pub(crate) use id::{PathId, PathIds, parse_id};
pub(crate) use json::ApiJson;
pub(crate) use list_query::{ListQuery, Paging};
pub(crate) use query::ApiQuery;
