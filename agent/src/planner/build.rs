//! From a parsed command and the board to an intent (the staged tool calls).

use super::Touched;
use super::common::{Built, nf, update};
use super::pictures::without_pictures;
use super::placing::{corner_spot, into_frame, move_beside, place_beside};
use super::syntax::{Command, CreateSpec, MoveSpec, SizeSpec, Target};
use super::targets::{Miss, Scope, resolve_target};
use crate::intent::{Intent, StagedCall};
use crate::lang::vocab::KindWord;
use crate::schema::{
    ArrowKind, BatchOperations, CreateConnector, CreateFrame, CreateNote, CreateShape, CreateText,
    DeleteElements, DuplicateElements, ElementUpdate, Geometry, GroupElements, Layer,
    LayoutElements, Operation, Ref, UpdateElements,
};
use protocol::palette::nearest_name;
use protocol::{BoardObject, Kind, ObjectId};

fn updates(ids: &[ObjectId], f: impl Fn(&ObjectId, &mut ElementUpdate)) -> StagedCall {
    StagedCall::UpdateElements(UpdateElements {
        updates: ids
            .iter()
            .map(|id| {
                let mut u = update(id);
                f(id, &mut u);
                u
            })
            .collect(),
    })
}

fn touched(ids: &[ObjectId], verb: &'static str) -> Option<Touched> {
    Some(Touched {
        ids: ids.to_vec(),
        verb,
    })
}

pub(super) fn build(cmd: Command, s: &Scope) -> Result<Built, Miss> {
    let ids = |t: &Target| resolve_target(t, s);
    Ok(match cmd {
        Command::Create(mut spec) => {
            if spec.beside.is_none() {
                relation_in_content(&mut spec, s);
            }
            if let Some((rel, t)) = spec.beside.take() {
                place_beside(&mut spec, rel, &t, s)?;
            }
            (create(&spec, s)?, Vec::new(), None)
        }
        Command::Creates(mut specs) => (creates(&mut specs, s)?, Vec::new(), None),
        Command::Move(t, m) => moved(&ids(&t)?, m, s)?,
        Command::Resize(t, spec) => {
            let ids = ids(&t)?;
            let intent = updates(&ids, |_, u| match spec {
                SizeSpec::Scale(f) => u.scale = Some(f),
                SizeSpec::To(w, h) => {
                    u.w = w;
                    u.h = h;
                }
            });
            (Intent::one(intent), ids, None)
        }
        Command::Tidy(t, how) => super::tidy::build::build(&t, &how, s)?,
        Command::TakeOut(t, f) => super::membership::build(&t, f.as_deref(), s)?,
        Command::SetTexts(edits) => set_texts(&edits),
        Command::Layer(t, front) => {
            let ids = ids(&t)?;
            let layer = if front { Layer::Front } else { Layer::Back };
            (
                Intent::one(updates(&ids, |_, u| u.layer = Some(layer))),
                ids,
                None,
            )
        }
        Command::Recolor(t, c) => {
            let ids = without_pictures(ids(&t)?, s, "keep their own colors")?;
            let intent = updates(&ids, |_, u| u.color = Some(c.to_string()));
            let t = touched(&ids, "recolor");
            (Intent::one(intent), ids, t)
        }
        Command::Retext(t, text) => {
            let ids = without_pictures(ids(&t)?, s, "have no text")?;
            let intent = updates(&ids, |_, u| u.text = Some(text.clone()));
            let t = touched(&ids, "overwrite the text of");
            (Intent::one(intent), ids, t)
        }
        Command::Delete(t) => {
            let ids = ids(&t)?;
            let intent = Intent::one(StagedCall::DeleteElements(DeleteElements {
                ids: ids.iter().map(|i| i.to_string()).collect(),
            }));
            (intent, Vec::new(), touched(&ids, "delete"))
        }
        Command::Duplicate(t, n) => duplicated(&ids(&t)?, n, s)?,
        Command::Arrange(t, layout) => {
            let ids = ids(&t)?;
            if ids.len() < 2 {
                return nf("Select two or more objects to arrange.");
            }
            let intent = Intent::one(StagedCall::LayoutElements(LayoutElements {
                ids: ids.iter().map(|i| i.to_string()).collect(),
                layout,
                spacing: None,
            }));
            (intent, ids, None)
        }
        Command::Connect(a, b, style) => connect(&a, b.as_ref(), style, s)?,
        Command::Reshape(t, kw) => {
            let ids = without_pictures(ids(&t)?, s, "cannot become another kind of object")?;
            reshape(&ids, kw, s)?
        }
        Command::Restyle(t, arrow) => restyled(&ids(&t)?, arrow, s)?,
        Command::Group(t, name) => {
            let ids = ids(&t)?;
            let intent = Intent::one(StagedCall::GroupElements(GroupElements {
                ids: ids.iter().map(|i| i.to_string()).collect(),
                name,
            }));
            (intent, ids, None)
        }
        Command::Ungroup(t) => ungroup(&ids(&t)?, s)?,
        Command::Ask(_) => return nf("That is a question about the board."),
        Command::Then(a, b) => super::sequence::build_two(*a, *b, s, build)?,
    })
}

/// "a note saying Later next to Buy milk": content that ends with a position relative to an
/// object on the board is that position, not text.
/// A move: by an offset, to a point (the group's top-left corner; each keeps its offset),
/// into a frame or beside an object.
fn moved(ids: &[ObjectId], m: MoveSpec, s: &Scope) -> Result<Built, Miss> {
    let intent = match m {
        MoveSpec::By(dx, dy) => updates(ids, |_, u| {
            u.dx = (dx != 0.0).then_some(dx);
            u.dy = (dy != 0.0).then_some(dy);
        }),
        MoveSpec::To(x, y) => {
            let objs: Vec<_> = ids.iter().filter_map(|i| s.board.get(i.as_str())).collect();
            let x0 = objs.iter().map(|o| o.x).fold(f64::INFINITY, f64::min);
            let y0 = objs.iter().map(|o| o.y).fold(f64::INFINITY, f64::min);
            updates(ids, |id, u| {
                if let Some(o) = s.board.get(id.as_str()) {
                    u.x = Some(x + (o.x - x0));
                    u.y = Some(y + (o.y - y0));
                }
            })
        }
        MoveSpec::Corner(v, h) => {
            let (x, y) = corner_spot(ids, v, h, s)?;
            return moved(ids, MoveSpec::To(x, y), s);
        }
        MoveSpec::Into(f) => into_frame(ids, &f, s)?,
        MoveSpec::Beside(rel, r) => move_beside(ids, rel, &r, s)?,
    };
    Ok((Intent::one(intent), ids.to_vec(), None))
}

/// `n` copies side by side (one copy goes where the resolver finds room).
fn duplicated(ids: &[ObjectId], n: usize, s: &Scope) -> Result<Built, Miss> {
    let room = s.board.max_objects.saturating_sub(s.board.len());
    if n * ids.len() > room {
        return nf(format!(
            "That would make {} copies; the board has room for {room} more objects.",
            n * ids.len()
        ));
    }
    let objs: Vec<&BoardObject> = ids.iter().filter_map(|i| s.board.get(i.as_str())).collect();
    let x0 = objs.iter().map(|o| o.x).fold(f64::INFINITY, f64::min);
    let x1 = objs
        .iter()
        .map(|o| o.x + o.w)
        .fold(f64::NEG_INFINITY, f64::max);
    let step = (x1 - x0).max(0.0) + 2.0 * crate::resolve::GAP;
    let calls = (1..=n)
        .map(|k| {
            StagedCall::DuplicateElements(DuplicateElements {
                ids: ids.iter().map(|i| i.to_string()).collect(),
                dx: (n > 1).then_some(step * k as f64),
                dy: (n > 1).then_some(0.0),
            })
        })
        .collect();
    Ok((Intent { calls }, ids.to_vec(), None))
}

/// New arrowheads for the connectors among `ids`.
fn restyled(ids: &[ObjectId], arrow: ArrowKind, s: &Scope) -> Result<Built, Miss> {
    let ids: Vec<ObjectId> = ids
        .iter()
        .filter(|i| {
            s.board
                .get(i.as_str())
                .is_some_and(|o| o.kind == Kind::Connector)
        })
        .cloned()
        .collect();
    if ids.is_empty() {
        return nf(
            "That is not a connector. Select an arrow or a line, or say \"connect these with a line\".",
        );
    }
    let intent = updates(&ids, |_, u| u.arrow = Some(arrow));
    let t = touched(&ids, "restyle");
    Ok((Intent::one(intent), ids, t))
}

/// New texts for objects (a word replaced, typos fixed): one update each.
fn set_texts(edits: &[(ObjectId, String)]) -> Built {
    let ids: Vec<ObjectId> = edits.iter().map(|(i, _)| i.clone()).collect();
    let intent = if edits.is_empty() {
        Intent::default()
    } else {
        Intent::one(StagedCall::UpdateElements(UpdateElements {
            updates: edits
                .iter()
                .map(|(id, t)| ElementUpdate {
                    text: Some(t.clone()),
                    ..update(id)
                })
                .collect(),
        }))
    };
    let t = touched(&ids, "overwrite the text of");
    (intent, ids, t)
}

fn relation_in_content(spec: &mut CreateSpec, s: &Scope) {
    let [text] = spec.texts.as_slice() else {
        return;
    };
    let Some((head, rel, t)) = super::phrase::split_relation(text) else {
        return;
    };
    if resolve_target(&t, s).is_ok() {
        spec.texts = vec![head];
        spec.beside = Some((rel, t));
    }
}

fn connect(
    a: &Target,
    b: Option<&Target>,
    style: Option<ArrowKind>,
    s: &Scope,
) -> Result<Built, Miss> {
    // "draw an arrow", "an arrow shape pointing right": arrows join objects.
    let mut chain = match (a, b) {
        (Target::Selection, None) => resolve_target(a, s).map_err(|_| {
            Miss::NotFound(
                "An arrow joins two objects: select them, or name them (\"an arrow from Login \
                 to Dashboard\")."
                    .into(),
            )
        })?,
        _ => resolve_target(a, s)?,
    };
    if let Some(b) = b {
        chain.truncate(1);
        chain.extend(resolve_target(b, s)?.into_iter().take(1));
    } else {
        // A chain in reading order (left to right, then top to bottom).
        chain.sort_by(|p, q| {
            let (p, q) = (s.board.get(p.as_str()), s.board.get(q.as_str()));
            let k = |o: Option<&BoardObject>| o.map_or((0.0, 0.0), |o| (o.x, o.y));
            k(p).0.total_cmp(&k(q).0).then(k(p).1.total_cmp(&k(q).1))
        });
    }
    chain.retain(|i| {
        s.board
            .get(i.as_str())
            .is_some_and(|o| o.kind != Kind::Connector)
    });
    chain.dedup();
    if chain.len() < 2 {
        return nf(
            "I need two objects to connect. Select them or describe both (e.g. \"connect the red circle to the blue square\").",
        );
    }
    let ops = chain
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            Operation::CreateConnector(CreateConnector {
                r#ref: Ref(format!("conn_{}", i + 1)),
                from_ref: None,
                to_ref: None,
                from_id: Some(w[0].to_string()),
                to_id: Some(w[1].to_string()),
                label: None,
                color: None,
                arrow: style,
            })
        })
        .collect();
    let intent = Intent::one(StagedCall::BatchOperations(BatchOperations {
        operations: ops,
        layout_directive: None,
        title: None,
        columns: None,
        ..BatchOperations::default()
    }));
    Ok((intent, chain, None))
}

/// A shape's geo changes in place; a change of kind (note ↔ shape ↔ text) replaces the object
/// with one of the new kind at the same place, with the same text and color.
/// The object of kind `kw` that replaces `o` (its place, size, text and color), the `i`-th.
fn replacement(i: usize, o: &BoardObject, kw: KindWord, geo_name: &str) -> Operation {
    let r = Ref(format!("{}_{}", kw.kind.as_str(), i + 1));
    let side = if kw.equal_sides { o.w.max(o.h) } else { 0.0 };
    let geometry = Geometry {
        x: Some(o.x),
        y: Some(o.y),
        w: Some(if kw.equal_sides { side } else { o.w }),
        h: Some(if kw.equal_sides { side } else { o.h }),
        parent_id: o.parent.as_ref().map(|p| p.to_string()),
    };
    let color = Some(nearest_name(&o.color).to_string())
        .filter(|_| o.kind != Kind::Text && kw.kind != Kind::Text);
    let text = o.text.clone();
    match kw.kind {
        Kind::Note => Operation::CreateNote(CreateNote {
            r#ref: r,
            text,
            color,
            parent_ref: None,
            geometry,
        }),
        Kind::Text => Operation::CreateText(CreateText {
            r#ref: r,
            text: if text.is_empty() { "Text".into() } else { text },
            color,
            parent_ref: None,
            geometry,
        }),
        _ => Operation::CreateShape(CreateShape {
            r#ref: r,
            geo: Some(geo_name.to_string()),
            text: (!text.is_empty()).then_some(text),
            color,
            parent_ref: None,
            geometry,
        }),
    }
}

fn reshape(ids: &[ObjectId], kw: KindWord, s: &Scope) -> Result<Built, Miss> {
    if kw.kind == Kind::Frame {
        let intent = Intent::one(StagedCall::GroupElements(GroupElements {
            ids: ids.iter().map(|i| i.to_string()).collect(),
            name: "Frame".into(),
        }));
        return Ok((intent, ids.to_vec(), None));
    }
    if kw.kind == Kind::Connector {
        let all = Target::Ids(ids.iter().map(|i| i.to_string()).collect());
        return build(Command::Restyle(all, ArrowKind::End), s);
    }
    let objs: Vec<&BoardObject> = ids
        .iter()
        .filter_map(|i| s.board.get(i.as_str()))
        .filter(|o| o.kind != Kind::Connector)
        .collect();
    if objs.is_empty() {
        return nf("Connectors cannot become shapes or notes.");
    }
    let geo_name = kw.geo_name.unwrap_or("rectangle");
    let (same, other): (Vec<&BoardObject>, Vec<&BoardObject>) =
        objs.iter().partition(|o| o.kind == kw.kind);
    let mut calls = Vec::new();
    if kw.kind == Kind::Shape && !same.is_empty() {
        let same_ids: Vec<ObjectId> = same.iter().map(|o| o.id.clone()).collect();
        calls.push(updates(&same_ids, |_, u| {
            u.geo = Some(geo_name.to_string())
        }));
    } else if !same.is_empty() && other.is_empty() {
        return nf(format!(
            "That is already a {}.",
            crate::reply::noun(kw.kind, None, false)
        ));
    }
    if !other.is_empty() {
        calls.push(StagedCall::DeleteElements(DeleteElements {
            ids: other.iter().map(|o| o.id.to_string()).collect(),
        }));
        let ops = other
            .iter()
            .enumerate()
            .map(|(i, o)| replacement(i, o, kw, geo_name))
            .collect();
        calls.push(StagedCall::BatchOperations(BatchOperations {
            operations: ops,
            layout_directive: Some(crate::schema::LayoutDirective::Freeform),
            title: None,
            columns: None,
            ..BatchOperations::default()
        }));
    }
    let ids: Vec<ObjectId> = same.iter().map(|o| o.id.clone()).collect();
    let replaced: Vec<ObjectId> = other.iter().map(|o| o.id.clone()).collect();
    // Shapes of the new kind change their geo in place.
    let reshaped: &[ObjectId] = if kw.kind == Kind::Shape { &ids } else { &[] };
    let verb = match (replaced.is_empty(), reshaped.is_empty()) {
        (true, _) => "reshape",
        (false, true) => "replace",
        (false, false) => "change",
    };
    let t = Touched {
        ids: reshaped.iter().chain(&replaced).cloned().collect(),
        verb,
    };
    Ok((Intent { calls }, ids, Some(t)))
}

/// A frame's children leave it (to the frame's own parent) and the frame goes.
fn ungroup(ids: &[ObjectId], s: &Scope) -> Result<Built, Miss> {
    let frames: Vec<&BoardObject> = ids
        .iter()
        .filter_map(|i| s.board.get(i.as_str()))
        .filter(|o| o.kind == Kind::Frame)
        .collect();
    if frames.is_empty() {
        return nf(
            "That is not a frame. Say which frame to ungroup (e.g. \"ungroup the Team frame\").",
        );
    }
    let mut ups = Vec::new();
    let mut kids_all = Vec::new();
    for f in &frames {
        let to = f.parent.as_ref().map_or(String::new(), |p| p.to_string());
        for c in s.board.children_of(f.id.as_str()) {
            let mut u = update(c);
            u.parent_id = Some(to.clone());
            ups.push(u);
            kids_all.push(c.clone());
        }
    }
    let mut calls = Vec::new();
    if !ups.is_empty() {
        calls.push(StagedCall::UpdateElements(UpdateElements { updates: ups }));
    }
    calls.push(StagedCall::DeleteElements(DeleteElements {
        ids: frames.iter().map(|f| f.id.to_string()).collect(),
    }));
    Ok((Intent { calls }, kids_all, None))
}

fn create(spec: &CreateSpec, s: &Scope) -> Result<Intent, Miss> {
    Ok(Intent::one(StagedCall::BatchOperations(BatchOperations {
        operations: create_ops(spec, s, 0)?,
        layout_directive: spec.layout,
        title: None,
        columns: spec.columns,
        ..BatchOperations::default()
    })))
}

/// "a red and a blue circle": every object in one batch, in a row.
fn creates(specs: &mut [CreateSpec], s: &Scope) -> Result<Intent, Miss> {
    let mut operations = Vec::new();
    for spec in specs.iter_mut() {
        if let Some((rel, t)) = spec.beside.take() {
            place_beside(spec, rel, &t, s)?;
        }
        let mut ops = create_ops(spec, s, operations.len())?;
        if spec.in_new_frame
            && let Some(Operation::CreateFrame(f)) = operations.first()
        {
            for op in &mut ops {
                set_parent_ref(op, &f.r#ref);
            }
        }
        operations.extend(ops);
    }
    Ok(Intent::one(StagedCall::BatchOperations(BatchOperations {
        operations,
        layout_directive: None,
        title: None,
        columns: None,
        ..BatchOperations::default()
    })))
}

/// Puts a created object in a frame created earlier in the same batch.
fn set_parent_ref(op: &mut Operation, frame: &Ref) {
    let r = Some(frame.clone());
    match op {
        Operation::CreateNote(o) => o.parent_ref = r,
        Operation::CreateShape(o) => o.parent_ref = r,
        Operation::CreateText(o) => o.parent_ref = r,
        Operation::CreateFrame(o) => o.parent_ref = r,
        _ => {}
    }
}

/// A create's operations; refs numbered from `base` + 1.
fn create_ops(spec: &CreateSpec, s: &Scope, base: usize) -> Result<Vec<Operation>, Miss> {
    let room = s.board.max_objects.saturating_sub(s.board.len());
    if spec.count > room {
        return nf(format!(
            "That is {} objects; the board has room for {room} more.",
            spec.count
        ));
    }
    let parent_id = match &spec.parent {
        None => None,
        // "put 2 notes in there", "add 3 notes to it": the frame just made; when "it" is no
        // frame ("slap a circle in there" as a hedge) the objects go where they would anyway.
        Some(Target::It) => resolve_target(&Target::It, s)
            .ok()
            .and_then(|ids| ids.first().and_then(|i| s.board.get(i.as_str())))
            .filter(|o| o.kind == Kind::Frame)
            .map(|f| f.id.to_string()),
        Some(t) => {
            let ids = resolve_target(t, s)?;
            let frame = ids
                .iter()
                .filter_map(|i| s.board.get(i.as_str()))
                .find(|o| o.kind == Kind::Frame);
            match frame {
                Some(f) => Some(f.id.to_string()),
                None => return nf("I couldn't find that frame on the board."),
            }
        }
    };
    let k = spec.kind;
    let color = spec.color.map(str::to_string);
    let ops = (0..spec.count)
        .map(|i| {
            let r = Ref(format!("{}_{}", k.kind.as_str(), base + i + 1));
            let text = spec.texts.get(i).cloned();
            let mut geometry = Geometry {
                parent_id: parent_id.clone(),
                ..Geometry::default()
            };
            if let Some((w, h)) = spec.size {
                geometry.w = Some(w);
                geometry.h = Some(h);
            }
            if let Some((x, y)) = spec.at {
                let step = spec.size.map_or(200.0, |s| s.0) + 40.0;
                geometry.x = Some(x + step * i as f64);
                geometry.y = Some(y);
            }
            match k.kind {
                Kind::Frame => Operation::CreateFrame(CreateFrame {
                    r#ref: r,
                    name: text.unwrap_or_else(|| "Frame".into()),
                    color: color.clone(),
                    parent_ref: None,
                    geometry,
                }),
                Kind::Text => Operation::CreateText(CreateText {
                    r#ref: r,
                    text: text.unwrap_or_else(|| "Text".into()),
                    color: color.clone(),
                    parent_ref: None,
                    geometry,
                }),
                Kind::Shape => Operation::CreateShape(CreateShape {
                    r#ref: r,
                    geo: k.geo_name.map(str::to_string),
                    text,
                    color: color.clone(),
                    parent_ref: None,
                    geometry,
                }),
                // Never reached: a picture is refused before it is built (`pictures`).
                Kind::Note | Kind::Connector | Kind::Image => Operation::CreateNote(CreateNote {
                    r#ref: r,
                    text: text.unwrap_or_default(),
                    color: color.clone(),
                    parent_ref: None,
                    geometry,
                }),
            }
        })
        .collect();
    Ok(ops)
}
