//! Realistic scripts on realistic server-rendered pages, run on both engines:
//! a real Chromium (`svc_runner::ChromiumEngine`) and the static engine. The
//! data must be byte-identical in at least 99% of the cases the static engine
//! does not refuse on purpose (an error that names what needs a browser).
//!
//! The corpus is in `corpus/`: the pages in `pages/` (listings, an article
//! with JSON-LD, a product page, tables, forms, whitespace and inline boxes,
//! numbers and names to format and sort, and pages in legacy charsets), the
//! scripts in `cases-*.txt`. A case is a line `## name /path [/path ...]`
//! and the script below it, run once per path. The pages in legacy charsets
//! are written in UTF-8 and served encoded, with the charset in the
//! `Content-Type` header, in a `<meta>` only, or nowhere ([`LEGACY`]).
//!
//! The test prints the agreement figure, every disagreement and every
//! refusal; `SVC_CORPUS_ONLY=name-prefix` runs some cases only (the
//! threshold is then not asserted).

use std::path::PathBuf;
use std::time::Duration;

use axum::Router;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use encoding_rs::Encoding;
use svc_engine::{Engine, ScriptResult};
use svc_static::{StaticConfig, StaticEngine};
use tokio::net::TcpListener;

use crate::dom_api::job;

/// The share of non-refused cases that must agree.
const AGREEMENT: f64 = 0.99;
/// At most this share of the cases may be refused: refusing is not a way
/// to agree.
const MAX_REFUSED: f64 = 0.10;
/// What the static engine's refusals on purpose say.
const REFUSAL: &str = "is not supported by the static engine";

/// A page in a legacy charset: `(path, page file, encoding, Content-Type, tag put in <head>)`.
const LEGACY: &[(&str, &str, &str, &str, &str)] = &[
    ("/legacy/fr-1252-header.html", "legacy-fr.html", "windows-1252", "text/html; charset=windows-1252", ""),
    ("/legacy/fr-1252-meta.html", "legacy-fr.html", "windows-1252", "text/html", r#"<meta charset="windows-1252">"#),
    ("/legacy/fr-latin1-header.html", "legacy-fr.html", "windows-1252", "text/html; charset=ISO-8859-1", ""),
    ("/legacy/fr-utf8-header.html", "legacy-fr.html", "utf-8", "text/html; charset=utf-8", ""),
    ("/legacy/ja-sjis-header.html", "legacy-ja.html", "shift_jis", "text/html; charset=Shift_JIS", ""),
    (
        "/legacy/ja-sjis-meta.html",
        "legacy-ja.html",
        "shift_jis",
        "text/html",
        r#"<meta http-equiv="Content-Type" content="text/html; charset=shift_jis">"#,
    ),
    ("/legacy/ja-eucjp-meta.html", "legacy-ja.html", "euc-jp", "text/html", r#"<meta charset="EUC-JP">"#),
    ("/legacy/pl-8859-2-header.html", "legacy-pl.html", "iso-8859-2", "text/html; charset=iso-8859-2", ""),
    ("/legacy/pl-8859-2-meta.html", "legacy-pl.html", "iso-8859-2", "text/html", r#"<meta charset="ISO-8859-2">"#),
    ("/legacy/de-8859-15-meta.html", "legacy-de.html", "iso-8859-15", "text/html", r#"<meta charset="iso-8859-15">"#),
    ("/legacy/de-1252-bare.html", "legacy-de.html", "windows-1252", "text/html", ""),
    ("/legacy/zh-gbk-header.html", "legacy-zh.html", "gbk", "text/html; charset=gb2312", ""),
];

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/static/corpus")
}

/// One script on one page.
#[derive(Clone)]
struct Case {
    name: String,
    path: String,
    script: String,
}

/// Every case of every `cases-*.txt`, one per path.
fn cases() -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("cases-"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut heading: Option<(String, Vec<String>)> = None;
        let mut script = String::new();
        let mut flush = |heading: &mut Option<(String, Vec<String>)>, script: &mut String| {
            if let Some((name, paths)) = heading.take() {
                assert!(!script.trim().is_empty(), "{name}: no script");
                for path in paths {
                    out.push(Case { name: name.clone(), path, script: script.clone() });
                }
            }
            script.clear();
        };
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("## ") {
                flush(&mut heading, &mut script);
                let mut words = rest.split_whitespace().map(str::to_string);
                let name = words.next().expect("a case name");
                let paths: Vec<String> = words.collect();
                assert!(!paths.is_empty(), "{name}: no page");
                heading = Some((name, paths));
            } else {
                script.push_str(line);
                script.push('\n');
            }
        }
        flush(&mut heading, &mut script);
    }
    out
}

async fn page(Path(file): Path<String>) -> Response {
    if file.contains("..") {
        return StatusCode::NOT_FOUND.into_response();
    }
    match std::fs::read(corpus_dir().join("pages").join(&file)) {
        Ok(bytes) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], bytes).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn legacy(Path(name): Path<String>) -> Response {
    let path = format!("/legacy/{name}");
    let Some((_, file, encoding, content_type, tag)) = LEGACY.iter().find(|l| l.0 == path) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let text = std::fs::read_to_string(corpus_dir().join("pages").join(file)).unwrap();
    let text = text.replace("<!--charset-->", tag);
    let encoding = Encoding::for_label(encoding.as_bytes()).unwrap();
    // Characters the encoding lacks become character references, as a legacy site writes them.
    let (bytes, _, _) = encoding.encode(&text);
    ([(header::CONTENT_TYPE, *content_type)], bytes.into_owned()).into_response()
}

async fn serve() -> String {
    let app = Router::new().route("/legacy/{name}", get(legacy)).route("/{file}", get(page));
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://127.0.0.1:{port}")
}

fn chromium() -> svc_runner::ChromiumEngine {
    svc_runner::ChromiumEngine::new(svc_runner::EngineConfig {
        chromium: svc_runner::browser::find_chromium(std::env::var("SVC_TEST_CHROMIUM").ok().as_deref()),
        browser_user: svc_runner::sandbox::DEFAULT_BROWSER_USER.into(),
        sandbox: Default::default(),
        allow_private_networks: true.into(),
        runs_per_browser: 500,
        spare_pages: 1,
        warm_pages: 0,
        resolver: Default::default(),
        tiers: Default::default(),
    })
}

fn describe(result: &ScriptResult) -> String {
    match result {
        ScriptResult::Data { json, .. } => json.clone(),
        ScriptResult::Failed { message } => format!("(failed) {message}"),
    }
}

#[tokio::test]
async fn realistic_scripts_give_the_browsers_data() {
    let only = std::env::var("SVC_CORPUS_ONLY").ok();
    let all = cases();
    assert!(all.len() >= 100, "the corpus has {} cases", all.len());
    let selected: Vec<Case> =
        all.iter().filter(|c| only.as_deref().is_none_or(|prefix| c.name.starts_with(prefix))).cloned().collect();
    let base = serve().await;
    let browser = chromium();
    let fast = StaticEngine::new(StaticConfig { allow_private_networks: true.into(), ..Default::default() });

    let (mut agreed, mut refused, mut differences) = (0usize, Vec::new(), Vec::new());
    for case in &selected {
        let mut run = job(&format!("{base}{}", case.path), &case.script);
        run.timeout = Duration::from_secs(20);
        let expected = browser.run(run.clone()).await.result;
        let got = fast.run(run).await.result;
        match (&expected, &got) {
            (ScriptResult::Data { json: a, length: n }, ScriptResult::Data { json: b, length: m })
                if (a, n) == (b, m) =>
            {
                agreed += 1
            }
            (_, ScriptResult::Failed { message }) if message.contains(REFUSAL) => {
                refused.push(format!("{} {}: {message}", case.name, case.path))
            }
            _ => differences.push(format!(
                "{} {}\n  chromium: {}\n  static:   {}",
                case.name,
                case.path,
                describe(&expected),
                describe(&got)
            )),
        }
    }
    browser.close().await;

    let judged = selected.len() - refused.len();
    let share = if judged == 0 { 0.0 } else { agreed as f64 / judged as f64 };
    println!(
        "realistic corpus: {agreed} of {judged} non-refused cases agree ({:.1}%); {} of {} cases refused on purpose",
        share * 100.0,
        refused.len(),
        selected.len()
    );
    for r in &refused {
        println!("refused: {r}");
    }
    for d in &differences {
        println!("DIFFERENT: {d}");
    }
    if only.is_none() {
        assert!(
            (refused.len() as f64) <= MAX_REFUSED * selected.len() as f64,
            "{} of {} cases refused",
            refused.len(),
            selected.len()
        );
        assert!(
            share >= AGREEMENT,
            "{agreed} of {judged} agree ({:.1}%), below {}%:\n{}",
            share * 100.0,
            AGREEMENT * 100.0,
            differences.join("\n")
        );
    }
}
