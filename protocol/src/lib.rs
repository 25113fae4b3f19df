//! The board server's shared vocabulary: the board model, the palette, validation and clamping,
//! the pure document (`BoardState`) and wire protocol v1.
//!
//! # Layout
//! - [`ids`]: typed, validated ids (`BoardId`, `ObjectId`, `UserId`) and `Seq`.
//! - [`palette`]: the 13 colors, aliases, per-kind defaults, nearest-name lookup.
//! - [`num`]: lenient numbers (`"100"` accepted, NaN refused) and the clamping rules.
//! - [`model`]: `BoardObject`, kinds, geo, connector ends, create/update inputs and `Patch`.
//! - [`ops`]: `OpInput` (what clients send), `Op` (normalized, what `applied` carries), `Command`.
//! - [`board`]: `BoardState`: atomic apply with cascades, revert for undo/redo, invariants.
//! - [`messages`]: `ClientMsg` / `ServerMsg`, error codes, AI event payloads.
//! - [`close`]: the WebSocket close codes.
//! - [`comments`]: comment threads, their anchors and the changes clients ask for.
//! - [`public`]: error text fit for clients (no Rust type names).
//!
//! This crate does no I/O.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod board;
pub mod close;
pub mod comments;
pub mod ids;
pub mod messages;
pub mod model;
pub mod num;
pub mod ops;
pub mod palette;
pub mod public;

pub use board::{ApplyError, BoardState, Change, Outcome, UndoChange};
pub use comments::{Anchor, Comment, CommentOp, Cseq, Resolved, Thread};
pub use ids::{BoardId, IdError, MAX_CLIENT_ID_LEN, ObjectId, Seq, UserId, client_id_fits};
pub use messages::*;
pub use model::{
    Arrow, BoardObject, Endpoint, EndpointInput, Field, Geo, Kind, ObjectInput, Patch, PatchInput,
    Point, Viewport,
};
pub use ops::{Command, Op, OpInput, Origin};
