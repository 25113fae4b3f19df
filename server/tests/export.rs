//! Export and import of boards as files over real HTTP against the real server on port 0
//! (rules EXPORT-n in docs/SPEC.md).
#![allow(clippy::unwrap_used)]

mod common;

use common::http::{admin, get_bytes, mint, request};
use common::*;
use serde_json::{Value, json};
use std::net::SocketAddr;

/// A GET whose body may be binary: status, lowercase headers, body bytes.
async fn get(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    get_bytes(addr, path, headers, std::time::Duration::from_secs(30)).await
}

fn header<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
    h.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn bearer(t: &str) -> String {
    format!("Bearer {t}")
}

/// The width and height of a PNG (from its IHDR chunk).
fn png_size(b: &[u8]) -> (u32, u32) {
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    (be(16), be(20))
}

/// A board with a frame holding a note, a shape, and a connector between note and shape.
async fn populate(c: &mut Client) {
    let r = c
        .commit(
            "c1",
            json!([
                {"op":"create","object":{"id":"f1","kind":"frame","x":0,"y":0,"w":400,"h":300,"text":"Plan"}},
                {"op":"create","object":{"id":"n1","kind":"note","x":20,"y":40,"text":"hello","parent":"f1"}},
                {"op":"create","object":{"id":"s1","kind":"shape","geo":"star","x":600,"y":40,"color":"red"}},
                {"op":"create","object":{"id":"c1","kind":"connector","from":{"id":"n1"},"to":{"id":"s1"},"text":"to"}},
                {"op":"create","object":{"id":"n2","kind":"note","x":900,"y":40}}
            ]),
        )
        .await;
    assert_eq!(r["type"], "applied", "{r}");
}

/// The durable objects of a board, as `GET /api/boards/{id}` gives them.
async fn objects(addr: SocketAddr, board: &str) -> Vec<protocol::BoardObject> {
    let a = admin(addr, "GET", &format!("/api/boards/{board}"), None).await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    serde_json::from_value(a.json["objects"].clone()).unwrap()
}

#[tokio::test]
async fn export_1_every_format_for_viewers() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "exp1", "ann").await;
    populate(&mut ann).await;
    let viewer = mint(s.addr, "vic", "exp1", "viewer").await;
    let auth = bearer(&viewer);
    let h = [("Authorization", auth.as_str())];

    let (status, head, body) = get(s.addr, "/api/boards/exp1/export.svg", &h).await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-type"), Some("image/svg+xml"));
    assert!(
        header(&head, "content-disposition")
            .unwrap()
            .starts_with("attachment")
    );
    // The same drawing the renderer makes of the board's objects (EXPORT-1, EXPORT-3).
    let want = render::svg(&objects(s.addr, "exp1").await, &render::Options::default());
    assert_eq!(String::from_utf8(body).unwrap(), want);

    let (status, head, body) = get(s.addr, "/api/boards/exp1/export.png", &h).await;
    assert_eq!(
        (status, header(&head, "content-type")),
        (200, Some("image/png"))
    );
    let (w, hgt) = png_size(&body);
    let (status, _, big) = get(s.addr, "/api/boards/exp1/export.png?scale=2", &h).await;
    assert_eq!(status, 200);
    assert_eq!(png_size(&big), (w * 2, hgt * 2));

    let (status, head, body) = get(s.addr, "/api/boards/exp1/export.pdf", &h).await;
    assert_eq!(
        (status, header(&head, "content-type")),
        (200, Some("application/pdf"))
    );
    assert!(body.starts_with(b"%PDF-"));

    let (status, head, body) = get(s.addr, "/api/boards/exp1/export.json", &h).await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-type"), Some("application/json"));
    let file: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (file["format"].as_str(), file["version"].as_u64()),
        (Some("board"), Some(1))
    );
    assert_eq!(file["board"]["id"], "exp1");
    assert_eq!(file["objects"].as_array().unwrap().len(), 5);
    assert!(file["exported_at"].as_i64().unwrap() > 1_600_000_000_000);

    // The same export again: 304 by ETag (EXPORT-9).
    let (status, head, _) = get(s.addr, "/api/boards/exp1/export.svg?preview=1", &h).await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "content-disposition"), Some("inline"));
    let etag = header(&head, "etag").unwrap().to_owned();
    let h2 = [
        ("Authorization", auth.as_str()),
        ("If-None-Match", etag.as_str()),
    ];
    let (status, _, _) = get(s.addr, "/api/boards/exp1/export.svg?preview=1", &h2).await;
    assert_eq!(status, 304);
    assert_no_violations(&s);
}

#[tokio::test]
async fn export_1_roles_are_checked() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "exp2", "ann").await;
    populate(&mut ann).await;
    for ext in ["svg", "png", "pdf", "json"] {
        let path = format!("/api/boards/exp2/export.{ext}");
        let (status, _, _) = get(s.addr, &path, &[]).await;
        assert_eq!(status, 401, "{ext} without a credential");
        let other = mint(s.addr, "eve", "elsewhere", "owner").await;
        let auth = bearer(&other);
        let (status, _, _) = get(s.addr, &path, &[("Authorization", auth.as_str())]).await;
        assert_eq!(
            status, 404,
            "{ext} with no role on the board answers like no board"
        );
    }
    // Import needs an editor (EXPORT-8).
    let viewer = mint(s.addr, "vic", "exp2", "viewer").await;
    let file = json!({"format":"board","version":1,"objects":[{"kind":"note"}]}).to_string();
    let a = request(
        s.addr,
        "POST",
        "/api/boards/exp2/import",
        &[("Authorization", &bearer(&viewer))],
        Some(&file),
    )
    .await;
    assert_eq!(a.status, 403, "{:?}", a.json);
    assert_eq!(a.json["error"]["code"], "forbidden");
}

#[tokio::test]
async fn export_9_selection_and_version_export_5_scale() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "exp3", "ann").await;
    populate(&mut ann).await;
    let t = mint(s.addr, "vic", "exp3", "viewer").await;
    let auth = bearer(&t);
    let h = [("Authorization", auth.as_str())];
    let svg = |b: Vec<u8>| String::from_utf8(b).unwrap();

    // A frame brings its contents; the connector between two chosen objects comes along.
    let (status, _, body) = get(s.addr, "/api/boards/exp3/export.svg?selection=f1,s1", &h).await;
    assert_eq!(status, 200);
    let body = svg(body);
    for id in ["f1", "n1", "s1", "c1"] {
        assert!(
            body.contains(&format!("data-id=\"{id}\"")),
            "{id} in {body}"
        );
    }
    assert!(!body.contains("data-id=\"n2\""));
    let (_, _, body) = get(s.addr, "/api/boards/exp3/export.svg?selection=n1", &h).await;
    let body = svg(body);
    assert!(body.contains("data-id=\"n1\"") && !body.contains("data-id=\"c1\""));
    let (_, _, body) = get(s.addr, "/api/boards/exp3/export.json?selection=s1", &h).await;
    let file: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(file["objects"].as_array().unwrap().len(), 1);

    for (path, what) in [
        (
            "/api/boards/exp3/export.svg?selection=n1,nope",
            "no object nope",
        ),
        ("/api/boards/exp3/export.png?selection=", "selection"),
        ("/api/boards/exp3/export.png?scale=9", "scale"),
        ("/api/boards/exp3/export.png?scale=abc", "scale"),
    ] {
        let (status, _, body) = get(s.addr, path, &h).await;
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (400, Some("invalid")),
            "{path}"
        );
        assert!(
            v["error"]["message"].as_str().unwrap().contains(what),
            "{path}: {v}"
        );
    }
    // `?version=` draws a saved version (HIST-1): the board as it was, not as it is.
    let editor = bearer(&mint(s.addr, "ann", "exp3", "editor").await);
    let eh = [("Authorization", editor.as_str())];
    let saved = request(
        s.addr,
        "POST",
        "/api/boards/exp3/versions",
        &eh,
        Some(r#"{"name":"v"}"#),
    )
    .await;
    assert_eq!(saved.status, 201, "{:?}", saved.json);
    let v = saved.json["id"].as_u64().unwrap();
    let n = ann.commit("del", json!([{"op":"delete","id":"n2"}])).await;
    assert_eq!(n["type"], "applied");
    let (status, _, body) = get(
        s.addr,
        &format!("/api/boards/exp3/export.json?version={v}"),
        &h,
    )
    .await;
    assert_eq!(status, 200);
    let file: Value = serde_json::from_slice(&body).unwrap();
    assert!(
        file["objects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["id"] == "n2")
    );
    let (_, _, body) = get(s.addr, "/api/boards/exp3/export.json", &h).await;
    let file: Value = serde_json::from_slice(&body).unwrap();
    assert!(
        !file["objects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["id"] == "n2")
    );
    let (status, _, _) = get(s.addr, "/api/boards/exp3/export.svg?version=999", &h).await;
    assert_eq!(status, 404);
    assert_no_violations(&s);
}

#[tokio::test]
async fn export_7_a_board_file_makes_a_new_board() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "exp4", "ann").await;
    populate(&mut ann).await;
    let auth = bearer(admin_token());
    let (_, _, body) = get(
        s.addr,
        "/api/boards/exp4/export.json",
        &[("Authorization", &auth)],
    )
    .await;
    let file = String::from_utf8(body).unwrap();
    let a = admin(s.addr, "POST", "/api/boards", Some(&file)).await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    assert_eq!(a.json["objects"], 5);
    let new = a.json["board"].as_str().unwrap().to_owned();
    let strip = |mut v: Vec<protocol::BoardObject>| {
        for o in &mut v {
            o.version = 0;
        }
        v.sort_by(|a, b| a.id.as_str().cmp(b.id.as_str()));
        v
    };
    assert_eq!(
        strip(objects(s.addr, &new).await),
        strip(objects(s.addr, "exp4").await)
    );
    // A newer format version is refused with a stable code.
    let newer = json!({"format":"board","version":3,"objects":[]}).to_string();
    let a = admin(s.addr, "POST", "/api/boards", Some(&newer)).await;
    assert_eq!(
        (a.status, a.json["error"]["code"].as_str()),
        (400, Some("invalid"))
    );
}

#[tokio::test]
async fn export_8_import_is_one_undoable_command_in_open_space() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "exp5", "ann").await;
    populate(&mut ann).await;
    let before = ann.objects();
    let file =
        json!({"format":"board","version":1,"board":{"id":"x","title":"X"},"seq":1,"exported_at":0,
        "objects":[
            {"id":"F","kind":"frame","x":0,"y":0,"w":300,"h":200,"text":"Imported"},
            {"id":"A","kind":"note","x":20,"y":30,"parent":"F","text":"a"},
            {"id":"B","kind":"shape","x":200,"y":30,"w":80,"h":60},
            {"id":"L","kind":"connector","from":{"id":"A"},"to":{"id":"B"}},
            {"id":"G","kind":"connector","from":{"id":"A"},"to":{"id":"elsewhere"}}
        ]})
        .to_string();
    let token = mint(s.addr, "ann", "exp5", "editor").await;
    let a = request(
        s.addr,
        "POST",
        "/api/boards/exp5/import",
        &[("Authorization", &bearer(&token))],
        Some(&file),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    assert_eq!(a.json["skipped"], 1);
    let created: Vec<String> = a.json["created"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(created.len(), 4);
    // One `applied` by ann with every create.
    let applied = ann.until_type("applied").await;
    assert_eq!(applied["command"]["author"], "ann");
    assert_eq!(applied["command"]["ops"].as_array().unwrap().len(), 4);
    let by_id = |id: &str| ann.mirror.get(id).cloned().unwrap();
    let (f, n, b, l) = (
        by_id(&created[0]),
        by_id(&created[1]),
        by_id(&created[2]),
        by_id(&created[3]),
    );
    assert!(!["F", "A", "B", "L"].contains(&f.id.as_str()), "fresh ids");
    assert_eq!(n.parent.as_ref(), Some(&f.id));
    assert_eq!(l.from.as_ref().and_then(|e| e.bound_id()), Some(&n.id));
    assert_eq!(l.to.as_ref().and_then(|e| e.bound_id()), Some(&b.id));
    // Moved together into open space: nothing imported overlaps what was there.
    assert_eq!((n.x - f.x, n.y - f.y), (20.0, 30.0));
    for new in [&f, &n, &b] {
        for old in before
            .iter()
            .filter(|o| o.kind != protocol::Kind::Connector)
        {
            let apart = new.x + new.w <= old.x
                || old.x + old.w <= new.x
                || new.y + new.h <= old.y
                || old.y + old.h <= new.y;
            assert!(apart, "{} overlaps {}", new.id, old.id);
        }
    }
    // Ann's undo takes the whole import back.
    ann.send(json!({"type":"undo"})).await;
    let u = ann.until_type("applied").await;
    assert_eq!(u["command"]["origin"], "undo");
    assert_eq!(ann.objects(), before);
    // A file that is not one: stable codes.
    let auth = bearer(&token);
    for (body, code) in [
        ("{", "bad_json"),
        (
            r#"{"format":"board","version":1,"objects":[{"kind":"blob"}]}"#,
            "invalid",
        ),
        (r#"{"objects":[]}"#, "invalid"),
    ] {
        let a = request(
            s.addr,
            "POST",
            "/api/boards/exp5/import",
            &[("Authorization", &auth)],
            Some(body),
        )
        .await;
        assert_eq!(
            (a.status, a.json["error"]["code"].as_str()),
            (400, Some(code)),
            "{body}"
        );
    }
    assert_no_violations(&s);
}

#[tokio::test]
async fn export_8_without_sign_in_the_page_names_who_imports() {
    let mut cfg = config();
    cfg.auth = server::config::AuthMode::Off;
    cfg.admin_token = None;
    let s = start(cfg).await;
    let mut c = Client::join_with(s.addr, "open", "anyone", None).await;
    let file =
        json!({"format":"board","version":1,"objects":[{"id":"a","kind":"note"}]}).to_string();
    let a = request(
        s.addr,
        "POST",
        "/api/boards/open/import?as=anyone",
        &[],
        Some(&file),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let applied = c.until_type("applied").await;
    assert_eq!(applied["command"]["author"], "anyone");
    c.send(json!({"type":"undo"})).await;
    let u = c.until_type("applied").await;
    assert_eq!(u["command"]["origin"], "undo");
    assert!(c.objects().is_empty());
    s.shutdown().await.unwrap();
}
