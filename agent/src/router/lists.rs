//! Where a list of parts ends: a closing sentence after it ("…, try next time. Thank you!") and
//! a trailing phrase after its last item ("… and Events branching off", "… as the columns",
//! "… Head of Sales under") are not part of the list.

/// Verbs that, after a last item, say how the items hang together ("branching off").
const TRAIL_VERBS: &[&str] = &[
    "branching",
    "branch",
    "reporting",
    "radiating",
    "coming",
    "hanging",
    "sprouting",
    "spreading",
    "extending",
    "sitting",
    "connected",
    "linked",
    "attached",
];

/// Where-words that, with nothing or a pronoun after them, place the items ("Herbs underneath").
const TRAIL_PLACES: &[&str] = &[
    "under",
    "underneath",
    "below",
    "beneath",
    "around",
    "beside",
];

/// Words a where-word may take without naming anything.
const PLACE_OBJECTS: &[&str] = &[
    "it", "them", "him", "her", "that", "this", "the", "root", "centre", "center", "middle",
    "main", "topic", "node", "boss", "one",
];

/// Roles named after "as" ("as branches", "as the columns").
const ROLES: &[&str] = &[
    "branches",
    "children",
    "nodes",
    "subtopics",
    "leaves",
    "spokes",
    "items",
    "reports",
    "ideas",
    "columns",
    "stages",
    "steps",
    "phases",
    "lanes",
    "sections",
    "categories",
    "buckets",
    "milestones",
    "quadrants",
    "topics",
    "headings",
    "titles",
    "labels",
    "boxes",
    "frames",
];

/// Words whose "." ends no sentence: titles, "vs", "e.g", an initial ("J. Smith").
fn abbreviation(word: &str) -> bool {
    const ABBR: &[&str] = &[
        "dr", "mr", "mrs", "ms", "st", "jr", "sr", "vs", "prof", "no",
    ];
    let mut c = word.chars();
    word.contains('.')
        || ABBR.contains(&word.to_lowercase().as_str())
        || c.next().is_some_and(char::is_uppercase) && c.next().is_none()
}

/// `tail` up to a sentence break (". " or "! " after a word that is no abbreviation).
pub fn first_sentence(tail: &str) -> &str {
    let b = tail.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if (c == b'.' || c == b'!') && b.get(i + 1).is_some_and(|n| n.is_ascii_whitespace()) {
            let word = tail[..i].rsplit([' ', ',']).next().unwrap_or("");
            if !abbreviation(word) {
                return &tail[..i];
            }
        }
    }
    tail
}

/// `item` without a trailing phrase that relates it to the others ("Events branching off" →
/// "Events", "Shipped as the columns" → "Shipped", "Head of Sales under" → "Head of Sales").
pub fn trim_trailing(item: &str) -> &str {
    let ws: Vec<(usize, &str)> = item
        .split(' ')
        .scan(0, |at, w| {
            let s = *at;
            *at += w.len() + 1;
            Some((s, w))
        })
        .collect();
    for k in 1..ws.len() {
        let w = ws[k].1.to_lowercase();
        let rest: Vec<String> = ws[k + 1..].iter().map(|(_, r)| r.to_lowercase()).collect();
        let cut = TRAIL_VERBS.contains(&w.as_str())
            || TRAIL_PLACES.contains(&w.as_str())
                && rest.iter().all(|r| PLACE_OBJECTS.contains(&r.as_str()))
            || w == "as"
                && rest.len() <= 3
                && rest.last().is_some_and(|r| {
                    // "as sub-branches", "as subtopics"
                    let r = r.trim_start_matches("sub-");
                    ROLES.contains(&r) || ROLES.contains(&r.trim_start_matches("sub"))
                });
        if cut {
            return item[..ws[k].0].trim_end();
        }
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_phrases_and_closing_sentences_go() {
        assert_eq!(trim_trailing("Events branching off"), "Events");
        assert_eq!(trim_trailing("Shipped as the columns"), "Shipped");
        assert_eq!(trim_trailing("Head of Sales under"), "Head of Sales");
        assert_eq!(trim_trailing("Time off"), "Time off");
        assert_eq!(trim_trailing("Herbs underneath"), "Herbs");
        assert_eq!(trim_trailing("Email marketing"), "Email marketing");
        assert_eq!(trim_trailing("Same as last year"), "Same as last year");
        assert_eq!(first_sentence("a, b, c. Thank you!"), "a, b, c");
        assert_eq!(first_sentence("Dr. Li, Mr. Wu"), "Dr. Li, Mr. Wu");
        assert_eq!(first_sentence("J. Smith, K. Lee"), "J. Smith, K. Lee");
    }
}
