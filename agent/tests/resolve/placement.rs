//! RESOLVE-9 to RESOLVE-13, RESOLVE-15 to RESOLVE-17 and RESOLVE-20: templates and directives
//! (seed 000 R20, R22), frames sized to fit their children (R23), new objects kept 20 px from
//! existing ones, which never move (seed 001 AC-6), placement near the viewport in open space
//! (R24), and layoutElements.

use super::*;

#[test]
fn resolve_9_swot_2x2() {
    let mut b = BoardState::default();
    let r = run(&mut b, &batch(&swot_json()), &ctx());
    let frames = kinds(&b, Kind::Frame);
    assert_eq!(frames.len(), 4);
    let counts: Vec<usize> = frames
        .iter()
        .map(|f| b.children_of(f.id.as_str()).count())
        .collect();
    assert_eq!(counts, [2, 1, 3, 2]);
    let (s, w, o, t) = (&frames[0], &frames[1], &frames[2], &frames[3]);
    assert!((s.y - w.y).abs() < 1.0 && (o.y - t.y).abs() < 1.0 && o.y > s.y);
    assert!((s.x - o.x).abs() < 1.0 && (w.x - t.x).abs() < 1.0 && w.x > s.x);
    for f in &frames {
        for c in b.children_of(f.id.as_str()) {
            assert!(rect(f).contains(&rect(b.get(c.as_str()).unwrap())));
        }
    }
    assert_eq!(r.summary.template.as_deref(), Some("swot-2x2"));
    assert_eq!(
        r.message(),
        "Created a SWOT analysis with 4 frames and 8 notes."
    );
}

#[test]
fn resolve_10_columns_horizontal() {
    let mut b = BoardState::default();
    run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createFrame","ref":"f_todo","name":"To Do"},{"op":"createFrame","ref":"f_doing","name":"Doing"},{"op":"createFrame","ref":"f_done","name":"Done"},{"op":"createNote","ref":"n_1","text":"task","parentRef":"f_todo"}],"layoutDirective":"columns"}"#,
        ),
        &ctx(),
    );
    let f = kinds(&b, Kind::Frame);
    assert!(
        f.windows(2)
            .all(|w| w[1].x > w[0].x + w[0].w && (w[1].y - w[0].y).abs() < 1.0)
    );
}

#[test]
fn resolve_11_journey_auto_connectors() {
    let mut b = BoardState::default();
    run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createFrame","ref":"f_1","name":"Discover"},{"op":"createFrame","ref":"f_2","name":"Try"},{"op":"createFrame","ref":"f_3","name":"Buy"}],"layoutDirective":"journey-stages"}"#,
        ),
        &ctx(),
    );
    let f = kinds(&b, Kind::Frame);
    assert!(f.windows(2).all(|w| w[1].x > w[0].x));
    let c = kinds(&b, Kind::Connector);
    assert_eq!(c.len(), 2);
    assert_eq!(
        c[0].from,
        Some(Endpoint::Bound {
            id: f[0].id.clone()
        })
    );
    assert_eq!(
        c[1].to,
        Some(Endpoint::Bound {
            id: f[2].id.clone()
        })
    );
}

#[test]
fn resolve_12_grid_2x2() {
    let mut b = BoardState::default();
    run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createShape","ref":"s_1"},{"op":"createShape","ref":"s_2"},{"op":"createShape","ref":"s_3"},{"op":"createShape","ref":"s_4"}],"layoutDirective":"grid"}"#,
        ),
        &ctx(),
    );
    let s = kinds(&b, Kind::Shape);
    let mut ys: Vec<i64> = s.iter().map(|o| o.y.round() as i64).collect();
    let mut xs: Vec<i64> = s.iter().map(|o| o.x.round() as i64).collect();
    ys.sort();
    ys.dedup();
    xs.sort();
    xs.dedup();
    assert_eq!((xs.len(), ys.len()), (2, 2));
}

#[test]
fn resolve_13_flowchart_roots_above_dependents() {
    let mut b = BoardState::default();
    let r = run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createShape","ref":"start","text":"Start"},{"op":"createShape","ref":"check","geo":"diamond","text":"OK?"},{"op":"createShape","ref":"yes","text":"Ship"},{"op":"createShape","ref":"no","text":"Fix"},{"op":"createConnector","ref":"c1","fromRef":"start","toRef":"check"},{"op":"createConnector","ref":"c2","fromRef":"check","toRef":"yes","label":"yes"},{"op":"createConnector","ref":"c3","fromRef":"check","toRef":"no","label":"no"}],"layoutDirective":"flowchart-top-down"}"#,
        ),
        &ctx(),
    );
    let o = |i: usize| b.get(r.created[i].as_str()).unwrap().clone();
    assert!(o(0).y + o(0).h <= o(1).y);
    assert!(o(1).y + o(1).h <= o(2).y && o(1).y + o(1).h <= o(3).y);
    assert_eq!(o(1).geo, Some(Geo::Diamond));
}

#[test]
fn resolve_15_frames_fit_children() {
    let mut b = BoardState::default();
    let r = run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createFrame","ref":"f_1","name":"Box"},{"op":"createNote","ref":"n_1","text":"a","parentRef":"f_1"},{"op":"createNote","ref":"n_2","text":"b","parentRef":"f_1"},{"op":"createNote","ref":"n_3","text":"c","parentRef":"f_1"}]}"#,
        ),
        &ctx(),
    );
    let f = b.get(r.created[0].as_str()).unwrap().clone();
    let kids: Vec<_> = r.created[1..]
        .iter()
        .map(|i| rect(b.get(i.as_str()).unwrap()))
        .collect();
    let u = layout::Rect::union_all(&kids).unwrap();
    assert!(rect(&f).contains(&u));
    // Sized to the content: padding around the children, no empty default 300x300.
    assert!(
        (f.h - (u.h + 30.0 * 2.0 + 50.0)).abs() < 1.0,
        "{} vs {}",
        f.h,
        u.h
    );
    assert!((f.w - (u.w + 60.0)).abs() < 1.0);
}

#[test]
fn resolve_16_collision_gap_and_existing_fixed() {
    // AC-6: five notes explicitly on top of each other and of an existing shape.
    let mut b = BoardState::default();
    let existing = add(
        &mut b,
        Kind::Shape,
        Some(Geo::Rectangle),
        "blue",
        100.0,
        100.0,
        300.0,
        300.0,
    );
    let ops: Vec<String> = (0..5)
        .map(|i| format!(r#"{{"op":"createNote","ref":"n_{i}","text":"x","x":150,"y":150}}"#))
        .collect();
    let r = run(
        &mut b,
        &batch(&format!(r#"{{"operations":[{}]}}"#, ops.join(","))),
        &ctx(),
    );
    assert_eq!(b.get(existing.id.as_str()).unwrap(), &existing);
    let rects: Vec<_> = r
        .created
        .iter()
        .map(|i| rect(b.get(i.as_str()).unwrap()))
        .collect();
    for (i, a) in rects.iter().enumerate() {
        assert!(gap(a, &rect(&existing)) >= 20.0 - 1e-6);
        for c in &rects[i + 1..] {
            assert!(gap(a, c) >= 20.0 - 1e-6);
        }
    }
}

#[test]
fn resolve_17_batch_placed_near_viewport_in_open_space() {
    let mut b = BoardState::default();
    let blocker = add(
        &mut b,
        Kind::Frame,
        None,
        "gray",
        4600.0,
        4300.0,
        800.0,
        800.0,
    );
    let mut c = ctx();
    c.viewport = Some(protocol::Viewport {
        x: 4200.0,
        y: 4000.0,
        w: 1600.0,
        h: 900.0,
    });
    let r = run(
        &mut b,
        &batch(
            r#"{"operations":[{"op":"createNote","ref":"n_1","text":"x"},{"op":"createNote","ref":"n_2","text":"y"}]}"#,
        ),
        &c,
    );
    for id in &r.created {
        let o = b.get(id.as_str()).unwrap();
        assert!(gap(&rect(o), &rect(&blocker)) >= 20.0 - 1e-6);
        let (cx, cy) = (o.x + o.w / 2.0, o.y + o.h / 2.0);
        assert!(
            (cx - 5000.0).abs() < 1600.0 && (cy - 4450.0).abs() < 1600.0,
            "{cx},{cy}"
        );
    }
}

#[test]
fn resolve_20_layout_elements_grid_keeps_place() {
    let mut b = BoardState::default();
    let ids: Vec<String> = (0..4)
        .map(|i| {
            add(
                &mut b,
                Kind::Note,
                None,
                "yellow",
                1000.0 + i as f64 * 500.0,
                700.0,
                200.0,
                200.0,
            )
            .id
            .to_string()
        })
        .collect();
    let r = run(
        &mut b,
        &Intent::one(StagedCall::LayoutElements(LayoutElements {
            ids: ids.clone(),
            layout: ArrangeLayout::Grid,
            spacing: None,
        })),
        &ctx(),
    );
    let rs: Vec<_> = ids
        .iter()
        .map(|i| b.get(i.as_str()).unwrap().clone())
        .collect();
    let min_x = rs.iter().map(|o| o.x).fold(f64::MAX, f64::min);
    assert!((min_x - 1000.0).abs() < 1.0);
    let mut ys: Vec<i64> = rs.iter().map(|o| o.y as i64).collect();
    ys.dedup();
    assert_eq!(r.message(), "Arranged 4 objects in a grid.");
}
