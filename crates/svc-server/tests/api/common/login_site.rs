//! A local site behind a log-in, for logged-in scraping: `GET /login` is a
//! login form, `POST /login` (form-encoded `username`, `password`) sets the
//! session cookie `members_sid` and redirects to `/members` when the
//! credentials match (else 401 with the form again), `GET /members` lists
//! the members' items to a valid cookie and redirects anyone else to
//! `/login`. It counts successful logins and remembers the cookie every
//! `/members` request came with.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Form;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use serde::Deserialize;
use tokio::net::TcpListener;

pub const COOKIE: &str = "members_sid";

#[derive(Default)]
struct Inner {
    /// username -> password
    users: HashMap<String, String>,
    /// Valid session cookies and whose they are.
    sessions: HashMap<String, String>,
    logins: AtomicUsize,
    /// The `members_sid` each `/members` request carried ("" for none).
    members_cookies: Mutex<Vec<String>>,
}

#[derive(Clone)]
pub struct LoginSite {
    pub base: String,
    inner: Arc<Mutex<Inner>>,
}

#[derive(Deserialize)]
struct Credentials {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
}

const FORM: &str = "<form id=\"login\" method=\"post\" action=\"/login\">\
    <label>Username <input name=\"username\" autocomplete=\"username\"></label>\
    <label>Password <input name=\"password\" type=\"password\"></label>\
    <button>Sign in</button></form>";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1>{body}\
         <footer>The members' club: reports for members only.</footer></body></html>"
    )
}

fn cookie_of(headers: &HeaderMap) -> String {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_string())
        .unwrap_or_default()
}

async fn login_form() -> Html<String> {
    Html(page("Sign in", FORM))
}

async fn login(State(site): State<Arc<Mutex<Inner>>>, Form(credentials): Form<Credentials>) -> Response {
    let mut inner = site.lock().unwrap();
    if inner.users.get(&credentials.username) != Some(&credentials.password) {
        return (StatusCode::UNAUTHORIZED, Html(page("Sign in", &format!("<p class=\"error\">Wrong login</p>{FORM}"))))
            .into_response();
    }
    let sid = format!("sid-{}", svc_domain::ObjectId::new());
    inner.sessions.insert(sid.clone(), credentials.username);
    inner.logins.fetch_add(1, Ordering::SeqCst);
    let cookie = format!("{COOKIE}={sid}; Path=/; HttpOnly; SameSite=Lax");
    ([(header::SET_COOKIE, cookie)], Redirect::to("/members")).into_response()
}

async fn members(State(site): State<Arc<Mutex<Inner>>>, headers: HeaderMap) -> Response {
    let sid = cookie_of(&headers);
    let inner = site.lock().unwrap();
    inner.members_cookies.lock().unwrap().push(sid.clone());
    let Some(user) = inner.sessions.get(&sid) else { return Redirect::to("/login").into_response() };
    let items: String = (1..=3).map(|i| format!("<li class=\"item\">Report {i}</li>")).collect();
    Html(page(
        "Members",
        &format!("<p id=\"members\" class=\"welcome\">Welcome back, {user}.</p><ul id=\"reports\">{items}</ul>"),
    ))
    .into_response()
}

impl LoginSite {
    /// A site where `username` signs in with `password`.
    pub async fn start(username: &str, password: &str) -> LoginSite {
        let inner = Arc::new(Mutex::new(Inner::default()));
        inner.lock().unwrap().users.insert(username.to_string(), password.to_string());
        let app = Router::new()
            .route("/login", get(login_form).post(login))
            .route("/members", get(members))
            .with_state(inner.clone());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        LoginSite { base, inner }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Successful logins so far.
    pub fn logins(&self) -> usize {
        self.inner.lock().unwrap().logins.load(Ordering::SeqCst)
    }

    /// The `members_sid` cookie of every `/members` request, in order ("" for none).
    pub fn members_cookies(&self) -> Vec<String> {
        self.inner.lock().unwrap().members_cookies.lock().unwrap().clone()
    }

    /// Ends every session (as a site that logs everyone out would).
    pub fn log_everyone_out(&self) {
        self.inner.lock().unwrap().sessions.clear();
    }
}

/// The script of a scrap on the members' page: when the page is the login
/// form (the site redirected there), it fills the form with `SVC.account`
/// and posts it without leaving the page (the script lives in it), then
/// reads the members' page the login answered with.
pub const MEMBERS_SCRIPT: &str = r#"let doc = document;
if (!doc.querySelector('#members')) {
  if (!SVC.account) throw new Error('the members page needs a login, and this scrap has none');
  const form = doc.querySelector('form#login');
  form.username.value = SVC.account.username;
  form.password.value = SVC.account.password;
  const answer = await fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)) });
  doc = new DOMParser().parseFromString(await answer.text(), 'text/html');
  if (!doc.querySelector('#members')) throw new Error('the login was refused (HTTP ' + answer.status + ')');
}
returnData([...doc.querySelectorAll('li.item')].map(li => ({ title: li.textContent })));
"#;

/// The account status of `scrap` once its latest successful run's session
/// is saved (it is saved right after the run is recorded, so a caller that
/// has the row may ask a moment too early). Panics after a minute.
pub async fn saved_session(app: &super::TestApp, token: &str, scrap: &str) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (status, account) = app.get(&format!("/api/scraps/{scrap}/account"), token).await;
        assert_eq!(status, StatusCode::OK, "{account}");
        if account["hasSession"] == serde_json::json!(true) {
            return account;
        }
        assert!(std::time::Instant::now() < deadline, "no session was saved: {account}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
