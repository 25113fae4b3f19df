//! Text edits that need the board to be read: a word replaced in every object that says it, or
//! in a scope ("replace vendor with supplier in all notes", "change the to our in Week 1"),
//! misspelled words fixed from a table of common misspellings ("fix the typo in Recieve
//! feedback", "fix all the typos"), the text of the selection or of "it" set ("set their text to
//! Done"), text written on described objects ("write TBD on the empty notes", "fill the blank
//! notes with TODO").
//!
//! A replacement whose old word is the whole text of an object, with no scope named ("change
//! Login to Sign in"), is a retext of that object and stays with the grammar.

use super::phrase::target;
use super::syntax::{Command, Target};
use super::targets::{Scope, resolve_target};
use crate::lang::lexicon::canonical;
use crate::lang::spelling::{self, unquote};
use protocol::{BoardObject, Kind, ObjectId};

/// Reads a text edit, or `None` when the command is not one (or names nothing to change).
pub(super) fn read(text: &str, s: &Scope) -> Option<Command> {
    // Cheap first (the words of the command are read once per command): a word every text
    // edit has.
    if !canonical(text).iter().any(|w| cue(w)) {
        return None;
    }
    let lower = crate::lang::lex::lower_aligned(text);
    if let Some(c) = fix_typos(text, &lower, s) {
        return Some(c);
    }
    if let Some(c) = replace_word(text, &lower, s) {
        return Some(c);
    }
    set_text(text, &lower).or_else(|| write_on(text, &lower))
}

/// A word every text edit has: a verb of replacing, fixing, writing or setting text, or a word
/// of spelling (a `match`: this runs on every command).
fn cue(w: &str) -> bool {
    matches!(
        w,
        "replace"
            | "change"
            | "swap"
            | "substitute"
            | "switch"
            | "rename"
            | "fix"
            | "correct"
            | "text"
            | "label"
            | "wording"
            | "write"
            | "put"
            | "type"
            | "fill"
            | "check"
    ) || ["typo", "spell", "misspel", "mistake", "replac", "chang"]
        .iter()
        .any(|p| w.starts_with(p))
}

/// Verbs that replace one word with another, with the word that separates old from new.
const REPLACE_VERBS: &[&str] = &[
    "replace",
    "change",
    "swap",
    "substitute",
    "switch",
    "rename",
    "fix",
    "correct",
];

/// What may stand between the verb and the old word.
const OLD_PREFIXES: &[&str] = &[
    "out ",
    "all occurrences of ",
    "every occurrence of ",
    "occurrences of ",
    "all instances of ",
    "the word ",
    "the text ",
    "every ",
    "all ",
];

/// Where a scope starts after the new word.
const SCOPE_MARKERS: &[&str] = &[" in ", " on ", " across ", " throughout ", " everywhere"];

/// A replacement: old and new words, where, and whether the command says it is a word
/// replacement ("the word", "every", a scope).
struct Replacement {
    old: String,
    new: String,
    scope: Option<String>,
    explicit: bool,
}

fn parse_replacement(text: &str, lower: &str) -> Option<Replacement> {
    let padded = format!(" {lower} ");
    let (at, verb) = REPLACE_VERBS
        .iter()
        .filter_map(|v| padded.find(&format!(" {v} ")).map(|i| (i, *v)))
        .min()?;
    // "in all notes replace vendor with supplier": a scope before the verb.
    let before = lower[..at.min(lower.len())].trim();
    let start = (at + verb.len() + 1).min(text.len());
    let mut rest = text[start..].trim_start();
    let mut explicit = lower.contains("find and replace");
    for p in OLD_PREFIXES {
        if rest
            .get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p))
        {
            rest = &rest[p.len()..];
            explicit = true;
        }
    }
    let rl = crate::lang::lex::lower_aligned(rest);
    let (sep, len) = [" with ", " to ", " for ", " by ", " into "]
        .iter()
        .filter_map(|m| rl.find(m).filter(|i| *i > 0).map(|i| (i, m.len())))
        .min()?;
    let old = unquote(rest[..sep].trim()).to_string();
    let tail = &rest[sep + len..];
    let tl = crate::lang::lex::lower_aligned(tail);
    let cut = SCOPE_MARKERS.iter().filter_map(|m| tl.find(m)).min();
    let (new, mut scope) = match cut {
        Some(i) => (&tail[..i], Some(tail[i..].trim().to_string())),
        None => (tail, None),
    };
    if let Some(b) = before.strip_prefix("in ").or(before.strip_prefix("on ")) {
        scope = Some(b.to_string());
    }
    let new = clean_end(new);
    let words = |s: &str| s.split_whitespace().count();
    if old.is_empty() || new.is_empty() || words(&old) > 4 || words(&new) > 8 {
        return None;
    }
    explicit |= scope.is_some();
    Some(Replacement {
        old,
        new: unquote(&new).to_string(),
        scope,
        explicit,
    })
}

/// Text without a closing "please", "thanks" or punctuation.
fn clean_end(s: &str) -> String {
    let mut t = s.trim().trim_end_matches(['.', '!', ',']).trim();
    for tail in [" please", " thanks", " thank you", " pls"] {
        if let Some(head) = strip_suffix_ci(t, tail) {
            t = head.trim();
        }
    }
    t.to_string()
}

/// `s` without `tail` at its end, in any ASCII case.
pub(crate) fn strip_suffix_ci<'a>(s: &'a str, tail: &str) -> Option<&'a str> {
    let at = s.len().checked_sub(tail.len())?;
    let end = s.get(at..)?;
    end.eq_ignore_ascii_case(tail).then(|| &s[..at])
}

/// The objects a scope names ("all notes", "the Week 1 frame", "everywhere"): a frame stands
/// for its contents; no scope is every object.
fn in_scope<'a>(scope: Option<&str>, s: &Scope<'a>) -> Option<Vec<&'a BoardObject>> {
    let everything = || {
        s.board
            .objects()
            .filter(|o| o.kind != Kind::Connector)
            .collect()
    };
    let Some(sc) = scope else {
        return Some(everything());
    };
    let ws = canonical(sc);
    let ws: Vec<String> = ws
        .into_iter()
        .skip_while(|w| matches!(w.as_str(), "in" | "on" | "across" | "throughout"))
        .collect();
    if ws.is_empty()
        || ws
            .iter()
            .all(|w| matches!(w.as_str(), "everywhere" | "board"))
    {
        return Some(everything());
    }
    let ids = resolve_target(&target(&ws)?, s).ok()?;
    let mut out: Vec<&BoardObject> = Vec::new();
    for id in &ids {
        let Some(o) = s.board.get(id.as_str()) else {
            continue;
        };
        if o.kind == Kind::Frame {
            out.extend(
                s.board
                    .objects()
                    .filter(|c| c.parent.as_ref() == Some(&o.id)),
            );
        } else {
            out.push(o);
        }
    }
    Some(out)
}

fn replace_word(text: &str, lower: &str, s: &Scope) -> Option<Command> {
    let r = parse_replacement(text, lower)?;
    let whole = s
        .board
        .objects()
        .any(|o| o.text.trim().eq_ignore_ascii_case(r.old.trim()));
    if whole && !r.explicit {
        return None;
    }
    let objs = in_scope(r.scope.as_deref(), s)?;
    let edits: Vec<(ObjectId, String)> = objs
        .iter()
        .filter_map(|o| {
            let t = spelling::replace_words(&o.text, &r.old, &r.new)?;
            Some((o.id.clone(), t))
        })
        .collect();
    (!edits.is_empty()).then_some(Command::SetTexts(edits))
}

/// Words that say a command fixes spelling.
const TYPO_WORDS: &[&str] = &[
    "typo",
    "typos",
    "spelling",
    "misspelled",
    "misspelt",
    "misspelling",
    "misspellings",
    "spellcheck",
    "spell-check",
    "mistakes",
];

fn fix_typos(text: &str, lower: &str, s: &Scope) -> Option<Command> {
    // Cheap first: most commands say nothing of spelling.
    if !["typo", "spell", "misspel", "mistake"]
        .iter()
        .any(|m| crate::lang::lex::find_short(lower, m).is_some())
    {
        return None;
    }
    let ws = canonical(text);
    let verb = ws.iter().any(|w| {
        matches!(
            w.as_str(),
            "fix" | "correct" | "check" | "spellcheck" | "spell-check" | "repair"
        )
    });
    let k = ws.iter().enumerate().position(|(i, w)| {
        TYPO_WORDS.contains(&w.as_str()) || w == "check" && i > 0 && ws[i - 1] == "spell"
    })?;
    if !verb {
        return None;
    }
    // "fix the typo in X", "correct the spelling of X", "spell check the notes".
    let after: Vec<String> = ws[k + 1..]
        .iter()
        .skip_while(|w| {
            matches!(w.as_str(), "in" | "of" | "on" | "word" | "words" | "for")
                || TYPO_WORDS.contains(&w.as_str())
        })
        .cloned()
        .collect();
    let named = if after.is_empty() {
        let before: Vec<String> = ws[..k]
            .iter()
            .filter(|w| {
                !matches!(
                    w.as_str(),
                    "fix" | "correct" | "check" | "spell" | "the" | "all" | "any" | "repair"
                )
            })
            .cloned()
            .collect();
        before
    } else {
        after
    };
    let objs: Vec<&BoardObject> = if named.is_empty()
        || named
            .iter()
            .all(|w| matches!(w.as_str(), "everything" | "board" | "everywhere"))
    {
        s.board.objects().collect()
    } else {
        let ids = resolve_target(&target(&named)?, s).ok()?;
        ids.iter().filter_map(|i| s.board.get(i.as_str())).collect()
    };
    let edits: Vec<(ObjectId, String)> = objs
        .iter()
        .filter_map(|o| Some((o.id.clone(), spelling::fix(&o.text)?)))
        .collect();
    Some(Command::SetTexts(edits))
}

/// "set the text to X", "set their text to Done", "change its text to Ready", "set the text of
/// these to TBD": the selection's (or "it"'s) text.
fn set_text(text: &str, lower: &str) -> Option<Command> {
    let ws: Vec<&str> = lower.split_whitespace().collect();
    let verb = ws
        .first()
        .is_some_and(|w| matches!(*w, "set" | "change" | "update" | "make" | "edit"));
    let k = ws
        .iter()
        .position(|w| matches!(*w, "text" | "label" | "wording"))?;
    let to = ws[k..].iter().position(|w| *w == "to")? + k;
    if !verb || to != k + 1 && ws.get(k + 1) != Some(&"of") {
        return None;
    }
    let who: &[&str] = if to == k + 1 {
        &ws[..k]
    } else {
        &ws[k + 2..to]
    };
    let t = match who.last().copied() {
        Some("their" | "these" | "those" | "them") => Target::Them,
        Some("its" | "it" | "this" | "that") => Target::It,
        Some("selection" | "selected") | Some("the") if who.len() <= 3 => Target::Selection,
        _ => return None,
    };
    let i = crate::lang::lex::find_short(lower, " to ")?;
    let new = clean_end(&text[i + 4..]);
    let new = unquote(&new).to_string();
    (!new.is_empty()).then_some(Command::Retext(t, new))
}

/// "write TBD on the empty notes", "put 'Later' on all the blank notes", "fill the blank notes
/// with TODO": text on objects already there.
fn write_on(text: &str, lower: &str) -> Option<Command> {
    let first = lower.split_whitespace().next()?;
    let (content, rest) = match first {
        "write" | "put" | "type" => {
            let i = crate::lang::lex::find_short(lower, " on ")?;
            (&text[first.len()..i], &lower[i + 4..])
        }
        "fill" => {
            let i = crate::lang::lex::find_short(lower, " with ")?;
            (&lower[i + 6..], &lower[first.len()..i])
        }
        _ => return None,
    };
    let ws = canonical(rest);
    // "write hello on the board": a new text, not the board's objects.
    if ws
        .iter()
        .any(|w| matches!(w.as_str(), "board" | "canvas" | "page" | "whiteboard"))
    {
        return None;
    }
    let definite = ws.first().is_some_and(|w| {
        matches!(
            w.as_str(),
            "the" | "all" | "these" | "those" | "every" | "each" | "it" | "them"
        )
    });
    let content = unquote(content.trim()).to_string();
    let indefinite = content
        .split_whitespace()
        .next()
        .is_some_and(|w| matches!(w.to_lowercase().as_str(), "a" | "an" | "some" | "new"));
    if !definite || indefinite || content.is_empty() {
        return None;
    }
    let content = if first == "fill" {
        let at = crate::lang::lex::find_short(lower, " with ")? + 6;
        unquote(clean_end(&text[at..]).as_str()).to_string()
    } else {
        content
    };
    Some(Command::Retext(target(&ws)?, content))
}
