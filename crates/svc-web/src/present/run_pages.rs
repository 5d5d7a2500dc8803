//! The pages of a crawl's run, as the run page and the editor's test run
//! list them: what became of each (a chip), its label, depth, items, time,
//! URL and why it failed or was skipped.

use svc_domain::run_page::{PageStatus, RunPage};
use svc_service::runs::PageRecord;

use super::run_status::Chip;
use super::when::duration_ms;

/// One page in the list.
#[derive(Clone, Debug, PartialEq)]
pub struct PageLine {
    pub chip: Chip,
    pub label: String,
    pub depth: i64,
    pub items: i64,
    /// `None` for a page that did not run.
    pub time: Option<String>,
    pub url: String,
    pub error: Option<String>,
}

pub fn chip(status: PageStatus) -> Chip {
    match status {
        PageStatus::Ok => Chip { class: "success", label: "OK" },
        PageStatus::Error => Chip { class: "error", label: "Error" },
        PageStatus::SkippedRobots => Chip { class: "skipped", label: "Skipped: robots.txt" },
        PageStatus::SkippedLimit => Chip { class: "skipped", label: "Skipped: limit" },
    }
}

fn line(
    status: PageStatus,
    label: Option<&str>,
    depth: i64,
    items: i64,
    ms: i64,
    url: &str,
    error: Option<&str>,
) -> PageLine {
    let ran = matches!(status, PageStatus::Ok | PageStatus::Error);
    PageLine {
        chip: chip(status),
        label: label.unwrap_or("").to_string(),
        depth,
        items,
        time: ran.then(|| duration_ms(ms)),
        url: url.to_string(),
        error: error.map(str::to_string),
    }
}

impl From<&RunPage> for PageLine {
    fn from(p: &RunPage) -> Self {
        line(p.status, p.label.as_deref(), p.depth, p.items, p.duration_ms, &p.url, p.error.as_deref())
    }
}

impl From<&PageRecord> for PageLine {
    fn from(p: &PageRecord) -> Self {
        line(p.status, p.label.as_deref(), i64::from(p.depth), p.items, p.duration_ms, &p.url, p.error.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_status_reads_as_such() {
        let record = PageRecord {
            url: "https://shop.example/item/3".into(),
            label: Some("detail".into()),
            depth: 2,
            status: PageStatus::SkippedRobots,
            items: 0,
            duration_ms: 0,
            error: Some("robots.txt disallows it".into()),
        };
        let shown = PageLine::from(&record);
        assert_eq!((shown.chip.label, shown.time, shown.depth), ("Skipped: robots.txt", None, 2));
        let ran = PageLine::from(&PageRecord { status: PageStatus::Ok, duration_ms: 850, items: 4, ..record });
        assert_eq!((ran.chip.class, ran.time.as_deref(), ran.items), ("success", Some("850 ms"), 4));
        assert_eq!(chip(PageStatus::SkippedLimit).label, "Skipped: limit");
        assert_eq!(chip(PageStatus::Error).class, "error");
    }
}
