//! Golden images of the renderer (EXPORT-2, EXPORT-3, EXPORT-5): every kind, geo, palette color,
//! frame and connector style. The SVG text is compared exactly; the PNG within a small tolerance
//! (anti-aliasing may differ by a step between CPUs). `UPDATE_GOLDEN=1 cargo test -p render
//! --test golden` rewrites the files in `tests/golden/`; look at them before committing.
#![allow(clippy::unwrap_used)]

use protocol::{BoardObject, ObjectId, ObjectInput};
use render::Options;
use resvg::tiny_skia::Pixmap;
use std::path::PathBuf;

fn board(json: &str) -> Vec<BoardObject> {
    let inputs: Vec<ObjectInput> = serde_json::from_str(json).unwrap();
    inputs
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let id =
                o.id.clone()
                    .unwrap_or_else(|| ObjectId::try_from(format!("o{i}")).unwrap());
            o.normalize(id, i as i64)
        })
        .collect()
}

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

fn updating() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some()
}

/// Compares the SVG exactly and the PNG within tolerance with the golden files of `name`.
fn check(name: &str, objects: &[BoardObject]) {
    let svg = render::svg(objects, &Options::default());
    let png = render::png(&svg, 1.0).unwrap();
    let (svg_path, png_path) = (
        golden(&format!("{name}.svg")),
        golden(&format!("{name}.png")),
    );
    if updating() {
        std::fs::write(&svg_path, &svg).unwrap();
        std::fs::write(&png_path, &png).unwrap();
    }
    let want = std::fs::read_to_string(&svg_path).unwrap();
    assert_eq!(svg, want, "{name}.svg differs from the golden file");
    let got = Pixmap::decode_png(&png).unwrap();
    let want = Pixmap::decode_png(&std::fs::read(&png_path).unwrap()).unwrap();
    assert_eq!((got.width(), got.height()), (want.width(), want.height()));
    let differing = got
        .data()
        .chunks(4)
        .zip(want.data().chunks(4))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(x, y)| x.abs_diff(*y) > 8))
        .count();
    let total = (got.width() * got.height()) as usize;
    assert!(
        differing * 1000 <= total * 5,
        "{name}.png: {differing} of {total} pixels differ"
    );
}

#[test]
fn export_2_every_kind() {
    check(
        "kinds",
        &board(
            r#"[
            {"id":"note","kind":"note","x":0,"y":0,"text":"A note with enough words to wrap over several lines"},
            {"id":"shape","kind":"shape","x":240,"y":0,"text":"Shape"},
            {"id":"text","kind":"text","x":480,"y":0,"w":220,"text":"Free text that wraps\nand keeps its breaks"},
            {"id":"frame","kind":"frame","x":0,"y":260,"w":300,"h":160,"text":"A frame"},
            {"id":"turned","kind":"note","x":360,"y":240,"w":150,"h":150,"rotation":15,"color":"green","text":"Turned"},
            {"id":"cut","kind":"note","x":560,"y":240,"w":120,"h":80,"color":"orange","text":"This text is far too long to fit in so small a note and gets cut"},
            {"id":"link","kind":"connector","from":{"id":"note"},"to":{"id":"shape"}}
        ]"#,
        ),
    );
}

#[test]
fn export_2_every_geo() {
    let geos = [
        "rectangle",
        "ellipse",
        "diamond",
        "triangle",
        "hexagon",
        "star",
        "cloud",
    ];
    let json: Vec<String> = geos
        .iter()
        .enumerate()
        .map(|(i, g)| {
            format!(
                r#"{{"id":"{g}","kind":"shape","geo":"{g}","x":{},"y":{},"text":"{g}"}}"#,
                (i % 4) * 230,
                (i / 4) * 150
            )
        })
        .collect();
    check("geos", &board(&format!("[{}]", json.join(","))));
}

#[test]
fn export_2_every_color() {
    let json: Vec<String> = protocol::palette::PALETTE
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            format!(
                r#"{{"id":"{name}","kind":"note","w":120,"h":120,"color":"{name}","x":{},"y":{},"text":"{name}"}}"#,
                (i % 5) * 140,
                (i / 5) * 140
            )
        })
        .collect();
    check("colors", &board(&format!("[{}]", json.join(","))));
}

#[test]
fn export_2_frames_with_titles() {
    check(
        "frames",
        &board(
            r#"[
            {"id":"f1","kind":"frame","x":0,"y":0,"w":420,"h":260,"text":"Sprint planning"},
            {"id":"f2","kind":"frame","x":460,"y":0,"w":200,"h":140},
            {"id":"f3","kind":"frame","x":460,"y":190,"w":120,"h":70,"color":"blue","text":"A title far longer than its frame is wide"},
            {"id":"f4","kind":"frame","x":20,"y":30,"w":200,"h":150,"color":"black","text":"Nested & <escaped>","parent":"f1"},
            {"id":"n1","kind":"note","x":40,"y":60,"w":120,"h":100,"text":"Inside","parent":"f4"},
            {"id":"s1","kind":"shape","x":260,"y":60,"w":130,"h":80,"geo":"ellipse","color":"violet","text":"In frame","parent":"f1"}
        ]"#,
        ),
    );
}

#[test]
fn export_2_connector_styles() {
    check(
        "connectors",
        &board(
            r#"[
            {"id":"a","kind":"shape","x":0,"y":0,"w":140,"h":80,"text":"A"},
            {"id":"b","kind":"shape","geo":"ellipse","x":320,"y":0,"w":140,"h":80,"text":"B"},
            {"id":"c","kind":"shape","geo":"diamond","x":0,"y":220,"w":140,"h":100,"text":"C"},
            {"id":"d","kind":"note","x":320,"y":200,"w":140,"h":140,"text":"D"},
            {"id":"end","kind":"connector","from":{"id":"a"},"to":{"id":"b"},"text":"end"},
            {"id":"both","kind":"connector","from":{"id":"a"},"to":{"id":"c"},"arrow":"both","color":"red"},
            {"id":"none","kind":"connector","from":{"id":"c"},"to":{"id":"d"},"arrow":"none","color":"blue","text":"a label long enough to take more than one line of the label box"},
            {"id":"free","kind":"connector","from":{"x":520,"y":20},"to":{"x":620,"y":320},"color":"green","text":"free"},
            {"id":"mixed","kind":"connector","from":{"id":"b"},"to":{"x":560,"y":380}},
            {"id":"gone","kind":"connector","from":{"id":"a"},"to":{"id":"missing"}}
        ]"#,
        ),
    );
}

#[test]
fn export_3_svg_is_deterministic_and_ordered() {
    let mut objects = board(
        r#"[{"id":"z","kind":"note","z":5},{"id":"c","kind":"connector","from":{"x":0,"y":0},"to":{"x":9,"y":9}},
            {"id":"f","kind":"frame","z":9},{"id":"a","kind":"note","z":5}]"#,
    );
    let one = render::svg(&objects, &Options::default());
    objects.reverse();
    assert_eq!(render::svg(&objects, &Options::default()), one);
    let at = |id: &str| one.find(&format!("data-id=\"{id}\"")).unwrap();
    assert!(at("f") < at("a") && at("a") < at("z") && at("z") < at("c"));
    let preview = render::svg(
        &objects,
        &Options {
            fit: Some(100.0),
            ..Options::default()
        },
    );
    assert!(
        preview.contains("width=\"100\"") || preview.contains("height=\"100\""),
        "{preview}"
    );
}

#[test]
fn export_5_png_scale_is_bounded() {
    let svg = render::svg(&board(r#"[{"kind":"note"}]"#), &Options::default());
    let small = Pixmap::decode_png(&render::png(&svg, 0.5).unwrap()).unwrap();
    let big = Pixmap::decode_png(&render::png(&svg, 2.0).unwrap()).unwrap();
    assert_eq!(big.width(), small.width() * 4);
    let huge = Pixmap::decode_png(&render::png(&svg, 1e9).unwrap()).unwrap();
    assert_eq!(
        huge.width(),
        (f64::from(small.width()) * 2.0 * render::MAX_SCALE) as u32
    );
    // A 100,000 px wide drawing is scaled down to the pixel cap.
    assert!(render::effective_scale(100_000.0, 100_000.0, 4.0) <= 0.04);
}

#[test]
fn export_6_pdf_is_one_vector_page_that_pdftoppm_renders() {
    let svg = render::svg(
        &board(r#"[{"kind":"note","text":"PDF"}, {"kind":"shape","x":260,"geo":"star"}]"#),
        &Options::default(),
    );
    let pdf = render::pdf(&svg).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let have = std::process::Command::new("pdftoppm")
        .arg("-v")
        .output()
        .is_ok();
    if !have {
        println!("pdftoppm not installed (poppler-utils): PDF render step skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("render-pdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("board.pdf"), &pdf).unwrap();
    let status = std::process::Command::new("pdftoppm")
        .args(["-png", "-r", "96", "-singlefile"])
        .arg(dir.join("board.pdf"))
        .arg(dir.join("page"))
        .status()
        .unwrap();
    assert!(status.success());
    let page = Pixmap::decode_png(&std::fs::read(dir.join("page.png")).unwrap()).unwrap();
    let reference = Pixmap::decode_png(&render::png(&svg, 1.0).unwrap()).unwrap();
    // One page the size of the drawing (at 96 dpi, one pixel per board px).
    assert!(
        page.width().abs_diff(reference.width()) <= 1,
        "{} vs {}",
        page.width(),
        reference.width()
    );
    assert!(page.height().abs_diff(reference.height()) <= 1);
    // Something was drawn: not every pixel is white.
    assert!(page.data().chunks(4).any(|p| p[0] < 200));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn export_5_small_pngs_leave_text_out_like_the_browser() {
    let objects = board(r#"[{"kind":"note","text":"hello"},{"kind":"frame","x":300,"text":"F"}]"#);
    let bare = render::svg(
        &objects,
        &Options {
            text: false,
            ..Options::default()
        },
    );
    assert!(!bare.contains("<text") && bare.contains("<rect"));
    let with = render::svg(&objects, &Options::default());
    assert_eq!(
        render::board_png(&objects, 0.2).unwrap(),
        render::png(&bare, 0.2).unwrap()
    );
    assert_eq!(
        render::board_png(&objects, 0.5).unwrap(),
        render::png(&with, 0.5).unwrap()
    );
}
