//! Target `board`: `BoardState::apply` driven by seeded sessions of structured commits.
//!
//! A case is one session on a fresh board (its object cap drawn small now and then; 3 % of
//! sessions are ten times longer and grow boards of hundreds of objects): commits of
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
//!   one it had before (UNDO-2).
//!
//! At the end of a session the board rebuilt from its objects (a snapshot load) equals it.
//!
//! Everything is drawn from the case's seed except the UUID the board gives a create that names
//! no id (2 % of creates); ids only order cascades, so a case replays the same with rare
//! exceptions.

use crate::rng::{Rng, case_seed};
use crate::wire::panic_text;
use protocol::num::Num;
use protocol::{
    ApplyError, BoardState, EndpointInput, Geo, Kind, ObjectId, ObjectInput, Op, OpInput, Outcome,
    PatchInput, UndoChange, UserId,
};
use protocol::{Arrow, BoardObject, Field, Patch};
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
    pub largest_board: usize,
}

impl Stats {
    pub fn summary(&self) -> String {
        format!(
            "{} inputs in {} sessions ({} ops): {} commits applied, refused {} not_found, \
             {} invalid, {} limit_exceeded; {} rollbacks, {} undos and {} redos of the last \
             command checked, {} older commands reverted; largest board {} objects",
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

struct Session {
    r: Rng,
    board: BoardState,
    /// The board as a client sees it: every applied outcome replayed literally.
    mirror: BoardState,
    /// Objects present, in the order they appeared (picked by index, so the choice does not
    /// depend on their ids).
    live: Vec<(ObjectId, Kind)>,
    /// Every id ever created, live or not.
    known: Vec<ObjectId>,
    known_set: HashSet<ObjectId>,
    fresh: u64,
    seq: u64,
    /// Compact history of applied commands, newest last (UNDO-5 depth).
    history: Vec<Box<[UndoChange]>>,
    users: Vec<UserId>,
    verbose: bool,
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
        users: ["ann", "bob", "eve"]
            .iter()
            .map(|u| UserId::try_from(*u).expect("a valid id"))
            .collect(),
        verbose,
    };
    stats.sessions += 1;
    let start = stats.inputs;
    while stats.inputs - start < length && stats.inputs - start < budget {
        if s.r.chance(6) && !s.history.is_empty() {
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

    // ---- generation ----

    fn commit_ops(&mut self) -> Vec<OpInput> {
        let n = match self.r.below(100) {
            0..3 => 0,
            3..11 => self.r.range(10, 40),
            _ => self.r.range(1, 4),
        };
        let mut ops = Vec::with_capacity(n);
        while ops.len() < n {
            match self.r.below(100) {
                0..45 => ops.push(self.create()),
                45..80 => ops.push(self.update()),
                _ => self.delete(&mut ops),
            }
        }
        ops
    }

    fn live_id(&mut self, want: Option<Kind>, not: Option<Kind>) -> Option<ObjectId> {
        if self.live.is_empty() {
            return None;
        }
        for _ in 0..6 {
            let (id, kind) = &self.live[self.r.below(self.live.len())];
            if want.is_none_or(|w| w == *kind) && not.is_none_or(|n| n != *kind) {
                return Some(id.clone());
            }
        }
        None
    }

    /// An id no object has now: one deleted, or one never created.
    fn dead_id(&mut self) -> ObjectId {
        if !self.known.is_empty() && self.r.chance(70) {
            let id = self.r.pick(&self.known).clone();
            if self.board.get(id.as_str()).is_none() {
                return id;
            }
        }
        ObjectId::try_from(format!("ghost-{}", self.r.below(3))).expect("a valid id")
    }

    fn any_id(&mut self) -> ObjectId {
        match self.live_id(None, None) {
            Some(id) if self.r.chance(85) => id,
            _ => self.dead_id(),
        }
    }

    fn fresh_id(&mut self) -> ObjectId {
        self.fresh += 1;
        let id = ObjectId::try_from(format!("o{}", self.fresh)).expect("a valid id");
        self.known_set.insert(id.clone());
        self.known.push(id.clone());
        id
    }

    /// A parent for `me`: usually a frame, else anything, a missing id, itself or (for a frame)
    /// one of its own descendants.
    fn parent(&mut self, me: Option<&ObjectId>) -> ObjectId {
        match self.r.below(100) {
            0..60 => self
                .live_id(Some(Kind::Frame), None)
                .unwrap_or_else(|| self.any_id()),
            60..75 => self.any_id(),
            75..83 => self.dead_id(),
            83..88 if me.is_some() => me.cloned().unwrap_or_else(|| self.any_id()),
            _ => me
                .and_then(|m| self.descendant(m))
                .unwrap_or_else(|| self.any_id()),
        }
    }

    fn descendant(&mut self, id: &ObjectId) -> Option<ObjectId> {
        let mut cur = id.clone();
        for _ in 0..self.r.range(1, 4) {
            let kids: Vec<ObjectId> = self.board.children_of(cur.as_str()).cloned().collect();
            if kids.is_empty() {
                break;
            }
            cur = self.r.pick(&kids).clone();
        }
        (cur != *id).then_some(cur)
    }

    fn end(&mut self, me: Option<&ObjectId>) -> EndpointInput {
        let id = match self.r.below(100) {
            0..55 => self
                .live_id(None, Some(Kind::Connector))
                .unwrap_or_else(|| self.any_id()),
            55..63 => self
                .live_id(Some(Kind::Connector), None)
                .unwrap_or_else(|| self.any_id()),
            63..70 => self.dead_id(),
            70..74 if me.is_some() => me.cloned().unwrap_or_else(|| self.any_id()),
            _ => {
                return EndpointInput::Free {
                    x: Num(self.coord()),
                    y: Num(self.coord()),
                };
            }
        };
        EndpointInput::Bound { id }
    }

    fn create(&mut self) -> OpInput {
        let kind = *self.r.pick(&[
            Kind::Note,
            Kind::Note,
            Kind::Shape,
            Kind::Text,
            Kind::Frame,
            Kind::Frame,
            Kind::Connector,
            Kind::Connector,
        ]);
        let id = match self.r.below(100) {
            0..2 => None,
            2..10 if !self.known.is_empty() => Some(self.r.pick(&self.known).clone()),
            _ => Some(self.fresh_id()),
        };
        let mut o = ObjectInput::new(kind);
        let is_conn = kind == Kind::Connector;
        if self.r.chance(70) {
            o.x = Some(Num(self.coord()));
            o.y = Some(Num(self.coord()));
        }
        if self.r.chance(40) {
            o.w = Some(Num(self.size()));
        }
        if self.r.chance(40) {
            o.h = Some(Num(self.size()));
        }
        if self.r.chance(15) {
            o.rotation = Some(Num(self.rotation()));
        }
        if self.r.chance(10) {
            o.z = Some(Num(self.z()));
        }
        if self.r.chance(30) {
            o.parent = Some(self.parent(id.as_ref()));
        }
        if self.r.chance(40) {
            o.text = Some(self.text());
        }
        if self.r.chance(40) {
            o.color = Some(self.color());
        }
        if self.r.chance(if kind == Kind::Shape { 50 } else { 3 }) {
            o.geo = Some(
                *self
                    .r
                    .pick(&[Geo::Rectangle, Geo::Ellipse, Geo::Star, Geo::Cloud]),
            );
        }
        if self.r.chance(if is_conn { 96 } else { 3 }) {
            o.from = Some(self.end(id.as_ref()));
        }
        if self.r.chance(if is_conn { 96 } else { 3 }) {
            o.to = Some(self.end(id.as_ref()));
        }
        if self.r.chance(if is_conn { 40 } else { 3 }) {
            o.arrow = Some(*self.r.pick(&[Arrow::End, Arrow::Both, Arrow::None]));
        }
        o.id = id;
        OpInput::Create { object: o }
    }

    fn update(&mut self) -> OpInput {
        let id = self.any_id();
        let kind = self.board.get(id.as_str()).map(|o| o.kind);
        let is_frame = kind == Some(Kind::Frame);
        let mut set = PatchInput::default();
        if !self.r.chance(4) {
            while set_is_empty(&set) {
                if self.r.chance(if is_frame { 60 } else { 30 }) {
                    set.x = Some(Num(self.coord()));
                }
                if self.r.chance(30) {
                    set.y = Some(Num(self.coord()));
                }
                if self.r.chance(12) {
                    set.w = Some(Num(self.size()));
                }
                if self.r.chance(12) {
                    set.h = Some(Num(self.size()));
                }
                if self.r.chance(8) {
                    set.rotation = Some(Num(self.rotation()));
                }
                if self.r.chance(8) {
                    set.z = Some(Num(self.z()));
                }
                if self.r.chance(15) {
                    set.parent = Some(if self.r.chance(30) {
                        None
                    } else {
                        Some(self.parent(Some(&id)))
                    });
                }
                if self.r.chance(12) {
                    set.text = Some(self.text());
                }
                if self.r.chance(12) {
                    set.color = Some(self.color());
                }
                let shape = kind == Some(Kind::Shape);
                if self.r.chance(if shape { 20 } else { 2 }) {
                    set.geo = Some(*self.r.pick(&[Geo::Diamond, Geo::Hexagon, Geo::Triangle]));
                }
                let conn = kind == Some(Kind::Connector);
                if self.r.chance(if conn { 30 } else { 2 }) {
                    set.from = Some(self.end(Some(&id)));
                }
                if self.r.chance(if conn { 30 } else { 2 }) {
                    set.to = Some(self.end(Some(&id)));
                }
                if self.r.chance(if conn { 10 } else { 1 }) {
                    set.arrow = Some(Arrow::Both);
                }
            }
        }
        OpInput::Update { id, set }
    }

    /// A delete; after a frame's, sometimes a delete of what its cascade already removed.
    fn delete(&mut self, ops: &mut Vec<OpInput>) {
        let id = if self.r.chance(30) {
            self.live_id(Some(Kind::Frame), None)
                .unwrap_or_else(|| self.any_id())
        } else {
            self.any_id()
        };
        let kid = self.r.chance(30).then(|| self.descendant(&id)).flatten();
        ops.push(OpInput::Delete { id });
        if let Some(kid) = kid {
            ops.push(OpInput::Delete { id: kid });
        }
    }

    fn coord(&mut self) -> f64 {
        match self.r.below(20) {
            0..12 => self.r.float(-3000.0, 3000.0),
            12..16 => (self.r.float(-500.0, 500.0)).round(),
            16 => *self
                .r
                .pick(&[50_000.0, -50_000.0, 50_001.0, -50_001.0, 49_999.5, -0.0]),
            17 => *self.r.pick(&[
                1e300,
                -1e300,
                f64::MAX,
                f64::MIN,
                1e-320,
                9_007_199_254_740_993.0,
            ]),
            _ => 0.0,
        }
    }

    fn size(&mut self) -> f64 {
        match self.r.below(10) {
            0..7 => self.r.float(5.0, 1000.0),
            7 => *self.r.pick(&[10.0, 9.999, 5000.0, 5000.1, 0.0, -10.0]),
            8 => *self.r.pick(&[1e308, -1e308, f64::MIN_POSITIVE]),
            _ => self.r.float(0.0, 7000.0).round(),
        }
    }

    fn rotation(&mut self) -> f64 {
        match self.r.below(5) {
            0..3 => self.r.float(-1000.0, 1000.0),
            3 => *self
                .r
                .pick(&[360.0, -360.0, 1e300, -0.0, 359.999_999_999_999_9]),
            _ => f64::from(self.r.below(8) as u32) * 45.0,
        }
    }

    fn z(&mut self) -> f64 {
        match self.r.below(5) {
            0..3 => self.r.below(100) as f64 - 50.0,
            3 => *self.r.pick(&[1e12, -1e12, 1e13, f64::MAX, 0.5, -0.0]),
            _ => self.r.float(-1e6, 1e6),
        }
    }

    fn text(&mut self) -> String {
        match self.r.below(200) {
            0 => "é".repeat(protocol::num::MAX_TEXT_CHARS + self.r.below(3)),
            1..20 => {
                ["", "\u{0}", "😀 ok", "\u{202e}abc", "a\u{0301}", "中文"][self.r.below(6)].into()
            }
            _ => format!("note {}", self.r.below(1000)),
        }
    }

    fn color(&mut self) -> String {
        (*self.r.pick(&[
            "yellow",
            "blue",
            "red",
            "pink",
            "purple",
            "grey",
            "Light Blue",
            "#abc",
            "abc",
            "#ABCDEF",
            "#12345",
            "#GGGGGG",
            "nope",
            "",
        ]))
        .to_string()
    }
}

fn set_is_empty(p: &PatchInput) -> bool {
    p.x.is_none()
        && p.y.is_none()
        && p.w.is_none()
        && p.h.is_none()
        && p.rotation.is_none()
        && p.z.is_none()
        && p.parent.is_none()
        && p.text.is_none()
        && p.color.is_none()
        && p.geo.is_none()
        && p.from.is_none()
        && p.to.is_none()
        && p.arrow.is_none()
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
    let mut v = Vec::new();
    p.x.map(|x| v.push(Field::X(x)));
    p.y.map(|x| v.push(Field::Y(x)));
    p.w.map(|x| v.push(Field::W(x)));
    p.h.map(|x| v.push(Field::H(x)));
    p.rotation.map(|x| v.push(Field::Rotation(x)));
    p.z.map(|x| v.push(Field::Z(x)));
    if let Some(x) = &p.parent {
        v.push(Field::Parent(x.clone()));
    }
    if let Some(x) = &p.text {
        v.push(Field::Text(x.clone()));
    }
    if let Some(x) = &p.color {
        v.push(Field::Color(x.clone()));
    }
    p.geo.map(|x| v.push(Field::Geo(Some(x))));
    if let Some(x) = &p.from {
        v.push(Field::From(Some(x.clone())));
    }
    if let Some(x) = &p.to {
        v.push(Field::To(Some(x.clone())));
    }
    p.arrow.map(|x| v.push(Field::Arrow(Some(x))));
    v
}
