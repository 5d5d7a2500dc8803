//! The model client: svc-service's `AiModel` over any OpenAI-compatible
//! Chat Completions server (`POST {SVC_AI_BASE_URL}/chat/completions`,
//! docs/ai.md). No JSON mode or tool calls, so small local servers work.
//! The API key is sent, never logged.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use svc_service::ai::model::{AiError, AiModel, ChatMessage, Completion};

use crate::config::AiSettings;

pub struct OpenAiCompatible {
    http: reqwest::Client,
    endpoint: String,
    api_key: Option<String>,
    model: String,
}

impl OpenAiCompatible {
    pub fn from_settings(settings: &AiSettings) -> OpenAiCompatible {
        OpenAiCompatible {
            http: reqwest::Client::builder()
                .timeout(settings.timeout)
                .connect_timeout(Duration::from_secs(10))
                .build()
                .expect("a reqwest client with timeouts builds"),
            endpoint: format!("{}/chat/completions", settings.base_url),
            api_key: settings.api_key.as_ref().map(|k| k.expose().to_string()),
            model: settings.pricing.model.clone(),
        }
    }
}

/// The completion in a Chat Completions answer.
pub fn read_answer(body: &Value) -> Result<Completion, AiError> {
    let content = body["choices"][0]["message"]["content"]
        .as_str()
        .ok_or_else(|| AiError::BadAnswer("no choices[0].message.content".into()))?;
    let tokens = |name: &str| body["usage"][name].as_u64().unwrap_or(0);
    Ok(Completion {
        content: content.to_string(),
        input_tokens: tokens("prompt_tokens"),
        output_tokens: tokens("completion_tokens"),
    })
}

fn short(text: &str) -> String {
    text.chars().take(300).collect()
}

#[async_trait]
impl AiModel for OpenAiCompatible {
    async fn complete(&self, messages: &[ChatMessage]) -> Result<Completion, AiError> {
        let messages: Vec<Value> = messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
        let mut request = self.http.post(&self.endpoint).json(&json!({"model": self.model, "messages": messages}));
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| {
            let why = if e.is_timeout() { "timed out".to_string() } else { e.without_url().to_string() };
            AiError::Provider(why)
        })?;
        let status = response.status();
        let text = response.text().await.map_err(|e| AiError::Provider(e.without_url().to_string()))?;
        if !status.is_success() {
            return Err(AiError::Provider(format!("HTTP {}: {}", status.as_u16(), short(&text))));
        }
        let body: Value =
            serde_json::from_str(&text).map_err(|_| AiError::BadAnswer(format!("not JSON: {}", short(&text))))?;
        read_answer(&body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_from_the_first_choice_and_usage() {
        let body = json!({"choices": [{"message": {"role": "assistant", "content": "Prices fell."}}],
                          "usage": {"prompt_tokens": 120, "completion_tokens": 8}});
        assert_eq!(
            read_answer(&body).unwrap(),
            Completion { content: "Prices fell.".into(), input_tokens: 120, output_tokens: 8 }
        );
        let no_usage = json!({"choices": [{"message": {"content": "x"}}]});
        assert_eq!(read_answer(&no_usage).unwrap().input_tokens, 0);
        assert!(matches!(read_answer(&json!({"error": "nope"})), Err(AiError::BadAnswer(_))));
        assert!(matches!(read_answer(&json!({"choices": []})), Err(AiError::BadAnswer(_))));
    }
}
