//! Named structures' defaults, as data: the sections of a SWOT analysis, a kanban board, a
//! customer journey and retrospectives (with the formats people ask for by name), kanban columns
//! by count, and the cause categories of a fishbone diagram.

/// A section's title and the prompts that go in it.
pub type Section = (&'static str, &'static [&'static str]);

pub const SWOT: &[Section] = &[
    (
        "Strengths",
        &["What do we do well?", "What unique resources do we have?"],
    ),
    (
        "Weaknesses",
        &["Where do we fall short?", "What do others do better?"],
    ),
    (
        "Opportunities",
        &["What trends can we use?", "What needs are unmet?"],
    ),
    (
        "Threats",
        &["What could hurt us?", "What are competitors doing?"],
    ),
];

pub const KANBAN: &[Section] = &[("To Do", &["New task"]), ("Doing", &[]), ("Done", &[])];

pub const JOURNEY: &[Section] = &[
    ("Awareness", &["How do they find us?"]),
    ("Consideration", &["What do they compare?"]),
    ("Purchase", &["What makes them decide?"]),
    ("Retention", &["Why do they stay?"]),
    ("Advocacy", &["Why do they recommend us?"]),
];

/// A retrospective's columns when no format is named.
pub const RETRO: &[&str] = &["Start", "Stop", "Continue"];

/// Retrospective formats: the phrases that name one, and its columns (first match wins).
#[rustfmt::skip]
pub const RETRO_FORMATS: &[(&[&str], &[&str])] = &[
    (&["4ls", "4 ls", "four ls", "liked learned lacked"], &["Liked", "Learned", "Lacked", "Longed for"]),
    (&["sailboat", "speedboat", "sail boat"], &["Wind", "Anchors", "Rocks", "Island"]),
    (&["starfish"], &["Keep doing", "More of", "Less of", "Start doing", "Stop doing"]),
    (&["kalm"], &["Keep", "Add", "Less", "More"]),
    (&["rose bud thorn", "rose thorn bud"], &["Rose", "Bud", "Thorn"]),
    (&["glad sad mad"], &["Glad", "Sad", "Mad"]),
];

/// Formats named by phrases the router reads before the named formats (first match wins).
pub const RETRO_PHRASES: &[(&[&str], &[&str])] = &[
    (&["mad sad glad"], &["Mad", "Sad", "Glad"]),
    (
        &["went well", "lessons learned"],
        &["Went well", "To improve", "Action items"],
    ),
];

/// Kanban columns by how many were asked for (index: count - 1).
#[rustfmt::skip]
pub const KANBAN_COLUMNS: &[&[&str]] = &[
    &["To Do"],
    &["To Do", "Done"],
    &["To Do", "Doing", "Done"],
    &["To Do", "In Progress", "Review", "Done"],
    &["Backlog", "To Do", "In Progress", "Review", "Done"],
    &["Backlog", "To Do", "In Progress", "Review", "Testing", "Done"],
];

/// A fishbone diagram's cause categories when none are listed (the six Ms of manufacturing, in
/// everyday words).
pub const FISHBONE_CATEGORIES: &[&str] = &[
    "People",
    "Methods",
    "Machines",
    "Materials",
    "Measurements",
    "Environment",
];
