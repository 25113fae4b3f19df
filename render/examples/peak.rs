//! Peak memory of one drawing (EXPORT-12): draws a generated board once and prints the process's
//! peak resident memory (`VmHWM`) with the drawing's size. Run one drawing per process:
//!
//! `cargo run --release -p render --example peak -- png|pdf|svg KIND N CHARS [PITCH]`
//!
//! KIND is `note` or `text`; N objects of it on a square grid PITCH px apart (default 240), each
//! holding CHARS characters of words.
#![allow(clippy::unwrap_used)]

use protocol::{BoardObject, ObjectId, ObjectInput};

fn hwm_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn board(kind: &str, n: usize, chars: usize, pitch: usize) -> Vec<BoardObject> {
    let text: String = "lorem ipsum dolor sit amet consectetur "
        .chars()
        .cycle()
        .take(chars)
        .collect();
    let side = (n as f64).sqrt().ceil() as usize;
    (0..n)
        .map(|i| {
            let json = serde_json::json!({
                "kind": kind, "x": (i % side) * pitch, "y": (i / side) * pitch,
                "w": 200, "h": 200, "text": text,
            });
            let input: ObjectInput = serde_json::from_value(json).unwrap();
            input.normalize(ObjectId::try_from(format!("o{i}")).unwrap(), i as i64)
        })
        .collect()
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let format = a.first().map_or("png", String::as_str);
    let kind = a.get(1).map_or("note", String::as_str);
    let n: usize = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let chars: usize = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
    let pitch: usize = a.get(4).and_then(|s| s.parse().ok()).unwrap_or(240);
    let objects = board(kind, n, chars, pitch);
    let base = hwm_kib();
    let t = std::time::Instant::now();
    let target = match format {
        "png" => render::Target::Png { scale: 1.0 },
        "pdf" => render::Target::Pdf,
        _ => render::Target::Svg,
    };
    let budget = render::Budget::default();
    let options = render::Options::default();
    let drawing = render::Drawing::new(&objects, &options, target, &budget).unwrap();
    let (cost, estimate) = (drawing.cost(), drawing.memory());
    let made = drawing.finish(&budget).map(|b| b.len());
    println!(
        "{format} {kind} x{n} ({chars} chars, pitch {pitch}): {:?} in {:.2?}; svg {} KiB, {} elements, {} glyphs; estimate {} MiB; peak {} MiB (board {} MiB)",
        made.map_err(|e| e.to_string()),
        t.elapsed(),
        cost.svg_bytes / 1024,
        cost.elements,
        cost.glyphs,
        estimate >> 20,
        hwm_kib() / 1024,
        base / 1024,
    );
}
