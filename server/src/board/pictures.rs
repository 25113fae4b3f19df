//! The pictures a board may show (ASSET-7): the hashes registered on it, loaded with the board
//! and added as uploads and copies register more. A commit that creates an image, or sets an
//! image's `asset`, naming any other hash is refused with `invalid`: objects never point at
//! bytes the board's people were not given.
//!
//! The sweep of `super::sweep` asks a running board which pictures it holds (its objects and
//! its people's undo and redo history, ASSET-11) and has it forget the ones it no longer holds,
//! in the board's own turn, so no commit can start using a picture the sweep then deletes.

use super::Board;
use super::users::Entry;
use actix::{Context, Handler, Message, MessageResult};
use protocol::{BoardObject, Field, Kind, OpInput, UndoChange};
use serde::{Deserialize, Serialize};
use std::collections::{HashSet, VecDeque};

/// Pictures registered on the board (at load, or by an upload or copy since).
#[derive(Message)]
#[rtype(result = "()")]
pub struct AssetsAdded {
    pub names: Vec<String>,
}

impl Handler<AssetsAdded> for Board {
    type Result = ();
    fn handle(&mut self, msg: AssetsAdded, _ctx: &mut Context<Self>) {
        self.assets.extend(msg.names);
    }
}

/// Which pictures the board holds now; of `forget`, the ones it does not hold are forgotten
/// (a commit naming them is refused from then on).
#[derive(Message)]
#[rtype(result = "Held")]
pub struct Pictures {
    pub forget: Vec<String>,
}

/// A running board's answer to [`Pictures`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// Pictures its objects or anyone's undo or redo history use.
    pub in_use: Vec<String>,
    /// Pictures of `forget` it forgot.
    pub forgotten: Vec<String>,
}

impl Handler<Pictures> for Board {
    type Result = MessageResult<Pictures>;
    fn handle(&mut self, msg: Pictures, _ctx: &mut Context<Self>) -> Self::Result {
        let mut used: HashSet<&str> = pictures_of(self.doc.objects()).collect();
        for s in self.users.values() {
            history_pictures(&s.undo, &mut used);
            history_pictures(&s.redo, &mut used);
        }
        let in_use: Vec<String> = used.iter().map(|s| s.to_string()).collect();
        let forgotten: Vec<String> = msg
            .forget
            .into_iter()
            .filter(|p| !used.contains(p.as_str()))
            .collect();
        for p in &forgotten {
            self.assets.remove(p);
        }
        MessageResult(Held { in_use, forgotten })
    }
}

/// The pictures `objects` show.
pub fn pictures_of<'a>(
    objects: impl IntoIterator<Item = &'a BoardObject>,
) -> impl Iterator<Item = &'a str> {
    objects.into_iter().filter_map(|o| o.asset.as_deref())
}

/// Adds the pictures an undo or redo stack could bring back to `used`.
fn history_pictures<'a>(stack: &'a VecDeque<Entry>, used: &mut HashSet<&'a str>) {
    for e in stack {
        for c in e.changes.iter() {
            match c {
                UndoChange::Deleted(o) => used.extend(o.asset.as_deref()),
                UndoChange::Updated { fields, .. } => {
                    for (before, after) in fields.iter() {
                        for f in [before, after] {
                            if let Field::Asset(Some(p)) = f {
                                used.insert(p);
                            }
                        }
                    }
                }
                UndoChange::Created(_) => {}
            }
        }
    }
}

impl Board {
    /// The first picture in `ops` the board does not have, if any.
    pub fn unknown_asset<'a>(&self, ops: &'a [OpInput]) -> Option<&'a str> {
        ops.iter().find_map(|op| {
            let named = match op {
                OpInput::Create { object } if object.kind == Kind::Image => {
                    object.asset.as_deref().or(Some(""))
                }
                OpInput::Create { object } => object.asset.as_deref(),
                OpInput::Update { set, .. } => set.asset.as_deref(),
                OpInput::Delete { .. } => None,
            }?;
            (!self.assets.contains(named)).then_some(named)
        })
    }
}
