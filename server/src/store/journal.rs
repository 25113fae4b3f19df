//! The SQLite backend's commit journal (STORE-27): an append-only file of the server's own in
//! front of the database. A group commit is ONE frame appended to the current journal file and
//! ONE `fdatasync`; the records then wait in memory (and in the file) until a fold copies them
//! into SQLite in one large transaction, off the commit path (`sqlite_fold.rs`). A fold first
//! rotates the journal (new appends go to a new file) and deletes the old files only once its
//! transaction is durable, so every acknowledged record is always in SQLite, in a journal file,
//! or in both.
//!
//! # File format
//! `journal-<n>.log` under the data dir, `n` rising. The file starts with [`MAGIC`]; then frames,
//! each `len: u32 LE`, `crc: u32 LE` (CRC-32 of the payload) and `len` bytes of payload. A
//! payload is one batch: records one after another, each `board_len: u16`, the board id,
//! `seq: u64`, the record's checksum `u32`, `payload_len: u32` and the command's JSON (all
//! little-endian). Recovery reads each file up to its first incomplete or damaged frame: a torn
//! tail is an append that never returned `Ok`.

use super::{EncodedRecord, StoreError, batch_ranges};
use bytes::Bytes;
use protocol::{BoardId, Seq};
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The first bytes of every journal file.
pub(super) const MAGIC: &[u8; 8] = b"BJRNL\0\0\x01";

/// A fold is due once this many records wait. Larger folds give each board more records to
/// write as one run (STORE-25), and the journal is read back only after a crash.
pub(super) const FOLD_RECORDS: usize = 65_536;
/// ... or their payloads reach this many bytes.
pub(super) const FOLD_BYTES: usize = 16 << 20;
/// ... or the oldest of them has waited this long.
pub(super) const FOLD_AFTER: Duration = Duration::from_secs(2);
/// Appends fail (`Unavailable`) while this many bytes wait for a fold that keeps failing: the
/// database is down, and memory must stay bounded.
pub(super) const MAX_PENDING_BYTES: usize = 256 << 20;

/// Frame header: length and checksum.
const FRAME_HEADER: usize = 8;

fn io_err(what: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Unavailable(format!("journal: {what} {}: {e}", path.display()))
}

/// The path of journal file `n` under `dir`.
fn file_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("journal-{n:020}.log"))
}

/// The journal files under `dir`, oldest first, with their numbers.
pub(super) fn list_files(dir: &Path) -> Result<Vec<(u64, PathBuf)>, StoreError> {
    let rd = std::fs::read_dir(dir).map_err(|e| io_err("cannot list", dir, e))?;
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| io_err("cannot list", dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(n) = name
            .strip_prefix("journal-")
            .and_then(|s| s.strip_suffix(".log"))
            .and_then(|s| s.parse::<u64>().ok())
        {
            out.push((n, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// Makes a directory entry (a created or deleted file) durable.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_err("cannot sync directory", dir, e))
}

/// Appends `rows` to `buf` as one frame.
pub(super) fn encode_frame(rows: &[EncodedRecord], buf: &mut Vec<u8>) -> Result<(), StoreError> {
    let start = buf.len();
    buf.extend_from_slice(&[0; FRAME_HEADER]);
    for r in rows {
        let board = r.board.as_str().as_bytes();
        let blen = u16::try_from(board.len())
            .map_err(|_| StoreError::Conflict(format!("board id of {} bytes", board.len())))?;
        let plen = u32::try_from(r.payload.len())
            .map_err(|_| StoreError::Conflict(format!("record of {} bytes", r.payload.len())))?;
        buf.extend_from_slice(&blen.to_le_bytes());
        buf.extend_from_slice(board);
        buf.extend_from_slice(&r.seq.to_le_bytes());
        buf.extend_from_slice(&r.crc.to_le_bytes());
        buf.extend_from_slice(&plen.to_le_bytes());
        buf.extend_from_slice(&r.payload);
    }
    let body = &buf[start + FRAME_HEADER..];
    let len = u32::try_from(body.len())
        .map_err(|_| StoreError::Conflict(format!("batch of {} bytes", body.len())))?;
    let crc = super::checksum(body);
    buf[start..start + 4].copy_from_slice(&len.to_le_bytes());
    buf[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
    Ok(())
}

/// A little-endian reader over a frame's payload; `None` once it runs out.
struct Cursor<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.data.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// The records of one frame's payload (`body`, a slice of `file` at `offset`), or why not.
fn decode_body(file: &Bytes, offset: usize, len: usize) -> Result<Vec<EncodedRecord>, String> {
    let body = &file[offset..offset + len];
    let mut c = Cursor { data: body, at: 0 };
    let mut out = Vec::new();
    while c.at < body.len() {
        let rec = (|| {
            let blen = usize::from(c.u16()?);
            let board = std::str::from_utf8(c.take(blen)?).ok()?.to_owned();
            let seq: Seq = c.u64()?;
            let crc = c.u32()?;
            let plen = usize::try_from(c.u32()?).ok()?;
            let at = c.at;
            c.take(plen)?;
            Some((board, seq, crc, offset + at, plen))
        })();
        let Some((board, seq, crc, at, plen)) = rec else {
            return Err("a record runs past its frame".into());
        };
        let board = BoardId::try_from(board).map_err(|e| format!("board id: {e}"))?;
        out.push(EncodedRecord {
            board,
            seq,
            payload: file.slice(at..at + plen),
            crc,
        });
    }
    Ok(out)
}

/// What one journal file holds.
#[derive(Debug, Default)]
pub(super) struct FileRecords {
    pub records: Vec<EncodedRecord>,
    /// Frames read whole.
    pub frames: usize,
    /// Why reading stopped before the end of the file (a torn or damaged tail).
    pub tail: Option<String>,
}

/// Reads `bytes` (a whole journal file): every frame up to the first incomplete or damaged one.
pub(super) fn read_file(bytes: Bytes) -> FileRecords {
    let mut out = FileRecords::default();
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        if !bytes.is_empty() {
            out.tail = Some("not a journal file (bad magic)".into());
        }
        return out;
    }
    let mut at = MAGIC.len();
    while at < bytes.len() {
        let Some(header) = bytes.get(at..at + FRAME_HEADER) else {
            out.tail = Some(format!("incomplete frame header at byte {at}"));
            break;
        };
        let len = u32::from_le_bytes([header[0], header[1], header[2], header[3]]) as usize;
        let crc = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
        let body_at = at + FRAME_HEADER;
        let Some(body) = bytes.get(body_at..body_at + len) else {
            out.tail = Some(format!("incomplete frame at byte {at}"));
            break;
        };
        if super::checksum(body) != crc {
            out.tail = Some(format!("frame checksum mismatch at byte {at}"));
            break;
        }
        match decode_body(&bytes, body_at, len) {
            Ok(records) => out.records.extend(records),
            Err(e) => {
                out.tail = Some(format!("frame at byte {at}: {e}"));
                break;
            }
        }
        out.frames += 1;
        at = body_at + len;
    }
    out
}

/// The records a fold takes, and the journal files it may delete once they are in SQLite.
pub(super) struct Taken {
    pub records: Vec<EncodedRecord>,
    pub files: Vec<PathBuf>,
}

/// The open journal: its current file, the records no fold has taken yet, and every board's
/// last seq (stored or journaled), against which appends are checked.
pub(super) struct Journal {
    dir: PathBuf,
    file: File,
    path: PathBuf,
    number: u64,
    /// Bytes of whole frames in the current file.
    len: u64,
    /// Files rotated out whose records wait for a fold.
    retired: Vec<PathBuf>,
    pending: Vec<EncodedRecord>,
    pending_bytes: usize,
    /// When the oldest pending record was appended.
    since: Option<Instant>,
    /// Every existing board's last seq.
    seqs: HashMap<BoardId, Seq>,
    /// An append failed, so the current file's tail is unknown: no append until a fold has
    /// rotated the file away (and deleted it once its good records are in SQLite).
    broken: bool,
    buf: Vec<u8>,
    /// [`FOLD_AFTER`], longer in tests that look at the journal before a fold.
    fold_after: Duration,
}

impl Journal {
    /// Starts journal file `number` under `dir` (the files before it have been folded).
    pub(super) fn create(
        dir: &Path,
        number: u64,
        seqs: HashMap<BoardId, Seq>,
    ) -> Result<Journal, StoreError> {
        let (file, path) = new_file(dir, number)?;
        Ok(Journal {
            dir: dir.to_path_buf(),
            file,
            path,
            number,
            len: MAGIC.len() as u64,
            retired: Vec::new(),
            pending: Vec::new(),
            pending_bytes: 0,
            since: None,
            seqs,
            broken: false,
            buf: Vec::new(),
            fold_after: FOLD_AFTER,
        })
    }

    /// Whether an append failed since the last rotation.
    pub(super) fn broken(&self) -> bool {
        self.broken
    }

    /// Whether a board exists (stored or journaled).
    pub(super) fn exists(&self, board: &BoardId) -> bool {
        self.seqs.contains_key(board)
    }

    /// Records what the database now says of a board's seq (`None`: it does not exist).
    pub(super) fn set_seq(&mut self, board: &BoardId, seq: Option<Seq>) {
        match seq {
            Some(s) => {
                self.seqs.insert(board.clone(), s);
            }
            None => {
                self.seqs.remove(board);
            }
        }
    }

    /// Records waiting for a fold (tests).
    #[cfg(test)]
    pub(super) fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Whether a fold is due (see [`FOLD_RECORDS`], [`FOLD_BYTES`], [`FOLD_AFTER`]).
    pub(super) fn fold_due(&self) -> bool {
        self.broken
            || self.pending.len() >= FOLD_RECORDS
            || self.pending_bytes >= FOLD_BYTES
            || self.since.is_some_and(|t| t.elapsed() >= self.fold_after)
    }

    /// Swaps the current file for a read-only handle on it, so that the next append fails as a
    /// full or failing disk would make it (tests).
    #[cfg(test)]
    pub(super) fn break_file(&mut self) {
        self.file = File::open(&self.path).expect("journal file");
    }

    /// Only record and byte counts make a fold due from now on (tests).
    #[cfg(test)]
    pub(super) fn hold_folds(&mut self) {
        self.fold_after = Duration::from_secs(3600);
    }

    /// Appends `rows` as one frame and syncs it: on `Ok` they are durable. Each board's seqs must
    /// be consecutive in the batch and above the board's last seq (`Conflict` otherwise, with
    /// nothing written).
    pub(super) fn append(&mut self, rows: Vec<EncodedRecord>) -> Result<(), StoreError> {
        if self.broken {
            return Err(StoreError::Unavailable(
                "journal: an earlier append failed and no fold has replaced the file yet".into(),
            ));
        }
        if self.pending_bytes >= MAX_PENDING_BYTES {
            return Err(StoreError::Unavailable(format!(
                "journal: {} MiB wait for the database (folds are failing)",
                self.pending_bytes >> 20
            )));
        }
        let ranges = batch_ranges(&rows)?;
        for (board, lo, _) in &ranges {
            if let Some(&last) = self.seqs.get(board)
                && *lo <= last
            {
                return Err(StoreError::Conflict(format!(
                    "board {board}: seq {lo} is not after the stored seq {last}"
                )));
            }
        }
        self.buf.clear();
        encode_frame(&rows, &mut self.buf)?;
        let written = self
            .file
            .write_all(&self.buf)
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            self.broken = true;
            return Err(io_err("cannot append to", &self.path, e));
        }
        self.len += self.buf.len() as u64;
        for (board, _, hi) in ranges {
            self.seqs.insert(board, hi);
        }
        if self.pending.is_empty() {
            self.since = Some(Instant::now());
        }
        self.pending_bytes += rows.iter().map(|r| r.payload.len()).sum::<usize>();
        // The batch is the journal's now: its records wait for the fold as they are.
        self.pending.extend(rows);
        // A large journal buffer is not kept between batches.
        if self.buf.capacity() > 4 << 20 {
            self.buf = Vec::new();
        }
        Ok(())
    }

    /// Starts a new file and hands over every pending record with the files that hold them.
    /// `None` when there is nothing to fold.
    pub(super) fn take(&mut self) -> Result<Option<Taken>, StoreError> {
        if self.pending.is_empty() && self.retired.is_empty() && !self.broken {
            return Ok(None);
        }
        // An empty, healthy file stays: nothing in it needs folding.
        if self.pending.is_empty() && !self.broken && self.len == MAGIC.len() as u64 {
            return Ok(Some(Taken {
                records: Vec::new(),
                files: std::mem::take(&mut self.retired),
            }));
        }
        let (file, path) = new_file(&self.dir, self.number + 1)?;
        self.number += 1;
        self.file = file;
        let old = std::mem::replace(&mut self.path, path);
        self.len = MAGIC.len() as u64;
        self.broken = false;
        self.retired.push(old);
        self.since = None;
        self.pending_bytes = 0;
        Ok(Some(Taken {
            records: std::mem::take(&mut self.pending),
            files: std::mem::take(&mut self.retired),
        }))
    }

    /// A fold of `taken` failed: its records wait again, before anything appended since.
    pub(super) fn give_back(&mut self, taken: Taken) {
        let Taken { mut records, files } = taken;
        self.pending_bytes += records.iter().map(|r| r.payload.len()).sum::<usize>();
        records.append(&mut self.pending);
        self.pending = records;
        if !self.pending.is_empty() {
            self.since.get_or_insert_with(Instant::now);
        }
        let mut files = files;
        files.append(&mut self.retired);
        self.retired = files;
    }
}

/// Creates journal file `number` with its magic, durable along with its directory entry.
fn new_file(dir: &Path, number: u64) -> Result<(File, PathBuf), StoreError> {
    let path = file_path(dir, number);
    let mut file = std::fs::OpenOptions::new()
        .create_new(true)
        .append(true)
        .open(&path)
        .map_err(|e| io_err("cannot create", &path, e))?;
    file.write_all(MAGIC)
        .and_then(|()| file.sync_data())
        .map_err(|e| io_err("cannot write", &path, e))?;
    sync_dir(dir)?;
    Ok((file, path))
}

/// Deletes journal files whose records are in the database (durably), then syncs the directory.
/// A file that cannot be deleted is only replayed again at the next open, where its records are
/// skipped as already stored.
pub(super) fn delete_files(dir: &Path, files: &[PathBuf]) {
    if files.is_empty() {
        return;
    }
    for f in files {
        if let Err(e) = std::fs::remove_file(f)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(file = %f.display(), error = %e, "cannot delete a folded journal file");
        }
    }
    if let Err(e) = sync_dir(dir) {
        tracing::warn!(error = %e, "cannot sync the data dir after deleting journal files");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(board: &str, seq: Seq, payload: &str) -> EncodedRecord {
        EncodedRecord {
            board: BoardId::try_from(board.to_string()).unwrap(),
            seq,
            payload: Bytes::from(payload.to_string()),
            crc: super::super::checksum(payload.as_bytes()),
        }
    }

    fn file_of(frames: &[Vec<EncodedRecord>]) -> Vec<u8> {
        let mut buf = MAGIC.to_vec();
        for f in frames {
            encode_frame(f, &mut buf).unwrap();
        }
        buf
    }

    fn summary(f: &FileRecords) -> Vec<(String, Seq, Vec<u8>)> {
        f.records
            .iter()
            .map(|r| (r.board.to_string(), r.seq, r.payload.to_vec()))
            .collect()
    }

    /// STORE-27: frames round-trip, record by record, with their checksums.
    #[test]
    fn store_27_frames_round_trip() {
        let a = vec![rec("a", 1, "{\"x\":1}"), rec("b", 7, "{}")];
        let b = vec![rec("a", 2, "{\"y\":2}")];
        let f = read_file(Bytes::from(file_of(&[a.clone(), b])));
        assert_eq!(f.frames, 2);
        assert_eq!(f.tail, None);
        assert_eq!(
            summary(&f),
            vec![
                ("a".into(), 1, b"{\"x\":1}".to_vec()),
                ("b".into(), 7, b"{}".to_vec()),
                ("a".into(), 2, b"{\"y\":2}".to_vec()),
            ]
        );
        assert_eq!(f.records[0].crc, a[0].crc);
    }

    /// STORE-27: a torn last frame (cut anywhere) is left out with everything after it; the
    /// frames before it are read whole.
    #[test]
    fn store_27_torn_tail_is_dropped() {
        let whole = file_of(&[vec![rec("a", 1, "{}")], vec![rec("a", 2, "{\"k\":true}")]]);
        let first = file_of(&[vec![rec("a", 1, "{}")]]).len();
        for cut in first..whole.len() {
            let f = read_file(Bytes::from(whole[..cut].to_vec()));
            assert_eq!(f.frames, 1, "cut at {cut}");
            assert_eq!(f.records.len(), 1);
            assert_eq!(f.tail.is_some(), cut > first, "cut at {cut}");
        }
    }

    /// STORE-27: a flipped byte inside a frame stops the read at that frame.
    #[test]
    fn store_27_damaged_frame_stops_the_read() {
        let mut bytes = file_of(&[
            vec![rec("a", 1, "{}")],
            vec![rec("a", 2, "{\"k\":1}")],
            vec![rec("a", 3, "{}")],
        ]);
        let second = file_of(&[vec![rec("a", 1, "{}")]]).len();
        bytes[second + FRAME_HEADER + 3] ^= 0x40;
        let f = read_file(Bytes::from(bytes));
        assert_eq!(f.frames, 1);
        assert!(f.tail.unwrap().contains("checksum"));
        let f = read_file(Bytes::from(b"not a journal".to_vec()));
        assert!(f.records.is_empty() && f.tail.is_some());
    }

    /// STORE-27: appends are checked against each board's last seq before anything is written;
    /// a fold takes every pending record and starts a new file, and gives them back if it fails.
    #[test]
    fn store_27_append_take_give_back() {
        let dir = std::env::temp_dir().join(format!("journal-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut seqs = HashMap::new();
        seqs.insert(BoardId::try_from("a".to_string()).unwrap(), 5);
        let mut j = Journal::create(&dir, 1, seqs).unwrap();
        assert!(matches!(
            j.append(vec![rec("a", 5, "{}")]),
            Err(StoreError::Conflict(_))
        ));
        assert!(matches!(
            j.append(vec![rec("b", 1, "{}"), rec("b", 3, "{}")]),
            Err(StoreError::Conflict(_))
        ));
        j.append(vec![rec("a", 6, "{}"), rec("b", 1, "{}")])
            .unwrap();
        j.append(vec![rec("a", 7, "{}")]).unwrap();
        assert_eq!(j.pending(), 3);
        let taken = j.take().unwrap().unwrap();
        assert_eq!(taken.records.len(), 3);
        assert_eq!(taken.files, vec![file_path(&dir, 1)]);
        j.append(vec![rec("a", 8, "{}")]).unwrap();
        let on_disk = read_file(Bytes::from(std::fs::read(&taken.files[0]).unwrap()));
        assert_eq!(on_disk.records.len(), 3);
        j.give_back(taken);
        assert_eq!(
            j.pending.iter().map(|r| r.seq).collect::<Vec<_>>(),
            vec![6, 1, 7, 8]
        );
        let again = j.take().unwrap().unwrap();
        assert_eq!(again.files, vec![file_path(&dir, 1), file_path(&dir, 2)]);
        delete_files(&dir, &again.files);
        assert_eq!(list_files(&dir).unwrap(), vec![(3, file_path(&dir, 3))]);
        assert!(j.take().unwrap().is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
