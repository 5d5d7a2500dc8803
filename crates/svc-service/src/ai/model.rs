//! The port through which svc asks a language model (any OpenAI-compatible
//! Chat Completions server; `svc-server` implements it), what a call costs,
//! and how answers are read (docs/ai.md).

use async_trait::async_trait;

/// One message of a chat.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatMessage {
    /// `system` or `user`.
    pub role: &'static str,
    pub content: String,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> Self {
        ChatMessage { role: "system", content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage { role: "user", content: content.into() }
    }
}

/// A model's answer and the tokens it took.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    /// `choices[0].message.content`.
    pub content: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Why a model call gave nothing usable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AiError {
    /// The provider could not be reached, timed out or answered an error status.
    #[error("the model provider failed: {0}")]
    Provider(String),
    /// The provider answered, but not with a completion.
    #[error("the model's answer is unusable: {0}")]
    BadAnswer(String),
}

#[async_trait]
pub trait AiModel: Send + Sync {
    async fn complete(&self, messages: &[ChatMessage]) -> Result<Completion, AiError>;
}

/// What the operator's provider charges, for `costs`.
#[derive(Clone, Debug, PartialEq)]
pub struct AiPricing {
    /// e.g. the provider's host.
    pub provider: String,
    pub model: String,
    /// USD per million input (prompt) tokens.
    pub input_per_million: f64,
    /// USD per million output (completion) tokens.
    pub output_per_million: f64,
}

impl AiPricing {
    /// The USD price of a completion.
    pub fn cost(&self, c: &Completion) -> f64 {
        (c.input_tokens as f64 * self.input_per_million + c.output_tokens as f64 * self.output_per_million) / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_follow_the_prices_per_million_tokens() {
        let p = AiPricing { provider: "p".into(), model: "m".into(), input_per_million: 0.5, output_per_million: 2.0 };
        let c = Completion { content: String::new(), input_tokens: 2_000, output_tokens: 500 };
        assert!((p.cost(&c) - 0.002).abs() < 1e-12);
    }
}
