//! The language floor under the router and the planner: how a command's words are read, with
//! no knowledge of either. [`lex`] splits and normalizes text; [`words`], [`vocab`], [`verbs`]
//! and [`relation`] hold the vocabulary as data (lexicon, filler, kinds, colors, verbs and their
//! synonyms, relation words) and [`structures`] the defaults of named structures (SWOT,
//! kanban, retrospectives, fishbone); [`numbers`] reads number words; [`lexicon`] gives canonical words
//! with typo tolerance; [`spelling`] fixes common misspellings in content; [`content`] splits
//! off a command's content (quotes, markers, lists).
//!
//! Reading is memoized per command (the grammar reads the same text several times): call
//! [`forget`] when a new command starts.

pub mod content;
pub mod lex;
pub mod lexicon;
pub mod numbers;
pub mod relation;
pub mod spelling;
pub mod structures;
pub mod verbs;
pub mod vocab;
pub mod words;

/// Starts a new command: what was read for earlier ones is not kept.
pub fn forget() {
    lexicon::forget();
    content::forget();
}

/// `ws` without the leading words that are in `skip`.
pub fn strip_front<'a>(ws: &'a [String], skip: &[&str]) -> &'a [String] {
    let n = ws.iter().take_while(|w| skip.contains(&w.as_str())).count();
    &ws[n..]
}
