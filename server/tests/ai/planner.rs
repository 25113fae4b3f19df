//! The offline planner's questions on the live board: confirmation of destructive bulk work,
//! "which one?" for ambiguous references, and board questions answered without a change
//! (AI-13 to AI-15).

use super::*;

/// Waits for the next `question` and returns it.
async fn question(c: &mut Client) -> Value {
    c.until_type("question").await
}

#[tokio::test]
async fn ai_13_deleting_others_work_asks_first_and_one_undo_reverts_it() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    run(&mut a, "a1", "create 3 notes").await;
    run(&mut b, "b1", "create a note saying Bob's idea").await;
    a.until_type("applied").await;
    let before = a.objects();
    assert_eq!(before.len(), 4);
    // Ann's "delete everything" would delete Bob's note: a question, nothing changes yet.
    ai(&mut a, "a2", "delete everything").await;
    let (r, seen) = result_of(&mut a, "a2").await;
    assert_eq!(r["outcome"], "clarification", "{r}");
    assert!(seen.iter().all(|v| v["type"] != "applied"));
    let q = question(&mut a).await;
    let item = &q["questions"][0];
    assert_eq!(item["name"], "confirm");
    assert!(
        item["question"].as_str().unwrap().contains("other people"),
        "{q}"
    );
    assert_eq!(item["buttons"][0]["label"], "Confirm");
    assert_eq!(item["buttons"][0]["value"], true);
    assert_eq!(item["buttons"][0]["variant"], "danger");
    assert_eq!(item["buttons"][1]["value"], false);
    assert_eq!(a.objects().len(), 4);
    // Cancel (by label, as an old client sends it): nothing changes.
    a.send(json!({"type":"answer","question_id":q["question_id"],"answers":{"confirm":"Cancel"}}))
        .await;
    let (r, _) = result_of(&mut a, q["question_id"].as_str().unwrap()).await;
    assert_eq!(r["outcome"], "executed", "{r}");
    assert!(r["seq"].is_null());
    assert!(r["message"].as_str().unwrap().contains("Cancelled"));
    assert_eq!(a.objects().len(), 4);
    // Confirm (by value): one command deletes all four; one undo brings them back.
    ai(&mut a, "a3", "delete everything").await;
    result_of(&mut a, "a3").await;
    let q = question(&mut a).await;
    a.send(json!({"type":"answer","question_id":q["question_id"],"answers":{"confirm":true}}))
        .await;
    let (r, seen) = result_of(&mut a, q["question_id"].as_str().unwrap()).await;
    assert_eq!(r["outcome"], "executed", "{r}");
    assert_eq!(seen.iter().filter(|v| v["type"] == "applied").count(), 1);
    assert!(a.objects().is_empty());
    a.send(json!({"type":"undo"})).await;
    a.until_type("applied").await;
    assert_eq!(a.objects().len(), 4);
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_14_an_ambiguous_name_asks_which_and_the_answer_picks_it() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let r = run(&mut a, "a1", "create 2 notes saying Login").await;
    let ids = created(&r);
    ai(&mut a, "a2", "delete Login").await;
    let (r, _) = result_of(&mut a, "a2").await;
    assert_eq!(r["outcome"], "clarification", "{r}");
    let q = question(&mut a).await;
    let item = &q["questions"][0];
    assert_eq!(item["name"], "which");
    let values: Vec<&str> = item["buttons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["value"].as_str().unwrap())
        .collect();
    let mut sorted = values.clone();
    sorted.sort();
    let mut want: Vec<&str> = ids.iter().map(String::as_str).collect();
    want.sort();
    assert_eq!(sorted, want);
    a.send(json!({"type":"answer","question_id":q["question_id"],"answers":{"which":values[1]}}))
        .await;
    let (r, _) = result_of(&mut a, q["question_id"].as_str().unwrap()).await;
    assert_eq!(r["outcome"], "executed", "{r}");
    let left: Vec<String> = a.objects().into_iter().map(|o| o.id.to_string()).collect();
    assert_eq!(left, vec![values[0].to_string()]);
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_15_board_questions_are_answered_without_a_change() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    run(&mut a, "a1", "create 2 red notes").await;
    run(&mut a, "a2", "create a blue circle").await;
    for (id, text, want) in [
        (
            "q1",
            "how many notes are there?",
            "There are 2 notes on the board.",
        ),
        (
            "q2",
            "which colors are used?",
            "Colors in use: red (2), blue (1).",
        ),
    ] {
        ai(&mut a, id, text).await;
        let (r, seen) = result_of(&mut a, id).await;
        assert_eq!(r["outcome"], "executed", "{r}");
        assert!(r["seq"].is_null(), "{r}");
        assert_eq!(r["message"], want);
        assert!(seen.iter().all(|v| v["type"] != "applied"));
    }
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}
