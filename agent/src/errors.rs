//! Error categories of AI commands (seed 001 AC-11) and their short human messages.

use protocol::{AiError, AiErrorCategory};

/// Why an AI command failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AgentError {
    /// The model answered without any tool call, or nothing could be understood.
    #[error(
        "I couldn't work out what to change on the board. Try rephrasing, e.g. \"add a yellow note that says hello\"."
    )]
    NoUnderstand,
    /// 429, 5xx, timeouts, connection refused.
    #[error("The AI service is unavailable right now ({0}). Please try again in a moment.")]
    ServiceUnavailable(String),
    /// Some tool calls failed validation and were not corrected.
    #[error("Some of the changes could not be made: {0}")]
    PartialFailure(String),
    /// The request itself is unusable (empty text, bad configuration, 4xx other than 429).
    #[error("The request could not be processed: {0}")]
    InvalidRequest(String),
}

impl AgentError {
    /// The wire category.
    pub fn category(&self) -> AiErrorCategory {
        match self {
            AgentError::NoUnderstand => AiErrorCategory::NoUnderstand,
            AgentError::ServiceUnavailable(_) => AiErrorCategory::ServiceUnavailable,
            AgentError::PartialFailure(_) => AiErrorCategory::PartialFailure,
            AgentError::InvalidRequest(_) => AiErrorCategory::InvalidRequest,
        }
    }

    /// The wire error body.
    pub fn to_wire(&self) -> AiError {
        AiError {
            category: self.category(),
            message: self.to_string(),
        }
    }
}

/// Classifies an LLM client error: rate limits, server errors, timeouts and refused connections
/// are `service_unavailable`; other API errors are `invalid_request`.
pub fn classify_llm_error(e: &async_openai::error::OpenAIError) -> AgentError {
    use async_openai::error::OpenAIError as E;
    match e {
        E::ApiError(r) => {
            let code = r.status_code.as_u16();
            if code == 429 || code >= 500 || code == 408 {
                AgentError::ServiceUnavailable(format!("HTTP {code}"))
            } else {
                AgentError::InvalidRequest(format!("HTTP {code}: {}", r.api_error.message))
            }
        }
        E::Reqwest(re) => {
            let what = if re.is_timeout() {
                "timed out".to_string()
            } else if re.is_connect() {
                "connection refused".to_string()
            } else if let Some(s) = re.status() {
                format!("HTTP {}", s.as_u16())
            } else {
                "network error".to_string()
            };
            match re.status().map(|s| s.as_u16()) {
                Some(c) if (400..500).contains(&c) && c != 429 && c != 408 => {
                    AgentError::InvalidRequest(what)
                }
                _ => AgentError::ServiceUnavailable(what),
            }
        }
        E::JSONDeserialize(_, _) | E::StreamError(_) => {
            AgentError::ServiceUnavailable("unreadable response".into())
        }
        E::InvalidArgument(m) => AgentError::InvalidRequest(m.clone()),
        E::FileSaveError(m) | E::FileReadError(m) => AgentError::InvalidRequest(m.clone()),
    }
}
