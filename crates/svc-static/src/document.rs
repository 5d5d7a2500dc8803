//! The page as the script sees it: the HTML parsed by html5ever into
//! scraper's tree (the browser-grade HTML5 parser, so implied and misnested
//! tags end up where a browser puts them), with CSS selectors from
//! [`crate::css`] (over the `selectors` crate, the one Servo uses). Read-only: the static engine runs
//! no page scripts, and the user's script may not change the page.
//!
//! Nodes are handed to JavaScript as numbers ([`Handle`]), indexes into a
//! table built once after parsing.

use std::collections::HashMap;
use std::time::Instant;

use ego_tree::NodeId;
use html5ever::serialize::{SerializeOpts, TraversalScope};
use html5ever::tendril::{StrTendril, TendrilSink};
use scraper::{ElementRef, Html, HtmlTreeSink, Node};
use url::Url;

use crate::css::{Env, Matcher, Selector};
use crate::error::StaticError;

/// A node as JavaScript knows it.
pub type Handle = u32;

/// HTML is fed to the parser in chunks of this many bytes, the deadline
/// checked between two (a page nested deeply enough to make the tree
/// builder slow ends at the run timeout, not later).
const PARSE_CHUNK: usize = 16 * 1024;

/// DOM node types, as `Node.nodeType` numbers them.
pub mod node_type {
    pub const ELEMENT: u8 = 1;
    pub const TEXT: u8 = 3;
    pub const PROCESSING_INSTRUCTION: u8 = 7;
    pub const COMMENT: u8 = 8;
    pub const DOCUMENT: u8 = 9;
    pub const DOCUMENT_TYPE: u8 = 10;
    pub const DOCUMENT_FRAGMENT: u8 = 11;
}

pub struct Document {
    html: Html,
    /// `Handle` → node.
    nodes: Vec<NodeId>,
    /// Node → `Handle`.
    handles: HashMap<NodeId, Handle>,
    /// The document's URL (after redirects).
    url: Url,
    /// Where relative URLs resolve: the first `<base href>`, else `url`.
    base: Url,
    /// What selectors match against beside the tree (`:target`, quirks, ...).
    env: Env,
    /// The encoding the page was read in: `document.characterSet`, and how
    /// the queries of the page's relative URLs are percent-encoded.
    encoding: &'static encoding_rs::Encoding,
}

impl Document {
    /// Parses `html`, the page at `url`; fails only when `deadline` passes.
    pub fn parse(html: &str, url: Url, deadline: Instant) -> Result<Document, StaticError> {
        let mut parser = html5ever::parse_document(HtmlTreeSink::new(Html::new_document()), Default::default());
        let mut rest = html;
        while !rest.is_empty() {
            if Instant::now() >= deadline {
                return Err(StaticError::ParseTimedOut);
            }
            let mut at = rest.len().min(PARSE_CHUNK);
            while !rest.is_char_boundary(at) {
                at += 1;
            }
            parser.process(StrTendril::from_slice(&rest[..at]));
            rest = &rest[at..];
        }
        let html = parser.finish();
        let nodes: Vec<NodeId> = html.tree.nodes().map(|n| n.id()).collect();
        let handles = nodes.iter().enumerate().map(|(i, id)| (*id, i as Handle)).collect();
        let env = Env::new(&html, url.fragment());
        let mut document = Document { html, nodes, handles, base: url.clone(), url, env, encoding: encoding_rs::UTF_8 };
        document.base = document.base_url();
        Ok(document)
    }

    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The page as read in the encoding labelled `label` (UTF-8 when the
    /// label is unknown).
    pub fn with_encoding(mut self, label: &str) -> Document {
        self.encoding = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap_or(encoding_rs::UTF_8);
        self
    }

    /// `document.characterSet`: the encoding's name (`UTF-8`, `windows-1252`, ...).
    pub fn character_set(&self) -> &'static str {
        self.encoding.name()
    }

    /// The document node.
    pub fn root(&self) -> Handle {
        self.handle(self.html.tree.root().id())
    }

    fn handle(&self, id: NodeId) -> Handle {
        self.handles[&id]
    }

    fn node(&self, handle: Handle) -> Option<ego_tree::NodeRef<'_, Node>> {
        self.html.tree.get(*self.nodes.get(handle as usize)?)
    }

    fn element(&self, handle: Handle) -> Option<ElementRef<'_>> {
        self.node(handle).and_then(ElementRef::wrap)
    }

    fn base_url(&self) -> Url {
        let href = self.html.root_element().descendent_elements().find_map(|e| {
            let element = e.value();
            (element.name() == "base").then(|| element.attr("href")).flatten()
        });
        href.and_then(|h| self.url.join(h).ok()).unwrap_or_else(|| self.url.clone())
    }

    /// `Node.nodeType`; 0 for an unknown handle.
    pub fn node_type(&self, handle: Handle) -> u8 {
        match self.node(handle).map(|n| n.value()) {
            Some(Node::Element(_)) => node_type::ELEMENT,
            Some(Node::Text(_)) => node_type::TEXT,
            Some(Node::Comment(_)) => node_type::COMMENT,
            Some(Node::Document) => node_type::DOCUMENT,
            Some(Node::Doctype(_)) => node_type::DOCUMENT_TYPE,
            Some(Node::Fragment) => node_type::DOCUMENT_FRAGMENT,
            Some(Node::ProcessingInstruction(_)) => node_type::PROCESSING_INSTRUCTION,
            None => 0,
        }
    }

    /// An element's local name (lowercase for HTML), a doctype's name.
    pub fn name(&self, handle: Handle) -> String {
        match self.node(handle).map(|n| n.value()) {
            Some(Node::Element(e)) => e.name().to_string(),
            Some(Node::Doctype(d)) => d.name().to_string(),
            Some(Node::ProcessingInstruction(p)) => p.target.to_string(),
            _ => String::new(),
        }
    }

    /// Whether an element is in the HTML namespace (its `tagName` is upper case).
    pub fn is_html(&self, handle: Handle) -> bool {
        self.element(handle).is_some_and(|e| e.value().name.ns == html5ever::ns!(html))
    }

    /// A text or comment node's data.
    pub fn data(&self, handle: Handle) -> Option<String> {
        match self.node(handle)?.value() {
            Node::Text(t) => Some(t.text.to_string()),
            Node::Comment(c) => Some(c.comment.to_string()),
            Node::ProcessingInstruction(p) => Some(p.data.to_string()),
            _ => None,
        }
    }

    /// `getAttribute(name)`: on HTML elements the name is matched lower-cased.
    pub fn attr(&self, handle: Handle, name: &str) -> Option<String> {
        let element = self.element(handle)?;
        let html = element.value().name.ns == html5ever::ns!(html);
        let wanted = if html { name.to_ascii_lowercase() } else { name.to_string() };
        element.value().attrs.iter().find(|(k, _)| qualified(k) == wanted).map(|(_, v)| v.to_string())
    }

    /// Every attribute, in source order, as `[name, value]`.
    pub fn attrs(&self, handle: Handle) -> Vec<(String, String)> {
        let Some(element) = self.element(handle) else { return vec![] };
        element.value().attrs.iter().map(|(k, v)| (qualified(k), v.to_string())).collect()
    }

    /// The parent node, `None` for the document (and for a template's
    /// contents, which browsers keep apart from the tree).
    pub fn parent(&self, handle: Handle) -> Option<Handle> {
        let parent = self.node(handle)?.parent()?;
        (!parent.value().is_fragment()).then(|| self.handle(parent.id()))
    }

    /// Child nodes (a template's are its contents, not children).
    pub fn children(&self, handle: Handle) -> Vec<Handle> {
        let Some(node) = self.node(handle) else { return vec![] };
        node.children().filter(|c| !c.value().is_fragment()).map(|c| self.handle(c.id())).collect()
    }

    /// The next (`forward`) or previous sibling node; with `elements`, the
    /// next or previous element sibling.
    pub fn sibling(&self, handle: Handle, forward: bool, elements: bool) -> Option<Handle> {
        let mut node = self.node(handle)?;
        loop {
            node = if forward { node.next_sibling()? } else { node.prev_sibling()? };
            if node.value().is_fragment() {
                continue;
            }
            if !elements || node.value().is_element() {
                return Some(self.handle(node.id()));
            }
        }
    }

    /// `textContent`: every descendant text node's data, in order (`None`
    /// for the document and doctypes, as in browsers).
    pub fn text_content(&self, handle: Handle) -> Option<String> {
        let node = self.node(handle)?;
        match node.value() {
            Node::Document | Node::Doctype(_) => None,
            Node::Text(_) | Node::Comment(_) | Node::ProcessingInstruction(_) => self.data(handle),
            _ => {
                let mut out = String::new();
                for d in descendants(node) {
                    if let Node::Text(t) = d.value() {
                        out.push_str(&t.text);
                    }
                }
                Some(out)
            }
        }
    }

    /// `innerText`, approximated without CSS (see [`crate::inner_text`]).
    pub fn inner_text(&self, handle: Handle) -> String {
        match self.node(handle) {
            Some(node) if node.value().is_element() => crate::inner_text::inner_text(node),
            _ => self.text_content(handle).unwrap_or_default(),
        }
    }

    /// `outerHTML` (`outer`) or `innerHTML` of an element; the whole
    /// document's markup for the document node.
    pub fn html(&self, handle: Handle, outer: bool) -> String {
        match self.node(handle) {
            Some(node) if node.value().is_document() => {
                let mut out = String::new();
                for child in node.children() {
                    if let Some(e) = ElementRef::wrap(child) {
                        out.push_str(&serialize(e, TraversalScope::IncludeNode));
                    } else if let Node::Doctype(d) = child.value() {
                        out.push_str(&format!("<!DOCTYPE {}>", d.name()));
                    }
                }
                out
            }
            Some(node) => match ElementRef::wrap(node) {
                Some(e) if outer => serialize(e, TraversalScope::IncludeNode),
                Some(e) => serialize(e, TraversalScope::ChildrenOnly(None)),
                None => String::new(),
            },
            None => String::new(),
        }
    }

    /// The markup of the whole page (`document.documentElement.outerHTML`).
    pub fn page_html(&self) -> String {
        serialize(self.html.root_element(), TraversalScope::IncludeNode)
    }

    /// Elements under `scope` (an element or the document) matching
    /// `selector`, in document order; at most one unless `all`.
    pub fn select(&self, scope: Handle, selector: &Selector, all: bool) -> Vec<Handle> {
        let Some(node) = self.node(scope) else { return vec![] };
        // `:scope` is the element queried; from the document, the root
        // element (as in browsers).
        let scope_element = match node.value() {
            Node::Element(_) => node,
            Node::Document => *self.html.root_element(),
            _ => return vec![],
        };
        let mut matcher = Matcher::new(&self.env);
        let mut out = Vec::new();
        // The document's and an element's descendants alike, without the
        // scope itself (the document is no element; an element is not its
        // own descendant), nor templates' contents.
        for candidate in descendants(node).skip(1) {
            if candidate.value().is_element() && matcher.matches(selector, candidate, Some(scope_element)) {
                out.push(self.handle(candidate.id()));
                if !all {
                    break;
                }
            }
        }
        out
    }

    /// `element.matches(selector)`.
    pub fn matches(&self, handle: Handle, selector: &Selector) -> bool {
        let Some(element) = self.element(handle) else { return false };
        Matcher::new(&self.env).matches(selector, *element, Some(*element))
    }

    /// `element.closest(selector)`: the element or its nearest matching ancestor.
    pub fn closest(&self, handle: Handle, selector: &Selector) -> Option<Handle> {
        let start = self.element(handle)?;
        let mut matcher = Matcher::new(&self.env);
        let mut node = Some(*start);
        while let Some(n) = node {
            if n.value().is_element() && matcher.matches(selector, n, Some(*start)) {
                return Some(self.handle(n.id()));
            }
            node = n.parent();
        }
        None
    }

    /// Elements under `scope` (exclusive) in document order for which `keep` holds.
    fn elements_where(&self, scope: Handle, mut keep: impl FnMut(&scraper::node::Element) -> bool) -> Vec<Handle> {
        let Some(node) = self.node(scope) else { return vec![] };
        descendants(node)
            .skip(1)
            .filter(|d| d.value().as_element().is_some_and(&mut keep))
            .map(|d| self.handle(d.id()))
            .collect()
    }

    /// `getElementById`: the first element whose id is `id`.
    pub fn by_id(&self, scope: Handle, id: &str) -> Option<Handle> {
        let node = self.node(scope)?;
        descendants(node)
            .skip(1)
            .find(|d| d.value().as_element().is_some_and(|e| e.id() == Some(id)))
            .map(|d| self.handle(d.id()))
    }

    /// `getElementsByClassName(names)`: elements that have every class.
    pub fn by_class(&self, scope: Handle, names: &str) -> Vec<Handle> {
        let wanted: Vec<&str> = names.split_ascii_whitespace().collect();
        if wanted.is_empty() {
            return vec![];
        }
        self.elements_where(scope, |e| wanted.iter().all(|w| e.has_class(w, scraper::CaseSensitivity::CaseSensitive)))
    }

    /// `getElementsByTagName(name)`: `*` for every element.
    pub fn by_tag(&self, scope: Handle, name: &str) -> Vec<Handle> {
        let lower = name.to_ascii_lowercase();
        self.elements_where(scope, |e| {
            name == "*" || if e.name.ns == html5ever::ns!(html) { e.name() == lower } else { e.name() == name }
        })
    }

    /// `document.getElementsByName(name)`.
    pub fn by_name(&self, name: &str) -> Vec<Handle> {
        self.elements_where(self.root(), |e| e.attr("name") == Some(name))
    }

    /// `url` resolved against the document's base URL; `None` when it cannot be.
    /// As in browsers, the query is percent-encoded in the page's encoding
    /// (characters the encoding lacks as `&#N;`), the rest in UTF-8.
    pub fn resolve(&self, url: &str) -> Option<String> {
        // UTF-16 pages and the replacement encoding encode URLs in UTF-8.
        let encoding = self.encoding.output_encoding();
        if encoding == encoding_rs::UTF_8 {
            return self.base.join(url).ok().map(String::from);
        }
        let encode: &dyn for<'a> Fn(&'a str) -> std::borrow::Cow<'a, [u8]> = &|s| encode_query(encoding, s).into();
        Url::options().base_url(Some(&self.base)).encoding_override(Some(encode)).parse(url).ok().map(String::from)
    }

    /// Whether `ancestor` contains `node` (or is it).
    pub fn contains(&self, ancestor: Handle, node: Handle) -> bool {
        let (Some(a), Some(mut n)) = (self.node(ancestor), self.node(node)) else { return false };
        loop {
            if n.id() == a.id() {
                return true;
            }
            match n.parent() {
                Some(p) => n = p,
                None => return false,
            }
        }
    }
}

/// A URL's query in a legacy encoding, as the URL standard writes it: a
/// character the encoding lacks as `%26%23N%3B` (`&#N;` percent-encoded).
fn encode_query(encoding: &'static encoding_rs::Encoding, text: &str) -> Vec<u8> {
    let mut encoder = encoding.new_encoder();
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut rest = text;
    loop {
        let room = encoder.max_buffer_length_from_utf8_without_replacement(rest.len()).unwrap_or(rest.len() * 4 + 16);
        out.reserve(room.max(16));
        let (result, read) = encoder.encode_from_utf8_to_vec_without_replacement(rest, &mut out, true);
        rest = &rest[read..];
        match result {
            encoding_rs::EncoderResult::InputEmpty => return out,
            encoding_rs::EncoderResult::OutputFull => {}
            encoding_rs::EncoderResult::Unmappable(c) => {
                out.extend_from_slice(format!("%26%23{}%3B", u32::from(c)).as_bytes());
            }
        }
    }
}

/// A name as `getAttribute` sees it: `prefix:local` for namespaced ones.
fn qualified(name: &html5ever::QualName) -> String {
    match &name.prefix {
        Some(prefix) => format!("{prefix}:{}", name.local),
        None => name.local.to_string(),
    }
}

/// `node` and its descendants in document order, without templates'
/// contents. Iterative: deeply nested pages cannot overflow the stack.
pub(crate) fn descendants(node: ego_tree::NodeRef<'_, Node>) -> impl Iterator<Item = ego_tree::NodeRef<'_, Node>> {
    let root = node.id();
    let mut next = Some(node);
    std::iter::from_fn(move || {
        let current = next?;
        // Down first (unless a template's contents), then along, then up and along.
        let mut candidate = current.first_child().filter(|c| !c.value().is_fragment());
        if candidate.is_none() {
            let mut n = current;
            loop {
                if n.id() == root {
                    break;
                }
                if let Some(s) = n.next_sibling() {
                    candidate = Some(s);
                    break;
                }
                match n.parent() {
                    Some(p) => n = p,
                    None => break,
                }
            }
        }
        next = candidate;
        Some(current)
    })
}

fn serialize(element: ElementRef<'_>, scope: TraversalScope) -> String {
    // Scripting on, as in the browser (and as the page was parsed):
    // `<noscript>` holds raw text.
    let opts = SerializeOpts { scripting_enabled: true, traversal_scope: scope, create_missing_parent: false };
    let mut buf = Vec::new();
    if html5ever::serialize(&mut buf, &element, opts).is_err() {
        return String::new();
    }
    String::from_utf8(buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(html: &str) -> Document {
        let url = Url::parse("https://example.com/dir/page.html").unwrap();
        // A deadline no test document comes near, even on a loaded machine.
        Document::parse(html, url, Instant::now() + std::time::Duration::from_secs(600)).unwrap()
    }

    fn select(d: &Document, css: &str) -> Vec<Handle> {
        d.select(d.root(), &Selector::parse(css).unwrap(), true)
    }

    #[test]
    fn selectors_match_in_document_order() {
        let d = doc("<ul id=l><li class='a b'>1</li><li class=b>2<span class=a>x</span></li></ul><p class=a>3</p>");
        let found: Vec<String> = select(&d, ".a").iter().map(|h| d.name(*h)).collect();
        assert_eq!(found, ["li", "span", "p"]);
        assert_eq!(select(&d, "li:nth-child(2) > span").len(), 1);
        assert_eq!(select(&d, "li:not(.a)").len(), 1);
        assert_eq!(select(&d, "li:has(span)").len(), 1);
        assert_eq!(select(&d, "html").len(), 1, "the root element is a candidate from the document");
        let list = d.by_id(d.root(), "l").unwrap();
        let direct = d.select(list, &Selector::parse(":scope > li").unwrap(), true);
        assert_eq!(direct.len(), 2);
        assert_eq!(d.by_class(d.root(), "b a").len(), 1);
        assert_eq!(d.by_tag(d.root(), "LI").len(), 2);
    }

    fn ids(d: &Document, css: &str) -> Vec<String> {
        select(d, css).iter().map(|h| d.attr(*h, "id").unwrap_or_default()).collect()
    }

    #[test]
    fn form_state_pseudo_classes_follow_the_markup() {
        let d = doc(r#"<!DOCTYPE html>
            <form id=f>
              <input id=t placeholder="Name"><input id=tv value=x placeholder="Name"><input id=ro readonly>
              <input id=c1 type=checkbox checked><input id=c2 type=CHECKBOX>
              <input id=r1 type=radio name=g checked><input id=r2 type=radio name=g checked><input id=r3 type=radio name=h>
              <input id=req required><input id=hid type=hidden required><textarea id=ta required></textarea>
              <select id=s><option id=o1 disabled>a</option><option id=o2>b</option></select>
              <select id=m multiple><option id=o3>c</option><option id=o4 selected>d</option></select>
              <fieldset id=fs disabled><legend id=lg><input id=inlegend></legend><input id=infs></fieldset>
              <optgroup id=og disabled><option id=o5>e</option></optgroup>
              <button id=b1>go</button><button id=b2>again</button>
            </form>
            <div id=ce contenteditable><p id=cep>x</p></div><progress id=pr></progress><progress id=pv value=1></progress>"#);
        assert_eq!(ids(&d, ":checked"), ["c1", "r2", "o2", "o4"]);
        assert_eq!(ids(&d, ":default"), ["c1", "r1", "r2", "o4", "b1"]);
        assert_eq!(ids(&d, ":indeterminate"), ["r3", "pr"]);
        assert_eq!(ids(&d, ":disabled"), ["o1", "fs", "infs", "og", "o5"]);
        assert_eq!(ids(&d, "input:enabled").len(), 11);
        assert_eq!(ids(&d, ":placeholder-shown"), ["t"]);
        assert_eq!(ids(&d, ":read-write"), ["t", "tv", "req", "ta", "inlegend", "ce", "cep"]);
        assert!(ids(&d, ":read-only").contains(&"ro".to_string()));
        assert!(ids(&d, ":read-only").contains(&"infs".to_string()));
        assert_eq!(ids(&d, ":required"), ["req", "ta"]);
        assert!(ids(&d, ":optional").contains(&"hid".to_string()));
        assert!(!ids(&d, ":optional").contains(&"b1".to_string()));
    }

    #[test]
    fn link_language_direction_and_target() {
        let d = doc(r#"<!DOCTYPE html><html lang=en-GB><head><link id=l href=x></head><body>
            <a id=a href=x>x</a><a id=n>n</a><area id=ar href=y>
            <div id=fr lang=fr-CH><span id=in>x</span></div><div id=chde lang=de-CH></div>
            <div id=rtl dir=rtl><span id=inr>x</span><span id=back dir=ltr>y</span></div>
            <div id=auto dir=auto>שלום</div><bdi id=bdi>abc</bdi>
            <div id=frag></div><x-widget id=custom></x-widget></body></html>"#);
        assert_eq!(ids(&d, ":link"), ["a", "ar"]);
        assert_eq!(ids(&d, ":any-link"), ["a", "ar"]);
        assert!(ids(&d, ":visited, :hover, :focus, :active, :focus-within, :focus-visible").is_empty());
        assert_eq!(ids(&d, "div:lang(fr), span:lang(fr)"), ["fr", "in"]);
        assert_eq!(ids(&d, "body :lang(\"*-CH\")"), ["fr", "in", "chde"]);
        assert_eq!(select(&d, "body:lang(en)").len(), 1, "inherited from the root");
        assert_eq!(ids(&d, "body :dir(rtl)"), ["rtl", "inr", "auto"]);
        assert!(ids(&d, "body :dir(ltr)").contains(&"back".to_string()));
        assert!(ids(&d, "body :dir(ltr)").contains(&"bdi".to_string()));
        assert!(ids(&d, ":target").is_empty(), "the page's URL has no fragment that names an element");
        assert_eq!(ids(&d, ":not(:defined)"), ["custom"]);
        let url = Url::parse("https://example.com/p#frag").unwrap();
        let html = "<div id=frag></div><div id=other></div>";
        let t = Document::parse(html, url, Instant::now() + std::time::Duration::from_secs(600)).unwrap();
        assert_eq!(ids(&t, ":target"), ["frag"]);
    }

    #[test]
    fn pseudo_elements_parse_and_match_nothing() {
        let d = doc("<p id=p>x</p><ul><li>a</li><li class=k>b</li><li class=k>c</li></ul>");
        for css in ["p::before", "p:after", "::marker", "p::first-line", "::placeholder", "::highlight(x)", "::part(a)"]
        {
            assert!(select(&d, css).is_empty(), "{css}");
        }
        assert!(Selector::parse("p::nonsense").is_err());
        assert!(Selector::parse(":nonsense").is_err());
        assert!(Selector::parse("ns|p").is_err());
        assert_eq!(
            Selector::parse(":invalid").unwrap_err(),
            crate::css::SelectorError::NeedsBrowser(":invalid".into())
        );
        assert_eq!(select(&d, "li:nth-child(2 of .k)").len(), 1);
        assert_eq!(select(&d, "li:-webkit-any(.k)").len(), 2);
    }

    #[test]
    fn quirks_mode_matches_class_and_id_case_insensitively() {
        let quirks = doc("<p class=Foo id=Bar>x</p>");
        assert_eq!(select(&quirks, ".foo").len(), 1);
        assert_eq!(select(&quirks, "#bar").len(), 1);
        let standards = doc("<!DOCTYPE html><p class=Foo id=Bar>x</p>");
        assert!(select(&standards, ".foo").is_empty());
        assert!(select(&standards, "#bar").is_empty());
    }

    #[test]
    fn text_html_and_attributes() {
        let d = doc("<div id=x data-n='1' CLASS=c>a<!-- no --><b>b</b><script>s</script></div>");
        let x = d.by_id(d.root(), "x").unwrap();
        assert_eq!(d.text_content(x).unwrap(), "abs");
        assert_eq!(d.attr(x, "DATA-N").as_deref(), Some("1"));
        assert_eq!(d.attr(x, "class").as_deref(), Some("c"));
        assert_eq!(d.html(x, true), r#"<div id="x" data-n="1" class="c">a<!-- no --><b>b</b><script>s</script></div>"#);
        assert_eq!(d.html(x, false), "a<!-- no --><b>b</b><script>s</script>");
        assert_eq!(d.text_content(d.root()), None);
    }

    #[test]
    fn urls_resolve_against_the_base() {
        let d = doc("<a href='x'>");
        assert_eq!(d.resolve("x").unwrap(), "https://example.com/dir/x");
        let d = doc("<head><base href='/other/'></head><a href='x'>");
        assert_eq!(d.resolve("x").unwrap(), "https://example.com/other/x");
        assert_eq!(d.resolve("//cdn.example.org/a.png").unwrap(), "https://cdn.example.org/a.png");
    }

    #[test]
    fn templates_keep_their_contents_apart() {
        let d = doc("<template><p class=t>in</p></template><p class=t>out</p>");
        assert_eq!(select(&d, ".t").len(), 1);
        let body = select(&d, "body")[0];
        assert_eq!(d.text_content(body).unwrap(), "out");
    }

    #[test]
    fn deep_nesting_is_walked_without_recursion() {
        let html = "<div>".repeat(20_000) + "deep";
        let d = doc(&html);
        let body = select(&d, "body")[0];
        assert!(d.text_content(body).unwrap().ends_with("deep"));
    }
}
