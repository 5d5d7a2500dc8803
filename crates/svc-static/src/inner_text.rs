//! `innerText` without a layout: the HTML standard's algorithm with each
//! element's `display` taken from its tag (the user-agent stylesheet) rather
//! than from the page's CSS.
//!
//! - Not rendered: `head`, `script`, `style`, `template`, `noscript`,
//!   `title`, `input type=hidden`, `audio` without `controls`, elements with
//!   a `hidden` attribute or an inline `display: none`, and a closed
//!   `<details>` but for its summary. The element asked about itself, when
//!   it or an ancestor is not rendered, answers its `textContent`, as
//!   browsers do.
//! - Replaced elements and form controls (`img`, `input`, `textarea`,
//!   `video`, `canvas`, `iframe`, `meter`, ...) are boxes without text on the
//!   line: the whitespace on either side of one does not collapse into the
//!   other side's, as in a browser ("Rated <img> by" has two spaces).
//!   `button` and `select` are inline blocks: their text (a select's
//!   options as lines, as in Chromium) with the whitespace around them kept.
//! - Whitespace collapses as CSS `white-space: normal` does (runs become one
//!   space, dropped at the start and end of a line), except inside `pre`,
//!   `textarea`, `listing` and `plaintext`.
//! - `br` is a line break; block elements (`div`, `li`, `h1`, `tr`, ...)
//!   start and end lines; `p` leaves a blank line around it; table cells of
//!   a row are separated by tabs.
//!
//! What it cannot know: CSS that hides, shows or re-flows elements
//! (`display: none` from a stylesheet, `text-transform`, `::before`
//! content), so such pages may differ from a browser's answer.

use ego_tree::NodeRef;
use ego_tree::iter::Edge;
use scraper::Node;

/// Elements that are not rendered (`display: none` in the user-agent stylesheet).
const NOT_RENDERED: &[&str] = &[
    "head", "script", "style", "template", "noscript", "title", "datalist", "meta", "link", "base", "param", "source",
    "track", "area", "map", "dialog",
];

/// Boxes on the line without text of their own (replaced elements, form controls).
const ATOMIC: &[&str] =
    &["img", "input", "textarea", "iframe", "object", "video", "audio", "canvas", "svg", "embed", "meter", "progress"];

/// Inline blocks of the user-agent stylesheet whose text is rendered.
const INLINE_BLOCKS: &[&str] = &["button", "select"];

/// Elements that are blocks in the user-agent stylesheet.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "center",
    "dd",
    "details",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "li",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "optgroup",
    "option",
    "plaintext",
    "pre",
    "search",
    "section",
    "summary",
    "table",
    "ul",
    "xmp",
];

/// Elements whose whitespace is kept as written.
const PREFORMATTED: &[&str] = &["pre", "textarea", "listing", "plaintext", "xmp"];

enum Item {
    Text(String),
    /// Text inside a preformatted element: whitespace kept.
    Kept(String),
    /// A required line break count (the standard's term).
    Breaks(usize),
    /// A literal string that is never collapsed (`\n` of `br`, `\t` between cells).
    Literal(&'static str),
    /// A box without text (an image, a form control): it keeps the
    /// whitespace on both of its sides.
    Atomic,
    /// The start and the end of an inline block (`button`, `select`).
    OpenBlock,
    CloseBlock,
}

fn tag<'a>(node: &NodeRef<'a, Node>) -> Option<&'a str> {
    node.value().as_element().map(|e| e.name())
}

fn is_hidden(node: &NodeRef<'_, Node>) -> bool {
    let Some(element) = node.value().as_element() else { return false };
    let name = element.name();
    if NOT_RENDERED.contains(&name) || element.attr("hidden").is_some() {
        return true;
    }
    if name == "input" && element.attr("type").is_some_and(|t| t.trim().eq_ignore_ascii_case("hidden")) {
        return true;
    }
    if name == "audio" && element.attr("controls").is_none() {
        return true;
    }
    if in_closed_details(node) {
        return true;
    }
    element.attr("style").is_some_and(|style| {
        let compact: String = style.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
        compact.split(';').any(|d| d == "display:none" || d == "display:none!important")
    })
}

/// Whether `node` is a child of a closed `<details>` other than its first
/// summary (what a closed `<details>` does not show).
fn in_closed_details(node: &NodeRef<'_, Node>) -> bool {
    let Some(parent) = node.parent() else { return false };
    if !is_closed_details(&parent) {
        return false;
    }
    let first_summary = parent.children().find(|c| tag(c) == Some("summary"));
    first_summary.is_none_or(|s| s.id() != node.id())
}

/// Whether `node` or an ancestor is not rendered (`display: none`).
fn not_rendered(node: &NodeRef<'_, Node>) -> bool {
    std::iter::successors(Some(*node), |n| n.parent()).any(|n| is_hidden(&n) && !in_closed_details(&n))
}

/// Whether a table row is followed by another rendered row of its table
/// (rows but the last end with a line feed).
fn has_next_row(row: &NodeRef<'_, Node>) -> bool {
    let rendered_row = |n: &NodeRef<'_, Node>| tag(n) == Some("tr") && !is_hidden(n);
    if row.next_siblings().any(|s| rendered_row(&s)) {
        return true;
    }
    let Some(section) = row.parent().filter(|p| matches!(tag(p), Some("tbody" | "thead" | "tfoot"))) else {
        return false;
    };
    section
        .next_siblings()
        .filter(|s| matches!(tag(s), Some("tbody" | "thead" | "tfoot")) && !is_hidden(s))
        .any(|s| s.children().any(|r| rendered_row(&r)))
}

/// Elements that start and end lines (the block-level boxes of the
/// user-agent stylesheet, and `br`).
fn is_block(node: &NodeRef<'_, Node>) -> bool {
    tag(node).is_some_and(|t| {
        BLOCKS.contains(&t) || matches!(t, "p" | "tr" | "td" | "th" | "br" | "table" | "tbody" | "thead" | "tfoot")
    })
}

/// What a scan of the line from an element meets first in `n`: `Some(true)`
/// when it is on the line (text, or an image or control) right next to the
/// element, `Some(false)` at a line's end or whitespace, `None` when `n`
/// shows nothing (the scan goes on). `forward`: after the element; else
/// before it, where text decides by its last character.
fn meets(n: NodeRef<'_, Node>, forward: bool, depth: usize) -> Option<bool> {
    match n.value() {
        Node::Text(t) => {
            let text: &str = &t.text;
            if forward {
                text.chars().any(|c| !is_collapsible(c)).then_some(true)
            } else {
                (!text.is_empty()).then(|| !text.ends_with(is_collapsible))
            }
        }
        Node::Element(e) => {
            if is_hidden(&n) {
                return None;
            }
            if ATOMIC.contains(&e.name()) || INLINE_BLOCKS.contains(&e.name()) {
                return Some(true);
            }
            if is_block(&n) {
                return Some(false);
            }
            // Deeply nested inline markup: undecided past a depth.
            if depth > 64 {
                return None;
            }
            if forward {
                n.children().find_map(|c| meets(c, forward, depth + 1))
            } else {
                n.children().rev().find_map(|c| meets(c, forward, depth + 1))
            }
        }
        _ => None,
    }
}

/// What `innerText` of an element inside a line sees of the line around it:
/// whether something rendered comes before it on its line without
/// whitespace in between (`before`), or after it (`after`). Whitespace at
/// an inline element's edges collapses against its neighbours, not against
/// the element's own edge.
fn line_context(node: &NodeRef<'_, Node>) -> (bool, bool) {
    if is_block(node) {
        return (false, false);
    }
    let scan = |forward: bool| -> bool {
        let mut current = *node;
        loop {
            let next = if forward { current.next_sibling() } else { current.prev_sibling() };
            match next {
                Some(sibling) => {
                    if let Some(decided) = meets(sibling, forward, 0) {
                        return decided;
                    }
                    current = sibling;
                }
                // Out of an inline parent: its siblings are on the line too.
                None => match current.parent() {
                    Some(parent) if parent.value().is_element() && !is_block(&parent) => current = parent,
                    _ => return false,
                },
            }
        }
    };
    (scan(false), scan(true))
}

/// `innerText` of the element `node`.
pub fn inner_text(node: NodeRef<'_, Node>) -> String {
    if std::iter::successors(Some(node), |n| n.parent()).any(|n| in_closed_details(&n)) && !not_rendered(&node) {
        // In a closed `<details>`, content is laid out but skipped: no text.
        return String::new();
    }
    if not_rendered(&node) {
        let mut out = String::new();
        for d in crate::document::descendants(node) {
            if let Node::Text(t) = d.value() {
                out.push_str(&t.text);
            }
        }
        return out;
    }
    let mut items = Vec::new();
    // Elements being skipped (not rendered) and preformatted, as open counts.
    let (mut skipping, mut pre) = (0usize, 0usize);
    for edge in node.traverse() {
        match edge {
            Edge::Open(n) => {
                if n.value().is_fragment() || (n != node && is_hidden(&n)) {
                    skipping += 1;
                    continue;
                }
                if skipping > 0 {
                    continue;
                }
                if n == node {
                    // The element's own line breaks are not its text's; its whitespace rule is.
                    pre += usize::from(tag(&n).is_some_and(|t| PREFORMATTED.contains(&t)));
                    continue;
                }
                match n.value() {
                    // Text directly in a closed `<details>` is not its summary.
                    Node::Text(_) if n.parent().is_some_and(|p| is_closed_details(&p)) => {}
                    Node::Text(t) if pre > 0 => items.push(Item::Kept(t.text.to_string())),
                    Node::Text(t) => items.push(Item::Text(t.text.to_string())),
                    Node::Element(e) => {
                        let name = e.name();
                        if ATOMIC.contains(&name) {
                            // Its contents (fallback text, a textarea's value) are not on the line.
                            items.push(Item::Atomic);
                            skipping += 1;
                            continue;
                        }
                        if PREFORMATTED.contains(&name) {
                            pre += 1;
                        }
                        match name {
                            "br" => items.push(Item::Literal("\n")),
                            "p" => items.push(Item::Breaks(2)),
                            "tr" => {}
                            _ if INLINE_BLOCKS.contains(&name) => items.push(Item::OpenBlock),
                            _ if BLOCKS.contains(&name) => items.push(Item::Breaks(1)),
                            _ => {}
                        }
                    }
                    _ => {}
                }
            }
            Edge::Close(n) => {
                if n.value().is_fragment()
                    || (n != node && (is_hidden(&n) || tag(&n).is_some_and(|t| ATOMIC.contains(&t))))
                {
                    skipping -= 1;
                    continue;
                }
                if skipping > 0 || n == node {
                    continue;
                }
                let Some(name) = tag(&n) else { continue };
                if PREFORMATTED.contains(&name) {
                    pre -= 1;
                }
                match name {
                    "p" => items.push(Item::Breaks(2)),
                    "tr" if has_next_row(&n) => items.push(Item::Literal("\n")),
                    "tr" => {}
                    "td" | "th" => {
                        let last_cell = n.next_siblings().all(|s| !matches!(tag(&s), Some("td" | "th")));
                        if !last_cell {
                            items.push(Item::Literal("\t"));
                        }
                    }
                    _ if INLINE_BLOCKS.contains(&name) => items.push(Item::CloseBlock),
                    _ if BLOCKS.contains(&name) => items.push(Item::Breaks(1)),
                    _ => {}
                }
            }
        }
    }
    let (before, after) = line_context(&node);
    render(items, before, after)
}

/// Joins the items: whitespace collapsed per line, required line breaks
/// merged (the largest count wins) and dropped at both ends.
/// `before` / `after`: the element's line has something rendered before /
/// after it (its edge whitespace is then kept).
fn render(items: Vec<Item>, before: bool, after: bool) -> String {
    let mut out = String::new();
    // Pending required breaks, and whether a collapsible space is pending.
    let mut breaks = 0usize;
    let mut space = false;
    // Whether the current line has text yet (spaces at a line start drop).
    let mut line_started = before;
    let mut anything = false;
    let flush_breaks = |out: &mut String, breaks: &mut usize, anything: bool| {
        if *breaks > 0 && anything {
            out.extend(std::iter::repeat_n('\n', *breaks));
        }
        *breaks = 0;
    };
    for item in items {
        match item {
            Item::Breaks(n) => {
                breaks = breaks.max(n);
                space = false;
                line_started = false;
            }
            Item::Literal(s) => {
                flush_breaks(&mut out, &mut breaks, anything);
                space = false;
                out.push_str(s);
                anything = true;
                line_started = s != "\n";
            }
            Item::Atomic | Item::OpenBlock => {
                // The whitespace before the box stays on its line.
                if space && line_started {
                    flush_breaks(&mut out, &mut breaks, anything);
                    out.push(' ');
                    anything = true;
                }
                space = false;
                // After an atomic box the line has begun; in an inline block, a new one begins.
                line_started = matches!(item, Item::Atomic);
            }
            Item::CloseBlock => {
                space = false;
                line_started = true;
            }
            Item::Kept(kept) => {
                if kept.is_empty() {
                    continue;
                }
                flush_breaks(&mut out, &mut breaks, anything);
                if space && line_started {
                    out.push(' ');
                }
                space = false;
                out.push_str(&kept);
                anything = true;
                line_started = !kept.ends_with('\n');
            }
            Item::Text(text) => {
                for (i, word) in text.split(is_collapsible).enumerate() {
                    if i > 0 {
                        space = true;
                    }
                    if word.is_empty() {
                        continue;
                    }
                    flush_breaks(&mut out, &mut breaks, anything);
                    if space && line_started {
                        out.push(' ');
                    }
                    space = false;
                    out.push_str(word);
                    anything = true;
                    line_started = true;
                }
            }
        }
    }
    if space && line_started && after {
        flush_breaks(&mut out, &mut breaks, anything);
        out.push(' ');
    }
    out
}

fn is_closed_details(node: &NodeRef<'_, Node>) -> bool {
    node.value().as_element().is_some_and(|e| e.name() == "details" && e.attr("open").is_none())
}

fn is_collapsible(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::document::Document;

    fn text(html: &str, css: &str) -> String {
        let url = url::Url::parse("https://example.com/").unwrap();
        let d = Document::parse(html, url, Instant::now() + Duration::from_secs(600)).unwrap();
        let found = d.select(d.root(), &crate::css::Selector::parse(css).unwrap(), false)[0];
        d.inner_text(found)
    }

    #[test]
    fn blocks_lines_and_whitespace() {
        assert_eq!(text("<ul id=l><li>Item 0</li>\n  <li> Item   1 </li></ul>", "#l"), "Item 0\nItem 1");
        assert_eq!(text("<div>a <b>b</b> c<br>d</div>", "div"), "a b c\nd");
        assert_eq!(text("<div><p>one</p><p>two</p></div>", "div"), "one\n\ntwo");
        assert_eq!(text("<div>  lead <span> x </span>  trail  </div>", "div"), "lead x trail");
        assert_eq!(text("<pre>  a\n  b</pre>", "pre"), "  a\n  b");
    }

    #[test]
    fn hidden_things_are_left_out() {
        let html = "<div id=d>a<script>s()</script><style>.x{}</style><span hidden>h</span>\
                    <span style='display: none'>n</span><template>t</template>b</div>";
        assert_eq!(text(html, "#d"), "ab");
        assert_eq!(text("<script>s()</script>", "script"), "s()", "an unrendered element answers its text");
    }

    #[test]
    fn images_and_controls_keep_the_whitespace_around_them() {
        assert_eq!(text("<div>Rated <img src=x> by users</div>", "div"), "Rated  by users");
        assert_eq!(text("<div><img src=x> Leading</div>", "div"), " Leading");
        assert_eq!(text("<div>Qty <input value=2> units <button> Go </button> now</div>", "div"), "Qty  units Go now");
        assert_eq!(text("<div>a<img src=x>b<input type=hidden>c</div>", "div"), "abc");
        assert_eq!(text("<div>Pick <select><option>A<option>B</select> done</div>", "div"), "Pick \nA\nB\n done");
        // An inline element's edge whitespace is kept when its line goes on.
        assert_eq!(text("<p><label>Name: <input></label> <label>Age</label></p>", "label"), "Name: ");
        assert_eq!(text("<p>a<span> b </span>c</p>", "span"), " b ");
        assert_eq!(text("<p>a <span> b </span> c</p>", "span"), "b ");
    }

    #[test]
    fn a_closed_details_shows_its_summary() {
        let html = "<div>A <details><summary>More</summary><p>body</p></details> Z</div>";
        assert_eq!(text(html, "div"), "A\nMore\nZ");
        assert_eq!(text(html, "details p"), "", "its content is laid out but skipped");
        assert_eq!(text("<details open><summary>S</summary>body</details>", "details"), "S\nbody");
    }

    #[test]
    fn tables_use_tabs_and_lines() {
        let html = "<table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table>";
        assert_eq!(text(html, "table"), "a\tb\nc\td");
        // A row ends with a line feed of its own, besides a block's line end.
        let html = "<table><tr><td><ul><li>x</ul></td></tr><tr style='display:none'><td>h</td></tr><tr><td>y</td></tr></table>";
        assert_eq!(text(html, "table"), "x\n\ny");
    }
}
