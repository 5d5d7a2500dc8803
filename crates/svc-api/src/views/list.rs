use serde::Serialize;
use svc_service::paging::Paged;

/// `{"data": [...], "total": N, "page": P, "perPage": PP}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListView<T> {
    data: Vec<T>,
    total: i64,
    page: i64,
    per_page: i64,
}

impl<T> ListView<T> {
    pub(crate) fn new<U>(paged: Paged<U>, view: impl FnMut(U) -> T) -> Self {
        let page = paged.page;
        ListView { data: paged.items.into_iter().map(view).collect(), total: paged.total, page: page.page, per_page: page.per_page }
    }
}
