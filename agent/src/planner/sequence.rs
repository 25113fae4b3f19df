//! Two commands in one: "copy Buy milk and put it below Login", "add a note and make it red",
//! "move the circle left, then make it blue". What follows "and" / "then" must start with a
//! verb (lowercase: "Write docs" is a name) and both halves must parse on their own; "it" and
//! "them" in the second half mean what the first half made or acted on.

use super::common::{Builder, Built, nf};
use super::placing::{corner_spot, spot};
use super::syntax::Parser;
use super::syntax::{Command, MoveSpec, Target};
use super::targets::{Miss, Scope, resolve_target};
use crate::intent::{Intent, StagedCall};
use crate::lang::lexicon::canonical;
use crate::lang::verbs::verb;
use crate::schema::DuplicateElements;
use protocol::BoardObject;

/// Separators between two commands, longest first.
const SEPARATORS: [&str; 5] = [", and then ", " and then ", ", then ", " and ", " then "];

/// The two commands of a text that holds two, or `None`.
pub(super) fn parse_two(text: &str, parse: Parser) -> Option<Command> {
    // Cheap first: no "and" and no "then", no two commands.
    if crate::lang::lex::find_short(text, "and").is_none()
        && crate::lang::lex::find_short(text, "then").is_none()
        && crate::lang::lex::find_short(text, "And").is_none()
        && crate::lang::lex::find_short(text, "Then").is_none()
    {
        return None;
    }
    let lower = crate::lang::lex::lower_aligned(text);
    if lower.len() != text.len() {
        return None;
    }
    let mut cuts: Vec<(usize, usize)> = SEPARATORS
        .iter()
        .flat_map(|m| lower.match_indices(m).map(|(i, m)| (i, m.len())))
        .collect();
    cuts.sort_unstable();
    cuts.into_iter().find_map(|(i, n)| {
        let (first, second) = (&text[..i], &text[i + n..]);
        // Not inside quotes: "Write 'Tom and Jerry'".
        if first.matches(['"', '“', '”']).count() % 2 == 1 || first.trim().is_empty() {
            return None;
        }
        let second = second.trim_start_matches(',').trim();
        let lead = second.split_whitespace().next()?;
        let lead_ws = canonical(lead);
        if !lead.starts_with(|c: char| c.is_ascii_lowercase())
            || lead_ws.first().and_then(|w| verb(w)).is_none()
        {
            return None;
        }
        // "a note saying review and delete old tickets" is one note: after content, the second
        // command must act on "it".
        let on_first = canonical(second)
            .get(1)
            .is_some_and(|w| matches!(w.as_str(), "it" | "them" | "this" | "these" | "each"));
        if crate::lang::content::split_create(first).text.is_some() && !on_first {
            return None;
        }
        let (a, b) = (parse(first)?, parse(second)?);
        let question = |c: &Command| matches!(c, Command::Ask(_) | Command::Then(..));
        (!question(&a) && !question(&b)).then(|| Command::Then(Box::new(a), Box::new(b)))
    })
}

/// The batch layout of an arrangement, where a batch has one.
fn directive(l: crate::schema::ArrangeLayout) -> Option<crate::schema::LayoutDirective> {
    use crate::schema::{ArrangeLayout, LayoutDirective};
    match l {
        ArrangeLayout::Row => Some(LayoutDirective::Rows),
        ArrangeLayout::Grid => Some(LayoutDirective::Grid),
        ArrangeLayout::FlowchartTopDown => Some(LayoutDirective::FlowchartTopDown),
        ArrangeLayout::FlowchartLeftRight => Some(LayoutDirective::FlowchartLeftRight),
        _ => None,
    }
}

fn on_it(t: &Target) -> bool {
    matches!(t, Target::It | Target::Them)
}

/// The objects a command acts on, for "it" in the command after it.
pub(super) fn target_mut(c: &mut Command) -> Option<&mut Target> {
    match c {
        Command::Connect(t, _, _) => Some(t),
        c => c.target_mut(),
    }
}

/// Builds two commands as one intent.
pub(super) fn build_two(a: Command, b: Command, s: &Scope, build: Builder) -> Result<Built, Miss> {
    match (a, b) {
        // A new object and where or how it goes: one create.
        (Command::Create(mut spec), Command::Move(t, m)) if on_it(&t) => {
            match m {
                MoveSpec::Beside(rel, r) => spec.beside = Some((rel, *r)),
                MoveSpec::To(x, y) => spec.at = Some((x, y)),
                MoveSpec::Into(f) => spec.parent = Some(*f),
                MoveSpec::By(..) | MoveSpec::Corner(..) => {}
            }
            build(Command::Create(spec), s)
        }
        (Command::Create(mut spec), Command::Recolor(t, c)) if on_it(&t) => {
            spec.color = Some(c);
            build(Command::Create(spec), s)
        }
        (Command::Create(mut spec), Command::Retext(t, text)) if on_it(&t) => {
            spec.texts = vec![text];
            build(Command::Create(spec), s)
        }
        // Copies placed somewhere: the copies go there, the originals stay.
        (Command::Duplicate(t, _), Command::Move(it, m)) if on_it(&it) => {
            let ids = resolve_target(&t, s)?;
            let objs: Vec<&BoardObject> =
                ids.iter().filter_map(|i| s.board.get(i.as_str())).collect();
            let x0 = objs.iter().map(|o| o.x).fold(f64::INFINITY, f64::min);
            let y0 = objs.iter().map(|o| o.y).fold(f64::INFINITY, f64::min);
            let x1 = objs.iter().map(|o| o.x + o.w).fold(x0, f64::max);
            let y1 = objs.iter().map(|o| o.y + o.h).fold(y0, f64::max);
            let (dx, dy) = match m {
                MoveSpec::By(dx, dy) => (dx, dy),
                MoveSpec::To(x, y) => (x - x0, y - y0),
                MoveSpec::Corner(v, h) => {
                    let (x, y) = corner_spot(&ids, v, h, s)?;
                    (x - x0, y - y0)
                }
                MoveSpec::Beside(rel, r) => {
                    let (x, y) = spot((x1 - x0, y1 - y0), rel, &r, s, &[])?;
                    (x - x0, y - y0)
                }
                MoveSpec::Into(_) => {
                    return nf("Copy it first, then put the copy in the frame.");
                }
            };
            let call = StagedCall::DuplicateElements(DuplicateElements {
                ids: ids.iter().map(|i| i.to_string()).collect(),
                dx: Some(dx),
                dy: Some(dy),
            });
            Ok((Intent::one(call), ids, None))
        }
        // New objects laid out in a row or a grid: one create.
        (Command::Create(mut spec), Command::Arrange(t, l))
            if on_it(&t) && directive(l).is_some() =>
        {
            spec.layout = directive(l);
            build(Command::Create(spec), s)
        }
        // New objects and their connectors: one batch.
        (a @ (Command::Create(_) | Command::Creates(_)), Command::Connect(x, y, style))
            if on_it(&x) || y.as_ref().is_some_and(on_it) =>
        {
            connect::create_and_connect(a, x, y, style, s, build)
        }
        (Command::Create(_) | Command::Creates(_) | Command::Duplicate(..), b)
            if target_mut(&mut b.clone()).is_some_and(|t| on_it(t)) =>
        {
            nf("I can do that in two steps: first the new object, then what to do with it.")
        }
        // "delete the shapes and make them red": nothing is left to change.
        (Command::Delete(_), b) if target_mut(&mut b.clone()).is_some_and(|t| on_it(t)) => {
            nf("Those objects would be deleted first, so there is nothing left to change.")
        }
        (mut a, mut b) => {
            if let (Some(t), Some(bt)) = (target_mut(&mut a).cloned(), target_mut(&mut b))
                && on_it(bt)
            {
                *bt = t;
            }
            let (ia, mut ta, xa) = build(a, s)?;
            let (ib, tb, xb) = build(b, s)?;
            for i in tb {
                if !ta.contains(&i) {
                    ta.push(i);
                }
            }
            let touched = match (xa, xb) {
                (Some(mut x), Some(y)) => {
                    x.ids.extend(y.ids);
                    Some(x)
                }
                (x, y) => x.or(y),
            };
            let calls = ia.calls.into_iter().chain(ib.calls).collect();
            Ok((Intent { calls }, ta, touched))
        }
    }
}

mod connect;
mod topic;
pub(super) use topic::{parse_arrow, parse_topic, wish, wish_named};
