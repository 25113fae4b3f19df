//! CMD-*, UNDO-* rules at the document level (the server tests repeat them over WebSockets).
#![allow(clippy::unwrap_used)]

use protocol::*;
use serde_json::json;

fn ops(v: serde_json::Value) -> Vec<OpInput> {
    serde_json::from_value(v).unwrap()
}

fn user(s: &str) -> UserId {
    UserId::try_from(s).unwrap()
}

fn ok(b: &mut BoardState, v: serde_json::Value, seq: Seq) -> Outcome {
    let out = b.apply(&ops(v), &user("u1"), seq).unwrap();
    b.check_invariants().unwrap();
    out
}

fn frame_with_child(b: &mut BoardState) {
    ok(
        b,
        json!([
            {"op":"create","object":{"id":"f","kind":"frame","x":0,"y":0,"w":500,"h":400,"text":"F"}},
            {"op":"create","object":{"id":"n","kind":"note","x":50,"y":60,"parent":"f"}},
            {"op":"create","object":{"id":"m","kind":"note","x":900,"y":0}},
            {"op":"create","object":{"id":"c","kind":"connector","from":{"id":"n"},"to":{"id":"m"}}}
        ]),
        1,
    );
}

#[test]
fn cmd_1_commit_is_atomic() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    let before: Vec<BoardObject> = b.sorted_objects().into_iter().cloned().collect();
    let err = b
        .apply(
            &ops(json!([
                {"op":"update","id":"n","set":{"x":1}},
                {"op":"delete","id":"f"},
                {"op":"create","object":{"kind":"note"}},
                {"op":"update","id":"ghost","set":{"x":1}}
            ])),
            &user("u1"),
            2,
        )
        .unwrap_err();
    assert_eq!(
        err,
        ApplyError::NotFound(ObjectId::try_from("ghost").unwrap())
    );
    assert_eq!(err.code(), ErrorCode::NotFound);
    let after: Vec<BoardObject> = b.sorted_objects().into_iter().cloned().collect();
    assert_eq!(before, after);
    b.check_invariants().unwrap();
}

#[test]
fn cmd_4_frame_move_carries_children_in_the_same_command() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    let out = ok(
        &mut b,
        json!([{"op":"update","id":"f","set":{"x":100,"y":"10"}}]),
        2,
    );
    assert_eq!(out.ops.len(), 2);
    assert_eq!(b.get("n").unwrap().x, 150.0);
    assert_eq!(b.get("n").unwrap().y, 70.0);
    assert_eq!(b.get("n").unwrap().version, 2);
    assert!(
        matches!(&out.ops[1], Op::Update { id, set } if id.as_str() == "n" && set.x == Some(150.0))
    );
}

#[test]
fn cmd_5_delete_cascades_children_and_bound_connectors() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    let out = ok(
        &mut b,
        json!([{"op":"delete","id":"f"},{"op":"delete","id":"n"}]),
        2,
    );
    let deleted: Vec<&str> = out.ops.iter().map(|o| o.object_id().as_str()).collect();
    assert_eq!(deleted, vec!["c", "n", "f"]);
    assert_eq!(b.len(), 1);
    let mut b2 = BoardState::default();
    frame_with_child(&mut b2);
    let out = ok(&mut b2, json!([{"op":"delete","id":"m"}]), 2);
    assert_eq!(out.ops.len(), 2, "the connector bound to m goes with it");
}

#[test]
fn cmd_8_references_are_checked() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    let bad = [
        json!([{"op":"create","object":{"kind":"note","parent":"m"}}]),
        json!([{"op":"create","object":{"kind":"note","parent":"nope"}}]),
        json!([{"op":"update","id":"f","set":{"parent":"f"}}]),
        json!([{"op":"create","object":{"id":"g","kind":"frame","parent":"f"}},{"op":"update","id":"f","set":{"parent":"g"}}]),
        json!([{"op":"create","object":{"kind":"connector","from":{"id":"c"},"to":{"id":"m"}}}]),
        json!([{"op":"create","object":{"kind":"connector","from":{"id":"m"}}}]),
        json!([{"op":"create","object":{"id":"m","kind":"note"}}]),
        json!([{"op":"update","id":"m","set":{}}]),
    ];
    for v in bad {
        let n = b.len();
        assert!(b.apply(&ops(v.clone()), &user("u1"), 2).is_err(), "{v}");
        assert_eq!(b.len(), n);
        b.check_invariants().unwrap();
    }
}

#[test]
fn lim_3_objects_per_board() {
    let mut b = BoardState::new(3);
    let err = b
        .apply(
            &ops(json!([{"op":"create","object":{"kind":"note"}},{"op":"create","object":{"kind":"note"}},{"op":"create","object":{"kind":"note"}},{"op":"create","object":{"kind":"note"}}])),
            &user("u1"),
            1,
        )
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::LimitExceeded);
    assert!(b.is_empty());
}

#[test]
fn undo_2_revert_leaves_later_changes_by_others() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    let mine = ok(
        &mut b,
        json!([{"op":"update","id":"m","set":{"x":1000,"color":"red"}}]),
        2,
    );
    // Someone else recolors m afterwards.
    b.apply(
        &ops(json!([{"op":"update","id":"m","set":{"color":"green"}}])),
        &user("u2"),
        3,
    )
    .unwrap();
    let undo = b.revert(&mine.changes, 4);
    b.check_invariants().unwrap();
    let m = b.get("m").unwrap();
    assert_eq!(m.x, 900.0, "my move is undone");
    assert_eq!(m.color, "#A5D6A7", "their later color stays");
    assert_eq!(undo.ops.len(), 1);
}

#[test]
fn undo_3_revert_skips_objects_others_deleted() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    let mine = ok(
        &mut b,
        json!([{"op":"update","id":"m","set":{"x":1000}},{"op":"update","id":"n","set":{"text":"x"}}]),
        2,
    );
    b.apply(&ops(json!([{"op":"delete","id":"m"}])), &user("u2"), 3)
        .unwrap();
    let undo = b.revert(&mine.changes, 4);
    b.check_invariants().unwrap();
    assert!(b.get("m").is_none());
    assert_eq!(b.get("n").unwrap().text, "");
    assert_eq!(undo.ops.len(), 1);
}

#[test]
fn undo_1_revert_of_a_delete_restores_the_cascade_and_redo_reapplies() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    let snapshot: Vec<BoardObject> = b.sorted_objects().into_iter().cloned().collect();
    let del = ok(&mut b, json!([{"op":"delete","id":"f"}]), 2);
    assert_eq!(b.len(), 1);
    let undo = b.revert(&del.changes, 3);
    b.check_invariants().unwrap();
    assert_eq!(b.len(), 4);
    let restored: Vec<BoardObject> = b
        .sorted_objects()
        .into_iter()
        .map(|o| BoardObject {
            version: 1,
            ..o.clone()
        })
        .collect();
    assert_eq!(restored, snapshot);
    let redo = b.revert(&undo.changes, 4);
    b.check_invariants().unwrap();
    assert_eq!(b.len(), 1);
    assert_eq!(redo.ops.len(), 3);
}

#[test]
fn undo_8_reverting_a_frame_create_keeps_others_children() {
    let mut b = BoardState::default();
    let mine = ok(
        &mut b,
        json!([{"op":"create","object":{"id":"f","kind":"frame"}}]),
        1,
    );
    b.apply(
        &ops(json!([{"op":"create","object":{"id":"theirs","kind":"note","parent":"f"}}])),
        &user("u2"),
        2,
    )
    .unwrap();
    b.revert(&mine.changes, 3);
    b.check_invariants().unwrap();
    assert!(b.get("f").is_none());
    assert_eq!(b.get("theirs").unwrap().parent, None);
}

#[test]
fn undo_1_frame_move_reverts_children_once() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    let mv = ok(&mut b, json!([{"op":"update","id":"f","set":{"x":100}}]), 2);
    b.revert(&mv.changes, 3);
    b.check_invariants().unwrap();
    assert_eq!(b.get("f").unwrap().x, 0.0);
    assert_eq!(b.get("n").unwrap().x, 50.0);
}

#[test]
fn snapshot_load_drops_dangling_references() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    let objs: Vec<BoardObject> = b
        .objects()
        .filter(|o| o.id.as_str() != "f" && o.id.as_str() != "m")
        .cloned()
        .collect();
    let loaded = BoardState::from_objects(objs, 100);
    loaded.check_invariants().unwrap();
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded.get("n").unwrap().parent, None);
}

#[test]
fn undo_9_history_keeps_only_the_changed_properties() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    let mv = ok(
        &mut b,
        json!([{"op":"update","id":"m","set":{"x":1000,"y":50}}]),
        2,
    );
    let compact = UndoChange::compact(&mv.changes);
    assert_eq!(
        compact.as_ref(),
        [UndoChange::Updated {
            id: ObjectId::try_from("m").unwrap(),
            fields: vec![
                (Field::X(900.0), Field::X(1000.0)),
                (Field::Y(0.0), Field::Y(50.0)),
            ]
            .into_boxed_slice(),
        }]
    );
    // Another user recolors m and moves it down; the compact revert undoes only my x and
    // leaves their y and color, exactly like the revert of the full change.
    b.apply(
        &ops(json!([{"op":"update","id":"m","set":{"color":"green","y":70}}])),
        &user("u2"),
        3,
    )
    .unwrap();
    let undo = b.revert_undo(&compact, 4);
    assert_eq!(
        undo.ops,
        [Op::Update {
            id: ObjectId::try_from("m").unwrap(),
            set: Patch {
                x: Some(900.0),
                ..Patch::default()
            },
        }],
        "only my x is reverted"
    );
    let m = b.get("m").unwrap();
    assert_eq!((m.x, m.y, m.color.as_str()), (900.0, 70.0, "#A5D6A7"));
    b.check_invariants().unwrap();
}

/// HIST-5: a restore makes the board exactly the earlier state (ids kept: created objects
/// deleted, changed ones reverted, deleted ones back), as one outcome whose ops replayed by a
/// client give the same state; one undo of it brings the state before the restore back.
#[test]
fn hist_5_restore_is_one_command_that_one_undo_reverts() {
    let mut b = BoardState::default();
    frame_with_child(&mut b);
    ok(
        &mut b,
        json!([
            {"op":"create","object":{"id":"g","kind":"frame","x":2000,"y":0,"w":400,"h":300,"text":"G"}},
            {"op":"create","object":{"id":"s","kind":"shape","geo":"ellipse","x":2050,"y":50,"parent":"g"}}
        ]),
        2,
    );
    let version: Vec<BoardObject> = b.sorted_objects().into_iter().cloned().collect();
    // Since the version: moves, text, re-parenting, a deleted frame with its child, a deleted
    // connector, new objects inside old frames, a new connector.
    ok(
        &mut b,
        json!([
            {"op":"update","id":"n","set":{"x":700,"text":"changed","parent":null}},
            {"op":"update","id":"m","set":{"color":"red","parent":"f"}},
            {"op":"delete","id":"g"},
            {"op":"delete","id":"c"},
            {"op":"create","object":{"id":"new1","kind":"note","x":10,"y":10,"parent":"f"}},
            {"op":"create","object":{"id":"new2","kind":"frame","x":3000,"y":0}},
            {"op":"create","object":{"id":"new3","kind":"note","x":3010,"y":10,"parent":"new2"}},
            {"op":"create","object":{"id":"c2","kind":"connector","from":{"id":"new1"},"to":{"id":"new3"}}}
        ]),
        3,
    );
    let before_restore: Vec<BoardObject> = b.sorted_objects().into_iter().cloned().collect();

    let out = b.restore(&version, 4);
    b.check_invariants().unwrap();
    let strip = |v: Vec<&BoardObject>| -> Vec<BoardObject> {
        v.into_iter()
            .map(|o| BoardObject {
                version: 0,
                ..o.clone()
            })
            .collect()
    };
    let want = strip(version.iter().collect());
    assert_eq!(strip(b.sorted_objects()), want);
    // A client that had the state before the restore replays the ops to the same objects.
    let mut client = BoardState::from_objects(before_restore.clone(), 10_000);
    client.replay(&out.ops, 4);
    assert_eq!(strip(client.sorted_objects()), want);
    // Nothing differs now: restoring again is empty.
    assert!(b.clone().restore(&version, 5).ops.is_empty());
    // One undo brings the state before the restore back.
    let undo = b.revert_undo(&UndoChange::compact(&out.changes), 5);
    b.check_invariants().unwrap();
    assert!(!undo.ops.is_empty());
    assert_eq!(
        strip(b.sorted_objects()),
        strip(before_restore.iter().collect())
    );
}
