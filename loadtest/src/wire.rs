//! What the simulated clients put on the wire, and a light decoder for what comes back.
//!
//! Client messages are built with `serde_json::json!` (the protocol crate's `ClientMsg` is
//! Deserialize-only). Incoming frames are decoded into [`Incoming`], which reads only the fields
//! the load test needs, so a client spends as little time as possible per frame; `--strict` also
//! decodes every frame with `protocol::ServerMsg` to check conformance.
//!
//! The send time of every commit travels in its client id (`lt-{client}-{n}-{micros}`), which the
//! server echoes as `command.client_id`: all clients share one process and one clock, so a
//! receiver computes fan-out latency without any side channel.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;

/// The parts of a load-test commit id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIdParts {
    /// The sender's index on its board.
    pub client: u32,
    /// The sender's commit counter (0 = setup create).
    pub n: u64,
    /// Send time, microseconds since the run's epoch.
    pub t_us: u64,
}

/// Builds a commit / AI id that carries the sender and the send time.
pub fn encode_id(client: u32, n: u64, t_us: u64) -> String {
    format!("lt-{client}-{n}-{t_us}")
}

/// Parses an id made by [`encode_id`]; `None` for any other id.
pub fn decode_id(s: &str) -> Option<ClientIdParts> {
    let rest = s.strip_prefix("lt-")?;
    let mut it = rest.splitn(3, '-');
    let client = it.next()?.parse().ok()?;
    let n = it.next()?.parse().ok()?;
    let t_us = it.next()?.parse().ok()?;
    Some(ClientIdParts { client, n, t_us })
}

/// `hello`, with `since` on a resume.
pub fn hello(user_id: &str, name: &str, since: Option<u64>) -> String {
    let mut v = json!({"type": "hello", "user": {"id": user_id, "name": name}});
    if let Some(s) = since {
        v["since"] = json!(s);
    }
    v.to_string()
}

/// `hello` carrying a board token when there is one.
pub fn hello_with_token(
    user_id: &str,
    name: &str,
    since: Option<u64>,
    token: Option<&str>,
) -> String {
    let mut v = json!({"type": "hello", "user": {"id": user_id, "name": name}});
    if let Some(s) = since {
        v["since"] = json!(s);
    }
    if let Some(t) = token {
        v["token"] = json!(t);
    }
    v.to_string()
}

/// A commit creating one note.
pub fn create_note(id: &str, x: f64, y: f64, text: &str) -> String {
    json!({"type": "commit", "id": id, "ops": [
        {"op": "create", "object": {"kind": "note", "x": x, "y": y, "text": text}}
    ]})
    .to_string()
}

/// A commit moving one object.
pub fn move_object(id: &str, object: &str, x: f64, y: f64) -> String {
    json!({"type": "commit", "id": id, "ops": [
        {"op": "update", "id": object, "set": {"x": x, "y": y}}
    ]})
    .to_string()
}

/// A commit moving one object and setting its text (larger frames for memory tests).
pub fn move_object_with_text(id: &str, object: &str, x: f64, y: f64, text: &str) -> String {
    json!({"type": "commit", "id": id, "ops": [
        {"op": "update", "id": object, "set": {"x": x, "y": y, "text": text}}
    ]})
    .to_string()
}

/// A commit deleting one object.
pub fn delete_object(id: &str, object: &str) -> String {
    json!({"type": "commit", "id": id, "ops": [{"op": "delete", "id": object}]}).to_string()
}

/// A cursor update.
pub fn presence(x: f64, y: f64) -> String {
    json!({"type": "presence", "cursor": {"x": x, "y": y}}).to_string()
}

/// An AI command (a template the router answers without an LLM).
pub fn ai(id: &str, text: &str) -> String {
    json!({"type": "ai", "id": id, "text": text}).to_string()
}

/// What a client reads from each server frame.
#[derive(Debug, Deserialize)]
pub struct Incoming {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub seq: Option<u64>,
    #[serde(default)]
    pub command: Option<InCommand>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub error: Option<InError>,
    #[serde(default)]
    pub objects: Option<IgnoredAny>,
    #[serde(default)]
    pub outcome: Option<String>,
}

/// `applied.command`, reduced.
#[derive(Debug, Deserialize)]
pub struct InCommand {
    pub author: String,
    #[serde(default)]
    pub client_id: Option<String>,
    #[serde(default)]
    pub ops: Vec<InOp>,
}

/// One op of an `applied`, reduced to what names objects.
#[derive(Debug, Deserialize)]
pub struct InOp {
    pub op: String,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub object: Option<InObject>,
}

/// A created object, reduced to its id.
#[derive(Debug, Deserialize)]
pub struct InObject {
    pub id: String,
}

/// `rejected.error` (`code`) or `ai_result.error` (`category`).
#[derive(Debug, Deserialize)]
pub struct InError {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
}

impl InError {
    /// The code or category, whichever is present.
    pub fn word(&self) -> &str {
        self.code
            .as_deref()
            .or(self.category.as_deref())
            .unwrap_or("unknown")
    }
}

/// An `applied` frame read without decoding it: its seq and the commit id that carries the
/// sender and the send time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppliedPeek {
    pub seq: u64,
    pub parts: ClientIdParts,
}

/// Reads `seq` and a load-test `client_id` out of an `applied` frame by searching for their keys,
/// without building a value: a client reading another client's move needs nothing else, and
/// this is most of what a load-test client receives. `None` for any other frame (or an
/// `applied` without a load-test commit id): decode it with [`decode`].
///
/// Searching is safe for keys: inside a JSON string every `"` is escaped, so `"seq":` or
/// `"client_id":"` can only match where that key really stands. Neither key occurs anywhere
/// else in an `applied` (objects have no `seq` or `client_id` property), and the search does not
/// depend on the order of the keys (the server writes them in struct order, the relay sorted).
///
/// The keys are searched with finders built once (SIMD `memmem`): at 1 board × 50 clients a
/// load-test process reads about a million frames a second, and building a substring searcher
/// per search cost a fifth of its CPU.
pub fn peek_applied(text: &str) -> Option<AppliedPeek> {
    use memchr::memmem::Finder;
    use std::sync::LazyLock;
    static APPLIED: LazyLock<Finder<'static>> =
        LazyLock::new(|| Finder::new(br#""type":"applied""#));
    static SEQ: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""seq":"#));
    static CLIENT_ID: LazyLock<Finder<'static>> =
        LazyLock::new(|| Finder::new(br#""client_id":""#));
    let bytes = text.as_bytes();
    APPLIED.find(bytes)?;
    let after = |key: &Finder<'static>| key.find(bytes).map(|i| &bytes[i + key.needle().len()..]);
    let seq_text = after(&SEQ)?;
    let digits = seq_text.iter().take_while(|b| b.is_ascii_digit()).count();
    let seq = std::str::from_utf8(&seq_text[..digits])
        .ok()?
        .parse()
        .ok()?;
    let id_text = after(&CLIENT_ID)?;
    let id = &id_text[..memchr::memchr(b'"', id_text)?];
    Some(AppliedPeek {
        seq,
        parts: decode_id(std::str::from_utf8(id).ok()?)?,
    })
}

/// Decodes one frame.
pub fn decode(text: &str) -> Result<Incoming, serde_json::Error> {
    serde_json::from_str(text)
}

/// Checks a frame against the protocol crate's `ServerMsg`.
pub fn conforms(text: &str) -> bool {
    serde_json::from_str::<protocol::ServerMsg>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_are_valid_protocol_ids() {
        let id = encode_id(17, 42, 1_234_567);
        assert_eq!(
            decode_id(&id),
            Some(ClientIdParts {
                client: 17,
                n: 42,
                t_us: 1_234_567
            })
        );
        assert!(protocol::ids::check_id(&id).is_ok());
        assert_eq!(decode_id("abc"), None);
        assert_eq!(decode_id("lt-1-2"), None);
        assert_eq!(decode_id("lt-x-2-3"), None);
    }

    #[test]
    fn built_messages_decode_as_client_messages() {
        for text in [
            hello("u1", "Ann", None),
            hello("u1", "Ann", Some(7)),
            create_note("lt-0-0-1", 1.0, 2.0, "hi"),
            move_object("lt-0-1-2", "obj-1", 3.0, 4.0),
            delete_object("lt-0-2-3", "obj-1"),
            presence(5.0, 6.0),
            ai("lt-0-3-4", "create a SWOT analysis"),
        ] {
            assert!(protocol::ClientMsg::decode(&text).is_ok(), "{text}");
        }
    }

    #[test]
    fn peek_reads_applied_in_either_key_order() {
        let ours = r#"{"type":"applied","seq":31,"command":{"id":"c","author":"u","origin":"user","client_id":"lt-1-2-3","ops":[{"op":"update","id":"n","set":{"x":1,"y":2}}]}}"#;
        let relay = r#"{"command":{"author":"u","client_id":"lt-4-5-6","id":"c9","ops":[],"origin":"user"},"seq":9,"type":"applied"}"#;
        let p = |client, n, t_us| ClientIdParts { client, n, t_us };
        assert_eq!(
            peek_applied(ours),
            Some(AppliedPeek {
                seq: 31,
                parts: p(1, 2, 3)
            })
        );
        assert_eq!(
            peek_applied(relay),
            Some(AppliedPeek {
                seq: 9,
                parts: p(4, 5, 6)
            })
        );
        // Agrees with the full decoder on what it reads.
        let m = decode(ours).unwrap();
        assert_eq!(m.seq, Some(31));
        assert_eq!(m.command.unwrap().client_id.as_deref(), Some("lt-1-2-3"));
    }

    #[test]
    fn peek_leaves_every_other_frame_to_the_decoder() {
        for text in [
            r#"{"type":"welcome","seq":9,"users":[]}"#,
            r#"{"type":"ack","id":"lt-1-2-3","seq":4}"#,
            r#"{"type":"applied","seq":3,"command":{"id":"c","author":"ai","origin":"ai","ops":[]}}"#,
            r#"{"type":"applied","seq":3,"command":{"id":"c","author":"u","origin":"user","client_id":"web-1","ops":[]}}"#,
            // A note whose text looks like the keys: escaped quotes never match.
            r#"{"type":"applied","command":{"ops":[{"op":"create","object":{"text":"\"seq\":1 \"client_id\":\"lt-1-2-3\""}}]}}"#,
        ] {
            assert_eq!(peek_applied(text), None, "{text}");
        }
    }

    #[test]
    fn incoming_reads_applied_and_welcome() {
        let a = r#"{"type":"applied","seq":3,"command":{"id":"c","author":"u","origin":"user","client_id":"lt-1-2-3","ops":[{"op":"create","object":{"id":"o1","kind":"note"}}]}}"#;
        let m = decode(a).unwrap();
        assert_eq!(m.kind, "applied");
        assert_eq!(m.seq, Some(3));
        let c = m.command.unwrap();
        assert_eq!(c.client_id.as_deref(), Some("lt-1-2-3"));
        assert_eq!(c.ops[0].object.as_ref().unwrap().id, "o1");
        let w = decode(r#"{"type":"welcome","seq":9,"objects":[],"users":[]}"#).unwrap();
        assert!(w.objects.is_some());
        let w = decode(r#"{"type":"welcome","seq":9,"users":[]}"#).unwrap();
        assert!(w.objects.is_none());
    }
}
