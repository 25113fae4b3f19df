//! A drawing's limits (EXPORT-12: its deadline, its cancellation flag, its memory) and text that
//! XML cannot hold (EXPORT-13).
#![allow(clippy::unwrap_used)]

use protocol::{BoardObject, ObjectId, ObjectInput};
use render::{Budget, Drawing, Error, Options, Target};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn object(id: &str, json: serde_json::Value) -> BoardObject {
    let input: ObjectInput = serde_json::from_value(json).unwrap();
    input.normalize(ObjectId::try_from(id.to_owned()).unwrap(), 0)
}

/// `n` notes with a sentence each on a grid.
fn notes(n: usize) -> Vec<BoardObject> {
    (0..n)
        .map(|i| {
            let json = serde_json::json!({
                "kind": "note", "x": (i % 50) * 240, "y": (i / 50) * 240,
                "text": format!("Note {i} with a few words to wrap"),
            });
            object(&format!("n{i}"), json)
        })
        .collect()
}

fn drawing(objects: &[BoardObject], target: Target, budget: &Budget) -> Result<Drawing, Error> {
    Drawing::new(objects, &Options::default(), target, budget)
}

#[test]
fn export_12_a_drawing_no_longer_wanted_or_late_stops() {
    let board = notes(200);
    let cancelled = Budget {
        cancel: Some(Arc::new(AtomicBool::new(true))),
        ..Budget::default()
    };
    for target in [Target::Svg, Target::Png { scale: 1.0 }, Target::Pdf] {
        assert!(matches!(
            drawing(&board, target, &cancelled),
            Err(Error::Cancelled)
        ));
    }
    let late = Budget {
        deadline: Some(Instant::now()),
        ..Budget::default()
    };
    assert!(matches!(
        drawing(&board, Target::Pdf, &late),
        Err(Error::TimedOut)
    ));
    // Laid out in time, but no longer wanted before the image is made.
    let flag = Arc::new(AtomicBool::new(false));
    let budget = Budget {
        cancel: Some(flag.clone()),
        ..Budget::default()
    };
    let d = drawing(&board, Target::Png { scale: 1.0 }, &budget).unwrap();
    flag.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(matches!(d.finish(&budget), Err(Error::Cancelled)));
}

#[test]
fn export_12_a_drawing_beyond_its_memory_is_refused() {
    let board = notes(200);
    let d = drawing(&board, Target::Png { scale: 4.0 }, &Budget::default()).unwrap();
    // 200 notes at scale 4: 48,000 x 960 px capped to 16,000 px wide, 8 bytes a pixel.
    assert!(d.memory() > 100 << 20, "{}", d.memory());
    let small = Budget {
        max_bytes: Some(4 << 20),
        ..Budget::default()
    };
    assert!(matches!(d.finish(&small), Err(Error::TooLarge { max, .. }) if max == 4 << 20));
    // The SVG text may not outgrow the budget while it is written.
    let tiny = Budget {
        max_bytes: Some(10_000),
        ..Budget::default()
    };
    assert!(matches!(
        drawing(&board, Target::Svg, &tiny),
        Err(Error::TooLarge { .. })
    ));
    // Within the budget, the same board is drawn.
    let svg = drawing(&board, Target::Svg, &small).unwrap();
    assert!(svg.memory() < 4 << 20);
    let bytes = svg.finish(&small).unwrap();
    assert_eq!(bytes, render::svg(&board, &Options::default()).into_bytes());
    let pdf = drawing(&board, Target::Pdf, &small).unwrap();
    assert!(pdf.cost().glyphs >= 200 * 25, "{:?}", pdf.cost());
}

#[test]
fn export_12_a_drawing_makes_the_same_files_as_its_svg() {
    let board = notes(20);
    let svg = render::svg(&board, &Options::default());
    let budget = Budget::default();
    let made = |target| {
        drawing(&board, target, &budget)
            .unwrap()
            .finish(&budget)
            .unwrap()
    };
    assert_eq!(made(Target::Svg), svg.as_bytes());
    assert_eq!(
        made(Target::Png { scale: 1.0 }),
        render::png(&svg, 1.0).unwrap()
    );
    // A PDF carries a fresh document id and font subset tag: the same length, not the same bytes.
    let (a, b) = (made(Target::Pdf), render::pdf(&svg).unwrap());
    assert!(a.starts_with(b"%PDF-") && a.len() == b.len());
}

#[test]
fn export_13_non_characters_make_well_formed_svg_png_and_pdf() {
    let text = "Plan \u{FFFF}\u{FFFE} now \u{FDD0}\u{1FFFF}\u{10FFFE} ok\u{1}";
    let board = vec![
        object(
            "f",
            serde_json::json!({"kind":"frame","x":0,"y":0,"w":600,"h":400,"text":text}),
        ),
        object(
            "n",
            serde_json::json!({"kind":"note","x":20,"y":40,"text":text}),
        ),
        object(
            "t",
            serde_json::json!({"kind":"text","x":300,"y":40,"w":200,"h":40,"text":text}),
        ),
        object(
            "c",
            serde_json::json!({"kind":"connector","from":{"id":"n"},"to":{"id":"t"},"text":text}),
        ),
    ];
    let svg = render::svg(&board, &Options::default());
    for bad in [
        '\u{FFFF}',
        '\u{FFFE}',
        '\u{FDD0}',
        '\u{1FFFF}',
        '\u{10FFFE}',
        '\u{1}',
    ] {
        assert!(!svg.contains(bad), "{bad:?} in the SVG");
    }
    assert_eq!(svg.matches(">Plan now ok<").count(), 4, "{svg}");
    // PNG and PDF parse the SVG as XML first.
    assert!(render::png(&svg, 1.0).unwrap().starts_with(b"\x89PNG"));
    assert!(render::pdf(&svg).unwrap().starts_with(b"%PDF-"));
}
