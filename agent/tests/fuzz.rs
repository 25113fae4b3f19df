//! Seeded fuzzing of the offline agent (router + planner) over random phrasings built from its
//! vocabulary: verbs, objects of the corpus boards, the menu's modifiers, numbers out of range,
//! typos and filler, on three boards with random selections and a session memory that carries
//! over, and picture phrasings on a board with pictures (AI-IMG-3, AI-IMG-4). PLAN-9: nothing panics, and every batch it returns resolves and applies to the board
//! with the board's invariants kept and no reference to an object that is not there.
#![allow(clippy::unwrap_used)]

#[path = "corpus/eval.rs"]
mod eval;

use agent::{Agent, AgentConfig, AiPlan, AiRequest, SessionMemory, resolve};
use protocol::{BoardState, ObjectId, Viewport};
use std::time::Instant;

const VERBS: &[&str] = &[
    "align",
    "distribute",
    "space",
    "stack",
    "rotate",
    "flip",
    "mirror",
    "put",
    "bring",
    "send",
    "move",
    "take",
    "remove",
    "replace",
    "change",
    "fix",
    "set",
    "make",
    "add",
    "create",
    "connect",
    "brainstorm",
    "list",
    "duplicate",
    "delete",
    "color",
    "write",
    "fill",
    "layer",
    "centre",
    "line up",
    "spell check",
    "give",
    "match",
    "double",
    "turn",
    "pull",
    "get",
];

const TARGETS: &[&str] = &[
    "these",
    "it",
    "them",
    "the selection",
    "Alpha, Beta and Gamma",
    "Start",
    "Finish",
    "Check",
    "the notes",
    "all the shapes",
    "the empty notes",
    "the blank ones",
    "Task one",
    "the Backlog frame",
    "Week 1",
    "Login",
    "the red circle",
    "the Done frame",
    "everything",
    "Zebra",
    "",
    "the Alpha note",
    "Design, Test and Launch",
    "vendor",
    "Recieve feedback",
    "notes A, B and C",
    "a circle",
    "3 notes",
    "the selected notes",
    "each",
    "its frame",
];

const MODIFIERS: &[&str] = &[
    "to the left",
    "to the top of Alpha",
    "horizontally",
    "vertically",
    "evenly",
    "50 px apart",
    "with a 20 px gap",
    "in a row",
    "in a column",
    "the same size",
    "the same width as Start",
    "twice as wide",
    "half as tall",
    "by 45 degrees",
    "counterclockwise",
    "upside down",
    "behind Gamma",
    "in front of Start",
    "out of its frame",
    "out of the Backlog frame",
    "into it",
    "to it",
    "with supplier",
    "to supplier",
    "and connect them",
    "and connect it to Login",
    "and put it in Done",
    "ideas for the offsite",
    "fishbone",
    "\"quoted\"",
    "in all notes",
    "everywhere",
    "on the empty notes",
    "with TODO",
    "as wide as Check",
    "by -5 degrees",
    "1e400 px apart",
    "0 times as wide",
    "-3 px apart",
    "999999 degrees",
    "twenty",
    "in there",
    "of Alpha",
    "with categories A, B",
    "behind",
    "in front of",
    "apart",
    "to each other",
    "and make it red",
    "and connect Dashboard to it",
];

/// Phrasings of each family with slots: `T` an object, `N` a number, `W` a word, `E` an edge
/// or axis, `L` a list of names.
const TEMPLATES: &[&str] = &[
    "align T E",
    "align T to the E of T",
    "distribute T E",
    "space T N px apart E",
    "stack T in a row N px apart",
    "stack T in a column with a gap of N",
    "make T the same size as T",
    "make T the same width",
    "make T N times as wide",
    "make T half as tall",
    "rotate T by N degrees",
    "rotate T N degrees counterclockwise",
    "flip T E",
    "put T behind T",
    "bring T in front of T",
    "replace W with W in T",
    "change W to W on all notes",
    "fix the typos in T",
    "spell check T",
    "set the text of T to W",
    "write W on T",
    "take T out of its frame",
    "remove T from the Backlog frame",
    "create a frame called W ;; add N notes to it",
    "add notes L and connect them",
    "add a circle and connect it to T",
    "draw a circle and connect T to it",
    "brainstorm N ideas for W",
    "list ideas for W",
    "fishbone for W with categories L",
    "add N notes and put them in a row",
    "create a note saying W and a note saying W and connect them",
];

const NUMBERS: &[&str] = &[
    "0", "-5", "3", "1e400", "twenty", "45", "999999", "2.5", "NaN",
];
const WORDS: &[&str] = &[
    "vendor", "supplier", "the", "Alpha", "x", "", "'quoted'", "İ", "K",
];
const EDGES: &[&str] = &[
    "left",
    "right",
    "top",
    "bottom",
    "centre",
    "middle",
    "horizontally",
    "vertically",
    "up",
];
const LISTS: &[&str] = &[
    "A, B and C",
    "Apples, Pears",
    "One",
    "X and Y and Z",
    "Start, End",
];

const FILLER: &[&str] = &[
    "please",
    "could you",
    "can you",
    "thanks",
    "now",
    "I want",
    "hey",
];

/// Picture phrasings (AI-IMG-3, AI-IMG-4) for the pictures board: `P` a picture, `N` a number,
/// `W` a word.
const PICTURE_TEMPLATES: &[&str] = &[
    "move P to the top left",
    "move P into the bottom right corner",
    "move P N px down",
    "put P next to Login",
    "put P in the Gallery frame",
    "make P smaller",
    "make P N wide",
    "resize P to N pixels tall",
    "make P twice as wide",
    "make P the same size as P",
    "put P in a grid",
    "arrange P in a column",
    "align P to the top",
    "rotate P by N degrees",
    "duplicate P",
    "copy P and put it below Agenda",
    "delete P",
    "make P red",
    "rename P to W",
    "turn P into a circle",
    "turn Agenda into an image",
    "add an image of W",
    "upload a photo of W",
    "group P into a frame called W",
    "connect P to Login",
];
const PICTURES: &[&str] = &[
    "the logo",
    "the photos",
    "the image",
    "the screenshot",
    "the Company logo",
    "all the pictures",
    "the icon",
    "the beach picture",
    "it",
    "these",
    "everything",
];

/// A linear congruential generator: the same seed gives the same phrasings.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.next() as usize % from.len()]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A family's phrasing with its slots filled.
fn templated(rng: &mut Rng) -> String {
    let t = rng.pick(TEMPLATES);
    let mut out = String::new();
    for w in t.split(' ') {
        let filled = match w {
            "T" => rng.pick(TARGETS),
            "N" => rng.pick(NUMBERS),
            "W" => rng.pick(WORDS),
            "E" => rng.pick(EDGES),
            "L" => rng.pick(LISTS),
            w => w,
        };
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(filled);
    }
    out
}

/// A phrasing: half of them a family's template, the others filler?, verb, target?, one or two
/// modifiers, filler?; sometimes a typo.
fn phrasing(rng: &mut Rng) -> String {
    if rng.chance(50) {
        let t = templated(rng);
        return typo(rng, t);
    }
    let mut parts: Vec<String> = Vec::new();
    if rng.chance(20) {
        parts.push(rng.pick(FILLER).to_string());
    }
    parts.push(rng.pick(VERBS).to_string());
    if rng.chance(85) {
        parts.push(rng.pick(TARGETS).to_string());
    }
    for _ in 0..1 + rng.next() % 2 {
        if rng.chance(80) {
            parts.push(rng.pick(MODIFIERS).to_string());
        }
    }
    if rng.chance(10) {
        parts.push(rng.pick(FILLER).to_string());
    }
    typo(rng, parts.join(" "))
}

/// A picture phrasing: a picture family's template with its slots filled, or any phrasing.
fn picture_phrasing(rng: &mut Rng) -> String {
    if rng.chance(30) {
        return phrasing(rng);
    }
    let t = rng.pick(PICTURE_TEMPLATES);
    let filled: Vec<&str> = t
        .split(' ')
        .map(|w| match w {
            "P" => rng.pick(PICTURES),
            "N" => rng.pick(NUMBERS),
            "W" => rng.pick(WORDS),
            w => w,
        })
        .collect();
    typo(rng, filled.join(" "))
}

/// Sometimes a swapped pair of letters.
fn typo(rng: &mut Rng, mut text: String) -> String {
    if rng.chance(15) && text.len() > 3 {
        // A swapped pair of letters somewhere (ASCII only, so the swap stays on characters).
        let i = rng.next() as usize % (text.len() - 1);
        if text.is_char_boundary(i) && text.is_char_boundary(i + 2) && text.is_ascii() {
            let mut b = text.into_bytes();
            b.swap(i, i + 1);
            text = String::from_utf8(b).unwrap();
        }
    }
    text
}

/// A random selection of the board's objects (often none).
fn selection(rng: &mut Rng, board: &BoardState) -> Vec<ObjectId> {
    // The board's map has no fixed order; the same seed must pick the same objects.
    let mut objs: Vec<&protocol::BoardObject> = board.objects().collect();
    objs.sort_by(|a, b| (a.z, &a.id).cmp(&(b.z, &b.id)));
    if objs.is_empty() || rng.chance(40) {
        return Vec::new();
    }
    let n = 1 + rng.next() as usize % 3;
    let mut sel: Vec<ObjectId> = Vec::new();
    for _ in 0..n {
        let id = objs[rng.next() as usize % objs.len()].id.clone();
        if !sel.contains(&id) {
            sel.push(id);
        }
    }
    sel
}

/// Plans `text` and, when it executes, resolves and applies it to `board`; true when it changed
/// the board.
fn check(
    agent: &Agent,
    rt: &tokio::runtime::Runtime,
    text: &str,
    sel: Vec<ObjectId>,
    board: &mut BoardState,
    memory: &mut SessionMemory,
    seq: u64,
) -> bool {
    let mut req = AiRequest::new(text.to_string(), eval::me());
    req.selection = sel;
    req.viewport = Some(Viewport {
        x: 0.0,
        y: 0.0,
        w: 1600.0,
        h: 900.0,
    });
    let now = Instant::now();
    let AiPlan::Execute { intent, .. } = rt.block_on(agent.plan_at(&req, board, memory, now))
    else {
        return false;
    };
    if intent.is_empty() {
        return false;
    }
    let r = resolve(&intent, board, &req.resolve_ctx());
    let dangling: Vec<&String> = r
        .warnings
        .iter()
        // A delete of a frame's child after the frame is benign; an edit of a gone object is not.
        .filter(|w| w.starts_with("No object with id") && w.ends_with("update skipped"))
        .collect();
    assert!(dangling.is_empty(), "{text:?}: {dangling:?}");
    let mut next = board.clone();
    next.apply(&r.ops, &eval::me(), seq)
        .unwrap_or_else(|e| panic!("{text:?}: ops do not apply: {e}"));
    next.check_invariants()
        .unwrap_or_else(|e| panic!("{text:?}: invariants: {e:?}"));
    memory.remember_created(&r.created, now);
    // Keep the board from growing without bound: apply only small batches.
    if r.created.len() <= 8 {
        *board = next;
    }
    true
}

#[test]
fn plan_9_seeded_fuzz_of_phrasings_applies_cleanly() {
    let agent = Agent::new(AgentConfig::default());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    // FUZZ_SEED runs another seed by hand; the test's own seed is fixed.
    let seed = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_2026);
    let mut rng = Rng(seed);
    let (mut runs, mut changed) = (0, 0);
    for name in ["arrange", "words", "basic"] {
        let mut board = eval::board(name);
        let mut memory = SessionMemory::new();
        for k in 0..1500u64 {
            let text = phrasing(&mut rng);
            let sel = selection(&mut rng, &board);
            if check(&agent, &rt, &text, sel, &mut board, &mut memory, 10 + k) {
                changed += 1;
            }
            runs += 1;
        }
    }
    // Pictures, on their own seed so the phrasings above stay the same.
    let mut rng = Rng(seed ^ 0x1a6e);
    let mut board = eval::board("pictures");
    let mut memory = SessionMemory::new();
    for k in 0..1500u64 {
        let text = picture_phrasing(&mut rng);
        let sel = selection(&mut rng, &board);
        if check(&agent, &rt, &text, sel, &mut board, &mut memory, 10 + k) {
            changed += 1;
        }
        runs += 1;
    }
    assert_eq!(runs, 6000);
    eprintln!("{changed} of {runs} phrasings changed the board");
    // The phrasings are meant to reach the grammar: a good share of them must act.
    assert!(changed >= runs / 5, "only {changed} of {runs} acted");
}
