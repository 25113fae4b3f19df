//! AUTH-18 (a socket's credential ends at its `exp`), AUTH-19 (signing out closes the session's
//! sockets and kills the tokens minted from it), AUTH-20 (a share link's expiry reaches open
//! sockets at that moment): open sockets end without waiting for a new request.

use super::*;
use common::http::admin;

/// Unix time in milliseconds.
fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// A socket authenticated by a session cookie (as the browser's is), joined as `user`.
async fn join_with_cookie(addr: SocketAddr, board: &str, user: &str, cookie: &str) -> Client {
    let mut req = format!("ws://{addr}/ws/boards/{board}")
        .into_client_request()
        .unwrap();
    req.headers_mut().insert("Cookie", cookie.parse().unwrap());
    let (ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    Client::hello(ws, user, None, None).await
}

/// Waits up to `wait` in all for an `error` then the close; returns the error, the close code
/// and the time the close arrived (unix ms).
async fn ended(c: &mut Client, wait: Duration) -> (Value, u64, i64) {
    let deadline = tokio::time::Instant::now() + wait;
    let mut error = None;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let next = tokio::time::timeout(left, c.try_next(left)).await;
        match next {
            Ok(Some(v)) if v["type"] == "error" => error = Some(v),
            Ok(Some(v)) if v["type"] == "__close" => {
                let error = error.expect("an error before the close");
                return (error, v["code"].as_u64().unwrap(), unix_ms());
            }
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => panic!("no close within {wait:?} (error: {error:?})"),
        }
    }
}

/// AUTH-20: a link created with `expires_in_secs` admits its guest until it expires; at that
/// moment (within a second) every socket that holds its role through the link, by token or by
/// cookie, gets `error forbidden` and close 4003, without sending anything.
#[tokio::test]
async fn auth_20_an_expiring_link_closes_its_open_sockets_within_a_second() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Shared").await;
    let a = admin(
        s.addr,
        "POST",
        &format!("/api/boards/{b}/links"),
        Some(r#"{"role":"editor","expires_in_secs":3}"#),
    )
    .await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    let expires_ms = a.json["expires_at"].as_i64().unwrap() * 1000;
    let link = a.json["url"].as_str().unwrap().strip_prefix("/s/").unwrap();
    let (gid, gtok, gcookie) = super::links::open(s.addr, link, "Quick").await;
    let mut by_token = Client::join_with(s.addr, &b, &gid, Some(&gtok)).await;
    let mut by_cookie = join_with_cookie(s.addr, &b, &gid, &gcookie).await;
    let mut owner = Client::join(s.addr, &b, "app-owner").await;
    let r = by_token.commit("g1", json!([note("n", 0.0, 0.0)])).await;
    assert_eq!(r["type"], "applied", "{r}");
    for c in [&mut by_token, &mut by_cookie] {
        let (e, code, at) = ended(c, Duration::from_secs(5)).await;
        assert_eq!(e["code"], "forbidden", "{e}");
        assert!(e["message"].as_str().unwrap().contains("expired"), "{e}");
        assert_eq!(code, 4003);
        assert!(at >= expires_ms, "closed {} ms early", expires_ms - at);
        assert!(at < expires_ms + 1000, "closed {} ms late", at - expires_ms);
    }
    // Others stay.
    let r = owner.commit("o1", json!([note("m", 300.0, 0.0)])).await;
    assert_eq!(r["type"], "applied", "{r}");
    s.shutdown().await.unwrap();
}

/// AUTH-18: a socket opened with a board token is closed when the token expires (its `exp` plus
/// the 5 s of leeway every check of `exp` allows), with `error unauthorized` and 4001.
#[tokio::test]
async fn auth_18_a_token_past_its_exp_closes_its_open_socket() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Shared").await;
    let body = json!({"user": "ann", "name": "Ann", "board": b, "role": "editor", "ttl_secs": 1});
    let a = admin(s.addr, "POST", "/api/tokens", Some(&body.to_string())).await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let token = a.json["token"].as_str().unwrap();
    let deadline_ms = (a.json["expires_at"].as_i64().unwrap() + 5) * 1000;
    let mut c = Client::join_with(s.addr, &b, "ann", Some(token)).await;
    let r = c.commit("c1", json!([note("n", 0.0, 0.0)])).await;
    assert_eq!(r["type"], "applied", "{r}");
    let (e, code, at) = ended(&mut c, Duration::from_secs(10)).await;
    assert_eq!(e["code"], "unauthorized", "{e}");
    assert_eq!(code, 4001);
    assert!(at >= deadline_ms, "closed {} ms early", deadline_ms - at);
    assert!(
        at < deadline_ms + 1000,
        "closed {} ms late",
        at - deadline_ms
    );
    s.shutdown().await.unwrap();
}

/// AUTH-19: `POST /api/logout` closes, within a second, every socket of that session: the one
/// its cookie opened and the one a token minted from it opened (`POST /api/boards/{id}/token`),
/// with `error unauthorized` and 4001; the same account's other session stays. Afterwards the
/// minted token is refused on HTTP (401) and at hello (4001), and a guest's link token dies with
/// the guest's session.
#[tokio::test]
async fn auth_19_signing_out_closes_the_sessions_sockets_and_kills_its_tokens() {
    let s = start(auth_config()).await;
    let b = new_board(s.addr, "Shared").await;
    let (cookie, me) = sign_in(s.addr, None).await;
    let (other, _) = sign_in(s.addr, None).await;
    let id = me["id"].as_str().unwrap().to_owned();
    let a = with_cookie(
        s.addr,
        &cookie,
        "POST",
        &format!("/api/boards/{b}/token"),
        None,
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let minted = a.json["token"].as_str().unwrap().to_owned();
    let mut by_cookie = join_with_cookie(s.addr, &b, &id, &cookie).await;
    let mut by_token = Client::join_with(s.addr, &b, &id, Some(&minted)).await;
    let mut stays = join_with_cookie(s.addr, &b, &id, &other).await;
    let a = with_cookie(s.addr, &cookie, "POST", "/api/logout", None).await;
    assert_eq!(a.status, 204, "{:?}", a.json);
    let out = unix_ms();
    for c in [&mut by_cookie, &mut by_token] {
        let (e, code, at) = ended(c, Duration::from_secs(2)).await;
        assert_eq!(e["code"], "unauthorized", "{e}");
        assert_eq!(code, 4001);
        assert!(at - out < 1000, "closed {} ms after the sign-out", at - out);
    }
    let r = stays.commit("s1", json!([note("n", 0.0, 0.0)])).await;
    assert_eq!(r["type"], "applied", "{r}");
    // The token minted from the ended session no longer works anywhere.
    let a = with_bearer(s.addr, &minted, "GET", &format!("/api/boards/{b}"), None).await;
    assert_eq!(a.status, 401, "{:?}", a.json);
    let seen = exchange(s.addr, &b, &[], vec![hello(&id, Some(&minted))], SECOND).await;
    assert_eq!(seen.close, Some(4001), "{seen:?}");
    // A guest's link token dies with the guest's session.
    let a = admin(
        s.addr,
        "POST",
        &format!("/api/boards/{b}/links"),
        Some(r#"{"role":"viewer"}"#),
    )
    .await;
    let link = a.json["url"].as_str().unwrap().strip_prefix("/s/").unwrap();
    let (gid, gtok, gcookie) = super::links::open(s.addr, link, "Gus").await;
    let mut guest = Client::join_with(s.addr, &b, &gid, Some(&gtok)).await;
    let a = with_cookie(s.addr, &gcookie, "POST", "/api/logout", None).await;
    assert_eq!(a.status, 204, "{:?}", a.json);
    let (_, code, _) = ended(&mut guest, Duration::from_secs(2)).await;
    assert_eq!(code, 4001);
    let seen = exchange(s.addr, &b, &[], vec![hello(&gid, Some(&gtok))], SECOND).await;
    assert_eq!(seen.close, Some(4001), "{seen:?}");
    s.shutdown().await.unwrap();
}

const SECOND: Duration = Duration::from_secs(1);
