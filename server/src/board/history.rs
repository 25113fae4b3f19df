//! A board's versions (HIST-2..5): what changed since the last version and who changed it,
//! automatic checkpoints (a burst of editing ended, every `--history-every-secs` while editing
//! goes on, the last person left), named versions, and restore as one command. The store keeps
//! the versions (`store::versions`); retention is the store's (`store::retention`).

use super::Board;
use crate::store::{Author, StoreError, Summary, VersionInfo, VersionKind, VersionMeta};
use actix::{ActorFutureExt, AsyncContext, Context, Handler, Message};
use protocol::{BoardObject, Change, ErrorBody, ErrorCode, ObjectId, Origin, Seq, UserId};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::oneshot;

/// What changed since the board's last version (net: an object created and deleted since is
/// neither).
#[derive(Debug, Default)]
pub struct Track {
    created: HashSet<ObjectId>,
    changed: HashSet<ObjectId>,
    deleted: HashSet<ObjectId>,
    authors: Vec<Author>,
    /// The last durable command since the last version (`None`: nothing to save).
    last_edit: Option<Instant>,
    /// When the last version was taken (or the board loaded).
    last_version: Option<Instant>,
    saving: bool,
    /// Named versions the board keeps, once a save told it (QUOTA-4).
    named: Option<u64>,
    /// A named version is being saved: another waits for it, so the count stays exact.
    naming: bool,
}

impl Track {
    fn note(&mut self, changes: &[Change], author: Author) {
        for c in changes {
            match c {
                Change::Created(o) => {
                    self.created.insert(o.id.clone());
                }
                Change::Updated { after, .. } => {
                    if !self.created.contains(&after.id) {
                        self.changed.insert(after.id.clone());
                    }
                }
                Change::Deleted(o) => {
                    if !self.created.remove(&o.id) {
                        self.changed.remove(&o.id);
                        self.deleted.insert(o.id.clone());
                    }
                }
            }
        }
        if !self.authors.iter().any(|a| a.id == author.id) {
            self.authors.push(author);
        }
        self.last_edit = Some(Instant::now());
    }

    /// The description of a version taken now; starts a new tracking period.
    fn take(&mut self, kind: VersionKind, name: Option<String>, objects: usize) -> VersionMeta {
        let meta = VersionMeta {
            kind,
            name,
            authors: std::mem::take(&mut self.authors),
            summary: Summary {
                created: self.created.len() as u64,
                changed: self.changed.len() as u64,
                deleted: self.deleted.len() as u64,
            },
            objects: objects as u64,
            pictures: None,
        };
        self.created.clear();
        self.changed.clear();
        self.deleted.clear();
        self.last_edit = None;
        self.last_version = Some(Instant::now());
        meta
    }
}

/// Saves the board as a named version (`POST /api/boards/{id}/versions`), unless the board
/// already keeps `max` of them (QUOTA-4). Answered [`NotSaved::NotNow`] while commands are not
/// durable yet (the caller flushes and asks again), [`NotSaved::Busy`] while another named
/// version is being saved.
#[derive(Message)]
#[rtype(result = "()")]
pub struct SaveVersion {
    pub name: String,
    pub by: Author,
    /// Named versions the store listed for the board just before (the board's own count, once
    /// it has one, wins: it saw every save since).
    pub named: u64,
    /// `--max-named-versions`.
    pub max: u64,
    pub done: oneshot::Sender<Result<VersionInfo, NotSaved>>,
}

/// Why a named version was not saved.
#[derive(Debug)]
pub enum NotSaved {
    /// Commands are not durable yet: flush and ask again.
    NotNow,
    /// Another named version is being saved: ask again shortly.
    Busy,
    /// The board keeps the most named versions it may (this many).
    Full(u64),
    Store(StoreError),
}

/// Makes the board what it was at a version, as one command by `user` (HIST-5).
#[derive(Message)]
#[rtype(result = "()")]
pub struct Restore {
    pub user: UserId,
    /// The version restored (what a board on another node is told: it reads the objects).
    pub version: u64,
    pub objects: Vec<BoardObject>,
    /// The seq of the restore command (the board's seq when nothing differed).
    pub done: oneshot::Sender<Result<Seq, ErrorBody>>,
}

impl Board {
    /// On load: a board whose seq is past its latest version has edits no version holds (the
    /// process that made them died before its automatic version): it counts as edited, so its
    /// next automatic version is not skipped.
    pub fn check_unversioned(&mut self, ctx: &mut Context<Self>) {
        let seq = self.log.seq();
        if seq == 0 {
            return;
        }
        let (store, id) = (self.env.store.clone(), self.id.clone());
        let listed = async move { store.list_versions(&id).await };
        let checked = actix::fut::wrap_future::<_, Self>(listed).map(move |listed, act, _| {
            let Ok(versions) = listed else { return };
            let latest = versions.iter().map(|v| v.seq).max().unwrap_or(0);
            if latest < seq && act.history.last_edit.is_none() {
                act.history.last_edit = Some(Instant::now());
            }
        });
        ctx.spawn(checked);
    }

    /// A durable command's changes, for the next version's summary.
    pub fn track_version(&mut self, changes: &[Change], author: &UserId) {
        let name = self
            .users
            .get(author)
            .map(|s| s.view.name.clone())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| author.to_string());
        self.history.note(
            changes,
            Author {
                id: author.to_string(),
                name,
            },
        );
    }

    /// Takes an automatic version when one is due: editing stopped for `--history-idle-secs`,
    /// or went on for `--history-every-secs` since the last one, or (`left`) the last person
    /// left. Only a fully durable state is saved.
    pub fn checkpoint_if_due(&mut self, left: bool) {
        let Some(edit) = self.history.last_edit else {
            return;
        };
        if self.history.saving || !self.log.settled() {
            return;
        }
        let cfg = &self.env.config;
        let since_version = self.history.last_version.unwrap_or(edit);
        let due = left
            || edit.elapsed() >= cfg.history_idle()
            || since_version.elapsed() >= cfg.history_every();
        if due {
            self.save_version(VersionKind::Automatic, None, None);
        }
    }

    /// Saves the current (durable) state as a version in the background, then applies the
    /// retention policy to the board's versions.
    fn save_version(
        &mut self,
        kind: VersionKind,
        name: Option<String>,
        done: Option<oneshot::Sender<Result<VersionInfo, NotSaved>>>,
    ) {
        let objects: Vec<BoardObject> = self.doc.sorted_objects().into_iter().cloned().collect();
        let meta = self.history.take(kind, name, objects.len());
        self.history.saving = true;
        let (store, id, seq) = (self.env.store.clone(), self.id.clone(), self.log.seq());
        let policy = self.env.config.retention();
        let me = self.me().cloned();
        self.env.rt.spawn(async move {
            let saved = store.save_version(&id, seq, meta, &objects).await;
            match &saved {
                Ok(v) => {
                    tracing::debug!(board = %id, seq, version = v.id, "version saved");
                    if let Err(e) = store.apply_retention(&id, &policy).await {
                        tracing::warn!(board = %id, error = %e, "version retention failed");
                    }
                }
                Err(e) => tracing::warn!(board = %id, seq, error = %e, "version not saved"),
            }
            if let Some(me) = me {
                me.do_send(VersionSaved {
                    kind,
                    ok: saved.is_ok(),
                });
            }
            if let Some(done) = done {
                let _ = done.send(saved.map_err(NotSaved::Store));
            }
        });
    }
}

/// A background version save finished.
#[derive(Message)]
#[rtype(result = "()")]
struct VersionSaved {
    kind: VersionKind,
    ok: bool,
}

impl Handler<VersionSaved> for Board {
    type Result = ();
    fn handle(&mut self, msg: VersionSaved, _ctx: &mut Context<Self>) {
        self.history.saving = false;
        if msg.kind == VersionKind::Named {
            self.history.naming = false;
            if msg.ok {
                self.history.named = self.history.named.map(|n| n + 1);
            }
        }
    }
}

impl Handler<SaveVersion> for Board {
    type Result = ();
    fn handle(&mut self, msg: SaveVersion, _ctx: &mut Context<Self>) {
        if !self.log.settled() {
            let _ = msg.done.send(Err(NotSaved::NotNow));
            return;
        }
        if self.history.naming {
            let _ = msg.done.send(Err(NotSaved::Busy));
            return;
        }
        let named = *self.history.named.get_or_insert(msg.named);
        if named >= msg.max {
            let _ = msg.done.send(Err(NotSaved::Full(named)));
            return;
        }
        self.history.naming = true;
        self.history.note(&[], msg.by);
        self.save_version(VersionKind::Named, Some(msg.name), Some(msg.done));
    }
}

impl Handler<Restore> for Board {
    type Result = ();
    fn handle(&mut self, msg: Restore, _ctx: &mut Context<Self>) {
        if let Err(e) = self.admission() {
            let _ = msg.done.send(Err(e));
            return;
        }
        if msg.objects.len() > self.env.config.max_objects {
            let _ = msg.done.send(Err(ErrorBody::new(
                ErrorCode::LimitExceeded,
                "that version holds more objects than a board may",
            )));
            return;
        }
        // The state before the restore is a version of its own, so nothing is lost from history.
        if self.history.last_edit.is_some() && !self.history.saving && !self.log.has_pending() {
            self.save_version(VersionKind::Automatic, None, None);
        }
        let seq = self.log.next_seq();
        let out = self.doc.restore(&msg.objects, seq);
        if out.ops.is_empty() {
            let _ = msg.done.send(Ok(self.log.seq()));
            return;
        }
        let changes: Arc<[Change]> = out.changes.into();
        let seq = self.record(
            &msg.user,
            Origin::Restore,
            out.ops,
            changes.clone(),
            None,
            None,
            Instant::now(),
        );
        self.push_undo(&msg.user, seq, &changes);
        let _ = msg.done.send(Ok(seq));
    }
}
