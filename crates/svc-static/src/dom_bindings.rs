//! The native side of the script's DOM: plain functions over [`Document`]
//! taking and answering node handles, strings and arrays. `js/prelude.js`
//! builds `document`, the node objects, `location` and `URL` over them; the
//! script never sees this object itself.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rquickjs::{Ctx, Exception, Function, Object};
use url::Url;

use crate::css::{Selector, SelectorError};
use crate::document::{Document, Handle};

/// The locale data `Intl` formats with (recorded from Chromium, `js/intl/record.sh`).
const INTL_DATA: &str = include_str!("js/intl/data.json");

/// One locale's data as JSON (`*`: what all locales share), or `None`.
fn intl_data(tag: &str) -> Option<String> {
    static DATA: std::sync::OnceLock<HashMap<String, String>> = std::sync::OnceLock::new();
    let data = DATA.get_or_init(|| {
        let mut out = HashMap::new();
        let Ok(serde_json::Value::Object(all)) = serde_json::from_str::<serde_json::Value>(INTL_DATA) else {
            return out;
        };
        let shared = serde_json::json!({ "keys": all.get("keys"), "currencyDigits": all.get("currencyDigits") });
        out.insert("*".to_string(), shared.to_string());
        if let Some(serde_json::Value::Object(locales)) = all.get("locales") {
            for (tag, entry) in locales {
                out.insert(tag.clone(), entry.to_string());
            }
        }
        out
    });
    data.get(tag).cloned()
}

/// Parsed selectors, kept for the realm's runs (one organization's: a
/// process never serves two): scripts query in loops, and pages of one
/// scrap with the same selectors.
const SELECTOR_CACHE: usize = 512;

struct Selectors(RefCell<HashMap<String, Rc<Selector>>>);

impl Selectors {
    fn get<'js>(&self, ctx: &Ctx<'js>, css: &str) -> rquickjs::Result<Rc<Selector>> {
        if let Some(found) = self.0.borrow().get(css) {
            return Ok(found.clone());
        }
        let parsed = Selector::parse(css).map_err(|e| {
            let shown: String = css.chars().take(200).collect();
            match e {
                SelectorError::Invalid => Exception::throw_syntax(ctx, &format!("'{shown}' is not a valid selector")),
                SelectorError::NeedsBrowser(what) => Exception::throw_message(
                    ctx,
                    &format!(
                        "the selector '{shown}': {what} is not supported by the static engine (it needs the browser's form validation); use the puppeteer engine for this scrap"
                    ),
                ),
            }
        })?;
        let parsed = Rc::new(parsed);
        let mut cache = self.0.borrow_mut();
        if cache.len() >= SELECTOR_CACHE {
            cache.clear();
        }
        cache.insert(css.to_string(), parsed.clone());
        Ok(parsed)
    }
}

/// The components of a URL, in the order `js/prelude.js` reads them:
/// href, protocol, username, password, host, hostname, port, pathname,
/// search, hash, origin.
fn url_parts(url: &Url) -> Vec<String> {
    let port = url.port().map(|p| p.to_string()).unwrap_or_default();
    let hostname = url.host_str().unwrap_or_default().to_string();
    let host = if port.is_empty() { hostname.clone() } else { format!("{hostname}:{port}") };
    let search = url.query().filter(|q| !q.is_empty()).map(|q| format!("?{q}")).unwrap_or_default();
    let hash = url.fragment().filter(|f| !f.is_empty()).map(|f| format!("#{f}")).unwrap_or_default();
    vec![
        url.as_str().to_string(),
        format!("{}:", url.scheme()),
        url.username().to_string(),
        url.password().unwrap_or_default().to_string(),
        host,
        hostname,
        port,
        url.path().to_string(),
        search,
        hash,
        url.origin().ascii_serialization(),
    ]
}

/// Changes one component of `href` as the WHATWG URL setters do; `None`
/// when `href` does not parse. An invalid value leaves the URL as it was.
fn set_url_part(href: &str, part: &str, value: &str) -> Option<Vec<String>> {
    let mut url = Url::parse(href).ok()?;
    let strip = |prefix: char| value.strip_prefix(prefix).unwrap_or(value).to_string();
    match part {
        "search" => url.set_query(Some(strip('?')).filter(|q| !q.is_empty()).as_deref()),
        "hash" => url.set_fragment(Some(strip('#')).filter(|f| !f.is_empty()).as_deref()),
        "pathname" => url.set_path(value),
        "hostname" => {
            let _ = url.set_host(Some(value));
        }
        "host" => {
            let (host, port) = match value.rsplit_once(':') {
                Some((h, p)) if !h.ends_with(']') || p.chars().all(|c| c.is_ascii_digit()) => (h, p.parse().ok()),
                _ => (value, None),
            };
            if url.set_host(Some(host)).is_ok() && port.is_some() {
                let _ = url.set_port(port);
            }
        }
        "port" => {
            let _ = url.set_port(if value.is_empty() { None } else { value.parse().ok() });
        }
        "protocol" => {
            let _ = url.set_scheme(value.trim_end_matches(':'));
        }
        "username" => {
            let _ = url.set_username(value);
        }
        "password" => {
            let _ = url.set_password(Some(value).filter(|p| !p.is_empty()));
        }
        _ => {}
    }
    Some(url_parts(&url))
}

thread_local! {
    /// The page of the run under way on this thread (`script_runtime` shows
    /// it for the run's length): what the natives answer about. The natives
    /// are made once per realm, before any page.
    static PAGE: RefCell<Option<Rc<Document>>> = const { RefCell::new(None) };
}

/// The page the natives answer about until the guard is dropped.
pub struct ShownPage(());

impl Drop for ShownPage {
    fn drop(&mut self) {
        PAGE.with_borrow_mut(|page| *page = None);
    }
}

/// Shows `document` to the natives, and sets `native`'s page properties
/// (`url`, `characterSet`) for the prelude; `root`, read once at set-up,
/// is every document's first handle.
pub fn show_page<'js>(native: &Object<'js>, document: Rc<Document>) -> rquickjs::Result<ShownPage> {
    native.set("url", document.url().as_str())?;
    native.set("characterSet", document.character_set())?;
    let root: Handle = native.get("root")?;
    if root != document.root() {
        return Err(Exception::throw_message(native.ctx(), "svc's DOM: the page's root is not the realm's"));
    }
    PAGE.with_borrow_mut(|page| *page = Some(document));
    Ok(ShownPage(()))
}

/// The page shown, or an error thrown when none is (a bug of svc).
fn page(ctx: &Ctx<'_>) -> rquickjs::Result<Rc<Document>> {
    match PAGE.with_borrow(|page| page.clone()) {
        Some(page) => Ok(page),
        None => Err(Exception::throw_message(ctx, "svc's DOM: no page is shown")),
    }
}

/// The native object handed to the prelude, over the page [`show_page`]
/// shows; `template` gives `root` (every document's is the same handle).
pub fn native<'js>(ctx: &Ctx<'js>, template: &Document) -> rquickjs::Result<Object<'js>> {
    let n = Object::new(ctx.clone())?;
    let selectors = Rc::new(Selectors(RefCell::new(HashMap::new())));
    let f = |ctx: &Ctx<'js>| ctx.clone();

    n.set("root", template.root())?;
    n.set("url", template.url().as_str())?;
    n.set("characterSet", template.character_set())?;
    n.set("nodeType", Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle| page(&ctx).map(|d| d.node_type(id))))?;
    n.set("name", Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle| page(&ctx).map(|d| d.name(id))))?;
    n.set("isHtml", Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle| page(&ctx).map(|d| d.is_html(id))))?;
    n.set("data", Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle| page(&ctx).map(|d| d.data(id))))?;
    n.set(
        "attr",
        Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle, name: String| page(&ctx).map(|d| d.attr(id, &name))),
    )?;
    n.set(
        "attrs",
        Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle| {
            let d = page(&ctx)?;
            Ok::<_, rquickjs::Error>(d.attrs(id).into_iter().map(|(k, v)| vec![k, v]).collect::<Vec<Vec<String>>>())
        }),
    )?;
    n.set("parent", Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle| page(&ctx).map(|d| d.parent(id))))?;
    n.set(
        "children",
        Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle, elements: bool| {
            let d = page(&ctx)?;
            let all = d.children(id);
            Ok::<_, rquickjs::Error>(if elements {
                all.into_iter().filter(|c| d.node_type(*c) == crate::document::node_type::ELEMENT).collect()
            } else {
                all
            })
        }),
    )?;
    n.set(
        "sibling",
        Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle, forward: bool, elements: bool| {
            page(&ctx).map(|d| d.sibling(id, forward, elements))
        }),
    )?;
    n.set("text", Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle| page(&ctx).map(|d| d.text_content(id))))?;
    n.set("innerText", Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle| page(&ctx).map(|d| d.inner_text(id))))?;
    n.set(
        "html",
        Function::new(f(ctx), |ctx: Ctx<'js>, id: Handle, outer: bool| page(&ctx).map(|d| d.html(id, outer))),
    )?;
    let s = selectors.clone();
    n.set(
        "select",
        Function::new(f(ctx), move |ctx: Ctx<'js>, id: Handle, css: String, all: bool| {
            let selector = s.get(&ctx, &css)?;
            page(&ctx).map(|d| d.select(id, &selector, all))
        }),
    )?;
    let s = selectors.clone();
    n.set(
        "matches",
        Function::new(f(ctx), move |ctx: Ctx<'js>, id: Handle, css: String| {
            let selector = s.get(&ctx, &css)?;
            page(&ctx).map(|d| d.matches(id, &selector))
        }),
    )?;
    let s = selectors;
    n.set(
        "closest",
        Function::new(f(ctx), move |ctx: Ctx<'js>, id: Handle, css: String| {
            let selector = s.get(&ctx, &css)?;
            page(&ctx).map(|d| d.closest(id, &selector))
        }),
    )?;
    n.set(
        "byId",
        Function::new(f(ctx), |ctx: Ctx<'js>, scope: Handle, id: String| page(&ctx).map(|d| d.by_id(scope, &id))),
    )?;
    n.set(
        "byClass",
        Function::new(f(ctx), |ctx: Ctx<'js>, scope: Handle, names: String| {
            page(&ctx).map(|d| d.by_class(scope, &names))
        }),
    )?;
    n.set(
        "byTag",
        Function::new(f(ctx), |ctx: Ctx<'js>, scope: Handle, name: String| page(&ctx).map(|d| d.by_tag(scope, &name))),
    )?;
    n.set("byName", Function::new(f(ctx), |ctx: Ctx<'js>, name: String| page(&ctx).map(|d| d.by_name(&name))))?;
    n.set(
        "contains",
        Function::new(f(ctx), |ctx: Ctx<'js>, a: Handle, b: Handle| page(&ctx).map(|d| d.contains(a, b))),
    )?;
    n.set("resolve", Function::new(f(ctx), |ctx: Ctx<'js>, url: String| page(&ctx).map(|d| d.resolve(&url))))?;
    n.set("baseUrl", Function::new(f(ctx), |ctx: Ctx<'js>| page(&ctx).map(|d| d.resolve("").unwrap_or_default())))?;
    n.set(
        "parseUrl",
        Function::new(f(ctx), |href: String, base: Option<String>| {
            let parsed = match base {
                Some(base) => Url::parse(&base).and_then(|b| b.join(&href)),
                None => Url::parse(&href),
            };
            parsed.ok().map(|u| url_parts(&u))
        }),
    )?;
    n.set(
        "members",
        Function::new(f(ctx), |ctx: Ctx<'js>, kit: Object<'js>, prototypes: rquickjs::Array<'js>| {
            crate::dom_members::define(ctx, kit, prototypes)
        }),
    )?;
    // `target`'s data properties of `source`'s names and values, not
    // enumerable (as the globals are): without a descriptor object each.
    n.set(
        "hide",
        Function::new(f(ctx), |target: Object<'js>, source: Object<'js>| -> rquickjs::Result<()> {
            for entry in source.props::<rquickjs::Atom<'js>, rquickjs::Value<'js>>() {
                let (name, value) = entry?;
                target.prop(name, rquickjs::object::Property::from(value).writable().configurable())?;
            }
            Ok(())
        }),
    )?;
    n.set("intlModule", Function::new(f(ctx), |ctx: Ctx<'js>| crate::script_runtime::intl_module(&ctx)))?;
    n.set("intlData", Function::new(f(ctx), |tag: String| intl_data(&tag)))?;
    n.set(
        "setUrl",
        Function::new(f(ctx), |href: String, part: String, value: String| set_url_part(&href, &part, &value)),
    )?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_parts_follow_the_whatwg_shapes() {
        let parts = url_parts(&Url::parse("https://u:p@Example.com:8443/a/b?x=1#h").unwrap());
        assert_eq!(
            parts,
            [
                "https://u:p@example.com:8443/a/b?x=1#h",
                "https:",
                "u",
                "p",
                "example.com:8443",
                "example.com",
                "8443",
                "/a/b",
                "?x=1",
                "#h",
                "https://example.com:8443"
            ]
        );
        let parts = url_parts(&Url::parse("http://example.com:80/?#").unwrap());
        assert_eq!((parts[6].as_str(), parts[8].as_str(), parts[9].as_str()), ("", "", ""));
        let set = set_url_part("https://example.com/a?x=1", "search", "?y=2").unwrap();
        assert_eq!(set[0], "https://example.com/a?y=2");
    }
}
