//! New objects and their connectors in one batch: "add notes A, B and C and connect them",
//! "add a circle and connect it to Login", "draw a circle and connect Dashboard to it". The
//! connectors join the batch's refs (and existing objects by id), so it is one command, one undo.

use super::on_it;
use crate::intent::{Intent, StagedCall};
use crate::planner::common::{Builder, Built, nf};
use crate::planner::syntax::{Command, Target};
use crate::planner::targets::{Miss, Scope, resolve_target};
use crate::schema::{ArrowKind, CreateConnector, Operation, Ref};

/// One end of a new connector: a ref of the batch or an existing object's id.
#[derive(Clone)]
enum End {
    New(String),
    Old(String),
}

/// Builds `create` and connects what it makes: to each other in a chain ("connect them"), or
/// to an existing object (either way round).
pub(super) fn create_and_connect(
    create: Command,
    a: Target,
    b: Option<Target>,
    style: Option<ArrowKind>,
    s: &Scope,
    build: Builder,
) -> Result<Built, Miss> {
    let (mut intent, targets, touched) = build(create, s)?;
    merge_batches(&mut intent);
    let Some(StagedCall::BatchOperations(batch)) = intent.calls.first_mut() else {
        return nf("I can do that in two steps: first the new objects, then the connectors.");
    };
    let refs = new_refs(&batch.operations);
    let existing = |t: &Target| -> Result<End, Miss> {
        let ids = resolve_target(t, s)?;
        match ids.first() {
            Some(id) => Ok(End::Old(id.to_string())),
            None => nf("I couldn't find the object to connect to."),
        }
    };
    let new = |r: &String| End::New(r.clone());
    let pairs: Vec<(End, End)> = match (on_it(&a), &b) {
        // "connect them": a chain through the new objects.
        (true, None) => {
            if refs.len() < 2 {
                return nf("Connecting needs two or more objects.");
            }
            refs.windows(2).map(|w| (new(&w[0]), new(&w[1]))).collect()
        }
        // "connect it to Login": each new object to it.
        (true, Some(other)) if !on_it(other) => {
            let to = existing(other)?;
            refs.iter().map(|r| (new(r), to.clone())).collect()
        }
        // "connect Dashboard to it".
        (false, Some(it)) if on_it(it) => {
            let from = existing(&a)?;
            refs.iter().map(|r| (from.clone(), new(r))).collect()
        }
        _ => return nf("I couldn't tell what to connect."),
    };
    for (k, (from, to)) in pairs.into_iter().enumerate() {
        batch.operations.push(connector(k, from, to, style));
    }
    Ok((intent, targets, touched))
}

/// Several creates ("a note saying Start and a note saying End") as one batch, so connectors
/// can join all their refs.
fn merge_batches(intent: &mut Intent) {
    let mut first: Option<usize> = None;
    let mut k = 0;
    while k < intent.calls.len() {
        let StagedCall::BatchOperations(b) = &intent.calls[k] else {
            k += 1;
            continue;
        };
        match first {
            None => {
                first = Some(k);
                k += 1;
            }
            Some(f) => {
                let ops = b.operations.clone();
                intent.calls.remove(k);
                if let StagedCall::BatchOperations(head) = &mut intent.calls[f] {
                    head.operations.extend(ops);
                }
            }
        }
    }
}

/// The refs of the objects a batch creates that can be joined (not frames, not connectors).
fn new_refs(ops: &[Operation]) -> Vec<String> {
    ops.iter()
        .filter(|op| {
            !matches!(
                op,
                Operation::CreateConnector(_) | Operation::CreateFrame(_)
            )
        })
        .map(|op| op.r#ref().to_string())
        .collect()
}

fn connector(k: usize, from: End, to: End, style: Option<ArrowKind>) -> Operation {
    let (from_ref, from_id) = match from {
        End::New(r) => (Some(Ref(r)), None),
        End::Old(i) => (None, Some(i)),
    };
    let (to_ref, to_id) = match to {
        End::New(r) => (Some(Ref(r)), None),
        End::Old(i) => (None, Some(i)),
    };
    Operation::CreateConnector(CreateConnector {
        r#ref: Ref(format!("joined_{}", k + 1)),
        from_ref,
        to_ref,
        from_id,
        to_id,
        label: None,
        color: None,
        arrow: style,
    })
}
