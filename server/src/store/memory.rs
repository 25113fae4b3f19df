//! The in-memory backend: the same rules as the durable ones, minus durability. The payloads are
//! kept encoded (with their checksums) so load-time validation runs exactly as on disk.

use super::backend::Backend;
use super::comments::{MAX_NOTIFICATIONS, Notification, ThreadRow};
use super::versions::{NewVersion, VersionRow};
use super::{
    AssetMeta, BoardInfo, EncodedRecord, EncodedSnapshot, LoadedBoard, RawRow, StoreError,
    Truncation, batch_ranges, check_tail, decode_snapshot, delete_through, now_ms, read_after,
    repair_reason, split_behind, warn_truncated,
};
use bytes::Bytes;
use protocol::{BoardId, Seq};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

struct MemSnapshot {
    seq: Seq,
    payload: Vec<u8>,
    crc: u32,
    objects: u64,
}

struct MemBoard {
    created_at: i64,
    updated_at: i64,
    seq: Seq,
    snapshot: Option<MemSnapshot>,
    /// seq -> (payload, crc). A payload shares the allocation of the command's `applied`
    /// frame (`LogRecord::payload`), so keeping it costs no copy.
    log: BTreeMap<Seq, (Bytes, i64)>,
}

impl MemBoard {
    fn new(now: i64) -> Self {
        MemBoard {
            created_at: now,
            updated_at: now,
            seq: 0,
            snapshot: None,
            log: BTreeMap::new(),
        }
    }

    fn snapshot_seq(&self) -> Seq {
        self.snapshot.as_ref().map_or(0, |s| s.seq)
    }
}

/// See the module docs.
#[derive(Clone, Default)]
pub struct MemoryStore {
    boards: Arc<Mutex<HashMap<BoardId, MemBoard>>>,
    /// Each board's versions as rows, by id (`super::versions`).
    versions: Arc<Mutex<HashMap<BoardId, Vec<VersionRow>>>>,
    /// Pictures by hash, and the hashes each board registered (`super::assets`).
    assets: Arc<Mutex<MemAssets>>,
    /// Comment threads by board and id, and notifications by (user, thread) (`super::comments`).
    comments: Arc<Mutex<MemComments>>,
}

#[derive(Default)]
struct MemComments {
    threads: HashMap<BoardId, BTreeMap<String, ThreadRow>>,
    notes: HashMap<(String, String), Notification>,
}

#[derive(Default)]
struct MemAssets {
    stored: HashMap<String, (AssetMeta, Bytes)>,
    boards: HashMap<BoardId, BTreeMap<String, MemReg>>,
}

/// One board's registration of a picture: registered, last seen in use, doomed (Unix ms).
#[derive(Clone, Copy)]
struct MemReg {
    added: i64,
    seen: i64,
    doomed: Option<i64>,
}

impl MemAssets {
    /// Registers `sha256` on `board` now (again, if doomed); true when the board did not have it.
    fn register(&mut self, board: &BoardId, sha256: &str, now: i64) -> bool {
        let fresh = MemReg {
            added: now,
            seen: now,
            doomed: None,
        };
        let set = self.boards.entry(board.clone()).or_default();
        set.insert(sha256.to_owned(), fresh).is_none()
    }

    fn meta(&self, sha256: &str, r: &MemReg) -> Option<AssetMeta> {
        if r.doomed.is_some() {
            return None;
        }
        let (m, _) = self.stored.get(sha256)?;
        Some(AssetMeta {
            added_at_ms: r.added,
            ..m.clone()
        })
    }
}

impl MemoryStore {
    fn lock(&self) -> MutexGuard<'_, HashMap<BoardId, MemBoard>> {
        // A panic while holding the lock cannot leave a half-applied batch: every method
        // validates before it mutates.
        self.boards.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn assets(&self) -> MutexGuard<'_, MemAssets> {
        self.assets.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn comments(&self) -> MutexGuard<'_, MemComments> {
        self.comments.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn versions(&self) -> MutexGuard<'_, HashMap<BoardId, Vec<VersionRow>>> {
        self.versions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends on the calling thread: validates the whole batch, then writes it.
    fn append_now(&self, rows: Vec<EncodedRecord>) -> Result<(), StoreError> {
        let mut boards = self.lock();
        for (board, lo, _) in batch_ranges(&rows)? {
            if let Some(b) = boards.get(&board)
                && lo <= b.seq
            {
                return Err(StoreError::Conflict(format!(
                    "board {board}: seq {lo} is not after the stored seq {}",
                    b.seq
                )));
            }
        }
        if let Some(r) = rows.iter().find(|r| {
            boards
                .get(&r.board)
                .is_some_and(|b| b.log.contains_key(&r.seq))
        }) {
            return Err(StoreError::Conflict(format!(
                "board {}: seq {} exists in the log",
                r.board, r.seq
            )));
        }
        let now = now_ms();
        for r in rows {
            let b = boards.entry(r.board).or_insert_with(|| MemBoard::new(now));
            b.log.insert(r.seq, (r.payload, i64::from(r.crc)));
            b.seq = b.seq.max(r.seq);
            b.updated_at = now;
        }
        Ok(())
    }
}

impl Backend for MemoryStore {
    fn kind(&self) -> &'static str {
        "memory"
    }

    fn syncs(&self) -> bool {
        false
    }

    async fn append(&self, rows: Vec<EncodedRecord>) -> Result<(), StoreError> {
        self.append_now(rows)
    }

    fn append_blocking(
        &self,
        rows: Vec<EncodedRecord>,
        _runtime: &tokio::runtime::Handle,
        _budget: std::time::Duration,
    ) -> Result<(), StoreError> {
        self.append_now(rows)
    }

    async fn load(&self, board: &BoardId) -> Result<Option<LoadedBoard>, StoreError> {
        let mut boards = self.lock();
        let Some(b) = boards.get_mut(board) else {
            return Ok(None);
        };
        let (snapshot_seq, objects) = match &b.snapshot {
            Some(s) => (s.seq, decode_snapshot(board, &s.payload, s.crc)?),
            None => (0, Vec::new()),
        };
        let rows = b
            .log
            .range(read_after(snapshot_seq) + 1..)
            .map(|(seq, (payload, crc))| RawRow {
                seq: *seq,
                payload: payload.to_vec(),
                crc: *crc,
            })
            .collect();
        let (behind, rows) = split_behind(snapshot_seq, rows);
        let checked = check_tail(snapshot_seq, rows);
        let truncated = repair_reason(&checked, b.seq).map(|reason| {
            let removed = b.log.split_off(&(checked.seq + 1)).len() as u64;
            b.seq = checked.seq;
            b.updated_at = now_ms();
            let t = Truncation {
                kept_seq: checked.seq,
                removed,
                reason,
            };
            warn_truncated("memory", board, &t);
            t
        });
        Ok(Some(LoadedBoard {
            snapshot_seq,
            behind,
            objects,
            tail: checked.tail,
            seq: checked.seq,
            truncated,
        }))
    }

    async fn save_snapshot(
        &self,
        board: &BoardId,
        seq: Seq,
        snap: EncodedSnapshot,
    ) -> Result<(), StoreError> {
        let mut boards = self.lock();
        let now = now_ms();
        // A board that was never written (or was deleted) gets no snapshot.
        let Some(b) = boards.get_mut(board) else {
            return Ok(());
        };
        if b.snapshot_seq() > seq {
            return Ok(());
        }
        b.snapshot = Some(MemSnapshot {
            seq,
            payload: snap.payload,
            crc: snap.crc,
            objects: snap.objects,
        });
        b.log = b.log.split_off(&(delete_through(seq) + 1));
        b.seq = b.seq.max(seq);
        b.updated_at = now;
        Ok(())
    }

    async fn truncate_after(&self, board: &BoardId, seq: Seq) -> Result<(), StoreError> {
        let mut boards = self.lock();
        if let Some(b) = boards.get_mut(board) {
            b.log.split_off(&(seq + 1));
            let floor = seq.max(b.snapshot_seq());
            if b.seq > floor {
                b.seq = floor;
                b.updated_at = now_ms();
            }
        }
        Ok(())
    }

    async fn list_boards(&self) -> Result<Vec<BoardInfo>, StoreError> {
        let boards = self.lock();
        let mut out: Vec<BoardInfo> = boards
            .iter()
            .map(|(id, b)| BoardInfo {
                id: id.clone(),
                seq: b.seq,
                snapshot_seq: b.snapshot_seq(),
                snapshot_objects: b.snapshot.as_ref().map_or(0, |s| s.objects),
                created_at_ms: b.created_at,
                updated_at_ms: b.updated_at,
            })
            .collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    async fn delete_board(&self, board: &BoardId) -> Result<bool, StoreError> {
        self.versions().remove(board);
        self.assets().boards.remove(board);
        let mut c = self.comments();
        c.threads.remove(board);
        c.notes.retain(|_, n| n.board != board.as_str());
        drop(c);
        Ok(self.lock().remove(board).is_some())
    }

    async fn save_thread(
        &self,
        board: &BoardId,
        row: ThreadRow,
        notes: Vec<Notification>,
    ) -> Result<(), StoreError> {
        let mut c = self.comments();
        let rows = c.threads.entry(board.clone()).or_default();
        if rows.get(&row.id).is_none_or(|old| old.cseq < row.cseq) {
            rows.insert(row.id.clone(), row);
        }
        for n in notes {
            c.notes.insert((n.user.clone(), n.thread.clone()), n);
        }
        Ok(())
    }

    async fn load_threads(&self, board: &BoardId) -> Result<Vec<ThreadRow>, StoreError> {
        let c = self.comments();
        Ok(c.threads
            .get(board)
            .map(|t| t.values().cloned().collect())
            .unwrap_or_default())
    }

    async fn notifications(&self, user: &str) -> Result<Vec<Notification>, StoreError> {
        let c = self.comments();
        let mut out: Vec<Notification> = c
            .notes
            .values()
            .filter(|n| n.user == user)
            .cloned()
            .collect();
        out.sort_by(|a, b| b.at_ms.cmp(&a.at_ms).then_with(|| a.thread.cmp(&b.thread)));
        out.truncate(usize::try_from(MAX_NOTIFICATIONS).unwrap_or(usize::MAX));
        Ok(out)
    }

    async fn mark_read(
        &self,
        user: &str,
        threads: Option<Vec<String>>,
        now: i64,
    ) -> Result<(), StoreError> {
        let mut c = self.comments();
        for n in c.notes.values_mut() {
            let named = threads.as_ref().is_none_or(|ts| ts.contains(&n.thread));
            if n.user == user && named && n.read_at.is_none() {
                n.read_at = Some(now);
            }
        }
        Ok(())
    }

    async fn put_asset(
        &self,
        board: &BoardId,
        meta: &AssetMeta,
        data: Bytes,
        now: i64,
    ) -> Result<bool, StoreError> {
        let mut a = self.assets();
        a.stored
            .entry(meta.sha256.clone())
            .or_insert_with(|| (meta.clone(), data));
        Ok(a.register(board, &meta.sha256, now))
    }

    async fn register_asset(
        &self,
        board: &BoardId,
        sha256: &str,
        now: i64,
    ) -> Result<Option<bool>, StoreError> {
        let mut a = self.assets();
        if !a.stored.contains_key(sha256) {
            return Ok(None);
        }
        Ok(Some(a.register(board, sha256, now)))
    }

    async fn board_assets(&self, board: &BoardId) -> Result<Vec<AssetMeta>, StoreError> {
        let a = self.assets();
        let Some(set) = a.boards.get(board) else {
            return Ok(Vec::new());
        };
        Ok(set.iter().filter_map(|(h, r)| a.meta(h, r)).collect())
    }

    async fn board_asset(
        &self,
        board: &BoardId,
        sha256: &str,
    ) -> Result<Option<AssetMeta>, StoreError> {
        let a = self.assets();
        let r = a.boards.get(board).and_then(|set| set.get(sha256));
        Ok(r.and_then(|r| a.meta(sha256, r)))
    }

    async fn stale_assets(
        &self,
        seen_before: i64,
        max: usize,
    ) -> Result<Vec<super::Stale>, StoreError> {
        let a = self.assets();
        let mut out = Vec::new();
        for (board, set) in &a.boards {
            for (sha256, r) in set.iter().filter(|(_, r)| r.seen < seen_before) {
                out.push(super::Stale {
                    board: board.clone(),
                    sha256: sha256.clone(),
                    doomed: r.doomed.is_some(),
                });
            }
        }
        out.sort_by(|x, y| x.board.cmp(&y.board));
        out.truncate(max);
        Ok(out)
    }

    async fn mark_assets(
        &self,
        board: &BoardId,
        names: &[String],
        mark: super::Mark,
        now: i64,
    ) -> Result<u64, StoreError> {
        let mut a = self.assets();
        let Some(set) = a.boards.get_mut(board) else {
            return Ok(0);
        };
        let mut n = 0;
        for name in names {
            let Some(r) = set.get_mut(name) else { continue };
            match mark {
                super::Mark::Touch => (r.seen, r.doomed) = (now, None),
                super::Mark::Doom { seen_before } if r.doomed.is_none() && r.seen < seen_before => {
                    r.doomed = Some(now)
                }
                super::Mark::Drop if r.doomed.is_some() => drop(set.remove(name)),
                _ => continue,
            }
            n += 1;
        }
        Ok(n)
    }

    async fn drop_orphan_assets(&self) -> Result<u64, StoreError> {
        let mut a = self.assets();
        let held: HashSet<String> = a.boards.values().flat_map(|s| s.keys().cloned()).collect();
        let before = a.stored.len();
        a.stored.retain(|h, _| held.contains(h));
        Ok((before - a.stored.len()) as u64)
    }

    async fn asset_bytes(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.assets().stored.get(sha256).map(|(_, b)| b.to_vec()))
    }

    async fn create_board(&self, board: &BoardId, snap: EncodedSnapshot) -> Result<(), StoreError> {
        let mut boards = self.lock();
        if boards.contains_key(board) {
            return Err(StoreError::Conflict(format!("board {board} exists")));
        }
        let mut b = MemBoard::new(now_ms());
        b.snapshot = Some(MemSnapshot {
            seq: 0,
            payload: snap.payload,
            crc: snap.crc,
            objects: snap.objects,
        });
        boards.insert(board.clone(), b);
        Ok(())
    }

    async fn board_exists(&self, board: &BoardId) -> Result<bool, StoreError> {
        Ok(self.lock().contains_key(board))
    }

    async fn save_version(&self, board: &BoardId, v: NewVersion) -> Result<i64, StoreError> {
        let mut all = self.versions();
        let list = all.entry(board.clone()).or_default();
        let id = list.last().map_or(0, |r| r.id) + 1;
        list.push(VersionRow::numbered(id, v));
        Ok(id)
    }

    async fn list_versions(&self, board: &BoardId) -> Result<Vec<VersionRow>, StoreError> {
        Ok(self
            .versions()
            .get(board)
            .map(|l| l.iter().map(VersionRow::listed).collect())
            .unwrap_or_default())
    }

    async fn load_version(
        &self,
        board: &BoardId,
        id: i64,
    ) -> Result<Option<VersionRow>, StoreError> {
        Ok(self
            .versions()
            .get(board)
            .and_then(|l| l.iter().find(|r| r.id == id).cloned()))
    }

    async fn delete_versions(&self, board: &BoardId, ids: Vec<i64>) -> Result<(), StoreError> {
        if let Some(l) = self.versions().get_mut(board) {
            l.retain(|r| !ids.contains(&r.id));
        }
        Ok(())
    }

    #[cfg(test)]
    async fn inject_raw_log_row(&self, board: &BoardId, row: RawRow) -> Result<(), StoreError> {
        let mut boards = self.lock();
        let b = boards
            .entry(board.clone())
            .or_insert_with(|| MemBoard::new(now_ms()));
        b.log.insert(row.seq, (Bytes::from(row.payload), row.crc));
        Ok(())
    }

    #[cfg(test)]
    async fn raw_log_seqs(&self, board: &BoardId) -> Result<Vec<Seq>, StoreError> {
        Ok(self
            .lock()
            .get(board)
            .map(|b| b.log.keys().copied().collect())
            .unwrap_or_default())
    }
}
