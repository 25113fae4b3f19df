//! Collision post-processor scenarios (LAYOUT-10, LAYOUT-11) and placement (LAYOUT-9).

use layout::collision::{Movable, Options, resolve};
use layout::geom::Rect;
use layout::place::{find_open_space, place_group};

fn all_apart(mv: &[Movable], fixed: &[Rect], gap: f64) -> bool {
    let tops: Vec<&Movable> = mv.iter().filter(|m| m.parent.is_none()).collect();
    tops.iter()
        .all(|a| fixed.iter().all(|f| a.rect.separation(f) >= gap - 1e-6))
        && tops.iter().enumerate().all(|(i, a)| {
            tops[i + 1..]
                .iter()
                .all(|b| a.rect.separation(&b.rect) >= gap - 1e-6)
        })
}

/// AC-6: five overlapping notes are pushed apart with >= 20 px gaps, existing objects stay,
/// within 30 iterations.
#[test]
fn layout_10_five_overlapping_notes() {
    let fixed = vec![
        Rect::new(0.0, 0.0, 200.0, 200.0),
        Rect::new(300.0, 0.0, 200.0, 200.0),
    ];
    let before = fixed.clone();
    let mut mv: Vec<Movable> = (0..5)
        .map(|i| {
            Movable::new(Rect::new(
                100.0 + i as f64 * 15.0,
                50.0 + i as f64 * 10.0,
                200.0,
                200.0,
            ))
        })
        .collect();
    let r = resolve(&fixed, &mut mv, Options::default());
    assert_eq!(fixed, before);
    assert!(r.clear && r.iterations <= 30, "{r:?}");
    assert!(all_apart(&mv, &fixed, 20.0));
    assert_eq!(r.moved, 5);
}

/// A frame and its children move together: their offsets are unchanged.
#[test]
fn layout_10_frame_moves_as_a_unit() {
    let fixed = vec![Rect::new(0.0, 0.0, 300.0, 300.0)];
    let mut mv = vec![
        Movable::new(Rect::new(250.0, 50.0, 300.0, 300.0)),
        Movable::new(Rect::new(280.0, 120.0, 100.0, 100.0)).in_frame(0),
        Movable::new(Rect::new(400.0, 120.0, 100.0, 100.0)).in_frame(0),
    ];
    let offsets: Vec<(f64, f64)> = mv
        .iter()
        .map(|m| (m.rect.x - mv[0].rect.x, m.rect.y - mv[0].rect.y))
        .collect();
    let r = resolve(&fixed, &mut mv, Options::default());
    assert!(r.clear);
    for (m, o) in mv.iter().zip(&offsets) {
        assert!(
            (m.rect.x - mv[0].rect.x - o.0).abs() < 1e-9
                && (m.rect.y - mv[0].rect.y - o.1).abs() < 1e-9
        );
    }
    assert!(mv[0].rect.separation(&fixed[0]) >= 20.0 - 1e-6);
}

/// Containment is not a collision; siblings inside a frame keep >= 20 px and stay inside.
#[test]
fn layout_11_children_apart_and_inside() {
    let mut mv = vec![
        Movable::new(Rect::new(0.0, 0.0, 300.0, 300.0)),
        Movable::new(Rect::new(30.0, 80.0, 200.0, 200.0)).in_frame(0),
        Movable::new(Rect::new(60.0, 90.0, 200.0, 200.0)).in_frame(0),
    ];
    let r = resolve(&[], &mut mv, Options::default());
    assert!(r.clear);
    assert!(mv[1].rect.separation(&mv[2].rect) >= 20.0 - 1e-6);
    assert!(mv[0].rect.contains(&mv[1].rect) && mv[0].rect.contains(&mv[2].rect));
}

/// Objects sharing a group id (a diagram) move together.
#[test]
fn layout_10_group_moves_as_a_unit() {
    let fixed = vec![Rect::new(0.0, 0.0, 400.0, 100.0)];
    let mut mv = vec![
        Movable::new(Rect::new(0.0, 50.0, 100.0, 100.0)).in_group(7),
        Movable::new(Rect::new(200.0, 200.0, 100.0, 100.0)).in_group(7),
        Movable::new(Rect::new(800.0, 800.0, 100.0, 100.0)),
    ];
    let d0 = (mv[1].rect.x - mv[0].rect.x, mv[1].rect.y - mv[0].rect.y);
    let r = resolve(&fixed, &mut mv, Options::default());
    assert!(r.clear);
    assert_eq!(
        (mv[1].rect.x - mv[0].rect.x, mv[1].rect.y - mv[0].rect.y),
        d0
    );
    assert_eq!(
        mv[2].rect,
        Rect::new(800.0, 800.0, 100.0, 100.0),
        "a clear object does not move"
    );
}

/// Boxed in by fixed objects: relocated to open space.
#[test]
fn layout_10_relocates_when_boxed_in() {
    let mut fixed = Vec::new();
    for i in 0..5 {
        for j in 0..5 {
            if (i, j) != (2, 2) {
                fixed.push(Rect::new(i as f64 * 130.0, j as f64 * 130.0, 120.0, 120.0));
            }
        }
    }
    let mut mv = vec![Movable::new(Rect::new(265.0, 265.0, 100.0, 100.0))];
    let r = resolve(&fixed, &mut mv, Options::default());
    assert!(r.clear, "{r:?}");
    assert_eq!(r.relocated, 1);
    assert!(all_apart(&mv, &fixed, 20.0));
}

/// Never relocate: with relocation off, the report tells it is not clear.
#[test]
fn layout_10_report_says_when_not_clear() {
    let fixed = vec![
        Rect::new(0.0, 0.0, 100.0, 100.0),
        Rect::new(110.0, 0.0, 100.0, 100.0),
    ];
    let mut mv = vec![Movable::new(Rect::new(50.0, 0.0, 100.0, 100.0))];
    let opts = Options {
        max_iterations: 1,
        relocate: false,
        ..Options::default()
    };
    let r = resolve(&fixed, &mut mv, opts);
    assert!(r.iterations <= 1);
    assert_eq!(r.clear, all_apart(&mv, &fixed, 20.0));
}

/// LAYOUT-9: placement prefers the viewport centre and moves around what is there.
#[test]
fn layout_9_group_placed_near_viewport() {
    let vp = Rect::new(1000.0, 1000.0, 800.0, 600.0);
    let existing = vec![Rect::new(1200.0, 1100.0, 400.0, 400.0)];
    let (x, y) = find_open_space(&existing, (300.0, 200.0), vp, 20.0);
    let r = Rect::new(x, y, 300.0, 200.0);
    assert!(!r.intersects_with_gap(&existing[0], 20.0));
    // Close to the viewport: within one object size of it.
    assert!(r.intersects(&vp.inflated(300.0)));
    let (dx, dy) = place_group(&[], Rect::new(0.0, 0.0, 100.0, 100.0), vp, 20.0);
    assert_eq!((dx, dy), (1350.0, 1250.0));
}

/// LAYOUT-14: resolution is deterministic.
#[test]
fn layout_14_deterministic() {
    let make = || -> Vec<Movable> {
        (0..40)
            .map(|i| {
                Movable::new(Rect::new(
                    (i * 37 % 300) as f64,
                    (i * 53 % 200) as f64,
                    120.0,
                    90.0,
                ))
            })
            .collect()
    };
    let fixed = vec![Rect::new(100.0, 100.0, 200.0, 200.0)];
    let (mut a, mut b) = (make(), make());
    resolve(&fixed, &mut a, Options::default());
    resolve(&fixed, &mut b, Options::default());
    assert_eq!(a, b);
}

/// A note put into an existing frame is not pushed out of it by the frame itself, only off the
/// frame's other contents.
#[test]
fn layout_10_note_into_existing_frame_stays() {
    let fixed = vec![
        Rect::new(0.0, 0.0, 600.0, 400.0),   // existing frame
        Rect::new(30.0, 80.0, 200.0, 200.0), // its existing note
    ];
    let mut mv = vec![Movable::new(Rect::new(100.0, 100.0, 200.0, 200.0)).in_fixed_frame(0)];
    let r = resolve(&fixed, &mut mv, Options::default());
    assert!(r.clear);
    assert!(
        fixed[0].contains(&mv[0].rect),
        "still inside the frame: {:?}",
        mv[0].rect
    );
    assert!(mv[0].rect.separation(&fixed[1]) >= 20.0 - 1e-6);
}
