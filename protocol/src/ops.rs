//! Operations and commands.

use crate::ids::{ObjectId, UserId};
use crate::model::{BoardObject, ObjectInput, Patch, PatchInput};
use serde::{Deserialize, Serialize};

/// An operation as a client sends it in a `commit`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum OpInput {
    Create { object: ObjectInput },
    Update { id: ObjectId, set: PatchInput },
    Delete { id: ObjectId },
}

/// A normalized operation, as an `applied` carries it: full objects on create, final values on
/// update. A client applies these literally.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    Create { object: BoardObject },
    Update { id: ObjectId, set: Patch },
    Delete { id: ObjectId },
}

impl Op {
    /// The object the op touches.
    pub fn object_id(&self) -> &ObjectId {
        match self {
            Op::Create { object } => &object.id,
            Op::Update { id, .. } | Op::Delete { id } => id,
        }
    }
}

/// Where a command came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    User,
    Ai,
    Undo,
    Redo,
    /// A board restored to one of its versions (HIST-5).
    Restore,
}

/// One applied state change: everything it did, derived changes included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Command {
    /// Server-assigned command id.
    pub id: String,
    pub author: UserId,
    pub origin: Origin,
    /// The client's commit id, when the command came from a `commit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    pub ops: Vec<Op>,
}
