//! Create commands: count (digits, words, N×M grids), kind, color, text, position
//! ("at 100, 200"), size ("200x300") and the existing frame the objects go in.

use super::phrase::target;
use super::syntax::{Command, CreateSpec, Target};
use crate::lang::content::{Split, list_items, split_create};
use crate::lang::lex::number;
use crate::lang::lexicon::{canonical, drop_filler, is_leading_filler};
use crate::lang::verbs::verb;
use crate::lang::vocab::{KindWord, color_at, dims, kind_word};
use crate::schema::LayoutDirective;

mod write;
pub(super) use write::parse_write;

/// Two numbers after position words: "at 100, 200", "at position (100, 200)", "at x 100 y 200".
fn position(ws: &[String]) -> Option<((f64, f64), usize, usize)> {
    let at = ws.iter().position(|w| w == "at" || w == "position")?;
    let mut nums = Vec::new();
    let mut end = at + 1;
    for (k, w) in ws.iter().enumerate().skip(at + 1) {
        if matches!(
            w.as_str(),
            "position" | "pos" | "x" | "y" | "coordinates" | "point" | "the"
        ) {
            end = k + 1;
            continue;
        }
        match w.parse::<f64>() {
            Ok(n) if n.is_finite() => {
                nums.push(n);
                end = k + 1;
                if nums.len() == 2 {
                    break;
                }
            }
            _ => break,
        }
    }
    (nums.len() == 2).then(|| ((nums[0], nums[1]), at, end))
}

/// "200x300", "200 x 300", "200 by 300".
pub(super) fn size(ws: &[String]) -> Option<((f64, f64), usize, usize)> {
    for (i, w) in ws.iter().enumerate() {
        if let Some(d) = dims(w) {
            return Some((d, i, i + 1));
        }
        if let (Some(a), Some(sep), Some(b)) = (
            w.parse::<f64>().ok(),
            ws.get(i + 1),
            ws.get(i + 2).and_then(|b| b.parse::<f64>().ok()),
        ) && (sep == "x" || sep == "by" || sep == "×")
            && a > 0.0
            && b > 0.0
        {
            return Some(((a, b), i, i + 3));
        }
    }
    None
}

/// Rows × columns of a grid: "a 3x4 grid", "3 by 4 grid", "grid of 3 by 4", "3 rows of 4",
/// "4 columns and 3 rows". Removes the words it used.
fn grid_shape(ws: &mut Vec<String>) -> Option<(usize, usize)> {
    let small = |n: f64| n.fract() == 0.0 && (1.0..=100.0).contains(&n);
    // "a 3x4 grid of notes", "3x3 stickies" (dimensions before a plural kind are a grid).
    let before_plural = |e: usize| {
        ws.get(e)
            .and_then(|w| kind_word(w))
            .is_some_and(|k| k.plural)
    };
    if let Some(((a, b), s, e)) = size(ws)
        && (ws.iter().any(|w| w == "grid") || before_plural(e))
        && small(a)
        && small(b)
    {
        ws.drain(s..e);
        return Some((a as usize, b as usize));
    }
    let num_before = |ws: &[String], i: usize| {
        i.checked_sub(1)
            .and_then(|j| ws[j].parse::<f64>().ok())
            .filter(|n| small(*n))
            .map(|n| n as usize)
    };
    let r = ws.iter().position(|w| w == "rows" || w == "row");
    let c = ws
        .iter()
        .position(|w| w == "columns" || w == "column" || w == "cols");
    if let (Some(r), Some(c)) = (r, c)
        && let (Some(rn), Some(cn)) = (num_before(ws, r), num_before(ws, c))
    {
        let (lo, hi) = (r.min(c) - 1, r.max(c) + 1);
        ws.drain(lo..hi.min(ws.len()));
        return Some((rn, cn));
    }
    // "2 columns of 3 notes": 3 rows of 2.
    if let Some(c) = c
        && let Some(cn) = num_before(ws, c)
        && ws.get(c + 1).is_some_and(|w| w == "of")
        && let Some(rn) = ws
            .get(c + 2)
            .and_then(|w| w.parse::<f64>().ok())
            .filter(|n| small(*n))
    {
        ws.drain(c - 1..c + 3);
        return Some((rn as usize, cn));
    }
    // "3 rows of 4 notes"
    if let Some(r) = r
        && let Some(rn) = num_before(ws, r)
        && ws.get(r + 1).is_some_and(|w| w == "of")
        && let Some(cn) = ws
            .get(r + 2)
            .and_then(|w| w.parse::<f64>().ok())
            .filter(|n| small(*n))
    {
        ws.drain(r - 1..r + 3);
        return Some((rn, cn as usize));
    }
    // "8 notes in 2 rows", "6 stickies in 3 columns": the other side from the count.
    let total = ws
        .iter()
        .position(|w| kind_word(w).is_some())
        .and_then(|k| num_before(ws, k))?;
    let (k, rows) = match (r, c) {
        (Some(r), None) => (r, true),
        (None, Some(c)) => (c, false),
        _ => return None,
    };
    let n = num_before(ws, k).filter(|&n| n > 1 && n < total)?;
    ws.drain(k - 1..=k);
    let other = total.div_ceil(n);
    Some(if rows { (n, other) } else { (other, n) })
}

/// The words of a create without filler and the verb (unless the verb is the only kind word:
/// "title: Q4 planning").
fn command_words(command: &str) -> Vec<String> {
    let mut ws = canonical(command);
    drop_filler(&mut ws);
    let start = ws
        .iter()
        .position(|w| !is_leading_filler(w) || verb(w).is_some())
        .unwrap_or(ws.len());
    let mut ws: Vec<String> = ws[start..].to_vec();
    let only_kind = |ws: &[String]| {
        kind_word(&ws[0]).is_some() && ws[1..].iter().all(|w| kind_word(w).is_none())
    };
    if ws.first().is_some_and(|w| verb(w).is_some()) && !only_kind(&ws) {
        ws.remove(0);
    }
    ws
}

/// One text per object when the content lists several ("notes: a, b and c", several quotes,
/// "a note for each weekday", "one note per month"); `many` when more than one is asked for.
fn items_of(split: &Split, ws: &[String], many: bool) -> Vec<String> {
    let listed = |t: &str| t.contains(',') || t.contains(';') || !split.topic;
    // "a note for each day: Mon, Tue, Wed", "one note per item: …"
    let each = ws.iter().any(|w| w == "each" || w == "per")
        || split.text.as_deref().is_some_and(|t| {
            let t = t.to_lowercase();
            t.starts_with("each ") || t.starts_with("every ")
        });
    let many = many || each;
    // "one note per month", "a note for every weekday": the period's members.
    let per = || {
        let k = ws
            .iter()
            .position(|w| w == "per" || w == "each" || w == "every")?;
        super::series::period(&ws[k..].join(" "))
    };
    match &split.text {
        None if each => per().unwrap_or_default(),
        _ if many && !split.quoted.is_empty() => split.quoted.clone(),
        Some(t) if many => super::series::each_of(t)
            .unwrap_or_else(|| if listed(t) { list_items(t) } else { Vec::new() }),
        _ => Vec::new(),
    }
}

/// "an arrow from A to B …": a connector read from the whole command (its words were not cut
/// yet); "an arrow to the right" with no "from" or "between" is no connector.
fn new_connector(raw: &str) -> Option<Command> {
    let all = canonical(raw);
    let ends = all.iter().any(|w| {
        matches!(
            w.as_str(),
            "from" | "between" | "connecting" | "linking" | "joining" | "to"
        )
    });
    if ends && !all.iter().any(|w| w == "from" || w == "between") {
        None
    } else {
        parse_draw_connector(&all)
    }
}

/// "big", "small": twice or half the kind's default size.
fn size_word(head: &[String], kind: KindWord) -> Option<(f64, f64)> {
    let big = head
        .iter()
        .any(|w| matches!(w.as_str(), "big" | "large" | "huge"));
    let small = head
        .iter()
        .any(|w| matches!(w.as_str(), "small" | "tiny" | "little"));
    let (w, h) = match kind.kind {
        protocol::Kind::Shape => (200.0, if kind.equal_sides { 200.0 } else { 120.0 }),
        protocol::Kind::Frame => (400.0, 300.0),
        _ => (200.0, 200.0),
    };
    if big {
        Some((w * 2.0, h * 2.0))
    } else if small {
        Some((w / 2.0, h / 2.0))
    } else {
        None
    }
}

/// How many objects: a grid's cells (or the count, within them), the count, the items listed,
/// three of a plural kind, else one.
fn how_many(
    grid: Option<(usize, usize)>,
    counted: Option<f64>,
    items: usize,
    kind: KindWord,
) -> usize {
    match grid {
        Some((r, c)) => counted.map_or(r * c, |n| (n as usize).clamp(1, r * c)),
        None => counted
            .filter(|&n| n > 1.0 || items < 2)
            .map(|n| n.clamp(1.0, protocol::board::DEFAULT_MAX_OBJECTS as f64) as usize)
            .unwrap_or(if items > 1 {
                items
            } else if kind.plural {
                3
            } else {
                1
            }),
    }
}

/// "put 2 notes in there" (a hedge elsewhere): the frame just made.
fn in_there(command: &str) -> Option<Target> {
    if !command.contains("there") && !command.contains("There") {
        return None;
    }
    let lower = crate::lang::lex::lower_aligned(command.trim_end_matches(['.', '!']));
    lower
        .trim_end()
        .ends_with(" in there")
        .then_some(Target::It)
}

/// Where "to it", "in there", "into that frame" starts at the end of a create, if it does.
fn into_it(ws: &[String]) -> Option<usize> {
    let n = ws.len();
    let is = |i: usize, w: &[&str]| ws.get(i).is_some_and(|x| w.contains(&x.as_str()));
    let into = ["to", "into", "inside", "in", "within"];
    let ends = |k: usize| {
        k >= 1
            && is(k - 1, &into)
            && (k == n - 1 && is(k, &["it", "there"])
                || k + 2 == n && is(k, &["that", "this"]) && is(k + 1, &["frame"]))
    };
    let p = (1..n).rev().take(2).find(|&k| ends(k)).map(|k| k - 1)?;
    // "a cloud with 'Parking lot' written inside it": the content is in it.
    let content = ws[..p]
        .iter()
        .any(|w| matches!(w.as_str(), "with" | "written" | "w/"));
    (!content).then_some(p)
}

/// The frame a create puts its objects in: "to/in/into/inside (the) X frame" (removed).
fn into_frame(ws: &mut Vec<String>) -> Option<Target> {
    // "add 3 notes to it", "put 2 notes in there", "… to that frame": the frame just made.
    if let Some(p) = into_it(ws) {
        ws.truncate(p);
        return Some(Target::It);
    }
    // "the Ideas box", "the Done column": a name, then a container word, is a frame.
    let container = |i: usize| {
        matches!(ws[i].as_str(), "box" | "column" | "lane" | "list")
            && i > 0
            && !crate::lang::lexicon::is_lexicon(&ws[i - 1])
            && !matches!(ws[i - 1].as_str(), "the" | "a" | "an" | "that" | "this")
    };
    let is_frame = |i: usize| {
        kind_word(&ws[i]).is_some_and(|k| k.kind == protocol::Kind::Frame) || container(i)
    };
    let Some(f) = (0..ws.len()).rposition(is_frame) else {
        // "add a note to Risks": a name after "to/into/inside" once the object is named.
        let k = ws.iter().position(|w| kind_word(w).is_some())?;
        let p = ws[k + 1..]
            .iter()
            .position(|w| matches!(w.as_str(), "to" | "into" | "inside" | "in"))
            .map(|i| i + k + 1)?;
        let name = &ws[p + 1..];
        let names_only = !name.is_empty()
            && name.iter().all(|w| {
                !crate::lang::lexicon::is_lexicon(w)
                    && w.parse::<f64>().is_err()
                    && color_at(std::slice::from_ref(w), 0).is_none()
                    || w == "the"
            });
        if !names_only {
            return None;
        }
        let mut d = match target(name)? {
            Target::Desc(d) => d,
            _ => return None,
        };
        d.kind = kind_word("frame");
        ws.truncate(p);
        return Some(Target::Desc(d));
    };
    // "… to the Risks frame", "at the top of the Ideas frame"
    let p = (0..f).rev().take(6).find(|&k| {
        matches!(
            ws[k].as_str(),
            "to" | "in" | "into" | "inside" | "within" | "on" | "under"
        ) || ws[k] == "of"
            && k > 0
            && matches!(
                ws[k - 1].as_str(),
                "top" | "bottom" | "side" | "corner" | "middle" | "centre" | "center" | "end"
            )
    })?;
    // "a frame called X" is the object, not where it goes.
    if !ws[..p]
        .iter()
        .any(|w| kind_word(w).is_some_and(|k| !is_frame_word(&k)))
    {
        return None;
    }
    let t = target(&ws[p + 1..=f])?;
    ws.drain(p..=f);
    Some(t)
}

fn is_frame_word(k: &crate::lang::vocab::KindWord) -> bool {
    k.kind == protocol::Kind::Frame
}

/// "in the middle", "in the centre of the board", "on the board", "somewhere": no particular
/// place (new objects go in open space near the viewport anyway).
fn drop_where_anywhere(ws: &mut Vec<String>) {
    let mut i = 0;
    while i < ws.len() {
        let w = |k: usize| ws.get(i + k).map_or("", String::as_str);
        let n = match (w(0), w(1), w(2)) {
            ("in" | "at", "the", "middle" | "center" | "centre") => 3,
            ("on" | "onto", "the", "board" | "canvas" | "whiteboard") => 3,
            ("somewhere" | "anywhere", _, _) => 1,
            _ => 0,
        };
        if n == 0 {
            i += 1;
            continue;
        }
        let mut e = i + n;
        if n == 3
            && w(3) == "of"
            && w(4) == "the"
            && matches!(w(5), "board" | "canvas" | "screen" | "page")
        {
            e += 3;
        }
        ws.drain(i..e.min(ws.len()));
    }
}

/// Parses a create command from the raw text.
pub(super) fn parse_create(raw: &str) -> Option<Command> {
    if let Some(two) = another(raw).or_else(|| frame_with(raw)) {
        return Some(two);
    }
    let split = split_create(raw);
    let mut ws = command_words(&split.command);
    let at = position(&ws).map(|(p, s, e)| {
        ws.drain(s..e);
        p
    });
    drop_where_anywhere(&mut ws);
    let beside = super::phrase::find_relation(&ws).map(|(s, e, rel, t)| {
        ws.drain(s..e);
        (rel, t)
    });
    let grid = grid_shape(&mut ws);
    let parent = into_frame(&mut ws).or_else(|| in_there(&split.command));
    let size = size(&ws).map(|(d, s, e)| {
        ws.drain(s..e);
        d
    });
    // Words after a leftover text marker do not describe the object.
    let cut = ws
        .iter()
        .position(|w| {
            matches!(
                w.as_str(),
                "that"
                    | "which"
                    | "saying"
                    | "says"
                    | "labeled"
                    | "labelled"
                    | "called"
                    | "named"
                    | "titled"
                    | "about"
                    | "reading"
                    | "for"
            )
        })
        .unwrap_or(ws.len());
    let head = &ws[..cut];
    let ki = head.iter().position(|w| kind_word(w).is_some())?;
    let kind = kind_word(&head[ki])?;
    // "an arrow from A to B", "a line between these", "an arrow shape pointing right".
    if kind.kind == protocol::Kind::Connector {
        return new_connector(raw);
    }
    let counted = head[..ki]
        .iter()
        .rev()
        .find_map(|w| number(w).filter(|_| !matches!(w.as_str(), "a" | "an" | "single")))
        // "some text", "a few" only counts plural things.
        .filter(|_| {
            kind.plural
                || !head[..ki]
                    .iter()
                    .any(|w| matches!(w.as_str(), "some" | "several" | "few"))
        });
    let items = items_of(&split, &ws, kind.plural || counted.is_some_and(|n| n > 1.0));
    let count = how_many(grid, counted, items.len(), kind);
    let color = (0..head.len()).find_map(|i| color_at(head, i).map(|c| c.0));
    // "a square 300 px", "a 150 px circle": both sides.
    let side = || {
        let k = ws.iter().position(|w| crate::lang::vocab::is_unit(w))?;
        let n = ws.get(k.checked_sub(1)?)?.parse::<f64>().ok()?;
        (kind.equal_sides && n > 0.0).then_some((n, n))
    };
    let size = size.or_else(side).or_else(|| size_word(head, kind));
    let texts = match &split.text {
        _ if items.len() > 1 => items,
        Some(t) if split.topic && count > 1 => (1..=count).map(|i| format!("{t} {i}")).collect(),
        Some(t) => vec![t.clone(); count],
        None => Vec::new(),
    };
    // "in a row", "side by side", "horizontally": one row of them all.
    let one_row = grid.is_none()
        && ws
            .iter()
            .any(|w| matches!(w.as_str(), "row" | "horizontally"));
    let grid = grid.or(one_row.then_some((1, count)));
    let layout = (grid.is_some() || ws.iter().any(|w| w == "grid") || count > 4)
        .then_some(LayoutDirective::Grid);
    Some(Command::Create(CreateSpec {
        count,
        kind,
        color,
        texts,
        at,
        size,
        layout,
        columns: grid.map(|(_, c)| c),
        parent,
        beside,
        in_new_frame: false,
    }))
}

/// "a frame called Team with 3 notes in it", "make a frame and put 2 circles inside": the frame,
/// then what goes in it.
fn frame_with(raw: &str) -> Option<Command> {
    let lower = crate::lang::lex::lower_aligned(raw);
    if lower.len() != raw.len() {
        return None;
    }
    let f = lower.find("frame")?;
    let (i, n) = [
        " with ",
        " containing ",
        " holding ",
        " and put ",
        " and add ",
        " and place ",
    ]
    .iter()
    .filter_map(|m| lower[f..].find(m).map(|i| (f + i, m.len())))
    .min()?;
    let rest = &raw[i + n..];
    let first = rest.split_whitespace().next()?.to_ascii_lowercase();
    // "… with notes A and B", "… with stickies Plan, Do": a plural kind word, then names.
    let named = || {
        let name = rest.split_whitespace().nth(1);
        kind_word(&first).is_some_and(|k| k.plural)
            && name.is_some_and(|n| n.starts_with(|c: char| c.is_uppercase()))
    };
    if !(number(&first).is_some() || first.parse::<f64>().is_ok() || named()) {
        return None;
    }
    let low = crate::lang::lex::lower_aligned(rest);
    let body = low.trim_end_matches(['.', '!', '?']);
    let end = [" in it", " inside it", " inside", " in there", " into it"]
        .iter()
        .find_map(|t| body.strip_suffix(t))
        .map_or(body.len(), str::len);
    let Command::Create(frame) = parse_create(&raw[..i])? else {
        return None;
    };
    let Command::Create(mut inner) = parse_create(&format!("add {}", &rest[..end]))? else {
        return None;
    };
    if frame.kind.kind != protocol::Kind::Frame || inner.kind.kind == protocol::Kind::Frame {
        return None;
    }
    inner.in_new_frame = true;
    Some(Command::Creates(vec![frame, inner]))
}

/// "a note saying hello and another saying bye", "a note saying Start and a note saying End": the second like the first, with its own text.
fn another(raw: &str) -> Option<Command> {
    let lower = crate::lang::lex::lower_aligned(raw);
    if lower.len() != raw.len() {
        return None;
    }
    let (i, n) = [
        " and another one ",
        " and another ",
        " and one more ",
        " and a second one ",
        " and a second ",
        " and one ",
    ]
    .iter()
    .find_map(|m| crate::lang::lex::find_short(&lower, m).map(|i| (i, m.len())))
    .or_else(|| and_a_kind(raw, &lower).map(|i| (i, 0)))?;
    if n == 0 {
        return two_with_content(raw, i);
    }
    let text = split_create(&format!("x {}", &raw[i + n..])).text?;
    let Command::Create(first) = parse_create(&raw[..i])? else {
        return None;
    };
    if first.count != 1 || first.texts.is_empty() {
        return None;
    }
    let second = CreateSpec {
        texts: vec![text],
        at: None,
        ..first.clone()
    };
    Some(Command::Creates(vec![first, second]))
}

/// Where " and a <kind>" starts ("a note saying Start and a note saying End").
fn and_a_kind(raw: &str, lower: &str) -> Option<usize> {
    [" and a ", " and an "].iter().find_map(|m| {
        let i = crate::lang::lex::find_short(lower, m)?;
        let next = raw[i + m.len()..].split_whitespace().next()?;
        kind_word(&next.to_lowercase()).map(|_| i)
    })
}

/// "a note saying Start and a note saying End": two creates, each with its content.
fn two_with_content(raw: &str, i: usize) -> Option<Command> {
    let verb = raw.split_whitespace().next()?;
    let Command::Create(first) = parse_create(&raw[..i])? else {
        return None;
    };
    let rest = raw[i..].trim_start().strip_prefix("and")?;
    let Command::Create(second) = parse_create(&format!("{verb}{rest}"))? else {
        return None;
    };
    (first.count == 1 && !first.texts.is_empty() && !second.texts.is_empty())
        .then(|| Command::Creates(vec![first, second]))
}

/// "draw an arrow from A to B", "a line between these".
pub(super) fn parse_draw_connector(rest: &[String]) -> Option<Command> {
    if !rest
        .iter()
        .any(|w| kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Connector))
    {
        return None;
    }
    // "draw an arrow", "add a line": between the selected objects (or asks to select two).
    let Some(from) = rest
        .iter()
        .position(|w| w == "from" || w == "between" || w == "connecting" || w == "linking")
    else {
        return Some(Command::Connect(
            Target::Selection,
            None,
            super::connectors::arrow_style(rest),
        ));
    };
    // "… with arrowheads on both ends": how it looks, not where it goes.
    let end = rest[from + 1..]
        .iter()
        .position(|w| w == "with")
        .map_or(rest.len(), |k| from + 1 + k);
    let both = super::connectors::arrow_style(&rest[end..]) == Some(crate::schema::ArrowKind::Both);
    match super::connectors::parse_connect(&rest[from + 1..end])? {
        Command::Connect(a, b, _) => Some(Command::Connect(
            a,
            b,
            if both {
                Some(crate::schema::ArrowKind::Both)
            } else {
                super::connectors::arrow_style(&rest[..from])
            },
        )),
        other => Some(other),
    }
}
