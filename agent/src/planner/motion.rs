//! Moving and resizing existing objects: by a distance, to a point, next to another object
//! ("under Dashboard"), by a factor or to a size; arranging several in a grid, row or column.

use super::create::size;
use super::phrase::find_relation;
use super::phrase::target;
use super::syntax::{Command, MoveSpec, SizeSpec, Target};
use crate::lang::lex::number;
use crate::lang::vocab::{Side, is_unit, kind_word, side};
use crate::schema::ArrangeLayout;

fn directions(ws: &[String]) -> Option<(f64, f64)> {
    // "a bit", "a little", "slightly": a small step.
    let mut dist = if ws.iter().any(|w| a_bit(w)) {
        50.0
    } else {
        100.0
    };
    for (i, w) in ws.iter().enumerate() {
        if let Some(n) = w
            .strip_suffix("px")
            .and_then(|n| n.parse::<f64>().ok())
            .or_else(|| {
                let n = number(w)?;
                let unit = ws.get(i + 1).is_some_and(|u| is_unit(u));
                let by = i > 0 && ws[i - 1] == "by";
                // "down 200", "200 to the right": digits beside a direction.
                let beside = w.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                    && (i > 0 && side(&ws[i - 1]).is_some()
                        || ws.get(i + 1).is_some_and(|x| side(x).is_some())
                        || ws.get(i + 1).is_some_and(|x| x == "to")
                            && ws.get(i + 2).is_some_and(|x| x == "the")
                            && ws.get(i + 3).is_some_and(|x| side(x).is_some()));
                (unit || by || beside).then_some(n)
            })
        {
            dist = n;
        }
    }
    let (mut dx, mut dy) = (0.0, 0.0);
    for w in ws {
        match side(w) {
            Some(Side::Left) => dx = -dist,
            Some(Side::Right) => dx = dist,
            Some(Side::Top) => dy = -dist,
            Some(Side::Bottom) => dy = dist,
            None => {}
        }
    }
    (dx != 0.0 || dy != 0.0).then_some((dx, dy))
}

fn a_bit(w: &str) -> bool {
    matches!(
        w,
        "bit" | "little" | "slightly" | "tad" | "touch" | "smidge"
    )
}

/// Where "into the Ideas frame" starts in a move: "in", "into", "inside", "to" or "onto" before a
/// phrase ending with a frame word.
pub(super) fn into_frame_at(rest: &[String]) -> Option<usize> {
    let last = rest.last()?;
    // "into Done" names a frame without the word.
    let frame_word = kind_word(last).is_some_and(|k| k.kind == protocol::Kind::Frame);
    let words: &[&str] = if frame_word {
        &["in", "into", "inside", "to", "onto"]
    } else {
        &["into", "inside"]
    };
    // "the last note in Done into the Risks frame": the last one.
    rest.iter()
        .rposition(|w| words.contains(&w.as_str()))
        .filter(|&p| {
            p > 0
                && !rest
                    .get(p + 1)
                    .is_some_and(|w| matches!(w.as_str(), "a" | "an" | "new" | "one" | "another"))
        })
}

/// "bring Login to the front", "send it to the back", "bring X to the top": the drawing order.
/// "top" and "bottom" only after "bring" and "send" ("move X to the top" is a place).
pub(super) fn parse_layer(verb: &str, rest: &[String]) -> Option<Command> {
    // "behind everything", "in front of all the others", "on top of everything else".
    let others = |w: &String| {
        matches!(
            w.as_str(),
            "everything" | "all" | "others" | "else" | "rest" | "the" | "other" | "objects"
        )
    };
    let n = rest.iter().rev().take_while(|w| others(w)).count();
    if n > 0 && n < rest.len() {
        let head = &rest[..rest.len() - n];
        let (cut, front) = match head {
            [.., a, b, of]
                if of == "of"
                    && matches!((a.as_str(), b.as_str()), ("in", "front") | ("on", "top")) =>
            {
                (3, true)
            }
            [.., w] if matches!(w.as_str(), "above" | "over") => (1, true),
            [.., w] if matches!(w.as_str(), "behind" | "under" | "below" | "beneath") => (1, false),
            _ => (0, false),
        };
        if cut > 0 {
            let t = match &head[..head.len() - cut] {
                [] => Target::Selection,
                ws => target(ws)?,
            };
            return Some(Command::Layer(t, front));
        }
    }
    let last = rest.last()?.as_str();
    let front = match last {
        "front" | "foreground" | "forward" => true,
        "back" | "background" | "backward" | "backwards" => false,
        "top" if matches!(verb, "bring" | "send") => true,
        "bottom" if matches!(verb, "bring" | "send") => false,
        _ => return None,
    };
    let stop = rest.len()
        - 1
        - rest[..rest.len() - 1]
            .iter()
            .rev()
            .take_while(|w| matches!(w.as_str(), "to" | "the" | "in" | "very"))
            .count();
    let t = if stop == 0 {
        Target::Selection
    } else {
        target(&rest[..stop])?
    };
    Some(Command::Layer(t, front))
}

pub(super) fn parse_move(rest: &[String]) -> Option<Command> {
    // "move the note in Done to the top left corner", "… into the bottom right corner".
    if let Some(p) = rest
        .iter()
        .rposition(|w| matches!(w.as_str(), "to" | "into" | "in"))
        .filter(|p| *p > 0)
        && let Some((v, h)) = corner(&rest[p..])
    {
        return Some(Command::Move(target(&rest[..p])?, MoveSpec::Corner(v, h)));
    }
    // "move Hello world into the Ideas frame", "put the note in the Risks frame".
    if let Some(p) = into_frame_at(rest)
        && let (Some(t), Some(mut f)) = (target(&rest[..p]), target(&rest[p + 1..]))
    {
        if let super::syntax::Target::Desc(d) = &mut f {
            d.kind = kind_word("frame");
        }
        return Some(Command::Move(t, MoveSpec::Into(Box::new(f))));
    }
    // "move Settings under Dashboard", "put the red circle next to Buy milk"; not "move the
    // note under Checkout to the right": that note moves right.
    if let Some((i, _, rel, reference)) = find_relation(rest)
        && i > 0
        && !moves_after(&rest[i + 1..])
    {
        let t = target(&rest[..i])?;
        return Some(Command::Move(t, MoveSpec::Beside(rel, Box::new(reference))));
    }
    // The target ends where the movement starts.
    let stop = rest
        .iter()
        .enumerate()
        .position(|(i, w)| {
            matches!(
                w.as_str(),
                "to" | "by" | "at" | "towards" | "toward" | "slightly"
            ) || w == "a" && rest.get(i + 1).is_some_and(|n| a_bit(n))
                || number(w).is_some() && w != "a"
                || side(w).is_some()
                    && !matches!(
                        w.as_str(),
                        "top"
                            | "bottom"
                            | "upper"
                            | "lower"
                            | "above"
                            | "below"
                            | "leftmost"
                            | "rightmost"
                            | "topmost"
                            | "bottommost"
                    )
        })
        .unwrap_or(rest.len());
    let t = target(&rest[..stop])?;
    let tail = &rest[stop..];
    let nums: Vec<f64> = tail.iter().filter_map(|w| w.parse::<f64>().ok()).collect();
    let has_dir = tail.iter().any(|w| side(w).is_some());
    if !has_dir && nums.len() >= 2 {
        return Some(Command::Move(t, MoveSpec::To(nums[0], nums[1])));
    }
    if let Some((dx, dy)) = directions(tail) {
        return Some(Command::Move(t, MoveSpec::By(dx, dy)));
    }
    // "move the note to Done": a frame by its name alone.
    let name = crate::lang::strip_front(tail, &["to", "into", "onto"]);
    let names_only = name.len() < tail.len()
        && !name.is_empty()
        && name.iter().all(|w| {
            w == "the"
                || !crate::lang::lexicon::is_lexicon(w)
                    && number(w).is_none()
                    && side(w).is_none()
                    && !matches!(
                        w.as_str(),
                        "middle"
                            | "centre"
                            | "center"
                            | "corner"
                            | "edge"
                            | "front"
                            | "back"
                            | "end"
                            | "start"
                            | "beginning"
                            | "side"
                    )
        });
    if !names_only {
        return None;
    }
    match target(name)? {
        Target::Desc(d) if d.text.is_some() && d.ordinal.is_none() => {
            Some(Command::Move(t, MoveSpec::Into(Box::new(Target::Desc(d)))))
        }
        _ => None,
    }
}

/// "to the top left", "into the bottom right corner (of the board)": two crossing sides and no
/// distance, as (top or bottom, left or right).
fn corner(tail: &[String]) -> Option<(Side, Side)> {
    let ws = crate::lang::strip_front(tail, &["to", "into", "in", "the", "very"]);
    let ws = match ws {
        [head @ .., of, the, place]
            if of == "of"
                && the == "the"
                && matches!(place.as_str(), "board" | "canvas" | "page" | "screen") =>
        {
            head
        }
        ws => ws,
    };
    let ws = ws.strip_suffix(&["corner".to_string()]).unwrap_or(ws);
    let vertical = |s: Side| matches!(s, Side::Top | Side::Bottom);
    match ws {
        [a, b] if ws.len() < tail.len() => {
            let (a, b) = (side(a)?, side(b)?);
            match (vertical(a), vertical(b)) {
                (true, false) => Some((a, b)),
                (false, true) => Some((b, a)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A movement after a reference's name ("… Checkout to the right", "… Login up a bit", "… Login
/// by 50"): the relation named the object, not where it goes.
fn moves_after(ws: &[String]) -> bool {
    ws.iter().enumerate().skip(1).any(|(i, w)| {
        matches!(
            w.as_str(),
            "left" | "right" | "up" | "down" | "upward" | "downward"
        ) && ws.get(i + 1).is_none_or(|n| n != "of")
            && !ws[..i].iter().any(|p| p == "between")
            || w == "by" && ws.get(i + 1).is_some_and(|n| number(n).is_some())
    }) && directions(ws).is_some()
}

/// "twice as big", "half the size", "3 times bigger", "by 50%", "to 300x200", "bigger".
pub(super) fn size_spec(ws: &[String]) -> Option<SizeSpec> {
    if let Some(((w, h), _, _)) = size(ws) {
        return Some(SizeSpec::To(Some(w), Some(h)));
    }
    let bigger = ws.iter().any(|w| {
        matches!(
            w.as_str(),
            "bigger" | "larger" | "big" | "large" | "grow" | "up" | "enlarge"
        )
    });
    let smaller = ws
        .iter()
        .any(|w| matches!(w.as_str(), "smaller" | "small" | "shrink" | "down" | "tiny"));
    if ws.iter().any(|w| w == "twice" || w == "double") {
        return Some(SizeSpec::Scale(2.0));
    }
    if ws.iter().any(|w| w == "half" || w == "halve") {
        return Some(SizeSpec::Scale(0.5));
    }
    if let Some(p) = ws
        .iter()
        .find_map(|w| w.strip_suffix('%').and_then(|n| n.parse::<f64>().ok()))
    {
        let f = p / 100.0;
        return Some(SizeSpec::Scale(if smaller {
            (1.0 - f).max(0.05)
        } else if bigger {
            1.0 + f
        } else {
            f
        }));
    }
    if let Some(i) = ws.iter().position(|w| w == "times" || w == "x") {
        let n = i.checked_sub(1).and_then(|j| number(&ws[j]))?;
        return Some(SizeSpec::Scale(if smaller { 1.0 / n.max(0.01) } else { n }));
    }
    if let Some(one) = one_side(ws) {
        return one;
    }
    if bigger {
        return Some(SizeSpec::Scale(1.5));
    }
    if smaller {
        return Some(SizeSpec::Scale(1.0 / 1.5));
    }
    None
}

/// "300 wide", "320 pixels tall", "a width of 300": one side's new length (`Some(None)` when a
/// side is named without a number); `None` when no side is named.
pub(super) fn one_side(ws: &[String]) -> Option<Option<SizeSpec>> {
    for (key, is_w) in [
        ("wide", true),
        ("width", true),
        ("tall", false),
        ("height", false),
    ] {
        if let Some(i) = ws.iter().position(|w| w == key) {
            // The number just before (a unit between is fine), else just after.
            let before = ws[..i].iter().rev().find(|w| !is_unit(w));
            let n = before
                .and_then(|w| w.parse::<f64>().ok())
                .or_else(|| {
                    ws[i + 1..(i + 3).min(ws.len())]
                        .iter()
                        .find_map(|w| w.parse::<f64>().ok())
                })
                .filter(|n| n.is_finite() && *n > 0.0);
            return Some(n.map(|n| {
                if is_w {
                    SizeSpec::To(Some(n), None)
                } else {
                    SizeSpec::To(None, Some(n))
                }
            }));
        }
    }
    None
}

pub(super) fn parse_resize(rest: &[String], verb_word: &str) -> Option<Command> {
    let stop = rest
        .iter()
        .position(|w| {
            matches!(w.as_str(), "to" | "by" | "twice" | "half" | "so" | "into")
                || number(w).is_some() && w != "a"
        })
        .unwrap_or(rest.len());
    let t = target(&rest[..stop])?;
    let spec = match verb_word {
        "double" => Some(SizeSpec::Scale(2.0)),
        "halve" => Some(SizeSpec::Scale(0.5)),
        "grow" | "enlarge" | "expand" => size_spec(&rest[stop..]).or(Some(SizeSpec::Scale(1.5))),
        "shrink" => size_spec(&rest[stop..])
            .map(|s| match s {
                SizeSpec::Scale(f) if f > 1.0 => SizeSpec::Scale(1.0 / f),
                s => s,
            })
            .or(Some(SizeSpec::Scale(1.0 / 1.5))),
        _ => size_spec(&rest[stop..]),
    }?;
    Some(Command::Resize(t, spec))
}

/// "arrange these in a grid", "line the notes in Done up in a row".
pub(super) fn parse_arrange(rest: &[String]) -> Option<Command> {
    let layout = if rest.iter().any(|w| w == "grid") {
        ArrangeLayout::Grid
    } else if rest
        .iter()
        .any(|w| matches!(w.as_str(), "row" | "horizontally" | "horizontal" | "up"))
    {
        ArrangeLayout::Row
    } else if rest.iter().any(|w| {
        matches!(
            w.as_str(),
            "column" | "vertically" | "vertical" | "stack" | "stacked"
        )
    }) {
        ArrangeLayout::Column
    } else if rest.iter().any(|w| matches!(w.as_str(), "circle" | "ring")) {
        ArrangeLayout::Circle
    } else if rest.iter().any(|w| w == "tree") {
        ArrangeLayout::Tree
    } else if rest.iter().any(|w| w == "flowchart") {
        ArrangeLayout::FlowchartTopDown
    } else {
        ArrangeLayout::Grid
    };
    let stops: Vec<usize> = rest
        .iter()
        .enumerate()
        .filter(|(_, w)| {
            matches!(
                w.as_str(),
                "in" | "into" | "as" | "on" | "up" | "horizontally" | "vertically"
            )
        })
        .map(|(i, _)| i)
        .collect();
    // "the notes in Done in a column": the layout starts at the last "in" before a layout word.
    let layout_word = |w: &String| {
        matches!(
            w.as_str(),
            "grid"
                | "row"
                | "rows"
                | "column"
                | "columns"
                | "circle"
                | "ring"
                | "tree"
                | "stack"
                | "line"
                | "flowchart"
        )
    };
    let stop = stops
        .iter()
        .rev()
        .find(|&&i| rest[i + 1..].iter().any(layout_word) && i > 0)
        .or(stops.first())
        .copied()
        .unwrap_or(rest.len());
    let t = target(&rest[..stop]).or_else(|| target(rest))?;
    Some(Command::Arrange(t, layout))
}
