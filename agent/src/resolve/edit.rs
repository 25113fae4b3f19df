//! `updateElements`, `layoutElements`, `deleteElements` and `duplicateElements` against the
//! board: ids that are gone are skipped with a warning naming them.

use super::shadow::{Shadow, rect_of};
use super::{Change, CreatedInfo, EditInfo, GAP, ResolveCtx, Resolved};
use crate::schema::{
    ArrangeLayout, DeleteElements, DuplicateElements, Layer, LayoutElements, UpdateElements,
};
use layout::directives::{self, DEFAULT_SPACING, Direction, Edge, Node, TreeStyle};
use layout::{Movable, Options, Rect};
use protocol::num::Num;
use protocol::palette::nearest_name;
use protocol::{BoardObject, EndpointInput, Geo, Kind, ObjectId, ObjectInput, OpInput, PatchInput};
use std::collections::{HashMap, HashSet};

fn equal_sides(o: &BoardObject) -> bool {
    o.kind == Kind::Shape
        && matches!(o.geo, Some(Geo::Ellipse | Geo::Rectangle))
        && (o.w - o.h).abs() <= 0.05 * o.w.max(o.h)
}

pub(super) fn info(o: &BoardObject, changes: Vec<Change>) -> EditInfo {
    EditInfo {
        id: o.id.clone(),
        kind: o.kind,
        geo: o.geo,
        equal_sides: equal_sides(o),
        color: nearest_name(&o.color).to_string(),
        changes,
    }
}

/// The size an update asks for: `w` and `h` as given, except that an image given one side keeps
/// its aspect ratio (the other side follows).
fn asked_size(e: &crate::schema::ElementUpdate, cur: &BoardObject) -> (f64, f64) {
    let ok = |v: Option<f64>| v.filter(|n| n.is_finite());
    let ratio = cur.h / cur.w;
    let keeps = cur.kind == Kind::Image && ratio.is_finite() && ratio > 0.0;
    match (ok(e.w), ok(e.h)) {
        (Some(w), None) if keeps => (w, w * ratio),
        (None, Some(h)) if keeps => (h / ratio, h),
        (w, h) => (w.unwrap_or(cur.w), h.unwrap_or(cur.h)),
    }
}

/// A new color and a new text, when the update has them; a picture takes neither (its colors
/// are its own, its words are its alt text).
fn restyle(
    e: &crate::schema::ElementUpdate,
    cur: &BoardObject,
    p: &mut PatchInput,
    changes: &mut Vec<Change>,
    warnings: &mut Vec<String>,
) {
    if cur.kind == Kind::Image {
        if e.color.is_some() || e.text.is_some() {
            warnings.push(format!(
                "'{}' is an image: it has no color or text of its own — ignored",
                e.id
            ));
        }
        return;
    }
    if let Some(c) = &e.color {
        p.color = Some(c.clone());
        let hex = protocol::palette::resolve_color(c, cur.kind);
        changes.push(Change::Recolored {
            color: nearest_name(&hex).to_string(),
        });
    }
    if let Some(t) = &e.text {
        p.text = Some(t.clone());
        changes.push(Change::Retexted { text: t.clone() });
    }
}

/// A new place in the drawing order (relative layering), when it is one.
fn reorder(z: Option<i64>, cur: &BoardObject, p: &mut PatchInput, changes: &mut Vec<Change>) {
    if let Some(z) = z.filter(|z| *z != cur.z) {
        p.z = Some(Num(z as f64));
        changes.push(Change::Reordered { front: z > cur.z });
    }
}

/// One update's patch being built, for the steps that need the board or warn.
struct Step<'a> {
    e: &'a crate::schema::ElementUpdate,
    cur: &'a BoardObject,
    p: &'a mut PatchInput,
    changes: &'a mut Vec<Change>,
    warnings: &'a mut Vec<String>,
}

impl Step<'_> {
    /// `parentId`: "" takes the object out of its frame; otherwise a frame on the board.
    fn parent(&mut self, shadow: &Shadow) {
        let Some(pid) = &self.e.parent_id else {
            return;
        };
        if pid.is_empty() {
            self.p.parent = Some(None);
            self.changes.push(Change::Reparented);
            return;
        }
        match shadow.get(pid) {
            Some(f) if f.kind == Kind::Frame && shadow.holds(&self.cur.id, &f.id) => {
                self.warnings.push(format!(
                    "'{}' holds frame '{pid}' and cannot go inside it — parentId ignored",
                    self.e.id
                ))
            }
            Some(f) if f.kind == Kind::Frame => {
                self.p.parent = Some(Some(f.id.clone()));
                self.changes.push(Change::Reparented);
            }
            _ => self.warnings.push(format!(
                "parentId '{pid}' of '{}' is not a frame on the board — ignored",
                self.e.id
            )),
        }
    }

    /// `geo` of a shape (circle and square get equal sides).
    fn geo(&mut self, w: f64, h: f64) {
        let Some(g) = self.e.geo.as_deref() else {
            return;
        };
        let name = g.trim().to_ascii_lowercase();
        match (self.cur.kind, Geo::parse(&name)) {
            (Kind::Shape, Some(geo)) => {
                self.p.geo = Some(geo);
                if matches!(name.as_str(), "circle" | "square") && (w - h).abs() > 0.5 {
                    let side = w.max(h);
                    self.p.w = Some(Num(side));
                    self.p.h = Some(Num(side));
                }
                self.changes.push(Change::Reshaped { to: name });
            }
            _ => self.warnings.push(format!(
                "geo '{g}' of '{}' needs a shape and a known geometry — ignored",
                self.e.id
            )),
        }
    }

    /// `arrow` of a connector.
    fn arrow(&mut self) {
        let Some(a) = self.e.arrow else {
            return;
        };
        if self.cur.kind != Kind::Connector {
            self.warnings.push(format!(
                "'{}' is not a connector — arrow ignored",
                self.e.id
            ));
            return;
        }
        let (arrow, to) = match a {
            crate::schema::ArrowKind::End => (protocol::Arrow::End, "an arrow"),
            crate::schema::ArrowKind::Both => (protocol::Arrow::Both, "a double arrow"),
            crate::schema::ArrowKind::None => (protocol::Arrow::None, "a line"),
        };
        self.p.arrow = Some(arrow);
        self.changes.push(Change::Restyled { to: to.into() });
    }
}

pub(super) fn resolve_updates(u: &UpdateElements, shadow: &mut Shadow, out: &mut Resolved) {
    for e in &u.updates {
        let Some(cur) = shadow.get(&e.id).cloned() else {
            out.warnings
                .push(format!("No object with id '{}' — update skipped", e.id));
            continue;
        };
        let mut p = PatchInput::default();
        let mut changes = Vec::new();
        let ok = |v: Option<f64>| v.filter(|n| n.is_finite());
        let (mut w, mut h) = asked_size(e, &cur);
        let scale = ok(e.scale).filter(|s| *s > 0.0);
        if e.scale.is_some() && scale.is_none() {
            out.warnings.push(format!(
                "Scale of '{}' must be a positive number — ignored",
                e.id
            ));
        }
        if let Some(s) = scale {
            w *= s;
            h *= s;
        }
        let resized = ok(e.w).is_some() || ok(e.h).is_some() || scale.is_some();
        let (w, h) = (protocol::num::clamp_size(w), protocol::num::clamp_size(h));
        let mut x = ok(e.x).unwrap_or(cur.x);
        let mut y = ok(e.y).unwrap_or(cur.y);
        if scale.is_some() && ok(e.x).is_none() && ok(e.y).is_none() {
            // Scale about the centre.
            x = cur.x + (cur.w - w) / 2.0;
            y = cur.y + (cur.h - h) / 2.0;
        }
        x += ok(e.dx).unwrap_or(0.0);
        y += ok(e.dy).unwrap_or(0.0);
        if resized {
            p.w = Some(Num(w));
            p.h = Some(Num(h));
            changes.push(Change::Resized { w, h, scale });
        }
        if x != cur.x || y != cur.y {
            p.x = Some(Num(x));
            p.y = Some(Num(y));
            if ok(e.x).is_some() || ok(e.y).is_some() || ok(e.dx).is_some() || ok(e.dy).is_some() {
                changes.push(Change::Moved {
                    dx: x - cur.x,
                    dy: y - cur.y,
                    x,
                    y,
                });
            }
        }
        restyle(e, &cur, &mut p, &mut changes, &mut out.warnings);
        if let Some(r) = ok(e.rotation) {
            p.rotation = Some(Num(r));
            changes.push(Change::Rotated { rotation: r });
        }
        if let Some(layer) = e.layer {
            let zs = shadow.board.objects().map(|o| o.z);
            let z = match layer {
                Layer::Front => zs.max().unwrap_or(0).saturating_add(1),
                Layer::Back => zs.min().unwrap_or(0).saturating_sub(1),
            };
            p.z = Some(Num(z as f64));
            changes.push(Change::Restacked {
                front: layer == Layer::Front,
            });
        }
        reorder(e.z, &cur, &mut p, &mut changes);
        let mut step = Step {
            e,
            cur: &cur,
            p: &mut p,
            changes: &mut changes,
            warnings: &mut out.warnings,
        };
        step.parent(shadow);
        step.geo(w, h);
        step.arrow();
        let patch = p.normalize(cur.kind);
        if patch.is_empty() {
            out.warnings
                .push(format!("Update of '{}' changes nothing — skipped", e.id));
            continue;
        }
        let mut after = cur.clone();
        patch.apply_to(&mut after);
        out.summary.edited.push(info(&cur, changes));
        shadow.put(after);
        out.ops.push(OpInput::Update {
            id: cur.id.clone(),
            set: p,
        });
    }
}

/// Existing, non-connector objects among `ids`, deduplicated, minus those whose ancestor frame is
/// also listed (they move with it).
fn live_targets(
    ids: &[String],
    shadow: &Shadow,
    what: &str,
    out: &mut Resolved,
) -> Vec<BoardObject> {
    let mut seen = HashSet::new();
    let mut objs = Vec::new();
    for id in ids {
        if !seen.insert(id.as_str()) {
            continue;
        }
        match shadow.get(id) {
            Some(o) => objs.push(o.clone()),
            None => out
                .warnings
                .push(format!("No object with id '{id}' — {what} skipped for it")),
        }
    }
    let listed: HashSet<ObjectId> = objs.iter().map(|o| o.id.clone()).collect();
    objs.retain(|o| {
        let mut p = o.parent.clone();
        let mut hops = 0;
        while let Some(pid) = p {
            if listed.contains(&pid) {
                return false;
            }
            hops += 1;
            if hops > 64 {
                break;
            }
            p = shadow.get(pid.as_str()).and_then(|f| f.parent.clone());
        }
        true
    });
    objs
}

pub(super) fn resolve_layout(l: &LayoutElements, shadow: &mut Shadow, out: &mut Resolved) {
    let objs: Vec<BoardObject> = live_targets(&l.ids, shadow, "layout", out)
        .into_iter()
        .filter(|o| o.kind != Kind::Connector)
        .collect();
    if objs.is_empty() {
        return;
    }
    let spacing = l
        .spacing
        .filter(|s| s.is_finite() && *s >= 0.0)
        .unwrap_or(DEFAULT_SPACING);
    let nodes: Vec<Node> = objs
        .iter()
        .map(|o| Node::new(o.id.as_str(), o.w, o.h).at(o.x, o.y))
        .collect();
    let keys: HashSet<&str> = objs.iter().map(|o| o.id.as_str()).collect();
    let mut edges = Vec::new();
    for o in &objs {
        for c in shadow.board.connectors_of(o.id.as_str()) {
            if let Some(c) = shadow.get(c.as_str())
                && let (Some(f), Some(t)) = (
                    c.from.as_ref().and_then(|e| e.bound_id()),
                    c.to.as_ref().and_then(|e| e.bound_id()),
                )
                && f == &o.id
                && keys.contains(t.as_str())
            {
                edges.push(Edge::new(f.as_str(), t.as_str()));
            }
        }
    }
    let mut a = match l.layout {
        ArrangeLayout::Grid => directives::grid(&nodes, spacing),
        ArrangeLayout::Row => directives::row(&nodes, spacing),
        ArrangeLayout::Column => directives::column(&nodes, spacing),
        ArrangeLayout::Circle => directives::circle(&nodes, spacing),
        ArrangeLayout::Tree => directives::tree(&nodes, &edges, TreeStyle::OrgChart, spacing),
        ArrangeLayout::FlowchartTopDown => {
            directives::flowchart(&nodes, &edges, Direction::TopDown, spacing)
        }
        ArrangeLayout::FlowchartLeftRight => {
            directives::flowchart(&nodes, &edges, Direction::LeftRight, spacing)
        }
    };
    // Keep the arrangement where the objects were: same top-left corner.
    let before = Rect::union_all(objs.iter().map(rect_of).collect::<Vec<_>>().iter());
    if let (Some(b), Some(now)) = (before, a.bounds()) {
        a.translate(b.x - now.x, b.y - now.y);
    }
    for (o, p) in objs.iter().zip(&a.nodes) {
        if (p.rect.x - o.x).abs() < 0.01 && (p.rect.y - o.y).abs() < 0.01 {
            continue;
        }
        let set = PatchInput {
            x: Some(Num(p.rect.x)),
            y: Some(Num(p.rect.y)),
            ..PatchInput::default()
        };
        let mut after = o.clone();
        set.normalize(o.kind).apply_to(&mut after);
        shadow.put(after);
        out.ops.push(OpInput::Update {
            id: o.id.clone(),
            set,
        });
    }
    out.summary.arranged = Some((objs.len(), l.layout.as_str().to_string()));
}

pub(super) fn resolve_delete(d: &DeleteElements, shadow: &mut Shadow, out: &mut Resolved) {
    let mut seen = HashSet::new();
    for id in &d.ids {
        if !seen.insert(id.as_str()) {
            continue;
        }
        let Some(o) = shadow.get(id).cloned() else {
            out.warnings
                .push(format!("No object with id '{id}' — delete skipped"));
            continue;
        };
        out.summary.deleted.push(info(&o, Vec::new()));
        shadow.delete(&o.id);
        out.ops.push(OpInput::Delete { id: o.id });
    }
}

pub(super) fn resolve_duplicate(
    d: &DuplicateElements,
    shadow: &mut Shadow,
    _ctx: &ResolveCtx,
    out: &mut Resolved,
) {
    let roots: Vec<BoardObject> = live_targets(&d.ids, shadow, "duplicate", out)
        .into_iter()
        .filter(|o| o.kind != Kind::Connector)
        .collect();
    if roots.is_empty() {
        return;
    }
    // Originals: each root then its descendants (parents before children).
    let mut originals: Vec<BoardObject> = Vec::new();
    for r in &roots {
        originals.push(r.clone());
        for id in shadow.descendants(r.id.as_str()) {
            if let Some(o) = shadow.get(id.as_str()) {
                originals.push(o.clone());
            }
        }
    }
    let bounds =
        Rect::union_all(roots.iter().map(rect_of).collect::<Vec<_>>().iter()).unwrap_or_default();
    let ok = |v: Option<f64>| v.filter(|n| n.is_finite());
    let (dx, dy) = match (ok(d.dx), ok(d.dy)) {
        (None, None) => (bounds.w + 2.0 * GAP, 0.0),
        (x, y) => (x.unwrap_or(0.0), y.unwrap_or(0.0)),
    };
    let mut map: HashMap<ObjectId, ObjectId> = HashMap::new();
    let mut copies: Vec<BoardObject> = Vec::new();
    for o in originals.iter().filter(|o| o.kind != Kind::Connector) {
        let id = ObjectId::random();
        map.insert(o.id.clone(), id.clone());
        let mut c = o.clone();
        c.id = id;
        c.x += dx;
        c.y += dy;
        copies.push(c);
    }
    for c in &mut copies {
        if let Some(p) = c.parent.as_ref().and_then(|p| map.get(p)) {
            c.parent = Some(p.clone());
        }
    }
    // Connectors between duplicated objects are copied too.
    let conns = copied_connectors(&originals, &map, shadow);
    place_copies(&mut copies, shadow);
    for c in copies.iter().chain(&conns) {
        let input = to_input(c);
        let obj = input.normalize(c.id.clone(), 0);
        out.summary.created.push(CreatedInfo {
            id: c.id.clone(),
            kind: c.kind,
            geo: c.geo,
            equal_sides: equal_sides(c),
            color: nearest_name(&c.color).to_string(),
            x: obj.x,
            y: obj.y,
            w: obj.w,
            h: obj.h,
            text: c.text.clone(),
            explicit_position: false,
            in_frame: c.parent.is_some(),
        });
        shadow.put(obj);
        out.created.push(c.id.clone());
        out.ops.push(OpInput::Create { object: input });
    }
    out.summary.duplicated += roots.len();
}

/// Copies clear of everything: they move as units (a frame with its children), existing
/// objects fixed.
fn place_copies(copies: &mut [BoardObject], shadow: &Shadow) {
    let (fixed, fixed_ids) = shadow.obstacles_with_ids();
    let fixed_pos: HashMap<&ObjectId, usize> = fixed_ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id, i))
        .collect();
    let index: HashMap<ObjectId, usize> = copies
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.clone(), i))
        .collect();
    let mut mv: Vec<Movable> = copies
        .iter()
        .map(|c| {
            let mut m = Movable::new(rect_of(c));
            match c.parent.as_ref() {
                Some(p) if index.contains_key(p) => m = m.in_frame(index[p]),
                Some(p) => {
                    if let Some(&fi) = fixed_pos.get(p) {
                        m = m.in_fixed_frame(fi);
                    }
                }
                None => {}
            }
            m
        })
        .collect();
    layout::resolve(&fixed, &mut mv, Options::default());
    for (c, m) in copies.iter_mut().zip(&mv) {
        c.x = m.rect.x;
        c.y = m.rect.y;
        c.w = m.rect.w;
        c.h = m.rect.h;
    }
}

/// Copies of the connectors between duplicated objects, bound to the copies (`map`: original
/// id → copy id).
fn copied_connectors(
    originals: &[BoardObject],
    map: &HashMap<ObjectId, ObjectId>,
    shadow: &Shadow,
) -> Vec<BoardObject> {
    let mut conns: Vec<BoardObject> = Vec::new();
    let mut seen = HashSet::new();
    for o in originals {
        for cid in shadow.board.connectors_of(o.id.as_str()) {
            if let Some(c) = shadow.get(cid.as_str())
                && seen.insert(c.id.clone())
                && let (Some(f), Some(t)) = (
                    c.from
                        .as_ref()
                        .and_then(|e| e.bound_id())
                        .and_then(|f| map.get(f)),
                    c.to.as_ref()
                        .and_then(|e| e.bound_id())
                        .and_then(|t| map.get(t)),
                )
            {
                let mut n = c.clone();
                n.id = ObjectId::random();
                n.from = Some(protocol::Endpoint::Bound { id: f.clone() });
                n.to = Some(protocol::Endpoint::Bound { id: t.clone() });
                conns.push(n);
            }
        }
    }
    conns
}

/// The create input that reproduces `o` (a copy): every property but author and version.
fn to_input(o: &BoardObject) -> ObjectInput {
    let mut i = ObjectInput::new(o.kind);
    i.id = Some(o.id.clone());
    i.x = Some(Num(o.x));
    i.y = Some(Num(o.y));
    i.w = Some(Num(o.w));
    i.h = Some(Num(o.h));
    i.rotation = Some(Num(o.rotation));
    i.parent = o.parent.clone();
    i.text = Some(o.text.clone());
    i.color = Some(o.color.clone());
    i.geo = o.geo;
    // A copy of a picture shows the same stored picture (registered on this board already).
    i.asset = o.asset.clone();
    i.alt = (!o.alt.is_empty()).then(|| o.alt.clone());
    i.crop = o.crop;
    let end = |e: &Option<protocol::Endpoint>| {
        e.as_ref().map(|e| match e {
            protocol::Endpoint::Bound { id } => EndpointInput::Bound { id: id.clone() },
            protocol::Endpoint::Free { x, y } => EndpointInput::Free {
                x: Num(*x),
                y: Num(*y),
            },
        })
    };
    i.from = end(&o.from);
    i.to = end(&o.to);
    i.arrow = o.arrow;
    i
}
