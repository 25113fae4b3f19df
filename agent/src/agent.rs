//! The entry point: route a command (template router → offline planner → LLM), in a worker
//! outside the board actor, against a snapshot; the result is resolved later against the
//! current board with [`crate::resolve::resolve`].

use crate::errors::AgentError;
use crate::intent::Intent;
use crate::memory::{SessionMemory, Speaker, Turn};
use crate::planner::{self, Planned, targets::Scope};
use crate::resolve::resolve;
use crate::router;
use protocol::{AiRoute, BoardState, Mode};
use std::time::Instant;

pub use crate::request::{
    AgentConfig, AiPlan, AiRequest, DEFAULT_LLM_CONCURRENCY, DEFAULT_MODEL, LlmConfig, MAX_STEPS,
};
pub(crate) use crate::request::{meta, planned};

/// The agent: configuration and, when configured, the LLM client.
pub struct Agent {
    pub config: AgentConfig,
    llm: Option<crate::llm::LlmClient>,
}

impl Agent {
    /// An agent; the LLM client is built when `config.llm` is set.
    pub fn new(config: AgentConfig) -> Self {
        let permits =
            std::sync::Arc::new(tokio::sync::Semaphore::new(config.llm_concurrency.max(1)));
        let llm = config
            .llm
            .clone()
            .map(|c| crate::llm::LlmClient::new(c).with_permits(permits));
        Agent { config, llm }
    }

    /// True when an LLM is configured.
    pub fn has_llm(&self) -> bool {
        self.llm.is_some()
    }

    /// Plans a command now (see [`Agent::plan_at`]).
    pub async fn plan(
        &self,
        req: &AiRequest,
        snapshot: &BoardState,
        memory: &mut SessionMemory,
    ) -> AiPlan {
        self.plan_at(req, snapshot, memory, Instant::now()).await
    }

    /// Plans a command at time `now` (session memory expiry is measured against it).
    pub async fn plan_at(
        &self,
        req: &AiRequest,
        snapshot: &BoardState,
        memory: &mut SessionMemory,
        now: Instant,
    ) -> AiPlan {
        let started = Instant::now();
        let text = req.text.trim();
        if text.is_empty() {
            return AiPlan::error(
                AgentError::InvalidRequest("the command is empty".into()),
                meta(AiRoute::Planner, started, 0),
            );
        }
        let history = memory.turns(now);
        let plan = self
            .route(req, snapshot, memory, now, history, started)
            .await;
        memory.push_turn(
            Turn {
                speaker: Speaker::User,
                text: text.to_string(),
            },
            now,
        );
        let said = match &plan {
            AiPlan::Execute { reply, .. } | AiPlan::Planned { reply, .. } => reply.clone(),
            AiPlan::Clarification { message, .. } | AiPlan::Error { message, .. } => {
                message.clone()
            }
        };
        memory.push_turn(
            Turn {
                speaker: Speaker::Assistant,
                text: said,
            },
            now,
        );
        plan
    }

    async fn route(
        &self,
        req: &AiRequest,
        snapshot: &BoardState,
        memory: &mut SessionMemory,
        now: Instant,
        history: Vec<Turn>,
        started: Instant,
    ) -> AiPlan {
        // An approved plan is executed as planned.
        if req.mode == Mode::Build
            && let Some(p) = &req.plan
        {
            if let Some(llm) = &self.llm {
                return llm.run(req, snapshot, history, &self.config).await;
            }
            return execute(p.preview.clone(), AiRoute::Planner, req, snapshot, started);
        }
        if req.mode == Mode::Plan
            && let Some(llm) = &self.llm
        {
            return llm.run(req, snapshot, history, &self.config).await;
        }
        // An answered command goes back to the planner, which asked: never to a template.
        let routed = if req.answers.is_empty() {
            router::route(&req.text)
        } else {
            None
        };
        let offline = if let Some(m) = routed {
            Some((
                Planned::Intent {
                    intent: m.intent,
                    targets: Vec::new(),
                },
                AiRoute::Template,
            ))
        } else {
            let mut scope = Scope::new(snapshot, &req.selection, memory, now);
            scope.requester = Some(&req.user);
            scope.answers = &req.answers;
            // In plan mode the plan's approval is the confirmation.
            if req.mode == Mode::Plan && req.answers.is_empty() {
                scope.answers = &PLAN_MODE_CONFIRMS;
            }
            planner::plan(&req.text, &scope).map(|p| (p, AiRoute::Planner))
        };
        match offline {
            Some((Planned::Intent { intent, targets }, route)) => {
                memory.remember_targets(&targets, now);
                if req.mode == Mode::Plan {
                    return planned(req, intent, route, started, 0);
                }
                execute(intent, route, req, snapshot, started)
            }
            Some((Planned::Answer { message }, route)) => AiPlan::Execute {
                intent: Intent::default(),
                reply: message,
                suggestions: Vec::new(),
                meta: meta(route, started, 0),
                mode_change: None,
                error: None,
            },
            Some((Planned::Ask { message, ask }, route)) => AiPlan::Clarification {
                message,
                suggestions: Vec::new(),
                ask: Some(ask),
                error: None,
                meta: meta(route, started, 0),
            },
            Some((
                Planned::Clarify {
                    message,
                    suggestions,
                },
                route,
            )) if self.llm.is_none() => AiPlan::Clarification {
                message,
                suggestions,
                ask: None,
                error: None,
                meta: meta(route, started, 0),
            },
            _ => match &self.llm {
                Some(llm) => llm.run(req, snapshot, history, &self.config).await,
                None => {
                    let scope = Scope::new(snapshot, &req.selection, memory, now);
                    AiPlan::Clarification {
                        message: "I didn't understand that. Try one of these:".into(),
                        suggestions: planner::suggestions(&scope),
                        ask: None,
                        error: Some(AgentError::NoUnderstand.to_wire()),
                        meta: meta(AiRoute::Planner, started, 0),
                    }
                }
            },
        }
    }
}

static PLAN_MODE_CONFIRMS: std::sync::LazyLock<serde_json::Map<String, serde_json::Value>> =
    std::sync::LazyLock::new(|| {
        let mut m = serde_json::Map::new();
        m.insert("confirm".into(), serde_json::Value::Bool(true));
        m
    });

/// An `Execute` with the reply previewed against the snapshot.
pub(crate) fn execute(
    intent: Intent,
    route: AiRoute,
    req: &AiRequest,
    snapshot: &BoardState,
    started: Instant,
) -> AiPlan {
    let (reply, suggestions) = if req.preview_reply {
        let preview = resolve(&intent, snapshot, &req.resolve_ctx());
        (preview.message(), preview.suggestions())
    } else {
        (String::new(), Vec::new())
    };
    AiPlan::Execute {
        reply,
        suggestions,
        intent,
        meta: meta(route, started, 0),
        mode_change: None,
        error: None,
    }
}
