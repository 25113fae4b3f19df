//! The intent: the write tool calls an AI command staged, applied later as one command.

use crate::schema::{
    BatchOperations, DeleteElements, DuplicateElements, GroupElements, LayoutElements, Operation,
    UpdateElements,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One staged write tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "camelCase")]
pub enum StagedCall {
    BatchOperations(BatchOperations),
    UpdateElements(UpdateElements),
    LayoutElements(LayoutElements),
    DeleteElements(DeleteElements),
    DuplicateElements(DuplicateElements),
    GroupElements(GroupElements),
}

impl StagedCall {
    /// The tool's name.
    pub fn tool_name(&self) -> &'static str {
        match self {
            StagedCall::BatchOperations(_) => "batchOperations",
            StagedCall::UpdateElements(_) => "updateElements",
            StagedCall::LayoutElements(_) => "layoutElements",
            StagedCall::DeleteElements(_) => "deleteElements",
            StagedCall::DuplicateElements(_) => "duplicateElements",
            StagedCall::GroupElements(_) => "groupElements",
        }
    }

    /// A one-line summary of what was requested (seed 000 R11's `_observation`).
    pub fn observation(&self) -> String {
        match self {
            StagedCall::BatchOperations(b) => {
                let n = b.operations.len();
                match b.layout_directive {
                    Some(d) => format!(
                        "Batch of {n} operations with layout directive {}",
                        d.as_str()
                    ),
                    None => format!("Batch of {n} operations with no layout directive"),
                }
            }
            StagedCall::UpdateElements(u) => format!("Update of {} elements", u.updates.len()),
            StagedCall::LayoutElements(l) => {
                format!("{} of {} elements", l.layout.as_str(), l.ids.len())
            }
            StagedCall::DeleteElements(d) => format!("Deletion of {} elements", d.ids.len()),
            StagedCall::DuplicateElements(d) => format!("Duplication of {} elements", d.ids.len()),
            StagedCall::GroupElements(g) => format!("Grouping of {} elements", g.ids.len()),
        }
    }

    /// The JSON a staged call answers the model with (seed 000 R11): every input field plus
    /// `tool`, `_observation` and `valid: true`.
    pub fn tool_result(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("_observation".into(), Value::String(self.observation()));
            m.insert("valid".into(), Value::Bool(true));
        }
        v
    }
}

/// The staged calls of one AI command, in call order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Intent {
    pub calls: Vec<StagedCall>,
}

impl Intent {
    /// An intent of one call.
    pub fn one(call: StagedCall) -> Self {
        Intent { calls: vec![call] }
    }

    /// True when nothing is staged.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Number of objects the intent asks to create (batch operations and duplicates).
    pub fn create_count(&self) -> usize {
        self.calls
            .iter()
            .map(|c| match c {
                StagedCall::BatchOperations(b) => b.operations.len(),
                StagedCall::DuplicateElements(d) => d.ids.len(),
                StagedCall::GroupElements(_) => 1,
                _ => 0,
            })
            .sum()
    }

    /// A markdown checklist of the intent, one line per step (the plan document's body).
    pub fn checklist(&self) -> String {
        let mut out = String::new();
        for c in &self.calls {
            match c {
                StagedCall::BatchOperations(b) => {
                    if let Some(t) = &b.title {
                        out.push_str(&format!("- [ ] Title: {t}\n"));
                    }
                    for op in &b.operations {
                        out.push_str(&format!("- [ ] {}\n", describe_op(op)));
                    }
                    if let Some(d) = b.layout_directive {
                        out.push_str(&format!("- [ ] Arrange with the `{}` layout\n", d.as_str()));
                    }
                }
                StagedCall::UpdateElements(u) => {
                    for e in &u.updates {
                        out.push_str(&format!("- [ ] Update `{}`\n", e.id));
                    }
                }
                StagedCall::LayoutElements(l) => out.push_str(&format!(
                    "- [ ] Arrange {} objects as a {}\n",
                    l.ids.len(),
                    l.layout.as_str()
                )),
                StagedCall::DeleteElements(d) => {
                    out.push_str(&format!("- [ ] Delete {} objects\n", d.ids.len()))
                }
                StagedCall::DuplicateElements(d) => {
                    out.push_str(&format!("- [ ] Duplicate {} objects\n", d.ids.len()))
                }
                StagedCall::GroupElements(g) => out.push_str(&format!(
                    "- [ ] Group {} objects in a frame \"{}\"\n",
                    g.ids.len(),
                    g.name
                )),
            }
        }
        out
    }
}

fn describe_op(op: &Operation) -> String {
    let inside = |p: Option<&str>| p.map(|p| format!(" in `{p}`")).unwrap_or_default();
    match op {
        Operation::CreateFrame(f) => {
            format!("Frame \"{}\"{}", f.name, inside(op.parent_ref()))
        }
        Operation::CreateNote(n) => format!("Note \"{}\"{}", n.text, inside(op.parent_ref())),
        Operation::CreateShape(s) => format!(
            "{} \"{}\"{}",
            s.geo.as_deref().unwrap_or("rectangle"),
            s.text.as_deref().unwrap_or(""),
            inside(op.parent_ref())
        ),
        Operation::CreateText(t) => format!("Text \"{}\"{}", t.text, inside(op.parent_ref())),
        Operation::CreateConnector(c) => {
            let end = |r: &Option<crate::schema::Ref>, id: &Option<String>| {
                r.as_ref()
                    .map(|r| r.0.clone())
                    .or_else(|| id.clone())
                    .unwrap_or_else(|| "?".into())
            };
            format!(
                "Connect `{}` → `{}`",
                end(&c.from_ref, &c.from_id),
                end(&c.to_ref, &c.to_id)
            )
        }
    }
}
