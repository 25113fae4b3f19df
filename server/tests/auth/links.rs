//! AUTH-10 (share links), AUTH-11 (members), AUTH-12 (revocation and role changes reach open
//! connections within a second).

use super::*;
use common::http::admin;

const SECOND: Duration = Duration::from_secs(1);

/// Creates a link of `role` on `board` as the admin; returns (id, token).
async fn link(addr: SocketAddr, board: &str, role: &str) -> (String, String) {
    let a = admin(
        addr,
        "POST",
        &format!("/api/boards/{board}/links"),
        Some(&json!({"role": role}).to_string()),
    )
    .await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    let url = a.json["url"].as_str().unwrap();
    let token = url.strip_prefix("/s/").unwrap().to_owned();
    assert_eq!(token.len(), 32, "128 random bits");
    assert_eq!(a.json["role"], role);
    (a.json["id"].as_str().unwrap().to_owned(), token)
}

/// Opens a link as a new guest; returns (user id, board token, cookie).
pub(crate) async fn open(addr: SocketAddr, token: &str, name: &str) -> (String, String, String) {
    let origin = format!("http://{addr}");
    let a = common::http::request(
        addr,
        "POST",
        &format!("/api/links/{token}/session"),
        &[("Origin", &origin)],
        Some(&json!({"name": name}).to_string()),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    assert_eq!(a.json["user"]["kind"], "guest");
    assert_eq!(a.json["user"]["name"], name);
    (
        a.json["user"]["id"].as_str().unwrap().to_owned(),
        a.json["token"].as_str().unwrap().to_owned(),
        a.cookie().unwrap(),
    )
}

#[tokio::test]
async fn auth_10_view_and_edit_links_give_their_roles() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Shared").await;
    let (_, view) = link(s.addr, &b, "viewer").await;
    let (_, edit) = link(s.addr, &b, "editor").await;
    let (vid, vtok, _) = open(s.addr, &view, "Vic").await;
    let (eid, etok, _) = open(s.addr, &edit, "Eda").await;
    let mut v = Client::join_with(s.addr, &b, &vid, Some(&vtok)).await;
    let mut e = Client::join_with(s.addr, &b, &eid, Some(&etok)).await;
    assert_eq!(v.welcome["role"], "viewer");
    assert_eq!(e.welcome["role"], "editor");
    assert_eq!(e.welcome["title"], "Shared");
    assert_eq!(
        e.commit("e1", json!([note("n", 0.0, 0.0)])).await["type"],
        "applied"
    );
    let r = v.commit("v1", json!([note("m", 0.0, 0.0)])).await;
    assert_eq!(r["error"]["code"], "forbidden");
    // The list never shows the tokens; the members list shows both guests.
    let a = admin(s.addr, "GET", &format!("/api/boards/{b}/links"), None).await;
    assert_eq!(a.json["links"].as_array().unwrap().len(), 2);
    assert!(!a.json.to_string().contains(&view) && !a.json.to_string().contains(&edit));
    let a = admin(s.addr, "GET", &format!("/api/boards/{b}/members"), None).await;
    let names: Vec<&str> = a.json["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert!(
        names.contains(&"Vic") && names.contains(&"Eda"),
        "{names:?}"
    );
    // Unknown links are 404.
    let a = common::http::request(
        s.addr,
        "POST",
        "/api/links/00000000000000000000000000000000/session",
        &[],
        Some(r#"{"name":"x"}"#),
    )
    .await;
    assert_eq!(a.status, 404);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_12_revoking_a_link_closes_its_guests_within_a_second() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Shared").await;
    let (link_id, edit) = link(s.addr, &b, "editor").await;
    let (gid, gtok, _) = open(s.addr, &edit, "Gus").await;
    let mut g = Client::join_with(s.addr, &b, &gid, Some(&gtok)).await;
    let mut owner = Client::join(s.addr, &b, "app-owner").await;
    let t = std::time::Instant::now();
    let a = admin(
        s.addr,
        "DELETE",
        &format!("/api/boards/{b}/links/{link_id}"),
        None,
    )
    .await;
    assert_eq!(a.status, 204);
    let e = g
        .try_until(SECOND, |v| v["type"] == "error")
        .await
        .expect("error within 1 s");
    assert_eq!(e["code"], "forbidden");
    let c = g
        .try_until(SECOND, |v| v["type"] == "__close")
        .await
        .expect("close");
    assert_eq!(c["code"], 4003);
    assert!(t.elapsed() < SECOND, "{:?}", t.elapsed());
    // The token the link gave no longer opens the board, and the link no longer admits anyone.
    let seen = exchange(s.addr, &b, &[], vec![hello(&gid, Some(&gtok))], SECOND).await;
    assert_eq!(seen.close, Some(4003), "{seen:?}");
    let a = common::http::request(
        s.addr,
        "POST",
        &format!("/api/links/{edit}/session"),
        &[],
        Some(r#"{"name":"Late"}"#),
    )
    .await;
    assert_eq!(a.status, 404);
    // Others are unaffected.
    assert_eq!(
        owner.commit("o1", json!([note("n", 0.0, 0.0)])).await["type"],
        "applied"
    );
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_12_lowering_a_role_turns_an_editor_into_a_viewer_in_place() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Shared").await;
    let (_, edit) = link(s.addr, &b, "editor").await;
    let (gid, gtok, _) = open(s.addr, &edit, "Gus").await;
    let mut g = Client::join_with(s.addr, &b, &gid, Some(&gtok)).await;
    assert_eq!(
        g.commit("g1", json!([note("n", 0.0, 0.0)])).await["type"],
        "applied"
    );
    let t = std::time::Instant::now();
    let a = admin(
        s.addr,
        "PATCH",
        &format!("/api/boards/{b}/members/{gid}"),
        Some(r#"{"role":"viewer"}"#),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let r = g
        .try_until(SECOND, |v| v["type"] == "role_changed")
        .await
        .expect("within 1 s");
    assert_eq!(r["role"], "viewer");
    assert!(t.elapsed() < SECOND);
    let r = g.commit("g2", json!([note("m", 0.0, 0.0)])).await;
    assert_eq!(r["error"]["code"], "forbidden");
    // Raised again, but never above what the token says.
    admin(
        s.addr,
        "PATCH",
        &format!("/api/boards/{b}/members/{gid}"),
        Some(r#"{"role":"owner"}"#),
    )
    .await;
    let r = g
        .try_until(SECOND, |v| v["type"] == "role_changed")
        .await
        .expect("within 1 s");
    assert_eq!(r["role"], "editor");
    // Removing the member closes the connection.
    let a = admin(
        s.addr,
        "DELETE",
        &format!("/api/boards/{b}/members/{gid}"),
        None,
    )
    .await;
    assert_eq!(a.status, 204);
    let c = g
        .try_until(SECOND, |v| v["type"] == "__close")
        .await
        .expect("close");
    assert_eq!(c["code"], 4003);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_12_deleting_a_board_closes_everyone_with_4004() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Doomed").await;
    let mut c = Client::join(s.addr, &b, "ann").await;
    let a = admin(s.addr, "DELETE", &format!("/api/boards/{b}"), None).await;
    assert_eq!(a.status, 204);
    let v = c
        .try_until(SECOND, |v| v["type"] == "__close")
        .await
        .expect("close");
    assert_eq!(v["code"], 4004);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_10_a_signed_in_member_keeps_their_identity_through_a_link() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Shared").await;
    let (_, view) = link(s.addr, &b, "viewer").await;
    let (bea, user) = sign_in(s.addr, Some("Bea")).await;
    let a = with_cookie(
        s.addr,
        &bea,
        "POST",
        &format!("/api/links/{view}/session"),
        Some(r#"{"name":"ignored"}"#),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    assert_eq!(a.json["user"]["id"], user["id"]);
    assert_eq!(a.json["role"], "viewer");
    let list = with_cookie(s.addr, &bea, "GET", "/api/boards", None).await;
    assert_eq!(list.json["boards"][0]["role"], "viewer");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_10_expired_links_admit_nobody() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Shared").await;
    let a = admin(
        s.addr,
        "POST",
        &format!("/api/boards/{b}/links"),
        Some(r#"{"role":"editor","expires_in_secs":3}"#),
    )
    .await;
    let token = a.json["url"]
        .as_str()
        .unwrap()
        .strip_prefix("/s/")
        .unwrap()
        .to_owned();
    let (gid, gtok, _) = open(s.addr, &token, "Quick").await;
    // Wait out the expiry (the only way to observe it); then the member row no longer counts.
    tokio::time::sleep(Duration::from_millis(3100)).await;
    let seen = exchange(s.addr, &b, &[], vec![hello(&gid, Some(&gtok))], SECOND).await;
    assert_eq!(seen.close, Some(4003), "{seen:?}");
    let a = common::http::request(
        s.addr,
        "POST",
        &format!("/api/links/{token}/session"),
        &[],
        Some(r#"{"name":"Late"}"#),
    )
    .await;
    assert_eq!(a.status, 404);
    s.shutdown().await.unwrap();
}
