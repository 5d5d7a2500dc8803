//! CSS selectors as Chromium answers them on a page nobody touches: the
//! `selectors` crate (Servo's, the one scraper uses) with svc's own
//! pseudo-classes and pseudo-elements, matched over scraper's tree.
//!
//! scraper's own `Selector` knows no pseudo-class beyond the tree-structural
//! ones and no pseudo-element: `:checked` or `::before` were a `SyntaxError`
//! where a browser answers. Here:
//!
//! - state that comes from the markup is read from it as the HTML standard
//!   says: `:checked`, `:default`, `:indeterminate`, `:enabled`, `:disabled`
//!   (with fieldset and optgroup inheritance), `:read-only`, `:read-write`,
//!   `:required`, `:optional`, `:placeholder-shown`, `:link` / `:any-link`
//!   (`a` and `area` with `href`), `:lang()`, `:dir()`, `:defined`, `:open`,
//!   `:target` (the element the page URL's fragment names, as on a load);
//! - state that only a user or the page's scripts could bring about matches
//!   nothing: `:hover`, `:active`, `:focus`, `:focus-visible`,
//!   `:focus-within`, `:visited`, `:autofill`, `:modal`, `:fullscreen`,
//!   `:popover-open`, `:user-valid`, `:user-invalid`, `:state()`, ...;
//! - what needs the browser's constraint validation (`:valid`, `:invalid`,
//!   `:in-range`, `:out-of-range`) is refused with an error that says so;
//! - pseudo-elements (`::before`, `:after`, `::marker`, ...) parse and match
//!   nothing, as `querySelectorAll` answers an empty list in a browser.
//!
//! See docs/decisions.md, "Static selectors (issue 36, part 3)".

use std::fmt;

use cssparser::{CowRcStr, ParseError, ToCss, Token};
use ego_tree::{NodeId, NodeRef};
use html5ever::tree_builder::QuirksMode as HtmlQuirks;
use html5ever::{LocalName, Namespace, local_name, ns};
use scraper::Node;
use scraper::node::Element as HtmlElement;
use scraper::selector::{CssLocalName, CssString};
use selectors::attr::{AttrSelectorOperation, CaseSensitivity, NamespaceConstraint};
use selectors::bloom::BloomFilter;
use selectors::matching::{
    self, ElementSelectorFlags, MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags, QuirksMode,
    SelectorCaches,
};
use selectors::parser::{self, ParseRelative, SelectorList, SelectorParseErrorKind};
use selectors::{Element, OpaqueElement};

/// A parsed selector list.
#[derive(Debug, Clone)]
pub struct Selector(SelectorList<Impl>);

/// Why a selector was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectorError {
    /// Not a selector (a browser throws `SyntaxError`).
    Invalid,
    /// A pseudo-class a browser answers but only with what the static
    /// engine does not have (`:invalid`, ...): its name.
    NeedsBrowser(String),
}

impl Selector {
    pub fn parse(css: &str) -> Result<Selector, SelectorError> {
        let mut parser = cssparser::Parser::new(css);
        SelectorList::parse(&Parser, &mut parser, ParseRelative::No).map(Selector).map_err(|e| match e.kind {
            cssparser::ParseErrorKind::Custom(ParseFail::NeedsBrowser(name)) => SelectorError::NeedsBrowser(name),
            _ => SelectorError::Invalid,
        })
    }
}

/// What a match needs to know of the document beside the tree.
#[derive(Debug, Default)]
pub struct Env {
    /// The element `:target` matches: the one the URL's fragment names.
    pub target: Option<NodeId>,
    /// The language of elements without a `lang` attribute among their
    /// ancestors (`<meta http-equiv=content-language>`).
    pub default_lang: Option<String>,
    /// Whether the page is in quirks mode (class and id selectors then match
    /// ASCII case-insensitively, as in browsers).
    pub quirks: bool,
}

impl Env {
    /// What `html`'s page at a URL with `fragment` gives a match.
    pub fn new(html: &scraper::Html, fragment: Option<&str>) -> Env {
        let quirks = html.quirks_mode == HtmlQuirks::Quirks;
        let root = html.tree.root();
        let mut target = None;
        let mut default_lang = None;
        let wanted = fragment.filter(|f| !f.is_empty()).map(|f| {
            let decoded = percent_decode(f);
            (f.to_string(), decoded)
        });
        for node in crate::document::descendants(root) {
            let Some(e) = node.value().as_element() else { continue };
            if let Some((raw, decoded)) = &wanted
                && target.is_none()
                && e.id().is_some_and(|id| id == raw || Some(id) == decoded.as_deref())
            {
                target = Some(node.id());
            }
            if default_lang.is_none()
                && e.name.local == local_name!("meta")
                && attr(e, &local_name!("http-equiv")).is_some_and(|v| v.eq_ignore_ascii_case("content-language"))
                && let Some(content) = attr(e, &local_name!("content"))
                && !content.contains(',')
            {
                let lang = content.trim_matches(is_space);
                if !lang.is_empty() {
                    default_lang = Some(lang.to_string());
                }
            }
        }
        // Else the first `a` whose name is the fragment (the HTML standard's
        // "indicated part of the document").
        if target.is_none()
            && let Some((raw, decoded)) = &wanted
        {
            target = crate::document::descendants(root)
                .find(|n| {
                    n.value().as_element().is_some_and(|e| {
                        e.name.local == local_name!("a")
                            && e.name.ns == ns!(html)
                            && attr(e, &local_name!("name")).is_some_and(|v| v == raw || Some(v) == decoded.as_deref())
                    })
                })
                .map(|n| n.id());
        }
        Env { target, default_lang, quirks }
    }

    fn quirks_mode(&self) -> QuirksMode {
        if self.quirks { QuirksMode::Quirks } else { QuirksMode::NoQuirks }
    }
}

/// Matching a selector over one document: holds the caches `:nth-child`
/// and `:has` fill, so one query reuses them across its candidates.
pub struct Matcher<'a> {
    env: &'a Env,
    caches: SelectorCaches,
}

impl<'a> Matcher<'a> {
    pub fn new(env: &'a Env) -> Matcher<'a> {
        Matcher { env, caches: SelectorCaches::default() }
    }

    /// Whether `node` (an element) matches `selector`, `:scope` being `scope`.
    pub fn matches(&mut self, selector: &Selector, node: NodeRef<'a, Node>, scope: Option<NodeRef<'a, Node>>) -> bool {
        let env = self.env;
        let mut context = MatchingContext::new(
            MatchingMode::Normal,
            None,
            &mut self.caches,
            env.quirks_mode(),
            NeedsSelectorFlags::No,
            MatchingForInvalidation::No,
        );
        context.scope_element = scope.map(|s| El { node: s, env }.opaque());
        let element = El { node, env };
        matching::matches_selector_list(&selector.0, &element, &mut context)
    }
}

// ------------------------------------------------------------------ parsing

#[derive(Debug, Clone, PartialEq)]
enum ParseFail {
    Selector(SelectorParseErrorKind),
    NeedsBrowser(String),
}

impl From<SelectorParseErrorKind> for ParseFail {
    fn from(e: SelectorParseErrorKind) -> Self {
        ParseFail::Selector(e)
    }
}

fn unsupported<T>() -> Result<T, ParseError<ParseFail>> {
    Err(ParseError::custom(ParseFail::Selector(SelectorParseErrorKind::UnsupportedPseudoClassOrElement)))
}

struct Parser;

impl<'i> parser::Parser<'i> for Parser {
    type Impl = Impl;
    type Error = ParseFail;

    fn parse_is_and_where(&self) -> bool {
        true
    }

    fn parse_has(&self) -> bool {
        true
    }

    fn parse_nth_child_of(&self) -> bool {
        true
    }

    fn parse_host(&self) -> bool {
        true
    }

    fn parse_part(&self) -> bool {
        true
    }

    fn parse_slotted(&self) -> bool {
        true
    }

    /// `&` outside a nested rule: `:scope`, as Chromium (with CSS nesting) answers.
    fn parse_parent_selector(&self) -> bool {
        true
    }

    fn is_is_alias(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case("-webkit-any")
    }

    fn parse_non_ts_pseudo_class(&self, name: CowRcStr<'i>) -> Result<PseudoClass, ParseError<Self::Error>> {
        let lower = name.to_ascii_lowercase();
        let class = match lower.as_str() {
            "link" => PseudoClass::Link,
            "any-link" | "-webkit-any-link" => PseudoClass::AnyLink,
            "visited" => PseudoClass::Visited,
            "target" => PseudoClass::Target,
            "checked" => PseudoClass::Checked,
            "default" => PseudoClass::Default,
            "indeterminate" => PseudoClass::Indeterminate,
            "enabled" => PseudoClass::Enabled,
            "disabled" => PseudoClass::Disabled,
            "read-only" => PseudoClass::ReadOnly,
            "read-write" => PseudoClass::ReadWrite,
            "required" => PseudoClass::Required,
            "optional" => PseudoClass::Optional,
            "placeholder-shown" => PseudoClass::PlaceholderShown,
            "defined" => PseudoClass::Defined,
            "open" => PseudoClass::Open,
            "hover"
            | "active"
            | "focus"
            | "focus-visible"
            | "focus-within"
            | "autofill"
            | "-webkit-autofill"
            | "modal"
            | "fullscreen"
            | "-webkit-full-screen"
            | "picture-in-picture"
            | "popover-open"
            | "user-valid"
            | "user-invalid"
            | "target-current"
            | "xr-overlay" => PseudoClass::Never(Box::from(lower)),
            "valid" | "invalid" | "in-range" | "out-of-range" => {
                return Err(ParseError::custom(ParseFail::NeedsBrowser(format!(":{lower}"))));
            }
            _ => return unsupported(),
        };
        Ok(class)
    }

    fn parse_non_ts_functional_pseudo_class(
        &self,
        name: CowRcStr<'i>,
        input: &mut cssparser::Parser<'i>,
        _after_part: bool,
    ) -> Result<PseudoClass, ParseError<Self::Error>> {
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "lang" => {
                let ranges = input.parse_comma_separated(|input| match input.next()? {
                    Token::Ident(s) | Token::QuotedString(s) => Ok(s.to_string()),
                    _ => Err(ParseError::<ParseFail>::unexpected_token()),
                })?;
                Ok(PseudoClass::Lang(ranges.into_boxed_slice()))
            }
            "dir" => {
                let dir = input.expect_ident()?.to_ascii_lowercase();
                Ok(PseudoClass::Dir(match dir.as_str() {
                    "ltr" => Some(Dir::Ltr),
                    "rtl" => Some(Dir::Rtl),
                    _ => None,
                }))
            }
            "state" => {
                let name = input.expect_ident()?.to_string();
                Ok(PseudoClass::Never(Box::from(format!("state({name})"))))
            }
            _ => unsupported(),
        }
    }

    fn parse_pseudo_element(&self, name: CowRcStr<'i>) -> Result<PseudoElement, ParseError<Self::Error>> {
        let lower = name.to_ascii_lowercase();
        let known = matches!(
            lower.as_str(),
            "before"
                | "after"
                | "first-line"
                | "first-letter"
                | "marker"
                | "placeholder"
                | "selection"
                | "backdrop"
                | "file-selector-button"
                | "grammar-error"
                | "spelling-error"
                | "target-text"
                | "search-text"
                | "cue"
                | "details-content"
                | "column"
                | "scroll-marker"
                | "scroll-marker-group"
                | "checkmark"
                | "picker-icon"
                | "view-transition"
        ) || lower.starts_with("-webkit-");
        if !known {
            return unsupported();
        }
        Ok(PseudoElement(Box::from(lower)))
    }

    fn parse_functional_pseudo_element(
        &self,
        name: CowRcStr<'i>,
        input: &mut cssparser::Parser<'i>,
    ) -> Result<PseudoElement, ParseError<Self::Error>> {
        let lower = name.to_ascii_lowercase();
        let known = matches!(
            lower.as_str(),
            "cue"
                | "highlight"
                | "picker"
                | "scroll-button"
                | "view-transition-group"
                | "view-transition-image-pair"
                | "view-transition-old"
                | "view-transition-new"
        );
        if !known {
            return unsupported();
        }
        // The argument is not looked at: nothing matches a pseudo-element.
        while input.next().is_ok() {}
        Ok(PseudoElement(Box::from(format!("{lower}()"))))
    }
}

// ------------------------------------------------------------------ the implementation

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Impl;

impl parser::SelectorImpl for Impl {
    type ExtraMatchingData<'a> = ();
    type AttrValue = CssString;
    type Identifier = CssLocalName;
    type LocalName = CssLocalName;
    type NamespaceUrl = Namespace;
    type NamespacePrefix = CssLocalName;
    type BorrowedNamespaceUrl = Namespace;
    type BorrowedLocalName = CssLocalName;
    type NonTSPseudoClass = PseudoClass;
    type PseudoElement = PseudoElement;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Ltr,
    Rtl,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PseudoClass {
    Link,
    AnyLink,
    Visited,
    Target,
    Checked,
    Default,
    Indeterminate,
    Enabled,
    Disabled,
    ReadOnly,
    ReadWrite,
    Required,
    Optional,
    PlaceholderShown,
    Defined,
    Open,
    Lang(Box<[String]>),
    /// `None` for an argument other than `ltr` and `rtl` (valid, matches nothing).
    Dir(Option<Dir>),
    /// A state nobody brings about on a page nobody touches: its name.
    Never(Box<str>),
}

impl parser::NonTSPseudoClass for PseudoClass {
    fn is_active_or_hover(&self) -> bool {
        matches!(self, PseudoClass::Never(name) if &**name == "hover" || &**name == "active")
    }

    fn is_user_action_state(&self) -> bool {
        matches!(self, PseudoClass::Never(name) if matches!(&**name, "hover" | "active" | "focus" | "focus-visible" | "focus-within"))
    }
}

impl ToCss for PseudoClass {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        let name = match self {
            PseudoClass::Link => "link",
            PseudoClass::AnyLink => "any-link",
            PseudoClass::Visited => "visited",
            PseudoClass::Target => "target",
            PseudoClass::Checked => "checked",
            PseudoClass::Default => "default",
            PseudoClass::Indeterminate => "indeterminate",
            PseudoClass::Enabled => "enabled",
            PseudoClass::Disabled => "disabled",
            PseudoClass::ReadOnly => "read-only",
            PseudoClass::ReadWrite => "read-write",
            PseudoClass::Required => "required",
            PseudoClass::Optional => "optional",
            PseudoClass::PlaceholderShown => "placeholder-shown",
            PseudoClass::Defined => "defined",
            PseudoClass::Open => "open",
            PseudoClass::Lang(ranges) => {
                dest.write_str(":lang(")?;
                for (i, range) in ranges.iter().enumerate() {
                    if i > 0 {
                        dest.write_str(", ")?;
                    }
                    cssparser::serialize_string(range, dest)?;
                }
                return dest.write_char(')');
            }
            PseudoClass::Dir(dir) => {
                let dir = match dir {
                    Some(Dir::Ltr) => "ltr",
                    Some(Dir::Rtl) => "rtl",
                    None => "unknown",
                };
                return write!(dest, ":dir({dir})");
            }
            PseudoClass::Never(name) => name,
        };
        dest.write_char(':')?;
        dest.write_str(name)
    }
}

/// A pseudo-element: parses, matches nothing. Its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PseudoElement(Box<str>);

impl parser::PseudoElement for PseudoElement {
    fn accepts_state_pseudo_classes(&self) -> bool {
        true
    }

    fn valid_after_before_or_after(&self) -> bool {
        &*self.0 == "marker"
    }

    fn is_before_or_after(&self) -> bool {
        matches!(&*self.0, "before" | "after")
    }
}

impl ToCss for PseudoElement {
    fn to_css<W: fmt::Write>(&self, dest: &mut W) -> fmt::Result {
        dest.write_str("::")?;
        dest.write_str(&self.0)
    }
}

// ------------------------------------------------------------------ the element

/// An element of scraper's tree as the `selectors` crate sees it.
#[derive(Clone, Copy)]
struct El<'a> {
    node: NodeRef<'a, Node>,
    env: &'a Env,
}

impl fmt::Debug for El<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "El({:?})", self.node.id())
    }
}

impl<'a> El<'a> {
    fn wrap(node: NodeRef<'a, Node>, env: &'a Env) -> Option<El<'a>> {
        node.value().is_element().then_some(El { node, env })
    }

    fn value(&self) -> &'a HtmlElement {
        match self.node.value() {
            Node::Element(e) => e,
            _ => unreachable!("an El is an element"),
        }
    }

    fn is_html(&self) -> bool {
        self.value().name.ns == ns!(html)
    }

    /// Whether this is the HTML element `name`.
    fn is(&self, name: &LocalName) -> bool {
        let e = self.value();
        e.name.ns == ns!(html) && e.name.local == *name
    }

    fn attr(&self, name: &LocalName) -> Option<&'a str> {
        attr(self.value(), name)
    }

    fn has(&self, name: &LocalName) -> bool {
        self.attr(name).is_some()
    }

    fn ancestors(&self) -> impl Iterator<Item = El<'a>> + use<'a> {
        let env = self.env;
        let mut node = self.node.parent();
        std::iter::from_fn(move || {
            let n = node?;
            node = n.parent();
            El::wrap(n, env)
        })
    }

    /// `input`'s type, lower-cased; "text" for a missing or unknown one.
    fn input_type(&self) -> &'static str {
        const TYPES: &[&str] = &[
            "hidden",
            "text",
            "search",
            "tel",
            "url",
            "email",
            "password",
            "date",
            "month",
            "week",
            "time",
            "datetime-local",
            "number",
            "range",
            "color",
            "checkbox",
            "radio",
            "file",
            "submit",
            "image",
            "reset",
            "button",
        ];
        let given = self.attr(&local_name!("type")).unwrap_or("");
        TYPES.iter().find(|t| t.eq_ignore_ascii_case(given)).copied().unwrap_or("text")
    }

    fn is_input_of(&self, types: &[&str]) -> bool {
        self.is(&local_name!("input")) && types.contains(&self.input_type())
    }

    /// The HTML standard's "disabled" for form controls, fieldsets,
    /// optgroups and options.
    fn is_disabled(&self) -> bool {
        let e = self.value();
        if e.name.ns != ns!(html) {
            return false;
        }
        match e.name.local {
            local_name!("button")
            | local_name!("input")
            | local_name!("select")
            | local_name!("textarea")
            | local_name!("fieldset") => self.has(&local_name!("disabled")) || self.in_disabled_fieldset(),
            local_name!("optgroup") => self.has(&local_name!("disabled")),
            local_name!("option") => {
                self.has(&local_name!("disabled"))
                    || self
                        .node
                        .parent()
                        .and_then(|p| El::wrap(p, self.env))
                        .is_some_and(|p| p.is(&local_name!("optgroup")) && p.has(&local_name!("disabled")))
            }
            _ => false,
        }
    }

    /// Whether a disabled fieldset holds this element outside its first legend.
    fn in_disabled_fieldset(&self) -> bool {
        let mut child = *self;
        for ancestor in self.ancestors() {
            if ancestor.is(&local_name!("fieldset")) && ancestor.has(&local_name!("disabled")) {
                let first_legend = ancestor
                    .node
                    .children()
                    .filter_map(|c| El::wrap(c, self.env))
                    .find(|c| c.is(&local_name!("legend")));
                let in_legend = first_legend.is_some_and(|l| l.node.id() == child.node.id());
                if !in_legend {
                    return true;
                }
            }
            child = ancestor;
        }
        false
    }

    /// Whether `:enabled` / `:disabled` apply at all.
    fn can_be_disabled(&self) -> bool {
        self.is_html()
            && matches!(
                self.value().name.local,
                local_name!("button")
                    | local_name!("input")
                    | local_name!("select")
                    | local_name!("textarea")
                    | local_name!("optgroup")
                    | local_name!("option")
                    | local_name!("fieldset")
            )
    }

    /// The form a control belongs to: its `form` attribute's, else its
    /// nearest ancestor form.
    fn form_owner(&self) -> Option<NodeId> {
        if let Some(id) = self.attr(&local_name!("form")) {
            let root = self.node.tree().root();
            return crate::document::descendants(root)
                .find(|n| n.value().as_element().is_some_and(|e| e.id() == Some(id)))
                .filter(|n| n.value().as_element().is_some_and(|e| e.name.local == local_name!("form")))
                .map(|n| n.id());
        }
        self.ancestors().find(|a| a.is(&local_name!("form"))).map(|a| a.node.id())
    }

    /// The radio buttons of this one's group, in tree order (itself included).
    fn radio_group(&self) -> Vec<El<'a>> {
        let name = match self.attr(&local_name!("name")) {
            Some(name) if !name.is_empty() => name,
            _ => return vec![*self],
        };
        let owner = self.form_owner();
        let root = match owner {
            Some(form) => self.node.tree().get(form).filter(|f| self.ancestors().any(|a| a.node.id() == f.id())),
            None => None,
        }
        .unwrap_or_else(|| self.node.tree().root());
        crate::document::descendants(root)
            .filter_map(|n| El::wrap(n, self.env))
            .filter(|e| {
                e.is_input_of(&["radio"]) && e.attr(&local_name!("name")) == Some(name) && e.form_owner() == owner
            })
            .collect()
    }

    /// Checkedness as parsed: a checkbox with `checked`; a radio with
    /// `checked` unless a later one of its group has it too.
    fn input_checked(&self) -> bool {
        match self.input_type() {
            "checkbox" => self.has(&local_name!("checked")),
            "radio" => {
                self.has(&local_name!("checked")) && {
                    let group = self.radio_group();
                    let last = group.iter().rev().find(|r| r.has(&local_name!("checked")));
                    last.is_none_or(|l| l.node.id() == self.node.id())
                }
            }
            _ => false,
        }
    }

    /// An option's selectedness after the parse: the select's last option
    /// with `selected` (every one with it for `multiple`), else, for a
    /// drop-down, its first option that is not disabled.
    fn option_selected(&self) -> bool {
        let select = self.ancestors().take(2).find(|a| a.is(&local_name!("select")));
        let Some(select) = select else { return self.has(&local_name!("selected")) };
        if select.has(&local_name!("multiple")) {
            return self.has(&local_name!("selected"));
        }
        let options: Vec<El<'a>> = crate::document::descendants(select.node)
            .skip(1)
            .filter_map(|n| El::wrap(n, self.env))
            .filter(|o| {
                o.is(&local_name!("option"))
                    && o.ancestors()
                        .find(|a| a.is(&local_name!("select")))
                        .is_some_and(|s| s.node.id() == select.node.id())
            })
            .collect();
        let chosen = options.iter().rev().find(|o| o.has(&local_name!("selected"))).or_else(|| {
            let size = select.attr(&local_name!("size")).and_then(|s| s.trim().parse::<u32>().ok()).unwrap_or(1);
            if size > 1 { None } else { options.iter().find(|o| !o.is_disabled()) }
        });
        chosen.is_some_and(|o| o.node.id() == self.node.id())
    }

    fn is_checked(&self) -> bool {
        if self.is(&local_name!("input")) {
            self.input_checked()
        } else if self.is(&local_name!("option")) {
            self.option_selected()
        } else {
            false
        }
    }

    /// A submit button: `button` of type submit (the default), `input` of type submit or image.
    fn is_submit_button(&self) -> bool {
        if self.is(&local_name!("button")) {
            let t = self.attr(&local_name!("type")).unwrap_or("");
            !t.eq_ignore_ascii_case("button") && !t.eq_ignore_ascii_case("reset")
        } else {
            self.is_input_of(&["submit", "image"])
        }
    }

    fn is_default(&self) -> bool {
        if self.is_input_of(&["checkbox", "radio"]) {
            return self.has(&local_name!("checked"));
        }
        if self.is(&local_name!("option")) {
            return self.has(&local_name!("selected"));
        }
        if self.is_submit_button() {
            let Some(form) = self.form_owner() else { return false };
            let root = self.node.tree().root();
            let first = crate::document::descendants(root)
                .filter_map(|n| El::wrap(n, self.env))
                .find(|e| e.is_submit_button() && e.form_owner() == Some(form));
            return first.is_some_and(|f| f.node.id() == self.node.id());
        }
        false
    }

    fn is_indeterminate(&self) -> bool {
        if self.is_input_of(&["radio"]) {
            return !self.radio_group().iter().any(|r| r.input_checked());
        }
        self.is(&local_name!("progress")) && !self.has(&local_name!("value"))
    }

    /// `:read-write`: a text field that is neither read-only nor disabled,
    /// or an editable element (`contenteditable`).
    fn is_read_write(&self) -> bool {
        const TEXT_LIKE: &[&str] = &[
            "text",
            "search",
            "url",
            "tel",
            "email",
            "password",
            "date",
            "month",
            "week",
            "time",
            "datetime-local",
            "number",
        ];
        if self.is(&local_name!("input")) {
            return self.is_input_of(TEXT_LIKE) && !self.has(&local_name!("readonly")) && !self.is_disabled();
        }
        if self.is(&local_name!("textarea")) {
            return !self.has(&local_name!("readonly")) && !self.is_disabled();
        }
        // Editable: the nearest `contenteditable` says.
        std::iter::once(*self).chain(self.ancestors()).filter(|e| e.is_html()).find_map(|e| {
            let v = e.attr(&local_name!("contenteditable"))?;
            if v.is_empty() || v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("plaintext-only") {
                Some(true)
            } else if v.eq_ignore_ascii_case("false") {
                Some(false)
            } else {
                None
            }
        }) == Some(true)
    }

    /// `:required` (`Some(true)`), `:optional` (`Some(false)`), neither (`None`).
    fn required(&self) -> Option<bool> {
        if self.is(&local_name!("input")) {
            let applies = !self.is_input_of(&["hidden", "range", "color", "submit", "image", "reset", "button"]);
            return Some(applies && self.has(&local_name!("required")));
        }
        if self.is(&local_name!("select")) || self.is(&local_name!("textarea")) {
            return Some(self.has(&local_name!("required")));
        }
        None
    }

    fn is_placeholder_shown(&self) -> bool {
        let empty_value = if self.is_input_of(&["text", "search", "url", "tel", "email", "password", "number"]) {
            self.attr(&local_name!("value")).unwrap_or("").is_empty()
        } else if self.is(&local_name!("textarea")) {
            !self.node.children().any(|c| matches!(c.value(), Node::Text(t) if !t.text.is_empty()))
        } else {
            return false;
        };
        let placeholder = self.attr(&local_name!("placeholder")).unwrap_or("");
        empty_value && placeholder.chars().any(|c| c != '\n' && c != '\r')
    }

    fn is_link(&self) -> bool {
        let e = self.value();
        match e.name.ns {
            ns!(html) => {
                matches!(e.name.local, local_name!("a") | local_name!("area")) && self.has(&local_name!("href"))
            }
            ns!(svg) => {
                e.name.local == local_name!("a")
                    && e.attrs
                        .iter()
                        .any(|(k, _)| k.local == local_name!("href") && (k.ns == ns!() || k.ns == ns!(xlink)))
            }
            _ => false,
        }
    }

    fn is_defined(&self) -> bool {
        let e = self.value();
        if e.name.ns != ns!(html) {
            return true;
        }
        !is_custom_element_name(&e.name.local) && !e.attrs.iter().any(|(k, _)| k.ns == ns!() && &*k.local == "is")
    }

    /// The element's language: the nearest `lang` (or `xml:lang`), else
    /// the document's default; `None` when unknown.
    fn language(&self) -> Option<&'a str> {
        for e in std::iter::once(*self).chain(self.ancestors()) {
            let value = e.value();
            if let Some((_, v)) = value.attrs.iter().find(|(k, _)| k.local == local_name!("lang") && k.ns == ns!(xml)) {
                return Some(v);
            }
            if let Some((_, v)) = value.attrs.iter().find(|(k, _)| k.local == local_name!("lang") && k.ns == ns!()) {
                return Some(v);
            }
        }
        self.env.default_lang.as_deref()
    }

    /// The HTML standard's directionality.
    fn direction(&self) -> Dir {
        let mut element = *self;
        loop {
            if element.is_html() {
                let dir = element.attr(&local_name!("dir")).unwrap_or("");
                if dir.eq_ignore_ascii_case("ltr") {
                    return Dir::Ltr;
                }
                if dir.eq_ignore_ascii_case("rtl") {
                    return Dir::Rtl;
                }
                let auto = dir.eq_ignore_ascii_case("auto");
                if auto || element.is(&local_name!("bdi")) {
                    if let Some(found) = element.auto_direction() {
                        return found;
                    }
                } else if element.is_input_of(&["tel"]) {
                    return Dir::Ltr;
                }
            }
            match element.node.parent().and_then(|p| El::wrap(p, self.env)) {
                Some(parent) => element = parent,
                None => return Dir::Ltr,
            }
        }
    }

    /// `dir=auto`: the first strong character of the text (of the value
    /// for text fields), skipping what has its own direction.
    fn auto_direction(&self) -> Option<Dir> {
        if self.is(&local_name!("input")) {
            return first_strong(self.attr(&local_name!("value")).unwrap_or(""));
        }
        if self.is(&local_name!("textarea")) {
            return self.node.children().find_map(|c| match c.value() {
                Node::Text(t) => first_strong(&t.text),
                _ => None,
            });
        }
        let mut stack: Vec<NodeRef<'a, Node>> = self.node.children().collect();
        stack.reverse();
        while let Some(n) = stack.pop() {
            match n.value() {
                Node::Text(t) => {
                    if let Some(d) = first_strong(&t.text) {
                        return Some(d);
                    }
                }
                Node::Element(e) => {
                    let skip = e.name.ns == ns!(html)
                        && (matches!(
                            e.name.local,
                            local_name!("bdi") | local_name!("script") | local_name!("style") | local_name!("textarea")
                        ) || attr(e, &local_name!("dir"))
                            .is_some_and(|d| ["ltr", "rtl", "auto"].iter().any(|v| d.eq_ignore_ascii_case(v))));
                    if !skip {
                        let at = stack.len();
                        stack.extend(n.children());
                        stack[at..].reverse();
                    }
                }
                _ => {}
            }
        }
        None
    }
}

impl<'a> Element for El<'a> {
    type Impl = Impl;

    fn opaque(&self) -> OpaqueElement {
        OpaqueElement::new(self.node.value())
    }

    fn parent_element(&self) -> Option<Self> {
        self.node.parent().and_then(|p| El::wrap(p, self.env))
    }

    fn parent_node_is_shadow_root(&self) -> bool {
        false
    }

    fn containing_shadow_host(&self) -> Option<Self> {
        None
    }

    fn is_pseudo_element(&self) -> bool {
        false
    }

    fn prev_sibling_element(&self) -> Option<Self> {
        self.node.prev_siblings().find_map(|s| El::wrap(s, self.env))
    }

    fn next_sibling_element(&self) -> Option<Self> {
        self.node.next_siblings().find_map(|s| El::wrap(s, self.env))
    }

    fn first_element_child(&self) -> Option<Self> {
        self.node.children().find_map(|c| El::wrap(c, self.env))
    }

    fn is_html_element_in_html_document(&self) -> bool {
        self.is_html()
    }

    fn has_local_name(&self, name: &CssLocalName) -> bool {
        self.value().name.local == name.0
    }

    fn has_namespace(&self, ns: &Namespace) -> bool {
        self.value().name.ns == *ns
    }

    fn is_same_type(&self, other: &Self) -> bool {
        self.value().name == other.value().name
    }

    fn attr_matches(
        &self,
        ns: &NamespaceConstraint<&Namespace>,
        local_name: &CssLocalName,
        operation: &AttrSelectorOperation<&CssString>,
    ) -> bool {
        self.value().attrs.iter().any(|(key, value)| {
            !matches!(*ns, NamespaceConstraint::Specific(url) if *url != key.ns)
                && local_name.0 == key.local
                && operation.eval_str(value)
        })
    }

    fn match_non_ts_pseudo_class(&self, pc: &PseudoClass, _context: &mut MatchingContext<'_, Impl>) -> bool {
        match pc {
            PseudoClass::Link | PseudoClass::AnyLink => self.is_link(),
            PseudoClass::Visited | PseudoClass::Never(_) => false,
            PseudoClass::Target => self.env.target == Some(self.node.id()),
            PseudoClass::Checked => self.is_checked(),
            PseudoClass::Default => self.is_default(),
            PseudoClass::Indeterminate => self.is_indeterminate(),
            PseudoClass::Enabled => self.can_be_disabled() && !self.is_disabled(),
            PseudoClass::Disabled => self.can_be_disabled() && self.is_disabled(),
            PseudoClass::ReadWrite => self.is_read_write(),
            PseudoClass::ReadOnly => !self.is_read_write(),
            PseudoClass::Required => self.required() == Some(true),
            PseudoClass::Optional => self.required() == Some(false),
            PseudoClass::PlaceholderShown => self.is_placeholder_shown(),
            PseudoClass::Defined => self.is_defined(),
            PseudoClass::Open => {
                (self.is(&local_name!("details")) || self.is(&local_name!("dialog"))) && self.has(&local_name!("open"))
            }
            PseudoClass::Lang(ranges) => {
                self.language().is_some_and(|lang| ranges.iter().any(|range| lang_matches(lang, range)))
            }
            PseudoClass::Dir(dir) => dir.is_some_and(|d| self.direction() == d),
        }
    }

    fn match_pseudo_element(&self, _pe: &PseudoElement, _context: &mut MatchingContext<'_, Impl>) -> bool {
        false
    }

    fn apply_selector_flags(&self, _flags: ElementSelectorFlags) {}

    fn is_link(&self) -> bool {
        El::is_link(self)
    }

    fn is_html_slot_element(&self) -> bool {
        self.is(&local_name!("slot"))
    }

    fn has_id(&self, id: &CssLocalName, case_sensitivity: CaseSensitivity) -> bool {
        self.value().id().is_some_and(|v| case_sensitivity.eq(id.0.as_bytes(), v.as_bytes()))
    }

    fn has_class(&self, name: &CssLocalName, case_sensitivity: CaseSensitivity) -> bool {
        self.value().has_class(&name.0, case_sensitivity)
    }

    fn has_custom_state(&self, _name: &CssLocalName) -> bool {
        false
    }

    fn imported_part(&self, _name: &CssLocalName) -> Option<CssLocalName> {
        None
    }

    fn is_part(&self, _name: &CssLocalName) -> bool {
        false
    }

    fn is_empty(&self) -> bool {
        !self.node.children().any(|c| match c.value() {
            Node::Element(_) => true,
            Node::Text(t) => !t.text.is_empty(),
            _ => false,
        })
    }

    fn is_root(&self) -> bool {
        self.node.parent().is_some_and(|p| p.value().is_document())
    }

    fn add_element_unique_hashes(&self, _filter: &mut BloomFilter) -> bool {
        false
    }
}

// ------------------------------------------------------------------ helpers

fn attr<'a>(e: &'a HtmlElement, name: &LocalName) -> Option<&'a str> {
    e.attrs.iter().find(|(k, _)| k.local == *name && k.ns == ns!()).map(|(_, v)| &**v)
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0c' | '\r')
}

/// A valid custom element name, as far as a selector cares: a lower-case
/// ASCII letter first and a hyphen in it, not one of the reserved names.
fn is_custom_element_name(name: &str) -> bool {
    const RESERVED: &[&str] = &[
        "annotation-xml",
        "color-profile",
        "font-face",
        "font-face-src",
        "font-face-uri",
        "font-face-format",
        "font-face-name",
        "missing-glyph",
    ];
    name.starts_with(|c: char| c.is_ascii_lowercase()) && name.contains('-') && !RESERVED.contains(&name)
}

/// `:lang()`'s matching: RFC 4647 extended filtering, ASCII case-insensitive
/// (`en` matches `en`, `en-AU`; `*-CH` matches `de-CH`).
fn lang_matches(lang: &str, range: &str) -> bool {
    if range.is_empty() {
        return lang.is_empty();
    }
    let tag: Vec<&str> = lang.split('-').collect();
    let range: Vec<&str> = range.split('-').collect();
    if tag[0].is_empty() {
        return false;
    }
    if range[0] != "*" && !range[0].eq_ignore_ascii_case(tag[0]) {
        return false;
    }
    let (mut i, mut j) = (1, 1);
    while i < range.len() {
        if range[i] == "*" {
            i += 1;
            continue;
        }
        let Some(subtag) = tag.get(j) else { return false };
        if range[i].eq_ignore_ascii_case(subtag) {
            i += 1;
            j += 1;
        } else if subtag.len() == 1 {
            return false;
        } else {
            j += 1;
        }
    }
    true
}

/// The direction of `text`'s first strongly directional character.
fn first_strong(text: &str) -> Option<Dir> {
    text.chars().find_map(|c| {
        let cp = c as u32;
        let rtl =
            matches!(cp, 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF);
        if rtl && c.is_alphabetic() || matches!(cp, 0x05BE | 0x05C0 | 0x05C3 | 0x05C6 | 0x061B | 0x061F | 0x200F) {
            Some(Dir::Rtl)
        } else if c.is_alphabetic() || cp == 0x200E {
            Some(Dir::Ltr)
        } else {
            None
        }
    })
}

fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return None;
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}
