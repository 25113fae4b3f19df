//! The auth store's contract on each backend (AUTH-17): the key is created once, login codes
//! are one-time and expire, sessions are found by the hash of their cookie, members and links.

use super::common::pg::{PG_URL, drop_schema, pg_schema, skip_without_pg};
use protocol::Role;
use server::auth::{AuthStore, UserKind};

async fn contract(s: &AuthStore) {
    let (k1, new1) = s.meta_or_insert("signing_key", "aa").await.unwrap();
    let (k2, new2) = s.meta_or_insert("signing_key", "bb").await.unwrap();
    assert_eq!(
        (k1.as_str(), new1, k2.as_str(), new2),
        ("aa", true, "aa", false)
    );
    let u = s
        .create_user("u-1", "Ann", UserKind::Member, 10)
        .await
        .unwrap();
    assert_eq!(u.name, "Ann");
    assert_eq!(s.member_named("Ann").await.unwrap().unwrap().id, "u-1");
    // One-time, expiring login codes.
    s.add_login_code("h1", "u-1", 100).await.unwrap();
    s.add_login_code("h2", "u-1", 50).await.unwrap();
    assert_eq!(
        s.take_login_code("h1", 60).await.unwrap().unwrap().id,
        "u-1"
    );
    assert!(s.take_login_code("h1", 60).await.unwrap().is_none(), "used");
    assert!(
        s.take_login_code("h2", 60).await.unwrap().is_none(),
        "expired"
    );
    // Sessions.
    s.add_session("sh", "u-1", 200).await.unwrap();
    assert_eq!(s.session_user("sh", 100).await.unwrap().unwrap().id, "u-1");
    assert!(s.session_user("sh", 300).await.unwrap().is_none());
    s.delete_session("sh").await.unwrap();
    assert!(s.session_user("sh", 100).await.unwrap().is_none());
    // Boards, members, links.
    assert!(s.create_board_meta("b1", "Plans", "u-0", 5).await.unwrap());
    assert!(!s.create_board_meta("b1", "Other", "u-9", 6).await.unwrap());
    s.set_title("b1", "Renamed", "u-0", 7).await.unwrap();
    let m = s.board_meta("b1").await.unwrap().unwrap();
    assert_eq!((m.title.as_str(), m.owner.as_str()), ("Renamed", "u-0"));
    s.create_link("l1", "th", "b1", Role::Editor, Some(1000), 5)
        .await
        .unwrap();
    s.put_member("b1", "u-1", Role::Editor, Some("l1"))
        .await
        .unwrap();
    assert_eq!(
        s.member("b1", "u-1").await.unwrap(),
        Some((Role::Editor, Some("l1".into())))
    );
    assert_eq!(s.members_via("l1").await.unwrap(), vec!["u-1".to_owned()]);
    let l = s.link_by_token("th").await.unwrap().unwrap();
    assert!(l.valid(999) && !l.valid(1000));
    assert!(s.revoke_link("b1", "l1").await.unwrap());
    assert!(!s.revoke_link("b1", "l1").await.unwrap());
    assert!(!s.link("l1").await.unwrap().unwrap().valid(0));
    assert!(s.links("b1").await.unwrap().is_empty());
    assert!(s.set_member_role("b1", "u-1", Role::Viewer).await.unwrap());
    assert_eq!(s.members("b1").await.unwrap()[0].name, "Ann");
    assert!(s.remove_member("b1", "u-1").await.unwrap());
    s.delete_board("b1").await.unwrap();
    assert!(s.board_meta("b1").await.unwrap().is_none());
}

#[tokio::test]
async fn auth_17_store_contract_memory() {
    contract(&AuthStore::memory().unwrap()).await;
}

#[tokio::test]
async fn auth_17_store_contract_sqlite_and_it_survives_a_reopen() {
    let dir = std::env::temp_dir().join(format!("auth-store-{}", uuid::Uuid::new_v4()));
    contract(&AuthStore::sqlite(&dir).await.unwrap()).await;
    let again = AuthStore::sqlite(&dir).await.unwrap();
    let (k, new) = again.meta_or_insert("signing_key", "cc").await.unwrap();
    assert_eq!((k.as_str(), new), ("aa", false));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn auth_17_store_contract_postgres() {
    if skip_without_pg("auth store") {
        return;
    }
    let schema = pg_schema();
    contract(&AuthStore::postgres(PG_URL, Some(&schema)).await.unwrap()).await;
    drop_schema(&schema).await;
}
