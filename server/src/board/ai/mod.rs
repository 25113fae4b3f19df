//! AI commands on a board: one queue per user (one command at a time, in arrival order; users
//! run in parallel), workers outside the actor, and the apply step.
//!
//! Life of a command: `ai` → [`Board::ai_enqueue`] (bounded: a full queue answers `rate_limited`;
//! `ai_status queued`) → [`Board::ai_next`] takes the memory and a snapshot and spawns a worker
//! on the main runtime (`ai_status running`) → the worker routes it with [`agent::Agent::plan`]
//! under the per-command timeout and sends [`AiDone`] back → [`Board::on_ai_done`] resolves the
//! intent against the board *as it is now* (layout, collision with every existing object fixed,
//! frame fitting) and applies it as one command (`origin: ai`, author = requester, on the
//! requester's undo stack). Its `ai_result` follows the `applied` once the command is durable;
//! only then does the user's next command start, so results come back in order.

use super::clients::frame;
use super::{Board, ConnId};
use actix::prelude::*;
use agent::plan_mode::{self, Approval, LiveMode, ModeChange, ModeState};
use agent::schema::AskUser;
use agent::{AiPlan, AiRequest, PlanDoc, SessionMemory};
use axum::extract::ws::Utf8Bytes;
use protocol::{
    AiError, AiErrorCategory, AiMeta, AiOutcome, AiRoute, AiState, BoardState, ErrorCode, Mode,
    Origin, PlanView, QuestionItem, Seq, ServerMsg, UserId,
};
use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tracing::Instrument;

mod apply;
mod done;
mod outcome;

/// Longest AI command text accepted, in characters.
pub const MAX_AI_TEXT: usize = 4000;

/// One queued AI command.
#[derive(Debug, Clone)]
pub struct AiJob {
    /// The client's id (or the question id for work started by an answer).
    pub id: String,
    /// What the agent is asked, made once from the socket's `ai`: the requester, the text, the
    /// selection, the viewport and (for a follow-up) the typed answers to the agent's question.
    /// Its mode and plan are set when its turn comes.
    pub req: AiRequest,
    /// The connection that asked; replies go there (or to the user's other connections).
    pub conn: ConnId,
    pub received: Instant,
    /// Set when the job executes an approved plan.
    pub approved: Option<PlanDoc>,
}

/// What an open question is for.
#[derive(Debug, Clone)]
pub enum QuestionKind {
    /// Approval of the plan written for `text` ("Accept & Build" / "Keep Planning").
    Approval { text: String },
    /// A question the agent asked about `text`; the answers go back to it as a follow-up.
    Clarify { text: String },
}

/// The question a user has open (questions are ephemeral: one at a time, per user and board).
#[derive(Debug, Clone)]
pub struct OpenQuestion {
    pub id: String,
    pub items: Vec<QuestionItem>,
    /// The structured form (button values), when the agent gave one.
    pub ask: Option<AskUser>,
    pub kind: QuestionKind,
    pub job: AiJob,
}

/// One user's AI session on a board.
#[derive(Debug, Default)]
pub struct AiSession {
    pub modes: ModeState,
    /// Read by a running LLM loop before every tool call, so `set_mode` takes effect at once.
    pub live: LiveMode,
    /// The user's conversation memory; taken by the running job and given back with its result.
    pub memory: Option<SessionMemory>,
    pub queue: VecDeque<AiJob>,
    /// A job is running or its result awaits durability.
    pub busy: bool,
    /// A worker holds a job of this user (for the `board_ai_running` gauge).
    pub in_worker: bool,
    /// The plan written in plan mode, awaiting approval (or refinement).
    pub plan: Option<PlanDoc>,
    pub question: Option<OpenQuestion>,
}

impl AiSession {
    pub fn new() -> Self {
        AiSession {
            memory: Some(SessionMemory::new()),
            ..AiSession::default()
        }
    }

    /// Commands waiting or running.
    pub fn load(&self) -> usize {
        self.queue.len() + usize::from(self.busy)
    }
}

/// A worker finished routing a command.
#[derive(Message)]
#[rtype(result = "()")]
pub struct AiDone {
    pub user: UserId,
    pub job: AiJob,
    pub plan: AiPlan,
    pub memory: SessionMemory,
}

/// The `ai_result` to send once the command carrying it is durable.
#[derive(Debug, Clone)]
pub struct AiFollowUp {
    pub user: UserId,
    pub conn: ConnId,
    pub id: String,
    pub frame: Utf8Bytes,
    pub meta: AiMeta,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// An `ai_result` for an outcome without a board change.
pub fn result_msg(
    id: &str,
    outcome: AiOutcome,
    message: String,
    suggestions: Vec<String>,
    error: Option<AiError>,
    meta: AiMeta,
) -> ServerMsg {
    ServerMsg::AiResult {
        id: id.to_string(),
        outcome,
        message,
        seq: None,
        created: Vec::new(),
        suggestions,
        error,
        meta,
        plan: None,
    }
}

/// `meta` for a reply the server makes itself (no route ran, or it was cut off).
fn server_meta(route: AiRoute, started: Instant) -> AiMeta {
    AiMeta {
        route,
        latency_ms: started.elapsed().as_secs_f64() * 1000.0,
        model: None,
        input_tokens: None,
        output_tokens: None,
        steps: 0,
    }
}

/// The `ai_result` of an `ai` command the connection's rate limit refused (LIM-5): it never
/// reached the board, so nothing ran.
pub fn rate_limited_result(id: &str, message: String) -> ServerMsg {
    result_msg(
        id,
        AiOutcome::Error,
        "Too many messages; this AI command was not run. Try again shortly.".into(),
        Vec::new(),
        err(AiErrorCategory::RateLimited, message),
        server_meta(AiRoute::Planner, Instant::now()),
    )
}

fn err(category: AiErrorCategory, message: impl Into<String>) -> Option<AiError> {
    Some(AiError {
        category,
        message: message.into(),
    })
}

impl Board {
    /// Sends to the connection that asked, or to the user's other connections when it is gone.
    pub fn ai_send(&mut self, user: &UserId, conn: ConnId, msg: &ServerMsg) {
        let f = frame(msg);
        self.ai_send_frame(user, conn, &f);
    }

    fn ai_send_frame(&mut self, user: &UserId, conn: ConnId, f: &Utf8Bytes) {
        if self.members.contains(conn) {
            self.deliver(conn, f);
            return;
        }
        for c in self.members.of_user(user) {
            self.deliver(c, f);
        }
    }

    /// Sends to every connection of `user` (mode changes concern all their tabs).
    fn send_user(&mut self, user: &UserId, msg: &ServerMsg) {
        let f = frame(msg);
        for c in self.members.of_user(user) {
            self.deliver(c, &f);
        }
    }

    /// Sends an `ai_result` that needs no durability and records its outcome.
    fn ai_reply(&mut self, user: &UserId, conn: ConnId, msg: ServerMsg) {
        if let ServerMsg::AiResult {
            outcome,
            error,
            meta,
            ..
        } = &msg
        {
            self.env
                .metrics
                .ai_outcome(*outcome, error.as_ref().map(|e| e.category));
            self.env
                .metrics
                .ai_latency(meta.route, meta.latency_ms / 1000.0);
        }
        self.ai_send(user, conn, &msg);
    }

    /// The board stops: its queued and running jobs leave the gauges (their results are dropped).
    pub fn ai_stopped(&mut self) {
        for s in self.users.values_mut() {
            self.env.metrics.ai_queue_depth(-(s.ai.queue.len() as f64));
            if s.ai.in_worker {
                s.ai.in_worker = false;
                self.env.metrics.ai_running(-1.0);
            }
            s.ai.queue.clear();
        }
    }

    /// True while any user's AI command is waiting or running (the board stays loaded).
    pub fn ai_active(&self) -> bool {
        self.users.values().any(|s| s.ai.load() > 0)
    }

    /// Queues an AI command for its user (bounded) and starts it when the user has none running.
    pub fn ai_enqueue(&mut self, user: &UserId, job: AiJob) {
        let depth = self.env.config.ai_queue_depth.max(1);
        let Some(s) = self.users.get_mut(user) else {
            return;
        };
        if s.ai.load() >= depth {
            let msg = result_msg(
                &job.id,
                AiOutcome::Error,
                format!("You have {depth} AI commands waiting; try again when one has finished."),
                Vec::new(),
                err(
                    AiErrorCategory::RateLimited,
                    format!("more than {depth} AI commands queued"),
                ),
                server_meta(AiRoute::Planner, job.received),
            );
            self.ai_reply(user, job.conn, msg);
            return;
        }
        let (id, conn) = (job.id.clone(), job.conn);
        s.ai.queue.push_back(job);
        self.env.metrics.ai_queue_depth(1.0);
        self.ai_send(
            user,
            conn,
            &ServerMsg::AiStatus {
                id,
                state: AiState::Queued,
            },
        );
        self.ai_next(user);
    }

    /// The board as the worker will see it: shared while the board does not change.
    fn ai_snapshot(&mut self) -> Arc<BoardState> {
        match &self.ai_snapshot {
            Some((seq, snap)) if *seq == self.log.seq() => snap.clone(),
            _ => {
                let snap = Arc::new(self.doc.clone());
                self.ai_snapshot = Some((self.log.seq(), snap.clone()));
                snap
            }
        }
    }

    /// Starts the user's next command if none is running.
    pub fn ai_next(&mut self, user: &UserId) {
        let Some(s) = self.users.get_mut(user) else {
            return;
        };
        if s.ai.busy {
            return;
        }
        let Some(job) = s.ai.queue.pop_front() else {
            return;
        };
        s.ai.busy = true;
        s.ai.in_worker = true;
        let memory = s.ai.memory.take().unwrap_or_default();
        let (mode, plan) = match &job.approved {
            Some(p) => (Mode::Build, Some(p.clone())),
            None => {
                let mode = s.ai.modes.mode;
                (mode, s.ai.plan.clone().filter(|_| mode == Mode::Plan))
            }
        };
        let mut req = job.req.clone();
        req.mode = mode;
        req.plan = plan;
        req.live_mode = Some(s.ai.live.clone());
        // The reply is worded from the resolve against the current board, in the actor.
        req.preview_reply = false;
        self.env.metrics.ai_queue_depth(-1.0);
        self.env.metrics.ai_running(1.0);
        self.ai_send(
            user,
            job.conn,
            &ServerMsg::AiStatus {
                id: job.id.clone(),
                state: AiState::Running,
            },
        );
        // Comments stay out of the agent's reach; their count on each object does not (CTX-6).
        req.open_threads = self.open_threads();
        let snapshot = self.ai_snapshot();
        let Some(me) = self.me().cloned() else {
            return;
        };
        let agent = self.env.agent.clone();
        let timeout = self.env.config.ai_timeout();
        let span = tracing::info_span!(
            "ai_job",
            board = %self.id,
            user = %user,
            id = %job.id,
            route = tracing::field::Empty,
            outcome = tracing::field::Empty,
            latency_ms = tracing::field::Empty,
            steps = tracing::field::Empty,
            input_tokens = tracing::field::Empty,
            output_tokens = tracing::field::Empty,
        );
        let user = user.clone();
        self.env.rt.spawn(
            async move {
                let (plan, memory) = route(agent, req, snapshot, memory, timeout).await;
                record_route(&plan);
                me.do_send(AiDone {
                    user,
                    job,
                    plan,
                    memory,
                });
            }
            .instrument(span),
        );
    }

    /// The user's command is answered: take the next one.
    fn ai_finish(&mut self, user: &UserId) {
        if let Some(s) = self.users.get_mut(user) {
            s.ai.busy = false;
        }
        self.ai_next(user);
    }

    /// `ai` from a connection.
    pub fn ai_command(&mut self, user: &UserId, job: AiJob) {
        if let Some(s) = self.users.get_mut(user) {
            // A new command makes an unanswered question stale.
            s.ai.question = None;
        }
        self.ai_enqueue(user, job);
    }

    /// `set_mode` from a connection: takes effect on the running command's next tool call.
    pub fn ai_set_mode(&mut self, user: &UserId, mode: Mode) {
        let Some(s) = self.users.get_mut(user) else {
            return;
        };
        let change = s.ai.modes.set_mode(mode).unwrap_or(ModeChange {
            mode,
            plan_file: s.ai.modes.plan_file.clone(),
        });
        // Confirmed even when unchanged, so a client always learns the mode it is in.
        self.ai_mode_changed(user, change);
    }

    /// `answer` from a connection: validated against the open question's schemas.
    pub fn ai_answer(
        &mut self,
        conn: ConnId,
        user: &UserId,
        question_id: String,
        answers: Map<String, Value>,
        received: Instant,
    ) {
        let Some(s) = self.users.get_mut(user) else {
            return;
        };
        let open = match &s.ai.question {
            Some(q) if q.id == question_id => q,
            _ => {
                let shown: String = question_id.chars().take(80).collect();
                self.env.metrics.error_sent(ErrorCode::NotFound);
                self.send_to(
                    conn,
                    &ServerMsg::error(
                        ErrorCode::NotFound,
                        format!(
                            "no open question {shown:?}: it was already answered, replaced by a newer one, or never asked"
                        ),
                    ),
                );
                return;
            }
        };
        let answers = match &open.ask {
            Some(ask) => plan_mode::normalize_answers(ask, &answers),
            None => answers,
        };
        if let Err(e) = agent::validate_answers(&open.items, &answers) {
            self.env.metrics.error_sent(ErrorCode::Invalid);
            self.send_to(conn, &ServerMsg::error(ErrorCode::Invalid, e));
            return;
        }
        let Some(open) = s.ai.question.take() else {
            return;
        };
        let mut job = open.job;
        job.id = open.id.clone();
        job.conn = conn;
        job.received = received;
        match open.kind {
            QuestionKind::Approval { text } => match plan_mode::approval(&answers) {
                Some(Approval::Accept) => {
                    let plan = s.ai.plan.take();
                    let exited = s.ai.modes.exit_plan_mode(
                        plan.as_ref().map_or("", |p| p.path.as_str()),
                        plan.as_ref(),
                    );
                    match (exited, plan) {
                        (Ok(change), Some(plan)) => {
                            self.ai_mode_changed(user, change);
                            job.req.text = text;
                            job.approved = Some(plan);
                            self.ai_enqueue(user, job);
                        }
                        (Err(e), plan) => {
                            if let Some(s) = self.users.get_mut(user) {
                                s.ai.plan = plan;
                            }
                            self.send_to(conn, &ServerMsg::error(ErrorCode::Invalid, e));
                        }
                        (Ok(_), None) => {}
                    }
                }
                Some(Approval::KeepPlanning) | None => {
                    let msg = result_msg(
                        &job.id,
                        AiOutcome::Clarification,
                        "Keeping the plan. Tell me what to change and I will revise it.".into(),
                        Vec::new(),
                        None,
                        server_meta(AiRoute::Planner, received),
                    );
                    self.ai_reply(user, conn, msg);
                }
            },
            QuestionKind::Clarify { text } => {
                job.req.text = text;
                // Answers of earlier rounds about the same command stay.
                job.req.answers.extend(answers);
                self.ai_enqueue(user, job);
            }
        }
    }
}

/// Runs the agent on a request against a snapshot, within `timeout`. The route runs in its own
/// task so that a panic in it becomes an error reply instead of a queue that never moves again.
async fn route(
    agent: Arc<agent::Agent>,
    req: AiRequest,
    snapshot: Arc<BoardState>,
    memory: SessionMemory,
    timeout: std::time::Duration,
) -> (AiPlan, SessionMemory) {
    let started = Instant::now();
    let has_llm = agent.has_llm();
    let work = tokio::spawn(async move {
        let mut memory = memory;
        let plan = tokio::time::timeout(timeout, agent.plan(&req, &snapshot, &mut memory)).await;
        (plan, memory)
    });
    match work.await {
        Ok((Ok(plan), memory)) => (plan, memory),
        Ok((Err(_), memory)) => {
            let route = if has_llm {
                AiRoute::Llm
            } else {
                AiRoute::Planner
            };
            let plan = AiPlan::Error {
                category: AiErrorCategory::ServiceUnavailable,
                message: format!(
                    "The AI command took longer than {} s and was stopped.",
                    timeout.as_secs()
                ),
                meta: server_meta(route, started),
            };
            (plan, memory)
        }
        Err(e) => {
            tracing::error!(error = %e, "AI worker failed");
            let plan = AiPlan::Error {
                category: AiErrorCategory::InvalidRequest,
                message: "The AI command failed inside the server; nothing was changed.".into(),
                meta: server_meta(AiRoute::Planner, started),
            };
            (plan, SessionMemory::new())
        }
    }
}

/// Records how a command was routed on the current `ai_job` span.
fn record_route(plan: &AiPlan) {
    let span = tracing::Span::current();
    let meta = plan.meta();
    span.record("route", tracing::field::debug(meta.route));
    span.record("latency_ms", meta.latency_ms);
    span.record("steps", meta.steps);
    if let Some(t) = meta.input_tokens {
        span.record("input_tokens", t);
    }
    if let Some(t) = meta.output_tokens {
        span.record("output_tokens", t);
    }
    tracing::debug!("AI command routed");
}
