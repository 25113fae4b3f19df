//! The 13-color palette, its aliases, per-kind defaults and nearest-name lookup.

use crate::model::Kind;

/// Palette entries: (name, hex).
pub const PALETTE: [(&str, &str); 13] = [
    ("yellow", "#FFF59D"),
    ("orange", "#FFCC80"),
    ("red", "#EF9A9A"),
    ("light-red", "#F48FB1"),
    ("violet", "#CE93D8"),
    ("light-violet", "#B39DDB"),
    ("blue", "#90CAF9"),
    ("light-blue", "#81D4FA"),
    ("green", "#A5D6A7"),
    ("light-green", "#C5E1A5"),
    ("gray", "#E0E0E0"),
    ("black", "#212121"),
    ("white", "#FFFFFF"),
];

/// Aliases: (alias, palette name).
pub const ALIASES: &[(&str, &str)] = &[
    ("pink", "light-red"),
    ("purple", "violet"),
    ("lavender", "light-violet"),
    ("lightblue", "light-blue"),
    ("cyan", "light-blue"),
    ("lime", "light-green"),
    ("grey", "gray"),
    ("lightgreen", "light-green"),
    ("navy", "blue"),
    ("indigo", "violet"),
    ("magenta", "violet"),
    ("lilac", "light-violet"),
    ("mauve", "light-violet"),
    ("teal", "light-blue"),
    ("turquoise", "light-blue"),
    ("aqua", "light-blue"),
    ("skyblue", "light-blue"),
    ("babyblue", "light-blue"),
    ("crimson", "red"),
    ("scarlet", "red"),
    ("maroon", "red"),
    ("salmon", "light-red"),
    ("rose", "light-red"),
    ("gold", "yellow"),
    ("golden", "yellow"),
    ("amber", "orange"),
    ("brown", "orange"),
    ("olive", "green"),
    ("mint", "light-green"),
    ("silver", "gray"),
    ("charcoal", "black"),
];

/// The default palette name of a kind.
pub fn default_color_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Note => "yellow",
        Kind::Shape => "light-blue",
        Kind::Frame => "gray",
        Kind::Text | Kind::Connector | Kind::Image => "black",
    }
}

/// The default hex of a kind.
pub fn default_color(kind: Kind) -> &'static str {
    hex_of(default_color_name(kind)).unwrap_or("#212121")
}

/// The hex of a palette name (not an alias).
pub fn hex_of(name: &str) -> Option<&'static str> {
    PALETTE.iter().find(|(n, _)| *n == name).map(|(_, h)| *h)
}

/// Resolves a palette name, an alias (case-insensitive, spaces or underscores for hyphens) or a hex
/// string to a palette name, if it is one of those.
pub fn canonical_name(input: &str) -> Option<&'static str> {
    let input = input.trim();
    if input.len() > 24 {
        return None;
    }
    PALETTE
        .iter()
        .map(|(n, _)| (*n, *n))
        .chain(ALIASES.iter().copied())
        .find(|(name, _)| loosely_eq(input, name))
        .map(|(_, n)| n)
}

/// Equal ignoring ASCII case and the separators `-`, `_` and spaces ("Light Blue" = "light-blue";
/// `name` is a lowercase palette name or alias).
fn loosely_eq(a: &str, name: &str) -> bool {
    let letter = |c: &u8| !matches!(c, b'-' | b'_' | b' ');
    a.bytes()
        .filter(letter)
        .map(|c| c.to_ascii_lowercase())
        .eq(name.bytes().filter(letter))
}

/// Parses `#RGB` or `#RRGGBB` (the `#` optional) into `#RRGGBB` upper case.
pub fn parse_hex(input: &str) -> Option<String> {
    let s = input.trim();
    let s = s.strip_prefix('#').unwrap_or(s);
    if !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    match s.len() {
        6 => Some(format!("#{}", s.to_ascii_uppercase())),
        3 => {
            let mut out = String::from("#");
            for c in s.chars() {
                out.push(c.to_ascii_uppercase());
                out.push(c.to_ascii_uppercase());
            }
            Some(out)
        }
        _ => None,
    }
}

/// Resolves any color input for `kind` to a stored `#RRGGBB`: name, alias or hex; anything else
/// falls back to the kind's default.
pub fn resolve_color(input: &str, kind: Kind) -> String {
    if let Some(name) = canonical_name(input) {
        return hex_of(name).unwrap_or(default_color(kind)).to_string();
    }
    if let Some(hex) = parse_hex(input) {
        return hex;
    }
    default_color(kind).to_string()
}

fn rgb(hex: &str) -> Option<(i32, i32, i32)> {
    let h = parse_hex(hex)?;
    let v = u32::from_str_radix(&h[1..], 16).ok()?;
    Some((
        ((v >> 16) & 0xff) as i32,
        ((v >> 8) & 0xff) as i32,
        (v & 0xff) as i32,
    ))
}

fn is_chromatic((r, g, b): (i32, i32, i32)) -> bool {
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    max - min > 40
}

/// The palette name nearest to any hex color (Euclidean distance in RGB; a saturated color is only
/// compared with the palette's chromatic entries, so pure blue is not called black). Replies to
/// people use it so they never see hex. Unparsable input is called black.
pub fn nearest_name(hex: &str) -> &'static str {
    let Some(c @ (r, g, b)) = rgb(hex) else {
        return "black";
    };
    let chromatic = is_chromatic(c);
    let mut best = ("black", i32::MAX);
    for (name, h) in PALETTE {
        if let Some(p @ (pr, pg, pb)) = rgb(h) {
            if chromatic && !is_chromatic(p) {
                continue;
            }
            let d = (r - pr).pow(2) + (g - pg).pow(2) + (b - pb).pow(2);
            if d < best.1 {
                best = (name, d);
            }
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn col_1_names_aliases_hex() {
        assert_eq!(resolve_color("blue", Kind::Note), "#90CAF9");
        assert_eq!(resolve_color("Light Blue", Kind::Note), "#81D4FA");
        assert_eq!(resolve_color("lightblue", Kind::Note), "#81D4FA");
        assert_eq!(resolve_color("cyan", Kind::Note), "#81D4FA");
        assert_eq!(resolve_color("pink", Kind::Note), "#F48FB1");
        assert_eq!(resolve_color("purple", Kind::Note), "#CE93D8");
        assert_eq!(resolve_color("grey", Kind::Note), "#E0E0E0");
        assert_eq!(resolve_color("#abc", Kind::Note), "#AABBCC");
        assert_eq!(resolve_color("12ab34", Kind::Note), "#12AB34");
    }

    #[test]
    fn col_2_unknown_falls_back_to_kind_default() {
        assert_eq!(resolve_color("plaid", Kind::Note), "#FFF59D");
        assert_eq!(resolve_color("plaid", Kind::Shape), "#81D4FA");
        assert_eq!(resolve_color("plaid", Kind::Frame), "#E0E0E0");
        assert_eq!(resolve_color("plaid", Kind::Text), "#212121");
        assert_eq!(resolve_color("plaid", Kind::Connector), "#212121");
    }

    #[test]
    fn col_3_nearest_name() {
        for (name, hex) in PALETTE {
            assert_eq!(nearest_name(hex), name);
        }
        assert_eq!(nearest_name("#8AC4F5"), "blue");
        assert_eq!(nearest_name("#00C853"), "green");
        assert_eq!(nearest_name("#FF0000"), "red");
        assert_eq!(nearest_name("#000000"), "black");
        assert_eq!(nearest_name("nonsense"), "black");
    }
}
