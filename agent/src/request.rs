//! What the agent is asked and what it answers: its settings (`AgentConfig`, `LlmConfig`), a
//! request (`AiRequest`) and the outcome (`AiPlan`), with the plan-mode outcomes built from an
//! intent. Read by the agent's routes (`agent`) and by the LLM loop (`llm`), which depend on it,
//! not on each other.

use crate::context::ContextLimits;
use crate::errors::AgentError;
use crate::intent::Intent;
use crate::plan_mode::{self, ModeChange, PlanDoc};
use crate::resolve::ResolveCtx;
use crate::schema::AskUser;
use protocol::{
    AiError, AiErrorCategory, AiMeta, AiRoute, Mode, ObjectId, QuestionItem, UserId, Viewport,
};
use std::time::{Duration, Instant};

/// An OpenAI-compatible chat-completions endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmConfig {
    /// e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`.
    pub base_url: String,
    pub api_key: String,
    pub model: String,
    /// Per LLM call.
    pub timeout: Duration,
}

/// Agent settings.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// `None`: router and offline planner only.
    pub llm: Option<LlmConfig>,
    /// Most LLM round trips per command (seed 001 AC-3: 20).
    pub max_steps: u32,
    /// Caps of the board context.
    pub context: ContextLimits,
    /// Most LLM requests in flight at once across every command of this agent (a server shares
    /// one agent, so this is the server-wide cap); further calls wait for a permit.
    pub llm_concurrency: usize,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            llm: None,
            max_steps: MAX_STEPS,
            context: ContextLimits::default(),
            llm_concurrency: DEFAULT_LLM_CONCURRENCY,
        }
    }
}

/// Most LLM steps per command.
pub const MAX_STEPS: u32 = 20;
/// Default cap of concurrent LLM requests.
pub const DEFAULT_LLM_CONCURRENCY: usize = 8;
/// Default model when `AI_MODEL` is not set.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";

impl AgentConfig {
    /// From `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `AI_MODEL` (DESIGN §11): the LLM is
    /// configured when a key or a base URL is set.
    pub fn from_env() -> Self {
        let key = std::env::var("OPENAI_API_KEY")
            .ok()
            .filter(|s| !s.is_empty());
        let base = std::env::var("OPENAI_BASE_URL")
            .ok()
            .filter(|s| !s.is_empty());
        let llm = (key.is_some() || base.is_some()).then(|| LlmConfig {
            base_url: base.unwrap_or_else(|| "https://api.openai.com/v1".into()),
            api_key: key.unwrap_or_default(),
            model: std::env::var("AI_MODEL")
                .ok()
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| DEFAULT_MODEL.into()),
            timeout: Duration::from_secs(30),
        });
        AgentConfig {
            llm,
            ..AgentConfig::default()
        }
    }
}

/// One AI command.
#[derive(Debug, Clone, PartialEq)]
pub struct AiRequest {
    pub text: String,
    pub user: UserId,
    pub selection: Vec<ObjectId>,
    pub viewport: Option<Viewport>,
    /// The answers to the question the agent asked about this command, by question id: typed,
    /// never appended to the text.
    pub answers: serde_json::Map<String, serde_json::Value>,
    /// The requester's AI mode when the command was sent.
    pub mode: Mode,
    /// In plan mode, the current draft plan; in build mode, the approved plan to execute.
    pub plan: Option<PlanDoc>,
    /// The requester's live mode, read before every tool call of an LLM run (optional).
    pub live_mode: Option<plan_mode::LiveMode>,
    /// Preview the reply of an offline `Execute` against the snapshot (true by default). A caller
    /// that resolves the intent itself and words the reply from that (the server) turns it off
    /// and saves a second resolve.
    pub preview_reply: bool,
    /// How many open comment threads are pinned to each object: the board context says so
    /// beside the object. Comments themselves never reach the agent (COMMENT-9, AI-CTX-4).
    pub open_threads: crate::context::Threads,
}

impl AiRequest {
    /// A build-mode request with no selection or viewport.
    pub fn new(text: impl Into<String>, user: UserId) -> Self {
        AiRequest {
            text: text.into(),
            user,
            selection: Vec::new(),
            viewport: None,
            answers: serde_json::Map::new(),
            mode: Mode::Build,
            plan: None,
            live_mode: None,
            preview_reply: true,
            open_threads: crate::context::Threads::new(),
        }
    }

    /// The command as the model reads it: its text, then the answers to the agent's question.
    pub fn prompt_text(&self) -> std::borrow::Cow<'_, str> {
        if self.answers.is_empty() {
            return std::borrow::Cow::Borrowed(&self.text);
        }
        let answered = serde_json::to_string(&self.answers).unwrap_or_default();
        std::borrow::Cow::Owned(format!(
            "{}\n(My answers to your questions: {answered})",
            self.text
        ))
    }

    /// The resolve context for this request.
    pub fn resolve_ctx(&self) -> ResolveCtx {
        ResolveCtx {
            viewport: self.viewport,
            selection: self.selection.clone(),
            requester: self.user.clone(),
        }
    }
}

/// What the agent decided.
#[derive(Debug, Clone, PartialEq)]
pub enum AiPlan {
    /// Resolve `intent` against the current board and apply it as one command.
    Execute {
        intent: Intent,
        /// Reply as previewed against the snapshot (the server may prefer `Resolved::message`).
        reply: String,
        suggestions: Vec<String>,
        meta: AiMeta,
        /// Set when the run left plan mode (`exitPlanMode`): announce `mode_changed`.
        mode_change: Option<ModeChange>,
        /// `partial_failure` when some calls stayed invalid.
        error: Option<AiError>,
    },
    /// Plan mode: the plan is written and awaits approval (`question`).
    Planned {
        plan: PlanDoc,
        ask: AskUser,
        questions: Vec<QuestionItem>,
        reply: String,
        meta: AiMeta,
    },
    /// A question back to the user; `ask` carries structured questions when the LLM asked them.
    Clarification {
        message: String,
        suggestions: Vec<String>,
        ask: Option<AskUser>,
        error: Option<AiError>,
        meta: AiMeta,
    },
    /// Nothing to do: why.
    Error {
        category: AiErrorCategory,
        message: String,
        meta: AiMeta,
    },
}

impl AiPlan {
    /// The reply's `meta`.
    pub fn meta(&self) -> &AiMeta {
        match self {
            AiPlan::Execute { meta, .. }
            | AiPlan::Planned { meta, .. }
            | AiPlan::Clarification { meta, .. }
            | AiPlan::Error { meta, .. } => meta,
        }
    }

    pub(crate) fn error(e: AgentError, meta: AiMeta) -> AiPlan {
        AiPlan::Error {
            category: e.category(),
            message: e.to_string(),
            meta,
        }
    }
}

/// Builds `meta` for a route.
pub(crate) fn meta(route: AiRoute, started: Instant, steps: u32) -> AiMeta {
    AiMeta {
        route,
        latency_ms: started.elapsed().as_secs_f64() * 1000.0,
        model: None,
        input_tokens: None,
        output_tokens: None,
        steps,
    }
}

/// A `Planned` for an intent: plan document, preview and the approval question.
pub(crate) fn planned(
    req: &AiRequest,
    intent: Intent,
    route: AiRoute,
    started: Instant,
    steps: u32,
) -> AiPlan {
    let path = req
        .plan
        .as_ref()
        .map(|p| p.path.clone())
        .unwrap_or_else(|| plan_mode::plan_path(&req.text));
    let plan = PlanDoc {
        markdown: plan_mode::plan_markdown(&req.text, &intent),
        path: path.clone(),
        preview: intent,
    };
    planned_doc(plan, route, started, steps)
}

pub(crate) fn planned_doc(plan: PlanDoc, route: AiRoute, started: Instant, steps: u32) -> AiPlan {
    let ask = plan_mode::approval_question(&plan.path);
    AiPlan::Planned {
        questions: plan_mode::to_items(&ask),
        reply: format!(
            "I wrote a plan in {} ({} steps). Review it and choose \"{}\" to apply it.",
            plan.path,
            plan.markdown.matches("- [ ]").count(),
            plan_mode::ACCEPT_LABEL
        ),
        ask,
        plan,
        meta: meta(route, started, steps),
    }
}
