//! The board file format, version 1 (`docs/FILES.md`, schema `docs/board-file.schema.json`):
//! `{"format": "board", "version": 1, "board": {"id", "title"}, "seq", "exported_at",
//! "objects": [...]}`. Objects are board objects as `GET /api/boards/{id}` returns them.

use protocol::{BoardObject, ObjectInput};
use serde_json::{Value, json};

/// The `format` word of a board file.
pub const FORMAT: &str = "board";
/// The newest version this code writes and reads.
pub const VERSION: u64 = 1;

/// A board file refused, with a message fit for the person who sent it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FileError(pub String);

/// A board file (version 1) of `objects`. `exported_at` is in milliseconds since the Unix epoch.
pub fn write(
    board: &str,
    title: &str,
    seq: u64,
    exported_at: i64,
    objects: &[BoardObject],
) -> Value {
    json!({
        "format": FORMAT,
        "version": VERSION,
        "board": {"id": board, "title": title},
        "seq": seq,
        "exported_at": exported_at,
        "objects": objects,
    })
}

/// What an import takes from a file.
#[derive(Debug)]
pub struct Parsed {
    pub title: Option<String>,
    pub objects: Vec<ObjectInput>,
}

/// Reads a board file of version 1, or the older shape `{"board", "title", "seq",
/// "objects"}` that `GET /api/boards/{id}` answers. Every object must be a valid create input
/// (ids, kinds, geo, colors as the wire takes them); the message names the first bad one.
pub fn read(doc: &Value) -> Result<Parsed, FileError> {
    let doc = normalize(doc)?;
    let title = match doc.get("title") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(_) => return Err(FileError("`title` must be a string".into())),
    };
    let raw = match doc.get("objects") {
        Some(Value::Array(a)) => a.as_slice(),
        _ => {
            return Err(FileError("a board file has an \"objects\" array".into()));
        }
    };
    let mut objects = Vec::with_capacity(raw.len());
    for (i, v) in raw.iter().enumerate() {
        let o = serde_json::from_value::<ObjectInput>(v.clone()).map_err(|e| {
            let label = match v.get("id").and_then(Value::as_str) {
                Some(id) => format!("object {i} (id {id})"),
                None => format!("object {i}"),
            };
            FileError(format!("{label}: {}", protocol::public::serde_message(&e)))
        })?;
        objects.push(o);
    }
    Ok(Parsed { title, objects })
}

/// A version-1 file turned into the older shape (`{"board", "title", "seq", "objects"}`); the
/// older shape (no `format`) is returned as it is.
pub fn normalize(doc: &Value) -> Result<Value, FileError> {
    let Some(map) = doc.as_object() else {
        return Err(FileError("a board file is a JSON object".into()));
    };
    let Some(format) = map.get("format") else {
        return Ok(doc.clone());
    };
    if format.as_str() != Some(FORMAT) {
        return Err(FileError(format!("\"format\" must be \"{FORMAT}\"")));
    }
    match map.get("version").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(v) if v > VERSION => {
            return Err(FileError(format!(
                "board file version {v} is newer than this server reads ({VERSION})"
            )));
        }
        _ => return Err(FileError("\"version\" must be 1".into())),
    }
    let board = map.get("board").cloned().unwrap_or(Value::Null);
    if !(board.is_object() || board.is_null()) {
        return Err(FileError("\"board\" must be an object".into()));
    }
    let mut out = serde_json::Map::new();
    if let Some(id) = board.get("id") {
        out.insert("board".into(), id.clone());
    }
    if let Some(t) = board.get("title") {
        out.insert("title".into(), t.clone());
    }
    if let Some(s) = map.get("seq") {
        out.insert("seq".into(), s.clone());
    }
    out.insert(
        "objects".into(),
        map.get("objects").cloned().unwrap_or(Value::Null),
    );
    Ok(Value::Object(out))
}
