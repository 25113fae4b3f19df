//! Cases the fuzz driver (`protocol/examples/fuzz/`) found, kept as plain tests.
#![allow(clippy::unwrap_used)]

use protocol::*;
use serde_json::json;

fn ops(v: serde_json::Value) -> Vec<OpInput> {
    serde_json::from_value(v).unwrap()
}

/// CMD-5, UNDO-1: a frame holds a note and a connector bound to that note whose id sorts before
/// the note's ("c…" < "n…"). Deleting the frame removes the connector before the note it is bound
/// to, so undo (which restores in reverse order) brings the note back before the connector and
/// the connector with it, whatever the ids.
#[test]
fn cmd_5_undo_1_frame_delete_removes_connectors_inside_it_first_and_undo_restores_them() {
    for (note, conn) in [("n1", "c1"), ("a1", "z1")] {
        let mut b = BoardState::default();
        let u = UserId::try_from("u1").unwrap();
        b.apply(
            &ops(json!([
                {"op":"create","object":{"id":"f","kind":"frame"}},
                {"op":"create","object":{"id":note,"kind":"note","parent":"f"}},
                {"op":"create","object":{"id":"m","kind":"note","x":900}},
                {"op":"create","object":{"id":conn,"kind":"connector","parent":"f",
                    "from":{"id":note},"to":{"id":"m"}}}
            ])),
            &u,
            1,
        )
        .unwrap();
        let before: Vec<BoardObject> = b.sorted_objects().into_iter().cloned().collect();
        let out = b
            .apply(&ops(json!([{"op":"delete","id":"f"}])), &u, 2)
            .unwrap();
        let order: Vec<&str> = out.ops.iter().map(|o| o.object_id().as_str()).collect();
        assert_eq!(
            order,
            [conn, note, "f"],
            "connectors, children, then the frame"
        );
        let undo = b.revert(&out.changes, 3);
        b.check_invariants().unwrap();
        assert_eq!(undo.ops.len(), 3, "{undo:?}");
        let after: Vec<BoardObject> = b
            .sorted_objects()
            .into_iter()
            .map(|o| BoardObject {
                version: before.iter().find(|p| p.id == o.id).unwrap().version,
                ..o.clone()
            })
            .collect();
        assert_eq!(before, after);
    }
}
