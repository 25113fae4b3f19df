//! Two commands in one: "copy Buy milk and put it below Login", "add a note and make it red",
//! "move the circle left, then make it blue". What follows "and" / "then" must start with a
//! verb (lowercase: "Write docs" is a name) and both halves must parse on their own; "it" and
//! "them" in the second half mean what the first half made or acted on.

use super::build::{Built, build, nf};
use super::lexicon::canonical;
use super::parse::{Command, MoveSpec, Target, parse, verb};
use super::placing::spot;
use super::targets::{Miss, Scope, resolve_target};
use crate::intent::{Intent, StagedCall};
use crate::schema::DuplicateElements;
use protocol::BoardObject;

/// Separators between two commands, longest first.
const SEPARATORS: [&str; 5] = [", and then ", " and then ", ", then ", " and ", " then "];

/// The two commands of a text that holds two, or `None`.
pub(super) fn parse_two(text: &str) -> Option<Command> {
    let lower = crate::lex::lower_aligned(text);
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
            .is_some_and(|w| matches!(w.as_str(), "it" | "them" | "this" | "these"));
        if super::content::split_create(first).text.is_some() && !on_first {
            return None;
        }
        let (a, b) = (parse(first)?, parse(second)?);
        let question = |c: &Command| matches!(c, Command::Ask(_) | Command::Then(..));
        (!question(&a) && !question(&b)).then(|| Command::Then(Box::new(a), Box::new(b)))
    })
}

fn on_it(t: &Target) -> bool {
    matches!(t, Target::It | Target::Them)
}

/// The objects a command acts on, for "it" in the command after it.
fn target_mut(c: &mut Command) -> Option<&mut Target> {
    match c {
        Command::Move(t, _)
        | Command::Resize(t, _)
        | Command::Recolor(t, _)
        | Command::Retext(t, _)
        | Command::Delete(t)
        | Command::Duplicate(t, _)
        | Command::Reshape(t, _)
        | Command::Restyle(t, _)
        | Command::Group(t, _)
        | Command::Ungroup(t)
        | Command::Arrange(t, _)
        | Command::Layer(t, _)
        | Command::Connect(t, _, _) => Some(t),
        _ => None,
    }
}

/// Builds two commands as one intent.
pub(super) fn build_two(a: Command, b: Command, s: &Scope) -> Result<Built, Miss> {
    match (a, b) {
        // A new object and where or how it goes: one create.
        (Command::Create(mut spec), Command::Move(t, m)) if on_it(&t) => {
            match m {
                MoveSpec::Beside(rel, r) => spec.beside = Some((rel, *r)),
                MoveSpec::To(x, y) => spec.at = Some((x, y)),
                MoveSpec::Into(f) => spec.parent = Some(*f),
                MoveSpec::By(..) => {}
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
        (Command::Create(_) | Command::Creates(_) | Command::Duplicate(..), b)
            if target_mut(&mut b.clone()).is_some_and(|t| on_it(t)) =>
        {
            nf("I can do that in two steps: first the new object, then what to do with it.")
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

/// Pronouns a second clause uses for what the first clause named.
fn is_pronoun(w: &str) -> bool {
    matches!(
        w,
        "it" | "them" | "they" | "those" | "these" | "this" | "that"
    )
}

/// True when the words name what a command acts on: a color or a kind word, alone or after
/// "a" / "an".
fn is_value(ws: &[String]) -> bool {
    let ws = super::parse::strip_front(ws, &["a", "an", "into", "to"]);
    let ws = match ws {
        [head @ .., last] if matches!(last.as_str(), "instead" | "now" | "too") => head,
        _ => ws,
    };
    match ws {
        [w] => {
            super::vocab::kind_word(w).is_some()
                || super::vocab::color_at(ws, 0).is_some_and(|(_, n)| n == 1)
        }
        [_, _] => super::vocab::color_at(ws, 0).is_some_and(|(_, n)| n == 2),
        _ => false,
    }
}

/// "red circle -> triangle", "all notes in Risks -> red", "recolor Hello world -> pink": the
/// arrow means "to" when what follows it is one color or kind.
pub(super) fn parse_arrow(text: &str) -> Option<Command> {
    let (left, r) = arrow_edit(text)?;
    let l = canonical(left);
    let lead = l.iter().find(|w| !super::lexicon::is_leading_filler(w))?;
    let rewritten = if verb(lead).is_some() {
        format!("{} to {}", left.trim(), r.join(" "))
    } else {
        format!("turn {} into {}", left.trim(), r.join(" "))
    };
    parse(&rewritten)
}

/// "X -> Y" where Y is one color or kind: the part before the arrow and Y's words.
pub(super) fn arrow_edit(text: &str) -> Option<(&str, Vec<String>)> {
    let (left, right) = text.split_once("->").or_else(|| text.split_once('→'))?;
    if right.contains("->") || right.contains('→') || left.trim().is_empty() {
        return None;
    }
    let r: Vec<String> = canonical(right)
        .into_iter()
        .filter(|w| !super::lexicon::is_leading_filler(w) && w != "please")
        .collect();
    is_value(&r).then_some((left, r))
}

/// A command written with the object first: "the notes in Risks, make them red" (the pronoun is
/// the phrase before the comma), "the line between A and B, arrow both sides" (the rest says what
/// it becomes).
pub(super) fn parse_topic(text: &str) -> Option<Command> {
    let (left, right) = text.split_once(", ")?;
    if left.matches(['"', '“', '”']).count() % 2 == 1 {
        return None;
    }
    let l = canonical(left);
    let first = l.iter().find(|w| !super::lexicon::is_leading_filler(w))?;
    let definite = matches!(
        first.as_str(),
        "the" | "all" | "every" | "each" | "my" | "those" | "these" | "whichever"
    );
    if !definite || super::parse::target(&l).is_none() {
        return None;
    }
    let r = canonical(right);
    let lead = r.iter().find(|w| !super::lexicon::is_leading_filler(w))?;
    let cmd = if verb(lead).is_some() {
        // "make them red": the pronoun is the topic.
        let mut at = None;
        for w in right.split_whitespace() {
            let bare = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if is_pronoun(&bare) {
                at = Some((w.as_ptr() as usize - right.as_ptr() as usize, w.len()));
                break;
            }
        }
        let (k, n) = at?;
        parse(&format!(
            "{}{}{}",
            &right[..k],
            left.trim(),
            &right[k + n..]
        ))?
    } else {
        // "arrow both sides", "pink": what the topic becomes.
        parse(&format!("make {} {}", left.trim(), right.trim()))?
    };
    (!matches!(
        cmd,
        Command::Create(_) | Command::Creates(_) | Command::Ask(_)
    ))
    .then_some(cmd)
}

/// "the note that says X to say Y", "the line to have arrowheads at both ends", "the boxes be
/// made orange", "the note should be red": the object, then what it becomes (as after "make").
pub(super) fn wish(ws: &[String]) -> Option<Vec<String>> {
    let modal = |w: &str| {
        matches!(
            w,
            "to" | "should" | "must" | "will" | "could" | "would" | "can"
        )
    };
    let done = |w: &str| {
        matches!(
            w,
            "made"
                | "turned"
                | "changed"
                | "colored"
                | "coloured"
                | "painted"
                | "converted"
                | "set"
        )
    };
    // "(could) the line have arrowheads at both ends": the modal was polite filler.
    let both = ws.len() >= 2
        && ws[ws.len() - 2] == "both"
        && matches!(
            ws[ws.len() - 1].as_str(),
            "ends" | "ways" | "sides" | "directions"
        );
    let b = (1..ws.len()).find(|&b| {
        let w = ws[b].as_str();
        modal(&ws[b - 1]) && matches!(w, "be" | "say" | "read" | "have" | "point" | "become")
            || w == "be" && ws.get(b + 1).is_some_and(|n| done(n))
            // "(can) the red circle be a star", "(could) Checkout become a cloud".
            || matches!(w, "be" | "become") && is_value(&ws[b + 1..])
            || both && matches!(w, "have" | "point" | "go")
    })?;
    let mut head = if modal(&ws[b - 1]) { b - 1 } else { b };
    // "the shape in the corner needs to be green", "the note has to say Hi".
    while head > 1
        && matches!(
            ws[head - 1].as_str(),
            "needs" | "need" | "has" | "have" | "ought" | "got" | "is" | "are" | "supposed"
        )
    {
        head -= 1;
    }
    let mut rest: Vec<String> = ws[..head].to_vec();
    let mut tail = &ws[b..];
    if tail[0] == "be" || tail[0] == "become" {
        tail = &tail[1..];
        if tail.first().is_some_and(|n| done(n)) {
            tail = super::parse::strip_front(&tail[1..], &["to", "into"]);
        }
    }
    rest.extend_from_slice(tail);
    Some(rest)
}

/// "the frame on the right should be called Finished", "the note needs to be named Later": a
/// new text.
pub(super) fn wish_named(ws: &[String], raw: &str) -> Option<Command> {
    let b = (1..ws.len().saturating_sub(2)).find(|&b| {
        ws[b] == "be"
            && matches!(
                ws[b + 1].as_str(),
                "called" | "named" | "renamed" | "titled" | "labeled" | "labelled" | "retitled"
            )
    })?;
    let mut head = b;
    while head > 1
        && matches!(
            ws[head - 1].as_str(),
            "to" | "should"
                | "must"
                | "will"
                | "could"
                | "would"
                | "can"
                | "needs"
                | "need"
                | "has"
                | "have"
                | "ought"
                | "is"
                | "are"
        )
    {
        head -= 1;
    }
    let text =
        super::edits::last_quote(raw).or_else(|| super::edits::text_after(raw, &ws[b + 1]))?;
    Some(Command::Retext(super::parse::target(&ws[..head])?, text))
}
