//! Snapshot tests of every template and directive through one `check()` helper, which also
//! asserts the quality rules: no overlaps (LAYOUT-7), children inside their frames (LAYOUT-6).
//! Update with `UPDATE_EXPECT=1 cargo test -p layout --test snapshots`.

use expect_test::{Expect, expect};
use layout::directives::{self, Arrangement, DEFAULT_SPACING, Direction, Edge, Node, TreeStyle};
use layout::metrics::{Metrics, measure_arrangement, measure_layout};
use layout::templates::{self, Layout, NoteSpec, Section};

/// Something `check` can render and measure.
trait Drawn {
    fn render(&self) -> String;
    fn metrics(&self) -> Metrics;
}

fn r1(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

impl Drawn for Layout {
    fn render(&self) -> String {
        let mut s = String::new();
        for i in &self.items {
            let r = i.rect;
            s += &format!(
                "{:?} {} [{} {} {}x{}]{}{}\n",
                i.kind,
                i.key,
                r1(r.x),
                r1(r.y),
                r1(r.w),
                r1(r.h),
                i.parent
                    .as_ref()
                    .map(|p| format!(" in {p}"))
                    .unwrap_or_default(),
                i.color
                    .as_ref()
                    .map(|c| format!(" {c}"))
                    .unwrap_or_default(),
            );
        }
        for c in &self.connectors {
            s += &format!("Connector {}: {} -> {}\n", c.key, c.from, c.to);
        }
        s
    }

    fn metrics(&self) -> Metrics {
        measure_layout(self)
    }
}

impl Drawn for Arrangement {
    fn render(&self) -> String {
        let mut s = String::new();
        for p in &self.nodes {
            let r = p.rect;
            s += &format!(
                "{} [{} {} {}x{}]\n",
                p.key,
                r1(r.x),
                r1(r.y),
                r1(r.w),
                r1(r.h)
            );
        }
        for r in &self.routes {
            let pts: Vec<String> = r
                .points
                .iter()
                .map(|p| format!("({} {})", r1(p.0), r1(p.1)))
                .collect();
            s += &format!("{} -> {}: {}\n", r.from, r.to, pts.join(" "));
        }
        s
    }

    fn metrics(&self) -> Metrics {
        measure_arrangement(self)
    }
}

/// Renders, measures and compares; every snapshot must be overlap-free with children contained.
fn check(d: &impl Drawn, expect: Expect) {
    let m = d.metrics();
    assert_eq!(m.overlaps, 0, "overlaps in\n{}", d.render());
    assert_eq!(
        m.children_outside,
        0,
        "children outside their frames in\n{}",
        d.render()
    );
    let out = format!(
        "{}-- min gap {}, crossings {}, edge-node {}, flow down {:.2}, right {:.2}, aspect {:.2}\n",
        d.render(),
        if m.min_gap.is_finite() {
            r1(m.min_gap)
        } else {
            "-".into()
        },
        m.edge_crossings,
        m.edge_node_crossings,
        m.flow_down,
        m.flow_right,
        m.aspect_ratio
    );
    expect.assert_eq(&out);
}

fn notes(prefix: &str, texts: &[&str]) -> Vec<NoteSpec> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| NoteSpec::new(format!("{prefix}_{i}"), *t))
        .collect()
}

fn nodes(sizes: &[(f64, f64)]) -> Vec<Node> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &(w, h))| Node::new(format!("n{i}"), w, h))
        .collect()
}

fn edges(e: &[(usize, usize)]) -> Vec<Edge> {
    e.iter()
        .map(|&(a, b)| Edge::new(format!("n{a}"), format!("n{b}")))
        .collect()
}

#[test]
fn layout_3_swot() {
    let s = templates::swot(&[
        Section::new(
            "s",
            "Strengths",
            notes("s", &["Loyal customers", "Great coffee"]),
        ),
        Section::new("w", "Weaknesses", notes("w", &["Small space"])),
        Section::new(
            "o",
            "Opportunities",
            notes("o", &["Delivery", "Catering", "Events"]),
        ),
        Section::new("t", "Threats", notes("t", &["Chains nearby"])),
    ]);
    check(
        &s,
        expect![[r#"
        Frame s [0 0 480x310] green
        Note s_0 [30 80 200x200] in s
        Note s_1 [250 80 200x200] in s
        Frame w [540 0 260x310] light-red
        Note w_0 [570 80 200x200] in w
        Frame o [0 370 480x530] light-blue
        Note o_0 [30 450 200x200] in o
        Note o_1 [250 450 200x200] in o
        Note o_2 [30 670 200x200] in o
        Frame t [540 370 260x530] orange
        Note t_0 [570 450 200x200] in t
        -- min gap 20, crossings 0, edge-node 0, flow down 1.00, right 1.00, aspect 0.89
    "#]],
    );
}

#[test]
fn layout_4_columns_kanban() {
    let l = templates::columns(&[
        Section::new(
            "todo",
            "To do",
            notes("todo", &["Design", "Specs", "Budget"]),
        ),
        Section::new("doing", "Doing", notes("doing", &["Prototype"])),
        Section::new("done", "Done", vec![]),
    ]);
    check(
        &l,
        expect![[r#"
        Frame todo [0 0 260x750]
        Note todo_0 [30 80 200x200] in todo
        Note todo_1 [30 300 200x200] in todo
        Note todo_2 [30 520 200x200] in todo
        Frame doing [320 0 260x750]
        Note doing_0 [350 80 200x200] in doing
        Frame done [640 0 260x750]
        -- min gap 20, crossings 0, edge-node 0, flow down 1.00, right 1.00, aspect 1.20
    "#]],
    );
}

#[test]
fn layout_4_columns_retro_long_text() {
    let long = "The release slipped a week because the staging database migration was not rehearsed and the rollback plan was missing";
    let l = templates::columns(&[
        Section::new("well", "What went well", notes("well", &["Pairing"])),
        Section::new("bad", "What did not", notes("bad", &[long])),
        Section::new(
            "act",
            "Action items",
            notes("act", &["Rehearse migrations"]),
        ),
    ]);
    check(
        &l,
        expect![[r#"
        Frame well [0 0 260x313]
        Note well_0 [30 80 200x200] in well
        Frame bad [320 0 260x313]
        Note bad_0 [350 80 200x203] in bad
        Frame act [640 0 260x313]
        Note act_0 [670 80 200x200] in act
        -- min gap 60, crossings 0, edge-node 0, flow down 1.00, right 1.00, aspect 2.88
    "#]],
    );
}

#[test]
fn layout_5_journey_connects_stages() {
    let l = templates::journey(&[
        Section::new("aware", "Awareness", notes("aware", &["Sees an ad"])),
        Section::new(
            "consider",
            "Consideration",
            notes("consider", &["Reads reviews", "Compares"]),
        ),
        Section::new("buy", "Purchase", notes("buy", &["Checks out"])),
    ]);
    check(
        &l,
        expect![[r#"
        Frame aware [0 0 260x530]
        Note aware_0 [30 80 200x200] in aware
        Frame consider [350 0 260x530]
        Note consider_0 [380 80 200x200] in consider
        Note consider_1 [380 300 200x200] in consider
        Frame buy [700 0 260x530]
        Note buy_0 [730 80 200x200] in buy
        Connector aware_to_consider: aware -> consider
        Connector consider_to_buy: consider -> buy
        -- min gap 20, crossings 0, edge-node 0, flow down 0.00, right 1.00, aspect 1.81
    "#]],
    );
}

#[test]
fn layout_6_frame_with_notes_and_fit() {
    let mut l =
        templates::frame_with_notes(&Section::new("f", "Ideas", notes("i", &["One", "Two"])));
    // A child moved outside: fitting brings the frame around it again.
    if let Some(c) = l.items.iter_mut().find(|i| i.key == "i_1") {
        c.rect = c.rect.translated(300.0, 100.0);
    }
    templates::fit_frames(&mut l);
    check(
        &l,
        expect![[r#"
        Frame f [0 0 560x630]
        Note i_0 [30 80 200x200] in f
        Note i_1 [330 400 200x200] in f
        -- min gap 120, crossings 0, edge-node 0, flow down 1.00, right 1.00, aspect 0.89
    "#]],
    );
}

#[test]
fn layout_7_grid() {
    let a = directives::grid(
        &nodes(&[
            (200.0, 200.0),
            (100.0, 50.0),
            (300.0, 120.0),
            (80.0, 80.0),
            (200.0, 200.0),
        ]),
        DEFAULT_SPACING,
    );
    check(
        &a,
        expect![[r#"
        n0 [0 0 200x200]
        n1 [390 75 100x50]
        n2 [630 40 300x120]
        n3 [60 300 80x80]
        n4 [340 240 200x200]
        -- min gap 90, crossings 0, edge-node 0, flow down 1.00, right 1.00, aspect 2.11
    "#]],
    );
}

#[test]
fn layout_7_rows() {
    let a = directives::rows(&nodes(&[(200.0, 200.0); 7]), 20.0);
    check(
        &a,
        expect![[r#"
        n0 [0 0 200x200]
        n1 [220 0 200x200]
        n2 [440 0 200x200]
        n3 [0 220 200x200]
        n4 [220 220 200x200]
        n5 [440 220 200x200]
        n6 [0 440 200x200]
        -- min gap 20, crossings 0, edge-node 0, flow down 1.00, right 1.00, aspect 1.00
    "#]],
    );
}

#[test]
fn layout_7_row_column_circle() {
    let ns = nodes(&[
        (100.0, 60.0),
        (150.0, 100.0),
        (80.0, 80.0),
        (120.0, 40.0),
        (100.0, 100.0),
        (60.0, 60.0),
    ]);
    check(
        &directives::row(&ns, 30.0),
        expect![[r#"
        n0 [0 20 100x60]
        n1 [130 0 150x100]
        n2 [310 10 80x80]
        n3 [420 30 120x40]
        n4 [570 0 100x100]
        n5 [700 20 60x60]
        -- min gap 30, crossings 0, edge-node 0, flow down 1.00, right 1.00, aspect 7.60
    "#]],
    );
    check(
        &directives::column(&ns, 30.0),
        expect![[r#"
        n0 [25 0 100x60]
        n1 [0 90 150x100]
        n2 [35 220 80x80]
        n3 [15 330 120x40]
        n4 [25 400 100x100]
        n5 [45 530 60x60]
        -- min gap 30, crossings 0, edge-node 0, flow down 1.00, right 1.00, aspect 0.25
    "#]],
    );
    check(
        &directives::circle(&ns, 30.0),
        expect![[r#"
        n0 [182.1 0 100x60]
        n1 [339.2 85.1 150x100]
        n2 [374.2 305.4 80x80]
        n3 [172.1 430.6 120x40]
        n4 [0 295.4 100x100]
        n5 [20 105.1 60x60]
        -- min gap 57.1, crossings 0, edge-node 0, flow down 1.00, right 1.00, aspect 1.04
    "#]],
    );
}

#[test]
fn layout_7_freeform_keeps_positions() {
    let ns = vec![
        Node::new("a", 100.0, 100.0).at(500.0, 300.0),
        Node::new("b", 100.0, 100.0).at(700.0, 280.0),
        Node::new("c", 120.0, 80.0),
    ];
    check(
        &directives::freeform(&ns, 40.0),
        expect![[r#"
        a [0 20 100x100]
        b [200 0 100x100]
        c [0 160 120x80]
        -- min gap 40, crossings 0, edge-node 0, flow down 1.00, right 1.00, aspect 1.25
    "#]],
    );
}

#[test]
fn layout_8_flowchart_top_down_with_cycle() {
    // start -> check -> (yes) do -> end, check -> (no) fix -> check (loop), plus a long edge.
    let ns = nodes(&[
        (120.0, 60.0),
        (160.0, 80.0),
        (120.0, 60.0),
        (120.0, 60.0),
        (120.0, 60.0),
    ]);
    let es = edges(&[(0, 1), (1, 2), (2, 3), (1, 4), (4, 1), (0, 3)]);
    check(
        &directives::flowchart(&ns, &es, Direction::TopDown, 40.0),
        expect![[r#"
        n0 [160 0 120x60]
        n1 [60 120 160x80]
        n2 [0 260 120x60]
        n3 [240 380 120x60]
        n4 [160 260 120x60]
        n0 -> n1: (220 30) (140 160)
        n1 -> n2: (140 160) (60 290)
        n2 -> n3: (60 290) (300 410)
        n1 -> n4: (140 160) (220 290)
        n4 -> n1: (220 290) (140 160)
        n0 -> n3: (220 30) (300 160) (300 290) (300 410)
        -- min gap 40, crossings 0, edge-node 0, flow down 0.83, right 0.50, aspect 0.82
    "#]],
    );
}

#[test]
fn layout_8_flowchart_left_right() {
    let ns = nodes(&[(120.0, 60.0); 6]);
    let es = edges(&[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (3, 5)]);
    check(
        &directives::flowchart(&ns, &es, Direction::LeftRight, 40.0),
        expect![[r#"
            n0 [0 100 120x60]
            n1 [180 50 120x60]
            n2 [180 150 120x60]
            n3 [380 50 120x60]
            n4 [560 0 120x60]
            n5 [560 100 120x60]
            n0 -> n1: (60 130) (240 80)
            n0 -> n2: (60 130) (240 180)
            n1 -> n3: (240 80) (440 80)
            n2 -> n3: (240 180) (440 80)
            n3 -> n4: (440 80) (620 30)
            n3 -> n5: (440 80) (620 130)
            -- min gap 40, crossings 0, edge-node 0, flow down 0.33, right 1.00, aspect 3.24
        "#]],
    );
}

#[test]
fn layout_12_org_chart() {
    let ns = nodes(&[
        (160.0, 60.0),
        (120.0, 60.0),
        (120.0, 60.0),
        (120.0, 60.0),
        (100.0, 50.0),
        (100.0, 50.0),
        (100.0, 50.0),
    ]);
    let es = edges(&[(0, 1), (0, 2), (0, 3), (1, 4), (1, 5), (3, 6)]);
    check(
        &directives::tree(&ns, &es, TreeStyle::OrgChart, 30.0),
        expect![[r#"
        n0 [185 0 160x60]
        n1 [55 105 120x60]
        n2 [205 105 120x60]
        n3 [355 105 120x60]
        n4 [0 210 100x50]
        n5 [130 210 100x50]
        n6 [365 210 100x50]
        n0 -> n1: (265 30) (115 135)
        n0 -> n2: (265 30) (265 135)
        n0 -> n3: (265 30) (415 135)
        n1 -> n4: (115 135) (50 235)
        n1 -> n5: (115 135) (180 235)
        n3 -> n6: (415 135) (415 235)
        -- min gap 30, crossings 0, edge-node 0, flow down 1.00, right 0.33, aspect 1.83
    "#]],
    );
}

#[test]
fn layout_12_mind_map() {
    let ns = nodes(&[
        (160.0, 80.0),
        (120.0, 50.0),
        (120.0, 50.0),
        (120.0, 50.0),
        (120.0, 50.0),
        (90.0, 40.0),
        (90.0, 40.0),
    ]);
    let es = edges(&[(0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (4, 6)]);
    check(
        &directives::tree(&ns, &es, TreeStyle::MindMap, 30.0),
        expect![[r#"
        n0 [300 25 160x80]
        n1 [505 0 120x50]
        n2 [505 80 120x50]
        n3 [135 0 120x50]
        n4 [135 80 120x50]
        n5 [670 5 90x40]
        n6 [0 85 90x40]
        n0 -> n1: (380 65) (565 25)
        n0 -> n2: (380 65) (565 105)
        n0 -> n3: (380 65) (195 25)
        n0 -> n4: (380 65) (195 105)
        n1 -> n5: (565 25) (715 25)
        n4 -> n6: (195 105) (45 105)
        -- min gap 30, crossings 0, edge-node 0, flow down 0.33, right 0.50, aspect 5.85
    "#]],
    );
}
