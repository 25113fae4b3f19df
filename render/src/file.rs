//! The board file format (`docs/FILES.md`, schema `docs/board-file.schema.json`), version 1:
//! `{"format": "board", "version": 1, "board": {"id", "title"}, "seq", "exported_at",
//! "objects": [...]}`; objects are board objects as `GET /api/boards/{id}` returns them.
//! Version 2 adds the pictures its images show: `"pictures": [{"sha256", "mime", "data"}]`,
//! `data` in base64. A file without pictures is written as version 1, so older readers read it.

use protocol::{BoardObject, ObjectInput};
use serde_json::{Value, json};

/// The `format` word of a board file.
pub const FORMAT: &str = "board";
/// The newest version this code writes and reads.
pub const VERSION: u64 = 2;

/// A picture inside a board file (version 2): its SHA-256 as the file names it, its type, and
/// its bytes in base64 (the reader checks the hash).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilePicture {
    pub sha256: String,
    pub mime: String,
    pub data: String,
}

/// A board file refused, with a message fit for the person who sent it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FileError(pub String);

/// Where a board file comes from: the board's id and title, its last durable seq, and when it
/// was written (milliseconds since the Unix epoch).
pub struct Origin<'a> {
    pub board: &'a str,
    pub title: &'a str,
    pub seq: u64,
    pub exported_at: i64,
}

/// A board file of `objects` and the pictures they show: version 2 with pictures, else 1.
pub fn write(from: &Origin<'_>, objects: &[BoardObject], pictures: &[FilePicture]) -> Value {
    let mut doc = json!({
        "format": FORMAT,
        "version": if pictures.is_empty() { 1 } else { VERSION },
        "board": {"id": from.board, "title": from.title},
        "seq": from.seq,
        "exported_at": from.exported_at,
        "objects": objects,
    });
    if !pictures.is_empty() {
        doc["pictures"] = json!(pictures);
    }
    doc
}

/// What an import takes from a file.
#[derive(Debug)]
pub struct Parsed {
    pub title: Option<String>,
    pub objects: Vec<ObjectInput>,
    pub pictures: Vec<FilePicture>,
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
    let pictures = pictures(&doc)?;
    Ok(Parsed {
        title,
        objects,
        pictures,
    })
}

/// The pictures of a (normalized) file: none for version 1 and the older shape.
pub fn pictures(doc: &Value) -> Result<Vec<FilePicture>, FileError> {
    let Some(raw) = doc.get("pictures") else {
        return Ok(Vec::new());
    };
    let Value::Array(raw) = raw else {
        return Err(FileError("\"pictures\" must be an array".into()));
    };
    raw.iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value(v.clone()).map_err(|e| {
                FileError(format!(
                    "picture {i}: {}",
                    protocol::public::serde_message(&e)
                ))
            })
        })
        .collect()
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
    let version = match map.get("version").and_then(Value::as_u64) {
        Some(v @ 1..=VERSION) => v,
        Some(v) if v > VERSION => {
            return Err(FileError(format!(
                "board file version {v} is newer than this server reads ({VERSION})"
            )));
        }
        _ => return Err(FileError("\"version\" must be 1 or 2".into())),
    };
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
    if version >= 2 {
        let pictures = map.get("pictures").cloned();
        out.insert("pictures".into(), pictures.unwrap_or(Value::Array(vec![])));
    }
    Ok(Value::Object(out))
}
