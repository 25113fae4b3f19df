//! Requests for content ("brainstorm 6 ideas for the offsite", "list ideas for …", "come up
//! with 10 slogans for …"). Without a model the agent cannot write ideas: it lays out the
//! requested number of empty notes in a frame titled with the request's own words and says in
//! one sentence that filling them needs an AI model and how to configure one. It never writes
//! filler text into the notes.

use super::{Template, TemplateMatch, parts};
use crate::intent::{Intent, StagedCall};
use crate::schema::{
    BatchOperations, CreateFrame, CreateNote, Geometry, LayoutDirective, Operation, Ref,
};

/// Things people ask to have written, as the frame's title starts with them.
const IDEA_NOUNS: &[&str] = &[
    "ideas",
    "idea",
    "names",
    "slogans",
    "topics",
    "features",
    "ways",
    "risks",
    "questions",
    "reasons",
    "activities",
    "themes",
    "goals",
    "taglines",
    "options",
    "suggestions",
    "titles",
    "tips",
    "examples",
];

/// Verbs of asking for content ("brainstorm", "come up with", "think of").
const CONTENT_VERBS: &[&str] = &[
    "brainstorm",
    "brainstrom",
    "brainstorming",
    "list",
    "suggest",
    "propose",
    "generate",
    "come",
    "think",
    "dream",
    "give",
    "write",
    "jot",
    "need",
    "with",
];

/// What follows the noun and names the topic.
const TOPIC_MARKERS: &[&str] = &["for", "about", "on", "to", "of"];

/// How many notes when the request gives no number.
pub const DEFAULT_COUNT: usize = 6;

/// The sentence the reply ends with: what filling the notes needs.
pub const NEEDS_MODEL: &str = "Writing the ideas needs an AI model: set OPENAI_API_KEY (and \
OPENAI_BASE_URL and AI_MODEL for another provider) where the server runs, then ask again.";

/// Routes a content request: an idea noun followed by its topic, after a content verb or a
/// count ("6 ideas for the workshop").
pub(super) fn route(text: &str, ws: &[String]) -> Option<TemplateMatch> {
    let k = ws.iter().enumerate().position(|(k, w)| {
        IDEA_NOUNS.contains(&w.as_str())
            && ws
                .get(k + 1)
                .is_some_and(|m| TOPIC_MARKERS.contains(&m.as_str()))
            && ws.len() > k + 2
    })?;
    let asked = ws[..k].iter().any(|w| CONTENT_VERBS.contains(&w.as_str()));
    let counted = k > 0 && crate::lang::lex::number(&ws[k - 1]).is_some();
    if !(asked || counted || k == 0) {
        return None;
    }
    let title = title(text, &ws[k])?;
    Some(build(&title, count(&ws[..k])))
}

/// The number of notes: the count before the noun, "a few" 3, "a couple" 2, else the default.
fn count(before: &[String]) -> usize {
    let n = before.iter().rev().find_map(|w| {
        crate::lang::lex::number(w)
            .filter(|_| !matches!(w.as_str(), "a" | "an" | "one" | "some" | "few" | "couple"))
            .map(|n| n as usize)
    });
    let few = before.windows(2).any(|p| p[0] == "a" && p[1] == "few");
    let couple = before.windows(2).any(|p| p[0] == "a" && p[1] == "couple");
    n.or(few.then_some(3))
        .or(couple.then_some(2))
        .unwrap_or(DEFAULT_COUNT)
        .clamp(1, 50)
}

/// The frame's title: the request from the noun on, in the user's words ("Ideas for the team
/// offsite"), without a closing "please" or "thanks".
fn title(text: &str, noun: &str) -> Option<String> {
    let lower = crate::lang::lex::lower_aligned(text);
    let mut from = 0;
    let at = loop {
        let i = from + lower[from..].find(noun)?;
        let before_ok = i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric();
        let after_ok = lower
            .as_bytes()
            .get(i + noun.len())
            .is_none_or(|b| !b.is_ascii_alphanumeric());
        if before_ok && after_ok {
            break i;
        }
        from = i + noun.len();
    };
    let mut t = text[at..].trim();
    for cut in [",", ".", "!", "?", ";"] {
        if let Some(i) = t.find(cut) {
            t = t[..i].trim();
        }
    }
    for tail in [" please", " pls", " thanks", " thank you"] {
        if let Some(head) = t
            .len()
            .checked_sub(tail.len())
            .and_then(|at| t.get(at..).map(|end| (at, end)))
            .filter(|(_, end)| end.eq_ignore_ascii_case(tail))
            .map(|(at, _)| &t[..at])
        {
            t = head.trim();
        }
    }
    (!t.is_empty()).then(|| parts::capitalize(t))
}

fn build(title: &str, n: usize) -> TemplateMatch {
    let mut ops = vec![Operation::CreateFrame(CreateFrame {
        r#ref: Ref("ideas".into()),
        name: title.to_string(),
        color: None,
        parent_ref: None,
        geometry: Geometry::default(),
    })];
    for i in 0..n {
        ops.push(Operation::CreateNote(CreateNote {
            r#ref: Ref(format!("idea_{}", i + 1)),
            text: String::new(),
            color: None,
            parent_ref: Some(Ref("ideas".into())),
            geometry: Geometry::default(),
        }));
    }
    let structure = format!(
        "{n} empty note{} in a frame \"{title}\"",
        if n == 1 { "" } else { "s" }
    );
    TemplateMatch {
        template: Template::Ideas,
        intent: Intent::one(StagedCall::BatchOperations(BatchOperations {
            operations: ops,
            layout_directive: Some(LayoutDirective::Columns),
            structure: Some(structure),
            notice: Some(NEEDS_MODEL.into()),
            ..BatchOperations::default()
        })),
    }
}
