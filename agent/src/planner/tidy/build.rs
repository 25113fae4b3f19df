//! A menu command to one `updateElements` call: the objects it names, the geometry from
//! `layout::arrange`, only the properties that change.

use super::Tidy;
use crate::intent::{Intent, StagedCall};
use crate::planner::common::{Built, nf};
use crate::planner::syntax::Target;
use crate::planner::targets::{Miss, Scope, resolve_target};
use crate::schema::{ElementUpdate, UpdateElements};
use layout::Rect;
use layout::arrange::{self, Change, Layer, Obj, Pivot};
use protocol::{BoardObject, Kind, ObjectId};

/// Builds the intent of a menu command on the objects `t` names.
pub(in crate::planner) fn build(t: &Target, how: &Tidy, s: &Scope) -> Result<Built, Miss> {
    let ids = resolve_target(t, s)?;
    let roots = roots(&ids, s);
    let changes = match how {
        Tidy::Layer(l, r) => layer(&ids, *l, r, s)?,
        _ => geometry(&roots, how, s)?,
    };
    let updates: Vec<ElementUpdate> = changes.iter().map(to_update).collect();
    let targets: Vec<ObjectId> = roots.iter().map(|o| o.id.clone()).collect();
    let intent = if updates.is_empty() {
        Intent::default()
    } else {
        Intent::one(StagedCall::UpdateElements(UpdateElements { updates }))
    };
    Ok((intent, targets, None))
}

/// The objects that move as units: no connectors, no child whose frame is also named.
fn roots<'a>(ids: &[ObjectId], s: &Scope<'a>) -> Vec<&'a BoardObject> {
    ids.iter()
        .filter_map(|i| s.board.get(i.as_str()))
        .filter(|o| o.kind != Kind::Connector)
        .filter(|o| o.parent.as_ref().is_none_or(|p| !ids.contains(p)))
        .collect()
}

fn obj(o: &BoardObject) -> Obj {
    Obj::new(o.id.as_str(), Rect::new(o.x, o.y, o.w, o.h))
        .with_rotation(o.rotation)
        .with_z(o.z)
}

/// The one object a reference names (the first when it names several).
fn reference<'a>(r: &Target, s: &Scope<'a>) -> Result<&'a BoardObject, Miss> {
    let ids = resolve_target(r, s)?;
    match ids.iter().find_map(|i| s.board.get(i.as_str())) {
        Some(o) => Ok(o),
        None => nf("I couldn't find the object to line them up with."),
    }
}

/// Align, distribute, space, stack, same size, scale, rotate and flip.
fn geometry(roots: &[&BoardObject], how: &Tidy, s: &Scope) -> Result<Vec<Change>, Miss> {
    let mut objs: Vec<Obj> = roots.iter().map(|o| obj(o)).collect();
    let with_ref = |objs: &mut Vec<Obj>, r: &Target| -> Result<String, Miss> {
        let o = reference(r, s)?;
        if !objs.iter().any(|x| x.key == o.id.as_str()) {
            objs.push(obj(o));
        }
        Ok(o.id.to_string())
    };
    let needs = |n: usize| {
        if objs.len() < n {
            nf(format!(
                "Select {n} or more objects, or name them, to arrange them."
            ))
        } else {
            Ok(())
        }
    };
    let axis = |a: Option<arrange::Axis>| a.unwrap_or_else(|| longer_side(roots));
    let out = match how {
        Tidy::Align(a, None) => {
            needs(2)?;
            arrange::align(&objs, *a, None)
        }
        Tidy::Align(a, Some(r)) => {
            let key = with_ref(&mut objs, r)?;
            arrange::align(&objs, *a, Some(&key))
        }
        Tidy::Distribute(a) => {
            needs(3)?;
            Ok(arrange::distribute(&objs, axis(*a)))
        }
        Tidy::Space(a, gap) => {
            needs(2)?;
            Ok(arrange::space(&objs, axis(*a), *gap))
        }
        Tidy::Stack(a, gap) => {
            needs(2)?;
            Ok(arrange::stack(&objs, *a, *gap))
        }
        Tidy::SameSize(d, None) => {
            needs(2)?;
            arrange::same_size(&objs, *d, None)
        }
        Tidy::SameSize(d, Some(r)) => {
            let key = with_ref(&mut objs, r)?;
            arrange::same_size(&objs, *d, Some(&key))
        }
        Tidy::ScaleAxis(a, f) => arrange::scale_axis(&objs, *a, *f),
        Tidy::Rotate(deg) => Ok(arrange::rotate(&objs, *deg, Pivot::Each)),
        Tidy::Flip(f) => Ok(arrange::flip(&objs, *f)),
        Tidy::Layer(..) => Ok(Vec::new()),
    };
    out.or_else(|e| nf(e.to_string()))
}

/// The axis along which the objects' bounds are longer (distributing "evenly" with no axis).
fn longer_side(roots: &[&BoardObject]) -> arrange::Axis {
    let span = |f: fn(&BoardObject) -> (f64, f64)| {
        let lo = roots.iter().map(|o| f(o).0).fold(f64::INFINITY, f64::min);
        let hi = roots
            .iter()
            .map(|o| f(o).1)
            .fold(f64::NEG_INFINITY, f64::max);
        hi - lo
    };
    let w = span(|o| (o.x, o.x + o.w));
    let h = span(|o| (o.y, o.y + o.h));
    if h > w {
        arrange::Axis::Vertical
    } else {
        arrange::Axis::Horizontal
    }
}

/// Behind or in front of a reference object: behind the backmost, or in front of the frontmost,
/// when it names several.
fn layer(ids: &[ObjectId], how: Layer, r: &Target, s: &Scope) -> Result<Vec<Change>, Miss> {
    let refs = resolve_target(r, s)?;
    let order = |o: &&BoardObject| (o.z, o.id.clone());
    let candidates = refs
        .iter()
        .filter(|i| !ids.contains(i))
        .filter_map(|i| s.board.get(i.as_str()));
    let of = match how {
        Layer::Behind => candidates.min_by_key(order),
        Layer::InFront => candidates.max_by_key(order),
    };
    let Some(of) = of else {
        return nf("I couldn't find the object to put them behind or in front of.");
    };
    let objs: Vec<Obj> = s.board.objects().map(obj).collect();
    let keys: Vec<&str> = ids.iter().map(|i| i.as_str()).collect();
    arrange::layer(&objs, &keys, how, of.id.as_str()).or_else(|e| nf(e.to_string()))
}

/// One change as an update of the properties it changes.
fn to_update(c: &Change) -> ElementUpdate {
    ElementUpdate {
        id: c.key.clone(),
        x: c.x,
        y: c.y,
        w: c.w,
        h: c.h,
        rotation: c.rotation,
        z: c.z,
        ..ElementUpdate::default()
    }
}
