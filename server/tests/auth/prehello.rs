//! AUTH-15: before `hello` nothing is processed: one frame of at most 64 KiB, within 5 s.

use super::*;

#[tokio::test]
async fn auth_15_messages_before_hello_never_reach_the_board() {
    let s = start(auth_config()).await;
    let commit = json!({"type":"commit","id":"sneak","ops":[note("n", 0.0, 0.0)]});
    let seen = exchange(
        s.addr,
        "b1",
        &[],
        vec![Message::text(commit.to_string()), hello("eve", None)],
        Duration::from_secs(2),
    )
    .await;
    assert_eq!(seen.messages[0]["code"], "invalid", "{seen:?}");
    assert_eq!(seen.messages.len(), 1);
    assert_eq!(seen.close, Some(1008));
    assert!(
        s.inspect("b1").await.is_none(),
        "the board was never loaded"
    );
    // A ping frame first is refused the same way.
    let seen = exchange(
        s.addr,
        "b1",
        &[],
        vec![Message::Ping(vec![1, 2, 3].into())],
        Duration::from_secs(2),
    )
    .await;
    assert_eq!(seen.close, Some(1008), "{seen:?}");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_15_a_first_frame_over_64_kib_is_refused_unread() {
    let s = start(auth_config()).await;
    let token = common::http::mint(s.addr, "ann", "b1", "editor").await;
    let mut big = json!({"type":"hello","user":{"id":"ann","name":"x".repeat(70 * 1024)}});
    big["token"] = json!(token);
    let seen = exchange(
        s.addr,
        "b1",
        &[],
        vec![Message::text(big.to_string())],
        Duration::from_secs(2),
    )
    .await;
    assert_eq!(seen.messages[0]["code"], "too_large", "{seen:?}");
    assert_eq!(seen.close, Some(1008));
    assert!(s.inspect("b1").await.is_none());
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_15_no_hello_within_5_s_closes_the_socket() {
    let s = start(auth_config()).await;
    let t = std::time::Instant::now();
    let seen = exchange(s.addr, "b1", &[], vec![], Duration::from_secs(8)).await;
    assert_eq!(seen.close, Some(1008), "{seen:?}");
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(4900) && took < Duration::from_secs(7),
        "{took:?}"
    );
    s.shutdown().await.unwrap();
}
