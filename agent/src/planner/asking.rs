//! The words around a board question that are not the question: a prelude ("could you tell me
//! …", "do you know …", "any idea …"), a time at the end ("… right now", "… rn", "… at the
//! moment") and who made the objects asked about ("… did alice add", "… were added by alice",
//! "… has Bob made").

use super::syntax::Author;

/// Words that may come before the question word ("could you tell me how many …").
fn is_prelude(w: &str) -> bool {
    crate::lang::lexicon::is_leading_filler(w)
        || matches!(
            w,
            "tell"
                | "know"
                | "any"
                | "idea"
                | "wonder"
                | "wondering"
                | "was"
                | "curious"
                | "question"
                | "do"
                | "does"
                | "see"
                | "check"
                | "if"
                | "find"
                | "out"
                | "show"
                | "remind"
                | "quick"
        )
}

/// Where the question proper starts: after a prelude that leads to a question word.
pub(super) fn prelude_end(s: &[&str]) -> usize {
    let wh = |w: &&str| {
        matches!(
            *w,
            "how" | "what" | "what's" | "whats" | "which" | "count" | "list"
        )
    };
    match s.iter().take(7).position(wh) {
        Some(j) if j > 0 && s[..j].iter().all(|w| is_prelude(w)) => j,
        _ => 0,
    }
}

/// Drops a time at the end of a question ("right now", "rn", "at the moment", "so far").
pub(super) fn trim_time(s: &mut Vec<&str>) {
    const TIMES: [&[&str]; 14] = [
        &["at", "the", "moment"],
        &["at", "moment"],
        &["as", "of", "now"],
        &["as", "we", "speak"],
        &["at", "this", "point"],
        &["at", "present"],
        &["right", "now"],
        &["so", "far"],
        &["these", "days"],
        &["by", "now"],
        &["for", "now"],
        &["just", "now"],
        &["atm"],
        &["rn"],
    ];
    loop {
        let n = s.len();
        if let Some(t) = TIMES.iter().find(|t| s.ends_with(t) && t.len() < n) {
            s.truncate(n - t.len());
        } else if n > 2
            // "a note called Now", "the Today frame" are names.
            && !matches!(
                s[n - 2],
                "the" | "a" | "called" | "named" | "saying" | "says" | "titled" | "labeled"
                    | "labelled"
            )
            && matches!(
                s[n - 1],
                "now" | "currently" | "presently" | "today" | "yet" | "still"
            )
        {
            s.pop();
        } else {
            return;
        }
    }
}

/// Verbs of making an object, in any tense.
pub(super) fn is_making(w: &str) -> bool {
    matches!(
        w,
        "add"
            | "added"
            | "create"
            | "created"
            | "make"
            | "made"
            | "write"
            | "wrote"
            | "written"
            | "put"
            | "post"
            | "posted"
            | "draw"
            | "drew"
            | "drawn"
            | "place"
            | "placed"
            | "stick"
            | "stuck"
    )
}

fn author_of(w: &str) -> Option<Author> {
    match w {
        "i" | "we" | "me" | "myself" => Some(Author::Me),
        "you" | "they" | "it" | "there" | "that" | "which" | "who" | "are" | "is" | "were"
        | "was" | "be" | "been" | "have" | "has" | "do" | "did" | "does" | "the" | "all"
        | "ever" => None,
        _ if crate::lang::vocab::kind_word(w).is_some() || crate::lang::lexicon::is_lexicon(w) => {
            None
        }
        _ => Some(Author::Named(w.trim_end_matches("'s").to_string())),
    }
}

/// "did alice add", "has Bob made", "were added (by alice)", "alice added", "I made": who made
/// the objects asked about; the words go (a passive's "by X" stays for the description).
pub(super) fn maker(s: &mut Vec<&str>) -> Option<Author> {
    // "the notes that belong to alice"
    if let Some(b) = s
        .iter()
        .position(|w| matches!(*w, "belong" | "belongs" | "belonging"))
        && b >= 2
        && s.get(b + 1) == Some(&"to")
        && let Some(who) = s.get(b + 2).and_then(|w| author_of(w))
    {
        s.drain(b..b + 3);
        return Some(who);
    }
    let v = s.iter().skip(2).position(|w| is_making(w))? + 2;
    let aux = |w: &str| matches!(w, "did" | "do" | "does" | "has" | "have" | "had");
    // "were added by alice": the passive.
    if matches!(s[v - 1], "were" | "was" | "been" | "are" | "is" | "got")
        && s.get(v + 1) == Some(&"by")
    {
        s.drain(v - 1..=v);
        return None;
    }
    // "did alice add", "has alice made"
    if v >= 3 && aux(s[v - 2]) {
        let who = author_of(s[v - 1])?;
        s.drain(v - 2..=v);
        return Some(who);
    }
    // "the notes alice added", "which notes I made"
    let before = s[v - 2];
    if crate::lang::vocab::kind_word(before).is_some() || matches!(before, "that" | "which") {
        let who = author_of(s[v - 1])?;
        s.drain(v - 1..=v);
        return Some(who);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preludes_times_and_makers() {
        fn v(t: &str) -> Vec<&str> {
            t.split(' ').collect()
        }
        assert_eq!(
            prelude_end(&v("could you tell me what colour checkout is")),
            4
        );
        assert_eq!(prelude_end(&v("do you know how many notes")), 3);
        assert_eq!(prelude_end(&v("how many notes")), 0);
        let mut s = v("how many frames do we have rn");
        trim_time(&mut s);
        assert_eq!(s, v("how many frames do we have"));
        let mut s = v("how many notes are on the board at the moment");
        trim_time(&mut s);
        assert_eq!(s, v("how many notes are on the board"));
        let mut s = v("how many notes did alice add");
        assert_eq!(maker(&mut s), Some(Author::Named("alice".into())));
        assert_eq!(s, v("how many notes"));
        let mut s = v("how many notes were added by alice");
        assert_eq!(maker(&mut s), None);
        assert_eq!(s, v("how many notes by alice"));
        let mut s = v("how many sticky notes did i create");
        assert_eq!(maker(&mut s), Some(Author::Me));
    }
}
