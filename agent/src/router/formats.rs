//! Well-known formats and defaults: retrospective formats by name, unnamed columns counted
//! ("kanban with 4 columns"), timelines over a range ("from 2020 to 2024") and 2×2 matrices
//! named by their axes or quadrants before "matrix" ("impact effort matrix").

use super::parts::{capitalize, parts};
use super::{Sections, Template, TemplateMatch, build, titled};
use crate::lang::content::list_items;
use crate::lang::lex::{has_phrase, number};
use crate::lang::structures::{KANBAN_COLUMNS, RETRO_FORMATS};
use crate::schema::LayoutDirective;

/// Retrospective formats people ask for by name.
pub fn retro_format(ws: &[String]) -> Option<Sections> {
    let (_, cols) = RETRO_FORMATS
        .iter()
        .find(|(ps, _)| ps.iter().any(|p| has_phrase(ws, p)))?;
    Some(titled(cols))
}

/// "with 4 columns", "5 stages": how many unnamed parts were asked for.
pub fn counted_parts(ws: &[String]) -> Option<usize> {
    const PARTS: &[&str] = &[
        "columns", "column", "cols", "lanes", "stages", "stage", "steps", "step", "phases",
        "sections", "lists",
    ];
    let i = ws.iter().position(|w| PARTS.contains(&w.as_str()))?;
    let n = number(ws.get(i.checked_sub(1)?)?)?;
    ((1.0..=12.0).contains(&n) && n.fract() == 0.0).then_some(n as usize)
}

/// `n` kanban columns with the usual names.
pub fn kanban_columns(n: usize) -> Sections {
    match n.checked_sub(1).and_then(|k| KANBAN_COLUMNS.get(k)) {
        Some(names) => titled(names),
        None => (1..=n).map(|k| (format!("Column {k}"), vec![])).collect(),
    }
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// A timeline's periods over a range: "from 2020 to 2024", "2020-2024", "Jan to Jun",
/// "Q1 to Q4".
pub fn range(text: &str, ws: &[String]) -> Option<Vec<String>> {
    // "2020-2024": the dash between two numbers reads "to".
    let dashed = text.contains('-') || text.contains('–');
    let split: Vec<String> = if dashed {
        crate::lang::lex::words(&text.replace(['-', '–'], " to "))
    } else {
        ws.to_vec()
    };
    let k = split
        .iter()
        .position(|w| matches!(w.as_str(), "to" | "through" | "till" | "until"))?;
    let (a, b) = (split.get(k.checked_sub(1)?)?, split.get(k + 1)?);
    if let (Ok(x), Ok(y)) = (a.parse::<u32>(), b.parse::<u32>())
        && (1000..=2999).contains(&x)
        && x < y
        && y - x <= 20
    {
        return Some((x..=y).map(|v| v.to_string()).collect());
    }
    let month = |w: &str| {
        MONTHS
            .iter()
            .position(|m| w.get(..3).is_some_and(|p| m.starts_with(p)))
    };
    if let (Some(x), Some(y)) = (month(a), month(b))
        && x < y
    {
        return Some((x..=y).map(|v| capitalize(MONTHS[v])).collect());
    }
    let quarter = |w: &str| {
        w.strip_prefix('q')?
            .parse::<u32>()
            .ok()
            .filter(|q| (1..=4).contains(q))
    };
    let (x, y) = (quarter(a)?, quarter(b)?);
    (x < y).then(|| (x..=y).map(|q| format!("Q{q}")).collect())
}

/// Words before "matrix" that name it: four quadrants ("do/schedule/delegate/delete matrix")
/// or two axes ("impact effort matrix", "effort/impact matrix").
pub fn named_matrix(text: &str) -> Option<Vec<String>> {
    let lower = crate::lang::lex::lower_aligned(text);
    let i = lower.find(" matrix")?;
    let before = &text[..i];
    let last = before.rsplit(' ').next()?;
    if last.contains('/') {
        let items: Vec<String> = last
            .split('/')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        return matches!(items.len(), 2 | 4).then_some(items);
    }
    const NOT_AXES: &[&str] = &[
        "a",
        "an",
        "the",
        "make",
        "create",
        "draw",
        "me",
        "us",
        "priority",
        "decision",
        "simple",
        "new",
        "blank",
        "big",
        "quick",
        "2x2",
        "eisenhower",
        "risk",
        "skills",
        "my",
        "our",
        "for",
        "with",
        "urgent",
        "important",
        "urgency",
        "importance",
        "of",
        "to",
        "and",
        "pls",
        "please",
        "add",
        "set",
        "up",
        "build",
        "do",
        "get",
        "have",
        "need",
        "want",
        "like",
        "grid",
        "2",
        "by",
        "two",
        "x",
        "empty",
        "basic",
        "standard",
    ];
    let ws: Vec<&str> = before.split(' ').rev().take(2).collect();
    let [y, x] = ws[..] else {
        return None;
    };
    let ok = |w: &str| {
        w.len() >= 3
            && w.chars().all(char::is_alphabetic)
            && !NOT_AXES.contains(&w.to_lowercase().as_str())
    };
    (ok(x) && ok(y)).then(|| vec![x.to_string(), y.to_string()])
}

/// A 2×2 matrix: quadrants named by the user, or built from two named axes ("effort vs impact",
/// "with axes Effort and Impact"), or generic.
pub fn matrix_2x2(text: &str) -> TemplateMatch {
    let lower = crate::lang::lex::lower_aligned(text);
    let named = named_matrix(text);
    // Four listed names are the quadrants ("a 2x2 with Quick wins, Major projects, …").
    let quadrants = parts(text)
        .filter(|p| p.len() == 4)
        .or_else(|| named.clone().filter(|n| n.len() == 4));
    let axes: Option<(String, String)> = {
        let vs = [" vs. ", " vs ", " versus "]
            .iter()
            .find_map(|m| lower.find(m).map(|i| (i, m.len())));
        if let Some((i, n)) = vs {
            let left = text[..i].split([' ', ':']).next_back().unwrap_or("").trim();
            let right = text[i + n..].split_whitespace().next().unwrap_or("").trim();
            Some((
                left.to_string(),
                right.trim_end_matches(['.', ',']).to_string(),
            ))
        } else if let Some(n) = named.filter(|n| n.len() == 2) {
            Some((n[0].clone(), n[1].clone()))
        } else if let Some(i) = lower
            .find(" as the axes")
            .or_else(|| lower.find(" as axes"))
        {
            let from = lower[..i].rfind(" with ").map_or(0, |w| w + 6);
            let items = list_items(&text[from..i]);
            (items.len() == 2).then(|| (items[0].clone(), items[1].clone()))
        } else {
            lower
                .find("axes")
                .or_else(|| lower.find("axis"))
                .and_then(|i| {
                    let tail = text[i..].split_once(' ')?.1;
                    let items = list_items(tail.trim_start_matches(':'));
                    (items.len() == 2).then(|| (items[0].clone(), items[1].clone()))
                })
        }
    }
    .filter(|(a, b)| !a.is_empty() && !b.is_empty());
    let names: Vec<String> = match (&quadrants, &axes) {
        (Some(q), _) => q.clone(),
        (None, Some((x, y))) => vec![
            format!("High {y}, low {x}"),
            format!("High {y}, high {x}"),
            format!("Low {y}, low {x}"),
            format!("Low {y}, high {x}"),
        ],
        (None, None) => ["Quadrant 1", "Quadrant 2", "Quadrant 3", "Quadrant 4"]
            .map(String::from)
            .to_vec(),
    };
    let title = axes.as_ref().map(|(x, y)| format!("{x} vs {y}"));
    let s: Sections = names.into_iter().map(|n| (n, Vec::new())).collect();
    build(Template::Matrix, title, LayoutDirective::Swot2x2, s)
}
