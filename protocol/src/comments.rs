//! Comment threads (COMMENT-n): their own lane beside the board's commands, never in undo,
//! versions, restore, the agent's context or exports. A thread is pinned to an object (at a
//! fraction of its box) or to a point; its comments carry reactions and may be soft-deleted.
//! Every change of a thread raises the board's comment seq (`cseq`) and is sent whole.

use crate::ids::{ObjectId, UserId};
use crate::model::BoardObject;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The board's comment sequence: raised by every change of one of its threads.
pub type Cseq = u64;

/// Longest comment body, in characters.
pub const MAX_COMMENT_CHARS: usize = 5000;
/// Most threads one board keeps.
pub const MAX_THREADS_PER_BOARD: usize = 5000;
/// Most comments one thread keeps (deleted ones count).
pub const MAX_COMMENTS_PER_THREAD: usize = 200;
/// Most distinct reactions on one comment.
pub const MAX_REACTIONS_PER_COMMENT: usize = 20;
/// Longest reaction, in bytes.
pub const MAX_EMOJI_BYTES: usize = 32;
/// Most open threads a `welcome` carries (`threads_cut` says when there were more).
pub const WELCOME_THREADS: usize = 500;

/// Where a thread is pinned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Anchor {
    /// On an object, at fractions of its box (clamped to 0..=1).
    Object { object: ObjectId, fx: f64, fy: f64 },
    /// On the board.
    Point { x: f64, y: f64 },
}

impl Anchor {
    /// The anchor with finite coordinates and fractions within the box, or None when a number is
    /// not finite.
    pub fn checked(self) -> Option<Anchor> {
        match self {
            Anchor::Object { object, fx, fy } if fx.is_finite() && fy.is_finite() => {
                Some(Anchor::Object {
                    object,
                    fx: fx.clamp(0.0, 1.0),
                    fy: fy.clamp(0.0, 1.0),
                })
            }
            Anchor::Point { x, y } if x.is_finite() && y.is_finite() => {
                Some(Anchor::Point { x, y })
            }
            _ => None,
        }
    }

    /// The object it is pinned to, if any.
    pub fn object(&self) -> Option<&ObjectId> {
        match self {
            Anchor::Object { object, .. } => Some(object),
            Anchor::Point { .. } => None,
        }
    }

    /// Where the pin of an object anchor is on the board, given that object.
    pub fn pin(fx: f64, fy: f64, o: &BoardObject) -> (f64, f64) {
        (o.x + fx * o.w, o.y + fy * o.h)
    }
}

/// Who resolved a thread, and when (unix milliseconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resolved {
    pub at: i64,
    pub by: UserId,
}

/// One comment of a thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comment {
    pub id: String,
    pub author: UserId,
    pub created_at_ms: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_at_ms: Option<i64>,
    /// Empty once deleted.
    pub body: String,
    /// Each reaction and who gave it, in the order they did.
    #[serde(default)]
    pub reactions: BTreeMap<String, Vec<UserId>>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub deleted: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A thread, as clients see it whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    pub id: String,
    pub anchor: Anchor,
    pub resolved: Option<Resolved>,
    pub comments: Vec<Comment>,
}

impl Thread {
    /// Who wrote its first comment.
    pub fn author(&self) -> Option<&UserId> {
        self.comments.first().map(|c| &c.author)
    }

    /// Everyone who wrote in it.
    pub fn participants(&self) -> Vec<&UserId> {
        let mut out: Vec<&UserId> = Vec::new();
        for c in &self.comments {
            if !out.contains(&&c.author) {
                out.push(&c.author);
            }
        }
        out
    }
}

/// A change of the comment lane a client (over the socket or HTTP) asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CommentOp {
    /// A new thread with its first comment.
    CommentThread {
        anchor: Anchor,
        body: String,
    },
    CommentReply {
        thread: String,
        body: String,
    },
    /// The author's own comment only.
    CommentEdit {
        comment: String,
        body: String,
    },
    /// The author or an owner; a soft delete (the body is dropped).
    CommentDelete {
        comment: String,
    },
    CommentResolve {
        thread: String,
        resolved: bool,
    },
    /// An editor or the thread's author.
    CommentMove {
        thread: String,
        anchor: Anchor,
    },
    CommentReact {
        comment: String,
        emoji: String,
        on: bool,
    },
}

impl CommentOp {
    /// The body it brings, if any.
    pub fn body(&self) -> Option<&str> {
        match self {
            CommentOp::CommentThread { body, .. }
            | CommentOp::CommentReply { body, .. }
            | CommentOp::CommentEdit { body, .. } => Some(body),
            _ => None,
        }
    }
}

/// The user ids a body mentions: `@` (not inside a word, so `a@b.c` is none) then a user id
/// (letters, digits, `_`, `-`), each once, at most 50.
pub fn mentions(body: &str) -> Vec<UserId> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut out: Vec<UserId> = Vec::new();
    let mut prev: Option<char> = None;
    for (i, c) in body.char_indices() {
        if c == '@' && !prev.is_some_and(|p| p.is_alphanumeric() || p == '_') {
            let after = &body[i + 1..];
            let end = after.find(|c: char| !word(c)).unwrap_or(after.len());
            if let Ok(u) = UserId::try_from(&after[..end])
                && !out.contains(&u)
                && out.len() < 50
            {
                out.push(u);
            }
        }
        prev = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// COMMENT-3: a mention is `@` and a user id, not an address's `@`.
    #[test]
    fn comment_3_mentions_are_at_and_a_user_id() {
        let m = mentions("hi @ann and @bob_k. see (@ann), mail a@b.c");
        let m: Vec<&str> = m.iter().map(|u| u.as_str()).collect();
        assert_eq!(m, ["ann", "bob_k"]);
        assert!(mentions("no one @ here").is_empty());
    }

    /// COMMENT-1: anchors on the wire, clamped fractions, refused non-finite numbers.
    #[test]
    fn comment_1_anchors_round_trip_and_clamp() {
        let a: Anchor =
            serde_json::from_str(r#"{"type":"object","object":"n1","fx":1.5,"fy":0.25}"#).unwrap();
        let Some(Anchor::Object { fx, fy, .. }) = a.checked() else {
            panic!("object anchor")
        };
        assert_eq!((fx, fy), (1.0, 0.25));
        let p: Anchor = serde_json::from_str(r#"{"type":"point","x":3,"y":-4}"#).unwrap();
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            serde_json::json!({"type":"point","x":3.0,"y":-4.0})
        );
        assert!(
            Anchor::Point {
                x: f64::NAN,
                y: 0.0
            }
            .checked()
            .is_none()
        );
    }
}
