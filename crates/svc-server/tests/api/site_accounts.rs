//! Logged-in scraping end to end, on a real Chromium against a local site
//! behind a log-in (`common::login_site`): the account routes, runs that log
//! in with `SVC.account`, sessions saved per scrap and reused, forgotten on
//! request, never seen by another scrap, and the login found nowhere it
//! could leak (answers, history rows, error snapshots, webhooks, MCP).

use crate::common;

use std::time::Duration;

use common::login_site::{LoginSite, MEMBERS_SCRIPT, saved_session};
use common::receiver::Receiver;
use common::{Account, TestApp, assert_error};
use reqwest::{Method, StatusCode};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use svc_domain::plan::Plan;
use svc_domain::{HistoryId, ObjectId};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const USERNAME: &str = "ada.lovelace";
const PASSWORD: &str = "Tr0ub4dor&3 \"members\" <secret>";

fn account_path(scrap: &str) -> String {
    format!("/api/scraps/{scrap}/account")
}

async fn set_login(app: &TestApp, who: &Account, scrap: &str, username: &str, password: &str) -> Value {
    let (status, body) =
        app.put(&account_path(scrap), &who.token, json!({"username": username, "password": password})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn members_scrap(app: &TestApp, who: &Account, site: &LoginSite, title: &str) -> String {
    app.scrap_with(who, json!({"title": title, "url": site.url("/members"), "request": MEMBERS_SCRIPT})).await
}

/// Runs `scrap` and waits for its row.
async fn run(app: &TestApp, who: &Account, scrap: &str) -> Value {
    let (status, row) = app.run_and_wait(&who.token, scrap).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    row
}

fn titles(row: &Value) -> Vec<String> {
    let data: Vec<Value> = serde_json::from_str(row["data"].as_str().unwrap()).unwrap();
    data.iter().map(|item| item["title"].as_str().unwrap_or_default().to_string()).collect()
}

/// Neither the password nor the username in `text`.
fn assert_no_login(what: &str, text: &str) {
    assert!(!text.contains(PASSWORD), "the password in {what}: {text}");
    assert!(!text.contains("Tr0ub4dor"), "a piece of the password in {what}: {text}");
    assert!(!text.contains(USERNAME), "the username in {what}: {text}");
}

#[tokio::test]
async fn runs_log_in_once_and_keep_their_session_per_scrap() {
    let site = LoginSite::start(USERNAME, PASSWORD).await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let ada = app.signup("ada@example.com").await;
    let members = members_scrap(&app, &ada, &site, "Members' reports").await;

    let status = set_login(&app, &ada, &members, USERNAME, PASSWORD).await;
    assert_eq!(status, json!({"hasAccount": true, "username": "a***", "hasSession": false, "sessionSavedAt": null}));

    // First run: the site sends it to the login form; the script logs in.
    let first = run(&app, &ada, &members).await;
    assert_eq!(first["statusDetail"], "success", "{first}");
    assert_eq!(titles(&first), ["Report 1", "Report 2", "Report 3"]);
    assert_eq!(site.logins(), 1);
    let account = saved_session(&app, &ada.token, &members).await;
    assert_eq!((account["hasAccount"].clone(), account["hasSession"].clone()), (json!(true), json!(true)), "{account}");
    assert!(account["sessionSavedAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{account}");

    // Second run: the saved cookie gets it straight in.
    let second = run(&app, &ada, &members).await;
    assert_eq!(second["statusDetail"], "success", "{second}");
    assert_eq!(titles(&second).len(), 3);
    assert_eq!(site.logins(), 1, "no second login");
    saved_session(&app, &ada.token, &members).await;
    let saved_cookie = site.members_cookies().last().cloned().unwrap();
    assert!(saved_cookie.starts_with("sid-"), "the run came with the saved cookie: {saved_cookie}");

    // Another scrap on the same site, without a login: its run never sees
    // the first scrap's cookie, so it cannot get in.
    let outsider = members_scrap(&app, &ada, &site, "Outsider").await;
    let refused = run(&app, &ada, &outsider).await;
    assert_eq!(refused["statusDetail"], "error", "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("needs a login, and this scrap has none"), "{refused}");
    assert_eq!(site.members_cookies().last().map(String::as_str), Some(""), "no cookie reached the site");
    assert_eq!(site.logins(), 1);
    let (_, outsider_account) = app.get(&account_path(&outsider), &ada.token).await;
    assert_eq!(outsider_account["hasSession"], false, "{outsider_account}");

    // Another scrap with the same login logs in by itself.
    let colleague = members_scrap(&app, &ada, &site, "Colleague").await;
    set_login(&app, &ada, &colleague, USERNAME, PASSWORD).await;
    assert_eq!(run(&app, &ada, &colleague).await["statusDetail"], "success");
    assert_eq!(site.logins(), 2, "its own login, not the first scrap's session");
    let cookies = site.members_cookies();
    assert_eq!(cookies[cookies.len() - 2], "", "it arrived with no cookie and logged in");
    assert_ne!(cookies[cookies.len() - 1], saved_cookie, "then came back with a session of its own");

    // Forgetting the session: the next run logs in again.
    let (status, body) = app.delete(&format!("/api/scraps/{members}/session"), &ada.token).await;
    assert_eq!((status, body), (StatusCode::NO_CONTENT, Value::Null));
    let (_, account) = app.get(&account_path(&members), &ada.token).await;
    assert_eq!(account, json!({"hasAccount": true, "username": "a***", "hasSession": false, "sessionSavedAt": null}));
    assert_eq!(run(&app, &ada, &members).await["statusDetail"], "success");
    assert_eq!(site.logins(), 3);
    let relogged = site.members_cookies();
    assert_eq!(relogged[relogged.len() - 2], "", "it reached the members' page logged out first");

    // A site that ended the session: the script logs in again and the new session is kept.
    site.log_everyone_out();
    assert_eq!(run(&app, &ada, &members).await["statusDetail"], "success");
    assert_eq!(site.logins(), 4);
    saved_session(&app, &ada.token, &members).await;
    assert_eq!(run(&app, &ada, &members).await["statusDetail"], "success");
    assert_eq!(site.logins(), 4, "the new session was saved");

    // Removing the login removes its session: the next run cannot get in.
    saved_session(&app, &ada.token, &members).await;
    let (status, _) = app.delete(&account_path(&members), &ada.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (_, account) = app.get(&account_path(&members), &ada.token).await;
    assert_eq!(account, json!({"hasAccount": false, "username": null, "hasSession": false, "sessionSavedAt": null}));
    let after = run(&app, &ada, &members).await;
    assert_eq!(after["statusDetail"], "error", "{after}");
    assert_eq!(site.logins(), 4);

    // Nothing the API answers holds the login.
    let (_, scrap) = app.get(&format!("/api/scraps/{members}"), &ada.token).await;
    assert!(scrap.get("account").is_none() && scrap.get("username").is_none(), "the Scrap shape is unchanged");
    let (_, rows) = app.get(&format!("/api/historys?scrap={members}&perPage=100"), &ada.token).await;
    let (_, log) = app.get(&format!("/api/scraps/{members}/activities?perPage=100"), &ada.token).await;
    let kinds: Vec<&str> = log["data"].as_array().unwrap().iter().map(|a| a["type"].as_str().unwrap()).collect();
    for kind in ["account.set", "session.forgotten", "account.removed"] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    let (_, list) = app.get("/api/scraps", &ada.token).await;
    for (what, answer) in [("the scrap", &scrap), ("its runs", &rows), ("its activity log", &log), ("the list", &list)]
    {
        assert_no_login(what, &answer.to_string());
    }
}

#[tokio::test]
async fn the_login_leaks_into_no_row_snapshot_webhook_or_mcp_answer() {
    let site = LoginSite::start(USERNAME, PASSWORD).await;
    let receiver = Receiver::start(&[]).await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let ada = app.signup("ada@example.com").await;
    app.store.set_plan(ada.org(), Plan::Growth).await.unwrap();
    let (status, hook) = app
        .post(
            "/api/developers/webhooks",
            &ada.token,
            json!({"url": receiver.url, "events": ["scrap.success", "scrap.failure"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");

    // A script that returns the login in its data: masked in the row and the preview.
    let leaky = app
        .scrap_with(
            &ada,
            json!({
                "title": "Leaky",
                "url": site.url("/members"),
                "request": MEMBERS_SCRIPT.replace(
                    "returnData([...doc.querySelectorAll('li.item')].map(li => ({ title: li.textContent })));",
                    "returnData([{ title: 'mine', who: SVC.account.username, note: 'pw: ' + SVC.account.password }]);",
                ),
            }),
        )
        .await;
    set_login(&app, &ada, &leaky, USERNAME, PASSWORD).await;
    let row = run(&app, &ada, &leaky).await;
    assert_eq!(row["statusDetail"], "success", "{row}");
    let data: Value = serde_json::from_str(row["data"].as_str().unwrap()).unwrap();
    assert_eq!(data, json!([{"title": "mine", "who": "***", "note": "pw: ***"}]));

    // A run that fails after logging in, with the login in its error and in the page.
    let broken_script = MEMBERS_SCRIPT.replace(
        "returnData([...doc.querySelectorAll('li.item')].map(li => ({ title: li.textContent })));",
        "const form = document.querySelector('form#login');
         form.username.setAttribute('value', SVC.account.username);
         form.password.setAttribute('value', SVC.account.password);
         document.body.insertAdjacentHTML('beforeend', doc.body.innerHTML);
         document.body.appendChild(document.createElement('p')).textContent = SVC.account.password;
         throw new Error('no reports for ' + SVC.account.username + ' / ' + SVC.account.password);",
    );
    let broken =
        app.scrap_with(&ada, json!({"title": "Broken", "url": site.url("/members"), "request": broken_script})).await;
    set_login(&app, &ada, &broken, USERNAME, PASSWORD).await;
    let failed = run(&app, &ada, &broken).await;
    assert_eq!(failed["statusDetail"], "error", "{failed}");
    assert_eq!(failed["error"], "the script threw: no reports for *** / ***");
    assert!(failed.get("errorSnapshot").is_none_or(Value::is_null), "no REST answer carries the snapshot");
    let stored = app
        .store
        .history_row(ada.org(), HistoryId::parse(failed["id"].as_str().unwrap()).unwrap())
        .await
        .unwrap()
        .unwrap();
    let snapshot = stored.error_snapshot.clone().expect("an error snapshot");
    let html = snapshot["html"].as_str().expect("the page's HTML");
    assert!(html.contains("Welcome back, ***.") && html.contains("<p>***</p>"), "masked in place: {html}");
    assert!(html.contains("value=\"***\""), "{html}");
    assert_no_login("the error snapshot", &snapshot.to_string());
    assert_no_login("the stored error", stored.error.as_deref().unwrap());
    assert_eq!(site.logins(), 2, "both logged in");

    // The webhook deliveries.
    let hits = receiver.wait_for(2, Duration::from_secs(30)).await;
    for hit in &hits {
        assert_no_login("a webhook delivery", &String::from_utf8_lossy(&hit.body));
    }
    let preview = hits.iter().map(|h| h.json()).find(|b| b["historyId"] == row["id"]).unwrap()["resultPreview"].clone();
    assert!(preview.as_str().unwrap().contains("pw: ***"), "{preview}");

    // MCP answers, with a key.
    let (_, key) = app.create_key(&ada, json!({"name": "mcp"})).await;
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("{}/api/mcp", app.base)).auth_header(key.clone());
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.expect("MCP client connects");
    for scrap in [&leaky, &broken] {
        let args = json!({"scrapId": scrap}).as_object().cloned().unwrap();
        let answer = client
            .call_tool(CallToolRequestParams::new("svc_get_scrap_history".to_string()).with_arguments(args))
            .await
            .unwrap();
        let text: String = answer.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
        assert!(text.contains("***"), "{text}");
        assert_no_login("an MCP answer", &text);
    }
    let _ = client.cancel().await;

    // And the account routes, the history API, every answer.
    for path in [
        account_path(&leaky),
        format!("/api/historys?scrap={broken}"),
        format!("/api/historys/{}", row["id"].as_str().unwrap()),
    ] {
        let (status, answer) = app.get(&path, &key).await;
        assert_eq!(status, StatusCode::OK, "{path}: {answer}");
        assert_no_login(&path, &answer.to_string());
    }
}

#[tokio::test]
async fn account_routes_are_web_only_for_writes_scoped_and_validated() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let eve = app.signup("eve@example.com").await;
    let scrap = app.create_scrap(&ada, "Members").await["id"].as_str().unwrap().to_string();
    let other = app.create_scrap(&ada, "Other").await["id"].as_str().unwrap().to_string();
    set_login(&app, &ada, &scrap, USERNAME, PASSWORD).await;

    // API keys: reading with svc:scraps:read is fine and masked; writing is 401.
    let (_, reader) = app.create_key(&ada, json!({"name": "reader", "scopes": ["svc:scraps:read"]})).await;
    let (status, status_view) = app.get(&account_path(&scrap), &reader).await;
    assert_eq!(status, StatusCode::OK, "{status_view}");
    assert_eq!(
        status_view,
        json!({"hasAccount": true, "username": "a***", "hasSession": false, "sessionSavedAt": null})
    );
    let (_, everything) = app.create_key(&ada, json!({"name": "all"})).await;
    for (method, path) in [
        (Method::PUT, account_path(&scrap)),
        (Method::DELETE, account_path(&scrap)),
        (Method::DELETE, format!("/api/scraps/{scrap}/session")),
    ] {
        let request =
            app.request(method.clone(), &path, Some(&everything)).json(&json!({"username": "x", "password": "y"}));
        let (status, body) = app.send(request).await;
        assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
        assert!(body["description"].as_str().unwrap().contains("web session"), "{method} {path}: {body}");
    }
    let (_, history_only) = app.create_key(&ada, json!({"name": "history", "scopes": ["svc:history:read"]})).await;
    let (status, body) = app.get(&account_path(&scrap), &history_only).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
    let (_, scoped) = app.create_key(&ada, json!({"name": "scoped", "scrapIds": [other]})).await;
    let (status, body) = app.get(&account_path(&scrap), &scoped).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");

    // Another organization, an unknown scrap: 404 everywhere; a malformed id: 422.
    for (method, path) in [
        (Method::GET, account_path(&scrap)),
        (Method::PUT, account_path(&scrap)),
        (Method::DELETE, account_path(&scrap)),
        (Method::DELETE, format!("/api/scraps/{scrap}/session")),
        (Method::GET, account_path(&ObjectId::new().to_string())),
    ] {
        let request =
            app.request(method.clone(), &path, Some(&eve.token)).json(&json!({"username": "eve", "password": "x"}));
        let (status, body) = app.send(request).await;
        assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    let (status, body) = app.get(&account_path("nope"), &ada.token).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    let (_, still) = app.get(&account_path(&scrap), &ada.token).await;
    assert_eq!(still["username"], "a***", "eve changed nothing");

    // Bad bodies: 422 naming the field, never echoing a value; 400, 415.
    let long_name = "u".repeat(201);
    let long_password = "p".repeat(1001);
    for (body, field) in [
        (json!({}), "username"),
        (json!({"password": "x"}), "username"),
        (json!({"username": "", "password": "x"}), "username"),
        (json!({"username": "  ", "password": "x"}), "username"),
        (json!({"username": long_name, "password": "x"}), "username"),
        (json!({"username": "ada"}), "password"),
        (json!({"username": "ada", "password": ""}), "password"),
        (json!({"username": "ada", "password": null}), "password"),
        (json!({"username": "ada", "password": long_password}), "password"),
        (json!({"username": "ada", "password": 987654321}), "password"),
        (json!({"username": ["ada"], "password": "x"}), "username"),
        (json!({"username": "ada", "password": "x", "remember": true}), "remember"),
        (json!("ada:x"), "body"),
    ] {
        let (status, answer) = app.put(&account_path(&scrap), &ada.token, body.clone()).await;
        assert_error(status, &answer, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert_eq!(answer["field"], field, "{body}: {answer}");
        assert!(!answer.to_string().contains("987654321"), "the value is not echoed: {answer}");
    }
    let not_json = app
        .request(Method::PUT, &account_path(&scrap), Some(&ada.token))
        .header("content-type", "application/json")
        .body("{\"username\": ");
    let (status, body) = app.send(not_json).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "INVALID_JSON");
    let plain = app.request(Method::PUT, &account_path(&scrap), Some(&ada.token)).body("username=ada&password=x");
    let (status, body) = app.send(plain).await;
    assert_error(status, &body, StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    let (_, unchanged) = app.get(&account_path(&scrap), &ada.token).await;
    assert_eq!(unchanged["username"], "a***");

    // Removing what is not there is fine; deleting the scrap deletes its login.
    let (status, _) = app.delete(&account_path(&other), &ada.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = app.delete(&format!("/api/scraps/{other}/session"), &ada.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = app.delete(&format!("/api/scraps/{scrap}"), &ada.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = app.get(&account_path(&scrap), &ada.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}
