//! The webhook deliveries a finished run owes: one per active webhook of
//! its organization that wants its event and scrap, written in the
//! transaction that finishes the row (the dispatcher sends them).

use chrono::Utc;
use svc_domain::ObjectId;
use svc_domain::history::HistoryRow;
use svc_domain::webhook::Delivery;
use svc_storage::Store;

use crate::Result;
use crate::outbox::webhook_payload::stored_payload;

pub(crate) async fn run_deliveries(store: &dyn Store, row: &HistoryRow) -> Result<Vec<Delivery>> {
    let Some(scrap) = row.scrap_id else { return Ok(vec![]) };
    let (event, payload) = stored_payload(row);
    let hooks = store.active_webhooks(row.organization_id).await?;
    let now = Utc::now();
    Ok(hooks
        .into_iter()
        .filter(|h| h.wants(event, scrap))
        .map(|h| Delivery {
            id: ObjectId::new(),
            organization_id: row.organization_id,
            webhook_id: h.id,
            event,
            history_id: row.id,
            scrap_id: scrap,
            payload: payload.clone(),
            attempts: 0,
            created_at: now,
        })
        .collect())
}
