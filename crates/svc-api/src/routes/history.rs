use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use svc_service::Services;

use crate::ApiError;
use crate::extract::{Caller, ListQuery, parse_id};
use crate::views::{self, HistoryRowView, ListView};

pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    query: ListQuery,
) -> Result<Json<ListView<HistoryRowView>>, ApiError> {
    let found = services.history.list(&principal, query.scrap, query.page).await?;
    Ok(Json(views::list(found, views::history_row)))
}

pub(crate) async fn get(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    Path(id): Path<String>,
) -> Result<Json<HistoryRowView>, ApiError> {
    let id = parse_id("id", &id)?;
    Ok(Json(views::history_row(services.history.get(&principal, id).await?)))
}
