//! Pictures (object kind `image`): the planner sees, moves, resizes, arranges and deletes them,
//! but never makes one (it has no bytes to upload) nor turns one into something else. A request
//! for a new picture gets an answer that says how pictures are added; edits that make no sense
//! for a picture (a color, a text, another kind) leave pictures out, and say so when nothing
//! else is left. Names of pictures are their alt text (`reply::name_of`); "the logo" prefers
//! the image whose alt text says "logo" (`targets`).

use super::common::nf;
use super::syntax::Command;
use super::targets::{Miss, Scope};
use crate::lang::vocab::kind_word;
use protocol::{Kind, ObjectId};

/// The answer to a request for a new picture.
pub const UPLOAD_ONLY: &str = "I can't make pictures: add one by pasting it, dropping an image \
file onto the board or with the Image tool. Then I can move, resize, arrange or delete it.";

/// True when a command would create a picture ("add an image of a cat", "insert a photo and a
/// note", "turn this note into a picture").
pub(super) fn creates_picture(cmd: &Command) -> bool {
    match cmd {
        Command::Create(spec) => spec.kind.kind == Kind::Image,
        Command::Creates(specs) => specs.iter().any(|c| c.kind.kind == Kind::Image),
        // "turn the note into a picture": a new picture too.
        Command::Reshape(_, k) => k.kind == Kind::Image,
        Command::Then(a, b) => creates_picture(a) || creates_picture(b),
        _ => false,
    }
}

/// True when the words ask to upload or paste a picture ("upload our logo", "paste a
/// screenshot", "attach a photo"), which only the user can do.
pub(super) fn asks_upload(text: &str) -> bool {
    let ws = crate::lang::lexicon::canonical(text);
    let picture = |w: &String| kind_word(w).is_some_and(|k| k.kind == Kind::Image);
    ws.iter().enumerate().any(|(i, w)| {
        let rest = &ws[i + 1..];
        match w.as_str() {
            "upload" | "uploading" | "paste" | "pasting" | "import" | "embed" => {
                rest.iter().any(picture)
            }
            // "attach the logo to Login" joins them; "attach a photo" asks for a new one.
            "attach" => rest
                .windows(2)
                .any(|p| matches!(p[0].as_str(), "a" | "an") && picture(&p[1])),
            _ => false,
        }
    })
}

/// The ids among `ids` that are not pictures, for an edit a picture cannot take; when only
/// pictures were named, a clear "no" that starts "Pictures {why}".
pub(super) fn without_pictures(
    ids: Vec<ObjectId>,
    s: &Scope,
    why: &str,
) -> Result<Vec<ObjectId>, Miss> {
    let is_picture = |i: &ObjectId| {
        s.board
            .get(i.as_str())
            .is_some_and(|o| o.kind == Kind::Image)
    };
    if ids.is_empty() || !ids.iter().all(is_picture) {
        return Ok(ids.into_iter().filter(|i| !is_picture(i)).collect());
    }
    nf(format!(
        "Pictures {why}; I can move, resize, arrange, duplicate or delete them."
    ))
}
