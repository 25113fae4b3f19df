//! The pictures a board may show (ASSET-7): the hashes registered on it, loaded with the board
//! and added as uploads and copies register more. A commit that creates an image, or sets an
//! image's `asset`, naming any other hash is refused with `invalid`: objects never point at
//! bytes the board's people were not given.

use super::Board;
use actix::{Context, Handler, Message};
use protocol::{Kind, OpInput};

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
