//! A scrap's feed ([`svc_service::outbox::feeds::Feed`]) as Atom (RFC 4287)
//! and as RSS 2.0, written by the `atom_syndication` and `rss` crates. Each
//! entry is a successful run that changed something: its title says how
//! much (`2 added, 1 changed`), its link is the run page, its id the run's
//! (`urn:svc:run:<id>`, the same in both formats), and its content an HTML
//! summary of the items added, removed and changed. Text is stripped of
//! the characters XML 1.0 cannot hold (the crates escape the rest).

use atom_syndication as atom;
use chrono::{DateTime, FixedOffset, Utc};
use svc_service::outbox::feeds::{Feed, FeedEntry, ItemList};

/// What a feed generator says it is.
const GENERATOR: &str = "svc";

/// `text` without the characters XML 1.0 does not allow (most C0 controls,
/// U+FFFE, U+FFFF); a run's data may hold them.
pub fn xml_text(text: &str) -> String {
    text.chars()
        .filter(|c| matches!(*c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}'))
        .collect()
}

/// HTML with `text` escaped (and stripped for XML).
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in xml_text(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn list(out: &mut String, heading: &str, items: &ItemList) {
    if items.total == 0 {
        return;
    }
    out.push_str(&format!("<h3>{heading} ({})</h3><ul>", items.total));
    for item in &items.shown {
        out.push_str(&format!("<li><code>{}</code></li>", escaped(item)));
    }
    out.push_str("</ul>");
    let left = items.total - items.shown.len();
    if left > 0 {
        out.push_str(&format!("<p>and {left} more.</p>"));
    }
}

/// The entry's content: an HTML summary of what changed.
pub fn entry_html(entry: &FeedEntry) -> String {
    let mut out = String::new();
    let run = format!("<a href=\"{}\">run</a>", escaped(&entry.run_url));
    match &entry.previous_run_url {
        Some(previous) => out.push_str(&format!(
            "<p>This {run} ({} items) compared with the <a href=\"{}\">previous successful run</a>{}.</p>",
            entry.items,
            escaped(previous),
            entry.key.as_deref().map(|k| format!(", items matched on <code>{}</code>", escaped(k))).unwrap_or_default()
        )),
        None => out.push_str(&format!("<p>The scrap's first successful {run}: {} items.</p>", entry.items)),
    }
    if entry.not_compared {
        out.push_str("<p>The data is too large to compare here: open the run to see it.</p>");
        return out;
    }
    list(&mut out, "Added", &entry.added);
    list(&mut out, "Removed", &entry.removed);
    if entry.changed_total > 0 {
        out.push_str(&format!("<h3>Changed ({})</h3><ul>", entry.changed_total));
        for item in &entry.changed {
            out.push_str(&format!("<li><code>{}</code>: ", escaped(&item.key_value)));
            let fields: Vec<String> = item
                .fields
                .iter()
                .map(|f| {
                    let side = |v: &Option<String>| match v {
                        Some(v) => format!("<code>{}</code>", escaped(v)),
                        None => "(none)".into(),
                    };
                    format!("{} {} → {}", escaped(&f.field), side(&f.before), side(&f.after))
                })
                .collect();
            out.push_str(&fields.join("; "));
            out.push_str("</li>");
        }
        out.push_str("</ul>");
        let left = entry.changed_total - entry.changed.len();
        if left > 0 {
            out.push_str(&format!("<p>and {left} more.</p>"));
        }
    }
    out
}

fn fixed(t: DateTime<Utc>) -> DateTime<FixedOffset> {
    t.fixed_offset()
}

fn entry_id(entry: &FeedEntry) -> String {
    format!("urn:svc:run:{}", entry.run_id)
}

fn title(feed: &Feed) -> String {
    xml_text(&format!("{}: changes", feed.title))
}

fn subtitle(feed: &Feed) -> String {
    xml_text(&format!("What changed between the successful runs of the scrap {} ({})", feed.title, feed.target_url))
}

fn link(href: &str, rel: &str, mime: Option<&str>) -> atom::Link {
    let mut link = atom::Link::default();
    link.set_href(xml_text(href));
    link.set_rel(rel);
    link.set_mime_type(mime.map(str::to_string));
    link
}

/// The feed as an Atom document.
pub fn atom(feed: &Feed) -> String {
    let mut doc = atom::Feed::default();
    doc.set_title(atom::Text::plain(title(feed)));
    doc.set_subtitle(Some(atom::Text::plain(subtitle(feed))));
    doc.set_id(format!("urn:svc:scrap:{}:changes", feed.scrap_id));
    doc.set_updated(fixed(feed.updated));
    doc.set_links(vec![
        link(&feed.address.atom_url, "self", Some("application/atom+xml")),
        link(&feed.scrap_url, "alternate", Some("text/html")),
    ]);
    let mut generator = atom::Generator::default();
    generator.set_value(GENERATOR);
    doc.set_generator(Some(generator));
    let mut author = atom::Person::default();
    author.set_name(GENERATOR);
    doc.set_authors(vec![author]);
    let entries = feed
        .entries
        .iter()
        .map(|e| {
            let mut entry = atom::Entry::default();
            entry.set_title(atom::Text::plain(xml_text(&e.summary())));
            entry.set_id(entry_id(e));
            entry.set_updated(fixed(e.at));
            entry.set_published(Some(fixed(e.at)));
            entry.set_links(vec![link(&e.run_url, "alternate", Some("text/html"))]);
            let mut content = atom::Content::default();
            content.set_content_type(Some("html".to_string()));
            content.set_value(Some(entry_html(e)));
            entry.set_content(Some(content));
            entry
        })
        .collect::<Vec<_>>();
    doc.set_entries(entries);
    doc.to_string()
}

/// The feed as an RSS 2.0 document.
pub fn rss(feed: &Feed) -> String {
    let mut channel = rss::Channel::default();
    channel.set_title(title(feed));
    channel.set_link(xml_text(&feed.scrap_url));
    channel.set_description(subtitle(feed));
    channel.set_generator(Some(GENERATOR.to_string()));
    channel.set_last_build_date(Some(feed.updated.to_rfc2822()));
    let items = feed
        .entries
        .iter()
        .map(|e| {
            let mut item = rss::Item::default();
            item.set_title(Some(xml_text(&e.summary())));
            item.set_link(Some(xml_text(&e.run_url)));
            let mut guid = rss::Guid::default();
            guid.set_value(entry_id(e));
            guid.set_permalink(false);
            item.set_guid(Some(guid));
            item.set_pub_date(Some(e.at.to_rfc2822()));
            item.set_description(Some(entry_html(e)));
            item
        })
        .collect::<Vec<_>>();
    channel.set_items(items);
    channel.to_string()
}

#[cfg(test)]
mod tests {
    use svc_domain::{HistoryId, ScrapId};
    use svc_service::outbox::feeds::{ChangedItem, FeedAddress, FieldChange};

    use super::*;

    fn feed() -> Feed {
        let run = HistoryId::new();
        let at = DateTime::parse_from_rfc3339("2026-11-27T10:00:00Z").unwrap().with_timezone(&Utc);
        Feed {
            scrap_id: ScrapId::new(),
            title: "Prices <&> \u{1}shop".into(),
            target_url: "https://shop.example/?a=1&b=2".into(),
            scrap_url: "https://svc.example/scraps/x".into(),
            address: FeedAddress {
                token: "feed_x".into(),
                atom_url: "https://svc.example/scraps/x/feed.atom?token=feed_x".into(),
                rss_url: "https://svc.example/scraps/x/feed.rss?token=feed_x".into(),
                since: at,
            },
            updated: at,
            entries: vec![FeedEntry {
                run_id: run,
                run_url: format!("https://svc.example/scraps/x/history/{run}"),
                at,
                items: 2,
                previous_run_id: Some(HistoryId::new()),
                previous_run_url: Some("https://svc.example/scraps/x/history/y".into()),
                key: Some("id".into()),
                added: ItemList { total: 3, shown: vec!["<script>alert(1)</script>".into()] },
                removed: ItemList::default(),
                changed: vec![ChangedItem {
                    key_value: "1".into(),
                    fields: vec![FieldChange { field: "price".into(), before: Some("1".into()), after: None }],
                }],
                changed_total: 1,
                not_compared: false,
            }],
        }
    }

    #[test]
    fn xml_text_keeps_what_xml_holds() {
        assert_eq!(xml_text("a\u{0}b\u{1}c\td\ne\u{FFFE}é😀"), "abc\td\neé😀");
    }

    #[test]
    fn entry_html_escapes_the_data() {
        let html = entry_html(&feed().entries[0]);
        assert!(html.contains("<h3>Added (3)</h3>"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !html.contains("<script>"), "{html}");
        assert!(html.contains("and 2 more.") && html.contains("price <code>1</code> → (none)"), "{html}");
    }

    #[test]
    fn both_documents_carry_the_entry() {
        let f = feed();
        let atom = atom(&f);
        assert!(atom.contains("<feed") && atom.contains("http://www.w3.org/2005/Atom"), "{atom}");
        assert!(atom.contains(&format!("urn:svc:run:{}", f.entries[0].run_id)));
        assert!(atom.contains("Prices &lt;&amp;&gt; shop: changes"), "{atom}");
        assert!(atom.contains("1 added") || atom.contains("3 added"), "{atom}");
        assert!(!atom.contains('\u{1}'));
        let rss = rss(&f);
        assert!(rss.contains("<rss") && rss.contains("version=\"2.0\""), "{rss}");
        assert!(rss.contains("Fri, 27 Nov 2026 10:00:00"), "{rss}");
        assert!(rss.contains(&format!("urn:svc:run:{}", f.entries[0].run_id)));
    }
}
