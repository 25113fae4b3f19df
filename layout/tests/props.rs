//! Property tests: collision resolution (LAYOUT-10, LAYOUT-11), directives and templates on
//! random and degenerate input (LAYOUT-13), open-space search (LAYOUT-9).

use layout::collision::{Movable, Options, resolve};
use layout::directives::{self, Direction, Edge, Node, TreeStyle};
use layout::geom::Rect;
use layout::metrics::{measure_arrangement, measure_layout};
use layout::place::find_open_space;
use layout::templates::{self, NoteSpec, Section};
use proptest::prelude::*;

fn rect() -> impl Strategy<Value = Rect> {
    (
        -400.0..400.0f64,
        -400.0..400.0f64,
        0.0..250.0f64,
        0.0..250.0f64,
    )
        .prop_map(|(x, y, w, h)| Rect::new(x, y, w, h))
}

/// Movables with parents only pointing to earlier entries (plus a few invalid links) and
/// optional groups.
fn movables() -> impl Strategy<Value = Vec<Movable>> {
    prop::collection::vec(
        (
            rect(),
            prop::option::of(0usize..40),
            prop::option::of(0u64..3),
        ),
        0..28,
    )
    .prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (r, p, g))| Movable {
                rect: r,
                // Mostly earlier frames; an index past the end or to itself is bad input.
                parent: p.filter(|&p| p < i || p > 35),
                group: g.filter(|&g| g > 0),
                fixed_parent: None,
            })
            .collect()
    })
}

fn ancestors(m: &[Movable], i: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut a = m[i].parent.filter(|&p| p < m.len() && p != i);
    while let Some(p) = a {
        if out.contains(&p) {
            break;
        }
        out.push(p);
        a = m[p].parent.filter(|&q| q < m.len() && q != p);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// LAYOUT-10, LAYOUT-11: no pair closer than the gap, fixed objects untouched, children
    /// inside their frames, at most 30 iterations.
    #[test]
    fn layout_10_resolve_clears_everything(fixed in prop::collection::vec(rect(), 0..25), mut mv in movables()) {
        let before = fixed.clone();
        let opts = Options::default();
        let report = resolve(&fixed, &mut mv, opts);
        prop_assert_eq!(&fixed, &before);
        prop_assert!(report.iterations <= opts.max_iterations);
        prop_assert!(report.clear, "report says not clear: {:?}", report);
        let gap = opts.gap - 1e-6;
        for (i, m) in mv.iter().enumerate() {
            for f in &fixed {
                prop_assert!(m.rect.separation(&f.sanitized()) >= gap, "movable {} too close to fixed {:?}: {:?}", i, f, m.rect);
            }
            let anc = ancestors(&mv, i);
            if let Some(&p) = anc.first() {
                prop_assert!(mv[p].rect.contains(&m.rect), "child {} outside frame {}", i, p);
            }
            for j in i + 1..mv.len() {
                if anc.contains(&j) || ancestors(&mv, j).contains(&i) {
                    continue;
                }
                prop_assert!(m.rect.separation(&mv[j].rect) >= gap, "{} and {} too close: {:?} {:?}", i, j, m.rect, mv[j].rect);
            }
        }
    }

    /// LAYOUT-13: directives never panic, place every node, never overlap, and (except the
    /// circle) keep the requested spacing.
    #[test]
    fn layout_13_directives_total(
        sizes in prop::collection::vec((0.0..300.0f64, 0.0..300.0f64), 0..40),
        raw_edges in prop::collection::vec((0usize..45, 0usize..45), 0..80),
        spacing in 0.0..80.0f64,
    ) {
        let nodes: Vec<Node> = sizes.iter().enumerate().map(|(i, &(w, h))| Node::new(format!("n{i}"), w, h)).collect();
        // Indices past the node count name unknown keys: they must be ignored.
        let edges: Vec<Edge> = raw_edges.iter().map(|&(a, b)| Edge::new(format!("n{a}"), format!("n{b}"))).collect();
        let all = [
            ("grid", directives::grid(&nodes, spacing)),
            ("rows", directives::rows(&nodes, spacing)),
            ("row", directives::row(&nodes, spacing)),
            ("column", directives::column(&nodes, spacing)),
            ("circle", directives::circle(&nodes, spacing)),
            ("freeform", directives::freeform(&nodes, spacing)),
            ("flow-td", directives::flowchart(&nodes, &edges, Direction::TopDown, spacing)),
            ("flow-lr", directives::flowchart(&nodes, &edges, Direction::LeftRight, spacing)),
            ("org", directives::tree(&nodes, &edges, TreeStyle::OrgChart, spacing)),
            ("mind", directives::tree(&nodes, &edges, TreeStyle::MindMap, spacing)),
        ];
        for (name, a) in &all {
            prop_assert_eq!(a.nodes.len(), nodes.len());
            for p in &a.nodes {
                prop_assert!(p.rect.x.is_finite() && p.rect.y.is_finite(), "{} produced NaN", name);
            }
            let m = measure_arrangement(a);
            prop_assert_eq!(m.overlaps, 0, "{} overlaps", name);
            if *name != "circle" && nodes.len() > 1 {
                prop_assert!(m.min_gap >= spacing - 1e-6, "{}: min gap {} < {}", name, m.min_gap, spacing);
            }
            if let Some(b) = a.bounds() {
                prop_assert!(b.x.abs() < 1e-6 && b.y.abs() < 1e-6, "{} not normalised", name);
            }
        }
    }

    /// LAYOUT-8: on a DAG every edge of a top-down flowchart points down.
    #[test]
    fn layout_8_dag_edges_point_down(n in 1usize..40, raw in prop::collection::vec((0usize..40, 0usize..40), 0..70)) {
        let nodes: Vec<Node> = (0..n).map(|i| Node::new(format!("n{i}"), 100.0, 50.0)).collect();
        let edges: Vec<Edge> = raw.iter().filter(|(a, b)| a < b && *b < n).map(|&(a, b)| Edge::new(format!("n{a}"), format!("n{b}"))).collect();
        let a = directives::flowchart(&nodes, &edges, Direction::TopDown, 40.0);
        prop_assert_eq!(measure_arrangement(&a).flow_down, 1.0);
        let a = directives::flowchart(&nodes, &edges, Direction::LeftRight, 40.0);
        prop_assert_eq!(measure_arrangement(&a).flow_right, 1.0);
    }

    /// LAYOUT-6: templates keep children inside frames and never overlap, whatever the text.
    #[test]
    fn layout_6_templates_contain_children(texts in prop::collection::vec(prop::collection::vec(".{0,300}", 0..6), 0..6)) {
        let sections: Vec<Section> = texts.iter().enumerate().map(|(i, ts)| {
            Section::new(format!("f{i}"), format!("Frame {i}"), ts.iter().enumerate().map(|(j, t)| NoteSpec::new(format!("f{i}_{j}"), t.clone())).collect())
        }).collect();
        for l in [templates::swot(&sections), templates::columns(&sections), templates::journey(&sections)] {
            let m = measure_layout(&l);
            prop_assert_eq!(m.overlaps, 0);
            prop_assert_eq!(m.children_outside, 0);
        }
        for s in &sections {
            let mut l = templates::frame_with_notes(s);
            templates::fit_frames(&mut l);
            prop_assert_eq!(measure_layout(&l).children_outside, 0);
        }
    }

    /// LAYOUT-9: the open spot is never within the gap of an existing object.
    #[test]
    fn layout_9_open_space_is_free(existing in prop::collection::vec(rect(), 0..60), w in 0.0..600.0f64, h in 0.0..600.0f64) {
        let vp = Rect::new(-300.0, -300.0, 600.0, 600.0);
        let (x, y) = find_open_space(&existing, (w, h), vp, 20.0);
        let r = Rect::new(x, y, w, h);
        for e in &existing {
            prop_assert!(!e.intersects_with_gap(&r, 20.0), "{:?} overlaps {:?}", r, e);
        }
    }
}

/// LAYOUT-13: degenerate input never panics.
#[test]
fn layout_13_degenerate_inputs() {
    let none: Vec<Node> = Vec::new();
    assert!(
        directives::flowchart(&none, &[], Direction::TopDown, 40.0)
            .nodes
            .is_empty()
    );
    assert!(
        directives::tree(&none, &[], TreeStyle::MindMap, 40.0)
            .nodes
            .is_empty()
    );
    assert!(directives::circle(&none, 40.0).nodes.is_empty());
    let one = vec![Node::new("a", 0.0, 0.0)];
    let loops = vec![
        Edge::new("a", "a"),
        Edge::new("a", "a"),
        Edge::new("a", "zz"),
    ];
    let a = directives::flowchart(&one, &loops, Direction::LeftRight, 40.0);
    assert_eq!(a.routes.len(), 2);
    let weird = vec![
        Node::new("x", f64::NAN, -5.0),
        Node::new("y", f64::INFINITY, 10.0).at(f64::NAN, 3.0),
    ];
    for a in [
        directives::grid(&weird, f64::NAN),
        directives::circle(&weird, -1.0),
        directives::flowchart(
            &weird,
            &[Edge::new("x", "y"), Edge::new("y", "x")],
            Direction::TopDown,
            40.0,
        ),
        directives::tree(
            &weird,
            &[Edge::new("x", "y"), Edge::new("y", "x")],
            TreeStyle::OrgChart,
            40.0,
        ),
    ] {
        assert!(
            a.nodes
                .iter()
                .all(|p| p.rect.x.is_finite() && p.rect.w.is_finite())
        );
    }
    let mut mv = vec![Movable {
        rect: Rect::new(f64::NAN, 0.0, -3.0, 5.0),
        parent: Some(0),
        group: None,
        fixed_parent: None,
    }];
    let r = resolve(
        &[Rect::new(0.0, 0.0, f64::INFINITY, 1.0)],
        &mut mv,
        Options::default(),
    );
    assert!(r.clear);
    // Parent cycle 0 -> 1 -> 0.
    let mut mv = vec![
        Movable {
            rect: Rect::new(0.0, 0.0, 10.0, 10.0),
            parent: Some(1),
            group: None,
            fixed_parent: None,
        },
        Movable {
            rect: Rect::new(0.0, 0.0, 10.0, 10.0),
            parent: Some(0),
            group: None,
            fixed_parent: None,
        },
    ];
    assert!(resolve(&[], &mut mv, Options::default()).clear);
    assert!(resolve(&[], &mut [], Options::default()).clear);
}

/// LAYOUT-13: huge inputs stay fast enough and correct.
#[test]
fn layout_13_huge_counts() {
    let n = 3000;
    let nodes: Vec<Node> = (0..n)
        .map(|i| Node::new(format!("n{i}"), 100.0 + (i % 7) as f64 * 10.0, 60.0))
        .collect();
    let chain: Vec<Edge> = (1..n)
        .map(|i| Edge::new(format!("n{}", i - 1), format!("n{i}")))
        .collect();
    let tree_edges: Vec<Edge> = (1..n)
        .map(|i| Edge::new(format!("n{}", (i - 1) / 3), format!("n{i}")))
        .collect();
    assert_eq!(
        measure_arrangement(&directives::grid(&nodes, 20.0)).overlaps,
        0
    );
    assert_eq!(
        measure_arrangement(&directives::tree(&nodes, &chain, TreeStyle::OrgChart, 20.0)).overlaps,
        0
    );
    assert_eq!(
        measure_arrangement(&directives::tree(
            &nodes,
            &tree_edges,
            TreeStyle::MindMap,
            20.0
        ))
        .overlaps,
        0
    );
    let a = directives::flowchart(&nodes[..1000], &tree_edges[..999], Direction::TopDown, 20.0);
    assert_eq!(measure_arrangement(&a).overlaps, 0);
    // All movables stacked on one spot, on top of a fixed grid.
    let fixed: Vec<Rect> = (0..400)
        .map(|i| {
            Rect::new(
                (i % 20) as f64 * 250.0,
                (i / 20) as f64 * 250.0,
                200.0,
                200.0,
            )
        })
        .collect();
    let mut mv: Vec<Movable> = (0..300)
        .map(|_| Movable::new(Rect::new(1000.0, 1000.0, 200.0, 200.0)))
        .collect();
    let r = resolve(&fixed, &mut mv, Options::default());
    assert!(r.clear && r.iterations <= 30);
}
