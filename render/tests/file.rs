//! The board file format (EXPORT-7): written, read back, the older shape accepted.
#![allow(clippy::unwrap_used)]

use protocol::{BoardObject, ObjectInput};
use render::file;
use serde_json::json;

fn objects() -> Vec<BoardObject> {
    let inputs: Vec<ObjectInput> = serde_json::from_value(json!([
        {"id": "f", "kind": "frame", "text": "F"},
        {"id": "n", "kind": "note", "x": 10, "y": 20, "text": "hi", "parent": "f", "color": "blue"},
        {"id": "s", "kind": "shape", "geo": "star", "rotation": 30, "x": 300},
        {"id": "c", "kind": "connector", "from": {"id": "n"}, "to": {"x": 5, "y": 6}, "arrow": "both", "text": "l"}
    ]))
    .unwrap();
    inputs
        .iter()
        .enumerate()
        .map(|(i, o)| o.normalize(o.id.clone().unwrap(), i as i64))
        .collect()
}

const FROM: file::Origin<'static> = file::Origin {
    board: "b1",
    title: "My board",
    seq: 7,
    exported_at: 1_700_000_000_000,
};

const SHA: &str = "0b4a1b4e4d3c2b1a0f9e8d7c6b5a49382716050403020100ffeeddccbbaa9988";

fn with_image() -> (Vec<BoardObject>, Vec<file::FilePicture>) {
    let mut objects = objects();
    let image: ObjectInput = serde_json::from_value(
        json!({"id": "i", "kind": "image", "w": 40, "h": 30, "asset": SHA, "alt": "logo"}),
    )
    .unwrap();
    objects.push(image.normalize(image.id.clone().unwrap(), 9));
    let pictures = vec![file::FilePicture {
        sha256: SHA.into(),
        mime: "image/png".into(),
        data: "iVBORw0KGgo=".into(),
    }];
    (objects, pictures)
}

#[test]
fn export_7_file_round_trips() {
    let objects = objects();
    let doc = file::write(&FROM, &objects, &[]);
    assert_eq!(doc["format"], "board");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["board"], json!({"id": "b1", "title": "My board"}));
    let text = serde_json::to_string(&doc).unwrap();
    let parsed = file::read(&serde_json::from_str(&text).unwrap()).unwrap();
    assert_eq!(parsed.title.as_deref(), Some("My board"));
    let back: Vec<BoardObject> = parsed
        .objects
        .iter()
        .zip(&objects)
        .map(|(i, o)| {
            let mut b = i.normalize(i.id.clone().unwrap(), o.z);
            b.created_by = o.created_by.clone();
            b.version = o.version;
            b
        })
        .collect();
    assert_eq!(back, objects);
}

#[test]
fn export_7_older_shape_and_refusals() {
    let older = json!({"board": "b", "title": "T", "seq": 3, "objects": [{"kind": "note"}]});
    let p = file::read(&older).unwrap();
    assert_eq!((p.title.as_deref(), p.objects.len()), (Some("T"), 1));
    let newer = json!({"format": "board", "version": 3, "objects": []});
    assert!(file::read(&newer).unwrap_err().0.contains("newer"));
    let other = json!({"format": "slides", "version": 1, "objects": []});
    assert!(file::read(&other).is_err());
    let bad = json!({"format": "board", "version": 1, "objects": [{"kind": "blob"}]});
    assert!(file::read(&bad).unwrap_err().0.starts_with("object 0"));
    assert!(file::read(&json!([1])).is_err());
}

#[test]
fn export_7_written_files_match_the_schema() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/board-file.schema.json"
    );
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let doc = file::write(&FROM, &objects(), &[]);
    let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let (objects, pictures) = with_image();
    let doc = file::write(&FROM, &objects, &pictures);
    let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let mut v1_with_pictures = doc.clone();
    v1_with_pictures["version"] = json!(1);
    assert!(!v.is_valid(&v1_with_pictures));
    let bad =
        json!({"format": "board", "version": 1, "objects": [{"kind": "note", "colour": "red"}]});
    assert!(!v.is_valid(&bad));
}

/// ASSET-12: a board whose images show pictures is written as version 2 with the pictures
/// inside, and read back with them; a version-1 file has none; a bad picture entry is refused.
#[test]
fn asset_12_version_2_carries_pictures() {
    let (objects, pictures) = with_image();
    let doc = file::write(&FROM, &objects, &pictures);
    assert_eq!(doc["version"], 2);
    let text = serde_json::to_string(&doc).unwrap();
    let parsed = file::read(&serde_json::from_str(&text).unwrap()).unwrap();
    assert_eq!(parsed.pictures, pictures);
    assert_eq!(parsed.objects.len(), objects.len());
    let v1 = file::write(&FROM, &objects, &[]);
    assert_eq!(v1["version"], 1);
    assert!(file::read(&v1).unwrap().pictures.is_empty());
    let mut bad = doc.clone();
    bad["pictures"][0]["bytes"] = json!(3);
    assert!(file::read(&bad).unwrap_err().0.starts_with("picture 0"));
    let mut ignored = doc;
    ignored["version"] = json!(1);
    assert!(file::read(&ignored).unwrap().pictures.is_empty());
}
