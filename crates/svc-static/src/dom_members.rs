//! The members of the DOM's prototypes (`Node.prototype`, `Element.prototype`,
//! `Document.prototype`, ...), defined natively from the tables below, with
//! their behaviour in JavaScript (`js/groups/*.js`) read and made on first
//! use.
//!
//! A run starts from a realm as built (nothing of a run may be visible to the
//! next; `realm.rs` copies the realm back before each run), and building ~400
//! properties and the ~600 JavaScript functions behind them was most of a
//! run's CPU (docs/benchmarks.md, issue 36 part 3). Here each
//! prototype gets its properties from the tables: a method is a C function
//! QuickJS creates only when the property is first read (a
//! `JS_SetPropertyFunctionList` entry), an accessor a pair of C functions.
//! Calling one forwards to the function of that name in its *group* of
//! implementations (the Node accessors, the form and table accessors, ...):
//! a script of its own, compiled once per process, whose bytecode a run
//! reads and runs over the prelude's kit when one of the group's members is
//! first called. A run pays for the groups its script uses.
//!
//! What a script can see is what the prelude defined before, name by name and
//! in the same order: accessors enumerable and configurable, with a setter
//! that refuses by name; methods writable and configurable; refusals that
//! throw the prelude's "is not supported by the static engine" error. A
//! getter is named as its property and a setter has no name, as before; a
//! refusal now has its method's name (`appendChild`), as a browser's has
//! (`realm_shape.json` records all of it).
//!
//! The state (the prelude's kit and its `unsupported`, the realm's; the
//! groups made and the implementations resolved so far, a run's) hangs from
//! the context's opaque pointer, which nothing else in svc or rquickjs uses;
//! [`forget_run`] empties a run's slots after the realm is copied back, and
//! [`release`] frees it all before the context goes.

use std::ffi::{CStr, c_int};
use std::sync::OnceLock;

use rquickjs::{Array, Ctx, Function, Object, qjs};

/// One prototype's members, in the order they are defined.
enum Section {
    /// Accessors: the getter is the group's function of that name; the
    /// setter refuses.
    Getters(&'static CStr, &'static [&'static CStr]),
    /// Methods (name, `length`): the group's function of that name.
    Methods(&'static CStr, &'static [(&'static CStr, u8)]),
    /// Methods that refuse, saying why.
    Refusals(&'static str, &'static [&'static CStr]),
    /// Accessors that refuse to be read or set, saying why.
    RefusedGetters(&'static str, &'static [&'static CStr]),
}

use Section::{Getters, Methods, Refusals, RefusedGetters};

const READ_ONLY: &str = "the page is read-only";
const NO_EVENTS: &str = "no events";
const NO_LAYOUT: &str = "no layout";

const QUERIES: Section = Methods(
    c"queries",
    &[(c"querySelector", 1), (c"querySelectorAll", 1), (c"getElementsByClassName", 1), (c"getElementsByTagName", 1)],
);
const TREE: Section = Getters(c"tree", &[c"children", c"childElementCount", c"firstElementChild", c"lastElementChild"]);

const NODE: &[Section] = &[
    Getters(
        c"node",
        &[
            c"nodeType",
            c"nodeName",
            c"nodeValue",
            c"textContent",
            c"parentNode",
            c"parentElement",
            c"childNodes",
            c"firstChild",
            c"lastChild",
            c"nextSibling",
            c"previousSibling",
            c"ownerDocument",
            c"isConnected",
            c"baseURI",
        ],
    ),
    Methods(
        c"nodeMethods",
        &[
            (c"hasChildNodes", 0),
            (c"contains", 1),
            (c"isSameNode", 1),
            (c"getRootNode", 0),
            (c"compareDocumentPosition", 0),
        ],
    ),
    Refusals(
        READ_ONLY,
        &[c"appendChild", c"removeChild", c"replaceChild", c"insertBefore", c"cloneNode", c"normalize"],
    ),
    Refusals(NO_EVENTS, &[c"addEventListener", c"removeEventListener", c"dispatchEvent"]),
];
const CHARACTER_DATA: &[Section] = &[Getters(c"characterData", &[c"data", c"length"])];
const TEXT: &[Section] = &[Getters(c"characterData", &[c"wholeText"])];
const DOCUMENT_TYPE: &[Section] = &[Getters(c"characterData", &[c"name"])];

const ELEMENT: &[Section] = &[
    Getters(
        c"element",
        &[
            c"tagName",
            c"localName",
            c"namespaceURI",
            c"id",
            c"className",
            c"classList",
            c"attributes",
            c"dataset",
            c"innerHTML",
            c"outerHTML",
            c"innerText",
            c"outerText",
            c"nextElementSibling",
            c"previousElementSibling",
            c"style",
            c"shadowRoot",
            c"slot",
        ],
    ),
    TREE,
    Getters(
        c"element",
        &[
            // URL attributes.
            c"href",
            c"src",
            c"action",
            c"cite",
            c"poster",
            // A hyperlink's parts.
            c"protocol",
            c"host",
            c"hostname",
            c"port",
            c"pathname",
            c"search",
            c"hash",
            c"origin",
            c"username",
            c"password",
            // Reflected string attributes.
            c"title",
            c"lang",
            c"dir",
            c"alt",
            c"name",
            c"rel",
            c"target",
            c"placeholder",
            c"htmlFor",
            c"download",
            c"srcset",
            c"sizes",
            c"accessKey",
            c"referrerPolicy",
            c"hreflang",
            c"httpEquiv",
            c"charset",
            c"media",
            c"role",
            c"autocomplete",
            c"pattern",
            c"min",
            c"max",
            c"step",
            c"headers",
            c"abbr",
            c"scope",
            c"datetime",
            c"dateTime",
            // Reflected boolean attributes.
            c"hidden",
            c"disabled",
            c"required",
            c"readOnly",
            c"multiple",
            c"open",
            c"defaultChecked",
            c"defaultSelected",
            c"async",
            c"defer",
            c"autofocus",
            c"noValidate",
            c"checked",
            c"selected",
        ],
    ),
    Getters(
        c"forms",
        &[
            c"type",
            c"value",
            c"defaultValue",
            c"text",
            c"label",
            c"options",
            c"selectedIndex",
            c"selectedOptions",
            c"index",
            c"cells",
            c"tBodies",
            c"tHead",
            c"tFoot",
            c"caption",
            c"rowIndex",
            c"cellIndex",
            c"colSpan",
            c"rowSpan",
            c"elements",
            c"method",
            c"enctype",
            c"rows",
            c"cols",
            c"size",
            c"maxLength",
            c"minLength",
            c"form",
        ],
    ),
    Methods(
        c"elementMethods",
        &[
            (c"getAttribute", 1),
            (c"getAttributeNames", 0),
            (c"hasAttribute", 1),
            (c"hasAttributes", 0),
            (c"closest", 1),
            (c"matches", 1),
            (c"webkitMatchesSelector", 1),
            (c"scrollIntoView", 0),
            (c"scrollTo", 0),
            (c"scrollBy", 0),
        ],
    ),
    QUERIES,
    Refusals(
        READ_ONLY,
        &[
            c"setAttribute",
            c"removeAttribute",
            c"toggleAttribute",
            c"setAttributeNS",
            c"removeAttributeNS",
            c"remove",
            c"append",
            c"prepend",
            c"before",
            c"after",
            c"replaceWith",
            c"replaceChildren",
            c"insertAdjacentHTML",
            c"insertAdjacentElement",
            c"insertAdjacentText",
            c"attachShadow",
            c"setHTMLUnsafe",
        ],
    ),
    Refusals(
        NO_EVENTS,
        &[
            c"click",
            c"focus",
            c"blur",
            c"submit",
            c"reset",
            c"requestSubmit",
            c"showModal",
            c"close",
            c"play",
            c"pause",
            c"load",
        ],
    ),
    Refusals(
        NO_LAYOUT,
        &[c"getBoundingClientRect", c"getClientRects", c"animate", c"requestFullscreen", c"checkVisibility"],
    ),
    RefusedGetters(
        NO_LAYOUT,
        &[
            c"offsetWidth",
            c"offsetHeight",
            c"offsetTop",
            c"offsetLeft",
            c"offsetParent",
            c"clientWidth",
            c"clientHeight",
            c"clientTop",
            c"clientLeft",
            c"scrollWidth",
            c"scrollHeight",
            c"scrollTop",
            c"scrollLeft",
            c"naturalWidth",
            c"naturalHeight",
            c"currentSrc",
            c"validity",
            c"files",
        ],
    ),
    Getters(c"forms", &[c"width", c"height", c"content"]),
];

const DOCUMENT: &[Section] = &[
    Getters(
        c"document",
        &[
            c"documentElement",
            c"head",
            c"body",
            c"title",
            c"URL",
            c"documentURI",
            c"location",
            c"domain",
            c"referrer",
            c"cookie",
            c"readyState",
            c"contentType",
            c"characterSet",
            c"charset",
            c"inputEncoding",
            c"compatMode",
            c"doctype",
            c"defaultView",
            c"links",
            c"images",
            c"forms",
            c"scripts",
            c"anchors",
            c"embeds",
            c"activeElement",
            c"hidden",
            c"visibilityState",
            c"fonts",
        ],
    ),
    TREE,
    Methods(c"documentMethods", &[(c"getElementById", 1), (c"getElementsByName", 1), (c"hasFocus", 0)]),
    QUERIES,
    Refusals(
        READ_ONLY,
        &[
            c"createElement",
            c"createElementNS",
            c"createTextNode",
            c"createComment",
            c"createDocumentFragment",
            c"createRange",
            c"createTreeWalker",
            c"createNodeIterator",
            c"createEvent",
            c"importNode",
            c"adoptNode",
            c"write",
            c"writeln",
            c"open",
            c"close",
            c"execCommand",
        ],
    ),
    Refusals("XPath; use querySelector", &[c"evaluate", c"createExpression", c"createNSResolver"]),
    Refusals(NO_LAYOUT, &[c"elementFromPoint", c"elementsFromPoint", c"caretPositionFromPoint"]),
];

const DOM_TOKEN_LIST: &[Section] = &[Refusals(READ_ONLY, &[c"add", c"remove", c"toggle", c"replace"])];

/// The groups of implementations, by the name the tables give them: each a
/// script answering a function that takes the prelude's kit and answers an
/// object of the group's functions by member name. Compiled once per
/// process, read into a run on its first use there
/// (`script_runtime::group_function`).
pub(crate) const GROUPS: [(&CStr, &str); 10] = [
    (c"node", include_str!("js/groups/node.js")),
    (c"nodeMethods", include_str!("js/groups/node_methods.js")),
    (c"characterData", include_str!("js/groups/character_data.js")),
    (c"queries", include_str!("js/groups/queries.js")),
    (c"tree", include_str!("js/groups/tree.js")),
    (c"element", include_str!("js/groups/element.js")),
    (c"forms", include_str!("js/groups/forms.js")),
    (c"elementMethods", include_str!("js/groups/element_methods.js")),
    (c"document", include_str!("js/groups/document.js")),
    (c"documentMethods", include_str!("js/groups/document_methods.js")),
];

/// The prototypes, in the order `N.members` receives them.
const PROTOTYPES: [&[Section]; 7] = [NODE, CHARACTER_DATA, TEXT, DOCUMENT_TYPE, ELEMENT, DOCUMENT, DOM_TOKEN_LIST];

/// What a member does when called; its index in [`Tables::members`] is the
/// C functions' magic.
#[derive(Clone, Copy)]
enum Member {
    /// The function of that name in the group (its index in [`GROUPS`]).
    Forward { group: usize, name: &'static CStr },
    /// Throws the prelude's refusal, naming what and why.
    Refuse { name: &'static CStr, why: &'static str },
}

impl Member {
    fn name(&self) -> &'static CStr {
        match self {
            Member::Forward { name, .. } | Member::Refuse { name, .. } => name,
        }
    }
}

/// What [`define`] does for one section of a prototype, in order.
enum Step {
    /// Methods, as a function list (QuickJS keeps pointers to its entries
    /// and creates each function when its property is first read, so the
    /// list lives as long as the process).
    List(Vec<qjs::JSCFunctionListEntry>),
    /// Accessors (name, magic), defined one by one: a function list would
    /// name each getter `get <name>`, a new atom per accessor and per run.
    /// Here the getter is named as its property and the setter has no name,
    /// as the prelude's JavaScript functions were.
    Accessors { members: Vec<(&'static CStr, usize)>, get: Getter, flags: u8 },
}

/// The members and what defines them, built once per process.
struct Tables {
    members: Vec<Member>,
    prototypes: Vec<Vec<Step>>,
}

// SAFETY: the entries' pointers are to 'static C strings and to the extern
// functions below; nothing in them is ever written after they are built.
unsafe impl Send for Tables {}
unsafe impl Sync for Tables {}

const ACCESSOR: u8 = (qjs::JS_PROP_CONFIGURABLE | qjs::JS_PROP_ENUMERABLE) as u8;
const REFUSED_ACCESSOR: u8 = qjs::JS_PROP_CONFIGURABLE as u8;
const METHOD: u8 = (qjs::JS_PROP_WRITABLE | qjs::JS_PROP_CONFIGURABLE) as u8;

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut members = Vec::new();
        let mut prototypes = Vec::new();
        for sections in PROTOTYPES {
            let mut steps = Vec::new();
            for section in sections {
                let step = match section {
                    Getters(group, names) => Step::Accessors {
                        members: {
                            let group = group_index(group);
                            names
                                .iter()
                                .map(|name| (*name, push(&mut members, Member::Forward { group, name })))
                                .collect()
                        },
                        get: getter,
                        flags: ACCESSOR,
                    },
                    RefusedGetters(why, names) => Step::Accessors {
                        members: names
                            .iter()
                            .map(|name| (*name, push(&mut members, Member::Refuse { name, why })))
                            .collect(),
                        get: refuse_get,
                        flags: REFUSED_ACCESSOR,
                    },
                    Methods(group, methods) => Step::List({
                        let group = group_index(group);
                        methods
                            .iter()
                            .map(|(name, length)| {
                                let magic = push(&mut members, Member::Forward { group, name });
                                method(name, *length, magic, call)
                            })
                            .collect()
                    }),
                    Refusals(why, names) => Step::List(
                        names
                            .iter()
                            .map(|name| method(name, 0, push(&mut members, Member::Refuse { name, why }), refuse))
                            .collect(),
                    ),
                };
                steps.push(step);
            }
            prototypes.push(steps);
        }
        assert!(members.len() <= i16::MAX as usize, "magic is an i16");
        Tables { members, prototypes }
    })
}

/// The index in [`GROUPS`] of the group the tables name `group`.
fn group_index(group: &CStr) -> usize {
    GROUPS.iter().position(|(name, _)| *name == group).unwrap_or_else(|| panic!("no group {group:?} in GROUPS"))
}

/// Adds `member`; answers its magic.
fn push(members: &mut Vec<Member>, member: Member) -> usize {
    members.push(member);
    members.len() - 1
}

type Getter = unsafe extern "C" fn(*mut qjs::JSContext, qjs::JSValue, c_int) -> qjs::JSValue;
type Setter = unsafe extern "C" fn(*mut qjs::JSContext, qjs::JSValue, qjs::JSValue, c_int) -> qjs::JSValue;
type Method = unsafe extern "C" fn(*mut qjs::JSContext, qjs::JSValue, c_int, *mut qjs::JSValue, c_int) -> qjs::JSValue;
type Generic = unsafe extern "C" fn(*mut qjs::JSContext, qjs::JSValue, c_int, *mut qjs::JSValue) -> qjs::JSValue;

fn method(name: &'static CStr, length: u8, magic: usize, f: Method) -> qjs::JSCFunctionListEntry {
    qjs::JSCFunctionListEntry {
        name: name.as_ptr(),
        prop_flags: METHOD,
        def_type: qjs::JS_DEF_CFUNC as u8,
        magic: magic as i16,
        u: qjs::JSCFunctionListEntry__bindgen_ty_1 {
            func: qjs::JSCFunctionListEntry__bindgen_ty_1__bindgen_ty_1 {
                length,
                cproto: qjs::JSCFunctionEnum_JS_CFUNC_generic_magic as u8,
                cfunc: qjs::JSCFunctionType { generic_magic: Some(f) },
            },
        },
    }
}

/// Defines accessor `name` on `object`: the getter `get`, named `name`, and
/// the refusing setter, both with `magic`; false when QuickJS failed (its
/// exception is pending).
///
/// # Safety
/// `ctx` is a live context and `object` an object of it.
unsafe fn define_accessor(
    ctx: *mut qjs::JSContext,
    object: qjs::JSValue,
    name: &'static CStr,
    magic: usize,
    get: Getter,
    flags: u8,
) -> bool {
    // SAFETY: QuickJS calls a function made with `JS_CFUNC_getter_magic` or
    // `JS_CFUNC_setter_magic` with that signature (the variants of its
    // `JSCFunctionType` union); `JS_DefinePropertyGetSet` takes both
    // functions over.
    unsafe {
        let get = std::mem::transmute::<Getter, Generic>(get);
        let set = std::mem::transmute::<Setter, Generic>(setter);
        let magic = magic as c_int;
        let getter =
            qjs::JS_NewCFunction2(ctx, Some(get), name.as_ptr(), 0, qjs::JSCFunctionEnum_JS_CFUNC_getter_magic, magic);
        let setter =
            qjs::JS_NewCFunction2(ctx, Some(set), c"".as_ptr(), 0, qjs::JSCFunctionEnum_JS_CFUNC_setter_magic, magic);
        if qjs::JS_IsException(getter) || qjs::JS_IsException(setter) {
            qjs::JS_FreeValue(ctx, getter);
            qjs::JS_FreeValue(ctx, setter);
            return false;
        }
        let atom = qjs::JS_NewAtom(ctx, name.as_ptr());
        let defined = qjs::JS_DefinePropertyGetSet(ctx, object, atom, getter, setter, flags as c_int);
        qjs::JS_FreeAtom(ctx, atom);
        defined >= 0
    }
}

/// The realm's state: owned references, freed by [`release`] (the groups
/// made and implementations resolved are a run's: [`forget_run`]).
struct Dispatch {
    /// What the prelude hands the groups (`kit`).
    kit: qjs::JSValue,
    /// The prelude's `unsupported(what)`, which throws the refusal.
    unsupported: qjs::JSValue,
    /// Per group (by index in [`GROUPS`]), its object once made.
    made: Vec<qjs::JSValue>,
    /// Per member (by magic), its implementation once resolved.
    functions: Vec<qjs::JSValue>,
}

/// `N.members(kit, prototypes)`: defines every member on `prototypes`
/// (Node, CharacterData, Text, DocumentType, Element, Document and
/// DOMTokenList's prototypes, in that order) and keeps what calling them
/// needs until [`release`]: the prelude's `kit`, handed to each group when
/// it is made, and its `unsupported` (in the kit) for the refusals.
pub(crate) fn define<'js>(ctx: Ctx<'js>, kit: Object<'js>, prototypes: Array<'js>) -> rquickjs::Result<()> {
    let unsupported: Function = kit.get("unsupported")?;
    let tables = tables();
    if prototypes.len() != tables.prototypes.len() {
        return Err(rquickjs::Exception::throw_type(&ctx, "N.members: one prototype per table"));
    }
    let raw = ctx.as_raw().as_ptr();
    for (index, steps) in tables.prototypes.iter().enumerate() {
        let prototype: Object = prototypes.get(index)?;
        for step in steps {
            let defined = match step {
                // SAFETY: `list` lives as long as the process (`tables`), its
                // entries are well-formed, and `prototype` is of this context.
                Step::List(list) => unsafe {
                    qjs::JS_SetPropertyFunctionList(raw, prototype.as_raw(), list.as_ptr(), list.len() as c_int) == 0
                },
                Step::Accessors { members, get, flags } => members.iter().all(|(name, magic)| {
                    // SAFETY: `prototype` is an object of this live context.
                    unsafe { define_accessor(raw, prototype.as_raw(), name, *magic, *get, *flags) }
                }),
            };
            if !defined {
                return Err(rquickjs::Error::Exception);
            }
        }
    }
    release(&ctx);
    // SAFETY: new references to values of this context, freed by `release`.
    let (kit, unsupported) =
        unsafe { (qjs::JS_DupValue(raw, kit.as_raw()), qjs::JS_DupValue(raw, unsupported.as_raw())) };
    let dispatch = Box::new(Dispatch {
        kit,
        unsupported,
        made: vec![qjs::JS_UNDEFINED; GROUPS.len()],
        functions: vec![qjs::JS_UNDEFINED; tables.members.len()],
    });
    // SAFETY: the opaque pointer is this module's alone; [`release`] takes it back.
    unsafe { qjs::JS_SetContextOpaque(raw, Box::into_raw(dispatch).cast()) };
    Ok(())
}

/// Frees the run's state that [`define`] kept (if any): call it before the
/// context is freed.
pub fn release(ctx: &Ctx<'_>) {
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: a non-null opaque pointer is a `Dispatch` that `define` boxed;
    // it is cleared before the box is freed, and every value in it is an
    // owned reference of this context.
    unsafe {
        let dispatch = qjs::JS_GetContextOpaque(raw).cast::<Dispatch>();
        if dispatch.is_null() {
            return;
        }
        qjs::JS_SetContextOpaque(raw, std::ptr::null_mut());
        let dispatch = Box::from_raw(dispatch);
        for value in dispatch.functions.iter().chain(&dispatch.made) {
            qjs::JS_FreeValue(raw, *value);
        }
        qjs::JS_FreeValue(raw, dispatch.kit);
        qjs::JS_FreeValue(raw, dispatch.unsupported);
    }
}

/// Forgets the groups made and the implementations resolved by a run,
/// without freeing them: for `script_runtime` after it copied the realm
/// back, when what they referred to went with the run. The realm is copied
/// aside before any member is called, so its copy holds none of them.
///
/// # Safety
/// The context's heap was restored to a state taken before any member was
/// called (the values in the slots are not of this heap any more).
pub(crate) unsafe fn forget_run(ctx: &Ctx<'_>) {
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: a non-null opaque pointer is `define`'s live `Dispatch`; no
    // other reference into it is held while no JavaScript runs.
    unsafe {
        let dispatch = qjs::JS_GetContextOpaque(raw).cast::<Dispatch>();
        if let Some(dispatch) = dispatch.as_mut() {
            dispatch.made.fill(qjs::JS_UNDEFINED);
            dispatch.functions.fill(qjs::JS_UNDEFINED);
        }
    }
}

/// Throws an internal error (a table and the prelude disagree: a bug of svc).
unsafe fn internal(ctx: *mut qjs::JSContext, what: &CStr) -> qjs::JSValue {
    // SAFETY: a format with one `%s` and a C string for it.
    unsafe { qjs::JS_ThrowInternalError(ctx, c"svc's DOM: %s".as_ptr(), what.as_ptr()) }
}

/// The implementation of member `magic` (a new reference), resolving it
/// (and making its group) on first use; `JS_EXCEPTION` when that failed.
unsafe fn implementation(ctx: *mut qjs::JSContext, magic: c_int) -> qjs::JSValue {
    // SAFETY: the opaque pointer is null or `define`'s live `Dispatch`; no
    // reference into it is held across a call into JavaScript, which may
    // call back here.
    unsafe {
        let dispatch = qjs::JS_GetContextOpaque(ctx).cast::<Dispatch>();
        if dispatch.is_null() {
            return internal(ctx, c"no members defined in this context");
        }
        let Some(Member::Forward { group, name }) = tables().members.get(magic as usize).copied() else {
            return internal(ctx, c"not a forwarding member");
        };
        let known = (&*dispatch).functions[magic as usize];
        if !qjs::JS_IsUndefined(known) {
            return qjs::JS_DupValue(ctx, known);
        }
        let mut object = (&*dispatch).made[group];
        if qjs::JS_IsUndefined(object) {
            let make = crate::script_runtime::group_function(ctx, group);
            if qjs::JS_IsException(make) {
                return make;
            }
            let mut kit = qjs::JS_DupValue(ctx, (*dispatch).kit);
            object = qjs::JS_Call(ctx, make, qjs::JS_UNDEFINED, 1, &mut kit);
            qjs::JS_FreeValue(ctx, kit);
            qjs::JS_FreeValue(ctx, make);
            if qjs::JS_IsException(object) {
                return object;
            }
            let slot = &mut (&mut *dispatch).made[group];
            if qjs::JS_IsUndefined(*slot) {
                *slot = object;
            } else {
                // Made meanwhile by a call back into here: keep that one.
                qjs::JS_FreeValue(ctx, object);
                object = *slot;
            }
        }
        let function = qjs::JS_GetPropertyStr(ctx, object, name.as_ptr());
        if !qjs::JS_IsFunction(ctx, function) {
            qjs::JS_FreeValue(ctx, function);
            return internal(ctx, name);
        }
        (&mut *dispatch).functions[magic as usize] = qjs::JS_DupValue(ctx, function);
        function
    }
}

unsafe extern "C" fn call(
    ctx: *mut qjs::JSContext,
    this: qjs::JSValue,
    argc: c_int,
    argv: *mut qjs::JSValue,
    magic: c_int,
) -> qjs::JSValue {
    // SAFETY: QuickJS calls with its context, `this` and `argc` arguments.
    unsafe {
        let function = implementation(ctx, magic);
        if qjs::JS_IsException(function) {
            return function;
        }
        let result = qjs::JS_Call(ctx, function, this, argc, argv);
        qjs::JS_FreeValue(ctx, function);
        result
    }
}

unsafe extern "C" fn getter(ctx: *mut qjs::JSContext, this: qjs::JSValue, magic: c_int) -> qjs::JSValue {
    // SAFETY: as `call`, with no arguments.
    unsafe { call(ctx, this, 0, std::ptr::null_mut(), magic) }
}

/// Calls the prelude's `unsupported(what)`, which throws.
unsafe fn refusal(ctx: *mut qjs::JSContext, what: String) -> qjs::JSValue {
    // SAFETY: the opaque pointer is null or `define`'s live `Dispatch`; the
    // string is made from `what`'s bytes and freed after the call.
    unsafe {
        let dispatch = qjs::JS_GetContextOpaque(ctx).cast::<Dispatch>();
        if dispatch.is_null() {
            return internal(ctx, c"no members defined in this context");
        }
        let unsupported = qjs::JS_DupValue(ctx, (*dispatch).unsupported);
        let mut text = qjs::JS_NewStringLen(ctx, what.as_ptr().cast(), what.len() as _);
        if qjs::JS_IsException(text) {
            qjs::JS_FreeValue(ctx, unsupported);
            return text;
        }
        let result = qjs::JS_Call(ctx, unsupported, qjs::JS_UNDEFINED, 1, &mut text);
        qjs::JS_FreeValue(ctx, text);
        qjs::JS_FreeValue(ctx, unsupported);
        result
    }
}

fn refused(magic: c_int) -> String {
    match tables().members.get(magic as usize) {
        Some(Member::Refuse { name, why }) if !why.is_empty() => format!("{} ({why})", name.to_string_lossy()),
        Some(member) => member.name().to_string_lossy().into_owned(),
        None => "this".to_string(),
    }
}

unsafe extern "C" fn refuse(
    ctx: *mut qjs::JSContext,
    _this: qjs::JSValue,
    _argc: c_int,
    _argv: *mut qjs::JSValue,
    magic: c_int,
) -> qjs::JSValue {
    // SAFETY: QuickJS calls with its context.
    unsafe { refusal(ctx, refused(magic)) }
}

unsafe extern "C" fn refuse_get(ctx: *mut qjs::JSContext, _this: qjs::JSValue, magic: c_int) -> qjs::JSValue {
    // SAFETY: QuickJS calls with its context.
    unsafe { refusal(ctx, refused(magic)) }
}

unsafe extern "C" fn setter(
    ctx: *mut qjs::JSContext,
    _this: qjs::JSValue,
    _value: qjs::JSValue,
    magic: c_int,
) -> qjs::JSValue {
    let name = tables().members.get(magic as usize).map(|m| m.name().to_string_lossy()).unwrap_or_default();
    // SAFETY: QuickJS calls with its context.
    unsafe { refusal(ctx, format!("setting `{name}`")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_prototype_names_each_member_once() {
        for sections in PROTOTYPES {
            let mut names = std::collections::HashSet::new();
            for section in sections {
                let listed: Vec<&CStr> = match section {
                    Getters(_, names) | Refusals(_, names) | RefusedGetters(_, names) => names.to_vec(),
                    Methods(_, methods) => methods.iter().map(|(name, _)| *name).collect(),
                };
                for name in listed {
                    assert!(names.insert(name), "{name:?} twice");
                }
            }
        }
        assert!(tables().members.len() > 250, "{}", tables().members.len());
    }
}
