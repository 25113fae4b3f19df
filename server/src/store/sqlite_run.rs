//! Runs: several consecutive records of one board in one SQLite log row (schema version 4,
//! STORE-25) or stage row (version 5, STORE-26). This module is the row format only: how a run is framed and how a stored row is
//! split back into records. Which records form a run, and the SQL, are in `sqlite_stage.rs`.

use super::{RawRow, checksum};
use bytes::Bytes;
use protocol::Seq;

/// One record of a run: seq, payload, checksum.
pub(super) type Rec = (Seq, Bytes, u32);

/// A run's payload: per record, its length and checksum (u32, little-endian) and its bytes. A
/// run of one record is stored as the record itself (what every row of schema 3 and earlier
/// is), with its own checksum. Returns (last seq, checksum of the row's payload, records).
pub(super) fn encode_run(records: &[Rec], buf: &mut Vec<u8>) -> (Seq, u32, usize) {
    buf.clear();
    let last = records.last().map_or(0, |(seq, _, _)| *seq);
    if let [(_, payload, crc)] = records {
        buf.extend_from_slice(payload);
        return (last, *crc, 1);
    }
    for (_, payload, crc) in records {
        // A payload is one frame's command, far below 4 GiB (`max_frame_bytes`).
        let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
        buf.extend_from_slice(&len.to_le_bytes());
        buf.extend_from_slice(&crc.to_le_bytes());
        buf.extend_from_slice(payload);
    }
    (last, checksum(buf), records.len())
}

/// The records of a log row with seq above `after`, appended to `out`. A run whose framing is
/// damaged yields its records up to the damage, then one row that fails its checksum (so the
/// load's check stops there, STORE-8). Each record is checked against its own checksum, not
/// the run's, so damage in one record loses only the records from it on.
pub(super) fn split_row(
    last: Seq,
    payload: Vec<u8>,
    crc: i64,
    n: i64,
    after: Seq,
    out: &mut Vec<RawRow>,
) {
    if n == 1 {
        if last > after {
            out.push(RawRow {
                seq: last,
                payload,
                crc,
            });
        }
        return;
    }
    let damaged = |seq: Seq, out: &mut Vec<RawRow>| {
        out.push(RawRow {
            seq: seq.max(after + 1),
            payload: Vec::new(),
            crc: -1,
        });
    };
    let Some(first) = u64::try_from(n)
        .ok()
        .filter(|n| *n >= 1 && *n <= last)
        .map(|n| last + 1 - n)
    else {
        damaged(last, out);
        return;
    };
    let mut rest = &payload[..];
    for seq in first..=last {
        let field = |at: usize| -> Option<u32> {
            let b = rest.get(at..at + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let (Some(len), Some(crc)) = (field(0), field(4)) else {
            damaged(seq, out);
            return;
        };
        let Some(record) = rest.get(8..8 + len as usize) else {
            damaged(seq, out);
            return;
        };
        if seq > after {
            out.push(RawRow {
                seq,
                payload: record.to_vec(),
                crc: i64::from(crc),
            });
        }
        rest = &rest[8 + len as usize..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records `seqs` of one board, each with its checksum.
    fn records(seqs: std::ops::RangeInclusive<Seq>) -> Vec<Rec> {
        seqs.map(|s| {
            let payload = Bytes::from(format!("record {s}"));
            (s, payload.clone(), checksum(&payload))
        })
        .collect()
    }

    /// Splits a stored row back into records (all of them).
    fn split(last: Seq, payload: Vec<u8>, crc: u32, n: usize, after: Seq) -> Vec<RawRow> {
        let mut out = Vec::new();
        split_row(last, payload, i64::from(crc), n as i64, after, &mut out);
        out
    }

    // STORE-25: a run's row gives back each record with its own checksum; one record is stored
    // as itself; records at or below `after` are left out.
    #[test]
    fn runs_round_trip() {
        let recs = records(5..=9);
        let mut buf = Vec::new();
        let (last, crc, n) = encode_run(&recs, &mut buf);
        assert_eq!((last, n), (9, 5));
        assert_eq!(crc, checksum(&buf));
        let out = split(last, buf.clone(), crc, n, 6);
        let got: Vec<(Seq, Vec<u8>, i64)> =
            out.into_iter().map(|r| (r.seq, r.payload, r.crc)).collect();
        let want: Vec<(Seq, Vec<u8>, i64)> = recs[2..]
            .iter()
            .map(|(s, p, c)| (*s, p.to_vec(), i64::from(*c)))
            .collect();
        assert_eq!(got, want);

        let (last, crc, n) = encode_run(&recs[..1], &mut buf);
        assert_eq!((last, crc, n, &buf[..]), (5, recs[0].2, 1, &recs[0].1[..]));
    }

    // STORE-25 with STORE-8: damage in a run's framing keeps the records before it and ends in
    // a row that fails its checksum; a record whose bytes changed fails its own checksum.
    #[test]
    fn damaged_runs_stop_at_the_damage() {
        let recs = records(1..=4);
        let mut buf = Vec::new();
        let (last, crc, n) = encode_run(&recs, &mut buf);
        let cut = buf.len() - 3;
        let out = split(last, buf[..cut].to_vec(), crc, n, 0);
        assert_eq!(
            out.iter().map(|r| r.seq).collect::<Vec<_>>(),
            vec![1, 2, 3, 4]
        );
        assert_eq!((out[3].crc, out[3].payload.len()), (-1, 0));
        let mut flipped = buf.clone();
        flipped[9] ^= 1;
        let out = split(last, flipped, crc, n, 0);
        assert_eq!(out.len(), 4);
        assert_ne!(i64::from(checksum(&out[0].payload)), out[0].crc);
        // A count that cannot be: one bad row after `after`.
        let out = split(3, buf, crc, 7, 1);
        assert_eq!((out.len(), out[0].seq, out[0].crc), (1, 3, -1));
    }
}
