//! Tool argument types: the single source of the JSON Schemas the LLM sees (generated with
//! schemars) and of the parsed, validated calls (seed 000 R1-R4, DESIGN §7).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Most operations one `batchOperations` call may carry (seed 000 C7: one named constant).
pub const MAX_OPERATIONS: usize = 50;

/// The ref rule (seed 000 R1): 2-40 characters of lowercase letters, digits and underscores.
pub const REF_PATTERN: &str = "^[a-z0-9_]{2,40}$";

/// True when `s` satisfies [`REF_PATTERN`].
pub fn is_valid_ref(s: &str) -> bool {
    (2..=40).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// A batch-local reference to an object created in the same batch (not a board id).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Ref(#[schemars(pattern(REF_PATTERN))] pub String);

impl Ref {
    /// The ref as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Explicit geometry a create may carry (page coordinates; sizes in px).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Geometry {
    /// Left edge. Omit to let the layout place the object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Top edge (y grows downwards).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// Width (10..5000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w: Option<f64>,
    /// Height (10..5000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub h: Option<f64>,
    /// Id of an existing frame on the board to put the object in (instead of parentRef).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
}

/// `createFrame`: a titled container.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateFrame {
    /// Unique ref within this batch, e.g. "frame_strengths".
    #[serde(rename = "ref")]
    pub r#ref: Ref,
    /// Frame title.
    pub name: String,
    /// Palette name (yellow, orange, red, light-red, violet, light-violet, blue, light-blue, green, light-green, gray, black, white) or alias.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Ref of an enclosing frame created earlier in this batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_ref: Option<Ref>,
    #[serde(flatten)]
    pub geometry: Geometry,
}

/// `createNote`: a sticky note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateNote {
    /// Unique ref within this batch, e.g. "note_brand_1".
    #[serde(rename = "ref")]
    pub r#ref: Ref,
    /// Note text.
    pub text: String,
    /// Palette name or alias (default yellow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Ref of the frame (created earlier in this batch) the note goes in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_ref: Option<Ref>,
    #[serde(flatten)]
    pub geometry: Geometry,
}

/// `createShape`: a geometric shape, optionally with text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateShape {
    /// Unique ref within this batch, e.g. "step_validate".
    #[serde(rename = "ref")]
    pub r#ref: Ref,
    /// rectangle (default), ellipse, diamond, triangle, hexagon, star, cloud; circle and square are accepted (w = h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geo: Option<String>,
    /// Text inside the shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Palette name or alias (default light-blue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Ref of the frame (created earlier in this batch) the shape goes in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_ref: Option<Ref>,
    #[serde(flatten)]
    pub geometry: Geometry,
}

/// `createText`: free text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateText {
    /// Unique ref within this batch, e.g. "text_title".
    #[serde(rename = "ref")]
    pub r#ref: Ref,
    /// The text.
    pub text: String,
    /// Palette name or alias (default black).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Ref of the frame (created earlier in this batch) the text goes in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_ref: Option<Ref>,
    #[serde(flatten)]
    pub geometry: Geometry,
}

/// `createConnector`: an arrow between two objects. Each end is a ref of this batch
/// (`fromRef`/`toRef`, defined earlier) or the id of an existing board object (`fromId`/`toId`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateConnector {
    /// Unique ref within this batch, e.g. "conn_start_to_check".
    #[serde(rename = "ref")]
    pub r#ref: Ref,
    /// Ref of the source object, created earlier in this batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_ref: Option<Ref>,
    /// Ref of the target object, created earlier in this batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_ref: Option<Ref>,
    /// Id of an existing board object to start from (instead of fromRef).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_id: Option<String>,
    /// Id of an existing board object to point to (instead of toRef).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_id: Option<String>,
    /// Label on the connector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Palette name or alias (default black).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Arrowheads: end (default), both, none (a plain line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrow: Option<ArrowKind>,
}

/// Arrowheads of a new connector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ArrowKind {
    End,
    Both,
    None,
}

/// One operation of a batch, tagged by `op` (seed 000 R2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op")]
pub enum Operation {
    #[serde(rename = "createFrame")]
    CreateFrame(CreateFrame),
    #[serde(rename = "createNote")]
    CreateNote(CreateNote),
    #[serde(rename = "createShape")]
    CreateShape(CreateShape),
    #[serde(rename = "createText")]
    CreateText(CreateText),
    #[serde(rename = "createConnector")]
    CreateConnector(CreateConnector),
}

impl Operation {
    /// The operation's ref.
    pub fn r#ref(&self) -> &str {
        match self {
            Operation::CreateFrame(o) => o.r#ref.as_str(),
            Operation::CreateNote(o) => o.r#ref.as_str(),
            Operation::CreateShape(o) => o.r#ref.as_str(),
            Operation::CreateText(o) => o.r#ref.as_str(),
            Operation::CreateConnector(o) => o.r#ref.as_str(),
        }
    }

    /// The `parentRef`, if the operation has one.
    pub fn parent_ref(&self) -> Option<&str> {
        match self {
            Operation::CreateFrame(o) => o.parent_ref.as_ref(),
            Operation::CreateNote(o) => o.parent_ref.as_ref(),
            Operation::CreateShape(o) => o.parent_ref.as_ref(),
            Operation::CreateText(o) => o.parent_ref.as_ref(),
            Operation::CreateConnector(_) => None,
        }
        .map(Ref::as_str)
    }

    /// The color field, for alias preprocessing.
    pub fn color_mut(&mut self) -> &mut Option<String> {
        match self {
            Operation::CreateFrame(o) => &mut o.color,
            Operation::CreateNote(o) => &mut o.color,
            Operation::CreateShape(o) => &mut o.color,
            Operation::CreateText(o) => &mut o.color,
            Operation::CreateConnector(o) => &mut o.color,
        }
    }
}

/// Layout directives of a batch (seed 000 R3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum LayoutDirective {
    #[serde(rename = "swot-2x2")]
    Swot2x2,
    #[serde(rename = "columns")]
    Columns,
    #[serde(rename = "journey-stages")]
    JourneyStages,
    #[serde(rename = "grid")]
    Grid,
    #[serde(rename = "rows")]
    Rows,
    #[serde(rename = "flowchart-top-down")]
    FlowchartTopDown,
    #[serde(rename = "flowchart-left-right")]
    FlowchartLeftRight,
    #[serde(rename = "freeform")]
    Freeform,
}

impl LayoutDirective {
    /// All eight directives.
    pub const ALL: [LayoutDirective; 8] = [
        LayoutDirective::Swot2x2,
        LayoutDirective::Columns,
        LayoutDirective::JourneyStages,
        LayoutDirective::Grid,
        LayoutDirective::Rows,
        LayoutDirective::FlowchartTopDown,
        LayoutDirective::FlowchartLeftRight,
        LayoutDirective::Freeform,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LayoutDirective::Swot2x2 => "swot-2x2",
            LayoutDirective::Columns => "columns",
            LayoutDirective::JourneyStages => "journey-stages",
            LayoutDirective::Grid => "grid",
            LayoutDirective::Rows => "rows",
            LayoutDirective::FlowchartTopDown => "flowchart-top-down",
            LayoutDirective::FlowchartLeftRight => "flowchart-left-right",
            LayoutDirective::Freeform => "freeform",
        }
    }
}

/// `batchOperations` (seed 000 R4 plus DESIGN §7's extensions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchOperations {
    /// Operations in dependency order: frames, then their children, then connectors.
    #[schemars(length(min = 1, max = MAX_OPERATIONS))]
    pub operations: Vec<Operation>,
    /// How to arrange the batch; omit for a simple row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_directive: Option<LayoutDirective>,
    /// Title of the whole structure (shown as a text above it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Columns of a `grid` directive (default: a square-ish grid).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<usize>,
    /// The structure the batch builds, for the reply ("a fishbone diagram"): set by the
    /// template router, never by the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub structure: Option<String>,
    /// A sentence the reply ends with (what filling the batch needs): set by the template
    /// router, never by the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub notice: Option<String>,
}

/// One edit of `updateElements`, by real id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ElementUpdate {
    /// Id of an existing object (from the board state).
    pub id: String,
    /// New text (a frame's title, a connector's label).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// New color: palette name or alias.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// New absolute left edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// New absolute top edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// Relative move right (negative: left), e.g. 100 for "to the right".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dx: Option<f64>,
    /// Relative move down (negative: up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<f64>,
    /// New width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w: Option<f64>,
    /// New height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub h: Option<f64>,
    /// Scale factor about the centre: 2 = twice as big, 0.5 = half the size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// Rotation in degrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<f64>,
    /// Id of the frame to put the object in; "" takes it out of its frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// New shape geometry of a shape: rectangle, ellipse, diamond, triangle, hexagon, star, cloud.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geo: Option<String>,
    /// New arrowheads of a connector: end, both, none (a plain line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrow: Option<ArrowKind>,
    /// Drawing order: "front" brings the object above all others, "back" sends it below them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<Layer>,
    /// New place in the drawing order (higher is drawn in front), as the offline planner's
    /// relative layering computes it ("put X behind Y").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z: Option<i64>,
}

/// Where an object goes in the drawing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    Front,
    Back,
}

/// `updateElements`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateElements {
    /// Edits, each naming a real object id.
    #[schemars(length(min = 1, max = MAX_OPERATIONS))]
    pub updates: Vec<ElementUpdate>,
}

/// Arrangements for existing objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ArrangeLayout {
    #[serde(rename = "grid")]
    Grid,
    #[serde(rename = "row")]
    Row,
    #[serde(rename = "column")]
    Column,
    #[serde(rename = "circle")]
    Circle,
    #[serde(rename = "tree")]
    Tree,
    #[serde(rename = "flowchart-top-down")]
    FlowchartTopDown,
    #[serde(rename = "flowchart-left-right")]
    FlowchartLeftRight,
}

impl ArrangeLayout {
    /// A word for replies.
    pub fn as_str(self) -> &'static str {
        match self {
            ArrangeLayout::Grid => "grid",
            ArrangeLayout::Row => "row",
            ArrangeLayout::Column => "column",
            ArrangeLayout::Circle => "circle",
            ArrangeLayout::Tree => "tree",
            ArrangeLayout::FlowchartTopDown => "top-down flowchart",
            ArrangeLayout::FlowchartLeftRight => "left-to-right flowchart",
        }
    }
}

/// `layoutElements`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LayoutElements {
    /// Ids of existing objects to arrange.
    #[schemars(length(min = 1))]
    pub ids: Vec<String>,
    /// The arrangement.
    pub layout: ArrangeLayout,
    /// Gap between objects in px (default 40).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spacing: Option<f64>,
}

/// `deleteElements`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeleteElements {
    /// Ids of existing objects to delete (a frame takes its children with it).
    #[schemars(length(min = 1))]
    pub ids: Vec<String>,
}

/// `duplicateElements`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DuplicateElements {
    /// Ids of existing objects to copy (a frame is copied with its children).
    #[schemars(length(min = 1))]
    pub ids: Vec<String>,
    /// Offset of the copies to the right (default: beside the originals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dx: Option<f64>,
    /// Offset of the copies downwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<f64>,
}

/// Puts existing objects in a new frame drawn around them (the planner's "group these into a
/// frame called X"; not a tool of the LLM).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GroupElements {
    /// Ids of the objects to group.
    pub ids: Vec<String>,
    /// The new frame's title.
    pub name: String,
}

/// `getBoardState` filters (all optional; none returns everything, capped).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetBoardState {
    /// Words to look for in object text (an image's alt text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Kinds to keep: note, shape, text, frame, connector, image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinds: Option<Vec<String>>,
    /// Color names to keep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<String>>,
    /// Ids to fetch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<String>>,
}

/// A button of a question (seed 002 §6.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Button {
    /// Button text.
    pub label: String,
    /// Answer value when clicked.
    pub value: Value,
    /// primary, secondary or danger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// One question of `askUser`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Question {
    /// Identifier of the answer.
    pub name: String,
    /// Question text (Markdown).
    pub question: String,
    /// JSON Schema the answer must satisfy (boolean, string enum, pattern, array, object).
    pub schema: Value,
    /// Optional buttons that answer with their value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buttons: Option<Vec<Button>>,
}

/// `askUser`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AskUser {
    /// Questions, asked together.
    #[schemars(length(min = 1))]
    pub questions: Vec<Question>,
}

/// `exitPlanMode`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExitPlanMode {
    /// Path of the approved plan, `/plans/<name>.plan`.
    pub plan_file_path: String,
}

/// `writePlan` (plan mode): the only write allowed there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WritePlan {
    /// `/plans/<name>.plan`.
    pub path: String,
    /// The plan: a markdown checklist (`- [ ] step`).
    pub content: String,
}

/// Replaces a color alias with its palette name (seed 000 R10: "purple" → "violet"); hex and
/// unknown names are kept (the board resolves hex and falls back to the kind's default).
pub fn preprocess_color(c: &mut Option<String>) {
    if let Some(v) = c.as_mut()
        && let Some(name) = protocol::palette::canonical_name(v)
    {
        *v = name.to_string();
    }
}

impl BatchOperations {
    /// Applies [`preprocess_color`] to every color field.
    pub fn preprocess(&mut self) {
        for op in &mut self.operations {
            preprocess_color(op.color_mut());
        }
    }
}

impl UpdateElements {
    /// Applies [`preprocess_color`] to every color field.
    pub fn preprocess(&mut self) {
        for u in &mut self.updates {
            preprocess_color(&mut u.color);
        }
    }
}
