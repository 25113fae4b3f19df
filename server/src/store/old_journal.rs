//! Commit journals left by older servers (STORE-27). Those made SQLite's group commits durable in
//! journal files of their own (`journal-<n>.log` beside `boards.db`) and copied the records into
//! the database later. Such files are read once when the store opens: their records go into the
//! database (records it already holds are skipped), then the files are deleted. Nothing writes
//! them any more.
//!
//! Format: [`MAGIC`], then frames of `len: u32`, `crc: u32` (CRC-32 of the payload) and `len`
//! bytes of payload; a payload is records one after another, each `board_len: u16`, the board
//! id, `seq: u64`, the record's checksum `u32`, `payload_len: u32` and the command's JSON (all
//! little-endian). A file is read up to its first incomplete or damaged frame: a torn tail is an
//! append that never returned `Ok`.

use super::sqlite::Db;
use super::sqlite_tx::{append_rows, stored_seq};
use super::{EncodedRecord, StoreError, checksum};
use bytes::Bytes;
use protocol::{BoardId, Seq};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The first bytes of every journal file.
pub(super) const MAGIC: &[u8; 8] = b"BJRNL\0\0\x01";

/// Replays every journal file under `dir` into the database, then deletes the files.
pub(super) fn fold_old_journals(db: &mut Db, dir: &Path) -> Result<(), StoreError> {
    let io = |e: std::io::Error| StoreError::Unavailable(format!("old journal: {e}"));
    let mut files: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("journal-") && name.ends_with(".log") {
            files.push(path);
        }
    }
    if files.is_empty() {
        return Ok(());
    }
    // Zero-padded numbers: the names sort in append order.
    files.sort();
    for path in &files {
        let (records, tail) = read_file(Bytes::from(std::fs::read(path).map_err(io)?));
        if let Some(tail) = tail {
            tracing::warn!(file = %path.display(), %tail, "old journal: torn tail dropped");
        }
        tracing::info!(file = %path.display(), records = records.len(), "old journal replayed");
        replay(db, records)?;
    }
    for path in &files {
        std::fs::remove_file(path).map_err(io)?;
    }
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io)
}

/// Writes the records the database does not hold yet, one transaction per stretch in which
/// every board's seqs follow on (what a commit accepts).
fn replay(db: &mut Db, records: Vec<EncodedRecord>) -> Result<(), StoreError> {
    let mut stored: HashMap<BoardId, Seq> = HashMap::new();
    let mut in_chunk: HashMap<BoardId, Seq> = HashMap::new();
    let mut chunk: Vec<EncodedRecord> = Vec::new();
    for r in records {
        let have = match stored.get(&r.board) {
            Some(s) => *s,
            None => stored_seq(&db.conn, &r.board)?.unwrap_or(0),
        };
        if r.seq <= have {
            continue;
        }
        if in_chunk.get(&r.board).is_some_and(|l| l + 1 != r.seq) {
            append_rows(db, &std::mem::take(&mut chunk))?;
            in_chunk.clear();
        }
        stored.insert(r.board.clone(), r.seq);
        in_chunk.insert(r.board.clone(), r.seq);
        chunk.push(r);
    }
    if !chunk.is_empty() {
        append_rows(db, &chunk)?;
    }
    Ok(())
}

/// The records of a whole file, and why reading stopped early if it did.
pub(super) fn read_file(bytes: Bytes) -> (Vec<EncodedRecord>, Option<String>) {
    let mut out = Vec::new();
    if !bytes.starts_with(MAGIC) {
        return (out, (!bytes.is_empty()).then(|| "bad magic".to_owned()));
    }
    let mut at = MAGIC.len();
    while at < bytes.len() {
        let frame = (|| {
            let len = usize::try_from(u32_at(&bytes, at)?).ok()?;
            let body = bytes.get(at + 8..at.checked_add(8 + len)?)?;
            (checksum(body) == u32_at(&bytes, at + 4)?).then_some(at + 8 + len)
        })();
        let Some(end) = frame else {
            return (out, Some(format!("torn or damaged frame at byte {at}")));
        };
        let mut p = at + 8;
        while p < end {
            let Some((rec, next)) = record_at(&bytes, p, end) else {
                return (out, Some(format!("bad record at byte {p}")));
            };
            out.push(rec);
            p = next;
        }
        at = end;
    }
    (out, None)
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The record at `p` (inside a frame ending at `end`) and where the next one starts.
fn record_at(b: &Bytes, p: usize, end: usize) -> Option<(EncodedRecord, usize)> {
    let blen = usize::from(u16::from_le_bytes(b.get(p..p + 2)?.try_into().ok()?));
    let board = std::str::from_utf8(b.get(p + 2..p + 2 + blen)?).ok()?;
    let board = BoardId::try_from(board.to_owned()).ok()?;
    let q = p + 2 + blen;
    let seq = u64::from_le_bytes(b.get(q..q + 8)?.try_into().ok()?);
    let crc = u32_at(b, q + 8)?;
    let plen = usize::try_from(u32_at(b, q + 12)?).ok()?;
    let start = q + 16;
    let stop = start.checked_add(plen).filter(|s| *s <= end)?;
    let payload = b.slice(start..stop);
    Some((
        EncodedRecord {
            board,
            seq,
            payload,
            crc,
        },
        stop,
    ))
}
