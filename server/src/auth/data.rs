//! The auth store's operations: accounts, sessions, login codes, board metadata, members and
//! share links. Secrets (session cookies, login codes, link tokens) are stored as SHA-256 hashes.

use super::store::{AuthStore, AuthStoreError, Row, Val};
use protocol::Role;
use serde::Serialize;

/// What kind of account a user is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UserKind {
    Owner,
    Member,
    Guest,
}

impl UserKind {
    fn as_str(self) -> &'static str {
        match self {
            UserKind::Owner => "owner",
            UserKind::Member => "member",
            UserKind::Guest => "guest",
        }
    }

    fn parse(s: &str) -> UserKind {
        match s {
            "owner" => UserKind::Owner,
            "member" => UserKind::Member,
            _ => UserKind::Guest,
        }
    }
}

/// A local account.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct User {
    pub id: String,
    pub name: String,
    pub kind: UserKind,
}

fn user_of(r: &Row, k: usize) -> User {
    User {
        id: r.s(k),
        name: r.s(k + 1),
        kind: UserKind::parse(&r.s(k + 2)),
    }
}

/// A board's title, owner and creation time.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardMeta {
    pub id: String,
    pub title: String,
    pub owner: String,
    pub created_at: i64,
}

/// A member row: a user's stored role on a board, and the link it came through (if any).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Member {
    pub user: String,
    pub name: String,
    pub role: Role,
    pub via_link: Option<String>,
}

/// A share link (never its token).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    pub id: String,
    #[serde(skip)]
    pub board: String,
    pub role: Role,
    pub expires_at: Option<i64>,
    #[serde(skip)]
    pub revoked: bool,
    pub created_at: i64,
}

impl Link {
    /// Whether the link still admits anyone at `now` (unix seconds).
    pub fn valid(&self, now: i64) -> bool {
        !self.revoked && self.expires_at.is_none_or(|e| e > now)
    }
}

/// A `board_meta` row (`id, title, owner, created_at`).
fn meta_of(r: &Row) -> BoardMeta {
    BoardMeta {
        id: r.s(0),
        title: r.s(1),
        owner: r.s(2),
        created_at: r.i(3).unwrap_or(0),
    }
}

fn link_of(r: &Row) -> Link {
    Link {
        id: r.s(0),
        board: r.s(1),
        role: Role::parse(&r.s(2)).unwrap_or(Role::Viewer),
        expires_at: r.i(3),
        revoked: r.i(4).unwrap_or(0) != 0,
        created_at: r.i(5).unwrap_or(0),
    }
}

fn role_of(r: &Row, k: usize) -> Role {
    Role::parse(&r.s(k)).unwrap_or(Role::Viewer)
}

impl AuthStore {
    /// The stored value of `k` in `auth_meta`, inserting `fresh` first if there is none (so
    /// concurrent first starts agree on one value). Returns the value and whether it was new.
    pub async fn meta_or_insert(
        &self,
        k: &str,
        fresh: &str,
    ) -> Result<(String, bool), AuthStoreError> {
        // Read first: a restart (possibly on a full disk, DUR-8) writes nothing.
        if let Some(v) = self.meta(k).await? {
            return Ok((v, false));
        }
        let n = self
            .exec(
                "INSERT INTO auth_meta (k, v) VALUES ($1, $2) ON CONFLICT (k) DO NOTHING",
                vec![k.into(), fresh.into()],
            )
            .await?;
        let rows = self
            .query("SELECT v FROM auth_meta WHERE k = $1", vec![k.into()])
            .await?;
        let v = rows
            .first()
            .and_then(|r| r.t(0))
            .ok_or_else(|| AuthStoreError(format!("auth_meta {k} missing")))?;
        Ok((v, n == 1))
    }

    /// The stored value of `k` in `auth_meta`, if any.
    pub async fn meta(&self, k: &str) -> Result<Option<String>, AuthStoreError> {
        let rows = self
            .query("SELECT v FROM auth_meta WHERE k = $1", vec![k.into()])
            .await?;
        Ok(rows.first().and_then(|r| r.t(0)))
    }

    pub async fn create_user(
        &self,
        id: &str,
        name: &str,
        kind: UserKind,
        now: i64,
    ) -> Result<User, AuthStoreError> {
        self.exec(
            "INSERT INTO auth_users (id, name, kind, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (id) DO NOTHING",
            vec![id.into(), name.into(), kind.as_str().into(), now.into()],
        )
        .await?;
        self.user(id)
            .await?
            .ok_or_else(|| AuthStoreError(format!("user {id} missing")))
    }

    pub async fn user(&self, id: &str) -> Result<Option<User>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT id, name, kind FROM auth_users WHERE id = $1",
                vec![id.into()],
            )
            .await?;
        Ok(rows.first().map(|r| user_of(r, 0)))
    }

    /// The member account called `name` (the first created, if several).
    pub async fn member_named(&self, name: &str) -> Result<Option<User>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT id, name, kind FROM auth_users WHERE name = $1 AND kind = 'member' \
                 ORDER BY created_at, id LIMIT 1",
                vec![name.into()],
            )
            .await?;
        Ok(rows.first().map(|r| user_of(r, 0)))
    }

    pub async fn rename_user(&self, id: &str, name: &str) -> Result<(), AuthStoreError> {
        self.exec(
            "UPDATE auth_users SET name = $2 WHERE id = $1",
            vec![id.into(), name.into()],
        )
        .await?;
        Ok(())
    }

    pub async fn add_login_code(
        &self,
        hash: &str,
        user: &str,
        expires_at: i64,
    ) -> Result<(), AuthStoreError> {
        self.exec(
            "INSERT INTO auth_login_codes (hash, user_id, expires_at) VALUES ($1, $2, $3)",
            vec![hash.into(), user.into(), expires_at.into()],
        )
        .await?;
        Ok(())
    }

    /// Consumes a login code (one use): the user it signs in, if it exists and has not expired.
    pub async fn take_login_code(
        &self,
        hash: &str,
        now: i64,
    ) -> Result<Option<User>, AuthStoreError> {
        let rows = self
            .query(
                "DELETE FROM auth_login_codes WHERE hash = $1 RETURNING user_id, expires_at",
                vec![hash.into()],
            )
            .await?;
        let Some(r) = rows.first() else {
            return Ok(None);
        };
        if r.i(1).unwrap_or(0) <= now {
            return Ok(None);
        }
        self.user(&r.s(0)).await
    }

    /// The user a login code signs in as, without using it (None: unknown or expired).
    pub async fn login_code_user(
        &self,
        hash: &str,
        now: i64,
    ) -> Result<Option<User>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT user_id FROM auth_login_codes WHERE hash = $1 AND expires_at > $2",
                vec![hash.into(), now.into()],
            )
            .await?;
        match rows.first() {
            Some(r) => self.user(&r.s(0)).await,
            None => Ok(None),
        }
    }

    pub async fn add_session(
        &self,
        hash: &str,
        user: &str,
        expires_at: i64,
    ) -> Result<(), AuthStoreError> {
        self.exec(
            "INSERT INTO auth_sessions (hash, user_id, expires_at) VALUES ($1, $2, $3)",
            vec![hash.into(), user.into(), expires_at.into()],
        )
        .await?;
        Ok(())
    }

    /// The user of a live session.
    pub async fn session_user(&self, hash: &str, now: i64) -> Result<Option<User>, AuthStoreError> {
        Ok(self.session(hash, now).await?.map(|(u, _)| u))
    }

    /// The user of a live session and when the session ends (unix seconds).
    pub async fn session(
        &self,
        hash: &str,
        now: i64,
    ) -> Result<Option<(User, i64)>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT u.id, u.name, u.kind, s.expires_at FROM auth_sessions s JOIN auth_users u \
                 ON u.id = s.user_id WHERE s.hash = $1 AND s.expires_at > $2",
                vec![hash.into(), now.into()],
            )
            .await?;
        Ok(rows.first().map(|r| (user_of(r, 0), r.i(3).unwrap_or(now))))
    }

    pub async fn delete_session(&self, hash: &str) -> Result<(), AuthStoreError> {
        self.exec(
            "DELETE FROM auth_sessions WHERE hash = $1",
            vec![hash.into()],
        )
        .await?;
        Ok(())
    }

    /// Records a new board's title and owner; false if the board already had them.
    pub async fn create_board_meta(
        &self,
        id: &str,
        title: &str,
        owner: &str,
        now: i64,
    ) -> Result<bool, AuthStoreError> {
        let n = self
            .exec(
                "INSERT INTO board_meta (id, title, owner, created_at) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (id) DO NOTHING",
                vec![id.into(), title.into(), owner.into(), now.into()],
            )
            .await?;
        Ok(n == 1)
    }

    pub async fn board_meta(&self, id: &str) -> Result<Option<BoardMeta>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT id, title, owner, created_at FROM board_meta WHERE id = $1",
                vec![id.into()],
            )
            .await?;
        Ok(rows.first().map(meta_of))
    }

    /// How many boards `owner` owns (QUOTA-1).
    pub async fn boards_owned(&self, owner: &str) -> Result<i64, AuthStoreError> {
        let rows = self
            .query(
                "SELECT COUNT(*) FROM board_meta WHERE owner = $1",
                vec![owner.into()],
            )
            .await?;
        Ok(rows.first().and_then(|r| r.i(0)).unwrap_or(0))
    }

    /// Bytes of the tables in the current PostgreSQL schema (QUOTA-3).
    pub async fn postgres_schema_bytes(&self) -> Result<i64, AuthStoreError> {
        let rows = self
            .query(
                "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint \
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = current_schema() AND c.relkind = 'r'",
                vec![],
            )
            .await?;
        Ok(rows.first().and_then(|r| r.i(0)).unwrap_or(0))
    }

    /// Every board's metadata.
    pub async fn all_board_meta(&self) -> Result<Vec<BoardMeta>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT id, title, owner, created_at FROM board_meta",
                vec![],
            )
            .await?;
        Ok(rows.iter().map(meta_of).collect())
    }

    /// Sets a board's title, creating its metadata (owned by `owner`) if it had none.
    pub async fn set_title(
        &self,
        id: &str,
        title: &str,
        owner: &str,
        now: i64,
    ) -> Result<(), AuthStoreError> {
        self.exec(
            "INSERT INTO board_meta (id, title, owner, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (id) DO UPDATE SET title = excluded.title",
            vec![id.into(), title.into(), owner.into(), now.into()],
        )
        .await?;
        Ok(())
    }

    /// Forgets everything about a board: metadata, members, links.
    pub async fn delete_board(&self, id: &str) -> Result<(), AuthStoreError> {
        self.exec(
            "DELETE FROM board_members WHERE board = $1",
            vec![id.into()],
        )
        .await?;
        self.exec("DELETE FROM share_links WHERE board = $1", vec![id.into()])
            .await?;
        self.exec("DELETE FROM board_meta WHERE id = $1", vec![id.into()])
            .await?;
        Ok(())
    }

    /// A user's member row on a board.
    pub async fn member(
        &self,
        board: &str,
        user: &str,
    ) -> Result<Option<(Role, Option<String>)>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT role, link_id FROM board_members WHERE board = $1 AND user_id = $2",
                vec![board.into(), user.into()],
            )
            .await?;
        Ok(rows.first().map(|r| (role_of(r, 0), r.t(1))))
    }

    /// Every member row of a user: (board, role, link id).
    pub async fn memberships(
        &self,
        user: &str,
    ) -> Result<Vec<(String, Role, Option<String>)>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT board, role, link_id FROM board_members WHERE user_id = $1",
                vec![user.into()],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| (r.s(0), role_of(r, 1), r.t(2)))
            .collect())
    }

    /// Adds (or replaces) a member row.
    pub async fn put_member(
        &self,
        board: &str,
        user: &str,
        role: Role,
        link: Option<&str>,
    ) -> Result<(), AuthStoreError> {
        self.exec(
            "INSERT INTO board_members (board, user_id, role, link_id) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (board, user_id) DO UPDATE SET role = excluded.role, \
             link_id = excluded.link_id",
            vec![
                board.into(),
                user.into(),
                role.as_str().into(),
                Val::T(link.map(str::to_owned)),
            ],
        )
        .await?;
        Ok(())
    }

    /// Changes a member's role; false if there is no such member.
    pub async fn set_member_role(
        &self,
        board: &str,
        user: &str,
        role: Role,
    ) -> Result<bool, AuthStoreError> {
        let n = self
            .exec(
                "UPDATE board_members SET role = $3 WHERE board = $1 AND user_id = $2",
                vec![board.into(), user.into(), role.as_str().into()],
            )
            .await?;
        Ok(n > 0)
    }

    /// Removes a member; false if there was none.
    pub async fn remove_member(&self, board: &str, user: &str) -> Result<bool, AuthStoreError> {
        let n = self
            .exec(
                "DELETE FROM board_members WHERE board = $1 AND user_id = $2",
                vec![board.into(), user.into()],
            )
            .await?;
        Ok(n > 0)
    }

    /// A board's members with their display names.
    pub async fn members(&self, board: &str) -> Result<Vec<Member>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT m.user_id, COALESCE(u.name, m.user_id), m.role, m.link_id \
                 FROM board_members m LEFT JOIN auth_users u ON u.id = m.user_id \
                 WHERE m.board = $1 ORDER BY m.user_id",
                vec![board.into()],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| Member {
                user: r.s(0),
                name: r.s(1),
                role: role_of(r, 2),
                via_link: r.t(3),
            })
            .collect())
    }

    /// The users whose member row came through a link.
    pub async fn members_via(&self, link: &str) -> Result<Vec<String>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT user_id FROM board_members WHERE link_id = $1",
                vec![link.into()],
            )
            .await?;
        Ok(rows.iter().map(|r| r.s(0)).collect())
    }

    #[allow(clippy::too_many_arguments)]
    pub async fn create_link(
        &self,
        id: &str,
        token_hash: &str,
        board: &str,
        role: Role,
        expires_at: Option<i64>,
        now: i64,
    ) -> Result<(), AuthStoreError> {
        self.exec(
            "INSERT INTO share_links (id, token_hash, board, role, expires_at, revoked, \
             created_at) VALUES ($1, $2, $3, $4, $5, 0, $6)",
            vec![
                id.into(),
                token_hash.into(),
                board.into(),
                role.as_str().into(),
                expires_at.into(),
                now.into(),
            ],
        )
        .await?;
        Ok(())
    }

    pub async fn link_by_token(&self, token_hash: &str) -> Result<Option<Link>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT id, board, role, expires_at, revoked, created_at FROM share_links \
                 WHERE token_hash = $1",
                vec![token_hash.into()],
            )
            .await?;
        Ok(rows.first().map(link_of))
    }

    pub async fn link(&self, id: &str) -> Result<Option<Link>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT id, board, role, expires_at, revoked, created_at FROM share_links \
                 WHERE id = $1",
                vec![id.into()],
            )
            .await?;
        Ok(rows.first().map(link_of))
    }

    /// A board's links that are not revoked, newest first.
    pub async fn links(&self, board: &str) -> Result<Vec<Link>, AuthStoreError> {
        let rows = self
            .query(
                "SELECT id, board, role, expires_at, revoked, created_at FROM share_links \
                 WHERE board = $1 AND revoked = 0 ORDER BY created_at DESC, id",
                vec![board.into()],
            )
            .await?;
        Ok(rows.iter().map(link_of).collect())
    }

    /// Revokes a link of a board; false if the board has no such live link.
    pub async fn revoke_link(&self, board: &str, id: &str) -> Result<bool, AuthStoreError> {
        let n = self
            .exec(
                "UPDATE share_links SET revoked = 1 WHERE board = $1 AND id = $2 AND revoked = 0",
                vec![board.into(), id.into()],
            )
            .await?;
        Ok(n > 0)
    }
}

/// The counts quotas ask of the account store (QUOTA-1, QUOTA-3).
impl crate::quota::Accounts for AuthStore {
    type Error = AuthStoreError;

    fn boards_owned(
        &self,
        owner: &str,
    ) -> impl std::future::Future<Output = Result<i64, AuthStoreError>> + Send {
        AuthStore::boards_owned(self, owner)
    }

    fn schema_bytes(
        &self,
    ) -> impl std::future::Future<Output = Result<i64, AuthStoreError>> + Send {
        self.postgres_schema_bytes()
    }
}
