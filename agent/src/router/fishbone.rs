//! A fishbone (Ishikawa, cause-and-effect) diagram: the problem as the head, each cause
//! category a frame (causes go in as notes) joined to it by an arrow, laid out left to right
//! (categories in a column, the problem to their right). Categories are the ones listed
//! ("with categories A, B, C", "fishbone: A, B, C"), else the six Ms.

use super::{Template, TemplateMatch, parts, structure_name};
use crate::intent::{Intent, StagedCall};
use crate::schema::{
    BatchOperations, CreateConnector, CreateFrame, CreateShape, Geometry, LayoutDirective,
    Operation, Ref,
};

/// The categories when none are listed.
pub use crate::lang::structures::FISHBONE_CATEGORIES as DEFAULT_CATEGORIES;

/// The head's text when no problem is named.
const DEFAULT_PROBLEM: &str = "Problem";

/// Words that name the diagram (one of them, or "fish bone", or "cause and effect").
fn names_fishbone(ws: &[String]) -> bool {
    let has = |w: &str| ws.iter().any(|x| x == w);
    has("fishbone")
        || has("fishbones")
        || has("ishikawa")
        || has("herringbone")
        || has("fish") && has("bone")
        || has("fish-bone")
        || has("cause") && has("effect") && (has("diagram") || has("chart"))
        || has("cause-and-effect")
}

/// Routes a fishbone request.
pub(super) fn route(text: &str, ws: &[String]) -> Option<TemplateMatch> {
    if !names_fishbone(ws) {
        return None;
    }
    let problem = problem(text);
    // "with causes A, B" lists categories too; a "problem: X" colon names the problem.
    let listing = text
        .replace(" causes ", " categories ")
        .replace(" Causes ", " categories ");
    let listing = match crate::lang::lex::lower_aligned(&listing).find("problem:") {
        Some(i) => listing[..i].to_string(),
        None => listing,
    };
    let parts = parts::typed_parts(&listing)
        .filter(|p| p.len() >= 2)
        .unwrap_or_else(|| DEFAULT_CATEGORIES.iter().map(|c| c.to_string()).collect());
    Some(build(&problem, &parts))
}

/// The problem: a quote, what follows "problem:", else what follows "for", "about" or "of" up
/// to a list ("with …", ":"), in the user's words.
fn problem(text: &str) -> String {
    let (quoted, _) = crate::lang::content::quotes(text);
    if let Some(q) = quoted.first() {
        return q.clone();
    }
    let lower = crate::lang::lex::lower_aligned(text);
    let start = lower
        .find("problem:")
        .map(|i| i + "problem:".len())
        .or_else(|| {
            [" for ", " about ", " of "]
                .iter()
                .filter_map(|m| lower.find(m).map(|i| i + m.len()))
                .min()
        });
    let Some(start) = start else {
        return DEFAULT_PROBLEM.into();
    };
    let rest = &text[start..];
    let lower_rest = &lower[start..];
    let end = [" with ", ":", ",", "?", "!", "."]
        .iter()
        .filter_map(|m| lower_rest.find(m))
        .min()
        .unwrap_or(rest.len());
    let p = rest[..end].trim();
    let p = p.strip_prefix("the problem ").unwrap_or(p).trim();
    if p.is_empty() || p.split_whitespace().count() > 12 {
        DEFAULT_PROBLEM.into()
    } else {
        p.to_string()
    }
}

fn build(problem: &str, parts: &[String]) -> TemplateMatch {
    let mut ops = vec![Operation::CreateShape(CreateShape {
        r#ref: Ref("problem".into()),
        geo: Some("rectangle".into()),
        text: Some(problem.to_string()),
        color: Some("light-red".into()),
        parent_ref: None,
        geometry: Geometry::default(),
    })];
    let parts: Vec<&String> = parts.iter().take(12).collect();
    for (i, p) in parts.iter().enumerate() {
        ops.push(Operation::CreateFrame(CreateFrame {
            r#ref: Ref(format!("cause_{}", i + 1)),
            name: parts::capitalize(p),
            color: None,
            parent_ref: None,
            geometry: Geometry::default(),
        }));
    }
    for i in 0..parts.len() {
        ops.push(Operation::CreateConnector(CreateConnector {
            r#ref: Ref(format!("bone_{}", i + 1)),
            from_ref: Some(Ref(format!("cause_{}", i + 1))),
            to_ref: Some(Ref("problem".into())),
            from_id: None,
            to_id: None,
            label: None,
            color: None,
            arrow: None,
        }));
    }
    TemplateMatch {
        template: Template::Fishbone,
        intent: Intent::one(StagedCall::BatchOperations(BatchOperations {
            operations: ops,
            layout_directive: Some(LayoutDirective::FlowchartLeftRight),
            structure: structure_name(Template::Fishbone).map(str::to_string),
            ..BatchOperations::default()
        })),
    }
}
