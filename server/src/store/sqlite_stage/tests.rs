//! The stage's planning (STORE-22, STORE-25, STORE-26) and truncation inside a run, on its
//! private state.

use super::*;

fn b(s: &str) -> BoardId {
    BoardId::try_from(s).unwrap()
}

fn row(board: &BoardId, seq: Seq) -> EncodedRecord {
    let payload = Bytes::from(format!("record {board} {seq}"));
    EncodedRecord {
        board: board.clone(),
        seq,
        crc: super::super::checksum(&payload),
        payload,
    }
}

/// A board's records for `seqs`, as a run holds them.
fn records(board: &BoardId, seqs: std::ops::RangeInclusive<Seq>) -> Vec<Rec> {
    seqs.map(|s| {
        let r = row(board, s);
        (r.seq, r.payload, r.crc)
    })
    .collect()
}

/// What a batch wrote into the log: per run, its board and seqs.
type Written = Vec<(String, Vec<Seq>)>;

/// Runs one batch through plan and commit; `next` follows the id of the newest stage row.
/// Returns the runs (sorted by board, then seq) and the trim point.
fn batch(stage: &mut Stage, rows: &[EncodedRecord], next: &mut i64) -> (Written, Option<i64>) {
    let plan = stage.plan(rows);
    // Ids count records: each stage row's is the position of its last record.
    for run in &plan.stage_runs {
        *next += run.rows.len() as i64;
        assert_eq!(run.id, *next);
    }
    let mut written: Written = plan
        .runs
        .iter()
        .map(|r| {
            let seqs = r.records.iter().map(|(s, _, _)| *s).collect();
            (r.board.as_str().to_string(), seqs)
        })
        .collect();
    written.sort();
    let trim = plan.trim_to;
    stage.commit(plan);
    (written, trim)
}

// STORE-22 (planning): a board is staged until it has a page's worth, then written into the
// log whole, as one run (STORE-25).
#[test]
fn boards_fold_at_a_page_worth() {
    let (a, c) = (b("a"), b("c"));
    let fold = BOARD_FOLD_ROWS as u64;
    let mut st = Stage::default();
    let mut next = 0;
    for seq in 1..fold {
        let (w, _) = batch(&mut st, &[row(&a, seq), row(&c, seq)], &mut next);
        assert!(w.is_empty());
    }
    assert_eq!(st.pending(), 2 * (BOARD_FOLD_ROWS - 1));
    // The 32nd row of a: its 31 staged rows and the new one go into the log as one run.
    let (w, _) = batch(&mut st, &[row(&a, fold)], &mut next);
    assert_eq!(w, vec![("a".to_string(), (1..=fold).collect())]);
    assert_eq!(st.pending(), BOARD_FOLD_ROWS - 1);
    // A batch that alone holds a page's worth skips the stage; a longer one is split into
    // runs of at most RUN_MAX_RECORDS.
    let long = RUN_MAX_RECORDS as u64 + 10;
    let rows: Vec<EncodedRecord> = (100..100 + long).map(|s| row(&a, s)).collect();
    let (w, _) = batch(&mut st, &rows, &mut next);
    assert_eq!(w.len(), 2);
    assert_eq!(
        w[0].1,
        (100..100 + RUN_MAX_RECORDS as u64).collect::<Vec<_>>()
    );
    assert_eq!(w[1].1.len(), 10);
}

/// A record of `len` bytes.
fn sized(board: &BoardId, seq: Seq, len: usize) -> EncodedRecord {
    let payload = Bytes::from(vec![b'x'; len]);
    EncodedRecord {
        board: board.clone(),
        seq,
        crc: super::super::checksum(&payload),
        payload,
    }
}

// STORE-25: what a board keeps staged (and in memory) stays below BOARD_FOLD_BYTES: large
// records fold with fewer than BOARD_FOLD_ROWS, and one that large alone skips the stage.
#[test]
fn boards_fold_at_a_byte_bound() {
    let (m, g) = (b("mid"), b("big"));
    let third = BOARD_FOLD_BYTES / 3 + 1;
    let mut st = Stage::default();
    let mut next = 0;
    for seq in 1..=2 {
        let (w, _) = batch(&mut st, &[sized(&m, seq, third)], &mut next);
        assert!(w.is_empty());
    }
    let (w, _) = batch(&mut st, &[sized(&m, 3, third)], &mut next);
    assert_eq!(w, vec![("mid".to_string(), vec![1, 2, 3])]);
    let (w, _) = batch(&mut st, &[sized(&g, 1, BOARD_FOLD_BYTES)], &mut next);
    assert_eq!(w, vec![("big".to_string(), vec![1])]);
    assert_eq!(st.pending(), 0);
}

// STORE-22 (planning): a trim writes every row it drops that the log does not hold yet,
// exactly once, each board's as runs; rows it keeps stay staged.
#[test]
fn trim_copies_what_it_drops() {
    let boards: Vec<BoardId> = (0..4000).map(|i| b(&format!("b{i}"))).collect();
    let rounds = (TRIM_AT as usize + 8_000) / boards.len() + 1;
    assert!(
        rounds < BOARD_FOLD_ROWS,
        "no board may reach a page's worth here"
    );
    let mut st = Stage::default();
    let mut next = 0;
    let mut copied: HashMap<String, Vec<Seq>> = HashMap::new();
    let mut last_trim = None;
    for seq in 1..=rounds as u64 {
        for chunk in boards.chunks(500) {
            let rows: Vec<EncodedRecord> = chunk.iter().map(|x| row(x, seq)).collect();
            let (w, trim) = batch(&mut st, &rows, &mut next);
            for (board, seqs) in w {
                copied.entry(board).or_default().extend(seqs);
            }
            if let Some(to) = trim {
                assert_eq!(to, next - TRIM_KEEP);
                last_trim = Some(to);
            }
        }
    }
    let to = last_trim.expect("the stage outgrew TRIM_AT: it must have been trimmed");
    // Row k (1-based) is board (k-1) % 4000's seq (k-1) / 4000 + 1.
    let mut expect: HashMap<String, Vec<Seq>> = HashMap::new();
    for k in 1..=to {
        let i = usize::try_from(k - 1).unwrap();
        expect
            .entry(boards[i % boards.len()].as_str().to_string())
            .or_default()
            .push((i / boards.len()) as u64 + 1);
    }
    assert_eq!(copied, expect);
    assert_eq!(st.trimmed, to);
    assert_eq!(st.pending() as i64, next - to);
}

// STORE-25: a truncation inside a run keeps its records up to the cut; a row whose count
// cannot be (damage) is removed whole, without a panic.
#[test]
fn truncation_rewrites_the_run_it_falls_inside() {
    let mut conn = Connection::open_in_memory().unwrap();
    super::super::sqlite_schema::migrate(&mut conn).unwrap();
    let a = b("a");
    let recs = records(&a, 1..=6);
    let tx = conn.transaction().unwrap();
    let runs = vec![Run {
        board: a.clone(),
        records: recs,
    }];
    insert_runs(&tx, &runs).unwrap();
    assert_eq!(delete_log_rows(&tx, &a, 4).unwrap(), 2);
    let (last, payload, crc, n) = rows_after(&tx, Table::Log, &a, 0).unwrap().remove(0);
    assert_eq!((last, n), (4, 4));
    let mut kept = Vec::new();
    split_row(last, payload, crc, n, 0, &mut kept);
    assert_eq!(
        kept.iter().map(|r| r.seq).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    // A row claiming 99 records ending at seq 10.
    tx.execute(
        "INSERT INTO log (board, seq, payload, crc, n) VALUES ('a', 10, x'00', 0, 99)",
        [],
    )
    .unwrap();
    delete_log_rows(&tx, &a, 2).unwrap();
    let left: Vec<Seq> = rows_after(&tx, Table::Log, &a, 0)
        .unwrap()
        .into_iter()
        .map(|r| r.0)
        .collect();
    assert_eq!(left, vec![2], "the run cut at 2; the damaged row gone");
}
