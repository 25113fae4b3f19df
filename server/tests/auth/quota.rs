//! QUOTA-1..3: boards per owner, boards per server (with `--auth off` too) and bytes in the store,
//! each refused with `limit_exceeded` before anything is written.

use super::*;

/// Imports an empty board with the admin bearer (owned by the server's owner).
async fn import(addr: SocketAddr) -> common::http::Answer {
    common::http::admin(
        addr,
        "POST",
        "/api/boards",
        Some(r#"{"title":"q","objects":[]}"#),
    )
    .await
}

async fn board_count(addr: SocketAddr) -> usize {
    let a = common::http::admin(addr, "GET", "/api/boards", None).await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    a.json["boards"].as_array().unwrap().len()
}

#[tokio::test]
async fn quota_1_boards_per_owner_are_capped_and_nothing_is_half_created() {
    let mut cfg = auth_config();
    cfg.max_boards_per_user = 2;
    let s = start(cfg).await;
    assert_eq!(import(s.addr).await.status, 201);
    assert_eq!(import(s.addr).await.status, 201);
    let a = import(s.addr).await;
    assert_eq!(a.status, 403, "{:?}", a.json);
    assert_eq!(a.json["error"]["code"], "limit_exceeded");
    assert_eq!(board_count(s.addr).await, 2);

    // An app's user creates boards by joining with tokens that name them: capped alike.
    let t1 = sign(&claims("app-user", "made-1", "editor"), SECRET);
    let t2 = sign(&claims("app-user", "made-2", "editor"), SECRET);
    let t3 = sign(&claims("app-user", "made-3", "editor"), SECRET);
    for (board, t) in [("made-1", &t1), ("made-2", &t2)] {
        let seen = exchange(
            s.addr,
            board,
            &[],
            vec![hello("app-user", Some(t))],
            Duration::from_millis(300),
        )
        .await;
        assert_eq!(seen.messages[0]["type"], "welcome", "{seen:?}");
    }
    let seen = exchange(
        s.addr,
        "made-3",
        &[],
        vec![hello("app-user", Some(&t3))],
        STEP,
    )
    .await;
    assert_eq!(seen.messages[0]["code"], "limit_exceeded", "{seen:?}");
    assert_eq!(seen.close, Some(1013));
    // Refused before anything was written: the third board has no owner and cannot be opened.
    let t3_viewer = sign(&claims("someone", "made-3", "viewer"), SECRET);
    let seen = exchange(
        s.addr,
        "made-3",
        &[],
        vec![hello("someone", Some(&t3_viewer))],
        STEP,
    )
    .await;
    assert_eq!(seen.close, Some(4003), "{seen:?}");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn quota_2_with_auth_off_joins_create_boards_only_up_to_the_server_cap() {
    let mut cfg = config();
    cfg.auth = server::config::AuthMode::Off;
    cfg.max_boards = 2;
    let s = start(cfg).await;
    for b in ["open-1", "open-2"] {
        let mut c = Client::join_with(s.addr, b, "anyone", None).await;
        let a = c.commit("c1", json!([note("n", 0.0, 0.0)])).await;
        assert_eq!(a["type"], "applied", "{a}");
    }
    let seen = exchange(s.addr, "open-3", &[], vec![hello("anyone", None)], STEP).await;
    assert_eq!(seen.messages[0]["code"], "limit_exceeded", "{seen:?}");
    // Existing boards still open.
    let c = Client::join_with(s.addr, "open-1", "anyone", None).await;
    assert_eq!(c.objects().len(), 1);
    let a = common::http::request(s.addr, "GET", "/api/boards", &[], None).await;
    assert_eq!(a.json["boards"].as_array().unwrap().len(), 2);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn quota_3_a_full_store_refuses_new_boards() {
    let dir = std::env::temp_dir().join(format!("board-quota-{}", uuid::Uuid::new_v4()));
    let mut cfg = auth_config();
    cfg.memory_store = false;
    cfg.data_dir = dir.clone();
    cfg.max_store_bytes = Some(1);
    let s = start(cfg).await;
    let a = import(s.addr).await;
    assert_eq!(a.status, 403, "{:?}", a.json);
    assert_eq!(a.json["error"]["code"], "limit_exceeded");
    assert!(
        a.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--max-store-bytes")
    );
    assert_eq!(board_count(s.addr).await, 0);
    s.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

/// QUOTA-1 counts per account, not per credential: a member's boards made with her session and
/// with any token whose `sub` is her account are one count, so a second token does not buy more;
/// a guest account (made by opening a share link) creates no boards, by token as over HTTP.
#[tokio::test]
async fn quota_1_boards_count_per_account_whichever_credential_makes_them() {
    let mut cfg = auth_config();
    cfg.max_boards_per_user = 2;
    let s = start(cfg).await;
    let (cookie, bea) = sign_in(s.addr, Some("Bea")).await;
    let bea = bea["id"].as_str().unwrap().to_owned();
    let made = with_cookie(
        s.addr,
        &cookie,
        "POST",
        "/api/boards",
        Some(r#"{"title":"by session"}"#),
    )
    .await;
    assert_eq!(made.status, 201, "{:?}", made.json);
    // Tokens for her account, minted as an app or the admin would: one more board fits.
    let join = |board: &'static str, ttl: u64, wait: Duration| {
        let (addr, bea) = (s.addr, bea.clone());
        async move {
            let body = json!({"user": bea, "name": "Bea", "board": "*", "role": "editor",
                "ttl_secs": ttl});
            let a = common::http::admin(addr, "POST", "/api/tokens", Some(&body.to_string())).await;
            let token = a.json["token"].as_str().unwrap().to_owned();
            exchange(addr, board, &[], vec![hello(&bea, Some(&token))], wait).await
        }
    };
    let seen = join("bea-token-1", 600, Duration::from_millis(300)).await;
    assert_eq!(seen.messages[0]["type"], "welcome", "{seen:?}");
    let seen = join("bea-token-2", 700, STEP).await;
    assert_eq!(seen.messages[0]["code"], "limit_exceeded", "{seen:?}");
    assert_eq!(seen.close, Some(1013));
    let again = with_cookie(
        s.addr,
        &cookie,
        "POST",
        "/api/boards",
        Some(r#"{"title":"x"}"#),
    )
    .await;
    assert_eq!(again.status, 403, "{:?}", again.json);
    assert_eq!(again.json["error"]["code"], "limit_exceeded");
    // A guest's token that names a new board creates nothing.
    let board = made.json["board"].as_str().unwrap();
    let link = common::http::admin(
        s.addr,
        "POST",
        &format!("/api/boards/{board}/links"),
        Some(r#"{"role":"editor"}"#),
    )
    .await;
    let link = link.json["url"]
        .as_str()
        .unwrap()
        .strip_prefix("/s/")
        .unwrap();
    let origin = format!("http://{}", s.addr);
    let opened = common::http::request(
        s.addr,
        "POST",
        &format!("/api/links/{link}/session"),
        &[("Origin", &origin)],
        Some(r#"{"name":"Gus"}"#),
    )
    .await;
    let gid = opened.json["user"]["id"].as_str().unwrap();
    let token = sign(&claims(gid, "*", "editor"), SECRET);
    let seen = exchange(
        s.addr,
        "guest-made",
        &[],
        vec![hello(gid, Some(&token))],
        STEP,
    )
    .await;
    assert_eq!(seen.close, Some(4003), "{seen:?}");
    let owner_view = sign(&claims("someone", "guest-made", "viewer"), SECRET);
    let seen = exchange(
        s.addr,
        "guest-made",
        &[],
        vec![hello("someone", Some(&owner_view))],
        STEP,
    )
    .await;
    assert_eq!(seen.close, Some(4003), "nothing was created: {seen:?}");
    s.shutdown().await.unwrap();
}
