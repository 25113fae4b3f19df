//! The planner's word lists: the lexicon a command is built from, known words that are not
//! typos of it, text markers, and the filler people put around a command.

#[rustfmt::skip]
/// Words a command is built from; typos of these are corrected.
pub(super) const LEXICON: &[&str] = &[
    "create", "add", "draw", "insert", "generate", "build", "place", "make", "put", "move", "drag",
    "shift", "nudge", "slide", "resize", "scale", "grow", "shrink", "enlarge", "expand", "double",
    "halve", "color", "colour", "recolor", "paint", "turn", "fill", "rename", "relabel", "label",
    "write", "change", "update", "edit", "delete", "remove", "erase", "clear", "trash", "destroy",
    "duplicate", "copy", "clone", "replicate", "connect", "link", "join", "arrange", "organize",
    "organise", "align", "layout", "stack", "sort", "distribute", "group", "ungroup", "convert",
    "transform", "replace", "select", "count", "show", "list", "copies", "note", "notes", "sticky",
    "stickies", "rectangle", "rectangles", "square", "squares", "circle", "circles", "ellipse",
    "ellipses", "diamond", "diamonds", "rhombus", "rhombuses", "triangle", "triangles", "hexagon",
    "hexagons", "star",
    "stars", "cloud", "clouds", "text", "frame", "frames", "section", "sections", "connector",
    "connectors", "arrow", "arrows", "line", "lines", "shape", "shapes", "box", "boxes", "heading",
    "title", "object", "objects", "everything", "yellow", "orange", "red", "violet", "purple",
    "pink", "blue", "green", "gray", "grey", "black", "white", "lavender", "light", "between",
    "horizontally", "vertically", "grid", "column", "columns", "row", "rows", "times", "bigger",
    "smaller", "larger", "twice", "kanban", "retrospective", "timeline", "journey", "matrix",
    "eisenhower", "flowchart", "diagram", "board", "selected", "selection", "these", "those",
    "please", "another", "inside", "stickie", "postit", "post-it", "left", "right", "top", "bottom",
    "above", "below", "colors", "colours", "adding", "creating", "making", "drawing", "deleting",
    "removing", "moving", "everything", "connecting", "changing", "duplicating", "grouping",
    "little", "small", "large", "tiny", "huge", "medium", "throw", "drop", "sketch", "push",
    "slap", "bump", "wipe", "possible", "rotate", "flip", "mirror", "behind", "evenly", "degrees",
    "spacing", "image", "images", "picture", "pictures", "photo", "photos", "screenshot",
    "screenshots", "logo", "logos", "icon", "icons",
];

#[rustfmt::skip]
/// Known words that are one edit from a lexicon word but mean something else.
pub(super) const NOT_TYPOS: &[&str] = &[
    "take", "like", "mode", "node", "nodes", "vote", "votes", "noted", "lane", "fine", "mine",
    "live", "lime", "next", "test", "tent", "share", "phase", "flame", "array", "point", "points",
    "print", "colon", "greet", "queen", "block", "blocks", "slack", "while", "plane", "plate",
    "space", "peace", "built", "tile", "case", "cases", "stare", "start", "stats", "state",
    "states", "scare", "spare", "reader", "leader", "aside", "sides", "tiles", "names", "named",
    "rename", "later", "liner", "liners", "lined", "clean", "cleaner", "flow", "glow", "grown",
    "brown", "crown", "sort", "store", "score", "scores", "order", "other", "others", "bored",
    "board", "boards", "horse", "house", "mouse", "done", "none", "nose", "home", "hone", "tone",
    "note", "row", "rows", "text", "texts", "move", "moves", "love", "more", "model", "models",
    "chart", "charts", "shade", "shaped", "drew", "drawn", "raw", "saw", "law", "added", "adding",
    "made", "making", "moved", "doing", "copy", "list", "lists", "lost", "last", "least", "first",
    "item", "items", "team", "teams", "them", "then", "than", "there", "their", "here", "where",
    "were", "when", "what", "with", "this", "that", "these", "those", "thing", "things", "stop",
    "step", "steps", "user", "users", "goal", "goals", "risk", "risks", "idea", "ideas", "plan",
    "plans", "task", "tasks", "stage", "stages", "period", "periods", "create", "draws", "drags",
    "label", "labels", "linked", "joined", "group", "groups", "word", "words", "world", "hello",
    "cards", "card", "login", "logout", "sign", "signup", "about", "above", "below", "left",
    "right", "top", "bottom", "middle", "center", "centre", "corner", "small", "large", "huge",
    "tiny", "little", "big", "blank", "empty", "new", "old", "same", "each", "every", "all", "some",
    "few", "many", "much", "one", "ones", "two", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "eleven", "twelve", "twenty", "dozen", "hundred", "pros", "cons", "mind", "map",
    "org", "chart", "axes", "axis", "vs", "versus", "quadrant", "quadrants", "urgent", "important",
    "called", "saying", "says", "titled", "reading", "reads", "sized", "size", "wide", "tall",
    "width", "height", "pixels", "pixel", "side", "way", "ways", "back", "front", "under", "over",
    "into", "onto", "from", "form", "forms", "lines", "liner", "not", "let", "lie", "pin", "cop",
    "adds", "have", "read", "redo", "time", "pins", "lies", "lets", "stick", "sticks", "phone",
    "phones", "log", "logs", "con", "ion", "icing", "imagine", "pictured", "photon",
];

#[rustfmt::skip]
/// Text markers: the words after them are content, never corrected.
pub const TEXT_MARKERS: &[&str] = &[
    "saying", "says", "say", "called", "named", "titled", "labeled", "labelled", "reading", "reads",
    "text", "containing", "contains", "with",
];

#[rustfmt::skip]
/// Words people put around a command ("could you please", "I'd like", "for me, thanks").
pub(super) const LEADING_FILLER: &[&str] = &[
    "please", "pls", "plz", "kindly", "can", "could", "would", "will", "you", "hey", "hi", "hello",
    "ok", "okay", "so", "now", "then", "and", "also", "just", "i", "i'd", "id", "i'm", "im", "we",
    "we'd", "like", "want", "wanna", "to", "need", "let's", "lets", "let", "us", "me", "go",
    "ahead", "quickly", "quick", "maybe", "try", "help", "mind", "um", "uh", "alright", "right",
    "yes", "yeah", "sure", "hmm", "oh", "actually", "first", "next", "finally", "should", "must",
    "gonna", "going", "love", "there", "is", "be", "able", "oops", "u", "ya", "yo", "yall", "ur",
    "hiya", "dear", "morning", "afternoon", "evening", "good", "hullo", "greetings",
];

#[rustfmt::skip]
pub(super) const ANYWHERE_FILLER: &[&str] = &[
    "please", "pls", "plz", "kindly", "thanks", "thank", "thx", "ty", "cheers", "quickly", "asap",
];

/// Chat shorthand for a function word, and the word.
pub(super) const SHORTHAND: &[(&str, &str)] = &[
    ("r", "are"),
    ("u", "you"),
    ("ur", "your"),
    ("w", "with"),
    ("w/", "with"),
    ("wd", "would"),
    ("wud", "would"),
    ("cd", "could"),
    ("cud", "could"),
    ("shd", "should"),
    ("shud", "should"),
    ("abt", "about"),
    ("rite", "right"),
    ("gimme", "give"),
    ("cn", "can"),
    ("lemme", "let"),
];

/// Words in a target phrase that name nothing ("the", "objects", "please", "currently").
#[rustfmt::skip]
pub const TARGET_NOISE: &[&str] = &[
    "the", "a", "an", "our", "your", "one", "object", "objects", "thing", "things", "item",
    "items", "element", "elements", "of", "on", "board", "canvas", "again", "too", "there", "here",
    "stuff", "whole", "entire", "please", "existing", "current", "also", "just", "now", "ones",
    "page", "quoted", "qquoted", "please-", "then", "so", "up", "please.", "out", "which", "is",
    "are", "with", "for", "me", "that's", "whose", "has", "from", "shape", "currently", "single",
    "clean", "completely", "entirely", "off", "whichever", "whatever", "plain", "straight",
    "newest", "latest", "recent", "newer", "furthest", "farthest", "far", "very", "both",
];
