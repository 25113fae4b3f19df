//! Relation words: "below", "to the left of", "next to", "between" — where one object is
//! relative to another.

/// Which side of the reference object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    Below,
    Above,
    Left,
    Right,
    /// "next to", "beside", "near": the first free side (right, left, below, above).
    Beside,
    /// "between Login and Settings": midway between two objects.
    Between,
}

/// The relation phrase starting at word `i`: the relation and how many words it takes.
pub fn phrase_at(ws: &[String], i: usize) -> Option<(Relation, usize)> {
    let w = |k: usize| ws.get(i + k).map_or("", String::as_str);
    // "right below it", "just under", "directly above": the same relation.
    if matches!(
        w(0),
        "right" | "just" | "directly" | "immediately" | "straight" | "exactly"
    ) && let Some((r, n)) = phrase_at(ws, i + 1)
    {
        return Some((r, n + 1));
    }
    let side = |x: &str| match x {
        "left" => Some(Relation::Left),
        "right" => Some(Relation::Right),
        _ => None,
    };
    // "to the left of", "on the right side of", "left of", "right hand side of"
    let mut k = 0;
    if matches!(w(0), "to" | "on" | "at") {
        k += 1;
    }
    if w(k) == "the" {
        k += 1;
    }
    if let Some(r) = side(w(k)) {
        let mut e = k + 1;
        if w(e) == "hand" {
            e += 1;
        }
        if w(e) == "side" {
            e += 1;
        }
        return (w(e) == "of").then_some((r, e + 1));
    }
    Some(match (w(0), w(1), w(2)) {
        ("below" | "under" | "underneath" | "beneath", _, _) => (Relation::Below, 1),
        ("above", _, _) => (Relation::Above, 1),
        ("between" | "in-between", _, _) => (Relation::Between, 1),
        ("in", "between", _) => (Relation::Between, 2),
        ("on", "top", "of") => (Relation::Above, 3),
        (
            "next" | "close" | "adjacent" | "near" | "closest" | "nearest" | "closer" | "nearer",
            "to",
            _,
        ) => (Relation::Beside, 2),
        ("closest" | "nearest", _, _) => (Relation::Beside, 1),
        ("beside" | "besides" | "near" | "alongside" | "by", _, _)
            if w(0) != "by" || w(1) == "the" =>
        {
            (Relation::Beside, 1)
        }
        _ => return None,
    })
}
