//! The 50-item page the run benchmarks load (`run-bench`, `warm-bench`),
//! and the extraction they run on it over DevTools.

use anyhow::{Result, bail};
use chromiumoxide::Page;
use chromiumoxide::cdp::js_protocol::runtime::{EvaluateParams, ExecutionContextId};

/// The page's items.
pub const ITEMS: usize = 50;

/// The page: 50 `<li>` items, one image and one web font.
pub fn html() -> String {
    let items: String = (0..ITEMS).map(|i| format!("<li class=\"item\">Item {i}</li>")).collect();
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Items</title><style>\
         @font-face {{ font-family: BenchFont; src: url(/font.woff2) format(\"woff2\"); }}\
         body {{ font-family: BenchFont, sans-serif; }}</style></head>\
         <body><h1>Items</h1><img src=\"/image.png\" width=\"64\" height=\"64\" alt=\"logo\">\
         <ul id=\"list\">{items}</ul></body></html>"
    )
}

/// Reads the items' texts in execution context `context` of `page`, and
/// fails unless there are all 50.
pub async fn extract(page: &Page, context: ExecutionContextId) -> Result<()> {
    let expression = "(async () => JSON.stringify([...document.querySelectorAll('li')].map(li => li.textContent)))()";
    let evaluated = page
        .execute(
            EvaluateParams::builder()
                .expression(expression)
                .context_id(context)
                .await_promise(true)
                .return_by_value(true)
                .build()
                .map_err(anyhow::Error::msg)?,
        )
        .await?;
    let json = evaluated.result.result.value.and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let items: Vec<String> = serde_json::from_str(&json)?;
    if items.len() != ITEMS {
        bail!("{} items", items.len());
    }
    Ok(())
}
