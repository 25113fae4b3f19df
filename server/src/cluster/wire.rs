//! What nodes say to each other over NATS. Every message addressed to a node goes to that node's
//! subject, `PREFIX.n.NODE.GENERATION`; requests carry a reply subject. A message is a one-line
//! JSON head, then, for frames and client messages, a newline and the body as it is on the
//! socket (the owner's frames are relayed byte for byte, never parsed).

use crate::board::import::Imported;
use crate::store::{Author, VersionInfo};
use bytes::{Bytes, BytesMut};
use protocol::{BoardId, ErrorBody, ErrorCode, Seq, UserId, UserInfo};
use serde::{Deserialize, Serialize};

/// A node process: its id and generation (a restart of the same id has a higher one).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NodeRef {
    pub id: String,
    pub generation: i64,
}

impl NodeRef {
    /// The subject this node listens on.
    pub fn subject(&self, prefix: &str) -> String {
        format!("{prefix}.n.{}.{}", self.id, self.generation)
    }
}

/// A join relayed to a board's owner (see `board::Join`; the outbox and kick stay on the
/// connection's node).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireJoin {
    pub board: BoardId,
    pub from: NodeRef,
    pub conn: u64,
    pub user: UserInfo,
    pub since: Option<Seq>,
    #[serde(default)]
    pub comments_since: Option<protocol::Cseq>,
    pub access: crate::board::ConnAccess,
    pub title: String,
}

/// The head of a message. `n` numbers one connection's stream in one direction from 1, gap
/// free: frames and the close from the owner, messages and the leave from the relay.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "k")]
pub enum Head {
    /// Owner → relay: a frame for connection `c` (the body).
    #[serde(rename = "f")]
    Frame { c: u64, n: u64 },
    /// Owner → relay: the board dropped connection `c` with this close code.
    #[serde(rename = "x")]
    Close {
        c: u64,
        n: u64,
        code: u16,
        reason: String,
    },
    /// Relay → owner: a client message of connection `c` (the body).
    #[serde(rename = "m")]
    Msg { from: NodeRef, c: u64, n: u64 },
    /// Relay → owner: connection `c` went away.
    #[serde(rename = "l")]
    Leave { from: NodeRef, c: u64, n: u64 },
    /// The last number `from` sent on each of these streams (`owner`: streams from the owner),
    /// so a receiver learns of a lost last message.
    #[serde(rename = "t")]
    Tail {
        from: NodeRef,
        owner: bool,
        ends: Vec<(u64, u64)>,
    },
    /// Request: join a board this node owns. Reply: [`JoinReply`].
    #[serde(rename = "j")]
    Join(Box<WireJoin>),
    /// Request: send again what this node sent numbered `lo..=hi` on connection `c`'s stream
    /// (`owner`: the stream from the owner to `from`). Reply: [`Repair`].
    #[serde(rename = "r")]
    Repair {
        from: NodeRef,
        owner: bool,
        c: u64,
        lo: u64,
        hi: u64,
    },
    /// Request: a board this node owns, as the HTTP routes need it. Reply: [`BoardReply`].
    #[serde(rename = "b")]
    Board { board: BoardId, op: BoardOp },
    /// To every node (the prefix's `all` subject): a session was signed out (AUTH-19).
    #[serde(rename = "s")]
    SignedOut { from: NodeRef, session: String },
    /// Part `i` of `of` of a message too large for one NATS message (the body is that slice of
    /// the whole message); the last part carries the whole message's reply subject.
    #[serde(rename = "p")]
    Part {
        from: NodeRef,
        id: u64,
        i: u32,
        of: u32,
    },
}

/// What an HTTP route asks of a board's owner.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op")]
pub enum BoardOp {
    #[serde(rename = "inspect")]
    Inspect,
    #[serde(rename = "flush")]
    Flush { within_ms: u64 },
    #[serde(rename = "retitle")]
    Retitle { title: String },
    #[serde(rename = "close")]
    CloseAll {
        error: ErrorCode,
        code: u16,
        reason: String,
    },
    /// A board file's objects, as one command by `user` (EXPORT-8).
    #[serde(rename = "import")]
    Import {
        user: UserId,
        objects: Vec<protocol::ObjectInput>,
    },
    /// A named version (HIST-4), as `board::history::SaveVersion` without its channel.
    #[serde(rename = "save")]
    SaveVersion {
        name: String,
        by: Author,
        named: u64,
        max: u64,
    },
    /// Restore stored version `version` as one command by `user` (HIST-5).
    #[serde(rename = "restore")]
    Restore { user: UserId, version: u64 },
    /// Pictures registered on the board (ASSET-7).
    #[serde(rename = "assets")]
    AssetsAdded { names: Vec<String> },
    /// The pictures the board holds; forget those of `forget` it does not (ASSET-11).
    #[serde(rename = "pictures")]
    Pictures { forget: Vec<String> },
    /// A comment change by `by` with role `role` (COMMENT-7), as
    /// `board::CommentRequest` without its channel.
    #[serde(rename = "comment")]
    Comment {
        by: UserId,
        role: protocol::Role,
        change: protocol::CommentOp,
    },
    /// Delete the board (its owner closes it and deletes it from the store).
    #[serde(rename = "delete")]
    Delete,
    /// `user`'s stored role changed (AUTH-12).
    #[serde(rename = "role")]
    SetRole {
        user: String,
        role: Option<protocol::Role>,
        until: Option<i64>,
        why: String,
    },
}

/// Why a named version was not saved, as `board::history::NotSaved` travels.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum NotSaved {
    NotNow,
    Busy,
    Full(u64),
    Store(String),
}

/// The owner's answer to a [`Head::Board`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum BoardReply {
    /// The board's state (`Inspect`).
    Inspection {
        seq: Seq,
        durable: Seq,
        objects: Vec<protocol::BoardObject>,
        clients: usize,
    },
    /// Done (`true` for a flush made durable).
    Done(bool),
    Imported(Result<Imported, ErrorBody>),
    Saved(Result<VersionInfo, NotSaved>),
    Restored(Result<Seq, ErrorBody>),
    Commented(Result<crate::board::CommentDone, ErrorBody>),
    /// Whether the store had the board, or why it could not be deleted.
    Deleted(Result<bool, String>),
    /// The pictures the board holds, and those it forgot.
    Pictures(crate::board::Held),
    /// This node does not own the board (any more).
    NotHere,
}

/// The owner's answer to a [`Head::Join`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum JoinReply {
    Joined(protocol::UserView),
    Refused(ErrorBody),
    NotHere,
}

/// The answer to a [`Head::Repair`]: the messages again (head and body), or that they are no
/// longer kept.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Repair {
    Again(Vec<(Head, String)>),
    Lost,
}

/// A message: the head, and a body after a newline when there is one.
pub fn encode(head: &Head, body: &[u8]) -> Bytes {
    let head = serde_json::to_vec(head).unwrap_or_default();
    let mut out = BytesMut::with_capacity(head.len() + 1 + body.len());
    out.extend_from_slice(&head);
    if !body.is_empty() {
        out.extend_from_slice(b"\n");
        out.extend_from_slice(body);
    }
    out.freeze()
}

/// The head and body of a message; None when it is not one.
pub fn decode(payload: &Bytes) -> Option<(Head, Bytes)> {
    let cut = payload.iter().position(|b| *b == b'\n');
    let (head, body) = match cut {
        Some(i) => (&payload[..i], payload.slice(i + 1..)),
        None => (&payload[..], Bytes::new()),
    };
    Some((serde_json::from_slice(head).ok()?, body))
}

/// A reply's JSON.
pub fn reply<T: Serialize>(value: &T) -> Bytes {
    Bytes::from(serde_json::to_vec(value).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_round_trips_with_its_body_untouched() {
        let body = br#"{"type":"ack","id":"c1","seq":7}"#;
        let m = encode(&Head::Frame { c: 3, n: 9 }, body);
        let (h, b) = decode(&m).unwrap();
        assert!(matches!(h, Head::Frame { c: 3, n: 9 }));
        assert_eq!(&b[..], body);
    }

    #[test]
    fn a_head_without_body_decodes() {
        let from = NodeRef {
            id: "a".into(),
            generation: 2,
        };
        let m = encode(&Head::Leave { from, c: 1, n: 4 }, b"");
        assert!(matches!(decode(&m), Some((Head::Leave { n: 4, .. }, _))));
        assert!(decode(&Bytes::from_static(b"not json")).is_none());
    }
}
