//! Short human replies (DESIGN §7, seed 004 FR-9/10): what was done, colors by palette name,
//! never hex; and follow-up suggestions.

use crate::resolve::{Change, CreatedInfo, EditInfo, Resolved};
use protocol::{Geo, Kind};

/// The noun for an object: "note", "circle", "square", "diamond", "frame", …
pub fn noun(kind: Kind, geo: Option<Geo>, equal_sides: bool) -> &'static str {
    match kind {
        Kind::Note => "note",
        Kind::Text => "text",
        Kind::Frame => "frame",
        Kind::Connector => "connector",
        Kind::Image => "image",
        Kind::Shape => match geo.unwrap_or(Geo::Rectangle) {
            Geo::Ellipse if equal_sides => "circle",
            Geo::Ellipse => "ellipse",
            Geo::Rectangle if equal_sides => "square",
            Geo::Rectangle => "rectangle",
            Geo::Diamond => "diamond",
            Geo::Triangle => "triangle",
            Geo::Hexagon => "hexagon",
            Geo::Star => "star",
            Geo::Cloud => "cloud",
        },
    }
}

/// What an object is called by: its text, or for an image without text its alt text (trimmed).
pub fn name_of(o: &protocol::BoardObject) -> &str {
    if o.kind == Kind::Image && o.text.trim().is_empty() {
        o.alt.trim()
    } else {
        &o.text
    }
}

fn article(word: &str) -> &'static str {
    match word.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else if word.ends_with('x') || word.ends_with('s') {
        format!("{n} {word}es")
    } else {
        format!("{n} {word}s")
    }
}

fn fmt_num(v: f64) -> String {
    if (v - v.round()).abs() < 0.05 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.1}")
    }
}

fn list(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn counts(created: &[CreatedInfo]) -> String {
    let mut order: Vec<(&'static str, usize)> = Vec::new();
    for c in created {
        let n = noun(c.kind, c.geo, c.equal_sides);
        let n = if c.kind == Kind::Shape { "shape" } else { n };
        match order.iter_mut().find(|(w, _)| *w == n) {
            Some((_, k)) => *k += 1,
            None => order.push((n, 1)),
        }
    }
    list(&order.iter().map(|(w, n)| plural(*n, w)).collect::<Vec<_>>())
}

fn describe_created(
    created: &[CreatedInfo],
    template: Option<&str>,
    title: Option<&str>,
    structure: Option<&str>,
) -> Option<String> {
    if created.is_empty() {
        return None;
    }
    if let Some(name) = structure {
        // The structure by name ("a 2×2 matrix", "a fishbone diagram"); the title is not counted.
        let body: Vec<CreatedInfo> = created
            .iter()
            .filter(|c| !(c.kind == Kind::Text && Some(c.text.as_str()) == title))
            .cloned()
            .collect();
        // A structure that states its own count ("6 empty notes in a frame …") is said as is.
        if name.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(format!("Created {name}."));
        }
        return Some(format!("Created {name} with {}.", counts(&body)));
    }
    if let Some(t) = template {
        // The title text is not counted.
        let body: Vec<CreatedInfo> = created
            .iter()
            .filter(|c| !(c.kind == Kind::Text && Some(c.text.as_str()) == title))
            .cloned()
            .collect();
        let frames = body.iter().filter(|c| c.kind == Kind::Frame).count();
        let rest: Vec<CreatedInfo> = body
            .iter()
            .filter(|c| c.kind != Kind::Frame)
            .cloned()
            .collect();
        let with = if rest.is_empty() {
            String::new()
        } else {
            format!(" with {}", counts(&rest))
        };
        return Some(match t {
            "swot-2x2" => format!("Created a SWOT analysis with {}.", counts(&body)),
            "journey-stages" => format!(
                "Created a user journey of {}{with}.",
                plural(frames, "stage")
            ),
            _ => format!("Created {}{with}.", plural(frames, "column")),
        });
    }
    if let [c] = created {
        let n = noun(c.kind, c.geo, c.equal_sides);
        let mut s = format!("Created {} {} {n}", article(&c.color), c.color);
        if c.explicit_position {
            s.push_str(&format!(" at ({}, {})", fmt_num(c.x), fmt_num(c.y)));
        }
        if c.kind == Kind::Shape && !c.equal_sides && c.explicit_position {
            // position already said
        } else if c.kind == Kind::Shape && !c.equal_sides {
            s.push_str(&format!(" ({}×{})", fmt_num(c.w), fmt_num(c.h)));
        }
        if !c.text.is_empty() && c.kind != Kind::Connector {
            s.push_str(&format!(" saying \"{}\"", snippet(&c.text, 40)));
        }
        s.push('.');
        return Some(s);
    }
    let first = &created[0].color;
    let same_color = created.iter().all(|c| &c.color == first);
    let same_kind = created.iter().all(|c| {
        noun(c.kind, c.geo, c.equal_sides)
            == noun(created[0].kind, created[0].geo, created[0].equal_sides)
    });
    if same_color && same_kind {
        let n = noun(created[0].kind, created[0].geo, created[0].equal_sides);
        return Some(format!(
            "Created {} {first} {}.",
            created.len(),
            plural(2, n).trim_start_matches("2 ")
        ));
    }
    Some(format!("Created {}.", counts(created)))
}

fn snippet(s: &str, n: usize) -> String {
    let t: String = s.chars().take(n).collect();
    if s.chars().count() > n {
        format!("{t}…")
    } else {
        t
    }
}

fn the(e: &EditInfo) -> String {
    let n = noun(e.kind, e.geo, e.equal_sides);
    // A picture has no color of its own.
    if matches!(e.kind, Kind::Connector | Kind::Image) {
        format!("the {n}")
    } else {
        format!("the {} {n}", e.color)
    }
}

fn describe_edit(e: &EditInfo) -> String {
    let mut parts = Vec::new();
    for c in &e.changes {
        parts.push(match c {
            Change::Moved { dx, dy, .. } if *dy == 0.0 && *dx != 0.0 => format!(
                "moved {} {} px to the {}",
                the(e),
                fmt_num(dx.abs()),
                if *dx > 0.0 { "right" } else { "left" }
            ),
            Change::Moved { dx, dy, .. } if *dx == 0.0 && *dy != 0.0 => format!(
                "moved {} {} px {}",
                the(e),
                fmt_num(dy.abs()),
                if *dy > 0.0 { "down" } else { "up" }
            ),
            Change::Moved { x, y, .. } => {
                format!("moved {} to ({}, {})", the(e), fmt_num(*x), fmt_num(*y))
            }
            Change::Resized { w, h, scale } => {
                let how = match scale {
                    Some(s) if (*s - 2.0).abs() < 1e-9 => " (twice as big)".to_string(),
                    Some(s) if (*s - 0.5).abs() < 1e-9 => " (half the size)".to_string(),
                    Some(s) => format!(" ({}×)", fmt_num(*s)),
                    None => String::new(),
                };
                format!("resized {} to {}×{}{how}", the(e), fmt_num(*w), fmt_num(*h))
            }
            Change::Recolored { color } => format!("made {} {color}", the(e)),
            Change::Retexted { text } => {
                format!(
                    "changed the text of {} to \"{}\"",
                    the(e),
                    snippet(text, 40)
                )
            }
            Change::Rotated { rotation } => {
                format!("rotated {} to {}°", the(e), fmt_num(*rotation))
            }
            Change::Reparented => format!("moved {} to another frame", the(e)),
            Change::Restacked { front: true } => format!("brought {} to the front", the(e)),
            Change::Restacked { front: false } => format!("sent {} to the back", the(e)),
            Change::Reordered { front: true } => {
                format!("moved {} forward in the drawing order", the(e))
            }
            Change::Reordered { front: false } => {
                format!("moved {} back in the drawing order", the(e))
            }
            Change::Reshaped { to } => format!("turned {} into {} {to}", the(e), article(to)),
            Change::Restyled { to } => format!("made {} {to}", the(e)),
        });
    }
    list(&parts)
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

// The reply is the resolver's result described; it lives here so that `resolve` does not
// depend on its wording.
impl Resolved {
    /// The human reply for what was done (colors by name).
    pub fn message(&self) -> String {
        describe(self)
    }

    /// Follow-up suggestions (e.g. connecting 2+ unconnected new objects).
    pub fn suggestions(&self) -> Vec<String> {
        suggestions(self)
    }
}

/// The reply for a resolved intent.
pub fn describe(r: &Resolved) -> String {
    let s = &r.summary;
    let mut sentences = Vec::new();
    let dup_created: usize = if s.duplicated > 0 { s.created.len() } else { 0 };
    let (made, copies) = s
        .created
        .split_at(s.created.len() - dup_created.min(s.created.len()));
    if let Some(c) = describe_created(
        made,
        s.template.as_deref(),
        s.title.as_deref(),
        s.structure.as_deref(),
    ) {
        sentences.push(c);
    }
    if s.duplicated > 0 {
        sentences.push(match copies.first() {
            Some(c) if s.duplicated == 1 && c.kind == Kind::Image => {
                "Duplicated the image.".to_string()
            }
            Some(c) if s.duplicated == 1 => format!(
                "Duplicated the {} {}.",
                c.color,
                noun(c.kind, c.geo, c.equal_sides)
            ),
            _ => format!("Duplicated {}.", plural(s.duplicated, "object")),
        });
    }
    match s.edited.as_slice() {
        [] => {}
        [one] => sentences.push(format!("{}.", capitalize(&describe_edit(one)))),
        many => sentences.push(format!("Updated {}.", plural(many.len(), "object"))),
    }
    if let Some((n, how)) = &s.arranged {
        sentences.push(format!("Arranged {} in a {how}.", plural(*n, "object")));
    }
    match s.deleted.as_slice() {
        [] => {}
        [one] => sentences.push(format!("Deleted {}.", the(one))),
        many => sentences.push(format!("Deleted {}.", plural(many.len(), "object"))),
    }
    if sentences.is_empty() {
        sentences.push("Nothing on the board needed to change.".into());
    }
    if let Some(n) = &s.notice {
        sentences.push(n.clone());
    }
    if !r.warnings.is_empty() {
        sentences.push(format!(
            "Skipped {} (see details).",
            plural(r.warnings.len(), "item")
        ));
    }
    sentences.join(" ")
}

/// Follow-ups: after 2+ unconnected new objects, suggest connecting them (seed 003).
pub fn suggestions(r: &Resolved) -> Vec<String> {
    let s = &r.summary;
    let loose: Vec<&CreatedInfo> = s
        .created
        .iter()
        .filter(|c| c.kind != Kind::Connector && c.kind != Kind::Frame && !c.in_frame)
        .collect();
    let connected = s.created.iter().any(|c| c.kind == Kind::Connector);
    let mut out = Vec::new();
    if loose.len() >= 2 && !connected && s.template.is_none() {
        out.push("Connect them with arrows".to_string());
        out.push("Arrange them in a grid".to_string());
    }
    out
}

/// Replaces hex colors (`#RRGGBB`, `#RGB`) in free text with their nearest palette names, so a
/// model's reply never shows hex (seed 004 FR-9).
pub fn humanize_colors(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('#') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let n = tail.bytes().take_while(u8::is_ascii_hexdigit).count();
        if n == 6 || n == 3 {
            out.push_str(protocol::palette::nearest_name(&rest[i..i + 1 + n]));
            rest = &tail[n..];
        } else {
            out.push('#');
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}
