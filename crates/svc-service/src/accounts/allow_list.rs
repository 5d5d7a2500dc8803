//! The scraps an API key or a webhook is limited to (its `scrapIds`), as the
//! caller wrote them, checked against the organization.

use svc_domain::{OrgId, ScrapId};
use svc_storage::Store;

use crate::{Result, ServiceError};

/// Parses `scrapIds` of a key or webhook body: 24-hex ids, each a scrap of
/// `org` (else 422 naming `scrapIds`); duplicates dropped.
pub(crate) async fn scrap_ids_in_org(store: &dyn Store, org: OrgId, raw: Vec<String>) -> Result<Vec<ScrapId>> {
    let mut ids = Vec::new();
    for s in &raw {
        let id = ScrapId::parse(s)
            .ok_or_else(|| ServiceError::validation("scrapIds", format!("`{s}` is not a 24-character hex id")))?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let existing = store.existing_scrap_ids(org, &ids).await?;
    if let Some(missing) = ids.iter().find(|id| !existing.contains(id)) {
        return Err(ServiceError::validation("scrapIds", format!("no scrap `{missing}` in this organization")));
    }
    Ok(ids)
}
