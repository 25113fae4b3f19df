//! Seed 000 R19-R24 and R28 (resolver), seed 001 AC-6 (collision), validation against the board.
//! Rule ids: RESOLVE-n.
#![allow(clippy::unwrap_used)]
#[path = "../common/mod.rs"]
mod common;
mod placement;

use agent::schema::{
    ArrangeLayout, DeleteElements, DuplicateElements, ElementUpdate, LayoutElements, UpdateElements,
};
use agent::{Intent, StagedCall, validate_call};
use common::*;
use protocol::{BoardState, Endpoint, Geo, Kind};

fn kinds(board: &BoardState, k: Kind) -> Vec<protocol::BoardObject> {
    let mut v: Vec<_> = board.objects().filter(|o| o.kind == k).cloned().collect();
    v.sort_by_key(|o| o.z);
    v
}

#[test]
fn resolve_1_single_note() {
    let mut b = BoardState::default();
    let r = run(
        &mut b,
        &batch(r#"{"operations":[{"op":"createNote","ref":"note_a","text":"Hello"}]}"#),
        &ctx(),
    );
    assert_eq!(b.len(), 1);
    assert_eq!(r.created.len(), 1);
    let n = b.get(r.created[0].as_str()).unwrap();
    assert_eq!(n.kind, Kind::Note);
    assert_eq!(n.text, "Hello");
}

#[test]
fn resolve_2_three_notes_in_a_row() {
    let mut b = BoardState::default();
    run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createNote","ref":"n1","text":"a"},{"op":"createNote","ref":"n2","text":"b"},{"op":"createNote","ref":"n3","text":"c"}]}"#,
        ),
        &ctx(),
    );
    let notes = kinds(&b, Kind::Note);
    assert_eq!(notes.len(), 3);
    assert!(
        notes
            .windows(2)
            .all(|w| w[1].x > w[0].x + w[0].w && (w[1].y - w[0].y).abs() < 1.0)
    );
}

#[test]
fn resolve_3_parent_child_binding() {
    let mut b = BoardState::default();
    let r = run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createFrame","ref":"frame_a","name":"Ideas"},{"op":"createNote","ref":"note_a","text":"x","parentRef":"frame_a"}]}"#,
        ),
        &ctx(),
    );
    let frame = r.created[0].clone();
    let kids: Vec<_> = b.children_of(frame.as_str()).cloned().collect();
    assert_eq!(kids, vec![r.created[1].clone()]);
}

/// A `parentId` that would put a frame inside itself or inside a frame it holds is ignored with
/// a warning (the rest of the batch applies); the check follows the batch's own earlier moves.
#[test]
fn resolve_3_a_frame_never_goes_inside_a_frame_it_holds() {
    let mut b = BoardState::default();
    let r = run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createFrame","ref":"frame_a","name":"Outer"},{"op":"createFrame","ref":"frame_b","name":"Inner","parentRef":"frame_a"}]}"#,
        ),
        &ctx(),
    );
    let (outer, inner) = (r.created[0].to_string(), r.created[1].to_string());
    let to = |id: &str, parent: &str| ElementUpdate {
        id: id.into(),
        parent_id: Some(parent.into()),
        dx: Some(5.0),
        ..Default::default()
    };
    let calls = |updates| Intent::one(StagedCall::UpdateElements(UpdateElements { updates }));
    let x0 = b.get(outer.as_str()).unwrap().x;
    let r = run(
        &mut b,
        &calls(vec![to(&outer, &inner), to(&outer, &outer)]),
        &ctx(),
    );
    assert_eq!(
        r.warnings
            .iter()
            .filter(|w| w.contains("cannot go inside"))
            .count(),
        2
    );
    assert_eq!(b.get(outer.as_str()).unwrap().parent, None);
    assert_eq!(
        b.get(outer.as_str()).unwrap().x,
        x0 + 10.0,
        "the rest of each update applies"
    );
    // Once the batch has taken Inner out of Outer, Outer may go inside it.
    let r = run(
        &mut b,
        &calls(vec![to(&inner, ""), to(&outer, &inner)]),
        &ctx(),
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(
        b.get(outer.as_str())
            .unwrap()
            .parent
            .as_ref()
            .map(|p| p.to_string()),
        Some(inner)
    );
}

#[test]
fn resolve_4_connector_bound_to_both_shapes() {
    let mut b = BoardState::default();
    let r = run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createShape","ref":"s_a","text":"A"},{"op":"createShape","ref":"s_b","text":"B"},{"op":"createConnector","ref":"c_ab","fromRef":"s_a","toRef":"s_b","label":"then"}]}"#,
        ),
        &ctx(),
    );
    let c = b.get(r.created[2].as_str()).unwrap();
    assert_eq!(c.kind, Kind::Connector);
    assert_eq!(
        c.from,
        Some(Endpoint::Bound {
            id: r.created[0].clone()
        })
    );
    assert_eq!(
        c.to,
        Some(Endpoint::Bound {
            id: r.created[1].clone()
        })
    );
    assert_eq!(c.text, "then");
}

#[test]
fn resolve_5_duplicate_ref_skipped_with_warning() {
    let mut b = BoardState::default();
    let r = run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createNote","ref":"note_a","text":"first"},{"op":"createNote","ref":"note_a","text":"second"}]}"#,
        ),
        &ctx(),
    );
    assert_eq!(b.len(), 1);
    assert_eq!(b.objects().next().unwrap().text, "first");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("Duplicate ref 'note_a'"))
    );
}

#[test]
fn resolve_6_missing_parent_ref_goes_top_level() {
    let mut b = BoardState::default();
    let r = run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createNote","ref":"note_a","text":"x","parentRef":"frame_missing"}]}"#,
        ),
        &ctx(),
    );
    assert_eq!(b.get(r.created[0].as_str()).unwrap().parent, None);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("frame_missing") && w.contains("note_a"))
    );
}

#[test]
fn resolve_7_missing_connector_ref_skips_connector() {
    let mut b = BoardState::default();
    let r = run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createShape","ref":"s_a"},{"op":"createConnector","ref":"c_1","fromRef":"ghost","toRef":"s_a"}]}"#,
        ),
        &ctx(),
    );
    assert_eq!(b.len(), 1);
    assert!(r.warnings.iter().any(|w| w.contains("ghost")));
}

#[test]
fn resolve_8_invalid_and_empty_refs_skipped_by_resolver() {
    // Intents built in code bypass the schema: the resolver still skips bad refs.
    let json = r#"{"tool":"batchOperations","operations":[{"op":"createNote","ref":"","text":"x"},{"op":"createNote","ref":"Bad Ref","text":"y"},{"op":"createNote","ref":"ok_1","text":"z"}]}"#;
    let call: StagedCall = serde_json::from_str(json).unwrap();
    let mut b = BoardState::default();
    let r = run(&mut b, &Intent::one(call), &ctx());
    assert_eq!(b.len(), 1);
    assert!(r.warnings.iter().any(|w| w.contains("Empty ref")));
    assert!(r.warnings.iter().any(|w| w.contains("'Bad Ref'")));
}

fn swot_json() -> String {
    let mut ops = Vec::new();
    for (f, n) in [
        ("strengths", 2),
        ("weaknesses", 1),
        ("opportunities", 3),
        ("threats", 2),
    ] {
        ops.push(format!(
            r#"{{"op":"createFrame","ref":"frame_{f}","name":"{f}"}}"#
        ));
        for i in 0..n {
            ops.push(format!(r#"{{"op":"createNote","ref":"note_{f}_{i}","text":"{f} {i}","parentRef":"frame_{f}"}}"#));
        }
    }
    format!(
        r#"{{"operations":[{}],"layoutDirective":"swot-2x2","title":"SWOT"}}"#,
        ops.join(",")
    )
}

#[test]
fn resolve_14_default_colors() {
    let mut b = BoardState::default();
    let r = run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createNote","ref":"n_1","text":"x"},{"op":"createShape","ref":"s_1"},{"op":"createFrame","ref":"f_1","name":"F"},{"op":"createText","ref":"t_1","text":"T"}]}"#,
        ),
        &ctx(),
    );
    let c: Vec<String> = r
        .created
        .iter()
        .map(|i| b.get(i.as_str()).unwrap().color.clone())
        .collect();
    assert_eq!(c, ["#FFF59D", "#81D4FA", "#E0E0E0", "#212121"]);
}

#[test]
fn resolve_18_validation_unknown_ids_invalid() {
    let mut b = BoardState::default();
    let n = add(&mut b, Kind::Note, None, "yellow", 0.0, 0.0, 200.0, 200.0);
    let upd = |id: &str| {
        StagedCall::UpdateElements(UpdateElements {
            updates: vec![ElementUpdate {
                id: id.into(),
                dx: Some(10.0),
                ..Default::default()
            }],
        })
    };
    assert!(validate_call(&upd(n.id.as_str()), &b).is_ok());
    let e = validate_call(&upd("nope-123"), &b).unwrap_err();
    assert!(e.contains("nope-123") && e.contains("not_found"));
    let del = StagedCall::DeleteElements(DeleteElements {
        ids: vec!["ghost-1".into()],
    });
    assert!(validate_call(&del, &b).unwrap_err().contains("ghost-1"));
    let lay = StagedCall::LayoutElements(LayoutElements {
        ids: vec![n.id.to_string(), "ghost-2".into()],
        layout: ArrangeLayout::Row,
        spacing: None,
    });
    assert!(validate_call(&lay, &b).unwrap_err().contains("ghost-2"));
    let dup = StagedCall::DuplicateElements(DuplicateElements {
        ids: vec!["ghost-3".into()],
        dx: None,
        dy: None,
    });
    assert!(validate_call(&dup, &b).is_err());
    let conn = batch(
        r#"{"operations":[{"op":"createNote","ref":"n_1","text":"x"},{"op":"createConnector","ref":"c_1","fromRef":"n_1","toId":"ghost-4"}]}"#,
    );
    assert!(
        validate_call(&conn.calls[0], &b)
            .unwrap_err()
            .contains("ghost-4")
    );
}

#[test]
fn resolve_19_edits_apply_and_skip_vanished_ids() {
    let mut b = BoardState::default();
    let n = add(&mut b, Kind::Note, None, "yellow", 0.0, 0.0, 200.0, 200.0);
    let intent = Intent {
        calls: vec![
            StagedCall::UpdateElements(UpdateElements {
                updates: vec![
                    ElementUpdate {
                        id: n.id.to_string(),
                        dx: Some(100.0),
                        color: Some("blue".into()),
                        ..Default::default()
                    },
                    ElementUpdate {
                        id: "gone-1".into(),
                        dx: Some(5.0),
                        ..Default::default()
                    },
                ],
            }),
            StagedCall::DuplicateElements(DuplicateElements {
                ids: vec![n.id.to_string()],
                dx: None,
                dy: None,
            }),
        ],
    };
    let r = run(&mut b, &intent, &ctx());
    let after = b.get(n.id.as_str()).unwrap();
    assert_eq!((after.x, after.color.as_str()), (100.0, "#90CAF9"));
    assert!(r.warnings.iter().any(|w| w.contains("gone-1")));
    assert_eq!(b.len(), 2);
    let copy = b.get(r.created[0].as_str()).unwrap();
    assert!(gap(&rect(copy), &rect(after)) >= 20.0 - 1e-6);
    // Delete after update in the same intent, and a repeated delete, still apply cleanly.
    let del = Intent::one(StagedCall::DeleteElements(DeleteElements {
        ids: vec![n.id.to_string(), n.id.to_string()],
    }));
    run(&mut b, &del, &ctx());
    assert_eq!(b.len(), 1);
}

#[test]
fn resolve_21_never_panics_on_degenerate_input() {
    let mut b = BoardState::default();
    add(&mut b, Kind::Frame, None, "gray", 0.0, 0.0, 400.0, 300.0);
    let json = r#"{"tool":"batchOperations","operations":[{"op":"createNote","ref":"n_1","text":"x","x":1e308,"y":-1e308,"w":-5,"h":1e9},{"op":"createFrame","ref":"f_1","name":"","parentRef":"f_1"},{"op":"createShape","ref":"s_1","geo":"blob","parentRef":"n_1"},{"op":"createConnector","ref":"c_1","fromRef":"c_1","toRef":"n_1"}],"layoutDirective":"flowchart-left-right"}"#;
    let call: StagedCall = serde_json::from_str(json).unwrap();
    let r = run(&mut b, &Intent::one(call), &ctx());
    assert!(!r.warnings.is_empty());
    // A batch on a 10,000-object board applies too.
    let mut big = big_board(2000);
    run(&mut big, &batch(&swot_json()), &ctx());
}

/// A tiny deterministic generator (no extra dependency).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

#[test]
fn resolve_22_random_batches_apply_cleanly_and_keep_gaps() {
    let dirs = [
        "",
        "swot-2x2",
        "columns",
        "journey-stages",
        "grid",
        "rows",
        "flowchart-top-down",
        "flowchart-left-right",
        "freeform",
    ];
    let mut g = Lcg(7);
    for round in 0..400 {
        let mut b = BoardState::default();
        for _ in 0..g.next(30) {
            let (x, y) = (g.next(3000) as f64 - 1500.0, g.next(2000) as f64 - 1000.0);
            add(
                &mut b,
                Kind::Note,
                None,
                "yellow",
                x,
                y,
                50.0 + g.next(300) as f64,
                50.0 + g.next(300) as f64,
            );
        }
        let existing: Vec<_> = b.objects().cloned().collect();
        let n = 1 + g.next(30) as usize;
        let mut ops = Vec::new();
        let mut refs: Vec<String> = Vec::new();
        for i in 0..n {
            let r = match g.next(10) {
                0 if !refs.is_empty() => refs[g.next(refs.len() as u64) as usize].clone(),
                1 => "X".to_string(),
                _ => format!("r_{i}"),
            };
            let parent = if g.next(3) == 0 && !refs.is_empty() {
                format!(
                    r#","parentRef":"{}""#,
                    refs[g.next(refs.len() as u64) as usize]
                )
            } else {
                String::new()
            };
            let op = match g.next(5) {
                0 => format!(r#"{{"op":"createFrame","ref":"{r}","name":"F{i}"{parent}}}"#),
                1 => format!(
                    r#"{{"op":"createShape","ref":"{r}","geo":"circle","text":"s{i}"{parent}}}"#
                ),
                2 if refs.len() >= 2 => format!(
                    r#"{{"op":"createConnector","ref":"{r}","fromRef":"{}","toRef":"{}"}}"#,
                    refs[g.next(refs.len() as u64) as usize],
                    refs[g.next(refs.len() as u64) as usize]
                ),
                3 => format!(r#"{{"op":"createText","ref":"{r}","text":"t{i}"{parent}}}"#),
                _ => format!(
                    r#"{{"op":"createNote","ref":"{r}","text":"{}"{parent}}}"#,
                    "word ".repeat(g.next(40) as usize)
                ),
            };
            ops.push(op);
            refs.push(r);
        }
        let d = dirs[g.next(dirs.len() as u64) as usize];
        let dir = if d.is_empty() {
            String::new()
        } else {
            format!(r#","layoutDirective":"{d}""#)
        };
        let json = format!(
            r#"{{"tool":"batchOperations","operations":[{}]{dir},"title":"T{round}"}}"#,
            ops.join(",")
        );
        let call: StagedCall = serde_json::from_str(&json).unwrap();
        let r = run(&mut b, &Intent::one(call), &ctx());
        for o in &existing {
            assert_eq!(
                b.get(o.id.as_str()).unwrap(),
                o,
                "existing objects never move"
            );
        }
        for id in &r.created {
            let c = b.get(id.as_str()).unwrap();
            if c.kind == Kind::Connector {
                continue;
            }
            for o in &existing {
                assert!(
                    gap(&rect(c), &rect(o)) >= 20.0 - 1e-6,
                    "round {round} ({d}): new {} too close to existing",
                    c.id
                );
            }
        }
    }
}
