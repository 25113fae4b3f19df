//! Seed 000 R27 (tool schema tests) and DESIGN §7's tool list. Rule ids: SCHEMA-n.
#![allow(clippy::unwrap_used)]

use agent::StagedCall;
use agent::schema::{LayoutDirective, MAX_OPERATIONS, Operation};
use agent::tools::{ToolCall, ToolName, parameters, parse_call, tool_specs};
use protocol::Mode;
use serde_json::{Value, json};

fn note(r: &str) -> Value {
    json!({"op": "createNote", "ref": r, "text": "hi"})
}

fn batch(ops: Vec<Value>) -> Result<ToolCall, String> {
    parse_call("batchOperations", &json!({"operations": ops}).to_string())
}

#[test]
fn schema_1_tool_set_matches_design() {
    let build: Vec<&str> = tool_specs(Mode::Build).iter().map(|t| t.name).collect();
    assert_eq!(
        build,
        [
            "getBoardState",
            "batchOperations",
            "updateElements",
            "layoutElements",
            "deleteElements",
            "duplicateElements",
            "askUser"
        ]
    );
    let plan: Vec<&str> = tool_specs(Mode::Plan).iter().map(|t| t.name).collect();
    assert!(plan.contains(&"exitPlanMode") && plan.contains(&"writePlan"));
    assert_eq!(plan.len(), 9);
}

#[test]
fn schema_2_descriptions_tool_to_use_when() {
    for t in tool_specs(Mode::Plan) {
        assert!(t.description.starts_with("Tool to "), "{}", t.name);
        assert!(t.description.contains(". Use when "), "{}", t.name);
    }
    let b = ToolName::BatchOperations.description();
    assert!(b.contains("Use ref IDs to reference objects within the same batch. Parents must appear before children. Objects must appear before connectors that reference them."));
}

#[test]
fn schema_3_rejects_empty_operations() {
    assert!(batch(vec![]).is_err());
}

#[test]
fn schema_4_accepts_1_to_50_rejects_51() {
    assert!(batch(vec![note("n_1")]).is_ok());
    let fifty: Vec<Value> = (0..MAX_OPERATIONS)
        .map(|i| note(&format!("n_{i}")))
        .collect();
    assert!(batch(fifty).is_ok());
    let many: Vec<Value> = (0..=MAX_OPERATIONS)
        .map(|i| note(&format!("n_{i}")))
        .collect();
    let e = batch(many).unwrap_err();
    assert!(!e.is_empty());
    assert_eq!(MAX_OPERATIONS, 50);
    let schema = parameters(ToolName::BatchOperations);
    assert_eq!(schema["properties"]["operations"]["maxItems"], json!(50));
    assert_eq!(schema["properties"]["operations"]["minItems"], json!(1));
}

#[test]
fn schema_5_each_operation_kind_accepted() {
    let ops = vec![
        json!({"op": "createFrame", "ref": "frame_a", "name": "A", "color": "gray"}),
        json!({"op": "createNote", "ref": "note_a", "text": "x", "parentRef": "frame_a"}),
        json!({"op": "createShape", "ref": "shape_a", "geo": "diamond", "text": "t", "x": 10, "y": "20", "w": 100, "h": 80}),
        json!({"op": "createText", "ref": "text_a", "text": "title"}),
        json!({"op": "createConnector", "ref": "conn_a", "fromRef": "note_a", "toRef": "shape_a", "label": "go"}),
    ];
    let ToolCall::Write(StagedCall::BatchOperations(b)) = batch(ops).unwrap() else {
        panic!()
    };
    assert_eq!(b.operations.len(), 5);
    assert!(matches!(b.operations[4], Operation::CreateConnector(_)));
    // Numeric strings are coerced (AC-2).
    let Operation::CreateShape(s) = &b.operations[2] else {
        panic!()
    };
    assert_eq!(s.geometry.y, Some(20.0));
}

#[test]
fn schema_6_ref_rejects_empty_short_and_bad_chars() {
    assert!(batch(vec![note("")]).is_err());
    assert!(batch(vec![note("a")]).is_err());
    assert!(batch(vec![note("Note_A")]).is_err());
    assert!(batch(vec![note(&"a".repeat(41))]).is_err());
    assert!(batch(vec![note("ab")]).is_ok());
    let schema = parameters(ToolName::BatchOperations).to_string();
    assert!(schema.contains("^[a-z0-9_]{2,40}$"));
}

#[test]
fn schema_7_color_aliases_preprocessed() {
    let ops = vec![
        json!({"op": "createNote", "ref": "n1", "text": "x", "color": "purple"}),
        json!({"op": "createFrame", "ref": "f1", "name": "x", "color": "pink"}),
        json!({"op": "createShape", "ref": "s1", "color": "Light Blue"}),
        json!({"op": "createConnector", "ref": "c1", "fromRef": "n1", "toRef": "s1", "color": "grey"}),
    ];
    let ToolCall::Write(StagedCall::BatchOperations(b)) = batch(ops).unwrap() else {
        panic!()
    };
    let colors: Vec<String> = b
        .operations
        .clone()
        .into_iter()
        .map(|mut o| o.color_mut().clone().unwrap())
        .collect();
    assert_eq!(colors, ["violet", "light-red", "light-blue", "gray"]);
    let u = parse_call(
        "updateElements",
        r#"{"updates":[{"id":"abc","color":"lavender"}]}"#,
    )
    .unwrap();
    let ToolCall::Write(StagedCall::UpdateElements(u)) = u else {
        panic!()
    };
    assert_eq!(u.updates[0].color.as_deref(), Some("light-violet"));
}

#[test]
fn schema_8_connector_requires_both_ends() {
    let base = |extra: Value| {
        let mut c = json!({"op": "createConnector", "ref": "c1"});
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        batch(vec![note("n1"), note("n2"), c])
    };
    assert!(base(json!({"fromRef": "n1"})).is_err());
    assert!(base(json!({"toRef": "n2"})).is_err());
    assert!(base(json!({})).is_err());
    assert!(base(json!({"fromRef": "n1", "toRef": "n2"})).is_ok());
    assert!(base(json!({"fromId": "existing-1", "toRef": "n2"})).is_ok());
}

#[test]
fn schema_9_layout_directive_values() {
    for d in LayoutDirective::ALL {
        let args = json!({"operations": [note("n1")], "layoutDirective": d.as_str()});
        let r = parse_call("batchOperations", &args.to_string());
        assert!(r.is_ok(), "{}", d.as_str());
    }
    let bad = json!({"operations": [note("n1")], "layoutDirective": "spiral"});
    assert!(parse_call("batchOperations", &bad.to_string()).is_err());
    assert_eq!(LayoutDirective::ALL.len(), 8);
}

#[test]
fn schema_10_tool_result_has_tool_and_observation() {
    let args =
        json!({"operations": [note("n1"), note("n2")], "layoutDirective": "grid", "title": "T"});
    let ToolCall::Write(call) = parse_call("batchOperations", &args.to_string()).unwrap() else {
        panic!()
    };
    let v = call.tool_result();
    assert_eq!(v["tool"], "batchOperations");
    assert_eq!(
        v["_observation"],
        "Batch of 2 operations with layout directive grid"
    );
    assert_eq!(v["title"], "T");
    assert_eq!(v["operations"].as_array().unwrap().len(), 2);
    assert_eq!(v["valid"], true);
}

#[test]
fn schema_11_other_tools_parse_and_check() {
    assert!(
        parse_call(
            "layoutElements",
            r#"{"ids":["a"],"layout":"circle","spacing":"30"}"#
        )
        .is_ok()
    );
    assert!(parse_call("layoutElements", r#"{"ids":["a"],"layout":"spiral"}"#).is_err());
    assert!(parse_call("deleteElements", r#"{"ids":[]}"#).is_err());
    assert!(parse_call("duplicateElements", r#"{"ids":["a"],"dx":40}"#).is_ok());
    assert!(
        parse_call(
            "updateElements",
            r#"{"updates":[{"id":"a","dx":"100","scale":2}]}"#
        )
        .is_ok()
    );
    assert!(parse_call("getBoardState", "").is_ok());
    assert!(
        parse_call(
            "askUser",
            r#"{"questions":[{"name":"c","question":"ok?","schema":{"type":"boolean"}}]}"#
        )
        .is_ok()
    );
    assert!(parse_call("exitPlanMode", r#"{"plan_file_path":"/plans/x.plan"}"#).is_ok());
    assert!(parse_call("noSuchTool", "{}").is_err());
    assert!(parse_call("batchOperations", "not json").is_err());
}
