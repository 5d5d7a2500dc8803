//! Links to the neighbouring pages of a list (`templates/pager.html`).

/// Links to the neighbouring pages of a list.
pub(crate) struct Pager {
    pub page: i64,
    pub pages: i64,
    pub previous: Option<String>,
    pub next: Option<String>,
    /// The navigation's name for screen readers (two lists on a page need two names).
    pub label: &'static str,
}

impl Pager {
    /// `link(page)` makes the address of page `page`.
    pub fn new(page: i64, per_page: i64, total: i64, link: impl Fn(i64) -> String) -> Pager {
        let pages = ((total + per_page - 1) / per_page).max(1);
        Pager {
            page,
            pages,
            previous: (page > 1).then(|| link(page - 1)),
            next: (page < pages).then(|| link(page + 1)),
            label: "Pages",
        }
    }

    pub fn labelled(self, label: &'static str) -> Pager {
        Pager { label, ..self }
    }
}
