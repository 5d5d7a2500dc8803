//! The editor's Site login card: set a login, see it masked, forget the
//! saved session, remove the login; refusals over plain HTTP (CSRF, another
//! organization, bad input).

use chrono::{Duration, Utc};
use reqwest::StatusCode;
use svc_domain::site_account::{SavedSession, SessionState};
use svc_domain::{ObjectId, ScrapId};

use super::browser::WebBrowser;
use super::{csrf_token_of, session_cookie, sign_up_in};
use crate::common::{TestApp, fixture};

const USERNAME: &str = "ada.lovelace@members.example";
const PASSWORD: &str = "Tr0ub4dor&3-members-only";

#[tokio::test]
async fn set_a_login_see_it_masked_forget_the_session_and_remove_it() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    sign_up_in(&tab, "ada@example.com").await;
    tab.click_and_load("New scrap").await;
    // A new scrap has no card yet: it needs an id.
    assert!(tab.eval::<bool>("document.getElementById('site-login') === null").await);
    assert!(tab.text().await.contains("set once the scrap is saved"));
    tab.fill("Title", "Members' reports").await;
    tab.fill("URL", &format!("{}/items/2", site.base)).await;
    tab.fill("Script", "returnData([{ who: SVC.account ? SVC.account.username : 'nobody' }])").await;
    tab.click_and_load("Save").await;
    let scrap_path = tab.path().await;
    let id = scrap_path.trim_start_matches("/scraps/").split('?').next().unwrap().to_string();
    let scrap = ScrapId::parse(&id).unwrap();

    tab.open(&format!("/scraps/{id}/edit")).await;
    let card = "document.getElementById('site-login').innerText";
    let text: String = tab.eval(card).await;
    assert!(text.contains("No login saved") && text.contains("SVC.account"), "{text}");
    assert!(!tab.has_button("Remove login").await && !tab.has_button("Forget saved session").await);
    tab.screenshots("site-login-empty").await;

    // Refused (the browser's own check set aside): the message beside the
    // field, the username kept, the password not.
    tab.fill("Site username", USERNAME).await;
    tab.run("document.getElementById('site-password').removeAttribute('required')").await;
    tab.click_and_load("Save login").await;
    let error: String = tab.eval("document.getElementById('site-password-error').textContent").await;
    assert_eq!(error, "is required");
    assert_eq!(tab.value("Site username").await, USERNAME, "what was typed is kept");
    assert_eq!(tab.value("Title").await, "Members' reports", "the editor shows the stored scrap");
    tab.screenshots("site-login-error").await;

    tab.fill("Site username", USERNAME).await;
    tab.fill("Site password", PASSWORD).await;
    tab.click_and_load("Save login").await;
    assert_eq!(tab.path().await, format!("/scraps/{id}/edit?login=saved"));
    let text: String = tab.eval(card).await;
    assert!(text.contains("Login saved for a***") && text.contains("Login saved. The next run"), "{text}");
    assert!(text.contains("the next run starts logged out"), "{text}");
    assert_eq!(tab.value("Site password").await, "", "the password is never filled back");
    assert_eq!(tab.value("Site username").await, "", "nor the username");
    let html = tab.html().await;
    assert!(!html.contains(PASSWORD) && !html.contains("ada.lovelace"), "the page holds neither");
    assert!(tab.has_button("Replace login").await && tab.has_button("Remove login").await);
    tab.screenshots("site-login-saved").await;

    // A test run of the saved scrap signs in with its login, shown masked.
    tab.click_and_load("Test run").await;
    let result: String = tab.eval("document.getElementById('test-result').innerText").await;
    assert!(result.contains("Success") && result.contains("***") && !result.contains("nobody"), "{result}");
    assert!(!tab.html().await.contains("ada.lovelace"));

    // A run saved a session: the card says when, and offers to forget it.
    let saved = SavedSession {
        state: SessionState::new(r#"{"v":1,"cookies":[]}"#),
        saved_at: Utc::now() - Duration::minutes(12),
        history_id: None,
    };
    let org = app.services.auth.session(&login_token(&app).await).await.unwrap().org();
    assert!(app.store.save_site_session(org, scrap, &saved).await.unwrap());
    tab.open(&format!("/scraps/{id}/edit")).await;
    let text: String = tab.eval(card).await;
    assert!(text.contains("Saved 12 min ago") && text.contains("starts logged in"), "{text}");
    tab.color_scheme(true).await;
    tab.screenshots("site-login-session-dark").await;
    tab.color_scheme(false).await;
    tab.click_and_load("Forget saved session").await;
    assert_eq!(tab.path().await, format!("/scraps/{id}/edit?login=forgotten"));
    let text: String = tab.eval(card).await;
    assert!(text.contains("Saved session forgotten") && text.contains("Login saved for a***"), "{text}");
    assert!(!tab.has_button("Forget saved session").await);
    assert!(app.store.site_session(org, scrap).await.unwrap().is_none());

    tab.click_and_load("Remove login").await;
    assert_eq!(tab.path().await, format!("/scraps/{id}/edit?login=removed"));
    let text: String = tab.eval(card).await;
    assert!(text.contains("Login removed") && text.contains("No login saved"), "{text}");
    assert!(app.store.site_account(org, scrap).await.unwrap().is_none());
    tab.screenshots("site-login-removed").await;

    // The rest of the editor still saves as before.
    tab.fill("Title", "Members' reports, weekly").await;
    tab.click_and_load("Save").await;
    assert!(tab.path().await.starts_with(&format!("/scraps/{id}?saved=1")));
    browser.close().await;
}

async fn login_token(app: &TestApp) -> String {
    let login = svc_service::accounts::Login {
        email: "ada@example.com".into(),
        password: "password-123".into(),
        organization: None,
    };
    app.services.accounts.login(login, std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)).await.unwrap().token
}

#[tokio::test]
async fn login_forms_are_csrf_checked_scoped_and_validated() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let eve = app.signup("eve@example.com").await;
    let id = app.create_scrap(&ada, "Members").await["id"].as_str().unwrap().to_string();
    let csrf = csrf_token_of(&app, &ada.token).await;
    let post = |token: &str, path: &str, form: Vec<(&str, String)>| {
        app.http
            .post(format!("{}{path}", app.base))
            .header("cookie", session_cookie(token))
            .header("origin", &app.base)
            .form(&form)
    };
    let login = |csrf: &str, username: &str, password: &str| {
        vec![("csrf", csrf.to_string()), ("username", username.to_string()), ("password", password.to_string())]
    };

    // No token: refused, nothing saved.
    let forged = post(&ada.token, &format!("/scraps/{id}/login"), login("", USERNAME, PASSWORD)).send().await.unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let (_, status) = app.get(&format!("/api/scraps/{id}/account"), &ada.token).await;
    assert_eq!(status["hasAccount"], false);

    // Bad input: 422, the message beside its field, the username kept, the password not.
    let blank = post(&ada.token, &format!("/scraps/{id}/login"), login(&csrf, USERNAME, "")).send().await.unwrap();
    assert_eq!(blank.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = blank.text().await.unwrap();
    assert!(page.contains("id=\"site-password-error\">is required"), "the error is next to the password field");
    assert!(page.contains(&format!("value=\"{USERNAME}\"")), "what was typed is kept");
    let long = "x".repeat(1001);
    let too_long = post(&ada.token, &format!("/scraps/{id}/login"), login(&csrf, "ada", &long)).send().await.unwrap();
    assert_eq!(too_long.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = too_long.text().await.unwrap();
    assert!(page.contains("at most 1000 characters") && !page.contains(&long), "the password is not echoed");
    let nameless = post(&ada.token, &format!("/scraps/{id}/login"), login(&csrf, "", "pw")).send().await.unwrap();
    assert_eq!(nameless.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(nameless.text().await.unwrap().contains("id=\"site-username-error\">is required"));

    // Saved: a redirect to the editor; the answer and the page hold no login.
    let saved =
        post(&ada.token, &format!("/scraps/{id}/login"), login(&csrf, USERNAME, PASSWORD)).send().await.unwrap();
    assert_eq!(saved.status(), StatusCode::OK, "followed to the editor");
    let page = saved.text().await.unwrap();
    assert!(page.contains("Login saved for a***"));
    assert!(!page.contains(PASSWORD) && !page.contains(USERNAME));

    // Another organization: 404 pages, nothing changed.
    let eve_csrf = csrf_token_of(&app, &eve.token).await;
    for (path, form) in [
        (format!("/scraps/{id}/login"), login(&eve_csrf, "eve", "pw")),
        (format!("/scraps/{id}/login/remove"), vec![("csrf", eve_csrf.clone())]),
        (format!("/scraps/{id}/session/forget"), vec![("csrf", eve_csrf.clone())]),
        (format!("/scraps/{}/login", ObjectId::new()), login(&csrf, "x", "y")),
    ] {
        let token = if form[0].1 == csrf { &ada.token } else { &eve.token };
        let refused = post(token, &path, form).send().await.unwrap();
        assert_eq!(refused.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let eve_edit = app
        .http
        .get(format!("{}/scraps/{id}/edit", app.base))
        .header("cookie", session_cookie(&eve.token))
        .send()
        .await
        .unwrap();
    assert_eq!(eve_edit.status(), StatusCode::NOT_FOUND);
    let (_, status) = app.get(&format!("/api/scraps/{id}/account"), &ada.token).await;
    assert_eq!(status["username"], "a***", "eve changed nothing");

    // Removing needs the token too.
    let tokenless = post(&ada.token, &format!("/scraps/{id}/login/remove"), vec![]).send().await.unwrap();
    assert_eq!(tokenless.status(), StatusCode::FORBIDDEN);
    let removed =
        post(&ada.token, &format!("/scraps/{id}/login/remove"), vec![("csrf", csrf.clone())]).send().await.unwrap();
    assert_eq!(removed.status(), StatusCode::OK);
    let (_, status) = app.get(&format!("/api/scraps/{id}/account"), &ada.token).await;
    assert_eq!(status["hasAccount"], false);
}
