//! Settings (the organization's plan and balance, the weekly renewal with
//! its next date, email and password changes) and the admin page (403 for
//! everyone but platform admins; announcements shown disabled).

use reqwest::StatusCode;
use svc_domain::history::StatusDetail;
use svc_domain::plan::Plan;
use svc_service::accounts::Login;

use super::browser::WebBrowser;
use super::developers::log_in;
use super::{csrf_token_of, session_cookie};
use crate::common::TestApp;

/// What a Free organization is told about renewal.
const FREE_GRANT: &str = "Not renewed: the Free plan has a one-shot signup grant.";

async fn logs_in(app: &TestApp, email: &str, password: &str) -> bool {
    app.services
        .accounts
        .login(
            Login { email: email.into(), password: password.into(), organization: None },
            std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        )
        .await
        .inspect_err(|e| eprintln!("login of {email} refused: {e:?}"))
        .is_ok()
}

#[tokio::test]
async fn settings_show_the_plan_and_balance_and_change_the_email_and_password() {
    let app = TestApp::start().await;
    let dana = app.signup("dana@example.com").await;
    app.signup("taken@example.com").await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &dana).await;

    tab.click_and_load("Settings").await;
    assert_eq!(tab.path().await, "/settings");
    let text = tab.text().await;
    for shown in ["Plan\nFree", "1,000 units", "Default containers\ndefault", FREE_GRANT, "dana@example.com"] {
        assert!(text.contains(shown), "{shown:?} in {text}");
    }
    tab.screenshots("settings-free").await;

    // On Growth with a top-up: the weekly amount and the next renewal.
    app.store.set_plan(dana.org(), Plan::Growth).await.unwrap();
    app.services.admin.add_balance("dana@example.com", 9_000).await.unwrap();
    tab.open("/settings").await;
    let text = tab.text().await;
    let next = svc_service::schedule::renewal::next_renewal(chrono::Utc::now()).format("%A %Y-%m-%d").to_string();
    let renewal = format!("Your balance is topped up to 10,000 units every Monday at 00:00 UTC; next: {next}.");
    for shown in ["Plan\nGrowth", "10,000 units", renewal.as_str()] {
        assert!(text.contains(shown), "{shown:?} in {text}");
    }
    assert!(!text.contains(FREE_GRANT), "{text}");
    tab.screenshots("settings-growth").await;
    tab.color_scheme(true).await;
    tab.screenshots("settings-growth-dark").await;
    tab.color_scheme(false).await;

    // Password: the wrong current one is said next to its field; nothing changes.
    tab.fill("Current password", "not-my-password").await;
    tab.fill("New password", "a-new-password-1").await;
    tab.click_and_load("Change password").await;
    let text = tab.text().await;
    assert!(text.contains("is not the account's password"), "{text}");
    let next_to_field: bool = tab
        .eval("document.getElementById('current-password-error').closest('.field').querySelector('#current-password') !== null")
        .await;
    assert!(next_to_field);
    assert!(logs_in(&app, "dana@example.com", "password-123").await);
    tab.screenshots("settings-password-error").await;
    tab.fill("Current password", "password-123").await;
    tab.fill("New password", "a-new-password-1").await;
    tab.click_and_load("Change password").await;
    assert_eq!(tab.path().await, "/settings?saved=password");
    assert!(tab.text().await.contains("Your password was changed, and your other sessions were signed out."));
    assert!(logs_in(&app, "dana@example.com", "a-new-password-1").await);
    assert!(!logs_in(&app, "dana@example.com", "password-123").await);

    // Email: another account's is refused next to the field, what was typed kept.
    tab.fill("New email", "taken@example.com").await;
    tab.fill("Your password", "a-new-password-1").await;
    tab.click_and_load("Change email").await;
    let text = tab.text().await;
    assert!(text.contains("an account with this email already exists"), "{text}");
    assert_eq!(tab.value("New email").await, "taken@example.com");
    assert_eq!(tab.value("Your password").await, "", "a password is never echoed back");
    let next_to_field: bool = tab
        .eval("document.getElementById('new-email-error').closest('.field').querySelector('#new-email') !== null")
        .await;
    assert!(next_to_field);
    tab.fill("New email", "dana@new.example.com").await;
    tab.fill("Your password", "a-new-password-1").await;
    tab.click_and_load("Change email").await;
    assert_eq!(tab.path().await, "/settings?saved=email");
    let text = tab.text().await;
    assert!(text.contains("Your email was changed") && text.contains("dana@new.example.com"), "{text}");
    assert!(logs_in(&app, "dana@new.example.com", "a-new-password-1").await);
    tab.screenshots("settings-saved").await;

    // Logged out, the new email and password open the account.
    tab.click_and_load("Log out").await;
    tab.fill("Email", "dana@new.example.com").await;
    tab.fill("Password", "a-new-password-1").await;
    tab.click_and_load("Log in").await;
    assert_eq!(tab.path().await, "/");
    browser.close().await;
}

#[tokio::test]
async fn account_changes_need_the_csrf_token_and_bad_input_is_422() {
    let app = TestApp::start().await;
    let erin = app.signup("erin@example.com").await;
    let csrf = csrf_token_of(&app, &erin.token).await;
    let post = |path: &str, form: Vec<(&str, &str)>| {
        app.http
            .post(format!("{}{path}", app.base))
            .header("cookie", session_cookie(&erin.token))
            .header("origin", &app.base)
            .form(&form)
            .send()
    };
    let tokenless =
        post("/settings/password", vec![("currentPassword", "password-123"), ("password", "forged-password")])
            .await
            .unwrap();
    assert_eq!(tokenless.status(), StatusCode::FORBIDDEN);
    let tokenless =
        post("/settings/email", vec![("email", "x@example.com"), ("currentPassword", "password-123")]).await.unwrap();
    assert_eq!(tokenless.status(), StatusCode::FORBIDDEN);
    assert!(logs_in(&app, "erin@example.com", "password-123").await, "nothing changed");

    let short =
        post("/settings/password", vec![("csrf", &csrf), ("currentPassword", "password-123"), ("password", "short")])
            .await
            .unwrap();
    assert_eq!(short.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(short.text().await.unwrap().contains("must be at least 8 characters"));
    let bad =
        post("/settings/email", vec![("csrf", &csrf), ("email", "not an email"), ("currentPassword", "password-123")])
            .await
            .unwrap();
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.text().await.unwrap().contains("must be an email address"));
    assert!(logs_in(&app, "erin@example.com", "password-123").await, "nothing changed");
}

#[tokio::test]
async fn the_admin_page_is_for_platform_admins_and_says_when_email_is_off() {
    let app = TestApp::start().await;
    let user = app.signup("user@example.com").await;
    let admin = app.signup("admin@example.com").await;
    app.services.admin.grant_admin("admin@example.com").await.unwrap();
    let scrap = app.create_scrap(&admin, "Prices").await["id"].as_str().unwrap().to_string();
    let run = app.insert_run(&admin, &scrap, Some(StatusDetail::Success)).await;

    let refused =
        app.http.get(format!("{}/admin", app.base)).header("cookie", session_cookie(&user.token)).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let page = refused.text().await.unwrap();
    assert!(page.contains("for platform admins") && page.contains("svc admin grant-admin"), "{page}");
    // No route pretends to send an announcement.
    let csrf = csrf_token_of(&app, &admin.token).await;
    let post = app
        .http
        .post(format!("{}/admin", app.base))
        .header("cookie", session_cookie(&admin.token))
        .header("origin", &app.base)
        .form(&[("csrf", csrf.as_str()), ("subject", "hi"), ("body", "hello")])
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &user).await;
    assert!(!tab.has_button("Admin").await, "no Admin entry in the navigation");
    tab.open("/admin").await;
    assert!(tab.text().await.contains("The admin area is for platform admins"));
    tab.screenshots("admin-forbidden").await;
    tab.open("/").await;
    tab.click_and_load("Log out").await;

    log_in(&tab, &admin).await;
    tab.click_and_load("Admin").await;
    assert_eq!(tab.path().await, "/admin");
    let text = tab.text().await;
    assert!(text.contains("Email is off on this server") && text.contains("SVC_SMTP_URL"), "{text}");
    assert!(text.contains("Database\nsqlite") || text.contains("Database\npostgres"), "{text}");
    assert!(text.contains("Browser sandbox\non"), "required by default: {text}");
    let disabled: bool = tab
        .eval("(() => { const f = document.querySelector('fieldset[disabled]'); return !!f && f.contains(document.getElementById('announce-subject')) && [...f.querySelectorAll('button')].some(b => b.textContent.trim() === 'Send announcement' && b.matches(':disabled')); })()")
        .await;
    assert!(disabled, "the announcement form is disabled");
    // Sent anyway while email is off: refused, saying what the operator sets.
    let forced = app
        .http
        .post(format!("{}/admin/announcements", app.base))
        .header("cookie", session_cookie(&admin.token))
        .header("origin", &app.base)
        .form(&[("csrf", csrf.as_str()), ("subject", "hi"), ("text", "hello")])
        .send()
        .await
        .unwrap();
    assert_eq!(forced.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(forced.text().await.unwrap().contains("SVC_SMTP_URL"));
    // The admin-only cost fields of the organization's runs.
    let row: Vec<String> =
        tab.eval("[...document.querySelector('table.costs tbody tr').cells].map(c => c.innerText.trim())").await;
    assert_eq!(row, ["Prices", run.id.to_string().as_str(), "Success", "1", "$0.0000", "just now"]);
    tab.screenshots("admin").await;
    browser.close().await;
}

/// `SVC_BROWSER_SANDBOX=off` is said where an operator looks: `/readyz`
/// and the admin page (the start-up line: the CLI's tests). Required, the
/// default, `/readyz` says `on`.
#[tokio::test]
async fn readyz_and_the_admin_page_say_when_the_browser_sandbox_is_off() {
    let default = TestApp::start().await;
    let ready: serde_json::Value =
        default.http.get(format!("{}/readyz", default.base)).send().await.unwrap().json().await.unwrap();
    assert_eq!(ready["browserSandbox"], "on", "{ready}");

    let app = TestApp::start_with(&[("SVC_BROWSER_SANDBOX", "off")]).await;
    let answer = app.http.get(format!("{}/readyz", app.base)).send().await.unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    let ready: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(ready["status"], "ready", "{ready}");
    assert_eq!(ready["browserSandbox"], "off", "{ready}");
    let health: serde_json::Value =
        app.http.get(format!("{}/healthz", app.base)).send().await.unwrap().json().await.unwrap();
    assert!(health.get("browserSandbox").is_none(), "liveness stays as it was: {health}");

    let admin = app.signup("admin@example.com").await;
    app.services.admin.grant_admin("admin@example.com").await.unwrap();
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &admin).await;
    tab.open("/admin").await;
    let said: String = tab.eval("document.getElementById('browser-sandbox').innerText").await;
    assert!(
        said.starts_with("off") && said.contains("SVC_BROWSER_SANDBOX=off") && said.contains("not contained"),
        "{said}"
    );
    tab.screenshots("admin-sandbox-off").await;
    browser.close().await;
}

/// Logs `email` in over the REST API as a client saying `user_agent`; its token.
async fn api_log_in(app: &TestApp, email: &str, password: &str, user_agent: &str) -> String {
    let response = app
        .http
        .post(format!("{}/api/auth/login", app.base))
        .header("user-agent", user_agent)
        .json(&serde_json::json!({"email": email, "password": password}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json::<serde_json::Value>().await.unwrap()["token"].as_str().unwrap().to_string()
}

async fn me_status(app: &TestApp, token: &str) -> StatusCode {
    let (status, body) = app.get("/api/auth/me", token).await;
    if status != StatusCode::OK {
        eprintln!("/api/auth/me: {status} {body}");
    }
    status
}

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) \
                      Version/17.5 Mobile/15E148 Safari/604.1";
const WINDOWS: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

#[tokio::test]
async fn settings_list_the_sessions_and_sign_them_out() {
    let app = TestApp::start().await;
    let fay = app.signup("fay@example.com").await;
    let phone = api_log_in(&app, "fay@example.com", "password-123", IPHONE).await;
    let windows = api_log_in(&app, "fay@example.com", "password-123", WINDOWS).await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &fay).await;

    tab.open("/settings").await;
    let text = tab.text().await;
    for shown in ["Sessions", "Headless Chrome on Linux", "This browser", "Safari on iPhone", "Firefox on Windows"] {
        assert!(text.contains(shown), "{shown:?} in {text}");
    }
    assert!(text.contains("Unknown device"), "the sign-up's client sent no User-Agent: {text}");
    let rows: i64 = tab.eval("document.querySelectorAll('table.session-list tbody tr').length").await;
    assert_eq!(rows, 4, "sign-up, phone, Windows and this browser");
    let first_is_current: bool =
        tab.eval("document.querySelector('table.session-list tbody tr').classList.contains('current-session')").await;
    assert!(first_is_current, "the most recently seen first: this browser");
    tab.screenshots("settings-sessions").await;
    tab.color_scheme(true).await;
    tab.screenshots("settings-sessions-dark").await;
    tab.color_scheme(false).await;

    // Sign out the phone: refused at once, the others live on.
    tab.run("window.__svcOldPage = true; document.querySelector('button[aria-label^=\"Sign out Safari on iPhone\"]').click()")
        .await;
    tab.wait_for("window.__svcOldPage === undefined && document.readyState === 'complete'", "the page after Sign out")
        .await;
    assert_eq!(tab.path().await, "/settings?saved=session");
    let text = tab.text().await;
    assert!(text.contains("The session was signed out.") && !text.contains("Safari on iPhone"), "{text}");
    assert_eq!(me_status(&app, &phone).await, StatusCode::UNAUTHORIZED);
    assert_eq!(me_status(&app, &windows).await, StatusCode::OK);

    // A password change here signs out the others, not this browser.
    tab.fill("Current password", "password-123").await;
    tab.fill("New password", "a-new-password-1").await;
    tab.click_and_load("Change password").await;
    assert_eq!(tab.path().await, "/settings?saved=password");
    assert_eq!(me_status(&app, &windows).await, StatusCode::UNAUTHORIZED);
    assert_eq!(me_status(&app, &fay.token).await, StatusCode::UNAUTHORIZED);
    let rows: i64 = tab.eval("document.querySelectorAll('table.session-list tbody tr').length").await;
    assert_eq!(rows, 1, "only this browser is left");
    tab.screenshots("settings-sessions-after-password").await;

    // Sign out everywhere: this browser too, back to the log-in page.
    let other = api_log_in(&app, "fay@example.com", "a-new-password-1", IPHONE).await;
    tab.open("/settings").await;
    tab.run("window.confirm = () => true").await;
    tab.click_and_load("Sign out everywhere").await;
    assert!(tab.path().await.starts_with("/login"), "{}", tab.path().await);
    assert_eq!(me_status(&app, &other).await, StatusCode::UNAUTHORIZED);
    tab.open("/settings").await;
    assert!(tab.path().await.starts_with("/login"), "signed out: {}", tab.path().await);
    browser.close().await;
}

#[tokio::test]
async fn log_out_ends_the_session_on_the_server() {
    let app = TestApp::start().await;
    let gus = app.signup("gus@example.com").await;
    let csrf = csrf_token_of(&app, &gus.token).await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let logout = http
        .post(format!("{}/logout", app.base))
        .header("cookie", session_cookie(&gus.token))
        .header("origin", &app.base)
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), StatusCode::SEE_OTHER);
    // The cookie a copy of the browser kept opens nothing any more.
    assert_eq!(me_status(&app, &gus.token).await, StatusCode::UNAUTHORIZED);
    let page =
        http.get(format!("{}/settings", app.base)).header("cookie", session_cookie(&gus.token)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::SEE_OTHER);
    assert!(page.headers()["location"].to_str().unwrap().starts_with("/login"), "to the log-in page");
}

#[tokio::test]
async fn signing_sessions_out_needs_the_csrf_token_and_ones_own_session() {
    let app = TestApp::start().await;
    let hal = app.signup("hal@example.com").await;
    let ivy = app.signup("ivy@example.com").await;
    let csrf = csrf_token_of(&app, &hal.token).await;
    let ivy_sid = crate::sessions::session_id_of(&ivy.token);
    let post = |path: String, form: Vec<(&'static str, String)>| {
        app.http
            .post(format!("{}{path}", app.base))
            .header("cookie", session_cookie(&hal.token))
            .header("origin", &app.base)
            .form(&form)
            .send()
    };
    let tokenless = post("/settings/sessions/end-all".into(), vec![]).await.unwrap();
    assert_eq!(tokenless.status(), StatusCode::FORBIDDEN);
    let hal_sid = crate::sessions::session_id_of(&hal.token);
    let tokenless = post(format!("/settings/sessions/{hal_sid}/end"), vec![]).await.unwrap();
    assert_eq!(tokenless.status(), StatusCode::FORBIDDEN);
    assert_eq!(me_status(&app, &hal.token).await, StatusCode::OK);

    // Another user's session: the "not found" page, and it lives on.
    let foreign = post(format!("/settings/sessions/{ivy_sid}/end"), vec![("csrf", csrf.clone())]).await.unwrap();
    assert_eq!(foreign.status(), StatusCode::NOT_FOUND);
    assert!(foreign.text().await.unwrap().contains("session"));
    let malformed = post("/settings/sessions/nope/end".into(), vec![("csrf", csrf.clone())]).await.unwrap();
    assert_eq!(malformed.status(), StatusCode::NOT_FOUND);
    assert_eq!(me_status(&app, &ivy.token).await, StatusCode::OK);
    assert_eq!(me_status(&app, &hal.token).await, StatusCode::OK);
}
