//! Fixed number formatting and XML escaping for SVG text.

use std::fmt::Write;

/// `v` rounded to 0.01, without trailing zeros (`12`, `12.5`, `-0.25`); never `-0` or `NaN`.
pub fn num(v: f64) -> String {
    let mut out = String::new();
    push_num(&mut out, v);
    out
}

/// Appends [`num`] of `v` to `out`.
pub fn push_num(out: &mut String, v: f64) {
    let r = (v * 100.0).round();
    if !r.is_finite() || r == 0.0 {
        out.push('0');
        return;
    }
    let cents = r as i64;
    if cents < 0 {
        out.push('-');
    }
    let abs = cents.unsigned_abs();
    let _ = write!(out, "{}", abs / 100);
    match abs % 100 {
        0 => {}
        c if c % 10 == 0 => {
            let _ = write!(out, ".{}", c / 10);
        }
        c => {
            let _ = write!(out, ".{c:02}");
        }
    }
}

/// Whether `c` is kept in exported text (EXPORT-13): not a control character other than tab and
/// newline (XML 1.0 cannot hold most of them) and not a Unicode non-character (U+FDD0..=U+FDEF
/// and the last two code points of every plane; U+FFFE and U+FFFF are not XML at all).
pub fn kept(c: char) -> bool {
    let u = u32::from(c);
    let control = c.is_control() && c != '\t' && c != '\n';
    let non_character = (0xFDD0..=0xFDEF).contains(&u) || u & 0xFFFE == 0xFFFE;
    !control && !non_character
}

/// Appends `s` with the five XML special characters escaped and the characters [`kept`] refuses
/// left out, so the document is well-formed whatever the text holds.
pub fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if !kept(c) => {}
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_3_numbers_have_at_most_two_decimals() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(12.5), "12.5");
        assert_eq!(num(-0.254), "-0.25");
        assert_eq!(num(66.666_666), "66.67");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(0.05), "0.05");
    }

    #[test]
    fn export_3_escapes_markup() {
        let mut s = String::new();
        push_escaped(&mut s, "<a href=\"x\">&'\u{1}</a>");
        assert_eq!(s, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
    }

    #[test]
    fn export_13_non_characters_are_left_out() {
        let mut s = String::new();
        push_escaped(
            &mut s,
            "a\u{FFFE}b\u{FFFF}c\u{FDD0}d\u{1FFFF}e\u{10FFFE}f\u{0}g\u{1B}h\ti\nj",
        );
        assert_eq!(s, "abcdefgh\ti\nj");
        for c in ['\u{FFFD}', '\u{FDCF}', '\u{FDF0}', '\u{1FFFD}', 'é', '😀'] {
            assert!(kept(c), "{c:?}");
        }
    }
}
