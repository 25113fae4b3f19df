//! AI-IMG-5: an LLM plan that creates a picture is refused whole, with a message saying pictures
//! are uploaded; nothing of that batch is applied.

use super::*;

#[tokio::test]
async fn ai_img_5_llm_batch_creating_a_picture_is_refused_whole() {
    let batch = json!({"operations": [
        {"op": "createNote", "ref": "note_caption", "text": "Our mascot"},
        {"op": "createImage", "ref": "img_mascot", "alt": "The mascot"}
    ]});
    let f = FakeLlm::start(vec![
        tool_reply(&[("batchOperations", batch)]),
        text_reply("Added the mascot."),
    ])
    .await;
    let board = BoardState::default();
    let p = ask(
        &agent(&f.url),
        &board,
        "decorate the board with our mascot",
        Mode::Build,
    )
    .await;
    // The model was told why, in the tool result of its call.
    let reqs = f.requests();
    assert_eq!(reqs.len(), 2);
    let results = tool_results(&reqs[1]);
    assert_eq!(results[0]["valid"], false);
    let said = results[0]["error"].as_str().unwrap();
    assert!(said.contains(agent::tools::NO_PICTURES), "{said}");
    // Nothing was staged: the caption note is not made without its picture.
    let AiPlan::Error {
        category, message, ..
    } = p
    else {
        panic!("{p:?}")
    };
    assert_eq!(category, AiErrorCategory::PartialFailure);
    assert!(message.contains("pictures cannot be created"), "{message}");
}
