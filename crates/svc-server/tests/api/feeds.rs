//! A scrap's feed of what changed between its successful runs: found as a
//! feed reader finds it (the scrap page's `<link rel="alternate">`), read
//! without a credential but its token, each format parsed by a real feed
//! parser (Python's `feedparser`, run by `readers_check.py` when
//! `SVC_TEST_READERS_PYTHON` is set; skipped with a printed line without
//! it); a wrong, rotated or other scrap's token is 404; rotation takes the
//! session's CSRF token and is 404 for another organization.

use crate::common;
use crate::exports::{insert_run_with, readers_check, readers_python};
use crate::web::{csrf_token_of, session_cookie};

use common::{Account, TestApp};
use reqwest::StatusCode;
use serde_json::json;
use svc_domain::history::StatusDetail;

/// The `href` of the scrap page's `<link rel="alternate" type="TYPE">`.
async fn advertised(app: &TestApp, account: &Account, scrap: &str, kind: &str) -> String {
    let page = app
        .http
        .get(format!("{}/scraps/{scrap}", app.base))
        .header("cookie", session_cookie(&account.token))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    let head = &html[..html.find("</head>").expect("a head")];
    let tag = format!("<link rel=\"alternate\" type=\"{kind}\"");
    let start = head.find(&tag).unwrap_or_else(|| panic!("{tag} in the head:\n{head}"));
    let link = &head[start..start + head[start..].find('>').unwrap()];
    let href = &link[link.find("href=\"").unwrap() + 6..];
    // askama escapes `&` and `=` in attributes; the browser reads them back.
    href[..href.find('"').unwrap()].replace("&#61;", "=").replace("&amp;", "&")
}

/// `url` (absolute, on the app) fetched without any credential.
async fn read(app: &TestApp, url: &str) -> reqwest::Response {
    assert!(url.starts_with(&app.base), "{url} is on {}", app.base);
    reqwest::get(url).await.unwrap()
}

#[tokio::test]
async fn a_scraps_feed_lists_what_changed_for_feed_readers() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.create_scrap(&alice, "Prices & <offers>").await["id"].as_str().unwrap().to_string();

    // Runs, oldest first: a first one, one that changes things, one the
    // same (no entry), a failure (not compared), one that adds an item.
    let first = insert_run_with(&app, &alice, &sid, r#"[{"id":1,"p":10},{"id":2,"p":20}]"#).await;
    let changed = insert_run_with(&app, &alice, &sid, r#"[{"id":1,"p":12},{"id":3,"p":30}]"#).await;
    insert_run_with(&app, &alice, &sid, r#"[{"id":3,"p":30},{"id":1,"p":12}]"#).await;
    app.insert_run(&alice, &sid, Some(StatusDetail::Error)).await;
    // The last one changes a value to text a feed must escape, with a
    // character XML cannot hold.
    let added =
        insert_run_with(&app, &alice, &sid, r#"[{"id":1,"p":"<b>\u0001"},{"id":3,"p":30},{"id":4,"p":40}]"#).await;

    let atom_url = advertised(&app, &alice, &sid, "application/atom+xml").await;
    let rss_url = advertised(&app, &alice, &sid, "application/rss+xml").await;
    assert!(atom_url.starts_with(&format!("{}/scraps/{sid}/feed.atom?token=feed_", app.base)), "{atom_url}");
    let token = &atom_url[atom_url.find("token=").unwrap() + 6..];
    assert_eq!(rss_url, format!("{}/scraps/{sid}/feed.rss?token={token}", app.base));
    // The same address on every view.
    assert_eq!(advertised(&app, &alice, &sid, "application/atom+xml").await, atom_url);

    let run_url = |id: &svc_domain::HistoryId| format!("{}/scraps/{sid}/history/{id}", app.base);
    let entries = json!([
        {"title": "1 added, 1 changed", "link": run_url(&added.id), "id": format!("urn:svc:run:{}", added.id),
         "content_has": ["40}</code>", "p <code>12</code> → <code>&lt;b&gt;</code>"]},
        {"title": "1 added, 1 removed, 1 changed", "link": run_url(&changed.id), "id": format!("urn:svc:run:{}", changed.id),
         "content_has": ["Added (1)", "Removed (1)", "Changed (1)", "p <code>10</code> → <code>12</code>"]},
        {"title": "First successful run: 2 items", "link": run_url(&first.id), "id": format!("urn:svc:run:{}", first.id),
         "content_has": ["Added (2)"]},
    ]);
    let mut documents = Vec::new();
    for (url, content_type, version) in [
        (&atom_url, "application/atom+xml; charset=utf-8", "atom10"),
        (&rss_url, "application/rss+xml; charset=utf-8", "rss20"),
    ] {
        let r = read(&app, url).await;
        assert_eq!(r.status(), StatusCode::OK, "{url}");
        assert_eq!(r.headers()["content-type"], content_type);
        let body = r.text().await.unwrap();
        // What a reader shows of each entry: the changes, the data escaped.
        assert!(body.contains("Prices &amp; &lt;offers&gt;: changes"), "{body}");
        assert!(!body.contains('\u{1}'), "no character XML cannot hold");
        assert!(!body.contains("<b>"), "the data is text, never markup: {body}");
        documents.push((body, version));
    }
    // A reader's conditional request: 304 while nothing changed, the feed
    // again once a successful run is added.
    let etag = read(&app, &atom_url).await.headers()["etag"].to_str().unwrap().to_string();
    let conditional = |tag: String| app.http.get(&atom_url).header("if-none-match", tag).send();
    let same = conditional(etag.clone()).await.unwrap();
    assert_eq!(same.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(same.headers()["etag"], etag.as_str());
    assert!(same.text().await.unwrap().is_empty());
    let rss_etag = read(&app, &rss_url).await.headers()["etag"].to_str().unwrap().to_string();
    assert_ne!(rss_etag, etag, "each format has its own");
    assert_eq!(conditional("\"other\"".into()).await.unwrap().status(), StatusCode::OK);
    app.insert_run(&alice, &sid, Some(StatusDetail::Error)).await;
    assert_eq!(
        conditional(etag.clone()).await.unwrap().status(),
        StatusCode::NOT_MODIFIED,
        "a failure changes nothing"
    );

    match readers_python() {
        Some(python) => feedparser_reads(&python, &documents, &entries).await,
        None => println!("skipped the feedparser check: SVC_TEST_READERS_PYTHON is not set (scripts/test.sh sets it)"),
    }

    // A new successful run: the feed is sent again, with another version.
    insert_run_with(&app, &alice, &sid, r#"[{"id":9}]"#).await;
    let again = conditional(etag.clone()).await.unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    assert_ne!(again.headers()["etag"], etag.as_str());
}

/// feedparser reads each document as `entries` (and does fail on a difference).
async fn feedparser_reads(python: &str, documents: &[(String, &str)], entries: &serde_json::Value) {
    for (body, version) in documents {
        let expected = json!({"version": version, "title": "Prices & <offers>: changes", "entries": entries});
        readers_check(python, "feed", body.as_bytes(), &expected.to_string()).await;
    }
    // The parser does fail on a difference.
    let wrong = json!({"version": "atom10", "title": "Prices & <offers>: changes", "entries": []});
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.xml"), &documents[0].0).unwrap();
    std::fs::write(dir.path().join("e.json"), wrong.to_string()).unwrap();
    let out = tokio::process::Command::new(python)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/readers_check.py"))
        .arg("feed")
        .arg(dir.path().join("f.xml"))
        .arg(dir.path().join("e.json"))
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
}

#[tokio::test]
async fn wrong_rotated_and_foreign_feed_tokens_are_not_found() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let sid = app.create_scrap(&alice, "Mine").await["id"].as_str().unwrap().to_string();
    let sibling = app.create_scrap(&alice, "Sibling").await["id"].as_str().unwrap().to_string();
    let bobs = app.create_scrap(&bob, "Bob's").await["id"].as_str().unwrap().to_string();
    insert_run_with(&app, &alice, &sid, r#"[{"id":1}]"#).await;
    let atom_url = advertised(&app, &alice, &sid, "application/atom+xml").await;
    let token = atom_url[atom_url.find("token=").unwrap() + 6..].to_string();
    let bobs_url = advertised(&app, &bob, &bobs, "application/atom+xml").await;
    let bobs_token = bobs_url[bobs_url.find("token=").unwrap() + 6..].to_string();
    assert_eq!(read(&app, &atom_url).await.status(), StatusCode::OK);

    let feed = |scrap: &str, query: &str| format!("{}/scraps/{scrap}/feed.atom{query}", app.base);
    for url in [
        feed(&sid, ""),
        feed(&sid, "?token="),
        // One character changed (to one it is not).
        feed(&sid, &format!("?token={}{}", &token[..token.len() - 1], if token.ends_with('x') { 'y' } else { 'x' })),
        feed(&sid, "?token=feed_short"),
        // A token opens its own scrap's feed only.
        feed(&sibling, &format!("?token={token}")),
        feed(&bobs, &format!("?token={token}")),
        feed(&sid, &format!("?token={bobs_token}")),
        format!("{}/scraps/nope/feed.rss?token={token}", app.base),
    ] {
        let r = read(&app, &url).await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{url}");
        assert!(r.text().await.unwrap().contains("There is no feed at this address"), "{url}");
    }

    // Rotation: a form of the scrap page, with the CSRF token.
    let rotate = |account: &Account, scrap: &str, csrf: Option<String>| {
        let mut form = vec![];
        if let Some(c) = csrf {
            form.push(("csrf", c));
        }
        app.http
            .post(format!("{}/scraps/{scrap}/feed/rotate", app.base))
            .header("cookie", session_cookie(&account.token))
            .header("origin", app.base.clone())
            .form(&form)
            .send()
    };
    let alice_csrf = csrf_token_of(&app, &alice.token).await;
    let bob_csrf = csrf_token_of(&app, &bob.token).await;
    assert_eq!(rotate(&alice, &sid, None).await.unwrap().status(), StatusCode::FORBIDDEN, "no CSRF token");
    assert_eq!(
        rotate(&bob, &sid, Some(bob_csrf)).await.unwrap().status(),
        StatusCode::NOT_FOUND,
        "another organization"
    );
    // A viewer of the organization reads the scrap but may not change its feed's address.
    let (status, invite) = app
        .post("/api/organization/invites", &alice.token, json!({"email": "carol@example.com", "role": "viewer"}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{invite}");
    let carol = app.signup("carol@example.com").await;
    let invite_token = invite["link"].as_str().unwrap().split("token=").nth(1).unwrap().to_string();
    let (status, joined) = app.post("/api/invites/accept", &carol.token, json!({"token": invite_token})).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let carol = Account { token: joined["token"].as_str().unwrap().to_string(), ..carol };
    let carol_csrf = csrf_token_of(&app, &carol.token).await;
    assert_eq!(rotate(&carol, &sid, Some(carol_csrf)).await.unwrap().status(), StatusCode::FORBIDDEN, "a viewer");
    assert_eq!(read(&app, &atom_url).await.status(), StatusCode::OK, "still the same address");
    let rotated = rotate(&alice, &sid, Some(alice_csrf)).await.unwrap();
    assert_eq!(rotated.status(), StatusCode::OK, "followed to the scrap page");
    assert_eq!(rotated.url().path(), format!("/scraps/{sid}"));
    assert_eq!(rotated.url().query(), Some("feed=rotated"));
    assert!(rotated.text().await.unwrap().contains("The feed has a new address"));
    assert_eq!(read(&app, &atom_url).await.status(), StatusCode::NOT_FOUND, "the old address stopped working");
    let new_url = advertised(&app, &alice, &sid, "application/atom+xml").await;
    assert_ne!(new_url, atom_url);
    assert_eq!(read(&app, &new_url).await.status(), StatusCode::OK);
    // The activity log says so.
    let (_, log) = app.get(&format!("/api/scraps/{sid}/activities"), &alice.token).await;
    assert!(log["data"].as_array().unwrap().iter().any(|a| a["type"] == "feed.rotated"), "{log}");

    // A deleted scrap's feed is gone.
    let (status, _) = app.delete(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(read(&app, &new_url).await.status(), StatusCode::NOT_FOUND);
}
