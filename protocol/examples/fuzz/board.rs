//! Target `board`: `BoardState::apply` driven by seeded sessions of structured commits.
//!
//! A case is one session on a fresh board (its object cap drawn small now and then; 3 % of
//! sessions are ten times longer and grow boards of hundreds of objects): commits (`commits.rs`) of
//! creates of every kind, updates of random fields and deletes, naming live, deleted and unknown
//! ids as parents and connector ends, cycles through frames, cascades, duplicate ids and empty
//! updates, so that about half of them are refused part-way. One input is one commit or one
//! revert. After each:
//! - the document invariants hold (`check_invariants`);
//! - a mirror that replays every applied outcome literally, as a client does (`replay`), equals the
//!   board: so a refused commit left the board exactly as it was (CMD-1), and what is broadcast
//!   rebuilds what was applied;
//! - a create without `z` lands above every object present (VAL-3);
//! - now and then the server's own rollback of an applied commit (`rollback`, as when the store
//!   fails) restores the mirror's state, and replaying the outcome restores the commit;
//! - now and then an undo of the commit just applied (`revert_undo` of its compact history,
//!   UNDO-9) restores the board as it was before it, and a redo of that undo restores it as it
//!   was after (versions aside: a revert is a new command);
//! - now and then an undo of an older command (overtaken by later ones) keeps the invariants and
//!   the mirror, and each property it changes held the value that command gave it and gets the
//!   one it had before (UNDO-2);
//! - now and then a restore of an earlier state of the session (HIST-5) keeps the invariants and
//!   the mirror and makes the board exactly that state, and an undo of it brings back the state
//!   before it (versions aside).
//!
//! At the end of a session the board rebuilt from its objects (a snapshot load) equals it.
//!
//! Everything is drawn from the case's seed except the UUID the board gives a create that names
//! no id (2 % of creates); ids only order cascades, so a case replays the same with rare
//! exceptions.

use crate::rng::{Rng, case_seed};
use crate::wire::panic_text;
use protocol::{
    ApplyError, BoardObject, BoardState, Field, Kind, ObjectId, Op, OpInput, Outcome, Patch,
    UndoChange, UserId,
};
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a run saw.
#[derive(Debug, Default)]
pub struct Stats {
    pub inputs: u64,
    pub sessions: u64,
    pub ops: u64,
    pub applied: u64,
    pub not_found: u64,
    pub invalid: u64,
    pub limit: u64,
    pub rollbacks_checked: u64,
    pub undos_checked: u64,
    pub redos_checked: u64,
    pub old_undos: u64,
    pub restores: u64,
    pub replacing_restores: u64,
    pub largest_board: usize,
}

impl Stats {
    pub fn summary(&self) -> String {
        format!(
            "{} inputs in {} sessions ({} ops): {} commits applied, refused {} not_found, \
             {} invalid, {} limit_exceeded; {} rollbacks, {} undos and {} redos of the last \
             command checked, {} older commands reverted, {} restores ({} replacing an object); largest board {} objects",
            self.inputs,
            self.sessions,
            self.ops,
            self.applied,
            self.not_found,
            self.invalid,
            self.limit,
            self.rollbacks_checked,
            self.undos_checked,
            self.redos_checked,
            self.old_undos,
            self.restores,
            self.replacing_restores,
            self.largest_board
        )
    }
}

/// What the session was doing, for the report of a failure.
#[derive(Default)]
pub struct Trace {
    what: &'static str,
    step: u64,
    ops: Vec<OpInput>,
}

/// Runs sessions from `seed` until `inputs` inputs. On a panic or a broken rule: the report, with
/// the case's seed and the input that broke it.
pub fn run(seed: u64, inputs: u64, progress: bool) -> Result<Stats, String> {
    let mut stats = Stats::default();
    let mut next_progress = 1_000_000;
    let mut case_index = 0;
    while stats.inputs < inputs {
        let case = case_seed(seed, 2, case_index);
        let budget = inputs - stats.inputs;
        let mut trace = Trace::default();
        let verdict = catch_unwind(AssertUnwindSafe(|| {
            session(case, budget, &mut stats, &mut trace, false)
        }));
        let error = match verdict {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e),
            Err(p) => Some(format!("panic: {}", panic_text(&p))),
        };
        if let Some(e) = error {
            return Err(format!(
                "board: session {case_index} of seed {seed} (case {case:#018x}) failed at {} {}: {e}\ninput: {:?}\nrerun: --target board --case {case:#018x}",
                trace.what, trace.step, trace.ops
            ));
        }
        if progress && stats.inputs >= next_progress {
            eprintln!("board: {} inputs", stats.inputs);
            next_progress += 1_000_000;
        }
        case_index += 1;
    }
    Ok(stats)
}

/// Runs the one session `case`, printing every input and its result.
pub fn run_case(case: u64) -> Result<(), String> {
    let mut stats = Stats::default();
    let mut trace = Trace::default();
    match catch_unwind(AssertUnwindSafe(|| {
        session(case, u64::MAX, &mut stats, &mut trace, true)
    })) {
        Ok(r) => r.map_err(|e| format!("at {} {}: {e}", trace.what, trace.step)),
        Err(p) => Err(format!(
            "panic at {} {}: {}",
            trace.what,
            trace.step,
            panic_text(&p)
        )),
    }
}

pub struct Session {
    pub r: Rng,
    pub board: BoardState,
    /// The board as a client sees it: every applied outcome replayed literally.
    pub mirror: BoardState,
    /// Objects present, in the order they appeared (picked by index, so the choice does not
    /// depend on their ids).
    pub live: Vec<(ObjectId, Kind)>,
    /// Every id ever created, live or not.
    pub known: Vec<ObjectId>,
    pub known_set: HashSet<ObjectId>,
    pub fresh: u64,
    pub seq: u64,
    /// Earlier states of the board, to restore.
    pub versions: Vec<Vec<BoardObject>>,
    /// Compact history of applied commands, newest last (UNDO-5 depth).
    pub history: Vec<Box<[UndoChange]>>,
    pub users: Vec<UserId>,
    pub verbose: bool,
}

fn session(
    case: u64,
    budget: u64,
    stats: &mut Stats,
    trace: &mut Trace,
    verbose: bool,
) -> Result<(), String> {
    let mut r = Rng::new(case);
    let max_objects = match r.below(100) {
        0..15 => r.range(1, 12),
        15..97 => 200,
        _ => protocol::board::DEFAULT_MAX_OBJECTS,
    };
    // A few long sessions grow large boards and deep frames.
    let length = if r.chance(3) {
        r.range(1000, 3000)
    } else {
        r.range(16, 256)
    } as u64;
    let mut s = Session {
        r,
        board: BoardState::new(max_objects),
        mirror: BoardState::new(usize::MAX),
        live: Vec::new(),
        known: Vec::new(),
        known_set: HashSet::new(),
        fresh: 0,
        seq: 1,
        history: Vec::new(),
        versions: Vec::new(),
        users: ["ann", "bob", "eve"]
            .iter()
            .map(|u| UserId::try_from(*u).expect("a valid id"))
            .collect(),
        verbose,
    };
    stats.sessions += 1;
    let start = stats.inputs;
    while stats.inputs - start < length && stats.inputs - start < budget {
        if s.r.chance(3) {
            s.versions.push(s.board.objects().cloned().collect());
        }
        if s.r.chance(2) && !s.versions.is_empty() {
            trace.what = "restore of an earlier state";
            trace.step = stats.inputs - start;
            trace.ops.clear();
            s.restore(stats)?;
        } else if s.r.chance(6) && !s.history.is_empty() {
            trace.what = "revert of an older command";
            trace.step = stats.inputs - start;
            trace.ops.clear();
            s.old_undo(stats)?;
        } else {
            trace.what = "commit";
            trace.step = stats.inputs - start;
            trace.ops = s.commit_ops();
            s.commit(&trace.ops, stats)?;
        }
        stats.largest_board = stats.largest_board.max(s.board.len());
    }
    trace.what = "snapshot load at the end";
    let rebuilt = BoardState::from_objects(s.board.objects().cloned(), max_objects);
    rebuilt.check_invariants()?;
    same(&rebuilt, &s.board, false).map_err(|e| format!("snapshot load: {e}"))
}

/// Equal objects (all fields, or all but `version`).
fn same(a: &BoardState, b: &BoardState, ignore_version: bool) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} objects against {}", a.len(), b.len()));
    }
    for o in a.objects() {
        let Some(p) = b.get(o.id.as_str()) else {
            return Err(format!("{} is missing", o.id));
        };
        let equal = if ignore_version {
            BoardObject {
                version: p.version,
                ..o.clone()
            } == *p
        } else {
            o == p
        };
        if !equal {
            return Err(format!("{} differs:\n  {o:?}\n  {p:?}", o.id));
        }
    }
    Ok(())
}

impl Session {
    fn check(&self, after: &str) -> Result<(), String> {
        self.board
            .check_invariants()
            .map_err(|e| format!("invariant broken after {after}: {e}"))?;
        same(&self.board, &self.mirror, false)
            .map_err(|e| format!("board and mirror disagree after {after}: {e}"))
    }

    /// Replays an accepted outcome on the mirror and follows its creates and deletes.
    fn absorb(&mut self, out: &Outcome) {
        self.mirror.replay(&out.ops, self.seq);
        for op in &out.ops {
            match op {
                Op::Create { object } => {
                    self.live.push((object.id.clone(), object.kind));
                    if self.known_set.insert(object.id.clone()) {
                        self.known.push(object.id.clone());
                    }
                }
                Op::Delete { id } => {
                    if let Some(i) = self.live.iter().position(|(l, _)| l == id) {
                        self.live.remove(i);
                    }
                }
                Op::Update { .. } => {}
            }
        }
        self.history.push(UndoChange::compact(&out.changes));
        if self.history.len() > 100 {
            self.history.remove(0);
        }
        self.seq += 1;
    }

    fn commit(&mut self, ops: &[OpInput], stats: &mut Stats) -> Result<(), String> {
        stats.inputs += 1;
        stats.ops += ops.len() as u64;
        let user = self.r.pick(&self.users).clone();
        let undo_now = self.r.chance(12);
        let rollback_now = self.r.chance(5);
        let before = undo_now.then(|| self.board.clone());
        let top_before = self.mirror.objects().map(|o| o.z).max();
        let result = self.board.apply(ops, &user, self.seq);
        if self.verbose {
            println!("seq {} {ops:?}\n  → {result:?}", self.seq);
        }
        let out = match result {
            Ok(out) => out,
            Err(e) => {
                match e {
                    ApplyError::NotFound(_) => stats.not_found += 1,
                    ApplyError::Invalid(_) => stats.invalid += 1,
                    ApplyError::TooManyObjects(_) => stats.limit += 1,
                }
                return self.check(&format!("a commit refused with {e:?}"));
            }
        };
        stats.applied += 1;
        self.board
            .check_invariants()
            .map_err(|e| format!("invariant broken after the commit: {e}"))?;
        on_top(ops, &out, top_before)?;
        if rollback_now {
            // As the server does when the store cannot make the command durable.
            stats.rollbacks_checked += 1;
            self.board.rollback(&out.changes);
            self.check("rolling the commit back")?;
            self.board.replay(&out.ops, self.seq);
        }
        self.absorb(&out);
        self.check("the commit")?;
        if let Some(before) = before {
            self.undo_redo(&before, stats)?;
        }
        Ok(())
    }

    /// Undo of the command just applied restores `before`; redo of that undo restores the state
    /// after the command.
    fn undo_redo(&mut self, before: &BoardState, stats: &mut Stats) -> Result<(), String> {
        let after = self.board.clone();
        let entry = self.history.last().cloned().unwrap_or_default();
        stats.inputs += 1;
        stats.undos_checked += 1;
        let undo = self.board.revert_undo(&entry, self.seq);
        self.absorb(&undo);
        self.check("an undo of the last command")?;
        same(&self.board, before, true)
            .map_err(|e| format!("undo of the last command did not restore the board: {e}"))?;
        stats.inputs += 1;
        stats.redos_checked += 1;
        let redo = self.board.revert(&undo.changes, self.seq);
        self.absorb(&redo);
        self.check("a redo")?;
        same(&self.board, &after, true)
            .map_err(|e| format!("redo of the undo did not restore the board: {e}"))
    }

    /// A restore of an earlier state makes the board that state; its undo brings back the
    /// state before it.
    fn restore(&mut self, stats: &mut Stats) -> Result<(), String> {
        stats.inputs += 1;
        stats.restores += 1;
        let i = self.r.below(self.versions.len());
        let target = self.versions[i].clone();
        let before = self.board.clone();
        let out = self.board.restore(&target, self.seq);
        // An id the earlier state gives another kind is replaced, and undo cannot put what was
        // inside it or bound to it back (HIST-5): the exact check is for the other restores.
        let deleted: HashSet<&ObjectId> = out
            .ops
            .iter()
            .filter(|o| matches!(o, Op::Delete { .. }))
            .map(Op::object_id)
            .collect();
        let replaced = out
            .ops
            .iter()
            .any(|o| matches!(o, Op::Create { .. }) && deleted.contains(o.object_id()));
        self.absorb(&out);
        self.check("a restore")?;
        let wanted = BoardState::from_objects(target, usize::MAX);
        same(&self.board, &wanted, true)
            .map_err(|e| format!("the restore did not make the earlier state: {e}"))?;
        let entry = self.history.last().cloned().unwrap_or_default();
        let undo = self.board.revert_undo(&entry, self.seq);
        self.absorb(&undo);
        self.check("an undo of a restore")?;
        if replaced {
            stats.replacing_restores += 1;
            return Ok(());
        }
        same(&self.board, &before, true)
            .map_err(|e| format!("undo of the restore did not bring the board back: {e}"))
    }

    fn old_undo(&mut self, stats: &mut Stats) -> Result<(), String> {
        stats.inputs += 1;
        stats.old_undos += 1;
        let i = self.r.below(self.history.len());
        let entry = self.history[i].clone();
        let out = self.board.revert_undo(&entry, self.seq);
        if self.verbose {
            println!("seq {} revert of history entry {i}: {out:?}", self.seq);
        }
        undo_2(&entry, &out, &self.mirror, self.seq)?;
        self.absorb(&out);
        self.check("a revert of an older command")
    }
}

/// VAL-3: a create that names no `z` lands above every object present when it is made (those
/// before the commit and the z values earlier ops of the commit set). The k-th create of the
/// outcome is the k-th create op of the commit.
fn on_top(ops: &[OpInput], out: &Outcome, top_before: Option<i64>) -> Result<(), String> {
    let mut inputs = ops.iter().filter_map(|op| match op {
        OpInput::Create { object } => Some(object),
        _ => None,
    });
    let mut top = top_before;
    for op in &out.ops {
        let z = match op {
            Op::Create { object } => {
                let input = inputs
                    .next()
                    .ok_or("the outcome has more creates than the commit")?;
                if input.z.is_none() && top.is_some_and(|t| object.z <= t) {
                    return Err(format!(
                        "{} was created at z {} under an object at z {top:?}",
                        object.id, object.z
                    ));
                }
                Some(object.z)
            }
            Op::Update { set, .. } => set.z,
            Op::Delete { .. } => None,
        };
        top = top.max(z);
    }
    Ok(())
}

/// UNDO-2 on a revert of `entry` whose outcome is `out`, `state` being the board before it:
/// every property an update of the revert sets held the value the undone command gave it and
/// now has the one it had before. (Children moved out of an object the revert deletes, UNDO-8,
/// are the one other update a revert makes.)
fn undo_2(entry: &[UndoChange], out: &Outcome, state: &BoardState, seq: u64) -> Result<(), String> {
    let mut state = state.clone();
    for op in &out.ops {
        if let Op::Update { id, set } = op {
            let cur = state
                .get(id.as_str())
                .ok_or_else(|| format!("a revert updates {id}, which does not exist"))?
                .clone();
            let moved_out = set_fields(set).len() == 1
                && set.parent.is_some()
                && cur.parent.as_ref().is_some_and(|p| {
                    entry
                        .iter()
                        .any(|c| matches!(c, UndoChange::Created(x) if x == p))
                });
            if !moved_out {
                let mut new = cur.clone();
                set.apply_to(&mut new);
                for f in set_fields(set) {
                    let undone = entry.iter().any(|c| match c {
                        UndoChange::Updated { id: u, fields } if u == id => {
                            fields.iter().any(|(b, a)| {
                                std::mem::discriminant(a) == std::mem::discriminant(&f)
                                    && holds(&cur, a)
                                    && holds(&new, b)
                            })
                        }
                        _ => false,
                    });
                    if !undone {
                        return Err(format!(
                            "a revert set {f:?} on {id} where the undone command did not leave \
                             the value it replaces: {cur:?}"
                        ));
                    }
                }
            }
        }
        state.replay(std::slice::from_ref(op), seq);
    }
    Ok(())
}

/// True when `o` already holds the value of `f`.
fn holds(o: &BoardObject, f: &Field) -> bool {
    let mut p = o.clone();
    f.set_on(&mut p);
    p == *o
}

/// The properties a patch sets, as fields.
fn set_fields(p: &Patch) -> Vec<Field> {
    [
        p.x.map(Field::X),
        p.y.map(Field::Y),
        p.w.map(Field::W),
        p.h.map(Field::H),
        p.rotation.map(Field::Rotation),
        p.z.map(Field::Z),
        p.parent.clone().map(Field::Parent),
        p.text.clone().map(Field::Text),
        p.color.clone().map(Field::Color),
        p.geo.map(|g| Field::Geo(Some(g))),
        p.from.clone().map(|e| Field::From(Some(e))),
        p.to.clone().map(|e| Field::To(Some(e))),
        p.arrow.map(|a| Field::Arrow(Some(a))),
    ]
    .into_iter()
    .flatten()
    .collect()
}
