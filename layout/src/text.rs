//! Text size estimation: how big a note, shape, text or frame title must be so its text fits.
//!
//! No font metrics are available in a pure crate, so glyph widths are estimated per character
//! class (narrow, regular, capital, wide/CJK) from a sans-serif font; the estimate errs large.

use serde::{Deserialize, Serialize};

/// Which kind of object holds the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextKind {
    /// Sticky note: 200 x 200 by default, taller (then wider) for long text.
    Note,
    /// Shape with a label: 200 x 120 by default, grows to fit.
    Shape,
    /// Free text: as wide as its longest line (wrapped at 600 px), as tall as its lines.
    Text,
    /// Frame title strip: as wide as the title.
    Frame,
}

/// Default note size.
pub const NOTE_SIZE: (f64, f64) = (200.0, 200.0);
/// Default shape size.
pub const SHAPE_SIZE: (f64, f64) = (200.0, 120.0);
/// Widest a free text grows before it wraps.
pub const TEXT_MAX_WIDTH: f64 = 600.0;
/// Widest a note or shape grows for long words before they are broken.
pub const BOX_MAX_WIDTH: f64 = 400.0;

struct Style {
    font: f64,
    pad: f64,
    line: f64,
}

fn style(kind: TextKind) -> Style {
    match kind {
        TextKind::Note | TextKind::Shape => Style {
            font: 18.0,
            pad: 16.0,
            line: 1.35,
        },
        TextKind::Text => Style {
            font: 20.0,
            pad: 4.0,
            line: 1.35,
        },
        TextKind::Frame => Style {
            font: 16.0,
            pad: 16.0,
            line: 1.35,
        },
    }
}

/// Estimated advance of one character at font size `font` (px).
pub fn char_width(c: char, font: f64) -> f64 {
    let em = match c {
        'i' | 'l' | 'j' | 't' | 'f' | 'r' | '.' | ',' | ':' | ';' | '\'' | '!' | '|' | '('
        | ')' | '[' | ']' | ' ' => 0.32,
        'm' | 'w' | 'M' | 'W' | '@' | '%' => 0.9,
        'A'..='Z' => 0.68,
        c if c.is_ascii() => 0.56,
        // CJK, emoji and other wide scripts.
        c if (c as u32) >= 0x1100 => 1.05,
        _ => 0.62,
    };
    em * font
}

/// Estimated width of a single line of text.
pub fn text_width(s: &str, font: f64) -> f64 {
    s.chars().map(|c| char_width(c, font)).sum()
}

/// Greedy word wrap at `max` px: returns the widths of the resulting lines (at least one).
fn wrap(text: &str, font: f64, max: f64) -> Vec<f64> {
    let space = char_width(' ', font);
    let mut lines = Vec::new();
    for para in text.split('\n') {
        let mut cur: f64 = 0.0;
        let mut started = false;
        for word in para.split_whitespace() {
            let ww = text_width(word, font);
            if started && cur + space + ww <= max {
                cur += space + ww;
                continue;
            }
            if started {
                lines.push(cur);
            }
            if ww > max {
                // Break words longer than a line.
                let mut chunk = 0.0;
                for c in word.chars() {
                    let cw = char_width(c, font);
                    if chunk + cw > max && chunk > 0.0 {
                        lines.push(chunk);
                        chunk = 0.0;
                    }
                    chunk += cw;
                }
                cur = chunk;
                started = true;
                continue;
            }
            cur = ww;
            started = true;
        }
        lines.push(if started { cur } else { 0.0 });
    }
    if lines.is_empty() {
        lines.push(0.0);
    }
    lines
}

/// Size an object of `kind` needs so `text` fits inside it without spilling (LAYOUT-2). Notes
/// and shapes keep their default size when the text fits, grow taller first, and wider (up to
/// 400 px) when a single word is wider than the default; free text is as wide as its longest
/// line up to 600 px; a frame's result is its minimum width for the title and the title strip's
/// height.
pub fn estimate_size(text: &str, kind: TextKind) -> (f64, f64) {
    let st = style(kind);
    let lh = st.font * st.line;
    match kind {
        TextKind::Note | TextKind::Shape => {
            let (dw, dh) = if kind == TextKind::Note {
                NOTE_SIZE
            } else {
                SHAPE_SIZE
            };
            let longest_word = text
                .split_whitespace()
                .map(|w| text_width(w, st.font))
                .fold(0.0, f64::max);
            let w = (longest_word + 2.0 * st.pad).clamp(dw, BOX_MAX_WIDTH);
            let mut lines = wrap(text, st.font, w - 2.0 * st.pad).len() as f64;
            let mut w = w;
            // Very long text: widen toward a squarer box before growing very tall.
            while lines * lh + 2.0 * st.pad > 2.0 * w && w < BOX_MAX_WIDTH {
                w = (w + 40.0).min(BOX_MAX_WIDTH);
                lines = wrap(text, st.font, w - 2.0 * st.pad).len() as f64;
            }
            let h = (lines * lh + 2.0 * st.pad).max(dh).ceil();
            (w.ceil(), h)
        }
        TextKind::Text => {
            let lines = wrap(text, st.font, TEXT_MAX_WIDTH - 2.0 * st.pad);
            let w = lines.iter().copied().fold(0.0, f64::max) + 2.0 * st.pad;
            (
                w.max(20.0).ceil(),
                (lines.len() as f64 * lh + 2.0 * st.pad).ceil(),
            )
        }
        TextKind::Frame => {
            let w = text_width(text.lines().next().unwrap_or(""), st.font) + 2.0 * st.pad;
            (w.ceil(), crate::templates::FRAME_HEADER)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_2_defaults_and_growth() {
        assert_eq!(estimate_size("Buy milk", TextKind::Note), NOTE_SIZE);
        assert_eq!(estimate_size("", TextKind::Shape), SHAPE_SIZE);
        let long = "word ".repeat(200);
        let (w, h) = estimate_size(&long, TextKind::Note);
        assert!(w >= 200.0 && h > 200.0);
        let (w, _) = estimate_size("Supercalifragilisticexpialidocious", TextKind::Note);
        assert!(w > 200.0 && w <= BOX_MAX_WIDTH);
        let (w1, h1) = estimate_size("Hi", TextKind::Text);
        let (w2, h2) = estimate_size("Hello there, world", TextKind::Text);
        assert!(w2 > w1 && (h1 - h2).abs() < 1e-9);
        let (_, h3) = estimate_size("a\nb\nc", TextKind::Text);
        assert!(h3 > h1 * 2.0);
    }

    #[test]
    fn huge_word_does_not_loop() {
        let w = "x".repeat(5000);
        let (bw, bh) = estimate_size(&w, TextKind::Note);
        assert!(bw <= BOX_MAX_WIDTH && bh > 200.0);
        let (tw, _) = estimate_size(&w, TextKind::Text);
        assert!(tw <= TEXT_MAX_WIDTH + 1.0);
    }
}
