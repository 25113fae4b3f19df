//! Cards a person adds to a structure's columns in a second sentence: "kanban: To do, Doing,
//! Done. Put dishes, hoovering and walk the dog in To do".

use super::TemplateMatch;
use crate::intent::StagedCall;
use crate::lang::content::list_items;
use crate::schema::{CreateNote, Geometry, Operation, Ref};

/// Ways to read one sentence that puts cards in a column: (column, cards), one per place the
/// column's name may start ("… in To do": "To do" or "do").
type Placed = Vec<(String, Vec<String>)>;

/// Sentences after the first that put listed cards in a named column: the text without them,
/// and the readings of each.
pub(super) fn split(text: &str) -> (String, Vec<Placed>) {
    let mut head = String::new();
    let mut cards = Vec::new();
    for (k, sentence) in text.split_inclusive(['.', ';']).enumerate() {
        match (k > 0).then(|| placed(sentence)).flatten() {
            Some(c) => cards.push(c),
            None => head.push_str(sentence),
        }
    }
    if cards.is_empty() {
        return (text.to_string(), cards);
    }
    (
        head.trim_end().trim_end_matches(['.', ';']).to_string(),
        cards,
    )
}

/// "put A, B and C in To do", "add X to Done", "Y and Z go under Doing".
fn placed(sentence: &str) -> Option<Placed> {
    let s = sentence.trim().trim_end_matches(['.', ';', '!']).trim();
    let lower = crate::lang::lex::lower_aligned(s);
    if lower.len() != s.len() {
        return None;
    }
    let verb = ["put ", "add ", "place ", "stick ", "move "]
        .iter()
        .find(|v| lower.starts_with(*v))?;
    let mut out = Vec::new();
    for m in [" in ", " into ", " under ", " to "] {
        for (i, _) in lower.match_indices(m) {
            let items = list_items(&s[verb.len()..i]);
            let column = s[i + m.len()..].trim();
            let column = column
                .strip_prefix("the ")
                .or_else(|| column.strip_prefix("The "))
                .unwrap_or(column);
            let column = [" column", " list", " lane"]
                .iter()
                .find_map(|w| column.strip_suffix(w))
                .unwrap_or(column);
            if !items.is_empty() && !column.is_empty() {
                out.push((column.to_string(), items));
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Adds the cards to the frames of `m` named like their columns; `None` when a column is not one
/// of them.
pub(super) fn add(mut m: TemplateMatch, cards: &[Placed]) -> Option<TemplateMatch> {
    let StagedCall::BatchOperations(batch) = m.intent.calls.first_mut()? else {
        return None;
    };
    for readings in cards {
        let (frame, items) = readings.iter().find_map(|(column, items)| {
            batch.operations.iter().find_map(|op| match op {
                Operation::CreateFrame(f) if f.name.eq_ignore_ascii_case(column) => {
                    Some((f.r#ref.clone(), items))
                }
                _ => None,
            })
        })?;
        for (k, text) in items.iter().enumerate() {
            batch.operations.push(Operation::CreateNote(CreateNote {
                r#ref: Ref(format!("{}_card_{}", frame.0, k + 1)),
                text: text.clone(),
                color: None,
                parent_ref: Some(frame.clone()),
                geometry: Geometry::default(),
            }));
        }
    }
    Some(m)
}
