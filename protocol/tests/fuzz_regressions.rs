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

/// UNDO-3, CMD-8: a note `x` with a connector `c` bound to it is deleted, and a connector is then
/// created under the id `x`. Undoing the delete must not bring `c` back bound to that connector
/// (a connector's end is never a connector): it would be left pointing at nothing once `x` goes,
/// since deletes cascade to connectors bound to the objects removed, not to connectors bound to
/// connectors.
#[test]
fn undo_3_undo_does_not_bind_a_connector_to_a_connector_that_reused_an_id() {
    let mut b = BoardState::default();
    let u = UserId::try_from("u1").unwrap();
    let mut seq = 0;
    let mut commit = |b: &mut BoardState, v: serde_json::Value| {
        seq += 1;
        let out = b.apply(&ops(v), &u, seq).unwrap();
        b.check_invariants().unwrap();
        out
    };
    commit(
        &mut b,
        json!([
            {"op":"create","object":{"id":"x","kind":"note"}},
            {"op":"create","object":{"id":"m","kind":"note","x":900}},
            {"op":"create","object":{"id":"c","kind":"connector","from":{"id":"x"},"to":{"id":"m"}}}
        ]),
    );
    let deleted = commit(&mut b, json!([{"op":"delete","id":"x"}]));
    assert_eq!(deleted.ops.len(), 2, "the connector goes with its end");
    commit(
        &mut b,
        json!([{"op":"create","object":{"id":"x","kind":"connector",
            "from":{"id":"m"},"to":{"x":5,"y":5}}}]),
    );
    // Undo of the delete: `x` exists (another object now), and `c` would be bound to a connector.
    b.revert_undo(&UndoChange::compact(&deleted.changes), 10);
    b.check_invariants().unwrap();
    assert!(b.get("c").is_none(), "{:?}", b.get("c"));
    // Deleting the new `x` leaves nothing pointing at it.
    b.apply(&ops(json!([{"op":"delete","id":"x"}])), &u, 11)
        .unwrap();
    b.check_invariants().unwrap();
}
