//! `batchOperations`: the ref map and skip rules (seed 000 R18-R19), directive dispatch to the
//! layout crate (R20-R22), frame fitting (R23), placement near the viewport (R24) and collision
//! resolution against the board (AC-6).

use super::arrange::{generic_part, is_template, subtree_of, template_part};
use super::entry::{End, Entry};
use super::shadow::Shadow;
use super::{CreatedInfo, GAP, ResolveCtx, Resolved};
use crate::schema::{
    ArrowKind, BatchOperations, Geometry, LayoutDirective, Operation, is_valid_ref,
};
use layout::templates::FRAME_GAP;
use layout::text::{TextKind, estimate_size};
use layout::{Movable, Rect};
use protocol::num::{Num, clamp_size};
use protocol::palette::{canonical_name, nearest_name, resolve_color};
use protocol::{Arrow, EndpointInput, Geo, Kind, ObjectId, ObjectInput, OpInput};
use std::collections::HashMap;

/// Default size of a frame with no children (R21).
const EMPTY_FRAME: (f64, f64) = (300.0, 300.0);

fn text_kind(k: Kind) -> TextKind {
    match k {
        Kind::Note => TextKind::Note,
        Kind::Shape => TextKind::Shape,
        Kind::Frame => TextKind::Frame,
        Kind::Text | Kind::Connector | Kind::Image => TextKind::Text,
    }
}

fn finite(v: Option<f64>) -> Option<f64> {
    v.filter(|n| n.is_finite())
}

/// Size from explicit geometry or from the text (layout's estimate), squared for circles and
/// squares.
fn sized(e: &mut Entry, g: &Geometry) {
    let (ew, eh) = if e.kind == Kind::Frame {
        EMPTY_FRAME
    } else {
        estimate_size(&e.text, text_kind(e.kind))
    };
    let (w, h) = (finite(g.w), finite(g.h));
    let mut size = (w.unwrap_or(ew), h.unwrap_or(eh));
    if e.equal_sides && (w.is_none() || h.is_none()) {
        let side = w.or(h).unwrap_or(size.0.max(size.1));
        size = (side, side);
    }
    e.size = (clamp_size(size.0), clamp_size(size.1));
    if let (Some(x), Some(y)) = (finite(g.x), finite(g.y)) {
        e.explicit = Some((x, y));
    }
}

/// A shape's entry: its text, color and geometry ("circle" and "square" get equal sides).
fn shape_entry(s: &crate::schema::CreateShape) -> Entry {
    let mut e = Entry::new(
        Kind::Shape,
        s.text.clone().unwrap_or_default(),
        s.color.clone(),
    );
    let name = s
        .geo
        .as_deref()
        .unwrap_or("rectangle")
        .trim()
        .to_ascii_lowercase();
    e.geo = Some(Geo::parse(&name).unwrap_or(Geo::Rectangle));
    e.equal_sides = matches!(name.as_str(), "circle" | "square");
    e
}

/// The batch's name, notice and title for the reply; the title becomes a text entry (its index).
fn titled(b: &BatchOperations, entries: &mut Vec<Entry>, out: &mut Resolved) -> Option<usize> {
    if b.structure.is_some() {
        out.summary.structure = b.structure.clone();
    }
    if b.notice.is_some() {
        out.summary.notice = b.notice.clone();
    }
    let t = b.title.as_ref().filter(|t| !t.trim().is_empty())?;
    let mut e = Entry::new(Kind::Text, t.clone(), None);
    e.size = estimate_size(t, TextKind::Text);
    entries.push(e);
    out.summary.title = Some(t.clone());
    Some(entries.len() - 1)
}

/// What a connector's ends may name: refs of the batch so far, objects on the board.
struct Ends<'a> {
    refs: &'a HashMap<&'a str, usize>,
    entries: &'a [Entry],
    shadow: &'a Shadow<'a>,
    r: &'a str,
}

impl Ends<'_> {
    /// One end: a ref of the batch (not a connector) or an object on the board.
    fn end(
        &self,
        rf: &Option<crate::schema::Ref>,
        id: &Option<String>,
        side: &str,
        out: &mut Resolved,
    ) -> Option<End> {
        let r = self.r;
        if let Some(rf) = rf {
            return match self.refs.get(rf.as_str()) {
                Some(&i)
                    if self
                        .entries
                        .get(i)
                        .is_some_and(|e| e.kind == Kind::Connector) =>
                {
                    out.warnings.push(format!(
                        "Connector '{r}': {side}Ref '{}' is a connector — skipping connector",
                        rf.0
                    ));
                    None
                }
                Some(&i) => Some(End::Entry(i)),
                None => {
                    out.warnings.push(format!(
                        "Connector '{r}': {side}Ref '{}' not found — skipping connector",
                        rf.0
                    ));
                    None
                }
            };
        }
        match id.as_deref().map(|i| (i, self.shadow.get(i))) {
            Some((i, Some(o))) if o.kind != Kind::Connector => {
                Some(End::Existing(ObjectId::try_from(i).ok()?))
            }
            Some((i, _)) => {
                out.warnings.push(format!(
                    "Connector '{r}': {side}Id '{i}' is not an object on the board — skipping connector"
                ));
                None
            }
            None => {
                out.warnings.push(format!(
                    "Connector '{r}' has no {side} end — skipping connector"
                ));
                None
            }
        }
    }

    /// A connector's entry, when both its ends are known.
    fn connector(&self, c: &crate::schema::CreateConnector, out: &mut Resolved) -> Option<Entry> {
        let from = self.end(&c.from_ref, &c.from_id, "from", out);
        let to = self.end(&c.to_ref, &c.to_id, "to", out);
        let (from, to) = (from?, to?);
        let mut e = Entry::new(
            Kind::Connector,
            c.label.clone().unwrap_or_default(),
            c.color.clone(),
        );
        e.from = Some(from);
        e.to = Some(to);
        e.arrow = Some(match c.arrow {
            Some(ArrowKind::Both) => Arrow::Both,
            Some(ArrowKind::None) => Arrow::None,
            _ => Arrow::End,
        });
        Some(e)
    }
}

/// Builds the entries in order, applying the skip rules of R19. Returns the entries and the
/// connector entries' indices.
fn collect(b: &BatchOperations, shadow: &Shadow, out: &mut Resolved) -> Vec<Entry> {
    let mut refs: HashMap<&str, usize> = HashMap::new();
    let mut entries: Vec<Entry> = Vec::new();
    for op in &b.operations {
        let r = op.r#ref();
        if r.trim().is_empty() {
            out.warnings
                .push("Empty ref — skipping operation".to_string());
            continue;
        }
        if !is_valid_ref(r) {
            out.warnings
                .push(format!("Invalid ref '{r}' — skipping operation"));
            continue;
        }
        if refs.contains_key(r) {
            out.warnings
                .push(format!("Duplicate ref '{r}' — skipping operation"));
            continue;
        }
        let parent_of = |p: Option<&str>, entries: &[Entry], out: &mut Resolved| match p {
            None => None,
            Some(p) => match refs.get(p) {
                Some(&i) if entries.get(i).is_some_and(|e| e.kind == Kind::Frame) => Some(i),
                Some(_) => {
                    out.warnings.push(format!(
                        "parentRef '{p}' of '{r}' is not a frame — placed at top level"
                    ));
                    None
                }
                None => {
                    out.warnings.push(format!(
                        "parentRef '{p}' of '{r}' not found — placed at top level"
                    ));
                    None
                }
            },
        };
        let entry = match op {
            Operation::CreateFrame(f) => {
                let mut e = Entry::new(Kind::Frame, f.name.clone(), f.color.clone());
                e.parent = parent_of(op.parent_ref(), &entries, out);
                sized(&mut e, &f.geometry);
                e
            }
            Operation::CreateNote(n) => {
                let mut e = Entry::new(Kind::Note, n.text.clone(), n.color.clone());
                e.parent = parent_of(op.parent_ref(), &entries, out);
                sized(&mut e, &n.geometry);
                e
            }
            Operation::CreateText(t) => {
                let mut e = Entry::new(Kind::Text, t.text.clone(), t.color.clone());
                e.parent = parent_of(op.parent_ref(), &entries, out);
                sized(&mut e, &t.geometry);
                e
            }
            Operation::CreateShape(s) => {
                let mut e = shape_entry(s);
                e.parent = parent_of(op.parent_ref(), &entries, out);
                sized(&mut e, &s.geometry);
                e
            }
            Operation::CreateConnector(c) => {
                let ends = Ends {
                    refs: &refs,
                    entries: &entries,
                    shadow,
                    r,
                };
                let Some(e) = ends.connector(c, out) else {
                    continue;
                };
                e
            }
        };
        let mut entry = entry;
        if entry.parent.is_none()
            && op.parent_ref().is_none()
            && let Some(pid) = op_parent_id(op)
        {
            match shadow.get(pid) {
                Some(f) if f.kind == Kind::Frame => entry.host = Some(f.id.clone()),
                _ => out.warnings.push(format!(
                    "parentId '{pid}' of '{r}' is not a frame on the board — placed at top level"
                )),
            }
        }
        refs.insert(r, entries.len());
        entries.push(entry);
    }
    entries
}

fn op_parent_id(op: &Operation) -> Option<&str> {
    match op {
        Operation::CreateFrame(o) => o.geometry.parent_id.as_deref(),
        Operation::CreateNote(o) => o.geometry.parent_id.as_deref(),
        Operation::CreateShape(o) => o.geometry.parent_id.as_deref(),
        Operation::CreateText(o) => o.geometry.parent_id.as_deref(),
        Operation::CreateConnector(_) => None,
    }
    .filter(|p| !p.is_empty())
}

/// The generic remainder of a template batch (`rest`) moved to the right of the template's
/// part (`covered`).
fn beside_template(entries: &mut [Entry], covered: &[bool], rest: &[bool]) {
    let tb = Rect::union_all(
        entries
            .iter()
            .enumerate()
            .filter(|(i, e)| covered[*i] && e.kind != Kind::Connector)
            .map(|(_, e)| &e.rect),
    );
    let Some(tb) = tb else {
        return;
    };
    let gb = Rect::union_all(
        entries
            .iter()
            .enumerate()
            .filter(|(i, e)| rest[*i] && e.kind != Kind::Connector && e.explicit.is_none())
            .map(|(_, e)| &e.rect),
    );
    if let Some(gb) = gb {
        let (dx, dy) = (tb.right() + FRAME_GAP - gb.x, tb.y - gb.y);
        for i in 0..entries.len() {
            if rest[i] && entries[i].explicit.is_none() {
                entries[i].rect = entries[i].rect.translated(dx, dy);
            }
        }
    }
}

/// The entries placed where the batch said (an explicit position at top level, with their
/// subtrees): they do not move with the group.
fn absolute_of(entries: &[Entry]) -> Vec<bool> {
    let mut abs = vec![false; entries.len()];
    for i in 0..entries.len() {
        if entries[i].explicit.is_some() && entries[i].parent.is_none() {
            for s in subtree_of(entries, i) {
                abs[s] = true;
            }
        }
    }
    abs
}

/// The batch pushed clear of the existing objects (fixed); a frame's children move with it, a
/// diagram moves as one group.
fn collide(
    entries: &mut [Entry],
    hosted: &[bool],
    absolute: &[bool],
    diagram: bool,
    fixed: &[Rect],
) {
    let mut mv_index: Vec<Option<usize>> = vec![None; entries.len()];
    let mut movables: Vec<Movable> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if e.kind == Kind::Connector || hosted[i] {
            continue;
        }
        mv_index[i] = Some(movables.len());
        let mut m = Movable::new(e.rect);
        if let Some(p) = e.parent.and_then(|p| mv_index.get(p).copied().flatten()) {
            m = m.in_frame(p);
        }
        if diagram && !absolute[i] {
            m = m.in_group(1);
        }
        movables.push(m);
    }
    if !movables.is_empty() {
        super::shadow::resolve_near(fixed, &mut movables);
        for (i, e) in entries.iter_mut().enumerate() {
            if let Some(m) = mv_index[i].and_then(|k| movables.get(k)) {
                e.rect = m.rect;
            }
        }
    }
}

/// Objects for frames already on the board go in free space inside them (the frame grows if
/// needed).
fn into_hosts(entries: &mut [Entry], shadow: &mut Shadow, out: &mut Resolved) {
    let mut taken: Vec<Rect> = Vec::new();
    for e in entries.iter_mut() {
        let Some(frame) = e
            .host
            .as_ref()
            .and_then(|h| shadow.get(h.as_str()))
            .cloned()
        else {
            continue;
        };
        let (r, grown) = super::group::slot_in_frame(shadow, &frame, e.size, e.explicit, &taken);
        e.rect = r;
        taken.push(r);
        if let Some(g) = grown {
            super::group::grow_frame(&frame, g, shadow, out);
        }
    }
}

pub(super) fn resolve_batch(
    b: &BatchOperations,
    shadow: &mut Shadow,
    ctx: &ResolveCtx,
    out: &mut Resolved,
) {
    let mut entries = collect(b, shadow, out);
    let title_idx = titled(b, &mut entries, out);
    if entries.is_empty() {
        return;
    }
    let d = b.layout_directive;
    // 1. Arrange in group coordinates.
    let mut covered = vec![false; entries.len()];
    let mut auto = Vec::new();
    if let Some(td) = d.filter(|_| is_template(d)) {
        (covered, auto) = template_part(td, &mut entries);
        if covered.iter().any(|c| *c) {
            out.summary.template = Some(td.as_str().to_string());
        }
    }
    let hosted: Vec<bool> = entries.iter().map(|e| e.host.is_some()).collect();
    let rest: Vec<bool> = (0..entries.len())
        .map(|i| !covered[i] && Some(i) != title_idx && !hosted[i])
        .collect();
    // Children of covered frames that the template did not take (nested frames) stay with the
    // generic part but at top level of it.
    for i in 0..entries.len() {
        if rest[i] && entries[i].parent.is_some_and(|p| covered[p]) {
            entries[i].parent = None;
        }
    }
    let generic_dir = if is_template(d) { None } else { d };
    if rest.iter().any(|r| *r) {
        generic_part(generic_dir, b.columns, &mut entries, &rest);
    }
    // The generic remainder of a template batch goes to the right of the template.
    beside_template(&mut entries, &covered, &rest);
    let absolute = absolute_of(&entries);
    let group_bounds = Rect::union_all(
        entries
            .iter()
            .enumerate()
            .filter(|(i, e)| {
                !absolute[*i] && e.kind != Kind::Connector && Some(*i) != title_idx && !hosted[*i]
            })
            .map(|(_, e)| &e.rect),
    );
    if let (Some(ti), Some(gb)) = (title_idx, group_bounds) {
        let (w, h) = entries[ti].size;
        entries[ti].rect = Rect::new(gb.x, gb.y - h - GAP, w, h);
    } else if let Some(ti) = title_idx {
        let (w, h) = entries[ti].size;
        entries[ti].rect = Rect::new(0.0, 0.0, w, h);
    }
    // 2. Place the group in open space near the viewport (R24).
    let fixed = shadow.obstacles();
    let group = Rect::union_all(
        entries
            .iter()
            .enumerate()
            .filter(|(i, e)| !absolute[*i] && e.kind != Kind::Connector && !hosted[*i])
            .map(|(_, e)| &e.rect),
    );
    if let Some(g) = group {
        let (dx, dy) = super::shadow::place_near(&fixed, g, ctx.viewport_rect());
        for (i, e) in entries.iter_mut().enumerate() {
            if !absolute[i] && e.kind != Kind::Connector && !hosted[i] {
                e.rect = e.rect.translated(dx, dy);
            }
        }
    }
    // 3. Collision resolution: existing objects fixed, the batch pushed clear (AC-6).
    let diagram = d.is_some_and(|d| d != LayoutDirective::Freeform);
    collide(&mut entries, &hosted, &absolute, diagram, &fixed);
    // 3b. Objects for existing frames go in free space inside them (the frame grows if needed).
    into_hosts(&mut entries, shadow, out);
    // 4. Ops, in entry order (parents and connector ends come first), then automatic connectors.
    for (i, e) in entries.iter().enumerate() {
        emit(e, &entries, i, shadow, out);
    }
    for (a, b2) in auto {
        let mut e = Entry::new(Kind::Connector, String::new(), None);
        e.from = Some(End::Entry(a));
        e.to = Some(End::Entry(b2));
        e.arrow = Some(Arrow::End);
        let n = entries.len();
        emit(&e, &entries, n, shadow, out);
    }
}

fn emit(e: &Entry, entries: &[Entry], _i: usize, shadow: &mut Shadow, out: &mut Resolved) {
    let mut input = ObjectInput::new(e.kind);
    input.id = Some(e.id.clone());
    input.text = (!e.text.is_empty()).then(|| e.text.clone());
    input.color = e.color.clone();
    let endpoint = |end: &Option<End>| -> Option<EndpointInput> {
        match end.as_ref()? {
            End::Entry(j) => Some(EndpointInput::Bound {
                id: entries.get(*j)?.id.clone(),
            }),
            End::Existing(id) => Some(EndpointInput::Bound { id: id.clone() }),
        }
    };
    if e.kind == Kind::Connector {
        input.from = endpoint(&e.from);
        input.to = endpoint(&e.to);
        input.arrow = e.arrow;
        if input.from.is_none() || input.to.is_none() {
            return;
        }
    } else {
        input.x = Some(Num(e.rect.x));
        input.y = Some(Num(e.rect.y));
        input.w = Some(Num(e.rect.w));
        input.h = Some(Num(e.rect.h));
        input.geo = e.geo;
        input.parent = e
            .parent
            .and_then(|p| entries.get(p))
            .map(|p| p.id.clone())
            .or_else(|| e.host.clone());
    }
    let obj = input.normalize(e.id.clone(), 0);
    let color_name = e
        .color
        .as_deref()
        .and_then(canonical_name)
        .map(str::to_string)
        .unwrap_or_else(|| {
            nearest_name(&resolve_color(e.color.as_deref().unwrap_or(""), e.kind)).to_string()
        });
    out.summary.created.push(CreatedInfo {
        id: e.id.clone(),
        kind: e.kind,
        geo: e.geo,
        equal_sides: e.equal_sides,
        color: color_name,
        x: obj.x,
        y: obj.y,
        w: obj.w,
        h: obj.h,
        text: e.text.clone(),
        explicit_position: e.explicit.is_some(),
        in_frame: e.parent.is_some() || e.host.is_some(),
    });
    shadow.put(obj);
    out.created.push(e.id.clone());
    out.ops.push(OpInput::Create { object: input });
}
