//! Credentials on the socket: AUTH-3 (board tokens and forgeries), AUTH-4 (no credential,
//! another board, impersonation through `hello.user.id`).

use super::*;

const WAIT: Duration = Duration::from_secs(3);

#[tokio::test]
async fn auth_4_no_credential_gets_unauthorized_and_nothing_of_the_board() {
    let s = start(auth_config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    a.commit("c1", json!([note("n1", 0.0, 0.0)])).await;
    let seen = exchange(s.addr, "b1", &[], vec![hello("eve", None)], WAIT).await;
    assert_eq!(seen.messages.len(), 1, "{seen:?}");
    assert_eq!(seen.messages[0]["type"], "error");
    assert_eq!(seen.messages[0]["code"], "unauthorized");
    assert_eq!(seen.close, Some(4001));
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_3_forged_expired_and_misaddressed_tokens_are_refused() {
    let s = start(auth_config()).await;
    let _a = Client::join(s.addr, "b1", "ann").await;
    let good = claims("eve", "b1", "editor");
    let mut expired = good.clone();
    expired["exp"] = json!(unix() - 120);
    let mut wrong_aud = good.clone();
    wrong_aud["aud"] = json!("other");
    let mut no_aud = good.clone();
    no_aud.as_object_mut().unwrap().remove("aud");
    let mut no_exp = good.clone();
    no_exp.as_object_mut().unwrap().remove("exp");
    let mut bad_role = good.clone();
    bad_role["role"] = json!("admin");
    let valid = sign(&good, SECRET);
    let body = valid.split('.').nth(1).unwrap().to_owned();
    let cases = [
        ("wrong key", sign(&good, "not-the-secret")),
        (
            "alg none",
            format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{body}."),
        ),
        ("expired", sign(&expired, SECRET)),
        ("wrong aud", sign(&wrong_aud, SECRET)),
        ("no aud", sign(&no_aud, SECRET)),
        ("no exp", sign(&no_exp, SECRET)),
        ("unknown role", sign(&bad_role, SECRET)),
        ("garbage", "not.a.token".to_owned()),
    ];
    for (what, token) in cases {
        let seen = exchange(s.addr, "b1", &[], vec![hello("eve", Some(&token))], WAIT).await;
        assert_eq!(seen.messages.len(), 1, "{what}: {seen:?}");
        assert_eq!(seen.messages[0]["code"], "unauthorized", "{what}");
        assert_eq!(seen.close, Some(4001), "{what}");
    }
    // The same claims, correctly signed, get in: the forgeries failed for what they changed.
    let mut c = Client::join_with(s.addr, "b1", "eve", Some(&valid)).await;
    assert_eq!(c.welcome["role"], "editor");
    let r = c.commit("e1", json!([note("e", 0.0, 0.0)])).await;
    assert_eq!(r["type"], "applied");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_4_a_token_for_another_board_is_forbidden_like_an_unknown_board() {
    let s = start(auth_config()).await;
    let _a = Client::join(s.addr, "b1", "ann").await;
    let _b = Client::join(s.addr, "b2", "bob").await;
    // Valid for b2, used on b1.
    let other = sign(&claims("eve", "b2", "editor"), SECRET);
    let seen_other = exchange(s.addr, "b1", &[], vec![hello("eve", Some(&other))], WAIT).await;
    // A viewer token for a board that does not exist (a viewer cannot create it).
    let ghost = sign(&claims("eve", "ghost", "viewer"), SECRET);
    let seen_ghost = exchange(s.addr, "ghost", &[], vec![hello("eve", Some(&ghost))], WAIT).await;
    for seen in [&seen_other, &seen_ghost] {
        assert_eq!(seen.messages.len(), 1, "{seen:?}");
        assert_eq!(seen.messages[0]["code"], "forbidden");
        assert_eq!(seen.close, Some(4003));
    }
    // AUTH-9: the two answers are the same, byte for byte.
    assert_eq!(seen_other.messages, seen_ghost.messages);
    assert!(s.inspect("ghost").await.is_none(), "nothing was loaded");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_4_hello_user_id_must_be_the_token_subject() {
    let s = start(auth_config()).await;
    let mut ann = Client::join(s.addr, "b1", "ann").await;
    ann.commit("a1", json!([note("n1", 0.0, 0.0)])).await;
    // Eve holds a valid token of her own and claims to be Ann.
    let eve = sign(&claims("eve", "b1", "editor"), SECRET);
    let seen = exchange(s.addr, "b1", &[], vec![hello("ann", Some(&eve))], WAIT).await;
    assert_eq!(seen.messages.len(), 1, "{seen:?}");
    assert_eq!(seen.messages[0]["code"], "invalid");
    assert_eq!(seen.close, Some(1008));
    // Ann's undo is still hers: it undoes her note.
    ann.send(json!({"type": "undo"})).await;
    let v = ann.until_type("applied").await;
    assert_eq!(v["command"]["author"], "ann");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_3_token_name_is_the_display_name_and_wildcard_boards_work() {
    let s = start(auth_config()).await;
    let mut t = claims("app-user-7", "*", "editor");
    t["name"] = json!("Grace from the app");
    let token = sign(&t, SECRET);
    let c = Client::join_with(s.addr, "any-board", "app-user-7", Some(&token)).await;
    assert_eq!(c.welcome["you"]["name"], "Grace from the app");
    assert_eq!(c.welcome["role"], "editor");
    assert_eq!(c.welcome["title"], "any-board");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_3_the_admin_api_mints_tokens_and_checks_its_input() {
    let s = start(auth_config()).await;
    for body in [
        json!({"user": "a b", "board": "b1", "role": "editor"}),
        json!({"user": "ann", "board": "b 1", "role": "editor"}),
        json!({"user": "ann", "board": "b1", "role": "root"}),
        json!({"user": "ann", "board": "b1", "role": "editor", "ttl_secs": 0}),
    ] {
        let a = common::http::admin(s.addr, "POST", "/api/tokens", Some(&body.to_string())).await;
        assert_eq!(a.status, 400, "{body}: {:?}", a.json);
        assert_eq!(a.json["error"]["code"], "invalid");
    }
    let a = common::http::admin(
        s.addr,
        "POST",
        "/api/tokens",
        Some(&json!({"user": "ann", "board": "b1", "role": "viewer", "ttl_secs": 60}).to_string()),
    )
    .await;
    assert_eq!(a.status, 200);
    let exp = a.json["expires_at"].as_i64().unwrap();
    assert!((exp - unix() - 60).abs() <= 2, "{exp}");
    // Without the admin token: 401; with a board token: 403.
    let body = json!({"user": "ann", "board": "b1", "role": "owner"}).to_string();
    let a = common::http::request(s.addr, "POST", "/api/tokens", &[], Some(&body)).await;
    assert_eq!(a.status, 401);
    let viewer = sign(&claims("ann", "b1", "owner"), SECRET);
    let a = with_bearer(s.addr, &viewer, "POST", "/api/tokens", Some(&body)).await;
    assert_eq!(a.status, 403);
    s.shutdown().await.unwrap();
}
