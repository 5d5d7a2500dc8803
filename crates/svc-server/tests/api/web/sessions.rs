//! Sign up, log in, log out, the redirect to log-in and back, and the CSRF
//! rule for forms and for REST calls that ride on the session cookie.

use reqwest::StatusCode;
use reqwest::header::{LOCATION, SET_COOKIE};
use serde_json::json;

use super::browser::WebBrowser;
use super::{csrf_token_of, session_cookie};
use crate::common::TestApp;

#[tokio::test]
async fn sign_up_log_out_and_back_in_through_the_forms() {
    let app = TestApp::start().await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;

    // A page behind log-in sends to the log-in page, remembering where to go back.
    tab.open("/?search=prices").await;
    assert_eq!(tab.path().await, "/login?next=%2F%3Fsearch%3Dprices");
    tab.screenshots("login").await;

    tab.click_and_load("Sign up").await;
    assert_eq!(tab.path().await, "/signup");
    // Bad input: the error is next to its field and what was typed stays.
    tab.fill("Email", "dana@example.com").await;
    tab.run("document.getElementById('password').removeAttribute('minlength')").await;
    tab.fill("Password", "short").await;
    tab.click_and_load("Sign up").await;
    let text = tab.text().await;
    assert!(text.contains("must be at least 8 characters"), "{text}");
    assert_eq!(tab.value("Email").await, "dana@example.com", "the email is kept");
    assert_eq!(tab.value("Password").await, "", "a password is never echoed back");
    let error_next_to_field: bool = tab
        .eval("document.getElementById('password-error').closest('.field').querySelector('#password') !== null")
        .await;
    assert!(error_next_to_field);
    tab.screenshots("signup-error").await;

    tab.fill("Password", "password-123").await;
    tab.click_and_load("Sign up").await;
    assert_eq!(tab.path().await, "/");
    let text = tab.text().await;
    assert!(text.contains("No scraps yet") && text.contains("dana@example.com"), "{text}");
    // The session cookie is out of the page's reach.
    let cookies: String = tab.eval("document.cookie").await;
    assert!(!cookies.contains("svc_session"), "{cookies}");
    tab.screenshots("scraps-empty").await;
    tab.color_scheme(true).await;
    tab.screenshots("scraps-empty-dark").await;
    tab.color_scheme(false).await;

    tab.click_and_load("Log out").await;
    assert_eq!(tab.path().await, "/login");
    tab.open("/").await;
    assert_eq!(tab.path().await, "/login?next=%2F");

    // Wrong password: said so, email kept; then the right one goes back to `next`.
    tab.open("/login?next=%2F%3Fpage%3D1").await;
    tab.fill("Email", "dana@example.com").await;
    tab.fill("Password", "wrong-password").await;
    tab.click_and_load("Log in").await;
    assert!(tab.text().await.contains("Wrong email or password."));
    assert_eq!(tab.value("Email").await, "dana@example.com");
    tab.fill("Password", "password-123").await;
    tab.click_and_load("Log in").await;
    assert_eq!(tab.path().await, "/?page=1");
    browser.close().await;
}

#[tokio::test]
async fn the_session_cookie_is_http_only_lax_and_logs_in_to_rest() {
    let app = TestApp::start().await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let form_page = http.get(format!("{}/signup", app.base)).send().await.unwrap();
    let form_cookie = form_page.headers()[SET_COOKIE].to_str().unwrap().to_string();
    let form_token = form_cookie.split(';').next().unwrap().trim_start_matches("svc_form=").to_string();
    let signup = |origin: &'static str, token: String| {
        http.post(format!("{}/signup", app.base))
            .header("origin", if origin.is_empty() { app.base.clone() } else { origin.to_string() })
            .header("cookie", format!("svc_form={form_token}"))
            .form(&[
                ("email", "eve@example.com"),
                ("password", "password-123"),
                ("csrf", token.as_str()),
                ("next", "/"),
            ])
    };
    // Another site's form, or a form without the token, is refused.
    let cross = signup("https://evil.example", form_token.clone()).send().await.unwrap();
    assert_eq!(cross.status(), StatusCode::FORBIDDEN);
    let tokenless = signup("", String::new()).send().await.unwrap();
    assert_eq!(tokenless.status(), StatusCode::FORBIDDEN);
    let created = signup("", form_token.clone()).send().await.unwrap();
    assert_eq!(created.status(), StatusCode::SEE_OTHER);
    assert_eq!(created.headers()[LOCATION], "/");
    let set = created.headers()[SET_COOKIE].to_str().unwrap();
    assert!(set.contains("HttpOnly") && set.contains("SameSite=Lax") && !set.contains("Secure"), "{set}");
    let token = set.split(';').next().unwrap().trim_start_matches("svc_session=").to_string();

    // The cookie opens the JWT-only REST routes; reads need no CSRF proof.
    let me =
        http.get(format!("{}/api/auth/me", app.base)).header("cookie", session_cookie(&token)).send().await.unwrap();
    assert_eq!(me.status(), StatusCode::OK);
    // A write on the cookie needs svc's origin and the session's CSRF token.
    let body = json!({"title": "t", "url": "https://example.com/", "request": "returnData([])"});
    let bare = http
        .post(format!("{}/api/scraps", app.base))
        .header("cookie", session_cookie(&token))
        .header("origin", &app.base)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), StatusCode::FORBIDDEN);
    let csrf = csrf_token_of(&app, &token).await;
    let foreign = http
        .post(format!("{}/api/scraps", app.base))
        .header("cookie", session_cookie(&token))
        .header("origin", "https://evil.example")
        .header("x-csrf-token", &csrf)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    let good = http
        .post(format!("{}/api/scraps", app.base))
        .header("cookie", session_cookie(&token))
        .header("origin", &app.base)
        .header("x-csrf-token", &csrf)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(good.status(), StatusCode::CREATED);
    // Another session's token does not pass.
    let other = app.signup("mallory@example.com").await;
    let others_csrf = csrf_token_of(&app, &other.token).await;
    let swapped = http
        .post(format!("{}/api/scraps", app.base))
        .header("cookie", session_cookie(&token))
        .header("origin", &app.base)
        .header("x-csrf-token", &others_csrf)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(swapped.status(), StatusCode::FORBIDDEN);

    // Log out without the token: refused, and the session still works.
    let logout = http
        .post(format!("{}/logout", app.base))
        .header("cookie", session_cookie(&token))
        .header("origin", &app.base)
        .form(&[("csrf", "nope")])
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), StatusCode::FORBIDDEN);
    assert!(logout.text().await.unwrap().contains("Request refused"));
    let logout = http
        .post(format!("{}/logout", app.base))
        .header("cookie", session_cookie(&token))
        .header("origin", &app.base)
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), StatusCode::SEE_OTHER);
    assert!(logout.headers()[SET_COOKIE].to_str().unwrap().contains("Max-Age=0"));
}

#[tokio::test]
async fn the_cookie_is_secure_when_svc_is_served_over_https() {
    let app = TestApp::start_with(&[("SVC_PUBLIC_URL", "https://svc.example.com")]).await;
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let page = http.get(format!("{}/login", app.base)).send().await.unwrap();
    let form_cookie = page.headers()[SET_COOKIE].to_str().unwrap().to_string();
    assert!(form_cookie.contains("; Secure"), "{form_cookie}");
    app.signup("sam@example.com").await;
    let token = form_cookie.split(';').next().unwrap().trim_start_matches("svc_form=").to_string();
    let login = http
        .post(format!("{}/login", app.base))
        .header("origin", "https://svc.example.com")
        .header("cookie", format!("svc_form={token}"))
        .form(&[("email", "sam@example.com"), ("password", "password-123"), ("csrf", token.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), StatusCode::SEE_OTHER);
    let set = login.headers()[SET_COOKIE].to_str().unwrap();
    assert!(set.starts_with("svc_session=") && set.ends_with("; Secure"), "{set}");
}

#[tokio::test]
async fn unknown_pages_say_so_and_the_api_keeps_json_errors() {
    let app = TestApp::start().await;
    let page = app.http.get(format!("{}/no/such/page", app.base)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::NOT_FOUND);
    assert!(page.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(page.text().await.unwrap().contains("There is no page at this address."));
    // A signed-in visitor is not offered "Log in" on an error page.
    let dana = app.signup("dana@example.com").await;
    let lost = app
        .http
        .get(format!("{}/no/such/page", app.base))
        .header("cookie", session_cookie(&dana.token))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!lost.contains("href=\"/login\""), "{lost}");
    // A page that only shows refuses other methods with a page too.
    let post = app.http.post(format!("{}/settings", app.base)).send().await.unwrap();
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(post.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(post.text().await.unwrap().contains("does not take that kind of request"));
    let api = app.http.get(format!("{}/api/no/such/route", app.base)).send().await.unwrap();
    assert_eq!(api.status(), StatusCode::NOT_FOUND);
    let body: serde_json::Value = api.json().await.unwrap();
    assert_eq!(body["code"], "NOT_FOUND");
}
