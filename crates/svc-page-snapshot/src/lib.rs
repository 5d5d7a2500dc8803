//! A compact, bounded text view of a loaded page, for a language model.
//!
//! [`snapshot`] parses the page with html5ever (the browser-grade HTML5
//! parser, so implied and misnested tags end up where a browser puts them)
//! and prints the DOM as an indented outline, one element a line:
//!
//! ```text
//! title "Widgets — Shop"
//! header#top
//!  nav.main > ul
//!   li > a[href=/] "Home"
//! main#content
//!  ul#products.grid
//!   li.product
//!    a.name[href=/p/1] "Widget 1"
//!    span.price "$10.00"
//!   … 196 more li.product like these
//!  table.specs > tbody
//!   tr | th "Weight" | td "2 kg"
//! ```
//!
//! What the outline keeps and drops:
//!
//! - An element line is its tag, `#id`, `.class`es, then the attributes a
//!   script or a selector can use (`href`, `src`, `alt`, `title`, `name`,
//!   `type`, `value`, `role`, `aria-*`, `data-*`), long values cut. Other
//!   attributes (`style`, event handlers, …) are dropped, and so is the
//!   `value` of a password field.
//! - Text follows in quotes, whitespace collapsed and cut at
//!   [`MAX_TEXT_CHARS`]. Attribute-less inline tags (`b`, `em`, `span`, …)
//!   are folded into their parent's text.
//! - Comments, `script`, `style`, `noscript`, `template`, `head` (but the
//!   `title`), hidden inputs and the insides of `svg`, `math`, `canvas`,
//!   `iframe`, media and `object` are gone; empty elements without a useful
//!   attribute are gone.
//! - A parent with one child and no text shares its line (`nav.main > ul`);
//!   a table row whose cells are single lines becomes one line (`tr | … | …`).
//! - Long lists are sampled: when eight or more children of one parent share a
//!   tag-and-class signature, the first three and the last are kept (plus up
//!   to two that contain a string quoted in the request) and a line
//!   `… N more li.item like these` stands for the rest. Table cells and
//!   paragraphs are not sampled.
//!
//! When the outline is over the budget it is cut into blocks (subtrees, or
//! runs of small sibling subtrees, of about a sixth of the budget), each
//! block is scored by the distinct request terms it mentions (`.class` and
//! `#id` tokens weigh most, then quoted strings, then words; terms its
//! ancestors mention count half, so the rows of a mentioned `table#prices`
//! count), and blocks are taken best first (then main content before
//! navigation and footers, then document order) while they fit. Kept blocks
//! bring their ancestor lines along, shortened to `tag#id.class`; lines are
//! printed in document order, and every run of dropped lines becomes one
//! `…` line. The `title` is always kept.
//!
//! Parsing stops early (keeping what was built) on input so deeply nested
//! that the HTML5 tree-building algorithm would take quadratic time.
//!
//! Sizes are counted with [`estimate_tokens`], and `estimate_tokens(&text)
//! <= budget_tokens` holds for every input and every budget.
//!
//! Everything here is pure: no I/O, no clock, no randomness; the same input
//! gives the same output.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::collections::HashMap;
use std::sync::LazyLock;

use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::{Attribute, QualName, ns, parse_document};

/// A page outline trimmed to a token budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The outline. Never empty unless the page has nothing to show or the
    /// budget is too small for even a `…`.
    pub text: String,
    /// `estimate_tokens(&text)`; at most the budget asked for.
    pub tokens: usize,
    /// Whether parts of the outline were dropped to meet the budget, or
    /// parsing stopped early on pathologically nested input (list sampling
    /// and per-node cuts happen regardless and do not count).
    pub truncated: bool,
}

/// Text longer than this (after collapsing whitespace) is cut, per element.
pub const MAX_TEXT_CHARS: usize = 160;
/// `href` and `src` values longer than this are cut.
const MAX_URL_CHARS: usize = 100;
/// Other attribute values longer than this are cut.
const MAX_ATTR_CHARS: usize = 60;
/// Classes shown per element; longer class names are cut to `MAX_CLASS_CHARS`.
const MAX_CLASSES: usize = 6;
const MAX_CLASS_CHARS: usize = 40;
/// Non-class, non-id attributes shown per element.
const MAX_OTHER_ATTRS: usize = 8;
/// Elements nested deeper than this are replaced by a `…` line. It bounds
/// recursion on hostile input (thousands of unclosed `<div>`s).
const MAX_DEPTH: usize = 64;
/// How deep an inline element is searched when folding it into its parent.
const MAX_INLINE_DEPTH: usize = 16;
/// List sampling: this many or more same-signature siblings are sampled ...
const SAMPLE_MIN: usize = 8;
/// ... keeping this many from the start ...
const SAMPLE_HEAD: usize = 3;
/// ... and this many from the end ...
const SAMPLE_TAIL: usize = 1;
/// ... plus up to this many that contain a phrase quoted in the request.
const SAMPLE_PINNED: usize = 2;
/// A parent and its only child share a line while it stays this short.
const MAX_CHAIN_LINE: usize = 200;
/// The line standing for a run of dropped lines.
const ELLIPSIS: &str = "…";

/// A deterministic, deliberately pessimistic count of the tokens a
/// language-model tokenizer makes of `text`.
///
/// It mimics how byte-pair tokenizers (such as GPT's `cl100k_base` and
/// `o200k_base`) first split text into pieces and then merge bytes inside
/// each piece, and charges each piece at least what those merges leave:
///
/// - a run of ASCII letters costs one token per 4 letters (capitals count
///   twice), rounded up, or one per 2 letters of its longest consonant
///   cluster if that is more,
///   and a capital after a small letter starts a new run (English words up
///   to 4 letters are one token, most up to 8 one or two; tokenizers never
///   merge across a letter/digit/punctuation change, split `camelCase`, and
///   cut unpronounceable machine-made names like `xkcdzq` finely);
/// - a run of digits costs one token per 3 digits (tokenizers split numbers
///   into groups of at most three);
/// - every other ASCII character (punctuation, `"`, `=`, `/`, `.`, …) costs
///   one token: the outline is dense in them and tokenizers merge only some
///   pairs (`="`, `/>`), so this is where a plain chars/4 rule undercounts;
/// - a single space before a letter is free (it merges into the word,
///   ` the`); any other whitespace run (a space before a digit or a quote,
///   a newline and its indentation) costs one;
/// - a non-ASCII character costs its UTF-8 length minus one: 1 for é or ü,
///   2 for CJK or `…`, 3 for an emoji (byte-level tokenizers spend between
///   one token per character and one per byte on these).
///
/// Checked against the real `cl100k_base` and `o200k_base` tokenizers
/// (tiktoken-rs, outside this crate): on the outlines of the test pages it
/// comes out about 1.5 times their counts, and on deliberately hard samples
/// (obfuscated class names like `VfPpkd-LgbsSe`, base64, hex hashes,
/// numbers, CJK, emoji) from 1.02 to 2.6 times, never below. A budget set
/// from a model's context window is therefore safe. Cutting text never
/// raises the estimate of what is left, which the trimming relies on.
pub fn estimate_tokens(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut total = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let run = |pred: fn(u8) -> bool| bytes[i..].iter().take_while(|&&c| pred(c)).count();
        if b.is_ascii_alphabetic() {
            let n = run(|c| c.is_ascii_alphabetic());
            // Each capital after a small letter starts a new piece
            // (`querySelector`, `kHxGrS`).
            let word = &bytes[i..i + n];
            let mut start = 0;
            for k in 1..=n {
                if k == n || (word[k].is_ascii_uppercase() && word[k - 1].is_ascii_lowercase()) {
                    total += letters_cost(&word[start..k]);
                    start = k;
                }
            }
            i += n;
        } else if b.is_ascii_digit() {
            let n = run(|c| c.is_ascii_digit());
            total += n.div_ceil(3);
            i += n;
        } else if b.is_ascii_whitespace() {
            let n = run(|c| c.is_ascii_whitespace());
            let before_word = bytes.get(i + n).is_some_and(u8::is_ascii_alphabetic);
            total += usize::from(!(n == 1 && b == b' ' && before_word));
            i += n;
        } else if b.is_ascii() {
            total += 1;
            i += 1;
        } else {
            // A UTF-8 lead byte: count the whole character.
            let len = match b {
                0xF0.. => 4,
                0xE0.. => 3,
                _ => 2,
            };
            total += len - 1;
            i += len;
        }
    }
    total
}

/// What a run of letters costs: one token per 4 letters (capitals count
/// twice), but one per 2 consonants in its longest run of consonants when
/// that is more: machine-made names (`xkcdzq`, `OWXEXe`) split finely.
/// Never less for a prefix than for the whole.
fn letters_cost(word: &[u8]) -> usize {
    let mut consonants = 0;
    let mut longest: usize = 0;
    let mut weight = 0;
    for c in word {
        consonants = if b"aeiouyAEIOUY".contains(c) { 0 } else { consonants + 1 };
        longest = longest.max(consonants);
        weight += if c.is_ascii_uppercase() { 2 } else { 1 };
    }
    usize::div_ceil(weight, 4).max(longest.div_ceil(2))
}

/// The outline of `html`, trimmed to `budget_tokens` (as counted by
/// [`estimate_tokens`]) keeping the parts that best match `request`: the
/// user's script or a description of what to extract.
pub fn snapshot(html: &str, request: &str, budget_tokens: usize) -> Snapshot {
    let terms = Terms::parse(request);
    let (dom, complete) = parse(html);
    let outline = Outliner { nodes: &dom, terms: &terms }.outline();
    let lines = Lines::new(&outline, &terms);
    let full = lines.render(None);
    let (text, truncated) = if estimate_tokens(&full) <= budget_tokens {
        (full, !complete)
    } else {
        let shown = lines.select(budget_tokens);
        (hard_fit(lines.render(Some(&shown)), budget_tokens), true)
    };
    let tokens = estimate_tokens(&text);
    Snapshot { text, tokens, truncated }
}

// ---------------------------------------------------------------------------
// The request: what to look for.

/// Search terms taken from the request, lowercased.
#[derive(Debug, Default)]
struct Terms {
    /// `.class` and `#id` tokens, with their sigil.
    selectors: Vec<String>,
    /// Quoted strings, whitespace collapsed.
    phrases: Vec<String>,
    /// Identifiers and words (camelCase and snake_case split too).
    words: Vec<String>,
}

/// Terms kept of each kind; a line's matches are a bit set of them
/// (selectors from bit 0, phrases from bit 32, words from bit 64).
const MAX_SELECTORS: usize = 32;
const MAX_PHRASES: usize = 32;
const MAX_WORDS: usize = 64;
const SELECTOR_BITS: u128 = (1 << 32) - 1;
const PHRASE_BITS: u128 = SELECTOR_BITS << 32;
const WORD_BITS: u128 = !(SELECTOR_BITS | PHRASE_BITS);
const SELECTOR_WEIGHT: u32 = 8;
const PHRASE_WEIGHT: u32 = 5;
const WORD_WEIGHT: u32 = 1;

/// Words that say nothing about where on a page the data is: code keywords,
/// DOM API names, HTML plumbing and English glue. Separated by one space.
const STOPWORDS: &str = "about all and any are array async attr attribute await but can class const could data div document \
     each element elements else every extract false find for foreach from function get getattribute has \
     have href html http https inner innerhtml innertext into its json length let list map new not null \
     of page push query queryselector queryselectorall result results return scrape selector should span \
     src text textcontent that the their them then there these this those trim true undefined use using \
     var want what when which will with www you your";

impl Terms {
    fn parse(request: &str) -> Terms {
        let mut terms = Terms::default();
        let chars: Vec<char> = request.chars().collect();
        // `.class` and `#id`.
        for (i, &c) in chars.iter().enumerate() {
            if c != '.' && c != '#' {
                continue;
            }
            let name: String = chars[i + 1..].iter().take_while(|&&c| is_ident_char(c)).collect();
            let starts_well = name.chars().next().is_some_and(|f| f.is_alphabetic() || f == '_' || f == '-');
            if starts_well && name.chars().count() >= 2 {
                push_unique(&mut terms.selectors, format!("{c}{}", name.to_lowercase()), MAX_SELECTORS);
            }
        }
        // Quoted strings.
        let mut i = 0;
        while i < chars.len() {
            let q = chars[i];
            if matches!(q, '"' | '\'' | '`')
                && let Some(len) = chars[i + 1..].iter().take(200).position(|&c| c == q || c == '\n')
                && chars[i + 1 + len] == q
            {
                let phrase = collapse(&chars[i + 1..i + 1 + len].iter().collect::<String>()).to_lowercase();
                if (3..=100).contains(&phrase.chars().count()) && phrase.chars().any(char::is_alphanumeric) {
                    push_unique(&mut terms.phrases, phrase, MAX_PHRASES);
                }
                i += len + 2;
                continue;
            }
            i += 1;
        }
        // Words, with identifiers also split at case changes and `_`/`-`.
        for token in request.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-') {
            let mut parts = vec![token.to_string()];
            parts.extend(split_identifier(token));
            for part in parts {
                let part = part.trim_matches(|c| c == '_' || c == '-').to_lowercase();
                if part.chars().count() >= 3
                    && part.chars().any(char::is_alphabetic)
                    && !STOPWORDS.split(' ').any(|w| w == part)
                {
                    push_unique(&mut terms.words, part, MAX_WORDS);
                }
            }
        }
        terms
    }

    /// The terms that `line` (lowercased) mentions, as a bit set: a
    /// selector as a whole class or id name, a phrase anywhere, a word at
    /// the start of a word.
    fn matches(&self, line: &str) -> u128 {
        let mut bits = 0;
        for (i, s) in self.selectors.iter().enumerate() {
            if line.match_indices(s.as_str()).any(|(at, m)| !line[at + m.len()..].starts_with(is_ident_char)) {
                bits |= 1 << i;
            }
        }
        for (i, p) in self.phrases.iter().enumerate() {
            if line.contains(p.as_str()) {
                bits |= 1 << (32 + i);
            }
        }
        for (i, w) in self.words.iter().enumerate() {
            if line.match_indices(w.as_str()).any(|(at, _)| !line[..at].ends_with(char::is_alphanumeric)) {
                bits |= 1 << (64 + i);
            }
        }
        bits
    }
}

/// How much a set of matched terms is worth.
fn weight(bits: u128) -> u32 {
    (bits & SELECTOR_BITS).count_ones() * SELECTOR_WEIGHT
        + (bits & PHRASE_BITS).count_ones() * PHRASE_WEIGHT
        + (bits & WORD_BITS).count_ones() * WORD_WEIGHT
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Adds `item` unless it is there already or `list` has `max` items (the
/// first terms of a request are kept).
fn push_unique(list: &mut Vec<String>, item: String, max: usize) {
    if list.len() < max && !list.contains(&item) {
        list.push(item);
    }
}

/// `productPrice_total-v2` → `product`, `price`, `total`, `v2`.
fn split_identifier(token: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in token.chars() {
        if c == '_' || c == '-' {
            parts.push(std::mem::take(&mut current));
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            parts.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.push(c);
    }
    parts.push(current);
    parts.retain(|p| !p.is_empty() && p != token);
    parts
}

// ---------------------------------------------------------------------------
// Parsing: a minimal arena DOM fed by html5ever.

enum Data {
    Document,
    Element {
        name: QualName,
        attrs: Vec<Attribute>,
        template: Option<usize>,
    },
    Text(String),
    /// Comments, processing instructions: kept only so handles stay valid.
    Other,
}

struct Node {
    parent: Option<usize>,
    children: Vec<usize>,
    data: Data,
}

impl Node {
    fn new(data: Data) -> Node {
        Node { parent: None, children: Vec::new(), data }
    }
}

/// Handles are indexes into `nodes`; node 0 is the document.
struct Sink {
    nodes: RefCell<Vec<Node>>,
    /// Calls of `elem_name`: the tree builder's scope checks walk its stack
    /// of open elements, so deeply nested input (thousands of unclosed
    /// `<div>`s) costs depth × tags of these. See [`parse`].
    work: Cell<u64>,
}

static NOT_AN_ELEMENT: LazyLock<QualName> = LazyLock::new(|| QualName::new(None, ns!(), "".into()));

/// Input is fed to the parser in chunks of this many bytes ...
const PARSE_CHUNK: usize = 4 * 1024;
/// ... until the tree builder has done this much work plus
/// [`PARSE_WORK_PER_BYTE`] per input byte. Real pages (the test fixtures)
/// take 0.03–0.3 per byte; 10,000 nested `<div>`s take 2,000 per byte and
/// seconds to parse.
const PARSE_WORK_BASE: u64 = 1_000_000;
const PARSE_WORK_PER_BYTE: u64 = 8;

/// The DOM of `html`, and whether all of it was parsed: parsing stops early
/// (keeping what was built) on input nested so deeply that it would take
/// quadratic time.
fn parse(html: &str) -> (Vec<Node>, bool) {
    let sink = Sink { nodes: RefCell::new(vec![Node::new(Data::Document)]), work: Cell::new(0) };
    let limit = PARSE_WORK_BASE + PARSE_WORK_PER_BYTE * html.len() as u64;
    let mut parser = parse_document(sink, Default::default());
    let mut rest = html;
    let mut complete = true;
    while !rest.is_empty() {
        if parser.tokenizer.sink.sink.work.get() > limit {
            complete = false;
            break;
        }
        let mut at = rest.len().min(PARSE_CHUNK);
        while !rest.is_char_boundary(at) {
            at += 1;
        }
        parser.process(StrTendril::from_slice(&rest[..at]));
        rest = &rest[at..];
    }
    (parser.finish(), complete)
}

impl Sink {
    fn push(&self, data: Data) -> usize {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(Node::new(data));
        nodes.len() - 1
    }
}

fn detach(nodes: &mut [Node], id: usize) {
    if let Some(parent) = nodes[id].parent.take() {
        nodes[parent].children.retain(|&c| c != id);
    }
}

/// Puts `child` at `pos` among `parent`'s children, merging text into a
/// text node just before it.
fn insert(nodes: &mut Vec<Node>, parent: usize, pos: usize, child: NodeOrText<usize>) {
    match child {
        NodeOrText::AppendText(text) => {
            if pos > 0 {
                let prev = nodes[parent].children[pos - 1];
                if let Data::Text(existing) = &mut nodes[prev].data {
                    existing.push_str(&text);
                    return;
                }
            }
            let mut node = Node::new(Data::Text(text.to_string()));
            node.parent = Some(parent);
            nodes.push(node);
            let id = nodes.len() - 1;
            nodes[parent].children.insert(pos, id);
        }
        NodeOrText::AppendNode(id) => {
            detach(nodes, id);
            nodes[id].parent = Some(parent);
            let pos = pos.min(nodes[parent].children.len());
            nodes[parent].children.insert(pos, id);
        }
    }
}

impl TreeSink for Sink {
    type Handle = usize;
    type Output = Vec<Node>;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Vec<Node> {
        self.nodes.into_inner()
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> usize {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a usize) -> Ref<'a, QualName> {
        self.work.set(self.work.get() + 1);
        Ref::map(self.nodes.borrow(), |nodes| match &nodes[*target].data {
            Data::Element { name, .. } => name,
            _ => &NOT_AN_ELEMENT,
        })
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> usize {
        let template = flags.template.then(|| self.push(Data::Document));
        self.push(Data::Element { name, attrs, template })
    }

    fn create_comment(&self, _text: StrTendril) -> usize {
        self.push(Data::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> usize {
        self.push(Data::Other)
    }

    fn append(&self, parent: &usize, child: NodeOrText<usize>) {
        let mut nodes = self.nodes.borrow_mut();
        let pos = nodes[*parent].children.len();
        insert(&mut nodes, *parent, pos, child);
    }

    fn append_based_on_parent_node(&self, element: &usize, prev_element: &usize, child: NodeOrText<usize>) {
        let has_parent = self.nodes.borrow()[*element].parent.is_some();
        if has_parent { self.append_before_sibling(element, child) } else { self.append(prev_element, child) }
    }

    fn append_doctype_to_document(&self, _name: StrTendril, _public_id: StrTendril, _system_id: StrTendril) {}

    fn get_template_contents(&self, target: &usize) -> usize {
        match &self.nodes.borrow()[*target].data {
            Data::Element { template: Some(contents), .. } => *contents,
            _ => *target,
        }
    }

    fn same_node(&self, x: &usize, y: &usize) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &usize, new_node: NodeOrText<usize>) {
        let mut nodes = self.nodes.borrow_mut();
        if let NodeOrText::AppendNode(id) = &new_node {
            detach(&mut nodes, *id);
        }
        let Some(parent) = nodes[*sibling].parent else { return };
        let pos = nodes[parent].children.iter().position(|c| c == sibling).unwrap_or(0);
        insert(&mut nodes, parent, pos, new_node);
    }

    fn add_attrs_if_missing(&self, target: &usize, attrs: Vec<Attribute>) {
        if let Data::Element { attrs: existing, .. } = &mut self.nodes.borrow_mut()[*target].data {
            for attr in attrs {
                if !existing.iter().any(|e| e.name == attr.name) {
                    existing.push(attr);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &usize) {
        detach(&mut self.nodes.borrow_mut(), *target);
    }

    fn reparent_children(&self, node: &usize, new_parent: &usize) {
        let mut nodes = self.nodes.borrow_mut();
        let children = std::mem::take(&mut nodes[*node].children);
        for &c in &children {
            nodes[c].parent = Some(*new_parent);
        }
        nodes[*new_parent].children.extend(children);
    }
}

// ---------------------------------------------------------------------------
// The outline tree.

/// Elements dropped with everything inside.
const SKIPPED: &[&str] = &["base", "head", "link", "meta", "noscript", "param", "script", "style", "template", "title"];
/// Elements shown as one line, their insides dropped.
const OPAQUE: &[&str] = &["audio", "canvas", "embed", "iframe", "math", "object", "svg", "video"];
/// Elements worth a line even when empty and attribute-less.
const CONTENT_WHEN_EMPTY: &[&str] =
    &["audio", "button", "canvas", "embed", "iframe", "img", "input", "object", "select", "textarea", "video"];
/// Inline tags folded into the parent's text when they carry no kept attribute.
const INLINE: &[&str] = &[
    "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins", "kbd", "label",
    "mark", "nobr", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var",
];
/// Attributes kept besides `id`, `class`, `aria-*` and `data-*`.
const KEPT_ATTRS: &[&str] = &["href", "src", "alt", "title", "role", "name", "type", "value"];

struct ONode {
    line: String,
    /// The line without attributes other than id and class, and without
    /// text: how the element shows when it is kept only as the ancestor of
    /// a kept block.
    short: String,
    tag: String,
    /// Whether the line carries the element's own text.
    has_text: bool,
    /// A `…` line (sampled list, depth cut), not an element.
    marker: bool,
    /// +1 inside main content, -1 inside navigation, header, footer, aside.
    region: i8,
    children: Vec<ONode>,
}

impl ONode {
    fn marker(line: String, region: i8) -> ONode {
        ONode {
            short: line.clone(),
            line,
            tag: String::new(),
            has_text: false,
            marker: true,
            region,
            children: Vec::new(),
        }
    }

    /// Folds a table row of one-line cells into one line, and a text-less
    /// element with one child into the child's line. Children are compacted
    /// before their parent, so chains build up bottom-up.
    fn compact(&mut self) {
        if self.tag == "tr"
            && !self.has_text
            && !self.children.is_empty()
            && self.children.iter().all(|c| !c.marker && c.children.is_empty())
        {
            for cell in std::mem::take(&mut self.children) {
                self.line.push_str(" | ");
                self.line.push_str(&cell.line);
            }
            return;
        }
        if !self.has_text
            && let [child] = self.children.as_slice()
            && !child.marker
            && self.line.len() + child.line.len() + 3 <= MAX_CHAIN_LINE
            && let Some(child) = self.children.pop()
        {
            self.line = format!("{} > {}", self.line, child.line);
            self.short = format!("{} > {}", self.short, child.short);
            self.tag = child.tag;
            self.has_text = child.has_text;
            self.region = child.region;
            self.children = child.children;
        }
    }
}

struct Outline {
    title: Option<String>,
    roots: Vec<ONode>,
}

enum Item {
    Element(usize),
    Marker(String),
}

struct Outliner<'a> {
    nodes: &'a [Node],
    terms: &'a Terms,
}

impl Outliner<'_> {
    fn element(&self, id: usize) -> Option<(&str, &[Attribute])> {
        match &self.nodes[id].data {
            Data::Element { name, attrs, .. }
                if name.ns == ns!(html) || name.ns == ns!(svg) || name.ns == ns!(mathml) =>
            {
                Some((&name.local, attrs))
            }
            _ => None,
        }
    }

    fn child_element(&self, id: usize, tag: &str) -> Option<usize> {
        self.nodes[id].children.iter().copied().find(|&c| self.element(c).is_some_and(|(t, _)| t == tag))
    }

    fn outline(&self) -> Outline {
        let Some(html) = self.child_element(0, "html") else { return Outline { title: None, roots: Vec::new() } };
        let title = self.child_element(html, "head").and_then(|head| self.child_element(head, "title")).map(|t| {
            let mut acc = TextAcc::new(MAX_TEXT_CHARS);
            self.collect_text(t, &mut acc, 0, true);
            format!("title \"{}\"", acc.finish())
        });
        let roots = match self.child_element(html, "body") {
            Some(body) => match self.build(body, 0, 0, false) {
                Some(node) if node.line == "body" => node.children,
                Some(node) => vec![node],
                None => Vec::new(),
            },
            // A frameset document, or something odd: outline what is there.
            None => self.nodes[html].children.iter().filter_map(|&c| self.build(c, 0, 0, true)).collect(),
        };
        Outline { title, roots }
    }

    /// The outline node of element `id`, or `None` when it shows nothing.
    fn build(&self, id: usize, depth: usize, parent_region: i8, compact: bool) -> Option<ONode> {
        let (tag, attrs) = self.element(id)?;
        if is_skipped(tag, attrs) {
            return None;
        }
        let region = region_of(tag, attrs, parent_region);
        let mut text = TextAcc::new(MAX_TEXT_CHARS);
        let mut children = Vec::new();
        if !OPAQUE.contains(&tag) {
            let mut candidates = Vec::new();
            for &c in &self.nodes[id].children {
                match &self.nodes[c].data {
                    Data::Text(t) => text.push(t),
                    Data::Element { .. } => match self.element(c) {
                        Some(("br", _)) => text.push(" "),
                        Some((t, a)) if is_skipped(t, a) => {}
                        Some(_) if self.transparent(c, 0) => self.collect_text(c, &mut text, 0, false),
                        Some(_) => candidates.push(c),
                        None => {}
                    },
                    _ => {}
                }
            }
            if depth >= MAX_DEPTH {
                if !candidates.is_empty() {
                    children.push(ONode::marker(ELLIPSIS.to_string(), region));
                }
            } else {
                for item in self.sample(tag, &candidates) {
                    match item {
                        Item::Element(c) => children.extend(self.build(c, depth + 1, region, true)),
                        Item::Marker(line) => children.push(ONode::marker(line, region)),
                    }
                }
            }
        }
        let text = text.finish();
        // An empty element is worth a line for a telling attribute; for an
        // icon (`svg.icon-cart`) the class is telling.
        let useful_attr = attrs.iter().any(|a| kept_attr(a) && (&*a.name.local != "class" || OPAQUE.contains(&tag)));
        if text.is_empty() && children.is_empty() && !useful_attr && !CONTENT_WHEN_EMPTY.contains(&tag) {
            return None;
        }
        let (short, mut line) = head_line(tag, attrs);
        if !text.is_empty() {
            line.push_str(" \"");
            line.push_str(&text);
            line.push('"');
        }
        let has_text = !text.is_empty();
        let mut node = ONode { line, short, tag: tag.to_string(), has_text, marker: false, region, children };
        if compact {
            node.compact();
        }
        Some(node)
    }

    /// Whether element `id` is an attribute-less inline tag holding only
    /// text and other such tags, so that its text belongs to its parent.
    fn transparent(&self, id: usize, depth: usize) -> bool {
        let Some((tag, attrs)) = self.element(id) else { return false };
        if depth > MAX_INLINE_DEPTH || !INLINE.contains(&tag) || attrs.iter().any(kept_attr) {
            return false;
        }
        self.nodes[id].children.iter().all(|&c| match &self.nodes[c].data {
            Data::Text(_) | Data::Other => true,
            Data::Element { .. } => match self.element(c) {
                Some(("br", _)) => true,
                Some((t, a)) if is_skipped(t, a) => true,
                _ => self.transparent(c, depth + 1),
            },
            Data::Document => false,
        })
    }

    /// Appends the text under `id` to `acc`; `deep` also enters elements
    /// that are not transparent (for titles and list pinning).
    fn collect_text(&self, id: usize, acc: &mut TextAcc, depth: usize, deep: bool) {
        if depth > MAX_DEPTH {
            return;
        }
        for &c in &self.nodes[id].children {
            if acc.full() {
                return;
            }
            match &self.nodes[c].data {
                Data::Text(t) => acc.push(t),
                Data::Element { .. } => match self.element(c) {
                    Some(("br", _)) => acc.push(" "),
                    Some((t, a)) if is_skipped(t, a) && !(deep && t == "title") => {}
                    Some((t, _)) if OPAQUE.contains(&t) => {}
                    Some(_) => {
                        if deep {
                            acc.push(" ");
                        }
                        self.collect_text(c, acc, depth + 1, deep);
                        if deep {
                            acc.push(" ");
                        }
                    }
                    None => {}
                },
                _ => {}
            }
        }
    }

    /// `candidates` (children of a `parent` element) in order, long
    /// same-signature runs sampled. The cells of a row are columns, and
    /// paragraphs are prose, not lists: those are never sampled.
    fn sample(&self, parent: &str, candidates: &[usize]) -> Vec<Item> {
        if candidates.len() < SAMPLE_MIN || parent == "tr" {
            return candidates.iter().map(|&c| Item::Element(c)).collect();
        }
        let signatures: Vec<String> = candidates.iter().map(|&c| self.signature(c, usize::MAX)).collect();
        let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, s) in signatures.iter().enumerate() {
            groups.entry(s.as_str()).or_default().push(i);
        }
        let mut keep = vec![true; candidates.len()];
        let mut markers: HashMap<usize, String> = HashMap::new();
        let sampled = |s: &&str, p: &&Vec<usize>| p.len() >= SAMPLE_MIN && *s != "p" && !s.starts_with("p.");
        for positions in groups.iter().filter(|(s, p)| sampled(s, p)).map(|(_, p)| p) {
            let middle = &positions[SAMPLE_HEAD..positions.len() - SAMPLE_TAIL];
            let mut pinned = 0;
            let mut first_dropped = None;
            let mut dropped = 0;
            for &p in middle {
                if pinned < SAMPLE_PINNED && self.mentions_phrase(candidates[p]) {
                    pinned += 1;
                    continue;
                }
                keep[p] = false;
                dropped += 1;
                first_dropped.get_or_insert(p);
            }
            if let Some(at) = first_dropped {
                let shape = self.signature(candidates[at], 3);
                markers.insert(at, format!("{ELLIPSIS} {dropped} more {shape} like these"));
            }
        }
        let mut items = Vec::new();
        for (i, &c) in candidates.iter().enumerate() {
            if let Some(line) = markers.remove(&i) {
                items.push(Item::Marker(line));
            }
            if keep[i] {
                items.push(Item::Element(c));
            }
        }
        items
    }

    /// `tag.class1.class2`, with at most `max_classes` (cut) classes.
    fn signature(&self, id: usize, max_classes: usize) -> String {
        let Some((tag, attrs)) = self.element(id) else { return String::new() };
        let mut sig = tag.to_string();
        if let Some(class) = attrs.iter().find(|a| &*a.name.local == "class") {
            for c in class.value.split_whitespace().take(max_classes) {
                sig.push('.');
                if max_classes == usize::MAX {
                    sig.push_str(c);
                } else {
                    sig.push_str(&cut(c, MAX_CLASS_CHARS));
                }
            }
        }
        sig
    }

    fn mentions_phrase(&self, id: usize) -> bool {
        if self.terms.phrases.is_empty() {
            return false;
        }
        let mut acc = TextAcc::new(4000);
        self.collect_text(id, &mut acc, 0, true);
        let text = acc.finish().to_lowercase();
        self.terms.phrases.iter().any(|p| text.contains(p.as_str()))
    }
}

fn is_skipped(tag: &str, attrs: &[Attribute]) -> bool {
    SKIPPED.contains(&tag)
        || (tag == "input" && attr(attrs, "type").is_some_and(|t| t.trim().eq_ignore_ascii_case("hidden")))
}

fn attr<'a>(attrs: &'a [Attribute], name: &str) -> Option<&'a str> {
    attrs.iter().find(|a| &*a.name.local == name).map(|a| &*a.value)
}

fn kept_attr(a: &Attribute) -> bool {
    let name = &*a.name.local;
    name == "id"
        || name == "class"
        || KEPT_ATTRS.contains(&name)
        || (name.starts_with("aria-") && name.len() > 5)
        || (name.starts_with("data-") && name.len() > 5)
}

fn region_of(tag: &str, attrs: &[Attribute], parent: i8) -> i8 {
    let role = attr(attrs, "role").unwrap_or("");
    let id = attr(attrs, "id").unwrap_or("").to_ascii_lowercase();
    if matches!(tag, "main" | "article") || role == "main" || matches!(id.as_str(), "main" | "content" | "main-content")
    {
        1
    } else if matches!(tag, "nav" | "footer" | "aside")
        || matches!(role, "navigation" | "contentinfo" | "complementary" | "banner")
        || (tag == "header" && parent == 0)
    {
        -1
    } else {
        parent
    }
}

/// The short form `a#id.c1.c2` of an element's line, and the line
/// `a#id.c1.c2[href=/x][aria-label="Close menu"]` (text not included).
fn head_line(tag: &str, attrs: &[Attribute]) -> (String, String) {
    let mut line = tag.to_string();
    if let Some(id) = attr(attrs, "id").map(str::trim).filter(|id| !id.is_empty()) {
        if id.len() <= MAX_ATTR_CHARS && !id.contains(|c: char| c.is_whitespace() || "[]\".#".contains(c)) {
            line.push('#');
            line.push_str(id);
        } else {
            push_attr(&mut line, "id", id, MAX_ATTR_CHARS);
        }
    }
    if let Some(class) = attr(attrs, "class") {
        for c in class.split_whitespace().take(MAX_CLASSES) {
            line.push('.');
            line.push_str(&cut(c, MAX_CLASS_CHARS));
        }
    }
    let short = line.clone();
    let password = tag == "input" && attr(attrs, "type").is_some_and(|t| t.eq_ignore_ascii_case("password"));
    let others = attrs.iter().filter(|a| {
        let name = &*a.name.local;
        kept_attr(a) && name != "id" && name != "class" && !(password && name == "value")
    });
    for a in others.take(MAX_OTHER_ATTRS) {
        let name = &*a.name.local;
        let max = if name == "href" || name == "src" { MAX_URL_CHARS } else { MAX_ATTR_CHARS };
        let value = a.value.trim();
        // `data:` URIs say nothing past their media type.
        let value = match value.find(',') {
            Some(comma) if value.starts_with("data:") => &value[..comma],
            _ => value,
        };
        push_attr(&mut line, &cut(name, MAX_CLASS_CHARS), value, max);
    }
    (short, line)
}

fn push_attr(line: &mut String, name: &str, value: &str, max: usize) {
    let collapsed = collapse(value);
    let value = cut(&collapsed, max);
    line.push('[');
    line.push_str(name);
    if !value.is_empty() {
        line.push('=');
        if value.contains(|c: char| c.is_whitespace() || "[]\"".contains(c)) {
            line.push('"');
            line.push_str(&value);
            line.push('"');
        } else {
            line.push_str(&value);
        }
    }
    line.push(']');
}

/// `s` cut to `max` characters, a `…` marking the cut.
fn cut(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((at, _)) => Cow::Owned(format!("{}{ELLIPSIS}", s[..at].trim_end())),
    }
}

/// `s` with every whitespace run made one space, trimmed.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Collects text with whitespace collapsed, and stops taking it (cheaply)
/// once past `max` characters.
struct TextAcc {
    buf: String,
    chars: usize,
    max: usize,
    space: bool,
    overflow: bool,
}

impl TextAcc {
    fn new(max: usize) -> TextAcc {
        TextAcc { buf: String::new(), chars: 0, max, space: false, overflow: false }
    }

    fn full(&self) -> bool {
        self.overflow
    }

    fn push(&mut self, s: &str) {
        for c in s.chars() {
            if self.overflow {
                return;
            }
            if c.is_whitespace() {
                self.space = self.chars > 0;
                continue;
            }
            if self.chars >= self.max {
                self.overflow = true;
                return;
            }
            if self.space {
                self.buf.push(' ');
                self.chars += 1;
                self.space = false;
            }
            self.buf.push(c);
            self.chars += 1;
        }
    }

    fn finish(self) -> String {
        let mut buf = self.buf;
        if self.overflow {
            buf.truncate(buf.trim_end().len());
            buf.push_str(ELLIPSIS);
        }
        buf
    }
}

// ---------------------------------------------------------------------------
// Lines, blocks and the budget.

struct Line {
    depth: usize,
    text: String,
    short: String,
    parent: Option<usize>,
    /// One past the last line of this line's subtree.
    end: usize,
    /// `estimate_tokens` of the text plus one for the newline and indent.
    cost: usize,
    short_cost: usize,
    /// The request terms this line mentions, and those its ancestors do.
    terms: u128,
    context: u128,
    region: i8,
}

struct Lines {
    title: Option<(String, usize)>,
    lines: Vec<Line>,
}

/// How a line shows in a trimmed outline.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shown {
    /// Not at all: it is part of a gap, shown as one `…` line.
    No,
    /// In its short form, as the ancestor of a kept block.
    Context,
    Full,
}

/// Cost of a `…` line standing for a gap: its newline run plus the `…`.
const GAP_COST: usize = 3;

struct Block {
    start: usize,
    end: usize,
    /// Distinct terms the block mentions, plus (at half weight) those its
    /// ancestors mention that it does not.
    score: u32,
    /// Term mentions summed over its lines: more mentions rank higher
    /// among blocks of equal score.
    mentions: u32,
    region: i8,
    /// The line of an element too big for one block, its children split
    /// into blocks of their own: not worth showing for its own sake.
    header: bool,
}

impl Lines {
    fn new(outline: &Outline, terms: &Terms) -> Lines {
        let mut lines = Vec::new();
        flatten(&outline.roots, 0, None, terms, &mut lines);
        let title = outline.title.as_ref().map(|t| (t.clone(), estimate_tokens(t) + 1));
        Lines { title, lines }
    }

    /// The outline, or only the lines `shown` with a `…` for each gap.
    fn render(&self, shown: Option<&[Shown]>) -> String {
        let mut out: Vec<String> = Vec::new();
        if let Some((title, _)) = &self.title {
            out.push(title.clone());
        }
        let mut in_gap = false;
        for (i, line) in self.lines.iter().enumerate() {
            let text = match shown.map_or(Shown::Full, |s| s[i]) {
                Shown::Full => &line.text,
                Shown::Context => &line.short,
                Shown::No if in_gap => continue,
                Shown::No => ELLIPSIS,
            };
            in_gap = text == ELLIPSIS;
            out.push(format!("{}{text}", " ".repeat(line.depth)));
        }
        out.join("\n")
    }

    fn subtree_children(&self, i: usize) -> Vec<usize> {
        let mut children = Vec::new();
        let mut k = i + 1;
        while k < self.lines[i].end {
            children.push(k);
            k = self.lines[k].end;
        }
        children
    }

    /// Splits the siblings `ids` into blocks of at most `max` tokens, going
    /// into any subtree that is larger (its own line becomes a block).
    fn blocks(&self, ids: &[usize], costs: &[usize], max: usize, out: &mut Vec<(usize, usize, bool)>) {
        let subtree = |i: usize| costs[self.lines[i].end] - costs[i];
        let mut current: Option<(usize, usize, usize)> = None;
        for &i in ids {
            let size = subtree(i);
            if size <= max || self.lines[i].end == i + 1 {
                match &mut current {
                    Some((_, end, total)) if *end == i && *total + size <= max => {
                        *end = self.lines[i].end;
                        *total += size;
                    }
                    _ => {
                        out.extend(current.take().map(|(s, e, _)| (s, e, false)));
                        current = Some((i, self.lines[i].end, size));
                    }
                }
            } else {
                out.extend(current.take().map(|(s, e, _)| (s, e, false)));
                out.push((i, i + 1, true));
                self.blocks(&self.subtree_children(i), costs, max, out);
            }
        }
        out.extend(current.map(|(s, e, _)| (s, e, false)));
    }

    /// How each line shows so that the rendered text fits `budget`: blocks
    /// best first, each with its ancestors, while they fit.
    fn select(&self, budget: usize) -> Vec<Shown> {
        let n = self.lines.len();
        let mut costs = vec![0; n + 1];
        for (i, line) in self.lines.iter().enumerate() {
            costs[i + 1] = costs[i] + line.cost;
        }
        let roots: Vec<usize> = (0..n).filter(|&i| self.lines[i].parent.is_none()).collect();
        let mut ranges = Vec::new();
        self.blocks(&roots, &costs, (budget / 6).clamp(12, 600), &mut ranges);
        let mut blocks: Vec<Block> = ranges
            .into_iter()
            .map(|(start, end, header)| {
                let lines = &self.lines[start..end];
                let own = lines.iter().fold(0, |bits, l| bits | l.terms);
                let inherited = self.lines[start].context & !own;
                Block {
                    start,
                    end,
                    score: 2 * weight(own) + weight(inherited),
                    mentions: lines.iter().map(|l| weight(l.terms)).sum(),
                    region: self.lines[start].region,
                    header,
                }
            })
            // A header line is only worth showing for a match of its own.
            .filter(|b| b.mentions > 0 || !b.header)
            .collect();
        blocks.sort_by_key(|b| {
            (std::cmp::Reverse(b.score), std::cmp::Reverse(b.mentions), std::cmp::Reverse(b.region), b.start)
        });

        // The exact cost of what is shown: the title, the shown lines, and
        // one `…` line per gap (all lines are one gap to begin with).
        let mut shown = vec![Shown::No; n];
        let mut used = self.title.as_ref().map_or(0, |(_, cost)| *cost) + if n > 0 { GAP_COST } else { 0 };
        let mut changes: Vec<(usize, Shown)> = Vec::new();
        for block in blocks {
            changes.clear();
            let mut cost = used;
            let mut parent = self.lines[block.start].parent;
            while let Some(p) = parent.filter(|&p| shown[p] == Shown::No) {
                cost = self.show(&mut shown, p, Shown::Context, cost, &mut changes);
                parent = self.lines[p].parent;
            }
            for i in block.start..block.end {
                cost = self.show(&mut shown, i, Shown::Full, cost, &mut changes);
            }
            if cost <= budget {
                used = cost;
            } else {
                for &(i, was) in changes.iter().rev() {
                    shown[i] = was;
                }
            }
        }
        shown
    }

    /// Shows line `i` as `how`, recording the change; returns the total
    /// cost `used` becomes.
    fn show(&self, shown: &mut [Shown], i: usize, how: Shown, used: usize, changes: &mut Vec<(usize, Shown)>) -> usize {
        let was = shown[i];
        if was == how || was == Shown::Full {
            return used;
        }
        let line = &self.lines[i];
        let mut used = used + if how == Shown::Full { line.cost } else { line.short_cost };
        if was == Shown::Context {
            used -= line.short_cost;
        } else {
            // Line i leaves a gap: the gap splits in two, shrinks, or goes.
            let hidden = |k: Option<usize>| k.is_some_and(|k| k < shown.len() && shown[k] == Shown::No);
            match (hidden(i.checked_sub(1)), hidden(Some(i + 1))) {
                (true, true) => used += GAP_COST,
                (false, false) => used -= GAP_COST,
                _ => {}
            }
        }
        changes.push((i, was));
        shown[i] = how;
        used
    }
}

/// Appends the lines of `nodes` to `out` in document order, with the terms
/// each mentions and those its ancestors mention (so that what is inside a
/// mentioned element, `table#prices`, counts too).
fn flatten(nodes: &[ONode], depth: usize, parent: Option<usize>, terms: &Terms, out: &mut Vec<Line>) {
    let context = parent.map_or(0, |p| out[p].terms | out[p].context);
    for node in nodes {
        let i = out.len();
        out.push(Line {
            depth,
            cost: estimate_tokens(&node.line) + 1,
            short_cost: estimate_tokens(&node.short) + 1,
            terms: terms.matches(&node.line.to_lowercase()),
            context,
            text: node.line.clone(),
            short: node.short.clone(),
            parent,
            end: i + 1,
            region: node.region,
        });
        flatten(&node.children, depth + 1, Some(i), terms, out);
        out[i].end = out.len();
    }
}

/// `text` if it fits `budget`, else its longest prefix that fits with a
/// `…` after it (or without, when even that is too much).
fn hard_fit(text: String, budget: usize) -> String {
    if estimate_tokens(&text) <= budget {
        return text;
    }
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let fits = |k: usize, mark: &str| estimate_tokens(&format!("{}{mark}", &text[..bounds[k]])) <= budget;
    for mark in [ELLIPSIS, ""] {
        // Largest k with fits(k); the estimate only grows with the prefix.
        if !fits(0, mark) {
            continue;
        }
        let (mut lo, mut hi) = (0, bounds.len() - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if fits(mid, mark) { lo = mid } else { hi = mid - 1 }
        }
        let mut out = format!("{}{mark}", text[..bounds[lo]].trim_end());
        while estimate_tokens(&out) > budget {
            out.pop();
        }
        return out;
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimator_counts_pieces() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("the"), 1);
        assert_eq!(estimate_tokens("the cat"), 2);
        assert_eq!(estimate_tokens("extraordinary"), 4);
        assert_eq!(estimate_tokens("2024"), 2);
        assert_eq!(estimate_tokens("a.b[href=/x]"), 9);
        assert_eq!(estimate_tokens("\n  li"), 2);
        assert_eq!(estimate_tokens("…"), 2);
        assert_eq!(estimate_tokens("日本"), 4);
        assert_eq!(estimate_tokens("é"), 1);
    }

    #[test]
    fn estimator_never_drops_when_text_grows() {
        let text = "li.item  \"Prix: 12,50 € — 日本 🎉\"\n ul#x[href=https://e.com/a?b=1]";
        let mut prev = 0;
        for (i, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let now = estimate_tokens(&text[..i]);
            assert!(now >= prev, "{:?}", &text[..i]);
            prev = now;
        }
    }

    #[test]
    fn terms_from_a_script() {
        let t = Terms::parse(
            "const rows = document.querySelectorAll('#results .price'); // the \"Add to cart\" button, productTitle",
        );
        assert!(t.selectors.contains(&".price".to_string()));
        assert!(t.selectors.contains(&"#results".to_string()));
        assert!(t.phrases.contains(&"add to cart".to_string()));
        assert!(t.words.contains(&"product".to_string()));
        assert!(t.words.contains(&"title".to_string()));
        assert!(t.words.contains(&"rows".to_string()));
        assert!(!t.words.contains(&"const".to_string()));
        assert!(!t.words.contains(&"the".to_string()));
    }

    #[test]
    fn selector_terms_match_whole_class_names() {
        let t = Terms::parse(".price");
        assert_eq!(weight(t.matches("span.price \"$1\"")), SELECTOR_WEIGHT + WORD_WEIGHT);
        assert_eq!(weight(t.matches("span.price-old \"$2\"")), WORD_WEIGHT);
        assert_eq!(weight(t.matches("span.old \"prices\"")), WORD_WEIGHT);
        assert_eq!(weight(t.matches("span.old \"reprice\"")), 0);
    }

    #[test]
    fn outline_keeps_useful_attributes_and_drops_noise() {
        let html = r#"<html><head><title> My  Page </title><style>.x{}</style><script>var a=1</script></head>
            <body class="home"><!-- a comment -->
            <div id="app" style="color:red" onclick="go()"><a href="/next" class="btn primary" aria-label="Next page">Next <b>page</b></a>
            <input type="hidden" name="csrf" value="s3cret"><input type="password" name="pw" value="hunter2">
            <img src="data:image/png;base64,AAAA" alt="logo"><svg class="icon"><path d="M0 0"/></svg><div></div>
            </div></body></html>"#;
        let s = snapshot(html, "", 10_000);
        assert!(!s.truncated);
        assert_eq!(
            s.text,
            "title \"My Page\"\nbody.home\n div#app\n  a.btn.primary[href=/next][aria-label=\"Next page\"] \"Next page\"\n  \
             input[type=password][name=pw]\n  img[src=data:image/png;base64][alt=logo]\n  svg.icon"
        );
    }

    #[test]
    fn long_lists_are_sampled() {
        let items: String = (0..50).map(|i| format!("<li class=\"item\">Item {i}</li>")).collect();
        let html = format!("<ul id=\"list\" class=\"items\">{items}<li class=\"item last\">End</li></ul>");
        let s = snapshot(&html, "", 10_000);
        assert_eq!(
            s.text,
            "ul#list.items\n li.item \"Item 0\"\n li.item \"Item 1\"\n li.item \"Item 2\"\n \
             … 46 more li.item like these\n li.item \"Item 49\"\n li.item.last \"End\""
        );
    }

    #[test]
    fn sampling_pins_items_quoted_in_the_request() {
        let items: String = (0..50).map(|i| format!("<li class=\"item\">Item {i}</li>")).collect();
        let html = format!("<ul>{items}</ul>");
        let s = snapshot(&html, "get the price of 'Item 17'", 10_000);
        assert!(s.text.contains("li.item \"Item 17\""), "{}", s.text);
        assert!(s.text.contains("… 45 more li.item like these"), "{}", s.text);
    }

    #[test]
    fn table_rows_become_one_line() {
        let html =
            "<table class=t><tr><th>Name</th><th>Price</th></tr><tr><td>A</td><td class=price>$1</td></tr></table>";
        let s = snapshot(html, "", 10_000);
        assert_eq!(s.text, "table.t > tbody\n tr | th \"Name\" | th \"Price\"\n tr | td \"A\" | td.price \"$1\"");
    }

    #[test]
    fn deep_nesting_is_cut_not_overflowed() {
        // Shallow enough to parse whole, too deep to print whole.
        let html = "<div class=d>t".repeat(500);
        let s = snapshot(&html, "", 100_000);
        assert!(!s.truncated);
        // `body` is level 0, so MAX_DEPTH divs and the `…` under them.
        assert_eq!(s.text.lines().count(), MAX_DEPTH + 1, "{}", s.text);
        assert_eq!(s.text.lines().last(), Some(&*format!("{}{ELLIPSIS}", " ".repeat(MAX_DEPTH))));
        // So deep that parsing it whole would take quadratic time.
        let html = "<div class=d>".repeat(50_000) + "deep";
        let s = snapshot(&html, "", 100_000);
        assert!(s.truncated);
        assert!(s.text.ends_with(ELLIPSIS));
    }

    #[test]
    fn huge_requests_are_capped() {
        let request: String = (0..5_000).map(|i| format!(".c{i} #i{i} 'phrase {i}' word{i} ")).collect();
        let t = Terms::parse(&request);
        assert_eq!((t.selectors.len(), t.phrases.len(), t.words.len()), (MAX_SELECTORS, MAX_PHRASES, MAX_WORDS));
        assert!(snapshot("<p class=c1>x</p>", &request, 100).text.contains("p.c1"));
    }

    #[test]
    fn hard_fit_respects_tiny_budgets() {
        let text = "title \"A fairly long title for a page\"".to_string();
        for budget in 0..20 {
            let out = hard_fit(text.clone(), budget);
            assert!(estimate_tokens(&out) <= budget, "{budget}: {out:?}");
        }
        assert_eq!(hard_fit(text.clone(), 1000), text);
    }
}
