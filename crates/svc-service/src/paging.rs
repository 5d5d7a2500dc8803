//! Page requests of every list: `page` from 1, `perPage` 1..=100 (default 20).

use crate::ServiceError;

pub const DEFAULT_PER_PAGE: i64 = 20;
pub const MAX_PER_PAGE: i64 = 100;
pub const MAX_PAGE: i64 = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageRequest {
    pub page: i64,
    pub per_page: i64,
}

impl Default for PageRequest {
    fn default() -> Self {
        PageRequest { page: 1, per_page: DEFAULT_PER_PAGE }
    }
}

impl PageRequest {
    pub fn new(page: Option<i64>, per_page: Option<i64>) -> Result<Self, ServiceError> {
        let page = page.unwrap_or(1);
        let per_page = per_page.unwrap_or(DEFAULT_PER_PAGE);
        if !(1..=MAX_PAGE).contains(&page) {
            return Err(ServiceError::validation("page", format!("must be an integer from 1 to {MAX_PAGE}")));
        }
        if !(1..=MAX_PER_PAGE).contains(&per_page) {
            return Err(ServiceError::validation("perPage", format!("must be an integer from 1 to {MAX_PER_PAGE}")));
        }
        Ok(PageRequest { page, per_page })
    }

    pub fn offset(&self) -> i64 {
        (self.page - 1) * self.per_page
    }
}

/// One page of results with what the list envelope needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Paged<T> {
    pub items: Vec<T>,
    pub total: i64,
    pub page: PageRequest,
}

impl<T> Paged<T> {
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Paged<U> {
        Paged { items: self.items.into_iter().map(f).collect(), total: self.total, page: self.page }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_enforced() {
        assert_eq!(PageRequest::new(None, None).unwrap(), PageRequest { page: 1, per_page: 20 });
        assert_eq!(PageRequest::new(Some(3), Some(100)).unwrap().offset(), 200);
        assert!(PageRequest::new(Some(0), None).is_err());
        assert!(PageRequest::new(None, Some(0)).is_err());
        assert!(PageRequest::new(None, Some(101)).is_err());
        assert!(PageRequest::new(Some(MAX_PAGE + 1), None).is_err());
    }
}
