//! The verbs a command starts with, as data: each verb family and the words (synonyms, chat
//! shorthand, past tense) that name it.

use std::collections::HashMap;
use std::sync::LazyLock;

/// What a command's verb asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Create,
    Make,
    Move,
    Resize,
    Recolor,
    Retext,
    Change,
    Delete,
    Duplicate,
    Connect,
    Disconnect,
    Arrange,
    Group,
    Ungroup,
}

/// Each verb family and its words.
#[rustfmt::skip]
pub const VERBS: &[(Verb, &[&str])] = &[
    (Verb::Create, &[
        "ad", "drew", "create", "add", "draw", "insert", "new", "generate", "build", "give", "place",
        "get", "have", "sketch", "drop", "stick", "throw", "jot", "slap", "pop", "whip", "toss",
        "chuck", "plop",
    ]),
    (Verb::Make, &["mk", "make", "put"]),
    (Verb::Move, &[
        "move", "drag", "shift", "nudge", "push", "slide", "bring", "position", "send", "mv",
        "bump", "budge", "scoot", "relocate",
    ]),
    (Verb::Resize, &[
        "resize", "scale", "grow", "shrink", "enlarge", "expand", "double", "halve",
    ]),
    (Verb::Recolor, &[
        "color", "colour", "recolor", "recolour", "paint", "fill", "highlight",
    ]),
    (Verb::Retext, &[
        "rename", "retitle", "relabel", "label", "write", "title", "retext", "reword",
    ]),
    (Verb::Change, &[
        "change", "set", "update", "edit", "turn", "convert", "transform", "switch", "replace",
        "swap", "reshape",
    ]),
    (Verb::Delete, &[
        "delete", "remove", "erase", "clear", "trash", "destroy", "wipe", "kill", "discard",
        "empty", "nuke", "scrap", "ditch", "zap", "del", "drop-",
    ]),
    (Verb::Duplicate, &[
        "duplicate", "copy", "clone", "replicate", "repeat", "dup", "dupe",
    ]),
    (Verb::Connect, &["connect", "link", "join", "wire", "attach", "hook"]),
    (Verb::Disconnect, &["disconnect", "unlink", "detach", "unconnect"]),
    (Verb::Arrange, &[
        "arrange", "organize", "organise", "align", "layout", "lay", "line", "stack", "sort",
        "distribute", "tidy", "order", "rearrange", "space",
    ]),
    (Verb::Group, &["group", "wrap", "frame", "enclose", "bundle"]),
    (Verb::Ungroup, &["ungroup", "unframe", "ungrouped"]),
];

/// The verb a word names, its "-ing" form included ("adding", "making", "dropping").
pub fn verb(w: &str) -> Option<Verb> {
    if let Some(stem) = w.strip_suffix("ing").filter(|s| s.len() >= 2) {
        let b = stem.as_bytes();
        let undoubled =
            (b.len() >= 2 && b[b.len() - 1] == b[b.len() - 2]).then(|| &stem[..stem.len() - 1]);
        // "bring" is a verb itself.
        return verb_word(stem)
            .or_else(|| verb_word(&format!("{stem}e")))
            .or_else(|| undoubled.and_then(verb_word))
            .or_else(|| verb_word(w));
    }
    verb_word(w)
}

fn verb_word(w: &str) -> Option<Verb> {
    static BY_WORD: LazyLock<HashMap<&'static str, Verb>> = LazyLock::new(|| {
        VERBS
            .iter()
            .flat_map(|(v, ws)| ws.iter().map(move |w| (*w, *v)))
            .collect()
    });
    BY_WORD.get(w).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_word_names_one_verb() {
        let mut seen = std::collections::HashSet::new();
        for (_, ws) in VERBS {
            for w in *ws {
                assert!(seen.insert(*w), "{w} twice");
            }
        }
        assert_eq!(verb("adding"), Some(Verb::Create));
        assert_eq!(verb("dropping"), Some(Verb::Create));
        assert_eq!(verb("bring"), Some(Verb::Move));
        assert_eq!(verb("making"), Some(Verb::Make));
        assert_eq!(verb("note"), None);
    }
}
