//! The planner corpus: everyday phrasings grouped by class, each with the board it starts from
//! and the expected result, run through the offline agent (router + planner, no LLM) and
//! applied to the board. Shared by the corpus test and the `planner_report` example.
//!
//! File format (`phrasings.txt`): `## class` starts a class, `@board [sel=Text,Text]` sets the
//! board (and selection) for the lines that follow, and each case is
//! `command => expectation expectation …`; `#` starts a comment line. A command may be several,
//! `first ;; second`: the earlier ones run first with the same memory, the expectations are
//! about the last. Expectations:
//! `+N` / `+N kind` / `+N shape:geo` created count (of that kind and geo); `-N` objects gone;
//! `edit=N` objects changed; `text="…"` a created or changed object has this text; `has="a|b"`
//! created objects include these texts; `frames="a|b"` created frames, in order; `color=c`
//! created (else changed) objects' color; `kind=k` created objects' kind (connectors when
//! nothing else was created); `geo=g` created or
//! changed shapes' geo; `arrow=a` created or changed connectors' arrowheads (none, end, both);
//! `in="Frame"` created objects are in that frame; `frame="Name"/N` a frame with that title holds
//! N objects; `grid=RxC` created objects form R rows and C columns; `target="Text"` the changed
//! objects all have that text (an image: its alt text, as for every name below); `from="A" to="B"` a new connector joins them; `size=WxH` and
//! `at=X,Y` of the created (else changed) objects; `ask=which|confirm`; `answer~"…"` the answer
//! contains the text; `reply~"…"` / `noreply~"…"` the reply to an executed command does (not)
//! contain it; `blank` every created note is empty; `clarify`; `same` nothing changed;
//! `ratio` every changed or created image keeps its width-to-height ratio;
//! `below="X"` / `above=` / `leftof=` / `rightof=` / `near=` the created (else changed) object is
//! on that side of the object with text X (or `color/kind`, `color/geo`) within 400 px.
//! Arrangements (see [`arrangement`]): `set="A|B"` the objects checked (else the changed ones),
//! `aligned=`, `only=`, `even=`, `gap=`, `same=`, `rot=`, `behind=`, `infront=`, `outside=`.
#![allow(dead_code, clippy::unwrap_used)]

use agent::{Agent, AgentConfig, AiPlan, AiRequest, SessionMemory, resolve};
use protocol::palette::nearest_name;
use protocol::{Arrow, BoardObject, BoardState, Geo, Kind, ObjectId, Viewport};
use std::collections::BTreeMap;
use std::time::Instant;

#[path = "boards.rs"]
mod boards;
pub use boards::{board, me};

/// One phrasing with its class, board and expectations.
#[derive(Debug, Clone)]
pub struct Case {
    pub class: String,
    pub board: String,
    pub selection: Vec<String>,
    pub command: String,
    pub expect: Vec<String>,
    pub line: usize,
}

/// Parses the corpus file.
pub fn cases(src: &str) -> Vec<Case> {
    let mut out = Vec::new();
    let (mut class, mut board, mut sel) = (String::new(), "empty".to_string(), Vec::new());
    for (n, line) in src.lines().enumerate() {
        let l = line.trim();
        if let Some(c) = l.strip_prefix("## ") {
            class = c.trim().to_string();
            continue;
        }
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some(b) = l.strip_prefix('@') {
            let mut parts = b.split_whitespace();
            board = parts.next().unwrap_or("empty").to_string();
            sel = parts
                .find_map(|p| p.strip_prefix("sel="))
                .map(|s| s.split(',').map(|x| x.replace('_', " ")).collect())
                .unwrap_or_default();
            continue;
        }
        let Some((cmd, exp)) = l.split_once("=>") else {
            continue;
        };
        out.push(Case {
            class: class.clone(),
            board: board.clone(),
            selection: sel.clone(),
            command: cmd.trim().replace("\\n", "\n"),
            expect: tokens(exp.trim()),
            line: n + 1,
        });
    }
    out
}

/// Splits expectations on spaces outside quotes.
fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut q = false;
    for c in s.chars() {
        match c {
            '"' => {
                q = !q;
                cur.push(c);
            }
            ' ' if !q => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// What the agent did with a case.
pub enum Outcome {
    Executed(Box<agent::Resolved>),
    Asked(String),
    Answered(String),
    Clarified(String),
    NotUnderstood,
    Failed(String),
}

/// Runs one case; `Ok(())` when every expectation holds.
pub fn run(case: &Case, agent: &Agent, rt: &tokio::runtime::Runtime) -> Result<(), String> {
    let mut board = board(&case.board);
    let mut memory = SessionMemory::new();
    // "create a frame called Sprint ;; add 3 notes to it": earlier commands run first, with
    // the same memory; the expectations are about the last.
    let mut steps: Vec<&str> = case.command.split(" ;; ").collect();
    let last = steps.pop().unwrap_or_default();
    for step in steps {
        earlier(step, agent, rt, &mut board, &mut memory)?;
    }
    let before = board.clone();
    let selection: Vec<ObjectId> = case
        .selection
        .iter()
        .filter_map(|t| {
            board
                .objects()
                .find(|o| o.text.eq_ignore_ascii_case(t))
                .map(|o| o.id.clone())
        })
        .collect();
    let (text, answers) = answered(last);
    let mut req = AiRequest::new(text, me());
    req.answers = answers;
    req.selection = selection;
    req.viewport = Some(Viewport {
        x: 0.0,
        y: 0.0,
        w: 1600.0,
        h: 900.0,
    });
    let plan = rt.block_on(agent.plan_at(&req, &board, &mut memory, Instant::now()));
    let outcome = match plan {
        AiPlan::Execute { intent, reply, .. } => {
            if intent.is_empty() {
                Outcome::Answered(reply)
            } else {
                let r = resolve(&intent, &board, &req.resolve_ctx());
                match board.apply(&r.ops, &me(), 1000) {
                    Ok(_) => Outcome::Executed(Box::new(r)),
                    Err(e) => Outcome::Failed(format!("ops do not apply: {e}")),
                }
            }
        }
        AiPlan::Clarification { ask: Some(ask), .. } => Outcome::Asked(
            ask.questions
                .first()
                .map(|q| q.name.clone())
                .unwrap_or_default(),
        ),
        AiPlan::Clarification { error: Some(_), .. } => Outcome::NotUnderstood,
        AiPlan::Clarification { message, .. } => Outcome::Clarified(message),
        AiPlan::Planned { .. } => Outcome::Failed("planned in build mode".into()),
        AiPlan::Error { message, .. } => Outcome::Failed(message),
    };
    check(case, &before, &board, &outcome)
}

/// How the corpus writes a command answered after a question: its text, then
/// `\n(My answers to your questions: {JSON})`. Split into the text and the typed answers a
/// request carries.
fn answered(command: &str) -> (String, serde_json::Map<String, serde_json::Value>) {
    const MARK: &str = "\n(My answers to your questions: ";
    match command.split_once(MARK) {
        Some((text, rest)) => {
            let json = rest.trim_end().trim_end_matches(')');
            let answers = serde_json::from_str(json).unwrap_or_default();
            (text.to_owned(), answers)
        }
        None => (command.to_owned(), serde_json::Map::new()),
    }
}

/// Runs an earlier command of a case on `board`, remembering what it made.
fn earlier(
    text: &str,
    agent: &Agent,
    rt: &tokio::runtime::Runtime,
    board: &mut BoardState,
    memory: &mut SessionMemory,
) -> Result<(), String> {
    let mut req = AiRequest::new(text.to_string(), me());
    req.viewport = Some(Viewport {
        x: 0.0,
        y: 0.0,
        w: 1600.0,
        h: 900.0,
    });
    let now = Instant::now();
    let AiPlan::Execute { intent, .. } = rt.block_on(agent.plan_at(&req, board, memory, now))
    else {
        return Err(format!("earlier command {text:?} did not execute"));
    };
    let r = resolve(&intent, board, &req.resolve_ctx());
    board
        .apply(&r.ops, &me(), 999)
        .map_err(|e| format!("earlier command {text:?}: {e}"))?;
    memory.remember_created(&r.created, now);
    Ok(())
}

/// What an object is called by: its text, or an image's alt text.
fn name(o: &BoardObject) -> &str {
    if o.kind == Kind::Image && o.text.is_empty() {
        o.alt.trim()
    } else {
        &o.text
    }
}

fn unq(s: &str) -> String {
    s.trim_matches('"').to_string()
}

fn geo_name(o: &BoardObject) -> &'static str {
    match o.geo {
        Some(Geo::Ellipse) => "ellipse",
        Some(Geo::Rectangle) | None => "rectangle",
        Some(Geo::Diamond) => "diamond",
        Some(Geo::Triangle) => "triangle",
        Some(Geo::Hexagon) => "hexagon",
        Some(Geo::Star) => "star",
        Some(Geo::Cloud) => "cloud",
    }
}

fn check(
    case: &Case,
    before: &BoardState,
    after: &BoardState,
    out: &Outcome,
) -> Result<(), String> {
    let r = match out {
        Outcome::Executed(r) => Some(r),
        _ => None,
    };
    let created: Vec<&BoardObject> = r
        .map(|r| {
            r.created
                .iter()
                .filter_map(|i| after.get(i.as_str()))
                .collect()
        })
        .unwrap_or_default();
    let solid: Vec<&BoardObject> = created
        .iter()
        .copied()
        .filter(|o| o.kind != Kind::Connector)
        .collect();
    let changed: Vec<&BoardObject> = after
        .objects()
        .filter(|o| before.get(o.id.as_str()).is_some_and(|b| b != *o))
        .collect();
    let gone = before
        .objects()
        .filter(|o| after.get(o.id.as_str()).is_none())
        .count();
    let what = || match out {
        Outcome::Executed(r) => format!("executed: {}", r.message()),
        Outcome::Asked(n) => format!("asked {n}"),
        Outcome::Answered(m) => format!("answered: {m}"),
        Outcome::Clarified(m) => format!("clarified: {m}"),
        Outcome::NotUnderstood => "not understood".into(),
        Outcome::Failed(m) => format!("failed: {m}"),
    };
    let needs_exec = case.expect.iter().any(|e| {
        !(e.starts_with("ask=") || e.starts_with("answer~") || e == "clarify" || e == "same")
    });
    if needs_exec && r.is_none() {
        return Err(what());
    }
    let mut count = None;
    let group = group_of(case, after, &changed);
    for e in &case.expect {
        let fail = |m: String| Err(format!("{e}: {m} ({})", what()));
        if let Some(res) = arrangement(e, &group, before, &changed) {
            match res {
                Ok(()) => continue,
                Err(m) => return fail(m),
            }
        }
        if let Some(kind) = kind_word(e) {
            // `+N kind` / `+N shape:geo`: N of the created objects (else at least one) are of
            // that kind, and shapes have that geo.
            let (kind, geo) = kind;
            let of: Vec<&&BoardObject> = created.iter().filter(|o| o.kind == kind).collect();
            if of.len() != count.unwrap_or(of.len().max(1)) {
                return fail(format!("{} of that kind", of.len()));
            }
            if geo.is_some_and(|g| of.iter().any(|o| geo_name(o) != g)) {
                return fail("geo differs".into());
            }
            continue;
        }
        let (key, val) = e.split_once(['=', '~']).unwrap_or((e.as_str(), ""));
        match key {
            k if k.starts_with('+') => {
                let n: usize = k[1..].parse().unwrap_or(0);
                count = Some(n);
                if created.len() != n {
                    return fail(format!("created {}", created.len()));
                }
            }
            k if k.starts_with('-') => {
                let n: usize = k[1..].parse().unwrap_or(0);
                if gone != n {
                    return fail(format!("{gone} gone"));
                }
            }
            "edit" => {
                let n: usize = val.parse().unwrap_or(0);
                if changed.len() != n {
                    return fail(format!("{} changed", changed.len()));
                }
            }
            "notes" | "shapes" | "frames_n" | "texts_n" | "connectors" => {
                let kind = match key {
                    "notes" => Kind::Note,
                    "shapes" => Kind::Shape,
                    "frames_n" => Kind::Frame,
                    "texts_n" => Kind::Text,
                    _ => Kind::Connector,
                };
                let n: usize = val.parse().unwrap_or(0);
                let c = created.iter().filter(|o| o.kind == kind).count();
                if c != n {
                    return fail(format!("{c} of that kind"));
                }
            }
            "text" => {
                let t = unq(val);
                if !created.iter().chain(changed.iter()).any(|o| o.text == t) {
                    return fail("no object with that text".into());
                }
            }
            "has" => {
                for t in unq(val).split('|') {
                    if !created.iter().any(|o| o.text == t) {
                        return fail(format!("missing {t:?}"));
                    }
                }
            }
            "frames" => {
                let names: Vec<&str> = created
                    .iter()
                    .filter(|o| o.kind == Kind::Frame)
                    .map(|o| o.text.as_str())
                    .collect();
                let want = unq(val);
                let want: Vec<&str> = want.split('|').collect();
                if names != want {
                    return fail(format!("frames {names:?}"));
                }
            }
            "color" => {
                let objs: Vec<&BoardObject> = if solid.is_empty() {
                    changed.clone()
                } else {
                    solid
                        .iter()
                        .copied()
                        .filter(|o| o.kind != Kind::Text)
                        .collect()
                };
                if objs.is_empty() || objs.iter().any(|o| nearest_name(&o.color) != val) {
                    return fail("color differs".into());
                }
            }
            "kind" => {
                let objs = if solid.is_empty() { &created } else { &solid };
                if objs.is_empty() || objs.iter().any(|o| o.kind.as_str() != val) {
                    return fail("kind differs".into());
                }
            }
            "geo" => {
                let objs: Vec<&BoardObject> = solid
                    .iter()
                    .chain(changed.iter())
                    .copied()
                    .filter(|o| o.kind == Kind::Shape)
                    .collect();
                if objs.is_empty() || objs.iter().any(|o| geo_name(o) != val) {
                    return fail("geo differs".into());
                }
            }
            "square" => {
                if solid
                    .iter()
                    .chain(changed.iter())
                    .any(|o| (o.w - o.h).abs() > 1.0)
                {
                    return fail("sides differ".into());
                }
            }
            "arrow" => {
                let want = match val {
                    "none" => Arrow::None,
                    "both" => Arrow::Both,
                    _ => Arrow::End,
                };
                let conns: Vec<&BoardObject> = created
                    .iter()
                    .chain(changed.iter())
                    .copied()
                    .filter(|o| o.kind == Kind::Connector)
                    .collect();
                if conns.is_empty() || conns.iter().any(|o| o.arrow.unwrap_or_default() != want) {
                    return fail("arrow differs".into());
                }
            }
            "in" => {
                let f = unq(val);
                let ok = !solid.is_empty()
                    && solid.iter().all(|o| {
                        o.parent
                            .as_ref()
                            .and_then(|p| after.get(p.as_str()))
                            .is_some_and(|p| p.text == f)
                    });
                if !ok {
                    return fail("not in that frame".into());
                }
            }
            "frame" => {
                let (name, n) = val.rsplit_once('/').unwrap_or((val, "0"));
                let name = unq(name);
                let n: usize = n.parse().unwrap_or(0);
                let ok = after.objects().any(|f| {
                    f.kind == Kind::Frame
                        && f.text == name
                        && after.children_of(f.id.as_str()).count() == n
                });
                if !ok {
                    return fail("no such frame".into());
                }
            }
            "grid" => {
                let (rows, cols) = val.split_once('x').unwrap_or(("0", "0"));
                let xs: std::collections::BTreeSet<i64> =
                    solid.iter().map(|o| o.x.round() as i64).collect();
                let ys: std::collections::BTreeSet<i64> =
                    solid.iter().map(|o| o.y.round() as i64).collect();
                if xs.len().to_string() != cols || ys.len().to_string() != rows {
                    return fail(format!("{} rows x {} columns", ys.len(), xs.len()));
                }
            }
            "target" => {
                let t = unq(val);
                let touched: Vec<&BoardObject> = changed
                    .iter()
                    .copied()
                    .filter(|o| o.kind != Kind::Frame || o.text == t)
                    .collect();
                let gone_t: Vec<&BoardObject> = before
                    .objects()
                    .filter(|o| after.get(o.id.as_str()).is_none())
                    .collect();
                let all: Vec<&&BoardObject> = touched.iter().chain(gone_t.iter()).collect();
                if all.is_empty() || all.iter().any(|o| !name(o).eq_ignore_ascii_case(&t)) {
                    return fail("other objects touched".into());
                }
            }
            "from" | "to" => {
                let t = unq(val);
                let ok = created.iter().any(|c| {
                    let end = if key == "from" { &c.from } else { &c.to };
                    c.kind == Kind::Connector
                        && end
                            .as_ref()
                            .and_then(|e| e.bound_id())
                            .and_then(|i| after.get(i.as_str()))
                            .is_some_and(|o| o.text == t)
                });
                if !ok {
                    return fail("no such connector end".into());
                }
            }
            "size" => {
                let (w, h) = val.split_once('x').unwrap_or(("0", "0"));
                let (w, h): (f64, f64) = (w.parse().unwrap_or(0.0), h.parse().unwrap_or(0.0));
                let objs = if solid.is_empty() { &changed } else { &solid };
                if objs.is_empty() || objs.iter().any(|o| o.w != w || o.h != h) {
                    return fail("size differs".into());
                }
            }
            "at" => {
                let (x, y) = val.split_once(',').unwrap_or(("0", "0"));
                let (x, y): (f64, f64) = (x.parse().unwrap_or(0.0), y.parse().unwrap_or(0.0));
                let objs = if solid.is_empty() { &changed } else { &solid };
                if objs.first().is_none_or(|o| o.x != x || o.y != y) {
                    return fail("position differs".into());
                }
            }
            "ask" => {
                if !matches!(out, Outcome::Asked(n) if n == val) {
                    return fail("no such question".into());
                }
            }
            "answer" => {
                let t = unq(val).to_lowercase();
                if !matches!(out, Outcome::Answered(m) if m.to_lowercase().contains(&t)) {
                    return fail("answer differs".into());
                }
            }
            "reply" => {
                let t = unq(val).to_lowercase();
                if !matches!(out, Outcome::Executed(r) if r.message().to_lowercase().contains(&t)) {
                    return fail("reply differs".into());
                }
            }
            "noreply" => {
                let t = unq(val).to_lowercase();
                if matches!(out, Outcome::Executed(r) if r.message().to_lowercase().contains(&t)) {
                    return fail("the reply says it".into());
                }
            }
            "ratio" => {
                // Every changed or created image keeps the width-to-height ratio it had.
                let images: Vec<&BoardObject> = changed
                    .iter()
                    .chain(created.iter())
                    .copied()
                    .filter(|o| o.kind == Kind::Image)
                    .collect();
                let kept = |o: &&BoardObject| {
                    let b = before
                        .get(o.id.as_str())
                        .or_else(|| before.objects().find(|b| b.asset == o.asset));
                    b.is_some_and(|b| ((o.w / o.h) - (b.w / b.h)).abs() < 0.01 * (b.w / b.h))
                };
                if images.is_empty() || !images.iter().all(kept) {
                    return fail("aspect ratio changed".into());
                }
            }
            "blank" => {
                if solid
                    .iter()
                    .any(|o| o.kind == Kind::Note && !o.text.is_empty())
                {
                    return fail("a note has text".into());
                }
            }
            "clarify" => {
                if !matches!(out, Outcome::Clarified(_)) {
                    return fail("not a clarification".into());
                }
            }
            "same" => {
                if !changed.is_empty() || gone > 0 || after.len() != before.len() {
                    return fail("the board changed".into());
                }
            }
            "below" | "above" | "leftof" | "rightof" | "near" => {
                let Some(r) = reference(after, &unq(val)) else {
                    return fail("no such reference object".into());
                };
                let subject = solid.first().copied().or_else(|| {
                    changed
                        .iter()
                        .copied()
                        .find(|o| o.kind != Kind::Frame && o.kind != Kind::Connector)
                });
                let Some(o) = subject else {
                    return fail("nothing created or moved".into());
                };
                if !beside(o, r, key) {
                    return fail(format!("at ({}, {}) {}x{}", o.x, o.y, o.w, o.h));
                }
            }
            other => return fail(format!("unknown expectation {other}")),
        }
    }
    Ok(())
}

/// The objects an arrangement expectation looks at: those named by `set="A|B"` (by text),
/// else the changed objects that are not frames or connectors.
fn group_of<'a>(
    case: &Case,
    after: &'a BoardState,
    changed: &[&'a BoardObject],
) -> Vec<&'a BoardObject> {
    match case.expect.iter().find_map(|e| e.strip_prefix("set=")) {
        Some(names) => unq(names)
            .split('|')
            .filter_map(|t| after.objects().find(|o| name(o).eq_ignore_ascii_case(t)))
            .collect(),
        None => changed
            .iter()
            .copied()
            .filter(|o| o.kind != Kind::Frame && o.kind != Kind::Connector)
            .collect(),
    }
}

/// The properties of `o` that differ from `b`.
fn differing(b: &BoardObject, o: &BoardObject) -> Vec<&'static str> {
    let mut d = Vec::new();
    let near = |a: f64, c: f64| (a - c).abs() < 0.005;
    for (name, x, y) in [
        ("x", b.x, o.x),
        ("y", b.y, o.y),
        ("w", b.w, o.w),
        ("h", b.h, o.h),
        ("rotation", b.rotation, o.rotation),
    ] {
        if !near(x, y) {
            d.push(name);
        }
    }
    for (name, same) in [
        ("z", b.z == o.z),
        ("text", b.text == o.text),
        ("parent", b.parent == o.parent),
        ("color", b.color == o.color),
        ("geo", b.geo == o.geo),
    ] {
        if !same {
            d.push(name);
        }
    }
    d
}

/// Start and length of `o` along `axis` ("x" or "y").
fn span(o: &BoardObject, axis: &str) -> (f64, f64) {
    if axis == "x" { (o.x, o.w) } else { (o.y, o.h) }
}

/// The group sorted by centre along `axis`.
fn by_centre<'a>(group: &[&'a BoardObject], axis: &str) -> Vec<&'a BoardObject> {
    let mut g = group.to_vec();
    g.sort_by(|a, b| {
        let c = |o: &BoardObject| span(o, axis).0 + span(o, axis).1 / 2.0;
        c(a).total_cmp(&c(b))
    });
    g
}

/// The arrangement expectations (`set=` picks the group, default: the changed objects):
/// `aligned=left|center|right|top|middle|bottom` the group shares that edge or centre line;
/// `only=x,y,…` every changed object changed only those properties (x, y, w, h, rotation, z,
/// text, parent, color, geo); `even=x|y` the group's gaps along the axis are equal within 1 px
/// and its outer two did not move; `gap=x:N` every gap between neighbours is N within 1 px;
/// `same=w|h|wh` equal widths and/or heights; `rot=N` the changed objects' rotation;
/// `behind="X"` / `infront="X"` the group is drawn behind / in front of X; `outside="F"` the
/// group is in no frame and clear of frame F.
/// `None` when `e` is none of these.
fn arrangement(
    e: &str,
    group: &[&BoardObject],
    before: &BoardState,
    changed: &[&BoardObject],
) -> Option<Result<(), String>> {
    let (key, val) = e.split_once('=')?;
    let near = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol;
    let ok = |c: bool, m: &str| if c { Ok(()) } else { Err(m.to_string()) };
    if group.is_empty() && matches!(key, "aligned" | "even" | "gap" | "same") {
        return Some(Err("no objects to check".into()));
    }
    Some(match key {
        "set" => Ok(()),
        "aligned" => {
            let v = |o: &BoardObject| match val {
                "left" => o.x,
                "center" => o.x + o.w / 2.0,
                "right" => o.x + o.w,
                "top" => o.y,
                "middle" => o.y + o.h / 2.0,
                _ => o.y + o.h,
            };
            let first = v(group[0]);
            ok(group.iter().all(|o| near(v(o), first, 0.5)), "not aligned")
        }
        "only" => {
            let allowed: Vec<&str> = val.split(',').collect();
            let bad = changed.iter().find_map(|o| {
                let b = before.get(o.id.as_str())?;
                differing(b, o)
                    .into_iter()
                    .find(|p| !allowed.contains(p))
                    .map(|p| format!("{p} of {:?} changed", o.text))
            });
            bad.map_or(Ok(()), Err)
        }
        "even" => {
            let g = by_centre(group, val);
            let gaps: Vec<f64> = g
                .windows(2)
                .map(|w| span(w[1], val).0 - span(w[0], val).0 - span(w[0], val).1)
                .collect();
            let outer_kept = [g[0], g[g.len() - 1]].iter().all(|o| {
                before
                    .get(o.id.as_str())
                    .is_some_and(|b| near(span(b, val).0, span(o, val).0, 0.01))
            });
            let equal = gaps.iter().all(|x| near(*x, gaps[0], 1.0));
            ok(
                g.len() >= 3 && outer_kept && equal,
                &format!("gaps {gaps:?}"),
            )
        }
        "gap" => {
            let (axis, n) = val.split_once(':').unwrap_or(("x", "0"));
            let n: f64 = n.parse().unwrap_or(0.0);
            let g = by_centre(group, axis);
            let gaps: Vec<f64> = g
                .windows(2)
                .map(|w| span(w[1], axis).0 - span(w[0], axis).0 - span(w[0], axis).1)
                .collect();
            ok(
                g.len() >= 2 && gaps.iter().all(|x| near(*x, n, 1.0)),
                &format!("gaps {gaps:?}"),
            )
        }
        "same" => {
            let (w, h) = (group[0].w, group[0].h);
            let sw = !val.contains('w') || group.iter().all(|o| near(o.w, w, 0.5));
            let sh = !val.contains('h') || group.iter().all(|o| near(o.h, h, 0.5));
            ok(sw && sh, "sizes differ")
        }
        "rot" => {
            let n: f64 = val.parse().unwrap_or(0.0);
            ok(
                !changed.is_empty() && changed.iter().all(|o| near(o.rotation, n, 0.01)),
                "rotation differs",
            )
        }
        "behind" | "infront" => {
            let t = unq(val);
            let Some(r) = before.objects().find(|o| name(o).eq_ignore_ascii_case(&t)) else {
                return Some(Err("no such reference object".into()));
            };
            let r = changed.iter().find(|o| o.id == r.id).copied().unwrap_or(r);
            let order = |o: &BoardObject| (o.z, o.id.clone());
            let movers: Vec<&&BoardObject> = group.iter().filter(|o| o.id != r.id).collect();
            let placed = movers.iter().all(|o| {
                if key == "behind" {
                    order(o) < order(r)
                } else {
                    order(o) > order(r)
                }
            });
            ok(!movers.is_empty() && placed, "drawing order differs")
        }
        "outside" => {
            let t = unq(val);
            let Some(f) = before
                .objects()
                .find(|o| o.text == t && o.kind == Kind::Frame)
            else {
                return Some(Err("no such frame".into()));
            };
            let clear = |o: &BoardObject| {
                o.x >= f.x + f.w || f.x >= o.x + o.w || o.y >= f.y + f.h || f.y >= o.y + o.h
            };
            ok(
                !group.is_empty() && group.iter().all(|o| o.parent.is_none() && clear(o)),
                "not out of the frame",
            )
        }
        _ => return None,
    })
}

/// A bare kind word of an expectation (`note`, `shapes`, `shape:star`, …): the kind and geo.
fn kind_word(e: &str) -> Option<(Kind, Option<&str>)> {
    let (k, geo) = match e.split_once(':') {
        Some((k, g)) => (k, Some(g)),
        None => (e, None),
    };
    let kind = match k.trim_end_matches('s') {
        "note" => Kind::Note,
        "shape" => Kind::Shape,
        "text" => Kind::Text,
        "frame" => Kind::Frame,
        "connector" => Kind::Connector,
        "image" => Kind::Image,
        _ => return None,
    };
    (!e.contains(['=', '~'])).then_some((kind, geo))
}

/// The object a relative expectation names: by text, else `color/kind` or `color/geo`.
fn reference<'a>(board: &'a BoardState, name: &str) -> Option<&'a BoardObject> {
    board
        .objects()
        .find(|o| self::name(o).eq_ignore_ascii_case(name))
        .or_else(|| {
            let (color, kind) = name.split_once('/')?;
            board.objects().find(|o| {
                nearest_name(&o.color) == color
                    && (o.kind.as_str() == kind || o.kind == Kind::Shape && geo_name(o) == kind)
            })
        })
}

/// True when `o` is on `side` of `r` (overlapping it across that axis) within 400 px (the
/// nearest free place may be past a neighbour), or for "near", within 400 px on any side without
/// overlapping it.
fn beside(o: &BoardObject, r: &BoardObject, side: &str) -> bool {
    const GAP: f64 = 400.0;
    let x_overlap = o.x < r.x + r.w && r.x < o.x + o.w;
    let y_overlap = o.y < r.y + r.h && r.y < o.y + o.h;
    let below = o.y - (r.y + r.h);
    let above = r.y - (o.y + o.h);
    let right = o.x - (r.x + r.w);
    let left = r.x - (o.x + o.w);
    let within = |g: f64| (0.0..=GAP).contains(&g);
    match side {
        "below" => x_overlap && within(below),
        "above" => x_overlap && within(above),
        "rightof" => y_overlap && within(right),
        "leftof" => y_overlap && within(left),
        _ => !(x_overlap && y_overlap) && [below, above, right, left].iter().all(|g| *g <= GAP),
    }
}

/// Per-class results: class → (passed, total, failures).
pub type Report = BTreeMap<String, (usize, usize, Vec<String>)>;

/// Runs every case.
pub fn run_all(src: &str) -> Report {
    let agent = Agent::new(AgentConfig::default());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut rep = Report::new();
    for c in cases(src) {
        let e = rep.entry(c.class.clone()).or_default();
        e.1 += 1;
        match run(&c, &agent, &rt) {
            Ok(()) => e.0 += 1,
            Err(m) => e.2.push(format!("line {}: {:?} — {m}", c.line, c.command)),
        }
    }
    rep
}

/// The report as a markdown table.
pub fn markdown(rep: &Report) -> String {
    let mut s = String::from("| Class | Passed | Total | Accuracy |\n|---|---:|---:|---:|\n");
    let (mut p, mut t) = (0, 0);
    for (class, (ok, n, _)) in rep {
        p += ok;
        t += n;
        s.push_str(&format!(
            "| {class} | {ok} | {n} | {:.1} % |\n",
            100.0 * *ok as f64 / (*n).max(1) as f64
        ));
    }
    s.push_str(&format!(
        "| **all** | **{p}** | **{t}** | **{:.1} %** |\n",
        100.0 * p as f64 / t.max(1) as f64
    ));
    s
}
