//! The 50-item page the run benchmarks load (`run-bench`, `warm-bench`),
//! and the extraction they run on it over DevTools.

use anyhow::{Result, bail};
use chromiumoxide::Page;
use chromiumoxide::cdp::js_protocol::runtime::{EvaluateParams, ExecutionContextId};

/// The page's items.
pub const ITEMS: usize = 50;

/// A 1x1 PNG (the page's image).
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49,
    0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0x60, 0xf8, 0x5f, 0x0f, 0x00, 0x02, 0x87, 0x01, 0x80, 0xeb, 0x47, 0xba,
    0x92, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

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
