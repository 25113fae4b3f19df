//! Asides after a command: a reason or purpose ("…, we don't need them", "… so we can start
//! afresh", "… because it's finished"), a restated quantity ("…, all of them") or politeness
//! ("…, please"). They say why, not what, so they are cut before the command is read; the planner
//! keeps the cut only when what is left is a command on existing objects (or a question), since a
//! create's content may say anything.

/// Words that start a reason clause after a comma, dash or semicolon.
fn starts_reason(w: &str) -> bool {
    matches!(
        w,
        "we" | "we're"
            | "were"
            | "we've"
            | "weve"
            | "we'll"
            | "i"
            | "i'm"
            | "im"
            | "i've"
            | "ive"
            | "i'll"
            | "they"
            | "they're"
            | "theyre"
            | "they've"
            | "it"
            | "it's"
            | "its"
            | "that's"
            | "thats"
            | "there's"
            | "theres"
            | "you"
            | "nobody"
            | "noone"
            | "no-one"
            | "so"
            | "because"
            | "cause"
            | "'cause"
            | "cuz"
            | "coz"
            | "bc"
            | "since"
            | "as"
            | "don't"
            | "dont"
            | "just"
            | "not"
            | "none"
    )
}

/// Words of a segment that only repeats "all of them" or says please.
fn is_restatement(ws: &[String]) -> bool {
    !ws.is_empty()
        && ws.iter().all(|w| {
            matches!(
                w.as_str(),
                "all"
                    | "of"
                    | "them"
                    | "it"
                    | "those"
                    | "these"
                    | "every"
                    | "each"
                    | "one"
                    | "single"
                    | "both"
                    | "the"
                    | "lot"
                    | "whole"
                    | "please"
                    | "pls"
                    | "plz"
                    | "thanks"
                    | "thank"
                    | "you"
                    | "u"
                    | "thx"
                    | "ty"
                    | "cheers"
                    | "ta"
                    | "kindly"
                    | "if"
                    | "possible"
                    | "can"
                    | "could"
            )
        })
}

/// Conjunctions that start a reason or purpose with no comma: "so (that) we …", "because …".
fn reason_at(ws: &[&str]) -> bool {
    let subject = |w: Option<&&str>| {
        w.is_some_and(|w| {
            matches!(
                *w,
                "we" | "i" | "you" | "they" | "it" | "there" | "that" | "everyone" | "people"
            )
        })
    };
    match ws.first().copied() {
        Some("because" | "cause" | "'cause" | "cuz" | "coz" | "bc") => true,
        Some("so") => ws.get(1) == Some(&"that") || subject(ws.get(1)),
        Some("since" | "as") => subject(ws.get(1)),
        _ => false,
    }
}

/// Byte offsets of the separators outside quotes: commas, semicolons, " - ", and the spaces
/// before a conjunction of reason.
fn cuts(text: &str) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    let mut quoted = false;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        match c {
            '"' | '“' | '”' => quoted = !quoted,
            ',' | ';' if !quoted => out.push((i, true)),
            '-' | '—' | '–'
                if !quoted
                    && i > 0
                    && bytes[i - 1] == b' '
                    && text[i + c.len_utf8()..].starts_with(' ') =>
            {
                out.push((i, true))
            }
            ' ' if !quoted => out.push((i, false)),
            _ => {}
        }
    }
    out
}

/// The command without its trailing asides, or `None` when it has none.
pub(super) fn without_aside(text: &str) -> Option<String> {
    let mut end = text.trim_end().len();
    let mut changed = false;
    for (at, strong) in cuts(text).into_iter().rev() {
        if at >= end || at == 0 {
            continue;
        }
        let seg = &text[at + 1..end];
        // A space only cuts before a conjunction of reason: look at the next word first.
        if !strong
            && !seg.split_whitespace().next().is_some_and(|w| {
                matches!(
                    w.to_ascii_lowercase().as_str(),
                    "because" | "cause" | "'cause" | "cuz" | "coz" | "bc" | "so" | "since" | "as"
                )
            })
        {
            continue;
        }
        // Quoted words are content, never an aside.
        if seg.contains(['"', '“', '”']) {
            continue;
        }
        let ws = crate::lang::lex::words(seg);
        let wr: Vec<&str> = ws.iter().map(String::as_str).collect();
        let cut = if strong {
            ws.is_empty()
                || is_restatement(&ws)
                || wr.first().is_some_and(|w| starts_reason(w))
                // ", those are all finished", ", these were done"
                || matches!(
                    wr.as_slice(),
                    ["those" | "these" | "they", "are" | "were" | "r" | "have" | "got", ..]
                )
                // ", starting fresh for next term", ", getting ready for …"
                || wr.first().is_some_and(|w| {
                    matches!(
                        *w,
                        "starting" | "getting" | "preparing" | "making" | "moving" | "ready"
                    )
                })
                || matches!(
                    wr.as_slice(),
                    ["no", "longer" | "need" | "use" | "point", ..]
                )
                || reason_at(&wr)
        } else {
            reason_at(&wr)
        };
        if cut {
            end = at;
            changed = true;
        }
    }
    let kept = text[..end].trim_end();
    let ask = if text.trim_end().ends_with('?') && !kept.ends_with('?') {
        "?"
    } else {
        ""
    };
    (changed && !kept.is_empty()).then(|| format!("{kept}{ask}"))
}

/// "I want all the notes gone", "I'd like alice's notes removed", "make the red circle go away":
/// a wish that objects be gone is a delete of them.
pub(super) fn wished_gone(text: &str) -> Option<String> {
    let t = text
        .trim_end()
        .trim_end_matches(['?', '.', '!'])
        .trim_end_matches(" please")
        .trim_end_matches(" pls");
    let lower = t.to_lowercase();
    if lower.len() != t.len() {
        return None;
    }
    let end = [
        " gone",
        " removed",
        " deleted",
        " erased",
        " cleared",
        " wiped",
        " go away",
        " disappear",
        " vanish",
        " out of the way",
    ]
    .iter()
    .find_map(|e| lower.strip_suffix(e))?
    .len();
    let words: Vec<(usize, &str)> = lower[..end]
        .split(' ')
        .scan(0, |at, w| {
            let i = *at;
            *at += w.len() + 1;
            Some((i, w))
        })
        .collect();
    let wish = |w: &str| {
        matches!(
            w,
            "want" | "wanna" | "need" | "like" | "make" | "get" | "have" | "let's" | "lets"
        )
    };
    let k = words.iter().take(6).position(|(_, w)| wish(w))?;
    let lead_ok = words[..k].iter().all(|(_, w)| {
        crate::lang::lexicon::is_leading_filler(w) || matches!(*w, "i'd" | "we'd" | "would" | "do")
    });
    let (from, _) = *words.get(k + 1)?;
    (lead_ok && from < end).then(|| format!("delete {}", &t[from..end]))
}

#[cfg(test)]
mod tests {
    use super::without_aside;

    #[test]
    fn reasons_and_restatements_are_cut() {
        let w = |t: &str| without_aside(t);
        assert_eq!(
            w("get rid of alices notes, we dont need them").as_deref(),
            Some("get rid of alices notes")
        );
        assert_eq!(
            w("Could you please clear the whole board so we can start afresh?").as_deref(),
            Some("Could you please clear the whole board?")
        );
        assert_eq!(
            w("I would like to remove my yellow notes, please, all of them").as_deref(),
            Some("I would like to remove my yellow notes")
        );
        assert_eq!(
            w("delete the old notes because they are done").as_deref(),
            Some("delete the old notes")
        );
        assert_eq!(w("delete the red circle and the blue square"), None);
        assert_eq!(w("move it left, then make it blue"), None);
        assert_eq!(w("add a note saying \"so we can, we\""), None);
        assert_eq!(
            super::wished_gone("I want all the notes gone").as_deref(),
            Some("delete all the notes")
        );
        assert_eq!(
            super::wished_gone("can you make the Login box go away?").as_deref(),
            Some("delete the Login box")
        );
        assert_eq!(super::wished_gone("add a note saying gone"), None);
    }
}
