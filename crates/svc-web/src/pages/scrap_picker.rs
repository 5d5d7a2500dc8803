//! The organization's scraps as checkboxes, for a key's allow-list and a
//! webhook's scope, and scrap ids as titles in the lists of keys and
//! webhooks. The picker offers the newest [`SHOWN`] scraps by title (a note
//! says when there are more) plus every scrap already chosen, so that saving
//! a form never drops one.

use std::collections::HashMap;

use svc_domain::ScrapId;
use svc_service::paging::PageRequest;
use svc_service::{ServiceError, Services};

use crate::page_error::PageError;
use crate::signed_in::SignedIn;

/// How many scraps a picker offers.
pub(crate) const SHOWN: i64 = 100;

pub(crate) struct ScrapOption {
    pub id: String,
    pub title: String,
    pub checked: bool,
}

pub(crate) struct ScrapPicker {
    pub options: Vec<ScrapOption>,
    /// Scraps in the organization (more than offered when over [`SHOWN`]).
    pub total: i64,
    pub shown: i64,
}

/// A scrap named in a list: its title, or `None` when it no longer exists.
pub(crate) struct ScrapLink {
    pub id: String,
    pub title: Option<String>,
}

/// Titles of scraps by id, fetched once each.
#[derive(Default)]
pub(crate) struct ScrapTitles(HashMap<ScrapId, Option<String>>);

/// A scrap of the caller's organization, `None` when there is no such scrap.
async fn title_of(services: &Services, user: &SignedIn, id: ScrapId) -> Result<Option<String>, PageError> {
    match services.scraps.get(&user.principal(), id).await {
        Ok(scrap) => Ok(Some(scrap.title)),
        Err(ServiceError::NotFound(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

impl ScrapPicker {
    /// The picker with the scraps of `checked` (ids as the form sent them) ticked.
    pub async fn load(services: &Services, user: &SignedIn, checked: &[String]) -> Result<ScrapPicker, PageError> {
        let newest = services.scraps.list(&user.principal(), None, PageRequest::new(Some(1), Some(SHOWN))?).await?;
        let mut options: Vec<ScrapOption> = newest
            .items
            .into_iter()
            .map(|s| ScrapOption { id: s.id.to_string(), title: s.title, checked: false })
            .collect();
        options.sort_by_key(|o| o.title.to_lowercase());
        for raw in checked {
            let Some(id) = ScrapId::parse(raw) else { continue };
            if options.iter().any(|o| o.id == id.to_string()) {
                continue;
            }
            if let Some(title) = title_of(services, user, id).await? {
                options.push(ScrapOption { id: id.to_string(), title, checked: false });
            }
        }
        for option in &mut options {
            option.checked = checked.contains(&option.id);
        }
        Ok(ScrapPicker { options, total: newest.total, shown: SHOWN })
    }

    /// Whether the organization has scraps the picker does not offer.
    pub fn more(&self) -> bool {
        self.total > self.shown
    }

    /// The titles the picker already knows.
    pub fn titles(&self) -> ScrapTitles {
        ScrapTitles(
            self.options.iter().filter_map(|o| ScrapId::parse(&o.id).map(|id| (id, Some(o.title.clone())))).collect(),
        )
    }
}

impl ScrapTitles {
    /// `ids` as links with their titles (looked up when not known yet).
    pub async fn links(
        &mut self,
        services: &Services,
        user: &SignedIn,
        ids: &[ScrapId],
    ) -> Result<Vec<ScrapLink>, PageError> {
        let mut links = Vec::with_capacity(ids.len());
        for &id in ids {
            let title = match self.0.get(&id) {
                Some(known) => known.clone(),
                None => {
                    let found = title_of(services, user, id).await?;
                    self.0.insert(id, found.clone());
                    found
                }
            };
            links.push(ScrapLink { id: id.to_string(), title });
        }
        Ok(links)
    }
}
