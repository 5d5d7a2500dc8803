//! A typed client of svc's REST API. Requests and answers are the API's
//! own types (`svc-api-types`), so the client and the server cannot drift
//! apart. Used by the `svc` command-line client and by integration tests.

use std::time::Duration;

use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
pub use svc_api_types as types;
use svc_api_types::{
    AttemptView, CreatedKeyView, CreatedWebhookView, ErrorBody, HistoryRowView, KeyView, ListView, LoginBody,
    LoginView, MeView, MemberView, NewKeyBody, RedeliveryView, RunPageView, ScrapBody, ScrapView, TriggerAccepted,
    WebhookBody, WebhookView,
};

/// The one credential a client sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credential {
    /// `svc_...`, from `SVC_API_KEY`.
    ApiKey(String),
    /// A JWT from `svc login`.
    Session(String),
}

impl Credential {
    fn bearer(&self) -> &str {
        match self {
            Credential::ApiKey(k) | Credential::Session(k) => k,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server could not be reached.
    #[error("cannot connect to {base}: {reason}")]
    Connect { base: String, reason: String },
    /// The server refused, with its error body.
    #[error("{} ({}): {}", .body.message, .body.code, .body.description)]
    Api { status: u16, body: ErrorBody },
    /// The server's answer was not what the API promises.
    #[error("unexpected answer from the server ({status}): {detail}")]
    Protocol { status: u16, detail: String },
}

/// How many times a 429 is retried (after its `Retry-After`) before giving up.
pub const RATE_LIMIT_RETRIES: u32 = 3;
/// The longest `Retry-After` the client waits out.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// What a run trigger answered.
#[derive(Clone, Debug, PartialEq)]
pub enum RunAnswer {
    /// 202: queued (or still running after `wait`).
    Pending(TriggerAccepted),
    /// 200: finished within `wait`.
    Finished(Box<HistoryRowView>),
}

pub struct Client {
    http: reqwest::Client,
    base: String,
    credential: Option<Credential>,
    on_retry: Box<dyn Fn(Duration, u32) + Send + Sync>,
}

/// `?k=v&...` of the pairs that have a value (empty when none do).
fn query(pairs: &[(&str, Option<String>)]) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        if let Some(v) = v {
            q.append_pair(k, v);
        }
    }
    let q = q.finish();
    if q.is_empty() { q } else { format!("?{q}") }
}

/// A request body as JSON.
fn encode(body: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(body).expect("the API's request bodies serialize")
}

/// One path segment, percent-encoded.
fn urlencode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

impl Client {
    pub fn new(base_url: &str, credential: Option<Credential>) -> Self {
        Client {
            http: reqwest::Client::builder()
                .user_agent(concat!("svc-cli/", env!("CARGO_PKG_VERSION")))
                .connect_timeout(Duration::from_secs(10))
                .build()
                .expect("HTTP client builds"),
            base: base_url.trim_end_matches('/').to_string(),
            credential,
            on_retry: Box::new(|_, _| {}),
        }
    }

    /// Called before each wait on a 429 with the wait and the attempt number.
    pub fn on_rate_limit(mut self, f: impl Fn(Duration, u32) + Send + Sync + 'static) -> Self {
        self.on_retry = Box::new(f);
        self
    }

    pub fn credential(&self) -> Option<&Credential> {
        self.credential.as_ref()
    }

    async fn raw(&self, method: Method, path: &str, body: Option<&[u8]>) -> Result<(StatusCode, Vec<u8>), ClientError> {
        let mut attempt = 0;
        loop {
            let mut request = self.http.request(method.clone(), format!("{}{path}", self.base));
            if let Some(c) = &self.credential {
                request = request.bearer_auth(c.bearer());
            }
            if let Some(b) = body {
                request = request.header(CONTENT_TYPE, "application/json").body(b.to_vec());
            }
            let response = request
                .send()
                .await
                .map_err(|e| ClientError::Connect { base: self.base.clone(), reason: describe(&e) })?;
            let status = response.status();
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let bytes = response
                .bytes()
                .await
                .map_err(|e| ClientError::Connect { base: self.base.clone(), reason: describe(&e) })?
                .to_vec();
            if status == StatusCode::TOO_MANY_REQUESTS && attempt < RATE_LIMIT_RETRIES {
                let wait = retry_after.unwrap_or(Duration::from_secs(1));
                if wait <= MAX_RETRY_WAIT {
                    attempt += 1;
                    (self.on_retry)(wait, attempt);
                    tokio::time::sleep(wait).await;
                    continue;
                }
            }
            if !status.is_success() {
                return Err(match serde_json::from_slice::<ErrorBody>(&bytes) {
                    Ok(body) => ClientError::Api { status: status.as_u16(), body },
                    Err(_) => ClientError::Protocol {
                        status: status.as_u16(),
                        detail: String::from_utf8_lossy(&bytes).chars().take(300).collect(),
                    },
                });
            }
            return Ok((status, bytes));
        }
    }

    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&[u8]>,
    ) -> Result<T, ClientError> {
        let (status, bytes) = self.raw(method, path, body).await?;
        decode(status, &bytes)
    }

    pub async fn login(&self, email: &str, password: &str) -> Result<LoginView, ClientError> {
        let body = LoginBody { email: email.to_string(), password: password.to_string(), organization_id: None };
        self.call(Method::POST, "/api/auth/login", Some(&encode(&body))).await
    }

    /// `POST /api/auth/logout`: ends the session of this client's token on the server.
    pub async fn logout(&self) -> Result<(), ClientError> {
        self.raw(Method::POST, "/api/auth/logout", None).await.map(|_| ())
    }

    pub async fn me(&self) -> Result<MeView, ClientError> {
        self.call(Method::GET, "/api/auth/me", None).await
    }

    pub async fn scraps(
        &self,
        search: Option<&str>,
        page: Option<i64>,
        per_page: Option<i64>,
    ) -> Result<ListView<ScrapView>, ClientError> {
        let q = query(&[
            ("search", search.map(str::to_string)),
            ("page", page.map(|p| p.to_string())),
            ("perPage", per_page.map(|p| p.to_string())),
        ]);
        self.call(Method::GET, &format!("/api/scraps{q}"), None).await
    }

    pub async fn scrap(&self, id: &str) -> Result<ScrapView, ClientError> {
        self.call(Method::GET, &format!("/api/scraps/{}", urlencode(id)), None).await
    }

    pub async fn create_scrap(&self, body: &ScrapBody) -> Result<ScrapView, ClientError> {
        self.call(Method::POST, "/api/scraps", Some(&encode(body))).await
    }

    /// Sets the fields present in `body`; a `Some(None)` nullable field clears it.
    pub async fn update_scrap(&self, id: &str, body: &ScrapBody) -> Result<ScrapView, ClientError> {
        self.call(Method::PUT, &format!("/api/scraps/{}", urlencode(id)), Some(&encode(body))).await
    }

    pub async fn delete_scrap(&self, id: &str) -> Result<(), ClientError> {
        self.raw(Method::DELETE, &format!("/api/scraps/{}", urlencode(id)), None).await.map(|_| ())
    }

    /// `POST /api/scraps/worker/:id`, waiting up to `wait` seconds server-side.
    pub async fn run_scrap(&self, id: &str, wait: Option<u64>, param: Option<&str>) -> Result<RunAnswer, ClientError> {
        let q = query(&[("wait", wait.map(|w| w.to_string())), ("param", param.map(str::to_string))]);
        let (status, bytes) = self.raw(Method::POST, &format!("/api/scraps/worker/{}{q}", urlencode(id)), None).await?;
        if status == StatusCode::ACCEPTED {
            decode(status, &bytes).map(RunAnswer::Pending)
        } else {
            decode(status, &bytes).map(|row| RunAnswer::Finished(Box::new(row)))
        }
    }

    pub async fn history(
        &self,
        scrap: Option<&str>,
        page: Option<i64>,
        per_page: Option<i64>,
    ) -> Result<ListView<HistoryRowView>, ClientError> {
        let q = query(&[
            ("scrap", scrap.map(str::to_string)),
            ("page", page.map(|p| p.to_string())),
            ("perPage", per_page.map(|p| p.to_string())),
        ]);
        self.call(Method::GET, &format!("/api/historys{q}"), None).await
    }

    pub async fn history_row(&self, id: &str) -> Result<HistoryRowView, ClientError> {
        self.call(Method::GET, &format!("/api/historys/{}", urlencode(id)), None).await
    }

    /// `GET /api/historys/:id/pages`: one page of a crawl's pages (none for
    /// a run of one page), in the order of the run's data.
    pub async fn history_pages(
        &self,
        id: &str,
        page: Option<i64>,
        per_page: Option<i64>,
    ) -> Result<ListView<RunPageView>, ClientError> {
        let q = query(&[("page", page.map(|p| p.to_string())), ("perPage", per_page.map(|p| p.to_string()))]);
        self.call(Method::GET, &format!("/api/historys/{}/pages{q}", urlencode(id)), None).await
    }

    /// `GET /api/historys/:id/data?format=...`: the run's data as a file
    /// (`json`, `csv`, `ndjson` or `xlsx`), its bytes as sent.
    pub async fn history_export(&self, id: &str, format: &str) -> Result<Vec<u8>, ClientError> {
        let q = query(&[("format", Some(format.to_string()))]);
        let (_, bytes) = self.raw(Method::GET, &format!("/api/historys/{}/data{q}", urlencode(id)), None).await?;
        Ok(bytes)
    }

    pub async fn keys(&self, page: Option<i64>, per_page: Option<i64>) -> Result<ListView<KeyView>, ClientError> {
        let q = query(&[("page", page.map(|p| p.to_string())), ("perPage", per_page.map(|p| p.to_string()))]);
        self.call(Method::GET, &format!("/api/developers/keys{q}"), None).await
    }

    /// The members of the session's organization (needs a session, not a key).
    pub async fn members(&self, page: Option<i64>, per_page: Option<i64>) -> Result<ListView<MemberView>, ClientError> {
        let q = query(&[("page", page.map(|p| p.to_string())), ("perPage", per_page.map(|p| p.to_string()))]);
        self.call(Method::GET, &format!("/api/organization/members{q}"), None).await
    }

    pub async fn create_key(&self, body: &NewKeyBody) -> Result<CreatedKeyView, ClientError> {
        self.call(Method::POST, "/api/developers/keys", Some(&encode(body))).await
    }

    pub async fn revoke_key(&self, id: &str) -> Result<(), ClientError> {
        self.raw(Method::DELETE, &format!("/api/developers/keys/{}", urlencode(id)), None).await.map(|_| ())
    }

    pub async fn webhooks(
        &self,
        page: Option<i64>,
        per_page: Option<i64>,
    ) -> Result<ListView<WebhookView>, ClientError> {
        let q = query(&[("page", page.map(|p| p.to_string())), ("perPage", per_page.map(|p| p.to_string()))]);
        self.call(Method::GET, &format!("/api/developers/webhooks{q}"), None).await
    }

    pub async fn create_webhook(&self, body: &WebhookBody) -> Result<CreatedWebhookView, ClientError> {
        self.call(Method::POST, "/api/developers/webhooks", Some(&encode(body))).await
    }

    /// Changes the fields present in `body`.
    pub async fn update_webhook(&self, id: &str, body: &WebhookBody) -> Result<WebhookView, ClientError> {
        self.call(Method::PUT, &format!("/api/developers/webhooks/{}", urlencode(id)), Some(&encode(body))).await
    }

    pub async fn delete_webhook(&self, id: &str) -> Result<(), ClientError> {
        self.raw(Method::DELETE, &format!("/api/developers/webhooks/{}", urlencode(id)), None).await.map(|_| ())
    }

    pub async fn deliveries(
        &self,
        id: &str,
        page: Option<i64>,
        per_page: Option<i64>,
    ) -> Result<ListView<AttemptView>, ClientError> {
        let q = query(&[("page", page.map(|p| p.to_string())), ("perPage", per_page.map(|p| p.to_string()))]);
        self.call(Method::GET, &format!("/api/developers/webhooks/{}/deliveries{q}", urlencode(id)), None).await
    }

    pub async fn redeliver(&self, webhook: &str, attempt: &str) -> Result<RedeliveryView, ClientError> {
        let path =
            format!("/api/developers/webhooks/{}/deliveries/{}/redeliver", urlencode(webhook), urlencode(attempt));
        self.call(Method::POST, &path, None).await
    }
}

fn decode<T: DeserializeOwned>(status: StatusCode, bytes: &[u8]) -> Result<T, ClientError> {
    serde_json::from_slice(bytes).map_err(|e| ClientError::Protocol { status: status.as_u16(), detail: e.to_string() })
}

fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
