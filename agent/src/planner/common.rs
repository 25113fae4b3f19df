//! What building a command yields, shared by the top-level build and the command families.

use super::Touched;
use super::syntax::Command;
use super::targets::{Miss, Scope};
use crate::intent::Intent;
use crate::schema::ElementUpdate;
use protocol::ObjectId;

/// An intent, the existing objects it acts on, and those it deletes or overwrites.
pub(super) type Built = (Intent, Vec<ObjectId>, Option<Touched>);

/// The top-level build, handed to the parts that build a command within a command.
pub(super) type Builder = fn(Command, &Scope<'_>) -> Result<Built, Miss>;

pub(super) fn nf<T>(m: impl Into<String>) -> Result<T, Miss> {
    Err(Miss::NotFound(m.into()))
}

pub(super) fn update(id: &ObjectId) -> ElementUpdate {
    ElementUpdate {
        id: id.to_string(),
        ..ElementUpdate::default()
    }
}
