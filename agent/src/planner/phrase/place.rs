//! Places on the board in a target phrase: "at the top left", "in the bottom row", "the second
//! note", "the middle one".

/// Words after a board position that name nothing more ("the top left corner", "the bottom
/// row").
fn is_place_noun(w: &str) -> bool {
    matches!(
        w,
        "corner" | "row" | "column" | "side" | "edge" | "half" | "part" | "hand" | "end"
    )
}

fn is_board_side(w: &str) -> bool {
    matches!(
        w,
        "top" | "bottom" | "left" | "right" | "upper" | "lower" | "leftmost" | "rightmost"
    )
}

/// "top", "top-left", "left-hand", "middle".
fn board_side_word(w: &str) -> bool {
    !w.starts_with("hand")
        && w.split('-')
            .all(|p| is_board_side(p) || matches!(p, "hand" | "middle" | "centre" | "center"))
}

/// "at the top left", "in the bottom row", "on the right (of the board)": the preposition and the
/// place nouns go, the side words stay (they pick among matches).
pub(super) fn board_place(ws: &[String]) -> Option<Vec<String>> {
    // "at the (very / far) top", "furthest to the right".
    let skip = |j: usize| {
        let k = j + 2;
        k + usize::from(
            ws.get(k)
                .is_some_and(|w| matches!(w.as_str(), "very" | "far")),
        )
    };
    let j = (0..ws.len().saturating_sub(2)).find(|&j| {
        matches!(
            ws[j].as_str(),
            "at" | "in" | "on" | "along" | "across" | "to"
        ) && ws[j + 1] == "the"
            && ws.get(skip(j)).is_some_and(|w| board_side_word(w))
    })?;
    let mut out: Vec<String> = ws[..j].to_vec();
    let mut k = skip(j);
    while k < ws.len() && board_side_word(&ws[k]) {
        out.extend(
            ws[k]
                .split('-')
                .filter(|p| *p != "hand")
                .map(str::to_string),
        );
        k += 1;
    }
    let mut half = false;
    while k < ws.len() && is_place_noun(&ws[k]) {
        half |= matches!(ws[k].as_str(), "side" | "half" | "part" | "hand");
        k += 1;
    }
    if half {
        out.push("half".to_string());
    }
    // "on the left of the board"; "on the left of Login" is a position next to Login; "at
    // the bottom of the Done column" is inside it.
    if ws.get(k).is_some_and(|w| w == "of") {
        let rest = crate::lang::strip_front(&ws[k + 1..], &["the"]);
        if !rest
            .first()
            .is_some_and(|w| matches!(w.as_str(), "board" | "canvas" | "page" | "screen"))
        {
            let vertical = out[j..].iter().all(|w| {
                matches!(
                    w.as_str(),
                    "top" | "bottom" | "upper" | "lower" | "middle" | "centre" | "center"
                )
            });
            if !(vertical && matches!(ws[j].as_str(), "at" | "in")) || rest.is_empty() {
                return None;
            }
            out.push("in".to_string());
            out.extend_from_slice(&ws[k + 1..]);
            return Some(out);
        }
        k = ws.len() - rest.len() + 1;
    }
    out.extend_from_slice(&ws[k..]);
    Some(out)
}

/// "the second note", "the last one": a place in reading order.
pub(super) fn ordinal(w: &str) -> Option<i32> {
    Some(match w {
        "first" | "1st" => 1,
        "second" | "2nd" => 2,
        "third" | "3rd" => 3,
        "fourth" | "4th" => 4,
        "fifth" | "5th" => 5,
        "last" | "final" => -1,
        // "the middle note", "the one in the centre": the one nearest the middle of the matches.
        "middle" | "centre" | "center" | "central" => 0,
        "penultimate" => -2,
        _ => return None,
    })
}
