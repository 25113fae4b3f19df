//! AUTH-6: every role × every client message.

use super::*;

/// One of each client message but `hello`, and how a viewer's is answered.
fn messages() -> Vec<(&'static str, Value)> {
    vec![
        (
            "commit",
            json!({"type":"commit","id":"c-x","ops":[note("x", 0.0, 0.0)]}),
        ),
        ("undo", json!({"type":"undo"})),
        ("redo", json!({"type":"redo"})),
        (
            "ai",
            json!({"type":"ai","id":"ai-1","text":"create a yellow sticky note"}),
        ),
        (
            "answer",
            json!({"type":"answer","question_id":"q-none","answers":{}}),
        ),
        ("set_mode", json!({"type":"set_mode","mode":"plan"})),
        (
            "presence",
            json!({"type":"presence","cursor":{"x":1,"y":2},"editing":"n1"}),
        ),
        ("ping", json!({"type":"ping","t":7})),
    ]
}

/// Sends `m` and then an empty commit `fence` that the board refuses (`forbidden` for a viewer,
/// `invalid` otherwise); returns what came back before that refusal. The board answers one
/// connection's requests in order, and the connection answers `ping` itself, before.
async fn answers_to(c: &mut Client, m: Value) -> Vec<Value> {
    c.send(m).await;
    c.send(json!({"type":"commit","id":"fence","ops":[]})).await;
    let mut answers = vec![];
    loop {
        let a = c.next().await;
        if a["type"] == "rejected" && a["id"] == "fence" {
            return answers;
        }
        answers.push(a);
    }
}

/// Whether `v` is a `forbidden` answer (error or rejected).
fn is_forbidden(v: &Value) -> bool {
    v["code"] == "forbidden" || v["error"]["code"] == "forbidden"
}

#[tokio::test]
async fn auth_6_a_viewer_sees_everything_and_may_only_send_presence_and_ping() {
    let s = start(auth_config()).await;
    let mut ed = Client::join(s.addr, "b1", "ed").await;
    ed.commit("c1", json!([note("n1", 0.0, 0.0)])).await;
    let mut v = Client::join_as(s.addr, "b1", "vi", "viewer").await;
    assert_eq!(v.welcome["role"], "viewer");
    assert_eq!(v.welcome["objects"].as_array().unwrap().len(), 1);
    for (ty, m) in messages() {
        let answers = answers_to(&mut v, m).await;
        match ty {
            "commit" => {
                assert_eq!(answers.len(), 1, "{ty}: {answers:?}");
                assert_eq!(answers[0]["type"], "rejected");
                assert_eq!(answers[0]["id"], "c-x");
                assert!(is_forbidden(&answers[0]));
            }
            "ping" => assert_eq!(answers[0]["type"], "pong", "{answers:?}"),
            "presence" => {
                assert!(answers.is_empty(), "{answers:?}");
                // Others see the viewer's cursor, never the viewer as editing (WIRE-6).
                let p = ed.until_type("presence").await;
                assert_eq!(p["user"]["id"], "vi");
                assert!(p.get("editing").is_none(), "{p}");
            }
            _ => {
                // The connection is kept (the fence was answered).
                assert_eq!(answers.len(), 1, "{ty}: {answers:?}");
                assert_eq!(answers[0]["type"], "error", "{ty}");
                assert!(is_forbidden(&answers[0]), "{ty}");
            }
        }
    }
    // Nothing the viewer sent changed the board, and it still receives others' edits.
    ed.commit("c2", json!([note("n2", 10.0, 0.0)])).await;
    let a = v.until_type("applied").await;
    assert_eq!(a["seq"], 2);
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_6_editors_and_owners_may_send_every_message() {
    let s = start(auth_config()).await;
    for role in ["editor", "owner"] {
        let board = format!("b-{role}");
        let mut c = Client::join_as(s.addr, &board, role, role).await;
        assert_eq!(c.welcome["role"], role);
        for (ty, m) in messages() {
            let answers = answers_to(&mut c, m).await;
            assert!(
                !answers.iter().any(is_forbidden),
                "{role} {ty}: {answers:?}"
            );
            if ty == "commit" {
                assert!(
                    answers.iter().any(|a| a["type"] == "applied"),
                    "{answers:?}"
                );
            }
        }
    }
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_5_a_board_token_with_editor_creates_a_board_and_its_sub_owns_it() {
    let s = start(auth_config()).await;
    // A viewer token cannot create it …
    let t = sign(&claims("vi", "fresh", "viewer"), SECRET);
    let seen = exchange(
        s.addr,
        "fresh",
        &[],
        vec![hello("vi", Some(&t))],
        Duration::from_secs(2),
    )
    .await;
    assert_eq!(seen.close, Some(4003));
    // … an editor token can, and then the viewer gets in.
    let c = Client::join_as(s.addr, "fresh", "ed", "editor").await;
    assert_eq!(c.welcome["title"], "fresh");
    let v = Client::join_with(s.addr, "fresh", "vi", Some(&t)).await;
    assert_eq!(v.welcome["role"], "viewer");
    s.shutdown().await.unwrap();
}
