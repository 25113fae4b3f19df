//! Wire protocol v1: one serde enum per direction, tagged by `"type"`.

use crate::comments::{Anchor, CommentOp, Cseq, Thread};
use crate::ids::{BoardId, MAX_CLIENT_ID_LEN, ObjectId, Seq, UserId, client_id_fits};
use crate::model::{BoardObject, Point, Viewport};
use crate::ops::{Command, OpInput};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Stable error codes (snake_case on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    BadJson,
    UnknownType,
    TooLarge,
    NotFound,
    Invalid,
    RateLimited,
    Unauthorized,
    Forbidden,
    BoardFull,
    NotImplemented,
    LimitExceeded,
    NothingToUndo,
    NothingToRedo,
    StoreUnavailable,
    ShuttingDown,
    Internal,
    Busy,
    /// A picture of a type the server does not take (HTTP 415).
    UnsupportedMedia,
}

impl ErrorCode {
    /// The wire word.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadJson => "bad_json",
            ErrorCode::UnknownType => "unknown_type",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Invalid => "invalid",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::BoardFull => "board_full",
            ErrorCode::NotImplemented => "not_implemented",
            ErrorCode::LimitExceeded => "limit_exceeded",
            ErrorCode::NothingToUndo => "nothing_to_undo",
            ErrorCode::NothingToRedo => "nothing_to_redo",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::ShuttingDown => "shutting_down",
            ErrorCode::Internal => "internal",
            ErrorCode::Busy => "busy",
            ErrorCode::UnsupportedMedia => "unsupported_media",
        }
    }

    /// Every code, for docs and tests.
    pub const ALL: [ErrorCode; 18] = [
        ErrorCode::BadJson,
        ErrorCode::UnknownType,
        ErrorCode::TooLarge,
        ErrorCode::NotFound,
        ErrorCode::Invalid,
        ErrorCode::RateLimited,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::BoardFull,
        ErrorCode::NotImplemented,
        ErrorCode::LimitExceeded,
        ErrorCode::NothingToUndo,
        ErrorCode::NothingToRedo,
        ErrorCode::StoreUnavailable,
        ErrorCode::ShuttingDown,
        ErrorCode::Internal,
        ErrorCode::Busy,
        ErrorCode::UnsupportedMedia,
    ];
}

/// An error as the wire carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorBody {
            code,
            message: message.into(),
        }
    }
}

/// A user as a client names itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserInfo {
    pub id: UserId,
    #[serde(default)]
    pub name: String,
}

/// A user as the server shows it to others: with an assigned cursor color.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserView {
    pub id: UserId,
    pub name: String,
    pub color: String,
}

/// A user's presence on the board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PresenceState {
    pub user: UserView,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Point>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<Vec<ObjectId>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
    /// The object whose text this user is editing (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub editing: Option<ObjectId>,
    /// The user whose view this user follows (FOLLOW-1; absent: nobody).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub following: Option<UserId>,
}

/// A user's AI mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Plan,
    #[default]
    Build,
}

/// A user's role on a board (AUTH-2). Ordered: `viewer < commenter < editor < owner`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Sees everything, may send `presence` and `ping` only.
    #[default]
    Viewer,
    /// Sees everything like a viewer, and comments: creates, replies to, reacts to and resolves
    /// comment threads (COMMENT-1). No commit, undo, AI or version changes.
    Commenter,
    /// Edits, undoes, uses the AI agent, renames the board.
    Editor,
    /// Also shares (links, members) and deletes the board.
    Owner,
}

impl Role {
    /// The wire word.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Commenter => "commenter",
            Role::Editor => "editor",
            Role::Owner => "owner",
        }
    }

    /// Parses the wire word.
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "viewer" => Some(Role::Viewer),
            "commenter" => Some(Role::Commenter),
            "editor" => Some(Role::Editor),
            "owner" => Some(Role::Owner),
            _ => None,
        }
    }
}

/// Client → server.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Must come first. `since` resumes after a reconnect.
    Hello {
        user: UserInfo,
        #[serde(default)]
        token: Option<String>,
        #[serde(default)]
        since: Option<Seq>,
        /// Replays, after the welcome, every thread changed after this comment seq.
        #[serde(default)]
        comments_since: Option<Cseq>,
    },
    /// An atomic edit. `CommitBody` mirrors its fields for the one-pass decode.
    Commit {
        id: String,
        ops: Vec<OpInput>,
    },
    /// Undo the sender's own last command.
    Undo {},
    /// Redo the sender's last undone command.
    Redo {},
    Presence {
        #[serde(default)]
        cursor: Option<Point>,
        #[serde(default)]
        selection: Option<Vec<ObjectId>>,
        #[serde(default)]
        viewport: Option<Viewport>,
        /// The object whose text the sender now edits; `null` when they stop; absent: unchanged.
        #[serde(default, deserialize_with = "crate::model::double_option")]
        editing: Option<Option<ObjectId>>,
        /// The user whose view the sender follows; `null` when they stop; absent: unchanged
        /// (FOLLOW-1).
        #[serde(default, deserialize_with = "crate::model::double_option")]
        following: Option<Option<UserId>>,
    },
    /// Bring everyone to the sender's view (FOLLOW-3): others get `summoned`.
    Summon {},
    /// Start (`on`) or end presenting (FOLLOW-4).
    Present {
        on: bool,
    },
    /// An AI command.
    Ai {
        id: String,
        text: String,
        #[serde(default)]
        selection: Option<Vec<ObjectId>>,
        #[serde(default)]
        viewport: Option<Viewport>,
    },
    Answer {
        question_id: String,
        answers: serde_json::Map<String, Value>,
    },
    SetMode {
        mode: Mode,
    },
    Ping {
        #[serde(default)]
        t: Option<Value>,
    },
    /// A new comment thread (COMMENT-4); `id` is answered by `ack` or `rejected`.
    CommentThread {
        id: String,
        anchor: Anchor,
        body: String,
    },
    CommentReply {
        id: String,
        thread: String,
        body: String,
    },
    CommentEdit {
        id: String,
        comment: String,
        body: String,
    },
    CommentDelete {
        id: String,
        comment: String,
    },
    CommentResolve {
        id: String,
        thread: String,
        resolved: bool,
    },
    CommentMove {
        id: String,
        thread: String,
        anchor: Anchor,
    },
    CommentReact {
        id: String,
        comment: String,
        emoji: String,
        on: bool,
    },
}

/// A client message by lane: a comment request (its id and the change it asks for), or any
/// other message as it is.
#[derive(Debug)]
pub enum Lane {
    Comment(String, CommentOp),
    Other(ClientMsg),
}

impl ClientMsg {
    /// The message by lane ([`Lane`]).
    pub fn into_lane(self) -> Lane {
        let (id, op) = match self {
            ClientMsg::CommentThread { id, anchor, body } => {
                (id, CommentOp::CommentThread { anchor, body })
            }
            ClientMsg::CommentReply { id, thread, body } => {
                (id, CommentOp::CommentReply { thread, body })
            }
            ClientMsg::CommentEdit { id, comment, body } => {
                (id, CommentOp::CommentEdit { comment, body })
            }
            ClientMsg::CommentDelete { id, comment } => (id, CommentOp::CommentDelete { comment }),
            ClientMsg::CommentResolve {
                id,
                thread,
                resolved,
            } => (id, CommentOp::CommentResolve { thread, resolved }),
            ClientMsg::CommentMove { id, thread, anchor } => {
                (id, CommentOp::CommentMove { thread, anchor })
            }
            ClientMsg::CommentReact {
                id,
                comment,
                emoji,
                on,
            } => (id, CommentOp::CommentReact { comment, emoji, on }),
            other => return Lane::Other(other),
        };
        Lane::Comment(id, op)
    }

    /// The request id of a comment request (the `comment_*` messages, COMMENT-4); None for any
    /// other message. With [`ClientMsg::into_lane`], the one place that lists them. It names
    /// every message, so a new one must be sorted here: the role check, `check_bounds` and the
    /// board's dispatch go by it.
    pub fn comment_id(&self) -> Option<&str> {
        match self {
            ClientMsg::CommentThread { id, .. }
            | ClientMsg::CommentReply { id, .. }
            | ClientMsg::CommentEdit { id, .. }
            | ClientMsg::CommentDelete { id, .. }
            | ClientMsg::CommentResolve { id, .. }
            | ClientMsg::CommentMove { id, .. }
            | ClientMsg::CommentReact { id, .. } => Some(id),
            ClientMsg::Hello { .. }
            | ClientMsg::Commit { .. }
            | ClientMsg::Undo {}
            | ClientMsg::Redo {}
            | ClientMsg::Presence { .. }
            | ClientMsg::Summon {}
            | ClientMsg::Present { .. }
            | ClientMsg::Ai { .. }
            | ClientMsg::Answer { .. }
            | ClientMsg::SetMode { .. }
            | ClientMsg::Ping { .. } => None,
        }
    }

    /// The request id a message carries for its answer (`commit`, `ai`, comment messages).
    pub fn request_id(&self) -> Option<&str> {
        match self {
            ClientMsg::Commit { id, .. } | ClientMsg::Ai { id, .. } => Some(id),
            other => other.comment_id(),
        }
    }
}

/// Only the `type` of a client message; every other field is skipped unread.
#[derive(Deserialize)]
struct Tag<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<std::borrow::Cow<'a, str>>,
}

/// The fields of [`ClientMsg::Commit`], read without the tagged enum's buffering (the `type`
/// field is ignored like any unknown one). Kept in step with that variant by the compiler: `decode`
/// builds the variant from these fields, so a field added there does not compile until it is
/// here too.
#[derive(Deserialize)]
struct CommitBody {
    id: String,
    ops: Vec<OpInput>,
}

/// Largest `presence` frame, bytes (WIRE-4): presence is broadcast to every client of a board
/// several times a second, so its size is checked before anything of it is parsed.
pub const MAX_PRESENCE_BYTES: usize = 4096;

/// Most object ids in a selection (`presence`, `ai`; WIRE-4).
pub const MAX_SELECTION: usize = 1000;

/// Names of every client message type.
pub const CLIENT_TYPES: [&str; 18] = [
    "hello",
    "commit",
    "undo",
    "redo",
    "presence",
    "ai",
    "answer",
    "set_mode",
    "ping",
    "comment_thread",
    "comment_reply",
    "comment_edit",
    "comment_delete",
    "comment_resolve",
    "comment_move",
    "comment_react",
    "summon",
    "present",
];

impl ClientMsg {
    /// Decodes one text frame with a stable error code for each way it can be wrong:
    /// `bad_json` (not JSON or not an object), `unknown_type` (missing or unknown `type`),
    /// `invalid` (a known type with wrong or missing fields). Never panics.
    pub fn decode(text: &str) -> Result<ClientMsg, ErrorBody> {
        // The common case in one pass over the text: the `type` is read first without building
        // anything (other fields are only skipped), then the message is deserialized from the
        // text itself. A commit, most of the traffic, goes straight into its fields; other types
        // through the tagged enum. Whatever this path does not accept (not JSON, not an object,
        // a `type` that is not a plain string, a repeated key, a wrong field) goes the general
        // way below, which decides and names the error exactly as before.
        if let Ok(tag) = serde_json::from_str::<Tag>(text) {
            let fast = match tag.ty.as_deref() {
                Some("presence") if text.len() > MAX_PRESENCE_BYTES => {
                    return Err(presence_too_large(text.len()));
                }
                Some("commit") => serde_json::from_str::<CommitBody>(text)
                    .map(|c| ClientMsg::Commit {
                        id: c.id,
                        ops: c.ops,
                    })
                    .ok(),
                Some(ty) if CLIENT_TYPES.contains(&ty) => serde_json::from_str(text).ok(),
                _ => None,
            };
            if let Some(msg) = fast {
                return msg.check_bounds();
            }
        }
        Self::decode_value(text)?.check_bounds()
    }

    /// The bounds serde does not check (WIRE-4): client-chosen ids of at most
    /// [`MAX_CLIENT_ID_LEN`] characters (`invalid`), selections of at most [`MAX_SELECTION`]
    /// ids (`too_large`).
    fn check_bounds(self) -> Result<ClientMsg, ErrorBody> {
        let (id, selection) = match &self {
            ClientMsg::Commit { id, .. } => (Some(("commit", id.as_str())), None),
            ClientMsg::Ai { id, selection, .. } => (Some(("ai", id.as_str())), selection.as_ref()),
            ClientMsg::Answer { question_id, .. } => {
                (Some(("question", question_id.as_str())), None)
            }
            ClientMsg::Presence { selection, .. } => (None, selection.as_ref()),
            other => (other.comment_id().map(|id| ("comment request", id)), None),
        };
        if let Some((what, id)) = id
            && !client_id_fits(id)
        {
            return Err(ErrorBody::new(
                ErrorCode::Invalid,
                format!("a {what} id is limited to {MAX_CLIENT_ID_LEN} characters"),
            ));
        }
        if let Some(sel) = selection
            && sel.len() > MAX_SELECTION
        {
            return Err(ErrorBody::new(
                ErrorCode::TooLarge,
                format!(
                    "a selection of {} objects exceeds the limit of {MAX_SELECTION}",
                    sel.len()
                ),
            ));
        }
        Ok(self)
    }

    /// The general path of [`ClientMsg::decode`]: through a `Value`, so each way a frame can be
    /// wrong gets its own code.
    fn decode_value(text: &str) -> Result<ClientMsg, ErrorBody> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ErrorBody::new(ErrorCode::BadJson, format!("not valid JSON: {e}")))?;
        let Some(obj) = value.as_object() else {
            return Err(ErrorBody::new(
                ErrorCode::BadJson,
                "a message must be a JSON object",
            ));
        };
        let ty = match obj.get("type") {
            Some(Value::String(t)) => t.as_str(),
            _ => {
                return Err(ErrorBody::new(
                    ErrorCode::UnknownType,
                    "a message needs a string `type`",
                ));
            }
        };
        if !CLIENT_TYPES.contains(&ty) {
            let shown: String = ty.chars().take(40).collect();
            return Err(ErrorBody::new(
                ErrorCode::UnknownType,
                format!("unknown message type {shown:?}"),
            ));
        }
        if ty == "presence" && text.len() > MAX_PRESENCE_BYTES {
            return Err(presence_too_large(text.len()));
        }
        let ty = ty.to_owned();
        serde_json::from_value(value).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Invalid,
                format!("bad `{ty}` message: {}", crate::public::serde_message(&e)),
            )
        })
    }
}

fn presence_too_large(len: usize) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::TooLarge,
        format!("a presence frame of {len} bytes exceeds the limit of {MAX_PRESENCE_BYTES}"),
    )
}

/// State of a queued AI command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AiState {
    Queued,
    Running,
}

/// How an AI command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AiOutcome {
    Executed,
    Planned,
    Clarification,
    Error,
}

/// Which route answered an AI command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AiRoute {
    Template,
    Planner,
    Llm,
}

/// Error categories of AI commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AiErrorCategory {
    NoUnderstand,
    ServiceUnavailable,
    PartialFailure,
    InvalidRequest,
    RateLimited,
    NotImplemented,
}

/// An AI error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AiError {
    pub category: AiErrorCategory,
    pub message: String,
}

/// How an AI command was answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AiMeta {
    pub route: AiRoute,
    pub latency_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default)]
    pub steps: u32,
}

/// One question the agent asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionItem {
    pub name: String,
    pub question: String,
    pub schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buttons: Option<Vec<QuestionButton>>,
}

/// A button of a question (seed 002 §6.2): clicking it answers with `value`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionButton {
    pub label: String,
    pub value: Value,
    /// `primary`, `secondary` or `danger`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// A plan as shown to its requester: where it is stored, its markdown checklist, how many
/// objects its batch would create, and (optional) those objects as they would be placed now, for
/// a preview that is not on the board (AI-PLAN-PREVIEW-1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanView {
    pub path: String,
    pub markdown: String,
    #[serde(default)]
    pub creates: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<crate::BoardObject>,
}

/// Server → client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    Welcome {
        board: BoardId,
        seq: Seq,
        you: UserView,
        /// Omitted on a resume whose `since` is in the replay window: the missed `applied`
        /// messages follow instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        objects: Option<Vec<BoardObject>>,
        users: Vec<PresenceState>,
        mode: Mode,
        /// The connection's role on the board (AUTH-2).
        #[serde(default)]
        role: Role,
        /// The board's human title.
        #[serde(default)]
        title: String,
        /// The board's comment seq (COMMENT-6).
        #[serde(default)]
        cseq: Cseq,
        /// The open comment threads, at most [`crate::comments::WELCOME_THREADS`].
        #[serde(default)]
        threads: Vec<Thread>,
        /// Who presents (FOLLOW-4); null: nobody.
        #[serde(default)]
        presenter: Option<UserId>,
        /// There were more open threads than the welcome carries (`GET …/threads` has them).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        threads_cut: bool,
    },
    /// Comment threads changed (COMMENT-5): each whole, as it is at `cseq`.
    CommentsChanged {
        cseq: Cseq,
        threads: Vec<Thread>,
    },
    /// The connection's role changed while it was open (AUTH-12).
    RoleChanged {
        role: Role,
    },
    /// The board was renamed (AUTH-8).
    TitleChanged {
        title: String,
    },
    Applied {
        seq: Seq,
        command: Command,
    },
    /// A re-sent commit that was already applied: its original seq.
    Ack {
        id: String,
        seq: Seq,
        /// A comment request's: the comment seq of its change (absent when nothing changed)
        /// and the thread and comment it made or touched.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cseq: Option<Cseq>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thread: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        comment: Option<String>,
    },
    Rejected {
        id: String,
        error: ErrorBody,
    },
    Presence {
        #[serde(flatten)]
        state: PresenceState,
    },
    Joined {
        user: UserView,
    },
    /// Someone brought everyone to their view (FOLLOW-3).
    Summoned {
        by: UserId,
        viewport: Viewport,
    },
    /// The board's presenter changed (FOLLOW-4); null: the presentation ended.
    PresentationChanged {
        presenter: Option<UserId>,
    },
    Left {
        user: UserView,
    },
    AiStatus {
        id: String,
        state: AiState,
    },
    AiResult {
        id: String,
        outcome: AiOutcome,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<Seq>,
        #[serde(default)]
        created: Vec<ObjectId>,
        #[serde(default)]
        suggestions: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<AiError>,
        meta: AiMeta,
        /// Extension: on `planned`, the plan awaiting approval (nothing is applied until then).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plan: Option<PlanView>,
    },
    Question {
        question_id: String,
        questions: Vec<QuestionItem>,
        created_at: u64,
    },
    ModeChanged {
        mode: Mode,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plan_file: Option<String>,
    },
    Error {
        code: ErrorCode,
        message: String,
    },
    Pong {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        t: Option<Value>,
    },
}

/// What a server message serializes to if serialization fails. It cannot: every map key is a
/// string and no value is NaN; the frame still says what went wrong if that ever changes.
const SERIALIZATION_FAILED: &str =
    r#"{"type":"error","code":"internal","message":"serialization failed"}"#;

impl ServerMsg {
    /// An `error` message.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Self {
        ServerMsg::Error {
            code,
            message: message.into(),
        }
    }

    /// Serializes into `buf` (cleared first), so a caller that frames many messages reuses one
    /// grown buffer instead of growing a fresh one per message.
    pub fn write_json(&self, buf: &mut Vec<u8>) {
        buf.clear();
        if serde_json::to_writer(&mut *buf, self).is_err() {
            buf.clear();
            buf.extend_from_slice(SERIALIZATION_FAILED.as_bytes());
        }
    }

    /// Writes the frame of `ServerMsg::Applied { seq, command }` into `buf` (cleared first), byte
    /// for byte what serializing that message writes, and returns where the command's own JSON
    /// lies in it: the log stores exactly those bytes, so a command is serialized once, not once
    /// for the wire and again for the store. `None` if the command cannot be serialized (the
    /// frame is then the serialization-failure error).
    pub fn write_applied(
        seq: Seq,
        command: &Command,
        buf: &mut Vec<u8>,
    ) -> Option<std::ops::Range<usize>> {
        use std::io::Write;
        buf.clear();
        // Field order as declared: the serde tag, then `seq`, then `command`.
        let _ = write!(buf, "{{\"type\":\"applied\",\"seq\":{seq},\"command\":");
        let start = buf.len();
        if serde_json::to_writer(&mut *buf, command).is_err() {
            buf.clear();
            buf.extend_from_slice(SERIALIZATION_FAILED.as_bytes());
            return None;
        }
        let end = buf.len();
        buf.push(b'}');
        Some(start..end)
    }

    /// Serializes to a JSON text frame.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| SERIALIZATION_FAILED.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WIRE-1 (`applied`): the frame written around a once-serialized command is byte for byte
    /// the serialized message, and the range it returns is exactly the command's own JSON.
    #[test]
    fn write_applied_matches_the_serialized_message() {
        let commands = [
            serde_json::json!({"id":"c-1","author":"ann","origin":"user","client_id":"k\"1",
                "ops":[{"op":"create","object":{"id":"n1","kind":"note","x":1.5,"y":-2.0,
                    "w":200.0,"h":200.0,"text":"tab\tquote\" é 😀","color":"#FFD966"}},
                    {"op":"update","id":"n1","set":{"x":10.0,"text":"b"}},
                    {"op":"delete","id":"n1"}]}),
            serde_json::json!({"id":"c-2","author":"bob","origin":"undo","ops":[]}),
        ];
        let mut buf = Vec::new();
        for (seq, c) in [(1u64, &commands[0]), (u64::MAX, &commands[1])] {
            let command: Command = serde_json::from_value(c.clone()).unwrap();
            let range = ServerMsg::write_applied(seq, &command, &mut buf).unwrap();
            let whole = serde_json::to_vec(&ServerMsg::Applied {
                seq,
                command: command.clone(),
            })
            .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&buf),
                String::from_utf8_lossy(&whole)
            );
            assert_eq!(
                &buf[range],
                serde_json::to_vec(&command).unwrap().as_slice()
            );
        }
    }

    /// WIRE-2: the one-pass decode and the general path agree on every valid message type, on
    /// escapes in the `type`, and on the code of each malformed frame.
    #[test]
    fn one_pass_decode_matches_the_general_path() {
        let frames = [
            r#"{"type":"hello","user":{"id":"u1","name":"Ann"},"since":7}"#,
            r#"{"type":"commit","id":"c1","ops":[{"op":"create","object":{"kind":"note","x":1,"y":2,"text":"hi"}},{"op":"update","id":"o1","set":{"x":"12.5"}},{"op":"delete","id":"o2"}],"extra":1}"#,
            r#"{"ops":[],"id":"c2","type":"commit"}"#,
            r#"{"type":"comm\u0069t","id":"c3","ops":[]}"#,
            r#"{"type":"undo"}"#,
            r#"{"type":"redo","x":[1,{"y":2}]}"#,
            r#"{"type":"presence","cursor":{"x":1,"y":2}}"#,
            r#"{"type":"presence","editing":"o1"}"#,
            r#"{"type":"presence","editing":null,"selection":[]}"#,
            r#"{"type":"ai","id":"a1","text":"make a SWOT"}"#,
            r#"{"type":"answer","question_id":"q","answers":{"a":1}}"#,
            r#"{"type":"set_mode","mode":"plan"}"#,
            r#"{"type":"ping","t":5}"#,
            r#"{"type":"comment_thread","id":"k1","anchor":{"type":"point","x":1,"y":2},"body":"hi @ann"}"#,
            // Repeated keys: the last one counts, as in any JSON object read here.
            r#"{"type":"commit","type":"undo"}"#,
            r#"{"type":"commit","id":"a","id":"b","ops":[]}"#,
            r#"{"type":"commit"}"#,
            r#"{"type":"commit","id":"c","ops":[{"op":"melt","id":"x"}]}"#,
            r#"{"type":5}"#,
            r#"{"type":"launch"}"#,
            r#"{}"#,
            r#"[1]"#,
            r#"{"type":"undo"} x"#,
            "{",
        ];
        // The first sixteen are valid; the rest are not.
        for (i, f) in frames.into_iter().enumerate() {
            let fast = ClientMsg::decode(f);
            assert_eq!(fast.is_ok(), i < 16, "{f}: {fast:?}");
            let general = ClientMsg::decode_value(f);
            match (&fast, &general) {
                (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{f}"),
                (Err(a), Err(b)) => assert_eq!(a, b, "{f}"),
                _ => panic!("{f}: one pass gave {fast:?}, the general path {general:?}"),
            }
        }
    }
}
