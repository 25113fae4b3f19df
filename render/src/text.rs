//! The bundled font, text measuring from its advances, and line wrapping (the browser's
//! `wrapText` in `server/static/js/geometry.js`).

use std::sync::OnceLock;

/// DejaVu Sans (Bitstream Vera license, `fonts/LICENSE-DejaVu.txt`).
pub const FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// The family name the SVG asks for; the browser client lists it first too.
pub const FONT_FAMILY: &str = "DejaVu Sans";

struct Metrics {
    face: ttf_parser::Face<'static>,
    units: f64,
    fallback: f64,
}

fn metrics() -> Option<&'static Metrics> {
    static M: OnceLock<Option<Metrics>> = OnceLock::new();
    M.get_or_init(|| {
        let face = ttf_parser::Face::parse(FONT, 0).ok()?;
        let units = f64::from(face.units_per_em());
        let fallback = face
            .glyph_index('?')
            .and_then(|g| face.glyph_hor_advance(g))
            .map_or(units * 0.6, f64::from);
        Some(Metrics {
            face,
            units,
            fallback,
        })
    })
    .as_ref()
}

/// The most characters of one label that are laid out (the protocol's limit on an object's
/// text); the rest is left out, as the browser does (EXPORT-12).
pub const MAX_LABEL_CHARS: usize = protocol::num::MAX_TEXT_CHARS;
/// The most lines one label lays out; a label cut there ends with "…" (EXPORT-12).
pub const MAX_LABEL_LINES: usize = 1_000;

/// The advance of `c` in font units (the width of `?` for a character the font lacks).
fn advance(m: &Metrics, c: char) -> f64 {
    m.face
        .glyph_index(c)
        .and_then(|g| m.face.glyph_hor_advance(g))
        .map_or(m.fallback, f64::from)
}

/// Widths at one size. A width is the sum of the characters' advances (no kerning), so the
/// width of a line is the running sum of its parts': nothing is measured twice.
struct Ruler {
    metrics: Option<&'static Metrics>,
    size: f64,
}

impl Ruler {
    fn new(size: f64) -> Self {
        Ruler {
            metrics: metrics(),
            size,
        }
    }

    /// The advance of `c` in font units (0.6 em without the font).
    fn char(&self, c: char) -> f64 {
        #[cfg(test)]
        tests::LOOKUPS.with(|n| n.set(n.get() + 1));
        self.metrics.map_or(0.6, |m| advance(m, c))
    }

    /// The advances of `s` summed, in font units.
    fn units(&self, s: &str) -> f64 {
        s.chars().map(|c| self.char(c)).sum()
    }

    /// `units` in px.
    fn px(&self, units: f64) -> f64 {
        units * self.size / self.metrics.map_or(1.0, |m| m.units)
    }

    /// Whether `units` fit in `max_width` px.
    fn fits(&self, units: f64, max_width: f64) -> bool {
        self.px(units) <= max_width
    }
}

/// The width of `s` in px at `size` px (sum of the font's advances; no kerning).
pub fn text_width(s: &str, size: f64) -> f64 {
    let r = Ruler::new(size);
    r.px(r.units(s))
}

/// A line being filled: its text and its width in font units.
#[derive(Default)]
struct Line {
    text: String,
    units: f64,
}

impl Line {
    fn push(&mut self, s: &str, units: f64) {
        self.text.push_str(s);
        self.units += units;
    }
}

/// Wrapped lines, at most `max`.
struct Lines {
    out: Vec<String>,
    max: usize,
}

impl Lines {
    /// Adds a line; true when that was the last one allowed.
    fn push(&mut self, line: &str) -> bool {
        self.out.push(line.trim_end().to_owned());
        self.out.len() >= self.max
    }
}

/// Wraps `text` into lines no wider than `max_width` at `size` px, keeping explicit line breaks and
/// breaking words longer than a line. At most `max_lines` lines (and [`MAX_LABEL_LINES`]); the
/// last one ends with "…" when text was cut. At most [`MAX_LABEL_CHARS`] characters are laid
/// out, and characters SVG cannot hold are left out ([`crate::fmt::kept`]).
///
/// Linear in the text: each word is measured once, a line's width is the running sum of its
/// words and spaces, and a word longer than a line is broken where its running width passes the
/// line's (the browser's `wrapText` in `server/static/js/geometry.js` does the same).
pub fn wrap(text: &str, max_width: f64, size: f64, max_lines: usize) -> Vec<String> {
    let mut lines = Lines {
        out: Vec::new(),
        max: max_lines.min(MAX_LABEL_LINES),
    };
    if max_width <= 0.0 || lines.max == 0 {
        return lines.out;
    }
    let text = label_text(text);
    let ruler = Ruler::new(size);
    let fits = |units: f64| ruler.fits(units, max_width);
    let space = ruler.char(' ');
    'outer: for para in text.split('\n') {
        let mut line = Line::default();
        for token in split_keeping_spaces(para) {
            if token.chars().all(char::is_whitespace) {
                if !line.text.is_empty() {
                    line.push(" ", space);
                }
                continue;
            }
            let units = ruler.units(token);
            if fits(line.units + units) {
                line.push(token, units);
                continue;
            }
            if !line.text.trim().is_empty() && lines.push(&line.text) {
                break 'outer;
            }
            // A word longer than the line: break it by characters.
            let (mut word, mut units) = (token, units);
            while !fits(units) && word.chars().nth(1).is_some() {
                let (head, head_units) = fitting_prefix(word, &ruler, max_width);
                if lines.push(head) {
                    break 'outer;
                }
                word = &word[head.len()..];
                units -= head_units;
            }
            line = Line {
                text: word.to_owned(),
                units,
            };
        }
        if lines.push(&line.text) {
            break;
        }
    }
    let Lines {
        out: mut lines,
        max,
    } = lines;
    let visible = |s: &str| s.chars().filter(|c| !c.is_whitespace()).count();
    let shown: usize = lines.iter().map(|l| visible(l)).sum();
    if lines.len() >= max
        && shown < visible(&text)
        && let Some(last) = lines.last_mut()
    {
        ellipsis(last, &ruler, max_width);
    }
    lines
}

/// The longest start of `word` (at least one character, at most all but one) whose running width
/// fits `max_width`, and its width in font units.
fn fitting_prefix<'a>(word: &'a str, ruler: &Ruler, max_width: f64) -> (&'a str, f64) {
    let mut units = 0.0;
    let mut end = 0;
    for (i, c) in word.char_indices() {
        let next = units + ruler.char(c);
        let after = i + c.len_utf8();
        if after == word.len() || (end > 0 && !ruler.fits(next, max_width)) {
            break;
        }
        units = next;
        end = after;
    }
    (&word[..end], units)
}

/// Ends `last` with "…", dropping characters from its end until both fit `max_width`.
fn ellipsis(last: &mut String, ruler: &Ruler, max_width: f64) {
    let dots = ruler.char('…');
    let mut units = ruler.units(last);
    while !ruler.fits(units + dots, max_width) {
        match last.pop() {
            Some(c) => units -= ruler.char(c),
            None => break,
        }
    }
    last.push('…');
}

/// The part of `text` a label lays out: its first [`MAX_LABEL_CHARS`] characters, without the
/// characters SVG cannot hold.
fn label_text(text: &str) -> std::borrow::Cow<'_, str> {
    let end = text
        .char_indices()
        .nth(MAX_LABEL_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let text = &text[..end];
    if text.chars().all(crate::fmt::kept) {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(text.chars().filter(|&c| crate::fmt::kept(c)).collect())
    }
}

/// `s` cut into runs of whitespace and runs of anything else, in order.
fn split_keeping_spaces(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = None;
    for (i, c) in s.char_indices() {
        let space = c.is_whitespace();
        if in_space.is_some_and(|was| was != space) {
            out.push(&s[start..i]);
            start = i;
        }
        in_space = Some(space);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Advances looked up on this thread.
        pub(super) static LOOKUPS: Cell<u64> = const { Cell::new(0) };
    }

    #[test]
    fn export_4_measures_with_the_bundled_font() {
        // DejaVu Sans: 2048 units per em, "a" advances 1255 units.
        assert!((text_width("a", 2048.0) - 1255.0).abs() < 0.5);
        assert!(text_width("WWW", 16.0) > text_width("iii", 16.0) * 2.0);
    }

    #[test]
    fn export_4_wraps_like_the_browser() {
        assert_eq!(
            wrap("one two three", 1000.0, 16.0, usize::MAX),
            ["one two three"]
        );
        let lines = wrap("one two three four five six", 80.0, 16.0, usize::MAX);
        assert!(lines.len() > 2, "{lines:?}");
        assert!(lines.iter().all(|l| text_width(l, 16.0) <= 80.0));
        assert_eq!(wrap("a\n\nb", 100.0, 16.0, usize::MAX), ["a", "", "b"]);
        let long = wrap("abcdefghijklmnopqrstuvwxyz", 50.0, 16.0, usize::MAX);
        assert_eq!(long.concat(), "abcdefghijklmnopqrstuvwxyz");
        let cut = wrap("one two three four five six", 80.0, 16.0, 2);
        assert_eq!(cut.len(), 2);
        assert!(cut[1].ends_with('…'));
    }

    /// The rule as it was first written: measure the line with each word added, and break a word
    /// longer than a line at the longest prefix that fits, measuring every prefix.
    fn wrap_by_prefixes(text: &str, max_width: f64, size: f64, max_lines: usize) -> Vec<String> {
        let fits = |s: &str| text_width(s, size) <= max_width;
        let mut lines: Vec<String> = Vec::new();
        'outer: for para in text.split('\n') {
            let mut line = String::new();
            for token in split_keeping_spaces(para) {
                if token.chars().all(char::is_whitespace) {
                    if !line.is_empty() {
                        line.push(' ');
                    }
                    continue;
                }
                let mut word = token.to_owned();
                if fits(&format!("{line}{word}")) {
                    line.push_str(&word);
                    continue;
                }
                if !line.trim().is_empty() {
                    lines.push(line.trim_end().to_owned());
                    if lines.len() >= max_lines {
                        break 'outer;
                    }
                }
                while !fits(&word) && word.chars().count() > 1 {
                    let chars: Vec<char> = word.chars().collect();
                    let mut n = chars.len() - 1;
                    while n > 1 && !fits(&chars[..n].iter().collect::<String>()) {
                        n -= 1;
                    }
                    lines.push(chars[..n].iter().collect());
                    if lines.len() >= max_lines {
                        break 'outer;
                    }
                    word = chars[n..].iter().collect();
                }
                line = word;
            }
            lines.push(line.trim_end().to_owned());
            if lines.len() >= max_lines {
                break;
            }
        }
        let visible = |s: &str| s.chars().filter(|c| !c.is_whitespace()).count();
        let shown: usize = lines.iter().map(|l| visible(l)).sum();
        if lines.len() >= max_lines && shown < visible(text) {
            lines.truncate(max_lines);
            if let Some(last) = lines.last_mut() {
                while !last.is_empty() && !fits(&format!("{last}…")) {
                    last.pop();
                }
                last.push('…');
            }
        }
        lines
    }

    #[test]
    fn export_12_wraps_as_measuring_every_prefix_did() {
        let pieces = [
            "a",
            "bb",
            "note",
            "wrapping",
            "W",
            "iiii",
            " ",
            "  ",
            "\n",
            "é",
            "日本",
            "…",
            "abcdefghijklmnopqrstuvwxyz0123456789",
            "x\u{301}",
        ];
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as usize % n
        };
        for _ in 0..1_000 {
            let text: String = (0..next(12)).map(|_| pieces[next(pieces.len())]).collect();
            let width = [1.0, 12.0, 40.0, 80.0, 172.0, 400.0][next(6)];
            let max_lines = [1, 2, 3, 8, usize::MAX][next(5)];
            assert_eq!(
                wrap(&text, width, 16.0, max_lines),
                wrap_by_prefixes(&text, width, 16.0, max_lines),
                "{text:?} in {width} px, {max_lines} lines"
            );
        }
    }

    #[test]
    fn export_12_a_long_word_is_measured_once() {
        let word: String = "abcdefghijklmnopqrstuvwxyz"
            .chars()
            .cycle()
            .take(10_000)
            .collect();
        LOOKUPS.with(|n| n.set(0));
        let lines = wrap(&word, 256.0, 18.0, usize::MAX);
        let lookups = LOOKUPS.with(Cell::get);
        assert_eq!(lines.concat(), word);
        assert!(lines.len() > 300, "{} lines", lines.len());
        // Once for the word, once where it is broken, and the character after each break.
        assert!(
            lookups <= 2 * 10_000 + 2 * lines.len() as u64,
            "{lookups} lookups"
        );
    }

    #[test]
    fn export_12_a_label_lays_out_at_most_its_caps() {
        let many = "a\n".repeat(5_000);
        let lines = wrap(&many, 100.0, 16.0, usize::MAX);
        assert_eq!(lines.len(), MAX_LABEL_LINES);
        assert_eq!(lines[MAX_LABEL_LINES - 1], "a…");
        let long = "b".repeat(MAX_LABEL_CHARS + 500);
        let lines = wrap(&long, 1e9, 16.0, usize::MAX);
        assert_eq!(lines, ["b".repeat(MAX_LABEL_CHARS)]);
    }

    #[test]
    fn export_13_non_characters_take_no_room() {
        assert_eq!(
            wrap("a\u{FFFF}b\u{FFFE}\u{FDD0}c", 1000.0, 16.0, usize::MAX),
            ["abc"]
        );
    }
}
