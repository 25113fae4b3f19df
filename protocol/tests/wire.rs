//! WIRE-1, WIRE-2: every message round-trips; decoding never panics and answers stable codes.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use protocol::*;
use serde_json::json;

fn client_samples() -> Vec<serde_json::Value> {
    vec![
        json!({"type":"hello","user":{"id":"u1","name":"Ann"},"token":"t","since":4}),
        json!({"type":"hello","user":{"id":"u1"}}),
        json!({"type":"commit","id":"c1","ops":[
            {"op":"create","object":{"kind":"note","x":"10","y":20,"text":"hi","color":"blue"}},
            {"op":"create","object":{"id":"s1","kind":"shape","geo":"ellipse"}},
            {"op":"create","object":{"kind":"connector","from":{"id":"s1"},"to":{"x":1,"y":2},"arrow":"both"}},
            {"op":"update","id":"s1","set":{"x":5,"parent":null,"color":"#abc"}},
            {"op":"delete","id":"s1"}
        ]}),
        json!({"type":"undo"}),
        json!({"type":"redo"}),
        json!({"type":"presence","cursor":{"x":1,"y":2},"selection":["a"],"viewport":{"x":0,"y":0,"w":10,"h":10},"following":"u2"}),
        json!({"type":"ai","id":"a1","text":"make a swot","selection":["a"],"viewport":{"x":0,"y":0,"w":10,"h":10}}),
        json!({"type":"answer","question_id":"q1","answers":{"approve":"Accept & Build"}}),
        json!({"type":"set_mode","mode":"plan"}),
        json!({"type":"ping","t":123}),
        json!({"type":"hello","user":{"id":"u1"},"comments_since":7}),
        json!({"type":"comment_thread","id":"k1","anchor":{"type":"object","object":"n1","fx":0.5,"fy":0.5},"body":"look @ann"}),
        json!({"type":"comment_reply","id":"k2","thread":"t1","body":"yes"}),
        json!({"type":"comment_edit","id":"k3","comment":"c1","body":"yes!"}),
        json!({"type":"comment_delete","id":"k4","comment":"c1"}),
        json!({"type":"comment_resolve","id":"k5","thread":"t1","resolved":true}),
        json!({"type":"comment_move","id":"k6","thread":"t1","anchor":{"type":"point","x":1,"y":2}}),
        json!({"type":"comment_react","id":"k7","comment":"c1","emoji":"👍","on":true}),
        json!({"type":"summon"}),
        json!({"type":"present","on":true}),
    ]
}

fn sample_thread() -> Thread {
    Thread {
        id: "t1".into(),
        anchor: Anchor::Point { x: 1.0, y: 2.0 },
        resolved: Some(Resolved {
            at: 5,
            by: UserId::try_from("u1").unwrap(),
        }),
        comments: vec![Comment {
            id: "c1".into(),
            author: UserId::try_from("u1").unwrap(),
            created_at_ms: 4,
            edited_at_ms: Some(5),
            body: "hi".into(),
            reactions: [("👍".to_string(), vec![UserId::try_from("u2").unwrap()])].into(),
            deleted: false,
        }],
    }
}

#[test]
fn wire_1_every_client_variant_decodes() {
    let samples = client_samples();
    let mut seen = std::collections::BTreeSet::new();
    for s in samples {
        let msg = ClientMsg::decode(&s.to_string()).unwrap_or_else(|e| panic!("{s}: {e:?}"));
        let name = s["type"].as_str().unwrap().to_string();
        seen.insert(name.clone());
        // The variant is the one named by `type`.
        let dbg = format!("{msg:?}").to_lowercase().replace('_', "");
        assert!(dbg.starts_with(&name.replace('_', "")), "{dbg} vs {name}");
    }
    assert_eq!(
        seen.len(),
        CLIENT_TYPES.len(),
        "a client type has no sample"
    );
}

fn sample_object() -> BoardObject {
    let o = ObjectInput::new(Kind::Shape).normalize(ObjectId::try_from("o1").unwrap(), 1);
    BoardObject {
        created_by: Some(UserId::try_from("u").unwrap()),
        version: 3,
        ..o
    }
}

fn server_samples() -> Vec<ServerMsg> {
    let user = UserView {
        id: UserId::try_from("u1").unwrap(),
        name: "Ann".into(),
        color: "#90CAF9".into(),
    };
    let presence = PresenceState {
        user: user.clone(),
        cursor: Some(Point { x: 1.0, y: 2.0 }),
        selection: Some(vec![ObjectId::try_from("o1").unwrap()]),
        viewport: None,
        editing: Some(ObjectId::try_from("o1").unwrap()),
        following: Some(UserId::try_from("u2").unwrap()),
    };
    let meta = AiMeta {
        route: AiRoute::Template,
        latency_ms: 1.5,
        model: None,
        input_tokens: None,
        output_tokens: Some(3),
        steps: 1,
    };
    vec![
        ServerMsg::Welcome {
            board: BoardId::try_from("b1").unwrap(),
            seq: 3,
            you: user.clone(),
            objects: Some(vec![sample_object()]),
            users: vec![presence.clone()],
            mode: Mode::Build,
            role: Role::Editor,
            title: "Roadmap".into(),
            cseq: 2,
            presenter: Some(UserId::try_from("u2").unwrap()),
            threads: vec![sample_thread()],
            threads_cut: true,
        },
        ServerMsg::Summoned {
            by: UserId::try_from("u2").unwrap(),
            viewport: protocol::Viewport {
                x: 1.0,
                y: 2.0,
                w: 800.0,
                h: 600.0,
            },
        },
        ServerMsg::PresentationChanged { presenter: None },
        ServerMsg::CommentsChanged {
            cseq: 3,
            threads: vec![sample_thread()],
        },
        ServerMsg::RoleChanged { role: Role::Viewer },
        ServerMsg::RoleChanged {
            role: Role::Commenter,
        },
        ServerMsg::TitleChanged {
            title: "Q3 plan".into(),
        },
        ServerMsg::Applied {
            seq: 4,
            command: Command {
                id: "cmd".into(),
                author: user.id.clone(),
                origin: Origin::Ai,
                client_id: Some("c1".into()),
                ops: vec![
                    Op::Create {
                        object: sample_object(),
                    },
                    Op::Update {
                        id: ObjectId::try_from("o1").unwrap(),
                        set: Patch {
                            x: Some(4.0),
                            parent: Some(None),
                            ..Patch::default()
                        },
                    },
                    Op::Delete {
                        id: ObjectId::try_from("o1").unwrap(),
                    },
                ],
            },
        },
        ServerMsg::Ack {
            id: "c1".into(),
            seq: 4,
            cseq: None,
            thread: None,
            comment: None,
        },
        ServerMsg::Ack {
            id: "k1".into(),
            seq: 4,
            cseq: Some(3),
            thread: Some("t1".into()),
            comment: Some("c1".into()),
        },
        ServerMsg::Rejected {
            id: "c2".into(),
            error: ErrorBody::new(ErrorCode::NotFound, "no object with id x"),
        },
        ServerMsg::Presence { state: presence },
        ServerMsg::Joined { user: user.clone() },
        ServerMsg::Left { user },
        ServerMsg::AiStatus {
            id: "a1".into(),
            state: AiState::Queued,
        },
        ServerMsg::AiResult {
            id: "a1".into(),
            outcome: AiOutcome::Error,
            message: "no".into(),
            seq: Some(5),
            created: vec![ObjectId::try_from("o1").unwrap()],
            suggestions: vec!["try this".into()],
            error: Some(AiError {
                category: AiErrorCategory::ServiceUnavailable,
                message: "429".into(),
            }),
            meta,
            plan: None,
        },
        ServerMsg::Question {
            question_id: "q1".into(),
            questions: vec![QuestionItem {
                name: "approve".into(),
                question: "Build it?".into(),
                schema: json!({"type":"string","enum":["Accept & Build","Revise"]}),
                buttons: Some(vec![protocol::QuestionButton {
                    label: "Accept & Build".into(),
                    value: json!("Accept & Build"),
                    variant: Some("primary".into()),
                }]),
            }],
            created_at: 17,
        },
        ServerMsg::ModeChanged {
            mode: Mode::Plan,
            plan_file: Some("/plans/x.plan".into()),
        },
        ServerMsg::error(ErrorCode::TooLarge, "frame too large"),
        ServerMsg::Pong { t: Some(json!(5)) },
    ]
}

#[test]
fn wire_1_every_server_variant_round_trips() {
    for m in server_samples() {
        let text = m.to_json();
        let back: ServerMsg = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, m, "{text}");
    }
}

#[test]
fn wire_1_presence_is_flat_on_the_wire() {
    let m = server_samples()
        .into_iter()
        .find(|m| matches!(m, ServerMsg::Presence { .. }))
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&m.to_json()).unwrap();
    assert_eq!(v["type"], "presence");
    assert_eq!(v["user"]["id"], "u1");
    assert_eq!(v["cursor"]["x"], 1.0);
}

#[test]
fn wire_1_error_codes_are_stable_words() {
    for c in ErrorCode::ALL {
        assert_eq!(serde_json::to_value(c).unwrap(), json!(c.as_str()));
    }
}

#[test]
fn wire_2_decode_errors_have_codes() {
    let code = |s: &str| ClientMsg::decode(s).unwrap_err().code;
    assert_eq!(code("{"), ErrorCode::BadJson);
    assert_eq!(code("[1]"), ErrorCode::BadJson);
    assert_eq!(code("{}"), ErrorCode::UnknownType);
    assert_eq!(code(r#"{"type":5}"#), ErrorCode::UnknownType);
    assert_eq!(code(r#"{"type":"launch"}"#), ErrorCode::UnknownType);
    assert_eq!(code(r#"{"type":"commit"}"#), ErrorCode::Invalid);
    assert_eq!(
        code(r#"{"type":"commit","id":"c","ops":[{"op":"melt","id":"x"}]}"#),
        ErrorCode::Invalid
    );
    assert_eq!(
        code(r#"{"type":"commit","id":"c","ops":[{"op":"update","id":"x","set":{"x":"NaN"}}]}"#),
        ErrorCode::Invalid
    );
    assert_eq!(
        code(r#"{"type":"commit","id":"c","ops":[{"op":"update","id":"bad id","set":{"x":1}}]}"#),
        ErrorCode::Invalid
    );
    assert_eq!(
        code(r#"{"type":"hello","user":{"id":""}}"#),
        ErrorCode::Invalid
    );
    assert_eq!(
        code(r#"{"type":"set_mode","mode":"chaos"}"#),
        ErrorCode::Invalid
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn wire_2_arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = ClientMsg::decode(&text);
    }

    #[test]
    fn wire_2_arbitrary_json_never_panics(v in arb_json(), ty in prop::sample::select(CLIENT_TYPES.to_vec())) {
        let _ = ClientMsg::decode(&v.to_string());
        // Also with a known type on top, which reaches the typed decoders.
        if let serde_json::Value::Object(mut m) = v {
            m.insert("type".into(), json!(ty));
            let _ = ClientMsg::decode(&serde_json::Value::Object(m).to_string());
        }
    }
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|n| json!(n)),
        "[a-z0-9_ -]{0,12}".prop_map(serde_json::Value::String),
        prop::sample::select(vec![
            "note",
            "shape",
            "frame",
            "connector",
            "create",
            "update",
            "delete",
            "NaN",
            "100",
            "x",
            "id",
            "ops",
            "set"
        ])
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "type", "op", "id", "ops", "object", "kind", "set", "x", "y", "w", "from",
                    "to", "user", "since", "parent", "text", "color", "mode", "answers"
                ])
                .prop_map(String::from),
                inner,
                0..6
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

/// WIRE-6: `presence.editing`: an object id starts, `null` stops, absent leaves it as it is; an
/// id outside the id rule is `invalid`; the relayed state carries it flat.
#[test]
fn wire_6_presence_editing_field() {
    let editing = |s: &str| match ClientMsg::decode(s) {
        Ok(ClientMsg::Presence { editing, .. }) => Ok(editing),
        Ok(other) => panic!("{other:?}"),
        Err(e) => Err(e.code),
    };
    let o1 = ObjectId::try_from("o1").unwrap();
    assert_eq!(
        editing(r#"{"type":"presence","editing":"o1"}"#),
        Ok(Some(Some(o1.clone())))
    );
    assert_eq!(
        editing(r#"{"type":"presence","editing":null}"#),
        Ok(Some(None))
    );
    assert_eq!(
        editing(r#"{"type":"presence","cursor":{"x":1,"y":2}}"#),
        Ok(None)
    );
    let long = json!({"type":"presence","editing":"x".repeat(65)}).to_string();
    assert_eq!(editing(&long), Err(ErrorCode::Invalid));
    assert_eq!(
        editing(r#"{"type":"presence","editing":5}"#),
        Err(ErrorCode::Invalid)
    );
    let state = PresenceState {
        user: UserView {
            id: UserId::try_from("u1").unwrap(),
            name: "Ann".into(),
            color: "#000000".into(),
        },
        cursor: None,
        selection: None,
        viewport: None,
        editing: Some(o1),
        following: None,
    };
    let v = serde_json::to_value(ServerMsg::Presence { state }).unwrap();
    assert_eq!(v["editing"], "o1");
}

#[test]
fn wire_4_presence_size_selection_count_and_client_id_length() {
    let code = |s: &str| ClientMsg::decode(s).unwrap_err().code;
    // A presence frame is refused by its length, whatever it holds.
    let pad = "x".repeat(MAX_PRESENCE_BYTES);
    assert_eq!(
        code(&json!({"type":"presence","pad":pad}).to_string()),
        ErrorCode::TooLarge
    );
    let ids: Vec<String> = (0..200_000).map(|i| format!("o{i}")).collect();
    let huge = json!({"type":"presence","selection":ids}).to_string();
    assert!(huge.len() > 1_000_000);
    assert_eq!(code(&huge), ErrorCode::TooLarge);
    // Selections: at most 1,000 ids.
    let sel = |n: usize| -> Vec<String> { (0..n).map(|i| format!("o{i}")).collect() };
    let ai = |n: usize| json!({"type":"ai","id":"a","text":"t","selection":sel(n)}).to_string();
    assert!(ClientMsg::decode(&ai(MAX_SELECTION)).is_ok());
    assert_eq!(code(&ai(MAX_SELECTION + 1)), ErrorCode::TooLarge);
    // Client-chosen ids: at most 128 characters (not bytes).
    let id = |n: usize, c: &str| c.repeat(n);
    type Frame = fn(&str) -> serde_json::Value;
    let frames: [(&str, Frame); 3] = [
        ("commit", |i| json!({"type":"commit","id":i,"ops":[]})),
        ("ai", |i| json!({"type":"ai","id":i,"text":"t"})),
        (
            "answer",
            |i| json!({"type":"answer","question_id":i,"answers":{}}),
        ),
    ];
    for (ty, frame) in frames {
        let ok = frame(&id(MAX_CLIENT_ID_LEN, "é")).to_string();
        assert!(ClientMsg::decode(&ok).is_ok(), "{ty}");
        let long = frame(&id(MAX_CLIENT_ID_LEN + 1, "c")).to_string();
        assert_eq!(code(&long), ErrorCode::Invalid, "{ty}");
    }
}
