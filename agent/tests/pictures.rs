//! Pictures (object kind `image`) seen by the agent: the board context, the LLM tools and the
//! resolver. The offline planner's phrasings are the corpus's `pictures` class (corpus.rs).
//! Rule ids: AI-IMG-n.
#![allow(clippy::unwrap_used)]
mod common;

use agent::context::{ContextLimits, board_context};
use agent::llm::board_state;
use agent::schema::{DuplicateElements, ElementUpdate, GetBoardState, UpdateElements};
use agent::tools::{NO_PICTURES, ToolCall, ToolName, parse_call, tool_specs};
use agent::{Intent, StagedCall};
use common::*;
use protocol::num::Num;
use protocol::{BoardObject, BoardState, Kind, Mode, ObjectInput, OpInput};
use serde_json::json;

const ASSET: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

/// Adds an image showing [`ASSET`] with `alt`.
fn image(board: &mut BoardState, alt: &str, x: f64, y: f64, w: f64, h: f64) -> BoardObject {
    let mut i = ObjectInput::new(Kind::Image);
    let id = protocol::ObjectId::random();
    i.id = Some(id.clone());
    i.asset = Some(ASSET.into());
    i.alt = Some(alt.into());
    i.x = Some(Num(x));
    i.y = Some(Num(y));
    i.w = Some(Num(w));
    i.h = Some(Num(h));
    board
        .apply(&[OpInput::Create { object: i }], &user(), 1)
        .unwrap();
    board.get(id.as_str()).unwrap().clone()
}

fn update(u: ElementUpdate) -> Intent {
    Intent::one(StagedCall::UpdateElements(UpdateElements {
        updates: vec![u],
    }))
}

/// AI-IMG-1: the context lists an image with its id, position, size and trimmed alt text, and
/// never its picture's hash or a color; far ones are brief, with size and alt text.
#[test]
fn ai_img_1_context_lists_images_with_alt_and_size_never_the_hash() {
    let mut b = BoardState::default();
    let logo = image(&mut b, "  Company logo \n", 100.0, 120.0, 200.0, 100.0);
    let far = image(&mut b, "Beach at sunset", 2400.0, 100.0, 300.0, 200.0);
    let ctx = board_context(
        &b,
        &[],
        ctx().viewport,
        ContextLimits::default(),
        &Default::default(),
    );
    let line = ctx
        .board
        .lines()
        .find(|l| l.contains(logo.id.as_str()))
        .unwrap();
    assert_eq!(
        line,
        format!(
            "- id={} kind=image x=100 y=120 w=200 h=100 alt=\"Company logo\"",
            logo.id
        )
    );
    let brief = ctx
        .board
        .lines()
        .find(|l| l.contains(far.id.as_str()))
        .unwrap();
    assert_eq!(
        brief,
        format!(
            "- id={} image (2400,100) 300x200 alt=\"Beach at sunset\"",
            far.id
        )
    );
    assert!(!ctx.board.contains(ASSET) && !ctx.board.contains("color="));
    // Selected, it is listed in full the same way.
    let sel = board_context(
        &b,
        std::slice::from_ref(&far.id),
        None,
        ContextLimits::default(),
        &Default::default(),
    );
    assert!(
        sel.selection
            .contains("kind=image x=2400 y=100 w=300 h=200")
    );
    assert!(!sel.selection.contains(ASSET));
}

/// AI-IMG-1: getBoardState keeps images by kind and finds them by their alt text.
#[test]
fn ai_img_1_get_board_state_filters_images_and_finds_alt_text() {
    let mut b = BoardState::default();
    add(&mut b, Kind::Note, None, "yellow", 0.0, 0.0, 200.0, 200.0);
    let logo = image(&mut b, "Company logo", 300.0, 0.0, 200.0, 100.0);
    image(&mut b, "Team dinner", 600.0, 0.0, 300.0, 200.0);
    let q = GetBoardState {
        kinds: Some(vec!["images".into()]),
        ..GetBoardState::default()
    };
    assert_eq!(board_state(&b, &q, &Default::default())["total"], 2);
    let q = GetBoardState {
        query: Some("logo".into()),
        ..GetBoardState::default()
    };
    let v = board_state(&b, &q, &Default::default());
    assert_eq!(v["total"], 1);
    assert!(v["objects"][0].as_str().unwrap().contains(logo.id.as_str()));
}

/// AI-IMG-3: an update giving one side of an image keeps its aspect ratio (the other side
/// follows); both sides given are taken as they are.
#[test]
fn ai_img_3_one_side_keeps_the_aspect_ratio() {
    let mut b = BoardState::default();
    let logo = image(&mut b, "Company logo", 100.0, 100.0, 200.0, 100.0);
    let note = add(
        &mut b,
        Kind::Note,
        None,
        "yellow",
        600.0,
        100.0,
        200.0,
        200.0,
    );
    let id = logo.id.to_string();
    run(
        &mut b,
        &update(ElementUpdate {
            id: id.clone(),
            w: Some(300.0),
            ..ElementUpdate::default()
        }),
        &ctx(),
    );
    let o = b.get(&id).unwrap();
    assert_eq!((o.w, o.h), (300.0, 150.0));
    run(
        &mut b,
        &update(ElementUpdate {
            id: id.clone(),
            h: Some(60.0),
            ..ElementUpdate::default()
        }),
        &ctx(),
    );
    let o = b.get(&id).unwrap();
    assert_eq!((o.w, o.h), (120.0, 60.0));
    run(
        &mut b,
        &update(ElementUpdate {
            id: id.clone(),
            w: Some(400.0),
            h: Some(100.0),
            ..ElementUpdate::default()
        }),
        &ctx(),
    );
    let o = b.get(&id).unwrap();
    assert_eq!((o.w, o.h), (400.0, 100.0));
    // Other kinds change only the side given.
    run(
        &mut b,
        &update(ElementUpdate {
            id: note.id.to_string(),
            w: Some(300.0),
            ..ElementUpdate::default()
        }),
        &ctx(),
    );
    let n = b.get(note.id.as_str()).unwrap();
    assert_eq!((n.w, n.h), (300.0, 200.0));
}

/// AI-IMG-3: a duplicated image shows the same picture (asset, alt text, crop) and applies.
#[test]
fn ai_img_3_duplicate_keeps_the_picture() {
    let mut b = BoardState::default();
    let logo = image(&mut b, "Company logo", 100.0, 100.0, 200.0, 100.0);
    let r = run(
        &mut b,
        &Intent::one(StagedCall::DuplicateElements(DuplicateElements {
            ids: vec![logo.id.to_string()],
            dx: None,
            dy: None,
        })),
        &ctx(),
    );
    assert_eq!(r.created.len(), 1);
    let copy = b.get(r.created[0].as_str()).unwrap();
    assert_eq!(copy.kind, Kind::Image);
    assert_eq!(copy.asset.as_deref(), Some(ASSET));
    assert_eq!(copy.alt, "Company logo");
    assert_eq!((copy.w, copy.h), (200.0, 100.0));
    assert_ne!(copy.x, logo.x);
}

/// AI-IMG-5: an image takes no color or text from updateElements: they are left out with a
/// warning, and its move still applies.
#[test]
fn ai_img_5_image_ignores_color_and_text_with_a_warning() {
    let mut b = BoardState::default();
    let logo = image(&mut b, "Company logo", 100.0, 100.0, 200.0, 100.0);
    let r = run(
        &mut b,
        &update(ElementUpdate {
            id: logo.id.to_string(),
            color: Some("red".into()),
            text: Some("Logo".into()),
            dx: Some(50.0),
            ..ElementUpdate::default()
        }),
        &ctx(),
    );
    let o = b.get(logo.id.as_str()).unwrap();
    assert_eq!(
        (o.x, o.color.as_str(), o.text.as_str()),
        (150.0, logo.color.as_str(), "")
    );
    assert!(
        r.warnings.iter().any(|w| w.contains("is an image")),
        "{:?}",
        r.warnings
    );
}

/// AI-IMG-5: no create operation offers a picture; a batch that would make one (createImage,
/// kind or geo image, a picture source) is refused whole, saying pictures are uploaded.
#[test]
fn ai_img_5_batch_creating_a_picture_is_refused_whole() {
    let schema = serde_json::to_string(&agent::tools::parameters(ToolName::BatchOperations))
        .unwrap()
        .to_lowercase();
    assert!(!schema.contains("image") && !schema.contains("asset"));
    let note = json!({"op": "createNote", "ref": "note_caption", "text": "Our mascot"});
    for pic in [
        json!({"op": "createImage", "ref": "img_cat", "alt": "a cat"}),
        json!({"op": "createShape", "ref": "img_cat", "geo": "image"}),
        json!({"op": "createNote", "ref": "img_cat", "text": "cat", "src": "https://x/cat.png"}),
        json!({"op": "createShape", "ref": "img_cat", "asset": ASSET}),
    ] {
        let args = json!({"operations": [note.clone(), pic]}).to_string();
        let e = parse_call("batchOperations", &args).unwrap_err();
        assert!(e.contains(NO_PICTURES) && e.contains("img_cat"), "{e}");
    }
    // The same batch without the picture is staged.
    let args = json!({"operations": [note]}).to_string();
    assert!(matches!(
        parse_call("batchOperations", &args),
        Ok(ToolCall::Write(_))
    ));
}

/// AI-IMG-5: the write tools for existing objects say they take images, and image ids parse.
#[test]
fn ai_img_5_edit_tools_take_image_ids() {
    let specs = tool_specs(Mode::Build);
    for name in ["updateElements", "layoutElements", "deleteElements"] {
        let t = specs.iter().find(|t| t.name == name).unwrap();
        assert!(t.description.contains("images"), "{name}");
    }
    let b = specs.iter().find(|t| t.name == "batchOperations").unwrap();
    assert!(b.description.contains("never a picture"));
    let mut board = BoardState::default();
    let logo = image(&mut board, "Company logo", 100.0, 100.0, 200.0, 100.0);
    let id = logo.id.to_string();
    for (tool, args) in [
        (
            "updateElements",
            json!({"updates": [{"id": id, "scale": 0.5}]}),
        ),
        ("layoutElements", json!({"ids": [id], "layout": "row"})),
        ("duplicateElements", json!({"ids": [id]})),
        ("deleteElements", json!({"ids": [id]})),
    ] {
        let Ok(ToolCall::Write(call)) = parse_call(tool, &args.to_string()) else {
            panic!("{tool}")
        };
        assert!(agent::validate_call(&call, &board).is_ok(), "{tool}");
        run(&mut board.clone(), &Intent::one(call), &ctx());
    }
}

/// AI-IMG-2: two pictures with the same alt text make a "which one?" whose buttons name each by
/// its alt text, size and place; the answer picks one.
#[test]
fn ai_img_2_same_alt_text_asks_which_by_size_and_place() {
    use agent::planner::{Planned, plan, targets::Scope};
    let mut b = BoardState::default();
    let small = image(&mut b, "Team photo", 100.0, 100.0, 300.0, 200.0);
    image(&mut b, "Team photo", 500.0, 100.0, 600.0, 400.0);
    let memory = agent::SessionMemory::new();
    let now = std::time::Instant::now();
    let scope = Scope::new(&b, &[], &memory, now);
    let Some(Planned::Ask { ask, .. }) = plan("delete the Team photo", &scope) else {
        panic!("no question")
    };
    let labels: Vec<String> = ask.questions[0]
        .buttons
        .iter()
        .flatten()
        .map(|b| b.label.clone())
        .collect();
    assert_eq!(
        labels,
        [
            "\"Team photo\" (300×200 image at 100, 100)",
            "\"Team photo\" (600×400 image at 500, 100)"
        ]
    );
    let mut answers = serde_json::Map::new();
    answers.insert("which".into(), json!(small.id.as_str()));
    let mut scope = Scope::new(&b, &[], &memory, now);
    scope.answers = &answers;
    let Some(Planned::Intent { intent, .. }) = plan("delete the Team photo", &scope) else {
        panic!("not planned")
    };
    let r = run(&mut b, &intent, &ctx());
    assert_eq!(r.ops.len(), 1);
    assert!(b.get(small.id.as_str()).is_none() && b.len() == 1);
}
