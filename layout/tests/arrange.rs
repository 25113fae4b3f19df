//! Property tests of the arrangement operations (LAYOUT-17 to LAYOUT-24) on random selections,
//! plus degenerate input (LAYOUT-13) and determinism (LAYOUT-14).
#![allow(clippy::unwrap_used)]

use layout::arrange::{
    self, Align, Axis, Change, Dimension, Flip, Layer, Obj, Pivot, Z_LIMIT, align, distribute,
    flip, layer, place_in_frame, rotate, same_size, scale_axis, space, stack, take_out,
};
use layout::geom::Rect;
use proptest::prelude::*;

/// Rounding of positions and sizes (0.01 px) plus float noise.
const TOL: f64 = 0.011;

fn rect() -> impl Strategy<Value = Rect> {
    (
        -2000.0..2000.0f64,
        -2000.0..2000.0f64,
        1.0..400.0f64,
        1.0..400.0f64,
    )
        .prop_map(|(x, y, w, h)| Rect::new(x, y, w, h))
}

/// 0 to 12 objects with unique keys, random boxes, rotations and z (ties included).
fn objs() -> impl Strategy<Value = Vec<Obj>> {
    prop::collection::vec((rect(), -720.0..720.0f64, -5i64..5), 0..12).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (r, rot, z))| Obj::new(format!("k{i}"), r).with_rotation(rot).with_z(z))
            .collect()
    })
}

fn axis() -> impl Strategy<Value = Axis> {
    prop_oneof![Just(Axis::Horizontal), Just(Axis::Vertical)]
}

fn span(a: Axis, r: &Rect) -> (f64, f64) {
    match a {
        Axis::Horizontal => (r.x, r.w),
        Axis::Vertical => (r.y, r.h),
    }
}

/// Indices by centre along the axis, ties in input order (the order the operations use).
fn by_centre(objs: &[Obj], a: Axis) -> Vec<usize> {
    let mut o: Vec<usize> = (0..objs.len()).collect();
    let c = |i: usize| {
        let (s, l) = span(a, &objs[i].rect);
        s + l / 2.0
    };
    o.sort_by(|&x, &y| c(x).total_cmp(&c(y)).then(x.cmp(&y)));
    o
}

/// Every change names a known object, is not empty and sets only the allowed fields.
fn only_fields(changes: &[Change], objs: &[Obj], allowed: &str) -> Result<(), TestCaseError> {
    for c in changes {
        prop_assert!(objs.iter().any(|o| o.key == c.key), "unknown key {}", c.key);
        prop_assert!(!c.is_empty());
        for (name, set) in [
            ("x", c.x.is_some()),
            ("y", c.y.is_some()),
            ("w", c.w.is_some()),
            ("h", c.h.is_some()),
            ("r", c.rotation.is_some()),
            ("z", c.z.is_some()),
        ] {
            prop_assert!(!set || allowed.contains(name), "{} changed: {:?}", name, c);
        }
    }
    Ok(())
}

fn min_separation(rects: &[Rect]) -> f64 {
    let mut m = f64::INFINITY;
    for (i, a) in rects.iter().enumerate() {
        for b in &rects[i + 1..] {
            m = m.min(a.separation(b));
        }
    }
    m
}

fn rects(objs: &[Obj]) -> Vec<Rect> {
    objs.iter().map(|o| o.rect).collect()
}

/// The board's drawing order: z, then key.
fn drawing_order(objs: &[Obj]) -> Vec<String> {
    let mut v: Vec<&Obj> = objs.iter().collect();
    v.sort_by(|a, b| (a.z, &a.key).cmp(&(b.z, &b.key)));
    v.into_iter().map(|o| o.key.clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// LAYOUT-18: alignment moves only the aligned axis, and afterwards every object shares the
    /// edge or centre line of the selection's bounds (or of the key object, which stays).
    #[test]
    fn layout_18_align_moves_one_axis(objs in objs(), how in 0usize..6, key in prop::option::of(0usize..12)) {
        let how = [Align::Left, Align::Center, Align::Right, Align::Top, Align::Middle, Align::Bottom][how];
        let key = key.filter(|&k| k < objs.len()).map(|k| objs[k].key.clone());
        let c = align(&objs, how, key.as_deref()).unwrap();
        let horizontal = matches!(how, Align::Left | Align::Center | Align::Right);
        only_fields(&c, &objs, if horizontal { "x" } else { "y" })?;
        let after = arrange::apply(&objs, &c);
        let Some(b) = Rect::union_all(&rects(&objs)) else { return Ok(()) };
        let b = key.as_ref().map_or(b, |k| objs.iter().find(|o| &o.key == k).unwrap().rect);
        if let Some(k) = &key {
            prop_assert!(c.iter().all(|c| &c.key != k), "the key object moved");
        }
        let want = |r: &Rect| match how {
            Align::Left => (r.x, b.x),
            Align::Center => (r.cx(), b.cx()),
            Align::Right => (r.right(), b.right()),
            Align::Top => (r.y, b.y),
            Align::Middle => (r.cy(), b.cy()),
            Align::Bottom => (r.bottom(), b.bottom()),
        };
        for o in &after {
            let (got, target) = want(&o.rect);
            prop_assert!((got - target).abs() <= TOL, "{:?}: {} vs {}", how, got, target);
        }
    }

    /// LAYOUT-19: distribution keeps the two outermost objects, changes only its axis, makes the
    /// gaps between neighbours equal within 1 px (within rounding, in fact), and overlaps nothing
    /// when the objects fit between the outer two.
    #[test]
    fn layout_19_distribute_keeps_ends_and_equalises_gaps(objs in objs(), a in axis()) {
        let c = distribute(&objs, a);
        only_fields(&c, &objs, if a == Axis::Horizontal { "x" } else { "y" })?;
        if objs.len() < 3 {
            prop_assert!(c.is_empty());
            return Ok(());
        }
        let order = by_centre(&objs, a);
        let (first, last) = (order[0], order[order.len() - 1]);
        prop_assert!(c.iter().all(|c| c.key != objs[first].key && c.key != objs[last].key));
        let after = arrange::apply(&objs, &c);
        let gaps: Vec<f64> = order.windows(2).map(|w| {
            let (s0, l0) = span(a, &after[w[0]].rect);
            span(a, &after[w[1]].rect).0 - (s0 + l0)
        }).collect();
        let (lo, hi) = gaps.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), g| (l.min(*g), h.max(*g)));
        prop_assert!(hi - lo <= 1.0, "gaps {:?}", gaps);
        prop_assert!(hi - lo <= 2.0 * TOL, "gaps {:?}", gaps);
        let (fs, _) = span(a, &objs[first].rect);
        let (ls, ll) = span(a, &objs[last].rect);
        let used: f64 = objs.iter().map(|o| span(a, &o.rect).1).sum();
        if used <= ls + ll - fs {
            prop_assert!(min_separation(&rects(&after)) >= -TOL, "overlap after distribute");
        }
    }

    /// LAYOUT-20: spacing keeps the first object, changes only its axis, and leaves every pair of
    /// objects at least the gap apart (so nothing overlaps); consecutive gaps are the gap.
    #[test]
    fn layout_20_space_keeps_the_gap(objs in objs(), a in axis(), gap in -10.0..120.0f64) {
        let c = space(&objs, a, gap);
        only_fields(&c, &objs, if a == Axis::Horizontal { "x" } else { "y" })?;
        let gap = gap.max(0.0);
        let after = arrange::apply(&objs, &c);
        let order = by_centre(&objs, a);
        if let Some(&f) = order.first() {
            prop_assert!(c.iter().all(|c| c.key != objs[f].key), "the first moved");
        }
        for w in order.windows(2) {
            let (s0, l0) = span(a, &after[w[0]].rect);
            let g = span(a, &after[w[1]].rect).0 - (s0 + l0);
            prop_assert!(g >= gap - 1e-6 && g <= gap + 2.0 * TOL, "gap {} for {}", g, gap);
        }
        prop_assert!(min_separation(&rects(&after)) >= gap - 1e-6);
    }

    /// LAYOUT-20: a stack keeps the first object, puts the others on its centre line across the
    /// axis, and leaves every pair at least the gap apart.
    #[test]
    fn layout_20_stack_is_a_clear_row_or_column(objs in objs(), a in axis(), gap in 0.0..120.0f64) {
        let c = stack(&objs, a, gap);
        only_fields(&c, &objs, "xy")?;
        let after = arrange::apply(&objs, &c);
        prop_assert!(min_separation(&rects(&after)) >= gap - 1e-6);
        let Some(&f) = by_centre(&objs, a).first() else { return Ok(()) };
        prop_assert_eq!(after[f].rect, objs[f].rect);
        for o in &after {
            let off = match a {
                Axis::Horizontal => o.rect.cy() - objs[f].rect.cy(),
                Axis::Vertical => o.rect.cx() - objs[f].rect.cx(),
            };
            prop_assert!(off.abs() <= TOL, "off the centre line by {}", off);
        }
    }

    /// LAYOUT-21: same size makes the chosen sizes equal (to the largest, or to the key object,
    /// which stays), keeps every top-left corner and changes nothing else.
    #[test]
    fn layout_21_same_size_makes_sizes_equal(objs in objs(), dim in 0usize..3, key in prop::option::of(0usize..12)) {
        let dim = [Dimension::Width, Dimension::Height, Dimension::Both][dim];
        let key = key.filter(|&k| k < objs.len()).map(|k| objs[k].key.clone());
        let c = same_size(&objs, dim, key.as_deref()).unwrap();
        only_fields(&c, &objs, match dim { Dimension::Width => "w", Dimension::Height => "h", Dimension::Both => "wh" })?;
        let after = arrange::apply(&objs, &c);
        let want_w = key.as_ref().map_or_else(
            || objs.iter().map(|o| o.rect.w).fold(0.0, f64::max),
            |k| objs.iter().find(|o| &o.key == k).unwrap().rect.w,
        );
        let want_h = key.as_ref().map_or_else(
            || objs.iter().map(|o| o.rect.h).fold(0.0, f64::max),
            |k| objs.iter().find(|o| &o.key == k).unwrap().rect.h,
        );
        for (o, b) in after.iter().zip(&objs) {
            prop_assert_eq!((o.rect.x, o.rect.y), (b.rect.x, b.rect.y));
            if dim != Dimension::Height {
                prop_assert!((o.rect.w - want_w).abs() <= TOL);
            }
            if dim != Dimension::Width {
                prop_assert!((o.rect.h - want_h).abs() <= TOL);
            }
        }
    }

    /// LAYOUT-21: scaling one axis changes only that axis' size and position, about the centre.
    #[test]
    fn layout_21_scale_one_axis(objs in objs(), a in axis(), factor in 0.1..4.0f64) {
        let c = scale_axis(&objs, a, factor).unwrap();
        only_fields(&c, &objs, if a == Axis::Horizontal { "xw" } else { "yh" })?;
        let after = arrange::apply(&objs, &c);
        for (o, b) in after.iter().zip(&objs) {
            let ((_, l0), (_, l1)) = (span(a, &b.rect), span(a, &o.rect));
            prop_assert!((l1 - l0 * factor).abs() <= TOL);
            prop_assert!((o.rect.cx() - b.rect.cx()).abs() <= TOL && (o.rect.cy() - b.rect.cy()).abs() <= TOL);
        }
        prop_assert!(scale_axis(&objs, a, -factor).is_err());
        prop_assert!(scale_axis(&objs, a, f64::NAN).is_err());
    }

    /// LAYOUT-22: rotation adds the angle, normalised to [0, 360); about each centre it moves
    /// nothing, about the selection it keeps every distance between centres.
    #[test]
    fn layout_22_rotate_is_rigid(objs in objs(), deg in -1000.0..1000.0f64, sel in any::<bool>()) {
        let pivot = if sel { Pivot::Selection } else { Pivot::Each };
        let c = rotate(&objs, deg, pivot);
        only_fields(&c, &objs, if sel { "xyr" } else { "r" })?;
        let after = arrange::apply(&objs, &c);
        for (o, b) in after.iter().zip(&objs) {
            prop_assert!((0.0..360.0).contains(&o.rotation), "rotation {}", o.rotation);
            let turned = (o.rotation - (b.rotation + deg)).rem_euclid(360.0);
            prop_assert!(turned <= TOL || turned >= 360.0 - TOL, "turned by {} not {}", turned, deg);
            prop_assert_eq!((o.rect.w, o.rect.h), (b.rect.w, b.rect.h));
        }
        for i in 0..objs.len() {
            for j in i + 1..objs.len() {
                let d = |p: &Rect, q: &Rect| ((p.cx() - q.cx()).powi(2) + (p.cy() - q.cy()).powi(2)).sqrt();
                let (before, now) = (d(&objs[i].rect, &objs[j].rect), d(&after[i].rect, &after[j].rect));
                prop_assert!((before - now).abs() <= 4.0 * TOL, "distance {} became {}", before, now);
            }
        }
    }

    /// LAYOUT-22: a flip keeps the selection's bounds and every separation between two objects
    /// (so it overlaps nothing that did not overlap), negates rotations, and twice is no change.
    #[test]
    fn layout_22_flip_is_a_mirror(objs in objs(), vertical in any::<bool>()) {
        let how = if vertical { Flip::Vertical } else { Flip::Horizontal };
        let c = flip(&objs, how);
        only_fields(&c, &objs, if vertical { "yr" } else { "xr" })?;
        let after = arrange::apply(&objs, &c);
        let (b0, b1) = (Rect::union_all(&rects(&objs)), Rect::union_all(&rects(&after)));
        if let (Some(b0), Some(b1)) = (b0, b1) {
            prop_assert!((b0.x - b1.x).abs() <= TOL && (b0.right() - b1.right()).abs() <= TOL);
            prop_assert!((b0.y - b1.y).abs() <= TOL && (b0.bottom() - b1.bottom()).abs() <= TOL);
        }
        for i in 0..objs.len() {
            let turned = (after[i].rotation + objs[i].rotation).rem_euclid(360.0);
            prop_assert!(turned <= TOL || turned >= 360.0 - TOL);
            for j in i + 1..objs.len() {
                let (s0, s1) = (objs[i].rect.separation(&objs[j].rect), after[i].rect.separation(&after[j].rect));
                prop_assert!((s0 - s1).abs() <= 2.0 * TOL, "separation {} became {}", s0, s1);
            }
        }
        let back = arrange::apply(&after, &flip(&after, how));
        for (o, b) in back.iter().zip(&objs) {
            prop_assert!((o.rect.x - b.rect.x).abs() <= 2.0 * TOL && (o.rect.y - b.rect.y).abs() <= 2.0 * TOL);
        }
    }

    /// LAYOUT-23: layering puts the objects behind (in front of) the reference, directly next to
    /// it when they were not there yet, keeps everyone else's relative order and the moved
    /// objects' own order, changes only z, and stays within the board's z range.
    #[test]
    fn layout_23_layering_orders_as_asked(
        objs in objs(),
        movers in prop::collection::vec(0usize..12, 1..4),
        reference in 0usize..12,
        front in any::<bool>(),
        far in any::<bool>(),
    ) {
        prop_assume!(!objs.is_empty());
        let mut objs = objs;
        if far {
            // Near the ends of the z range: renumbering must not leave it.
            for (i, o) in objs.iter_mut().enumerate() {
                o.z = if i % 2 == 0 { Z_LIMIT - o.z.abs() } else { -Z_LIMIT + o.z.abs() };
            }
        }
        let r = objs[reference % objs.len()].key.clone();
        let keys: Vec<String> = movers.iter().map(|&m| objs[m % objs.len()].key.clone()).collect();
        let key_refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let how = if front { Layer::InFront } else { Layer::Behind };
        let c = layer(&objs, &key_refs, how, &r).unwrap();
        only_fields(&c, &objs, "z")?;
        let after = arrange::apply(&objs, &c);
        prop_assert!(after.iter().all(|o| o.z.abs() <= Z_LIMIT));
        let moving = |k: &String| keys.contains(k) && *k != r;
        let (old, new) = (drawing_order(&objs), drawing_order(&after));
        let others = |v: &[String]| v.iter().filter(|k| !moving(k)).cloned().collect::<Vec<_>>();
        let movers_of = |v: &[String]| v.iter().filter(|k| moving(k)).cloned().collect::<Vec<_>>();
        prop_assert_eq!(others(&old), others(&new), "others reordered");
        prop_assert_eq!(movers_of(&old), movers_of(&new), "moved objects reordered");
        let pos = |v: &[String], k: &String| v.iter().position(|x| x == k).unwrap();
        let rn = pos(&new, &r);
        for k in new.iter().filter(|k| moving(k)) {
            prop_assert!(if front { pos(&new, k) > rn } else { pos(&new, k) < rn }, "{} on the wrong side", k);
        }
        if !c.is_empty() {
            let block = movers_of(&new).len();
            let want: Vec<String> = if front { new[rn + 1..rn + 1 + block].to_vec() } else { new[rn - block..rn].to_vec() };
            prop_assert_eq!(want, movers_of(&new), "not directly next to the reference");
        }
    }

    /// LAYOUT-24: new objects land inside the frame's padded area below its title, clear of its
    /// contents and of each other; the frame keeps its corner and only grows.
    #[test]
    fn layout_24_place_in_frame(
        fw in 260.0..900.0f64,
        fh in 200.0..900.0f64,
        kids in prop::collection::vec((0.0..1.0f64, 0.0..1.0f64, 20.0..250.0f64, 20.0..250.0f64), 0..8),
        sizes in prop::collection::vec((10.0..300.0f64, 10.0..300.0f64), 0..8),
    ) {
        let frame = Rect::new(100.0, 50.0, fw, fh);
        let occupied: Vec<Rect> = kids.iter().map(|&(u, v, w, h)| {
            Rect::new(frame.x + 30.0 + u * (fw - 60.0 - w).max(0.0), frame.y + 80.0 + v * (fh - 110.0 - h).max(0.0), w, h)
        }).collect();
        let p = place_in_frame(frame, &occupied, &sizes, 20.0);
        prop_assert_eq!(p.rects.len(), sizes.len());
        prop_assert_eq!((p.frame.x, p.frame.y), (frame.x, frame.y));
        prop_assert!(p.frame.w >= frame.w && p.frame.h >= frame.h);
        prop_assert_eq!(p.grown, p.frame != frame);
        let area = Rect::new(p.frame.x + 30.0, p.frame.y + 80.0, p.frame.w - 60.0, p.frame.h - 110.0);
        for (i, r) in p.rects.iter().enumerate() {
            prop_assert_eq!((r.w, r.h), sizes[i]);
            prop_assert!(area.contains(r), "{:?} outside {:?}", r, area);
            for o in occupied.iter().chain(&p.rects[..i]) {
                prop_assert!(r.separation(o) >= 20.0 - 1e-6, "{:?} too close to {:?}", r, o);
            }
        }
    }

    /// LAYOUT-24: an object taken out of its frame lands at least the gap from the frame and from
    /// every obstacle, with its size, and only x and y change.
    #[test]
    fn layout_24_take_out_is_clear(inside in (0.0..1.0f64, 0.0..1.0f64, 20.0..200.0f64, 20.0..200.0f64), around in prop::collection::vec(rect(), 0..10)) {
        let frame = Rect::new(0.0, 0.0, 600.0, 500.0);
        let (u, v, w, h) = inside;
        let o = Obj::new("n", Rect::new(30.0 + u * (540.0 - w), 80.0 + v * (390.0 - h), w, h));
        let obstacles: Vec<Rect> = around.into_iter().filter(|r| r.separation(&frame) >= 20.0).collect();
        let c = take_out(&o, frame, &obstacles, 20.0);
        only_fields(std::slice::from_ref(&c), std::slice::from_ref(&o), "xy")?;
        let after = arrange::apply(std::slice::from_ref(&o), std::slice::from_ref(&c));
        let r = after[0].rect;
        prop_assert_eq!((r.w, r.h), (w, h));
        prop_assert!(r.separation(&frame) >= 20.0 - 1e-6);
        for b in &obstacles {
            prop_assert!(r.separation(b) >= 20.0 - 1e-6, "{:?} too close to {:?}", r, b);
        }
    }
}

/// LAYOUT-13, LAYOUT-14: non-finite and negative numbers and empty input never panic, and the
/// same input gives the same output.
#[test]
fn layout_13_degenerate_input_never_panics() {
    let bad = [
        Obj::new("a", Rect::new(f64::NAN, 0.0, -5.0, f64::INFINITY)).with_rotation(f64::NAN),
        Obj::new("b", Rect::new(1e300, -1e300, 0.0, 0.0)).with_z(i64::MAX),
        Obj::new("b", Rect::new(3.0, 4.0, 5.0, 6.0)).with_z(i64::MIN),
    ];
    for objs in [&bad[..], &[]] {
        let run = || {
            let mut out: Vec<Vec<Change>> = Vec::new();
            for how in [Align::Left, Align::Center, Align::Bottom] {
                out.push(align(objs, how, None).unwrap());
            }
            for a in [Axis::Horizontal, Axis::Vertical] {
                out.push(distribute(objs, a));
                out.push(space(objs, a, f64::NAN));
                out.push(stack(objs, a, -3.0));
                out.push(scale_axis(objs, a, 2.0).unwrap());
            }
            out.push(same_size(objs, Dimension::Both, None).unwrap());
            out.push(rotate(objs, f64::INFINITY, Pivot::Selection));
            out.push(rotate(objs, 90.0, Pivot::Selection));
            out.push(flip(objs, Flip::Horizontal));
            if !objs.is_empty() {
                out.push(layer(objs, &["a", "b"], Layer::InFront, "b").unwrap());
                out.push(layer(objs, &["b"], Layer::Behind, "a").unwrap());
            }
            out
        };
        assert_eq!(run(), run());
    }
    let p = place_in_frame(
        Rect::new(f64::NAN, 0.0, -1.0, 0.0),
        &[Rect::new(0.0, 0.0, f64::NAN, 1.0)],
        &[(f64::NAN, -4.0), (10.0, 10.0)],
        f64::NAN,
    );
    assert_eq!(p.rects.len(), 2);
    let _ = take_out(
        &bad[0],
        Rect::new(0.0, 0.0, f64::NAN, 10.0),
        &[],
        f64::INFINITY,
    );
    assert!(align(&bad, Align::Top, Some("zz")).is_err());
}
