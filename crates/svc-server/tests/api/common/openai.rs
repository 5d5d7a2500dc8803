//! A local server speaking the OpenAI Chat Completions protocol
//! (`POST /v1/chat/completions`) with scripted answers, recording every
//! request, for the AI features' tests.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// One scripted answer: a status and a raw body.
#[derive(Clone, Debug)]
pub struct Answer {
    pub status: u16,
    pub body: String,
}

impl Answer {
    /// A completion with `content` and token usage.
    pub fn content(content: &str, prompt_tokens: u64, completion_tokens: u64) -> Answer {
        let body = json!({
            "id": "chatcmpl-test", "object": "chat.completion", "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}
        });
        Answer { status: 200, body: body.to_string() }
    }

    pub fn raw(status: u16, body: &str) -> Answer {
        Answer { status, body: body.into() }
    }
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Asked {
    pub authorization: Option<String>,
    pub body: Value,
}

impl Asked {
    /// Every message's content, joined.
    pub fn prompt(&self) -> String {
        self.body["messages"]
            .as_array()
            .map(|m| m.iter().filter_map(|m| m["content"].as_str()).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default()
    }
}

#[derive(Default)]
struct Script {
    answers: VecDeque<Answer>,
    asked: Vec<Asked>,
}

#[derive(Clone)]
pub struct OpenAiStandIn {
    /// `http://127.0.0.1:PORT/v1`, for `SVC_AI_BASE_URL`.
    pub base_url: String,
    script: Arc<Mutex<Script>>,
    /// While true, requests wait before they are answered.
    held: Arc<tokio::sync::watch::Sender<bool>>,
}

#[derive(Clone)]
struct Shared {
    script: Arc<Mutex<Script>>,
    held: Arc<tokio::sync::watch::Sender<bool>>,
}

async fn completions(State(shared): State<Shared>, headers: HeaderMap, body: String) -> Response {
    let _ = shared.held.subscribe().wait_for(|held| !held).await;
    let mut s = shared.script.lock().unwrap();
    let authorization = headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string);
    s.asked.push(Asked { authorization, body: serde_json::from_str(&body).unwrap_or(Value::Null) });
    let answer = s.answers.pop_front().unwrap_or_else(|| Answer::raw(500, "{\"error\": \"no scripted answer\"}"));
    (StatusCode::from_u16(answer.status).unwrap(), [("content-type", "application/json")], answer.body).into_response()
}

impl OpenAiStandIn {
    pub async fn start() -> OpenAiStandIn {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let script = Arc::new(Mutex::new(Script::default()));
        let held = Arc::new(tokio::sync::watch::channel(false).0);
        let shared = Shared { script: script.clone(), held: held.clone() };
        let app = Router::new().route("/v1/chat/completions", post(completions)).with_state(shared);
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        OpenAiStandIn { base_url, script, held }
    }

    /// Holds the next requests until [`OpenAiStandIn::release`] (a test
    /// then sees the feature at work).
    pub fn hold(&self) {
        self.held.send_replace(true);
    }

    pub fn release(&self) {
        self.held.send_replace(false);
    }

    /// Queues the next answers.
    pub fn answer(&self, answers: impl IntoIterator<Item = Answer>) {
        self.script.lock().unwrap().answers.extend(answers);
    }

    pub fn asked(&self) -> Vec<Asked> {
        self.script.lock().unwrap().asked.clone()
    }
}
