//! What a worker's result does on the board: a reply, a question to the user, a mode change, or
//! an intent to resolve and apply ([`Board::on_ai_done`]).

use super::*;

impl Board {
    /// A worker's result: reply, ask, or resolve and apply.
    pub fn on_ai_done(&mut self, msg: AiDone) {
        let AiDone {
            user,
            job,
            plan,
            memory,
        } = msg;
        let Some(s) = self.users.get_mut(&user) else {
            return;
        };
        if s.ai.in_worker {
            s.ai.in_worker = false;
            self.env.metrics.ai_running(-1.0);
        }
        s.ai.memory = Some(memory);
        match plan {
            // A board question answered by the agent: nothing to apply (`executed`, no `seq`).
            AiPlan::Execute {
                intent,
                reply,
                suggestions,
                meta,
                ..
            } if intent.is_empty() && !reply.is_empty() => {
                let msg = result_msg(&job.id, AiOutcome::Executed, reply, suggestions, None, meta);
                self.ai_reply(&user, job.conn, msg);
                self.ai_finish(&user);
            }
            AiPlan::Execute {
                intent,
                suggestions,
                meta,
                mode_change,
                error,
                reply: _,
            } => {
                if let Some(change) = mode_change {
                    self.ai_mode_changed(&user, change);
                }
                self.ai_execute(&user, job, &intent, suggestions, meta, error);
            }
            AiPlan::Planned {
                plan,
                ask,
                questions,
                reply: _,
                meta,
            } => self.ai_planned(&user, job, plan, ask, questions, meta),
            AiPlan::Clarification {
                message,
                suggestions,
                ask,
                error,
                meta,
            } => {
                let msg = result_msg(
                    &job.id,
                    AiOutcome::Clarification,
                    message,
                    suggestions,
                    error,
                    meta,
                );
                self.ai_clarify(&user, job, msg, ask);
            }
            AiPlan::Error {
                category,
                message,
                meta,
            } => {
                let msg = result_msg(
                    &job.id,
                    AiOutcome::Error,
                    message.clone(),
                    Vec::new(),
                    err(category, message),
                    meta,
                );
                self.ai_reply(&user, job.conn, msg);
                self.ai_finish(&user);
            }
        }
    }

    /// A plan written in plan mode: shown with its objects, and the approval question asked.
    fn ai_planned(
        &mut self,
        user: &UserId,
        job: AiJob,
        plan: PlanDoc,
        ask: agent::schema::AskUser,
        questions: Vec<protocol::QuestionItem>,
        meta: AiMeta,
    ) {
        let view = PlanView {
            path: plan.path.clone(),
            // People read titles and texts, never the planner's refs or object ids.
            markdown: plan_mode::readable_markdown(&plan.markdown, &plan.preview, |id| {
                let o = self.doc.get(id)?;
                Some(plan_mode::quoted_label(&o.text, o.kind.as_str()))
            }),
            creates: plan.preview.create_count(),
            objects: self.plan_objects(user, &job, &plan.preview),
        };
        // Said in the product's words: the plan's storage path means nothing to a user.
        let reply = plan_reply(&view.markdown);
        let kind = QuestionKind::Approval {
            text: job.req.text.clone(),
        };
        if let Some(s) = self.users.get_mut(user) {
            s.ai.plan = Some(plan);
            if s.ai.modes.mode == Mode::Plan {
                s.ai.modes.plan_file = Some(view.path.clone());
            }
        }
        let conn = job.conn;
        let id = job.id.clone();
        let question = self.ai_open_question(user, job, questions, Some(ask), kind);
        let msg = ServerMsg::AiResult {
            id,
            outcome: AiOutcome::Planned,
            message: reply,
            seq: None,
            created: Vec::new(),
            suggestions: Vec::new(),
            error: None,
            meta,
            plan: Some(view),
        };
        self.ai_reply(user, conn, msg);
        self.ai_send(user, conn, &question);
        self.ai_finish(user);
    }

    /// A clarification: its reply, and the agent's questions asked when it has any.
    fn ai_clarify(
        &mut self,
        user: &UserId,
        job: AiJob,
        msg: ServerMsg,
        ask: Option<agent::schema::AskUser>,
    ) {
        let conn = job.conn;
        self.ai_reply(user, conn, msg);
        if let Some(ask) = ask.filter(|a| !a.questions.is_empty()) {
            let items = plan_mode::to_items(&ask);
            let kind = QuestionKind::Clarify {
                text: job.req.text.clone(),
            };
            let question = self.ai_open_question(user, job, items, Some(ask), kind);
            self.ai_send(user, conn, &question);
        }
        self.ai_finish(user);
    }

    /// Records the user's open question (replacing any older one) and returns its message.
    fn ai_open_question(
        &mut self,
        user: &UserId,
        job: AiJob,
        items: Vec<QuestionItem>,
        ask: Option<AskUser>,
        kind: QuestionKind,
    ) -> ServerMsg {
        let id = format!("q-{}", uuid::Uuid::new_v4());
        let msg = ServerMsg::Question {
            question_id: id.clone(),
            questions: items.clone(),
            created_at: now_ms(),
        };
        if let Some(s) = self.users.get_mut(user) {
            s.ai.question = Some(OpenQuestion {
                id,
                items,
                ask,
                kind,
                job,
            });
        }
        msg
    }

    /// The objects a planned batch would create if built now, placed as it would place them
    /// (resolved and applied to a copy of the board; nothing changes on the board itself).
    fn plan_objects(
        &self,
        user: &UserId,
        job: &AiJob,
        preview: &agent::Intent,
    ) -> Vec<protocol::BoardObject> {
        let ctx = job.req.resolve_ctx();
        let resolved = agent::resolve(preview, &self.doc, &ctx);
        if resolved.ops.is_empty() {
            return Vec::new();
        }
        let mut copy = self.doc.clone();
        match copy.apply(&resolved.ops, user, self.log.next_seq()) {
            Ok(out) => out
                .ops
                .into_iter()
                .filter_map(|op| match op {
                    protocol::Op::Create { object } => Some(object),
                    _ => None,
                })
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    pub(super) fn ai_mode_changed(&mut self, user: &UserId, change: ModeChange) {
        if let Some(s) = self.users.get_mut(user) {
            s.ai.modes.mode = change.mode;
            s.ai.modes.plan_file = change.plan_file.clone();
            s.ai.live.set(change.mode);
        }
        self.send_user(
            user,
            &ServerMsg::ModeChanged {
                mode: change.mode,
                plan_file: change.plan_file,
            },
        );
    }
}

/// The reply to a planned command: how many steps, and that nothing changes before approval.
fn plan_reply(markdown: &str) -> String {
    let steps = markdown.matches("- [ ]").count();
    format!(
        "Here is a plan ({steps} step{}), previewed on the board. Nothing changes until you \
         choose \"{}\".",
        if steps == 1 { "" } else { "s" },
        plan_mode::ACCEPT_LABEL
    )
}
