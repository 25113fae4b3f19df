//! The board's AI agent: turns a plain-language command into one batch of board operations.
//!
//! Route, fastest first: the template router ([`router`]), the offline planner ([`planner`]),
//! then the LLM ([`llm`], only when configured). The agent runs in a worker outside the board
//! actor against a snapshot and returns an [`AiPlan`]; the actor then calls [`resolve()`] on the
//! *current* board, which is pure, fast and never panics, and applies the ops in one command.
//!
//! ```no_run
//! # async fn demo(board: protocol::BoardState, user: protocol::UserId) {
//! use agent::{Agent, AgentConfig, AiPlan, AiRequest, SessionMemory, resolve};
//! let agent = Agent::new(AgentConfig::from_env());
//! let mut memory = SessionMemory::new();
//! let req = AiRequest::new("create a blue square", user.clone());
//! if let AiPlan::Execute { intent, .. } = agent.plan(&req, &board, &mut memory).await {
//!     let resolved = resolve(&intent, &board, &req.resolve_ctx());
//!     // board.apply(&resolved.ops, &user, seq) in the actor; then:
//!     memory.remember_created(&resolved.created, std::time::Instant::now());
//!     let _reply = resolved.message();
//! }
//! # }
//! ```
//!
//! # Layout
//! - [`agent`]: [`Agent`], [`AgentConfig`], [`LlmConfig`], [`AiRequest`], [`AiPlan`]: routing.
//! - [`schema`]: tool argument types (serde + schemars): `batchOperations` (seed 000 R1-R4),
//!   `updateElements`, `layoutElements`, `deleteElements`, `duplicateElements`,
//!   `getBoardState`, `askUser`, `exitPlanMode`, `writePlan`; color alias preprocessing.
//! - [`tools`]: names, "Tool to X. Use when Y." descriptions, generated JSON Schemas, parsing
//!   and schema checking of calls.
//! - [`intent`]: [`Intent`], the staged write calls of one command (serializable).
//! - [`resolve`](mod@resolve): intent → ops: ref map and skip rules, directives, frame fitting,
//!   open-space placement, collision; `validate_call` for `valid: false`.
//! - [`context`]: the three-tier board context; [`prompt`]: the system prompt.
//! - [`router`]: templates (SWOT, kanban, retro, journey, timeline, pros and cons, mind map, org
//!   chart, 2×2 and Eisenhower matrices, edge lists `A -> B, A -> C`, note grids), with the parts
//!   a user names.
//! - [`lang`]: the language floor both the router and the planner read with: word helpers,
//!   vocabulary tables (lexicon, filler, kinds, colors, verbs, relation words), number words,
//!   typo tolerance, content and list splitting, the per-command memo.
//! - [`planner`]: the offline grammar (`syntax`, `parse`, `targets`, `question`): references by
//!   text/frame/author, board questions, "which one?" and confirmation questions; pictures
//!   (`pictures`): named by alt text, moved, resized and arranged, never made.
//! - [`memory`]: [`SessionMemory`] (last created ids, targets, turns; 5-minute TTL).
//! - [`llm`]: the async-openai loop; [`errors`]: categories; [`reply`]: human replies.
//! - [`plan_mode`]: plan/build mode, plan documents, approval, answer validation.
//!
//! Invariants: no I/O except the LLM client; `resolve` never panics and its ops apply cleanly
//! with `BoardState::apply`; replies never contain hex colors. Rules are listed in `RULES.md`.
#![cfg_attr(test, allow(clippy::unwrap_used))]
#![deny(clippy::too_many_lines)]

pub mod agent;
pub mod context;
pub mod errors;
pub mod intent;
pub mod lang;
pub mod llm;
pub mod memory;
pub mod plan_mode;
pub mod planner;
pub mod prompt;
pub mod reply;
pub mod request;
pub mod resolve;
pub mod router;
pub mod schema;
pub mod tools;

pub use agent::{Agent, AgentConfig, AiPlan, AiRequest, LlmConfig};
pub use errors::AgentError;
pub use intent::{Intent, StagedCall};
pub use memory::SessionMemory;
pub use plan_mode::{ModeState, PlanDoc, validate_answers};
pub use resolve::{ResolveCtx, Resolved, resolve, validate_call};
