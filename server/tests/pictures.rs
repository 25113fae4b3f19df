//! Pictures on boards (docs/SPEC.md ASSET-n): upload, the type from the bytes, limits, roles,
//! inert serving, images on the board only with registered pictures, copies across boards,
//! durability on SQLite and PostgreSQL. The real server in-process on port 0, real HTTP and
//! WebSockets; tokens as an app gets them.
#![allow(clippy::unwrap_used)]

mod common;

use common::http::{self, Answer, mint, send};
use common::*;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use serde_json::{Value, json};
use std::io::Cursor;
use std::net::SocketAddr;
use std::time::Duration;

fn encoded(img: DynamicImage, f: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, f).unwrap();
    out.into_inner()
}

/// A `w` x `h` PNG; `noise` makes it hard to compress (larger files).
fn png(w: u32, h: u32, noise: bool) -> Vec<u8> {
    let img = RgbImage::from_fn(w, h, |x, y| {
        let v = if noise {
            ((x * 7919 + y * 104_729) % 251) as u8
        } else {
            40
        };
        Rgb([v, v.wrapping_mul(3), 200])
    });
    encoded(DynamicImage::ImageRgb8(img), ImageFormat::Png)
}

async fn upload(addr: SocketAddr, board: &str, token: &str, bytes: &[u8], ctype: &str) -> Answer {
    let b = format!("Bearer {token}");
    let path = format!("/api/boards/{board}/assets");
    send(
        addr,
        "POST",
        &path,
        &[("Authorization", &b), ("Content-Type", ctype)],
        bytes,
    )
    .await
}

async fn get(addr: SocketAddr, path: &str, token: &str, extra: &[(&str, &str)]) -> http::Answer {
    let b = format!("Bearer {token}");
    let mut h = vec![("Authorization", b.as_str())];
    h.extend_from_slice(extra);
    http::request(addr, "GET", path, &h, None).await
}

fn image_op(id: &str, asset: &str) -> Value {
    json!({"op":"create","object":{"id":id,"kind":"image","x":0,"y":0,"w":300,"h":200,"asset":asset}})
}

/// ASSET-1, ASSET-8: an editor uploads a picture (201, then 200 for the same bytes); a viewer
/// reads it back byte for byte, served inert (`nosniff`, a CSP that runs nothing, same-origin,
/// cached for good under its hash, 304 on a matching ETag); the list shows it.
#[tokio::test]
async fn asset_1_an_upload_is_stored_once_and_served_inert() {
    let s = start(config()).await;
    let _board = Client::join(s.addr, "pics", "ann").await;
    let ed = mint(s.addr, "ann", "pics", "editor").await;
    let bytes = png(30, 20, false);
    let a = upload(s.addr, "pics", &ed, &bytes, "image/png").await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    let sha = a.json["sha256"].as_str().unwrap().to_owned();
    assert_eq!(sha.len(), 64);
    assert_eq!(
        (
            &a.json["mime"],
            &a.json["w"],
            &a.json["h"],
            &a.json["animated"]
        ),
        (&json!("image/png"), &json!(30), &json!(20), &json!(false))
    );
    let again = upload(s.addr, "pics", &ed, &bytes, "image/png").await;
    assert_eq!(again.status, 200, "{:?}", again.json);
    assert_eq!(again.json["sha256"], sha.as_str());

    let viewer = mint(s.addr, "vic", "pics", "viewer").await;
    let auth = format!("Bearer {viewer}");
    let path = format!("/api/boards/pics/assets/{sha}");
    let (status, headers, body) = http::get_bytes(
        s.addr,
        &path,
        &[("Authorization", &auth)],
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body, bytes);
    let header = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    assert_eq!(header("content-type"), "image/png");
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert!(header("content-security-policy").starts_with("default-src 'none'"));
    assert!(header("content-security-policy").contains("sandbox"));
    assert_eq!(header("cross-origin-resource-policy"), "same-origin");
    assert!(header("cache-control").contains("immutable"));
    let etag = header("etag");
    let r = get(s.addr, &path, &viewer, &[("If-None-Match", &etag)]).await;
    assert_eq!(r.status, 304);
    let list = get(s.addr, "/api/boards/pics/assets", &viewer, &[]).await;
    assert_eq!(list.json["assets"][0]["sha256"], sha.as_str());
    assert_eq!(list.json["assets"][0]["in_use"], false);
    s.shutdown().await.unwrap();
}

/// ASSET-2: the type comes from the bytes: HTML sent as `image/png` is 415 `unsupported_media`,
/// GIF bytes named `.png` are `image/gif`, a HEIC asks to be converted; a form's content type is
/// refused (a page on another site could send it unasked).
#[tokio::test]
async fn asset_2_the_type_comes_from_the_bytes() {
    let s = start(config()).await;
    let _board = Client::join(s.addr, "types", "ann").await;
    let ed = mint(s.addr, "ann", "types", "editor").await;
    let html = b"<html><body><script>alert(1)</script></body></html>";
    let a = upload(s.addr, "types", &ed, html, "image/png").await;
    assert_eq!(a.status, 415, "{:?}", a.json);
    assert_eq!(a.json["error"]["code"], "unsupported_media");
    let gif = encoded(DynamicImage::new_rgb8(5, 4), ImageFormat::Gif);
    let b = format!("Bearer {ed}");
    let path = "/api/boards/types/assets";
    let h = [
        ("Authorization", b.as_str()),
        ("Content-Type", "image/png"),
        ("X-File-Name", "photo.png"),
    ];
    let a = send(s.addr, "POST", path, &h, &gif).await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    assert_eq!(a.json["mime"], "image/gif");
    let heic = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic";
    let a = upload(s.addr, "types", &ed, heic, "image/heic").await;
    assert_eq!(a.status, 415);
    assert!(
        a.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("PNG or JPEG")
    );
    let a = upload(s.addr, "types", &ed, &png(2, 2, false), "text/plain").await;
    assert_eq!(a.status, 403, "{:?}", a.json);
    s.shutdown().await.unwrap();
}

/// ASSET-3: roles: a viewer may read but not upload; someone without a role on the board gets
/// 404 for its pictures; a picture registered on another board is 404 here like an unknown one,
/// until it is copied here by someone who may read the other board.
#[tokio::test]
async fn asset_3_roles_and_boards_keep_pictures_apart() {
    let s = start(config()).await;
    let _mine = Client::join(s.addr, "mine", "ann").await;
    let _theirs = Client::join(s.addr, "theirs", "eve").await;
    let ed = mint(s.addr, "ann", "mine", "editor").await;
    let viewer = mint(s.addr, "vic", "mine", "viewer").await;
    let outsider = mint(s.addr, "eve", "theirs", "editor").await;
    let a = upload(s.addr, "mine", &viewer, &png(3, 3, false), "image/png").await;
    assert_eq!(a.status, 403, "{:?}", a.json);
    let a = upload(s.addr, "mine", &ed, &png(3, 3, false), "image/png").await;
    let sha = a.json["sha256"].as_str().unwrap().to_owned();
    let r = get(
        s.addr,
        &format!("/api/boards/mine/assets/{sha}"),
        &outsider,
        &[],
    )
    .await;
    assert_eq!(r.status, 404);
    let theirs = upload(s.addr, "theirs", &outsider, &png(4, 4, false), "image/png").await;
    let other = theirs.json["sha256"].as_str().unwrap().to_owned();
    let r = get(
        s.addr,
        &format!("/api/boards/mine/assets/{other}"),
        &ed,
        &[],
    )
    .await;
    assert_eq!(r.status, 404);
    let body = json!({"from_board": "theirs", "sha256": other}).to_string();
    let r = http::request(
        s.addr,
        "POST",
        "/api/boards/mine/assets/copy",
        &[("Authorization", &format!("Bearer {ed}"))],
        Some(&body),
    )
    .await;
    assert_eq!(
        r.status, 404,
        "ann may not read the other board: {:?}",
        r.json
    );
    let r = http::admin(s.addr, "POST", "/api/boards/mine/assets/copy", Some(&body)).await;
    assert_eq!(r.status, 201, "{:?}", r.json);
    let r = get(
        s.addr,
        &format!("/api/boards/mine/assets/{other}"),
        &viewer,
        &[],
    )
    .await;
    assert_eq!(r.status, 200);
    s.shutdown().await.unwrap();
}

/// ASSET-5: limits: a body over `--max-asset-bytes` is 413 `too_large`; pictures past
/// `--max-board-asset-bytes` on one board are 413 `limit_exceeded`; a picture declaring more
/// than `--max-asset-pixels` is 400 `invalid` before it is decoded.
#[tokio::test]
async fn asset_5_limits_on_bytes_board_bytes_and_pixels() {
    let mut c = config();
    c.max_asset_bytes = 20_000;
    c.max_board_asset_bytes = 30_000;
    c.max_asset_pixels = 1_000_000;
    let s = start(c).await;
    let _board = Client::join(s.addr, "full", "ann").await;
    let ed = mint(s.addr, "ann", "full", "editor").await;
    let big = png(200, 200, true);
    assert!(big.len() > 20_000, "{}", big.len());
    let a = upload(s.addr, "full", &ed, &big, "image/png").await;
    assert_eq!(a.status, 413, "{:?}", a.json);
    assert_eq!(a.json["error"]["code"], "too_large");
    let mid = |seed: u32| png(70 + seed, 70, true);
    assert!(
        mid(0).len() > 10_000 && mid(0).len() < 20_000,
        "{}",
        mid(0).len()
    );
    for seed in 0..2 {
        let a = upload(s.addr, "full", &ed, &mid(seed), "image/png").await;
        assert_eq!(a.status, 201, "{:?}", a.json);
    }
    let a = upload(s.addr, "full", &ed, &mid(2), "image/png").await;
    assert_eq!(a.status, 413, "{:?}", a.json);
    assert_eq!(a.json["error"]["code"], "limit_exceeded");
    // A PNG header declaring 100,000 x 100,000 pixels.
    let mut bomb = png(1, 1, false);
    bomb[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    bomb[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let crc = crc32fast::hash(&bomb[12..29]);
    bomb[29..33].copy_from_slice(&crc.to_be_bytes());
    let a = upload(s.addr, "full", &ed, &bomb, "image/png").await;
    assert_eq!(a.status, 400, "{:?}", a.json);
    assert_eq!(a.json["error"]["code"], "invalid");
    s.shutdown().await.unwrap();
}

/// ASSET-7: an image on the board must name a picture registered on that board: an unknown
/// hash is `rejected` `invalid`; an uploaded one is applied for everyone, and undone and redone
/// like any command.
#[tokio::test]
async fn asset_7_images_name_only_pictures_of_their_board() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "gallery", "ann").await;
    let mut bob = Client::join(s.addr, "gallery", "bob").await;
    let unknown = "a".repeat(64);
    let r = ann.commit("c1", json!([image_op("img", &unknown)])).await;
    assert_eq!(r["type"], "rejected", "{r}");
    assert_eq!(r["error"]["code"], "invalid");
    let r = ann
        .commit("c2", json!([image_op("img", "not-a-hash")]))
        .await;
    assert_eq!(r["error"]["code"], "invalid", "{r}");
    let ed = mint(s.addr, "ann", "gallery", "editor").await;
    let a = upload(s.addr, "gallery", &ed, &png(8, 6, false), "image/png").await;
    let sha = a.json["sha256"].as_str().unwrap().to_owned();
    let r = ann.commit("c3", json!([image_op("img", &sha)])).await;
    assert_eq!(r["type"], "applied", "{r}");
    bob.catch_up(1).await;
    let img = bob
        .objects()
        .into_iter()
        .find(|o| o.id.as_str() == "img")
        .unwrap();
    assert_eq!(img.asset.as_deref(), Some(sha.as_str()));
    let alt = json!([{"op":"update","id":"img","set":{"alt":"the team","crop":{"x":0.1,"y":0,"w":0.5,"h":1}}}]);
    assert_eq!(ann.commit("c4", alt).await["type"], "applied");
    ann.send(json!({"type":"undo"})).await;
    let m = ann.until(|m| m["type"] == "applied").await;
    assert_eq!(m["command"]["origin"], "undo");
    ann.send(json!({"type":"redo"})).await;
    let m = ann.until(|m| m["type"] == "applied").await;
    assert_eq!(m["command"]["origin"], "redo");
    let img = ann
        .objects()
        .into_iter()
        .find(|o| o.id.as_str() == "img")
        .unwrap();
    assert_eq!(img.alt, "the team");
    let list = get(s.addr, "/api/boards/gallery/assets", &ed, &[]).await;
    assert_eq!(list.json["assets"][0]["in_use"], true, "{:?}", list.json);
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

/// ASSET-8: a picture answered `201` is durable: after a restart on the same data directory
/// (SQLite: a file under `assets/`) or the same PostgreSQL schema it is served byte for byte.
#[tokio::test]
async fn asset_8_pictures_survive_a_restart_on_sqlite_and_postgresql() {
    let dir = std::env::temp_dir().join(format!("board-pics-{}", uuid::Uuid::new_v4()));
    let mut c = config();
    c.memory_store = false;
    c.data_dir = dir.clone();
    let mut configs = vec![c];
    let schema = common::pg::pg_schema();
    if !common::pg::no_pg() {
        configs.push(common::pg::pg_config(&schema));
    }
    for c in configs {
        let bytes = png(12, 9, true);
        let s = start(c.clone()).await;
        let mut ann = Client::join(s.addr, "kept", "ann").await;
        assert_eq!(
            ann.commit("c1", json!([note("n", 0.0, 0.0)])).await["type"],
            "applied"
        );
        drop(ann);
        let ed = mint(s.addr, "ann", "kept", "editor").await;
        let a = upload(s.addr, "kept", &ed, &bytes, "image/png").await;
        assert_eq!(a.status, 201, "{:?}", a.json);
        let sha = a.json["sha256"].as_str().unwrap().to_owned();
        s.shutdown().await.unwrap();
        let s = start(c).await;
        let ed = mint(s.addr, "ann", "kept", "editor").await;
        let auth = format!("Bearer {ed}");
        let path = format!("/api/boards/kept/assets/{sha}");
        let (status, _, body) = http::get_bytes(
            s.addr,
            &path,
            &[("Authorization", &auth)],
            Duration::from_secs(5),
        )
        .await;
        assert_eq!((status, body == bytes), (200, true));
        s.shutdown().await.unwrap();
    }
    common::pg::drop_schema(&schema).await;
    let _ = std::fs::remove_dir_all(dir);
}

/// The size of the first picture an SVG embeds as a `data:` URI.
fn embedded_size(svg: &str) -> (u32, u32) {
    use base64::Engine as _;
    let at = svg
        .find("href=\"data:image/png;base64,")
        .expect("a data: URI")
        + 28;
    let end = at + svg[at..].find('"').unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&svg[at..end])
        .unwrap();
    image::load_from_memory(&bytes)
        .unwrap()
        .to_rgb8()
        .dimensions()
}

/// ASSET-10: exports draw pictures: the SVG export embeds the picture as a `data:` URI, and the
/// PNG export's pixels inside the image show the picture's color. The board's thumbnail embeds
/// the picture's preview instead.
#[tokio::test]
async fn asset_10_exports_draw_the_pictures() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "drawn", "ann").await;
    let ed = mint(s.addr, "ann", "drawn", "editor").await;
    let red = encoded(
        DynamicImage::ImageRgb8(RgbImage::from_pixel(1500, 1000, Rgb([220, 20, 20]))),
        ImageFormat::Png,
    );
    let a = upload(s.addr, "drawn", &ed, &red, "image/png").await;
    let sha = a.json["sha256"].as_str().unwrap().to_owned();
    let r = ann.commit("c1", json!([image_op("img", &sha)])).await;
    assert_eq!(r["type"], "applied", "{r}");
    let auth = format!("Bearer {ed}");
    let h = [("Authorization", auth.as_str())];
    let within = Duration::from_secs(30);
    let (status, _, svg) =
        http::get_bytes(s.addr, "/api/boards/drawn/export.svg", &h, within).await;
    assert_eq!(status, 200);
    let svg = String::from_utf8(svg).unwrap();
    assert_eq!(embedded_size(&svg), (1500, 1000));
    let (status, _, thumb) =
        http::get_bytes(s.addr, "/api/boards/drawn/export.svg?preview=1", &h, within).await;
    assert_eq!(status, 200);
    assert_eq!(
        embedded_size(&String::from_utf8(thumb).unwrap()),
        (1024, 683)
    );
    let (status, _, png) =
        http::get_bytes(s.addr, "/api/boards/drawn/export.png", &h, within).await;
    assert_eq!(status, 200);
    let img = image::load_from_memory(&png).unwrap().to_rgb8();
    // The image (300 x 200) sits at the drawing's margin; its middle is red.
    let (w, h) = img.dimensions();
    let px = img.get_pixel(w / 2, h / 2);
    assert!(
        px[0] > 180 && px[1] < 80 && px[2] < 80,
        "middle pixel {px:?}"
    );
    s.shutdown().await.unwrap();
}

/// ASSET-8 (crash): the real binary on SQLite is killed (SIGKILL) right after answering `201`
/// for a picture: after a restart on the same data directory the picture is served whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asset_8_a_picture_answered_201_survives_sigkill() {
    let dir = std::env::temp_dir().join(format!("board-pics-kill-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let args = vec!["--data-dir".to_owned(), dir.display().to_string()];
    let log = || std::fs::File::create(dir.join("server.log")).unwrap();
    let (mut child, addr) = common::process::spawn(&args, log(), "warn");
    let _board = Client::join(addr, "crash", "ann").await;
    let ed = mint(addr, "ann", "crash", "editor").await;
    let mut kept = Vec::new();
    for i in 0..5 {
        let bytes = png(20 + i, 10, true);
        let a = upload(addr, "crash", &ed, &bytes, "image/png").await;
        assert_eq!(a.status, 201, "{:?}", a.json);
        kept.push((a.json["sha256"].as_str().unwrap().to_owned(), bytes));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let (mut child, addr) = common::process::spawn(&args, log(), "warn");
    let ed = mint(addr, "ann", "crash", "editor").await;
    let auth = format!("Bearer {ed}");
    for (sha, bytes) in kept {
        let path = format!("/api/boards/crash/assets/{sha}");
        let h = [("Authorization", auth.as_str())];
        let (status, _, body) = http::get_bytes(addr, &path, &h, Duration::from_secs(5)).await;
        assert_eq!((status, body == bytes), (200, true), "{sha}");
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(dir);
}

/// The status of `GET` of picture `sha` on `board`.
async fn status_of(addr: SocketAddr, board: &str, sha: &str, token: &str) -> u16 {
    let path = format!("/api/boards/{board}/assets/{sha}");
    get(addr, &path, token, &[]).await.status
}

/// Waits (up to 20 s) until picture `sha` on `board` answers `want`.
async fn until_status(addr: SocketAddr, board: &str, sha: &str, token: &str, want: u16) {
    for _ in 0..100 {
        if status_of(addr, board, sha, token).await == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("picture {sha} never answered {want}");
}

/// Uploads `bytes` to `board`; its hash.
async fn uploaded(addr: SocketAddr, board: &str, token: &str, bytes: &[u8]) -> String {
    let a = upload(addr, board, token, bytes, "image/png").await;
    assert!(a.status == 201 || a.status == 200, "{:?}", a.json);
    a.json["sha256"].as_str().unwrap().to_owned()
}

/// Restores version `v` of `board` as the holder of `token`.
async fn restore(addr: SocketAddr, board: &str, token: &str, v: u64) {
    let auth = format!("Bearer {token}");
    let body = json!({ "version": v }).to_string();
    let path = format!("/api/boards/{board}/restore");
    let a = http::request(
        addr,
        "POST",
        &path,
        &[("Authorization", &auth)],
        Some(&body),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
}

/// ASSET-11: with a 1 s grace, a picture nothing uses is deleted (404, its file gone); one the
/// board shows stays; one only a running board's undo history holds stays until the board
/// unloads; one only a kept version holds stays, comes back with a restore, and goes once
/// retention prunes the version. On SQLite (where the file goes too) and PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asset_11_unused_pictures_go_after_the_grace_period() {
    let dir = std::env::temp_dir().join(format!("board-sweep-{}", uuid::Uuid::new_v4()));
    let mut c = config();
    c.memory_store = false;
    c.data_dir = dir.clone();
    sweep_case(c, Some(dir.clone())).await;
    let _ = std::fs::remove_dir_all(dir);
    if !common::pg::no_pg() {
        let schema = common::pg::pg_schema();
        sweep_case(common::pg::pg_config(&schema), None).await;
        common::pg::drop_schema(&schema).await;
    }
}

/// ASSET-11 on one store; `dir`: the SQLite data directory, whose files are checked.
async fn sweep_case(mut c: server::Config, dir: Option<std::path::PathBuf>) {
    c.asset_grace_secs = 1;
    c.idle_unload_secs = 1;
    let s = start(c).await;
    let board = "swept";
    let mut ann = Client::join(s.addr, board, "ann").await;
    let ed = mint(s.addr, "ann", board, "editor").await;
    let [a, b, cc, d] = [(5, 5), (6, 5), (7, 5), (8, 5)].map(|(w, h)| png(w, h, false));
    let (a, b, cc, d) = (
        uploaded(s.addr, board, &ed, &a).await,
        uploaded(s.addr, board, &ed, &b).await,
        uploaded(s.addr, board, &ed, &cc).await,
        uploaded(s.addr, board, &ed, &d).await,
    );
    let file_of = |sha: &str| {
        let d = dir.clone().unwrap_or_default();
        d.join("assets").join(&sha[..2]).join(sha)
    };
    assert_eq!(file_of(&a).exists(), dir.is_some());
    assert_eq!(
        ann.commit("p1", json!([image_op("b", &b)])).await["type"],
        "applied"
    );
    let saved = http::request(
        s.addr,
        "POST",
        &format!("/api/boards/{board}/versions"),
        &[("Authorization", &format!("Bearer {ed}"))],
        Some(r#"{"name":"only b"}"#),
    )
    .await;
    assert_eq!(saved.status, 201, "{:?}", saved.json);
    let only_b = saved.json["id"].as_u64().unwrap();
    let placed = json!([image_op("c", &cc), image_op("d", &d)]);
    assert_eq!(ann.commit("p2", placed).await["type"], "applied");
    let del = json!([{"op":"delete","id":"d"}]);
    assert_eq!(ann.commit("p3", del).await["type"], "applied");
    // The restore saves the board (b, c) as an automatic version first, then takes c away.
    restore(s.addr, board, &ed, only_b).await;

    until_status(s.addr, board, &a, &ed, 404).await;
    let id = protocol::BoardId::try_from(board).unwrap();
    for _ in 0..100 {
        let stored = s.shared().store.asset_bytes(&a).await.unwrap();
        if stored.is_none() && !file_of(&a).exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let stored = s.shared().store.asset_bytes(&a).await.unwrap();
    assert!(stored.is_none(), "the unused picture's bytes are deleted");
    assert!(
        !file_of(&a).exists(),
        "the unused picture's file is deleted"
    );
    for kept in [&b, &cc, &d] {
        assert_eq!(status_of(s.addr, board, kept, &ed).await, 200);
    }
    // Leaving unloads the board: its undo history (which held d) goes with it.
    drop(ann);
    until_status(s.addr, board, &d, &ed, 404).await;
    assert_eq!(
        status_of(s.addr, board, &cc, &ed).await,
        200,
        "a version holds c"
    );

    let versions = s.shared().store.list_versions(&id).await.unwrap();
    let auto = versions.iter().find(|v| v.meta.name.is_none()).unwrap();
    restore(s.addr, board, &ed, auto.id).await;
    let list = get(s.addr, &format!("/api/boards/{board}"), &ed, &[]).await;
    let shown: Vec<&str> = list.json["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["asset"].as_str())
        .collect();
    assert!(shown.contains(&cc.as_str()), "the restore brings c back");

    // Take c off the board again; once the board unloads, only automatic versions hold it.
    let mut bob = Client::join(s.addr, board, "bob").await;
    assert_eq!(
        bob.commit("q1", json!([{"op":"delete","id":"c"}])).await["type"],
        "applied"
    );
    drop(bob);
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(status_of(s.addr, board, &cc, &ed).await, 200);
    let prune = server::store::Retention {
        keep_all_ms: 0,
        keep_daily_ms: 0,
    };
    s.shared().store.apply_retention(&id, &prune).await.unwrap();
    until_status(s.addr, board, &cc, &ed, 404).await;
    let b_kept = status_of(s.addr, board, &b, &ed).await;
    assert_eq!(b_kept, 200, "the named version and the board hold b");
    s.shutdown().await.unwrap();
}

/// ASSET-12: a board file of a board with pictures is version 2 and carries them; imported
/// into another board (on another server) and made into a new board, the images show the same
/// pictures; a picture whose bytes do not match its name is refused; an image naming a picture
/// the file does not hold is refused for a new board.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asset_12_board_files_carry_their_pictures() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "filed", "ann").await;
    let ed = mint(s.addr, "ann", "filed", "editor").await;
    let sha = uploaded(s.addr, "filed", &ed, &png(9, 7, true)).await;
    let r = ann.commit("c1", json!([image_op("img", &sha)])).await;
    assert_eq!(r["type"], "applied", "{r}");
    let file = get(s.addr, "/api/boards/filed/export.json", &ed, &[]).await;
    assert_eq!(file.status, 200);
    assert_eq!(file.json["version"], 2);
    assert_eq!(file.json["pictures"][0]["sha256"], sha.as_str());
    s.shutdown().await.unwrap();

    let s = start(config()).await;
    let _other = Client::join(s.addr, "other", "bob").await;
    let bob = mint(s.addr, "bob", "other", "editor").await;
    let auth = format!("Bearer {bob}");
    let h = [("Authorization", auth.as_str())];
    let text = file.json.to_string();
    let imported = http::request(s.addr, "POST", "/api/boards/other/import", &h, Some(&text)).await;
    assert_eq!(imported.status, 200, "{:?}", imported.json);
    assert_eq!(status_of(s.addr, "other", &sha, &bob).await, 200);
    let made = http::admin(s.addr, "POST", "/api/boards", Some(&text)).await;
    assert_eq!(made.status, 201, "{:?}", made.json);
    let new_id = made.json["board"].as_str().unwrap().to_owned();
    let shown = http::admin(s.addr, "GET", &format!("/api/boards/{new_id}"), None).await;
    assert_eq!(shown.json["objects"][0]["asset"], sha.as_str());
    let path = format!("/api/boards/{new_id}/assets/{sha}");
    assert_eq!(http::admin(s.addr, "GET", &path, None).await.status, 200);

    let mut forged = file.json.clone();
    forged["pictures"][0]["data"] = json!("iVBORw0KGgo=");
    let r = http::request(
        s.addr,
        "POST",
        "/api/boards/other/import",
        &h,
        Some(&forged.to_string()),
    )
    .await;
    assert_eq!(
        (r.status, &r.json["error"]["code"]),
        (400, &json!("invalid")),
        "{:?}",
        r.json
    );
    let mut missing = file.json.clone();
    missing["pictures"] = json!([]);
    let r = http::admin(s.addr, "POST", "/api/boards", Some(&missing.to_string())).await;
    assert_eq!(
        (r.status, &r.json["error"]["code"]),
        (400, &json!("invalid")),
        "{:?}",
        r.json
    );
    s.shutdown().await.unwrap();
}

/// ASSET-4, ASSET-10: an SVG whose `<image href>` names a file on the server (absolute path,
/// `file:` URL) is stored without those references, and its exports hold nothing of the file.
#[tokio::test]
async fn asset_4_an_svg_naming_server_files_leaks_nothing_into_exports() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "leak", "ann").await;
    let ed = mint(s.addr, "ann", "leak", "editor").await;
    let secret = std::env::temp_dir().join(format!("board-secret-{}.png", uuid::Uuid::new_v4()));
    std::fs::write(&secret, png(4, 4, true)).unwrap();
    let svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="30"><rect width="40" height="30" fill="green"/><image href="{p}" width="40" height="30"/><image xlink:href="file://{p}" width="40" height="30"/><image href="/etc/hostname" width="4" height="4"/></svg>"#,
        p = secret.display()
    );
    let a = upload(s.addr, "leak", &ed, svg.as_bytes(), "image/svg+xml").await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    let sha = a.json["sha256"].as_str().unwrap().to_owned();
    let auth = format!("Bearer {ed}");
    let h = [("Authorization", auth.as_str())];
    let within = Duration::from_secs(30);
    let (_, _, stored) = http::get_bytes(
        s.addr,
        &format!("/api/boards/leak/assets/{sha}"),
        &h,
        within,
    )
    .await;
    let stored = String::from_utf8(stored).unwrap();
    assert!(
        !stored.contains("board-secret") && !stored.contains("/etc/"),
        "{stored}"
    );
    let r = ann.commit("c1", json!([image_op("img", &sha)])).await;
    assert_eq!(r["type"], "applied", "{r}");
    let (status, _, out) = http::get_bytes(s.addr, "/api/boards/leak/export.svg", &h, within).await;
    assert_eq!(status, 200);
    let out = String::from_utf8(out).unwrap();
    assert!(!out.contains("board-secret") && !out.contains("/etc/hostname"));
    for ext in ["png", "pdf"] {
        let (status, _, _) = http::get_bytes(
            s.addr,
            &format!("/api/boards/leak/export.{ext}"),
            &h,
            within,
        )
        .await;
        assert_eq!(status, 200, "{ext}");
    }
    let _ = std::fs::remove_file(secret);
    s.shutdown().await.unwrap();
}
