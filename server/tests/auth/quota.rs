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
    cfg.max_store_bytes = 1;
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
