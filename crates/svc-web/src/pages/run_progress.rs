//! `/scraps/:id/history/:historyId/progress`: where a run is (`queued`,
//! `running` or `finished`), for the page script that follows Run now. The
//! finished row itself is read from REST (`/api/historys/:id`), so the page
//! shows exactly what the API gives.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};
use svc_domain::{HistoryId, ScrapId};
use svc_service::runs::RunProgress;
use svc_service::{ServiceError, Services};

use crate::page_error::PageError;
use crate::path_id::PathIds;
use crate::signed_in::SignedIn;

pub(crate) async fn progress(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathIds(scrap, history_id): PathIds<ScrapId, HistoryId>,
) -> Result<Json<Value>, PageError> {
    let state = match services.runs.progress(&user.principal(), history_id).await? {
        RunProgress::Queued => "queued",
        RunProgress::Running => "running",
        RunProgress::Finished(view) if view.row.scrap_id == Some(scrap) => "finished",
        RunProgress::Finished(_) => return Err(ServiceError::NotFound("run").into()),
    };
    Ok(Json(json!({ "state": state })))
}
