//! The apply step of an AI command: its intent resolved against the board as it is now and
//! applied as one command, and its `ai_result` once that command is durable or rolled back.

use super::*;

/// What an executed AI command answers: its reply, suggestions, route details and any error.
struct Answer {
    message: String,
    suggestions: Vec<String>,
    meta: AiMeta,
    error: Option<AiError>,
}

impl Board {
    /// Resolves an intent against the current board and applies it as one command. Its
    /// `ai_result` goes out when the command is durable (see [`Board::on_durable`]).
    pub(super) fn ai_execute(
        &mut self,
        user: &UserId,
        job: AiJob,
        intent: &agent::Intent,
        suggestions: Vec<String>,
        meta: AiMeta,
        error: Option<AiError>,
    ) {
        if let Err(e) = self.admission() {
            self.ai_refused(user, &job, meta, &e);
            return;
        }
        let ctx = job.req.resolve_ctx();
        let resolved = agent::resolve(intent, &self.doc, &ctx);
        let mut answer = Answer {
            message: resolved.message(),
            suggestions: resolved.suggestions(),
            meta,
            error: error.or_else(|| {
                (!resolved.warnings.is_empty()).then(|| AiError {
                    category: AiErrorCategory::PartialFailure,
                    message: resolved.warnings.join("; "),
                })
            }),
        };
        if answer.suggestions.is_empty() {
            answer.suggestions = suggestions;
        }
        if resolved.ops.is_empty() {
            self.ai_nothing_applied(user, &job, &resolved, answer);
        } else {
            self.ai_apply(user, job, resolved, answer);
        }
    }

    /// The board takes no command now (store unavailable, or the log writer saturated).
    fn ai_refused(&mut self, user: &UserId, job: &AiJob, meta: AiMeta, e: &protocol::ErrorBody) {
        let (text, category) = if e.code == ErrorCode::RateLimited {
            (
                "The server is saturated; nothing was changed. Try again shortly.",
                AiErrorCategory::RateLimited,
            )
        } else {
            (
                "The board store is unavailable; nothing was changed. Try again shortly.",
                AiErrorCategory::ServiceUnavailable,
            )
        };
        let msg = result_msg(
            &job.id,
            AiOutcome::Error,
            text.into(),
            Vec::new(),
            err(category, &e.message),
            meta,
        );
        self.ai_reply(user, job.conn, msg);
        self.ai_finish(user);
    }

    /// The intent resolved to nothing to change: executed with its reply, or an error.
    fn ai_nothing_applied(
        &mut self,
        user: &UserId,
        job: &AiJob,
        resolved: &agent::Resolved,
        a: Answer,
    ) {
        let outcome = if a.error.is_some() {
            AiOutcome::Error
        } else {
            AiOutcome::Executed
        };
        let mut message = a.message;
        if outcome == AiOutcome::Error && !resolved.warnings.is_empty() {
            message = format!("Nothing was changed: {}", resolved.warnings.join("; "));
        }
        let msg = result_msg(&job.id, outcome, message, a.suggestions, a.error, a.meta);
        self.ai_reply(user, job.conn, msg);
        self.ai_finish(user);
    }

    /// Applies the resolved batch as one command; its `ai_result` waits for it to be durable.
    fn ai_apply(&mut self, user: &UserId, job: AiJob, resolved: agent::Resolved, a: Answer) {
        let seq = self.log.next_seq();
        let out = match self.doc.apply(&resolved.ops, user, seq) {
            Ok(out) => out,
            Err(e) => {
                let category = if e.code() == ErrorCode::LimitExceeded {
                    AiErrorCategory::InvalidRequest
                } else {
                    AiErrorCategory::PartialFailure
                };
                let msg = result_msg(
                    &job.id,
                    AiOutcome::Error,
                    format!("Nothing was changed: {e}"),
                    Vec::new(),
                    err(category, e.to_string()),
                    a.meta,
                );
                self.ai_reply(user, job.conn, msg);
                self.ai_finish(user);
                return;
            }
        };
        let changes: Arc<[protocol::Change]> = out.changes.into();
        self.push_undo(user, seq, &changes);
        if let Some(s) = self.users.get_mut(user)
            && let Some(m) = s.ai.memory.as_mut()
        {
            m.remember_created(&resolved.created, Instant::now());
        }
        let msg = ServerMsg::AiResult {
            id: job.id.clone(),
            outcome: AiOutcome::Executed,
            message: a.message,
            seq: Some(seq),
            created: resolved.created.clone(),
            suggestions: a.suggestions,
            error: a.error,
            meta: a.meta.clone(),
            plan: None,
        };
        let origin = Origin::Ai;
        let recorded = self.record(
            user,
            origin,
            out.ops,
            changes,
            Some(job.conn),
            None,
            job.received,
        );
        debug_assert_eq!(recorded, seq);
        if let Some(p) = self.log.last_mut() {
            p.ai = Some(AiFollowUp {
                user: user.clone(),
                conn: job.conn,
                id: job.id,
                frame: frame(&msg),
                meta: a.meta,
            });
        }
    }

    /// The command carrying an AI result is durable (after its `applied` went out).
    pub fn ai_durable(&mut self, f: AiFollowUp, seq: Seq) {
        let _ = seq;
        self.env.metrics.ai_outcome(AiOutcome::Executed, None);
        self.env
            .metrics
            .ai_latency(f.meta.route, f.meta.latency_ms / 1000.0);
        self.ai_send_frame(&f.user, f.conn, &f.frame);
        self.ai_finish(&f.user);
    }

    /// The command carrying an AI result was rolled back because the store failed.
    pub fn ai_rolled_back(&mut self, f: AiFollowUp) {
        let msg = result_msg(
            &f.id,
            AiOutcome::Error,
            "The board store is unavailable; nothing was changed. Try again shortly.".into(),
            Vec::new(),
            err(
                AiErrorCategory::ServiceUnavailable,
                "board store unavailable",
            ),
            f.meta,
        );
        self.ai_reply(&f.user, f.conn, msg);
        self.ai_finish(&f.user);
    }
}
