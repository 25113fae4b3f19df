//! AUTH-7 (the HTTP authorization matrix), AUTH-1 (sign-in and sessions), AUTH-8 (board
//! creation, titles), AUTH-9 (unknown and forbidden boards answer alike).

use super::*;
use common::http::{admin, request};

#[tokio::test]
async fn auth_7_without_credentials_every_board_route_is_401() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Plans").await;
    for (method, path, body) in [
        ("GET", "/api/boards".to_owned(), None),
        ("POST", "/api/boards".to_owned(), Some("{}")),
        ("GET", format!("/api/boards/{b}"), None),
        (
            "PATCH",
            format!("/api/boards/{b}"),
            Some(r#"{"title":"x"}"#),
        ),
        ("DELETE", format!("/api/boards/{b}"), None),
        ("GET", format!("/api/boards/{b}/links"), None),
        (
            "POST",
            format!("/api/boards/{b}/links"),
            Some(r#"{"role":"viewer"}"#),
        ),
        ("GET", format!("/api/boards/{b}/members"), None),
        ("POST", format!("/api/boards/{b}/token"), None),
        ("GET", "/api/me".to_owned(), None),
        ("POST", "/api/tokens".to_owned(), Some("{}")),
        ("POST", "/api/login-links".to_owned(), Some("{}")),
        ("GET", "/metrics".to_owned(), None),
    ] {
        let a = request(s.addr, method, &path, &[], body).await;
        assert_eq!(a.status, 401, "{method} {path}: {:?}", a.json);
        assert_eq!(a.json["error"]["code"], "unauthorized", "{method} {path}");
        // A bad bearer is refused, never taken for no credential.
        let a = with_bearer(s.addr, "nonsense", method, &path, body).await;
        assert_eq!(a.status, 401, "{method} {path} with a bad bearer");
    }
    // The board is still there.
    assert_eq!(
        admin(s.addr, "GET", &format!("/api/boards/{b}"), None)
            .await
            .status,
        200
    );
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_7_board_routes_need_the_right_role() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Plans").await;
    let other = new_board(s.addr, "Secret").await;
    let tok = |role: &str| sign(&claims("app-user", &b, role), SECRET);
    let (viewer, editor, owner) = (tok("viewer"), tok("editor"), tok("owner"));
    // Listing shows only what the caller may open.
    let a = with_bearer(s.addr, &viewer, "GET", "/api/boards", None).await;
    let ids: Vec<&str> = a.json["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [b.as_str()], "{:?}", a.json);
    assert_eq!(a.json["boards"][0]["title"], "Plans");
    assert_eq!(a.json["boards"][0]["role"], "viewer");
    // Export needs viewer; another board is unknown (AUTH-9).
    let a = with_bearer(s.addr, &viewer, "GET", &format!("/api/boards/{b}"), None).await;
    assert_eq!((a.status, a.json["title"].as_str()), (200, Some("Plans")));
    let a = with_bearer(
        s.addr,
        &viewer,
        "GET",
        &format!("/api/boards/{other}"),
        None,
    )
    .await;
    let unknown = with_bearer(
        s.addr,
        &viewer,
        "GET",
        "/api/boards/00000000000000000000000000000000",
        None,
    )
    .await;
    assert_eq!(a.status, 404);
    assert_eq!(unknown.status, 404);
    assert_eq!(a.json["error"]["code"], unknown.json["error"]["code"]);
    // Rename needs editor, delete and sharing need owner, creating needs an account.
    let rename = |t: &str| (t.to_owned(), format!("/api/boards/{b}"));
    for (token, status) in [(&viewer, 403), (&editor, 200)] {
        let (_, path) = rename(token);
        let a = with_bearer(
            s.addr,
            token,
            "PATCH",
            &path,
            Some(r#"{"title":"Renamed"}"#),
        )
        .await;
        assert_eq!(a.status, status, "{:?}", a.json);
    }
    for token in [&viewer, &editor] {
        for (m, p, body) in [
            ("DELETE", format!("/api/boards/{b}"), None),
            ("GET", format!("/api/boards/{b}/links"), None),
            (
                "POST",
                format!("/api/boards/{b}/links"),
                Some(r#"{"role":"viewer"}"#),
            ),
            ("GET", format!("/api/boards/{b}/members"), None),
        ] {
            let a = with_bearer(s.addr, token, m, &p, body).await;
            assert_eq!(a.status, 403, "{m} {p}: {:?}", a.json);
            assert_eq!(a.json["error"]["code"], "forbidden");
        }
    }
    for token in [&viewer, &editor, &owner] {
        let a = with_bearer(s.addr, token, "POST", "/api/boards", Some("{}")).await;
        assert_eq!(a.status, 403, "a board token does not create boards");
    }
    let a = with_bearer(
        s.addr,
        &owner,
        "GET",
        &format!("/api/boards/{b}/links"),
        None,
    )
    .await;
    assert_eq!(a.status, 200);
    let a = admin(s.addr, "GET", &format!("/api/boards/{b}"), None).await;
    assert_eq!(a.json["title"], "Renamed");
    // Someone on the board sees the rename at once.
    let mut on = Client::join_with(s.addr, &b, "app-user", Some(&viewer)).await;
    assert_eq!(on.welcome["title"], "Renamed");
    let a = with_bearer(
        s.addr,
        &editor,
        "PATCH",
        &format!("/api/boards/{b}"),
        Some(r#"{"title":"Q3"}"#),
    )
    .await;
    assert_eq!(a.status, 200);
    assert_eq!(on.until_type("title_changed").await["title"], "Q3");
    let a = with_bearer(s.addr, &owner, "DELETE", &format!("/api/boards/{b}"), None).await;
    assert_eq!(a.status, 204);
    let a = admin(s.addr, "GET", &format!("/api/boards/{b}"), None).await;
    assert_eq!(a.status, 404);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_1_sign_in_through_a_login_link_gives_a_session_cookie_once() {
    let s = start(auth_config()).await;
    let a = admin(s.addr, "POST", "/api/login-links", Some("{}")).await;
    let code = a.json["url"]
        .as_str()
        .unwrap()
        .strip_prefix("/login#")
        .unwrap()
        .to_owned();
    assert_eq!(a.json["user"]["kind"], "owner");
    let origin = format!("http://{}", s.addr);
    let body = json!({"code": code}).to_string();
    let a = request(
        s.addr,
        "POST",
        "/api/login",
        &[("Origin", &origin)],
        Some(&body),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let set = a.header("set-cookie").unwrap().to_owned();
    assert!(set.starts_with("board_session="), "{set}");
    for attr in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(set.contains(attr), "{set}");
    }
    assert!(
        !set.contains("Secure"),
        "plain http without --public-url: {set}"
    );
    let cookie = a.cookie().unwrap();
    let me = with_cookie(s.addr, &cookie, "GET", "/api/me", None).await;
    assert_eq!(me.status, 200);
    assert_eq!(me.json["auth"], "on");
    assert_eq!(me.json["user"]["kind"], "owner");
    // The code works once.
    let again = request(
        s.addr,
        "POST",
        "/api/login",
        &[("Origin", &origin)],
        Some(&body),
    )
    .await;
    assert_eq!(again.status, 401);
    // A display name change, then sign out.
    let a = with_cookie(
        s.addr,
        &cookie,
        "PATCH",
        "/api/me",
        Some(r#"{"name":"Olga"}"#),
    )
    .await;
    assert_eq!(a.json["user"]["name"], "Olga");
    let a = with_cookie(s.addr, &cookie, "POST", "/api/logout", None).await;
    assert_eq!(a.status, 204);
    assert!(a.header("set-cookie").unwrap().contains("Max-Age=0"));
    let me = with_cookie(s.addr, &cookie, "GET", "/api/me", None).await;
    assert_eq!(me.status, 401);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_1_public_https_url_makes_cookies_secure() {
    let mut cfg = auth_config();
    cfg.public_url = Some("https://boards.example.com".into());
    let s = start(cfg).await;
    let a = admin(s.addr, "POST", "/api/login-links", Some("{}")).await;
    let code = a.json["url"]
        .as_str()
        .unwrap()
        .strip_prefix("/login#")
        .unwrap()
        .to_owned();
    let a = request(
        s.addr,
        "POST",
        "/api/login",
        &[("Origin", "https://boards.example.com")],
        Some(&json!({"code": code}).to_string()),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    assert!(a.header("set-cookie").unwrap().contains("; Secure"));
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_8_members_create_boards_they_own_and_others_cannot_see() {
    let s = start(auth_config()).await;
    let (bea, user) = sign_in(s.addr, Some("Bea")).await;
    assert_eq!(user["kind"], "member");
    let a = with_cookie(
        s.addr,
        &bea,
        "POST",
        "/api/boards",
        Some(r#"{"title":"Bea's"}"#),
    )
    .await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    let id = a.json["board"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32);
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    let (cid, _) = sign_in(s.addr, Some("Cid")).await;
    let mine = with_cookie(s.addr, &bea, "GET", "/api/boards", None).await;
    assert_eq!(mine.json["boards"][0]["role"], "owner");
    let theirs = with_cookie(s.addr, &cid, "GET", "/api/boards", None).await;
    assert_eq!(theirs.json["boards"], json!([]));
    let a = with_cookie(s.addr, &cid, "GET", &format!("/api/boards/{id}"), None).await;
    assert_eq!(a.status, 404);
    // The server's owner sees every board.
    let (owner, _) = sign_in(s.addr, None).await;
    let all = with_cookie(s.addr, &owner, "GET", "/api/boards", None).await;
    assert_eq!(all.json["boards"][0]["id"], id.as_str());
    // A session gets a board token for its role and joins with it.
    let a = with_cookie(
        s.addr,
        &bea,
        "POST",
        &format!("/api/boards/{id}/token"),
        None,
    )
    .await;
    assert_eq!(a.json["role"], "owner");
    let c = Client::join_with(
        s.addr,
        &id,
        user["id"].as_str().unwrap(),
        a.json["token"].as_str(),
    )
    .await;
    assert_eq!(c.welcome["title"], "Bea's");
    assert_eq!(c.welcome["you"]["name"], "Bea");
    // The cookie alone authenticates the socket too.
    let seen = exchange(
        s.addr,
        &id,
        &[("Cookie", &bea), ("Origin", &format!("http://{}", s.addr))],
        vec![hello(user["id"].as_str().unwrap(), None)],
        Duration::from_millis(500),
    )
    .await;
    assert_eq!(seen.messages[0]["type"], "welcome", "{seen:?}");
    assert_eq!(seen.messages[0]["role"], "owner");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_14_cookie_writes_need_an_allowed_origin_and_json() {
    let s = start(auth_config()).await;
    let (bea, _) = sign_in(s.addr, Some("Bea")).await;
    let own = format!("http://{}", s.addr);
    let cases: [(&[(&str, &str)], u16); 4] = [
        (&[("Cookie", &bea)], 403),
        (&[("Cookie", &bea), ("Origin", "http://evil.example")], 403),
        (
            &[
                ("Cookie", &bea),
                ("Origin", &own),
                ("Content-Type", "text/plain"),
            ],
            403,
        ),
        (&[("Cookie", &bea), ("Origin", &own)], 201),
    ];
    for (headers, status) in cases {
        let a = request(
            s.addr,
            "POST",
            "/api/boards",
            headers,
            Some(r#"{"title":"t"}"#),
        )
        .await;
        assert_eq!(a.status, status, "{headers:?}: {:?}", a.json);
    }
    // A bearer request without `Origin` is fine, but still needs JSON.
    let a = request(
        s.addr,
        "POST",
        "/api/boards",
        &[
            ("Authorization", &format!("Bearer {}", admin_token())),
            ("Content-Type", "text/plain"),
        ],
        Some("{}"),
    )
    .await;
    assert_eq!(a.status, 403);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_1_login_link_subcommand_signs_in_against_the_same_data_dir() {
    let dir = std::env::temp_dir().join(format!("auth-login-link-{}", uuid::Uuid::new_v4()));
    let link = |name: Option<&str>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_server"));
        cmd.args(["--data-dir", dir.to_str().unwrap(), "login-link"]);
        if let Some(n) = name {
            cmd.args(["--name", n]);
        }
        let out = cmd.env_remove("BOARD_AUTH").output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with("sign in: "))
            .unwrap()
            .to_owned();
        line.rsplit_once('#').unwrap().1.to_owned()
    };
    let owner_code = link(None);
    let member_code = link(Some("Zed"));
    assert_eq!(owner_code.len(), 32);
    assert_ne!(owner_code, member_code);
    // The server on that data dir (SQLite) takes both codes, once each.
    let mut cfg = auth_config();
    cfg.memory_store = false;
    cfg.data_dir = dir.clone();
    let s = start(cfg).await;
    let origin = format!("http://{}", s.addr);
    for (code, kind) in [(&owner_code, "owner"), (&member_code, "member")] {
        let body = json!({"code": code}).to_string();
        let a = request(
            s.addr,
            "POST",
            "/api/login",
            &[("Origin", &origin)],
            Some(&body),
        )
        .await;
        assert_eq!(a.status, 200, "{:?}", a.json);
        assert_eq!(a.json["user"]["kind"], kind);
    }
    s.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn auth_7_metrics_listen_serves_metrics_without_credentials() {
    // A free port for the metrics listener (the server binds it itself).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let mut cfg = auth_config();
    cfg.metrics_listen = Some(port);
    let s = start(cfg).await;
    let _c = Client::join(s.addr, "b1", "ann").await;
    let a = request(port, "GET", "/metrics", &[], None).await;
    assert_eq!(a.status, 200);
    assert!(
        a.json.to_string().contains("board_ws_connections"),
        "{:?}",
        a.json
    );
    // Only metrics there; the main port still wants the admin token.
    assert_eq!(
        request(port, "GET", "/api/boards", &[], None).await.status,
        404
    );
    assert_eq!(
        request(s.addr, "GET", "/metrics", &[], None).await.status,
        401
    );
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_22_a_sign_in_link_says_whom_it_signs_in_as_without_using_the_code() {
    let s = start(auth_config()).await;
    let a = admin(
        s.addr,
        "POST",
        "/api/login-links",
        Some(r#"{"name":"Mia"}"#),
    )
    .await;
    let code = a.json["url"]
        .as_str()
        .unwrap()
        .strip_prefix("/login#")
        .unwrap()
        .to_owned();
    let origin = format!("http://{}", s.addr);
    let body = json!({"code": code}).to_string();
    let post = |path: &'static str| {
        let (origin, body) = (origin.clone(), body.clone());
        async move { request(s.addr, "POST", path, &[("Origin", &origin)], Some(&body)).await }
    };
    // Asked twice: the code is still unused, and no session is made.
    for _ in 0..2 {
        let a = post("/api/login/preview").await;
        assert_eq!(a.status, 200, "{:?}", a.json);
        assert_eq!(a.json["user"]["name"], "Mia");
        assert_eq!(a.json["signed_in_as"], Value::Null);
        assert!(a.header("set-cookie").is_none());
    }
    assert_eq!(post("/api/login").await.status, 200);
    // Used: the preview says so like the sign-in does.
    let a = post("/api/login/preview").await;
    assert_eq!(a.status, 401);
    assert_eq!(a.json["error"]["code"], "unauthorized");
    // From another site's page it is refused like a sign-in (AUTH-14).
    let a = request(
        s.addr,
        "POST",
        "/api/login/preview",
        &[("Origin", "http://evil.example")],
        Some(&body),
    )
    .await;
    assert_eq!(a.status, 403);
    s.shutdown().await.unwrap();
}
