//! Descriptions fitted to the board once it is known: words the grammar read as a name that name
//! nothing on the board but do name something else. A frame called by what it is used as ("the
//! Done column", "the Ideas list") is that frame; a person ("alices notes", "the notes from
//! alice") is who created them. Only descriptions that match nothing as read are changed.

use super::syntax::BoardQuestion;
use super::syntax::{Author, Command, Desc, Target};
use super::targets::{Scope, matching};
use crate::lang::vocab::kind_word;
use protocol::Kind;

/// Words for what a frame is used as ("the Done column").
pub(super) fn is_container(w: &str) -> bool {
    matches!(
        w,
        "column"
            | "columns"
            | "col"
            | "list"
            | "lane"
            | "swimlane"
            | "bucket"
            | "stage"
            | "category"
            | "group"
            | "zone"
            | "panel"
            | "pile"
            | "bin"
            | "quadrant"
            | "board"
    )
}

/// Fits every description of a command to the board.
pub(super) fn fit_command(cmd: &mut Command, s: &Scope) {
    if let Command::Tidy(_, how) = cmd
        && let Some(r) = how.reference_mut()
    {
        fit_target(r, s);
    }
    if let Some(t) = cmd.target_mut() {
        return fit_target(t, s);
    }
    match cmd {
        Command::Ask(q) => fit_question(q, s),
        Command::Then(a, b) => {
            fit_command(a, s);
            fit_command(b, s);
        }
        _ => {}
    }
}

/// Fits the descriptions a board question names.
pub(super) fn fit_question(q: &mut BoardQuestion, s: &Scope) {
    match q {
        BoardQuestion::Count(d) => fit(d, s),
        BoardQuestion::Counts(ds) => ds.iter_mut().for_each(|d| fit(d, s)),
        BoardQuestion::Contents(t) | BoardQuestion::ColorOf(t) | BoardQuestion::TextOf(t) => {
            fit_target(t, s)
        }
        BoardQuestion::Selected | BoardQuestion::Colors => {}
    }
}

fn fit_target(t: &mut Target, s: &Scope) {
    if let Target::Desc(d) = t {
        fit(d, s);
    }
}

/// Fits one description (and the frame it is in, and the others joined to it).
pub(super) fn fit(d: &mut Desc, s: &Scope) {
    for other in &mut d.also {
        fit(other, s);
    }
    if let Some(f) = d.within.as_mut() {
        container(f, s);
        if let Some(who) = person(f, s, true) {
            d.author = Some(who);
            d.within = None;
        }
    }
    // "whatever is in the Done column": everything in it.
    if d.within.is_some()
        && matches!(
            d.text.as_deref(),
            Some("whatever" | "anything" | "contents" | "content" | "whatever's")
        )
    {
        d.text = None;
        d.all = true;
    }
    container(d, s);
    made_by(d, s);
    if let Some(who) = person(d, s, false) {
        d.author = Some(who);
        d.text = None;
    }
}

/// "the Done column": a name ending in a container word that matches nothing is the frame named
/// by the words before it.
fn container(d: &mut Desc, s: &Scope) {
    let Some(text) = d.text.as_deref() else {
        return;
    };
    let Some((name, last)) = text.rsplit_once(' ') else {
        return;
    };
    if !is_container(last)
        || d.kind.is_some_and(|k| k.kind != Kind::Frame)
        || !matching(d, s).is_empty()
    {
        return;
    }
    let mut f = d.clone();
    f.text = Some(name.to_string());
    f.kind = kind_word("frame");
    if !matching(&f, s).is_empty() {
        *d = f;
    }
}

/// "the notes alice added", "the notes I made", "the notes added by alice": a name that is a
/// making verb and who did it (the "by alice" already read as the author) names the maker.
fn made_by(d: &mut Desc, s: &Scope) {
    let Some(text) = d.text.as_deref() else {
        return;
    };
    if !text.split(' ').any(super::asking::is_making) || !matching(d, s).is_empty() {
        return;
    }
    let rest: Vec<&str> = text
        .split(' ')
        .filter(|w| {
            !super::asking::is_making(w)
                && !matches!(
                    *w,
                    "that"
                        | "which"
                        | "who"
                        | "were"
                        | "was"
                        | "been"
                        | "has"
                        | "have"
                        | "had"
                        | "did"
                        | "do"
                        | "does"
                        | "by"
                        | "are"
                        | "is"
                        | "the"
                )
        })
        .collect();
    match rest.as_slice() {
        [] if d.author.is_some() => d.text = None,
        ["i" | "we" | "me" | "myself"] => {
            d.author = Some(Author::Me);
            d.text = None;
        }
        // With the verb, a name that is a maker is one even when texts hold it.
        [name] => {
            let name = name.trim_end_matches("'s");
            if let Some(who) = creator(&[name], s) {
                d.author = Some(Author::Named(who.to_string()));
                d.text = None;
            }
        }
        _ => {}
    }
}

/// "alices", "alice's", "alice": a name that no object's text holds but that names someone who
/// created objects on the board. `frames`: only frames' texts count (the name came after "from").
fn person(d: &Desc, s: &Scope, frames: bool) -> Option<Author> {
    let text = d.text.as_deref()?;
    if text.contains(' ') || d.author.is_some() {
        return None;
    }
    if frames && d.kind.is_some_and(|k| k.kind != Kind::Frame) {
        return None;
    }
    let stems: Vec<&str> = [
        Some(text),
        text.strip_suffix("'s"),
        text.strip_suffix("s'"),
        text.strip_suffix('s'),
    ]
    .into_iter()
    .flatten()
    .filter(|n| n.len() >= 2)
    .collect();
    let who = creator(&stems, s)?;
    let held = s.board.objects().any(|o| {
        (!frames || o.kind == Kind::Frame)
            && o.text.len() >= text.len()
            && o.text.to_lowercase().contains(text)
    });
    (!held).then(|| Author::Named(who.to_string()))
}

/// The first of `names` (lowercase) that is, or is the first part of, the id of someone who
/// created an object on the board.
fn creator<'n>(names: &[&'n str], s: &Scope) -> Option<&'n str> {
    let is = |c: &str, name: &str| {
        c.eq_ignore_ascii_case(name)
            || c.split(['.', '@', '-', '_', ' '])
                .next()
                .is_some_and(|p| p.eq_ignore_ascii_case(name))
    };
    s.board
        .objects()
        .filter_map(|o| o.created_by.as_ref())
        .find_map(|c| names.iter().find(|n| is(c.as_str(), n)).copied())
}
