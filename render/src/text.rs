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

/// The width of `s` in px at `size` px (sum of the font's advances; no kerning).
pub fn text_width(s: &str, size: f64) -> f64 {
    let Some(m) = metrics() else {
        return s.chars().count() as f64 * size * 0.6;
    };
    let units: f64 = s
        .chars()
        .map(|c| {
            m.face
                .glyph_index(c)
                .and_then(|g| m.face.glyph_hor_advance(g))
                .map_or(m.fallback, f64::from)
        })
        .sum();
    units * size / m.units
}

/// Wraps `text` into lines no wider than `max_width` at `size` px, keeping explicit line breaks
/// and breaking words longer than a line. At most `max_lines` lines; the last one ends with "…"
/// when text was cut.
pub fn wrap(text: &str, max_width: f64, size: f64, max_lines: usize) -> Vec<String> {
    let fits = |s: &str| text_width(s, size) <= max_width;
    let mut lines: Vec<String> = Vec::new();
    if max_width <= 0.0 || max_lines == 0 {
        return lines;
    }
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
                line.clear();
            }
            // A word longer than the line: break it by characters.
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
}
