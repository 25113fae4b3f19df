//! The tools the LLM sees (DESIGN §7): names, "Tool to X. Use when Y." descriptions, JSON
//! Schemas generated from [`crate::schema`], and parsing of a call's arguments (numeric strings
//! coerced, checked against the same schema with `jsonschema`, color aliases preprocessed).

use crate::intent::StagedCall;
use crate::schema::{
    AskUser, BatchOperations, DeleteElements, DuplicateElements, ExitPlanMode, GetBoardState,
    LayoutElements, UpdateElements, WritePlan,
};
use protocol::Mode;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Every tool the agent knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolName {
    GetBoardState,
    BatchOperations,
    UpdateElements,
    LayoutElements,
    DeleteElements,
    DuplicateElements,
    AskUser,
    ExitPlanMode,
    WritePlan,
}

impl ToolName {
    /// All tools, in the order the LLM sees them.
    pub const ALL: [ToolName; 9] = [
        ToolName::GetBoardState,
        ToolName::BatchOperations,
        ToolName::UpdateElements,
        ToolName::LayoutElements,
        ToolName::DeleteElements,
        ToolName::DuplicateElements,
        ToolName::AskUser,
        ToolName::ExitPlanMode,
        ToolName::WritePlan,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::GetBoardState => "getBoardState",
            ToolName::BatchOperations => "batchOperations",
            ToolName::UpdateElements => "updateElements",
            ToolName::LayoutElements => "layoutElements",
            ToolName::DeleteElements => "deleteElements",
            ToolName::DuplicateElements => "duplicateElements",
            ToolName::AskUser => "askUser",
            ToolName::ExitPlanMode => "exitPlanMode",
            ToolName::WritePlan => "writePlan",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<ToolName> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// True for tools that change the board.
    pub fn is_board_write(self) -> bool {
        matches!(
            self,
            ToolName::BatchOperations
                | ToolName::UpdateElements
                | ToolName::LayoutElements
                | ToolName::DeleteElements
                | ToolName::DuplicateElements
        )
    }

    /// The description, "Tool to X. Use when Y." (seed 001 AC-5).
    pub fn description(self) -> &'static str {
        match self {
            ToolName::GetBoardState => {
                "Tool to read objects on the board (ids, kinds, positions, sizes, colors, text), optionally filtered by text query, kinds, colors or ids. Use when you need the id or position of an existing object that is not in the board state you were given."
            }
            ToolName::BatchOperations => {
                "Tool to create one or more objects on the board with optional parent-child relationships and layout arrangement. Use when the user asks for ANY new object or structure (never a picture: images are uploaded by the user and cannot be created with tools). Use ref IDs to reference objects within the same batch. Parents must appear before children. Objects must appear before connectors that reference them."
            }
            ToolName::UpdateElements => {
                "Tool to edit existing objects by their real id: text, color, absolute position (x, y), relative move (dx, dy), size (w, h), scale, rotation, parent frame. Use when the user wants to change, move, resize, recolor or re-parent objects that are already on the board, images included (an image takes position, size, scale, rotation and parent but no text or color; give it only w or only h, or a scale, to keep its aspect ratio)."
            }
            ToolName::LayoutElements => {
                "Tool to rearrange existing objects (images included) by their real ids as a grid, row, column, circle, tree or flowchart. Use when the user asks to arrange, align, organize or line up objects already on the board."
            }
            ToolName::DeleteElements => {
                "Tool to delete existing objects (images included) by their real ids (a frame's children and attached connectors go with it). Use when the user asks to remove, delete or clear objects."
            }
            ToolName::DuplicateElements => {
                "Tool to copy existing objects by their real ids, optionally offset by dx, dy. Use when the user asks to duplicate, copy or clone objects."
            }
            ToolName::AskUser => {
                "Tool to ask the user one or more structured questions, each with a JSON Schema for the answer and optional buttons. Use when the request is ambiguous and you need a decision, or to ask for approval of a plan."
            }
            ToolName::ExitPlanMode => {
                "Tool to leave plan mode and start building the approved plan. Use when the user has approved the plan you wrote (for example by answering \"Accept & Build\")."
            }
            ToolName::WritePlan => {
                "Tool to write the plan document (a markdown checklist) to /plans/<name>.plan. Use when in plan mode, before asking the user to approve the plan."
            }
        }
    }

    /// The tools offered in a mode: build mode has every board tool and `askUser`; plan mode adds
    /// `writePlan` and `exitPlanMode` (board writes there are denied, seed 002 §3.4).
    pub fn for_mode(mode: Mode) -> Vec<ToolName> {
        Self::ALL
            .into_iter()
            .filter(|t| {
                mode == Mode::Plan || !matches!(t, ToolName::ExitPlanMode | ToolName::WritePlan)
            })
            .collect()
    }
}

/// A tool as the LLM sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub parameters: Value,
}

fn schema_of<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut v = serde_json::to_value(schema).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.remove("title");
        m.remove("$defs");
    }
    v
}

fn build_schema(t: ToolName) -> Value {
    match t {
        ToolName::GetBoardState => schema_of::<GetBoardState>(),
        ToolName::BatchOperations => schema_of::<BatchOperations>(),
        ToolName::UpdateElements => schema_of::<UpdateElements>(),
        ToolName::LayoutElements => schema_of::<LayoutElements>(),
        ToolName::DeleteElements => schema_of::<DeleteElements>(),
        ToolName::DuplicateElements => schema_of::<DuplicateElements>(),
        ToolName::AskUser => schema_of::<AskUser>(),
        ToolName::ExitPlanMode => schema_of::<ExitPlanMode>(),
        ToolName::WritePlan => schema_of::<WritePlan>(),
    }
}

struct Compiled {
    schema: Value,
    validator: Option<jsonschema::Validator>,
}

fn compiled() -> &'static HashMap<ToolName, Compiled> {
    static CELL: OnceLock<HashMap<ToolName, Compiled>> = OnceLock::new();
    CELL.get_or_init(|| {
        ToolName::ALL
            .into_iter()
            .map(|t| {
                let schema = build_schema(t);
                let validator = jsonschema::validator_for(&schema).ok();
                (t, Compiled { schema, validator })
            })
            .collect()
    })
}

/// The JSON Schema of a tool's arguments.
pub fn parameters(t: ToolName) -> Value {
    compiled()
        .get(&t)
        .map(|c| c.schema.clone())
        .unwrap_or(Value::Null)
}

/// The tool specs offered in `mode`.
pub fn tool_specs(mode: Mode) -> Vec<ToolSpec> {
    ToolName::for_mode(mode)
        .into_iter()
        .map(|t| ToolSpec {
            name: t.as_str(),
            description: t.description(),
            parameters: parameters(t),
        })
        .collect()
}

/// A parsed tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCall {
    GetBoardState(GetBoardState),
    Write(StagedCall),
    AskUser(AskUser),
    ExitPlanMode(ExitPlanMode),
    WritePlan(WritePlan),
}

const NUMERIC_FIELDS: [&str; 9] = [
    "x", "y", "w", "h", "dx", "dy", "scale", "rotation", "spacing",
];

/// Coerces numeric strings (`"100"`) in numeric fields to numbers, everywhere in `v` (AC-2).
pub fn coerce_numbers(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, val) in m.iter_mut() {
                if NUMERIC_FIELDS.contains(&k.as_str())
                    && let Value::String(s) = val
                    && let Ok(n) = s.trim().parse::<f64>()
                    && n.is_finite()
                    && let Some(num) = serde_json::Number::from_f64(n)
                {
                    *val = Value::Number(num);
                    continue;
                }
                coerce_numbers(val);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(coerce_numbers),
        _ => {}
    }
}

/// Checks `args` against the tool's JSON Schema; the error lists what is wrong and where.
pub fn check_schema(t: ToolName, args: &Value) -> Result<(), String> {
    let Some(v) = compiled().get(&t).and_then(|c| c.validator.as_ref()) else {
        return Ok(());
    };
    let errors: Vec<String> = v
        .iter_errors(args)
        .take(5)
        .map(|e| {
            let path = e.instance_path().to_string();
            if path.is_empty() {
                e.to_string()
            } else {
                format!("{path}: {e}")
            }
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

fn decode<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, String> {
    serde_json::from_value(v).map_err(|e| e.to_string())
}

/// Parses a call by tool name and raw JSON arguments: coerces numbers, checks the schema,
/// deserializes, checks what the schema cannot say (connector ends), preprocesses colors.
pub fn parse_call(name: &str, arguments: &str) -> Result<ToolCall, String> {
    let tool = ToolName::parse(name).ok_or_else(|| format!("unknown tool {name:?}"))?;
    let mut args: Value = if arguments.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(arguments).map_err(|e| format!("arguments are not JSON: {e}"))?
    };
    parse_value(tool, &mut args)
}

/// [`parse_call`] on an already decoded value.
pub fn parse_value(tool: ToolName, args: &mut Value) -> Result<ToolCall, String> {
    coerce_numbers(args);
    if tool == ToolName::BatchOperations {
        refuse_pictures(args)?;
    }
    check_schema(tool, args)?;
    let args = args.clone();
    Ok(match tool {
        ToolName::GetBoardState => ToolCall::GetBoardState(decode(args)?),
        ToolName::BatchOperations => {
            let mut b: BatchOperations = decode(args)?;
            check_connectors(&b)?;
            b.preprocess();
            ToolCall::Write(StagedCall::BatchOperations(b))
        }
        ToolName::UpdateElements => {
            let mut u: UpdateElements = decode(args)?;
            u.preprocess();
            ToolCall::Write(StagedCall::UpdateElements(u))
        }
        ToolName::LayoutElements => ToolCall::Write(StagedCall::LayoutElements(decode(args)?)),
        ToolName::DeleteElements => ToolCall::Write(StagedCall::DeleteElements(decode(args)?)),
        ToolName::DuplicateElements => {
            ToolCall::Write(StagedCall::DuplicateElements(decode(args)?))
        }
        ToolName::AskUser => ToolCall::AskUser(decode(args)?),
        ToolName::ExitPlanMode => ToolCall::ExitPlanMode(decode(args)?),
        ToolName::WritePlan => ToolCall::WritePlan(decode(args)?),
    })
}

/// The answer to a batch that tries to create a picture.
pub const NO_PICTURES: &str = "pictures cannot be created with tools: an image needs a file the user uploads (paste, drop or the Image tool). Nothing of this batch was staged; call batchOperations again without it, and tell the user how to add the picture. Existing images can be moved, resized, arranged, duplicated and deleted by id.";

/// Refuses, whole, a batch with an operation that would make a picture (`createImage`, an
/// `image` kind or geo, a picture source): nothing of it is staged.
fn refuse_pictures(args: &Value) -> Result<(), String> {
    let ops = args.get("operations").and_then(Value::as_array);
    for op in ops.into_iter().flatten() {
        let word = |k: &str| {
            op.get(k)
                .and_then(Value::as_str)
                .map(str::to_ascii_lowercase)
                .unwrap_or_default()
        };
        let name = word("op");
        let picture = ["image", "picture", "photo", "img"]
            .iter()
            .any(|p| name.contains(p) || word("kind") == *p || word("geo") == *p)
            || ["asset", "src", "image", "imageUrl"]
                .iter()
                .any(|k| op.get(*k).is_some());
        if picture {
            return Err(format!("operation {:?}: {NO_PICTURES}", word("ref")));
        }
    }
    Ok(())
}

/// Every connector needs a source (`fromRef` or `fromId`) and a target (`toRef` or `toId`).
fn check_connectors(b: &BatchOperations) -> Result<(), String> {
    for op in &b.operations {
        if let crate::schema::Operation::CreateConnector(c) = op {
            if c.from_ref.is_none() && c.from_id.is_none() {
                return Err(format!(
                    "createConnector '{}' needs fromRef (or fromId)",
                    c.r#ref.0
                ));
            }
            if c.to_ref.is_none() && c.to_id.is_none() {
                return Err(format!(
                    "createConnector '{}' needs toRef (or toId)",
                    c.r#ref.0
                ));
            }
        }
    }
    Ok(())
}
