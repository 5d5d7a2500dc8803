//! The script's DOM and globals, run on parsed HTML without the network.

use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use svc_engine::ScriptResult;
use svc_static::document::Document;
use svc_static::{ScriptLimits, StaticError};

use crate::site::RICH;

const PAGE_URL: &str = "https://shop.example/dir/page.html?q=1#frag";
/// A run timeout no script of these tests comes near, even on a loaded machine.
const GENEROUS: Duration = Duration::from_secs(120);
const LIMITS: ScriptLimits = ScriptLimits { memory: 256 * 1024 * 1024, stack: 4 * 1024 * 1024 };

pub fn job(url: &str, script: &str) -> svc_engine::RunJob {
    svc_engine::RunJob {
        history_id: "0123456789abcdef01234567".into(),
        url: url.to_string(),
        script: script.to_string(),
        param: None,
        params: vec![],
        triggered_by: "user",
        timeout: Duration::from_secs(5),
        loads: Default::default(),
        capture_page: svc_engine::PageCapture::Never,
        tier: 0,
        scrapper: "static".into(),
        account: None,
        session: None,
        reuse: None,
        confined_to: None,
        organization: None,
        page: svc_engine::PageInput::single(),
    }
}

/// Runs `script` on `html` with `timeout`; what the script did, or why it could not.
fn run_with(html: &str, script: &str, timeout: Duration) -> Result<ScriptResult, StaticError> {
    let (html, script) = (html.to_string(), script.to_string());
    on_script_thread(move || run_here(&html, &script, timeout))
}

/// Runs `f` on a thread with the stack the engine gives scripts.
fn on_script_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(16 * 1024 * 1024).spawn(f).unwrap().join().unwrap()
}

fn run_here(html: &str, script: &str, timeout: Duration) -> Result<ScriptResult, StaticError> {
    let deadline = Instant::now() + timeout;
    let document = Document::parse(html, url::Url::parse(PAGE_URL).unwrap(), deadline)?;
    let mut job = job(PAGE_URL, script);
    job.param = Some(svc_domain::scrap::ParamSet { key: "de".into(), value: json!({"lang": "de"}) });
    job.params = vec![job.param.clone().unwrap()];
    let source = svc_static::script::wrap(&job);
    svc_static::script_runtime::run(Rc::new(document), &source, deadline, timeout.as_secs(), LIMITS).map(|r| r.result)
}

/// The data `script` returns on `html`.
#[track_caller]
fn data(html: &str, script: &str) -> Value {
    match run_with(html, script, GENEROUS) {
        Ok(ScriptResult::Data { json, .. }) => serde_json::from_str(&json).unwrap(),
        other => panic!("expected data, got {other:?}"),
    }
}

/// The error a run of `script` on `html` ends with.
#[track_caller]
fn error(html: &str, script: &str) -> String {
    match run_with(html, script, GENEROUS) {
        Ok(ScriptResult::Failed { message }) => message,
        Err(e) => e.to_string(),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn queries_select_in_document_order() {
    let got = data(
        RICH,
        r#"
        const main = document.querySelector('main');
        returnData([
          document.querySelectorAll('p.price').length,
          document.querySelector('.sale').textContent,
          main.querySelectorAll(':scope > p').length,
          document.getElementById('t').tagName,
          document.getElementsByClassName('price sale').length,
          document.getElementsByTagName('TD').length,
          main.getElementsByTagName('input').length,
          document.querySelector('small').closest('h1').id,
          document.querySelector('small').closest('nav'),
          document.querySelector('p.sale').matches('main > .price'),
          document.querySelector('#nope'),
          document.querySelectorAll('tr:nth-child(2) td')[1].textContent,
          document.querySelector('h1:has(small)') === document.getElementById('t'),
          typeof document.querySelectorAll('p').forEach,
          document.querySelectorAll('p').item(1).className,
        ]);
        "#,
    );
    assert_eq!(got, json!([2, "$8.00", 2, "H1", 1, 4, 2, "t", null, true, null, "L", true, "function", "price sale"]));
}

#[test]
fn an_invalid_selector_throws_a_syntax_error() {
    let got = data(
        RICH,
        "try { document.querySelector('li['); returnData(['no error']); } catch (e) { returnData([e.name, e.message]); }",
    );
    assert_eq!(got, json!(["SyntaxError", "'li[' is not a valid selector"]));
    let message = error(RICH, "document.querySelectorAll('a[');");
    assert!(message.contains("is not a valid selector"), "{message}");
}

#[test]
fn state_pseudo_classes_and_pseudo_elements_answer_as_in_a_browser() {
    let page = r#"<!DOCTYPE html><form><input id=a type=checkbox checked><input id=b disabled>
        <a id=l href="/x">x</a></form><p id=p>text</p>"#;
    let got = data(
        page,
        r#"returnData([
          [...document.querySelectorAll(':checked, :disabled, :link')].map((e) => e.id),
          document.querySelectorAll('p::before, p:after').length,
          document.getElementById('p').matches('::first-line'),
          document.querySelectorAll(':hover, :focus, :visited').length,
          document.getElementById('a').closest('form:has(:checked)') !== null,
        ]);"#,
    );
    assert_eq!(got, json!([["a", "b", "l"], 0, false, 0, true]));
    let needs = error(page, "document.querySelector('input:invalid');");
    assert!(needs.contains(":invalid is not supported by the static engine"), "{needs}");
    assert!(needs.contains("puppeteer"), "{needs}");
}

#[test]
fn text_inner_text_and_markup() {
    let got = data(
        RICH,
        r#"
        const h1 = document.getElementById('t');
        returnData([
          h1.textContent,
          h1.innerText,
          document.querySelector('p.price').textContent,
          document.querySelector('p.price').innerText,
          h1.innerHTML,
          document.querySelector('p.sale').outerHTML,
          document.querySelector('#specs tbody').innerText,
          document.querySelector('#hidden').innerText,
          document.querySelector('main').innerText.includes('secret'),
          document.querySelector('main').innerText.includes('notText'),
          document.querySelector('main').textContent.includes('notText'),
        ]);
        "#,
    );
    assert_eq!(
        got,
        json!([
            "Widget v2",
            "Widget v2",
            "  $10.00 ",
            "$10.00",
            "Widget <small>v2</small>",
            "<p class=\"price sale\">$8.00</p>",
            "Weight\t2 kg\nSize\tL",
            "secret",
            false,
            false,
            true
        ])
    );
}

#[test]
fn attributes_dataset_and_class_list() {
    let got = data(
        RICH,
        r#"
        const h1 = document.getElementById('t');
        const main = document.querySelector('main');
        returnData([
          h1.getAttribute('data-product-id'),
          h1.getAttribute('DATA-X'),
          h1.getAttribute('nope'),
          h1.hasAttribute('data-x'),
          h1.hasAttribute('title'),
          h1.dataset.productId,
          Object.keys(h1.dataset),
          main.className,
          main.classList.contains('main'),
          main.classList.contains('mai'),
          main.classList.length,
          [...main.classList],
          h1.id,
          h1.getAttributeNames(),
          h1.attributes.length,
          h1.attributes[0].name,
          document.getElementById('pic').alt,
        ]);
        "#,
    );
    assert_eq!(
        got,
        json!([
            "42",
            "y",
            null,
            true,
            false,
            "42",
            ["productId", "x"],
            "content main",
            true,
            false,
            2,
            ["content", "main"],
            "t",
            ["id", "data-product-id", "data-x"],
            3,
            "id",
            "A widget"
        ])
    );
}

#[test]
fn walking_the_tree() {
    let got = data(
        "<ul id=l><li>a</li> <li class=b>b</li><!-- c --><li>c</li></ul><p>x</p>",
        r#"
        const ul = document.getElementById('l');
        const b = ul.querySelector('.b');
        returnData([
          ul.children.length,
          ul.childNodes.length,
          ul.childElementCount,
          ul.firstElementChild.textContent,
          ul.lastElementChild.textContent,
          b.previousElementSibling.textContent,
          b.nextElementSibling.textContent,
          b.nextSibling.nodeType,
          b.nextSibling.nodeName,
          b.previousSibling.nodeValue,
          b.parentElement === ul,
          b.parentNode.id,
          ul.parentElement.tagName,
          document.documentElement.parentElement,
          document.documentElement.parentNode === document,
          ul.contains(b),
          b.contains(ul),
          ul.nextElementSibling.tagName,
          document.querySelector('li') === ul.children[0],
          b instanceof HTMLElement && b instanceof Element && b instanceof Node,
          b.nodeType === Node.ELEMENT_NODE,
          document.body.tagName,
          document.head.tagName,
          document.nodeType,
          document.textContent,
        ]);
        "#,
    );
    assert_eq!(
        got,
        json!([
            3, 5, 3, "a", "c", "a", "c", 8, "#comment", " ", true, "l", "BODY", null, true, true, false, "P", true,
            true, true, "BODY", "HEAD", 9, null
        ])
    );
}

#[test]
fn urls_resolve_against_the_page() {
    let got = data(
        RICH,
        r#"
        const rel = document.getElementById('rel');
        const u = new URL(rel.href);
        u.searchParams.set('page', '2');
        const built = new URL('../x y?a=1&b=%20c', 'https://h.example/p/q/r');
        returnData([
          rel.href,
          rel.getAttribute('href'),
          rel.pathname,
          rel.search,
          rel.hash,
          rel.hostname,
          document.getElementById('abs').href,
          document.getElementById('none').href,
          document.getElementById('pic').src,
          document.querySelector('h1').href,
          location.href,
          location.pathname,
          location.search,
          location.hash,
          location.origin,
          document.URL,
          String(location),
          document.title,
          u.searchParams.get('id'),
          u.toString(),
          built.href,
          built.searchParams.get('b'),
          [...new URLSearchParams('?x=1&x=2&y=a+b').getAll('x')],
          new URLSearchParams({ q: 'a b', n: 1 }).toString(),
          URL.canParse('nope'),
          SVC.url,
        ]);
        "#,
    );
    assert_eq!(
        got,
        json!([
            "https://shop.example/base/item?id=7#top",
            "item?id=7#top",
            "/base/item",
            "?id=7",
            "#top",
            "shop.example",
            "https://example.org/x",
            "",
            "https://shop.example/base/img/w.png",
            null,
            PAGE_URL,
            "/dir/page.html",
            "?q=1",
            "#frag",
            "https://shop.example",
            PAGE_URL,
            PAGE_URL,
            "Rich page",
            "7",
            "https://shop.example/base/item?id=7&page=2#top",
            "https://h.example/p/x%20y?a=1&b=%20c",
            " c",
            ["1", "2"],
            "q=a+b&n=1",
            false,
            PAGE_URL
        ])
    );
}

#[test]
fn tables_and_forms() {
    let got = data(
        RICH,
        r#"
        const table = document.getElementById('specs');
        const f = document.getElementById('f');
        returnData([
          table.rows.length,
          [...table.rows].map(r => [...r.cells].map(c => c.textContent)),
          table.tBodies.length,
          f.querySelector('[name=q]').value,
          f.querySelector('[name=c]').checked,
          f.querySelector('[name=q]').checked,
          f.querySelector('select').value,
          f.querySelector('select').selectedIndex,
          f.querySelector('textarea').value,
          f.querySelector('[name=q]').type,
          f.elements.length,
        ]);
        "#,
    );
    assert_eq!(
        got,
        json!([
            3,
            [["Key", "Value"], ["Weight", "2 kg"], ["Size", "L"]],
            1,
            "shoes",
            true,
            false,
            "B",
            1,
            "text",
            "text",
            4
        ])
    );
}

#[test]
fn the_svc_object_and_return_data_follow_the_contract() {
    let got = data(
        RICH,
        r#"
        let mutated = true;
        try { SVC.url = 'changed'; mutated = SVC.url === 'changed'; } catch (e) { mutated = false; }
        let paramMutated = true;
        try { SVC.param.value.lang = 'fr'; paramMutated = SVC.param.value.lang === 'fr'; } catch (e) { paramMutated = false; }
        const found = await SVC.waitFor('h1', 5000);
        const before = Date.now();
        await SVC.sleep(5000);
        const slept = Date.now() - before;
        returnData([{
          param: SVC.param, params: SVC.params, historyId: SVC.historyId, triggeredBy: SVC.triggeredBy,
          frozen: Object.isFrozen(SVC), mutated, paramMutated, found: found.id, slept: slept >= 5000,
          sees: typeof window.SVC, account: SVC.account,
        }]);
        returnData([1, 2, 3]);
        "#,
    );
    assert_eq!(
        got,
        json!([{
            "param": {"key": "de", "value": {"lang": "de"}}, "params": [{"key": "de", "value": {"lang": "de"}}],
            "historyId": "0123456789abcdef01234567", "triggeredBy": "user", "frozen": true, "mutated": false,
            "paramMutated": false, "found": "t", "slept": true, "sees": "undefined", "account": null,
        }])
    );
    assert_eq!(error(RICH, "returnData('x');"), "returnData expects an array, got string");
    assert_eq!(error(RICH, "returnData(null);"), "returnData expects an array, got null");
    assert_eq!(error(RICH, "const n = 1;"), "the script finished without calling returnData");
    assert_eq!(error(RICH, "throw new Error('boom');"), "the script threw: boom");
    let syntax = error(RICH, "returnData([1,2,");
    assert!(syntax.starts_with("the script could not run: SyntaxError"), "{syntax}");
}

/// The script is compiled from its text as the body of an async function of
/// `SVC` and `returnData`, as on the browser: it cannot close that function
/// to hand back something else, and it sees none of the code that runs it.
#[test]
fn the_script_is_compiled_apart_from_the_code_that_runs_it() {
    let escape = error(RICH, "}); return { ok: true, json: '[\"forged\"]', length: 1 }; (async () => {");
    assert!(escape.starts_with("the script could not run: SyntaxError"), "{escape}");
    let seen = data(
        RICH,
        "returnData([typeof input, typeof finish, typeof deepFreeze, typeof waitFor, typeof sleep, \
         typeof SVC.waitFor, typeof returnData, arguments.length])",
    );
    let u = "undefined";
    assert_eq!(seen, json!([u, u, u, u, u, "function", "function", 2]), "only SVC and returnData, as arguments");
}

#[test]
fn the_site_login_is_svc_account_and_frozen() {
    let got = on_script_thread(|| {
        let deadline = Instant::now() + GENEROUS;
        let document = Document::parse(RICH, url::Url::parse(PAGE_URL).unwrap(), deadline).unwrap();
        let mut job = job(PAGE_URL, "");
        job.account = Some(svc_domain::site_account::SiteAccount { username: "ada".into(), password: "pw-1".into() });
        job.script = r#"
            let changed = true;
            try { SVC.account.password = 'x'; changed = SVC.account.password === 'x'; } catch (e) { changed = false; }
            returnData([SVC.account.username, SVC.account.password, Object.isFrozen(SVC.account), changed]);
        "#
        .into();
        let source = svc_static::script::wrap(&job);
        svc_static::script_runtime::run(Rc::new(document), &source, deadline, 5, LIMITS).map(|r| r.result)
    });
    match got {
        Ok(ScriptResult::Data { json, .. }) => assert_eq!(json, r#"["ada","pw-1",true,false]"#),
        other => panic!("expected data, got {other:?}"),
    }
}

#[test]
fn wait_for_answers_at_once_and_says_why() {
    let message = error(RICH, "await SVC.waitFor('.late', 10000); returnData([1]);");
    assert_eq!(
        message,
        "the script threw: SVC.waitFor(\".late\"): the static engine does not wait; the element is not in the page"
    );
    // The page's clock did not move on by the 10 s it was given.
    let waited = data(
        RICH,
        "const t0 = Date.now(); try { await SVC.waitFor('.late', 10000); } catch (e) {} returnData([Date.now() - t0]);",
    );
    assert!(waited[0].as_f64().unwrap() < 10_000.0, "it does not wait for the timeout: {waited}");
    let selector = on_script_thread(|| {
        let deadline = Instant::now() + GENEROUS;
        let document = Document::parse(RICH, url::Url::parse(PAGE_URL).unwrap(), deadline).unwrap();
        let source = svc_static::script::wrap(&job(PAGE_URL, "await SVC.waitFor('#late'); returnData([1]);"));
        svc_static::script_runtime::run(Rc::new(document), &source, deadline, 5, LIMITS).unwrap().selector
    });
    assert_eq!(selector.as_deref(), Some("#late"), "the failing selector is reported for the snapshot");
}

#[test]
fn timers_run_on_a_virtual_clock() {
    let got = data(
        RICH,
        r#"
        const seen = [];
        setTimeout(() => seen.push('b'), 20);
        setTimeout(() => seen.push('a'), 10);
        let n = 0;
        const every = setInterval(() => { n += 1; if (n === 3) clearInterval(every); }, 1000);
        await new Promise((r) => setTimeout(r, 60000));
        queueMicrotask(() => seen.push('micro'));
        await null;
        returnData([seen, n]);
        "#,
    );
    assert_eq!(got, json!([["a", "b", "micro"], 3]));
}

#[test]
fn unsupported_apis_throw_clear_errors() {
    let cases = [
        ("document.querySelector('h1').setAttribute('x', '1')", "setAttribute (the page is read-only)"),
        ("document.createElement('div')", "createElement (the page is read-only)"),
        ("document.querySelector('h1').textContent = 'x'", "setting `textContent`"),
        ("document.querySelector('h1').innerHTML = 'x'", "setting `innerHTML`"),
        ("document.querySelector('h1').remove()", "remove (the page is read-only)"),
        ("document.querySelector('h1').click()", "click (no events)"),
        ("document.querySelector('h1').getBoundingClientRect()", "getBoundingClientRect (no layout)"),
        ("document.body.scrollHeight", "scrollHeight (no layout)"),
        ("getComputedStyle(document.body)", "getComputedStyle"),
        ("document.evaluate('//h1', document)", "evaluate (XPath; use querySelector)"),
        ("new MutationObserver(() => {})", "MutationObserver"),
        ("document.querySelector('h1').dataset.x = 'z'", "changing dataset"),
        ("location.href = 'https://elsewhere.example/'", "setting `href`"),
        ("await fetch('/api')", "fetch is not available here (no network given to the static engine)"),
        ("new XMLHttpRequest()", "XMLHttpRequest"),
        ("document.querySelector('img').width", "img.width (its laid-out size"),
        ("document.querySelector('img').height", "img.height (its laid-out size"),
        ("new Intl.NumberFormat('xx-YY').format(1)", "Intl.NumberFormat for the locale 'xx-YY'"),
        ("(1).toLocaleString('en-US', { style: 'unit', unit: 'meter' })", "NumberFormat with style 'unit'"),
        ("new Date().toLocaleString('en-US', { timeZone: 'Mars/Olympus_Mons' })", "the time zone 'Mars/Olympus_Mons'"),
        ("'a'.localeCompare('b', 'sv')", "Collator (localeCompare) for the locale 'sv'"),
        ("new Intl.Segmenter('en')", "Segmenter"),
    ];
    for (script, needle) in cases {
        let message = error(RICH, &format!("{script};\nreturnData([]);"));
        assert!(message.starts_with("the script threw: "), "{script}: {message}");
        assert!(message.contains(needle), "{script}: {message}");
        assert!(message.contains("static engine"), "{script}: {message}");
    }
    // What the static engine has instead: attributes, formats, the encoding.
    let script = r#"const img = document.querySelector('img');
        returnData([img.getAttribute('width'), document.createElement === undefined, document.characterSet,
          (1234.5).toLocaleString('de-DE'), new Date(0).toLocaleDateString('en-US', { timeZone: 'UTC' }),
          ['b', 'Á', 'a'].sort((x, y) => x.localeCompare(y))]);"#;
    assert_eq!(data(RICH, script), json!([null, false, "UTF-8", "1.234,5", "1/1/1970", ["a", "Á", "b"]]));
    // Scrolling has nothing to do without a browser, and is no error.
    assert_eq!(data(RICH, "window.scrollTo(0, 1e6); returnData([document.title]);"), json!(["Rich page"]));
}

#[test]
fn a_promise_nothing_resolves_ends_at_once() {
    // Not the run timeout: the run ends as soon as nothing is left to run.
    let message = error(RICH, "await new Promise(() => {});");
    assert!(message.contains("waits for a promise that nothing resolves"), "{message}");
}

#[test]
fn an_endless_loop_ends_at_the_timeout() {
    for script in [
        "while (true) {}",
        "returnData([1]); for (;;) {}",
        "const f = async () => { for (;;) { await null; } }; await f();",
    ] {
        let started = Instant::now();
        let outcome = run_with(RICH, script, Duration::from_millis(700));
        let elapsed = started.elapsed();
        assert!(matches!(outcome, Err(StaticError::TimedOut(_))), "{script}: {outcome:?}");
        assert!(elapsed >= Duration::from_millis(650), "not before the timeout: {script}: {elapsed:?}");
    }
    assert_eq!(StaticError::TimedOut(8).to_string(), "timed out after 8 s");
}

#[test]
fn memory_and_stack_exhaustion_are_errors_not_crashes() {
    let message = error(RICH, "const a = []; for (;;) a.push(new Array(1e6).fill(1.5));");
    assert!(message.contains("out of memory"), "{message}");
    let message = error(RICH, "const s = 'x'.repeat(2 ** 29); returnData([s.length, s + s]);");
    assert!(message.starts_with("the script threw") || message.starts_with("the script failed"), "{message}");
    let message = error(RICH, "const f = (n) => f(n + 1) + 1; f(0);");
    assert!(message.contains("stack"), "{message}");
    // And the next run is fine.
    assert_eq!(data(RICH, "returnData([document.title]);"), json!(["Rich page"]));
}

#[test]
fn results_over_10_mib_are_refused() {
    let message = error(RICH, "returnData(['x'.repeat(11 * 1024 * 1024)]);");
    assert!(message.contains("larger than 10 MiB"), "{message}");
    let got = data(RICH, "returnData(['x'.repeat(9 * 1024 * 1024)].map(s => s.length));");
    assert_eq!(got, json!([9 * 1024 * 1024]));
}

#[test]
fn page_scripts_do_not_run() {
    let html = "<ul id=list></ul><script>document.getElementById('list').innerHTML = '<li>x</li>'; window.returnData = 1;</script>";
    assert_eq!(
        data(html, "returnData([document.querySelectorAll('li').length, typeof notDefinedByPage]);"),
        json!([0, "undefined"])
    );
}

/// What the prelude's helpers define (accessors enumerable with a setter
/// that refuses by name; methods and refusals writable, not enumerable),
/// and svc's own functions answer `[native code]` to `toString()`, as a
/// browser's DOM functions do (its bytecode is read without source text).
#[test]
fn the_dom_s_properties_are_defined_as_before_and_its_functions_are_native_code() {
    let script = r#"
        const shape = (proto, name) => {
          const d = Object.getOwnPropertyDescriptor(proto, name);
          return [typeof d.get, typeof d.set, typeof d.value, !!d.writable, d.enumerable, d.configurable];
        };
        let thrown = null;
        try { document.body.offsetWidth = 1; } catch (e) { thrown = e.message; }
        returnData([
          shape(Element.prototype, 'id'), shape(Node.prototype, 'textContent'), shape(Element.prototype, 'title'),
          shape(Element.prototype, 'getAttribute'), shape(Element.prototype, 'setAttribute'),
          shape(Element.prototype, 'offsetWidth'), shape(globalThis, 'setTimeout'),
          thrown.startsWith('setting `offsetWidth` is not supported'),
          document.querySelector.toString(), Object.getOwnPropertyDescriptor(Element.prototype, 'id').get.toString(),
          document.querySelector('h1').getAttribute.name,
        ]);"#;
    let accessor = json!(["function", "function", "undefined", false, true, true]);
    let method = json!(["undefined", "undefined", "function", true, false, true]);
    assert_eq!(
        data(RICH, script),
        json!([
            accessor,
            accessor,
            accessor,
            method,
            method,
            ["function", "function", "undefined", false, false, true],
            method,
            true,
            "function querySelector() {\n    [native code]\n}",
            "function id() {\n    [native code]\n}",
            "getAttribute",
        ])
    );
}

/// The realm a script finds keeps its shape: every own property of the
/// global object and of svc's objects, its attributes, and each function's
/// name, length, `toString()` and prototype, as `realm_shape.json` recorded
/// them from the engine (1,347 properties of the global object and 157
/// other objects). Regenerate the record only for a change a script is
/// meant to see: `realm_shape.js` prints it.
#[test]
fn the_realm_keeps_the_shape_it_was_recorded_with() {
    let got = data(RICH, include_str!("realm_shape.js"));
    let recorded: Value = serde_json::from_str(include_str!("realm_shape.json")).unwrap();
    let (got, recorded) = (&got[0], &recorded[0]);
    assert_eq!(got["before"], recorded["before"]);
    let (got, recorded) = (got["shapes"].as_object().unwrap(), recorded["shapes"].as_object().unwrap());
    assert_eq!(got.keys().collect::<Vec<_>>(), recorded.keys().collect::<Vec<_>>());
    for (name, expected) in recorded {
        let (got, expected) = (got[name].as_array().unwrap(), expected.as_array().unwrap());
        for (got, expected) in got.iter().zip(expected) {
            assert_eq!(got, expected, "{name}");
        }
        assert_eq!(got.len(), expected.len(), "{name}");
    }
}

/// Every member of the DOM's prototypes (defined natively, `dom_members.rs`)
/// reaches the prelude's implementation of its name: each accessor read and
/// each method called on a node of its kind answers or throws the engine's
/// own errors, never svc's "no implementation" one. Refusals and setters
/// throw the refusal that names them.
#[test]
fn every_dom_member_reaches_its_implementation() {
    let script = r#"
        const text = [...document.body.childNodes].find((n) => n.nodeType === 3);
        const instances = [
          [Node.prototype, document.body], [CharacterData.prototype, text], [Text.prototype, text],
          [DocumentType.prototype, document.doctype], [Element.prototype, document.querySelector('a')],
          [Document.prototype, document], [DOMTokenList.prototype, document.body.classList],
        ];
        const broken = [];
        let members = 0;
        for (const [proto, node] of instances) {
          for (const name of Object.getOwnPropertyNames(proto)) {
            const d = Object.getOwnPropertyDescriptor(proto, name);
            if (typeof d.get !== 'function' && typeof d.value !== 'function') continue;
            if (proto === DOMTokenList.prototype && !['add', 'remove', 'toggle', 'replace'].includes(name)) continue;
            members++;
            try {
              if (d.get) d.get.call(node); else d.value.call(node, 'a');
            } catch (e) {
              if (!(e instanceof Error) || /svc's DOM/.test(e.message)) broken.push(name + ': ' + e.message);
            }
          }
        }
        const refused = (f) => { try { f(); return null; } catch (e) { return e.message.split(' is not supported')[0]; } };
        returnData([{
          members, broken,
          refusals: [
            refused(() => document.body.appendChild(text)),
            refused(() => document.body.offsetWidth),
            refused(() => { document.body.id = 'x'; }),
            refused(() => document.createElement('p')),
            refused(() => document.body.classList.add('x')),
          ],
          values: [document.body.firstElementChild.tagName, document.querySelector('a').href, text.length > 0,
            document.doctype.name, document.querySelector('h1').getAttributeNames()],
        }]);"#;
    let got = data(RICH, script);
    let got = &got[0];
    assert_eq!(got["broken"], json!([]), "{got}");
    assert!(got["members"].as_u64().unwrap() > 250, "{got}");
    assert_eq!(
        got["refusals"],
        json!([
            "appendChild (the page is read-only)",
            "offsetWidth (no layout)",
            "setting `id`",
            "createElement (the page is read-only)",
            "add (the page is read-only)",
        ])
    );
    assert_eq!(
        got["values"],
        json!(["NAV", "https://shop.example/base/item?id=7#top", true, "html", ["id", "data-product-id", "data-x"]])
    );
}

/// The DOM's groups are made when first used, after the script started: a
/// script that replaced a builtin first still reads the page.
#[test]
fn a_script_that_replaces_builtins_first_still_reads_the_dom() {
    let script = r#"
        Object.assign = () => ({});
        Object.freeze = (o) => o;
        returnData([document.querySelector('h1').id, document.querySelector('input').value, document.title]);"#;
    assert_eq!(data(RICH, script), json!(["t", "shoes", "Rich page"]));
}
