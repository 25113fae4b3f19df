//! ARCH-1: the server's top-level modules form layers, written once in `server/src/lib.rs`'s
//! doc comment (its `# Layers` section); no module imports one in its own layer or above it, so
//! the imports have no circle. Read from the sources (test code left out): every `crate::<name>`
//! path, grouped `crate::{…}` imports, and `super::` paths that reach the crate root.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

fn lib_rs() -> String {
    std::fs::read_to_string(Path::new(SRC).join("lib.rs")).expect("server/src/lib.rs")
}

/// The layers from the bottom up, as lib.rs's `# Layers` section lists them: layers separated by
/// `<`, the modules of one layer by commas, each name in backquotes.
fn layers(lib: &str) -> Vec<Vec<String>> {
    let section: String = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .skip_while(|l| l.trim() != "# Layers")
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('#'))
        .filter(|l| l.contains(" < "))
        .collect::<Vec<_>>()
        .join(" ");
    section
        .split(" < ")
        .map(|layer| {
            layer
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

/// The crate's top-level modules (`mod x;` lines of lib.rs).
fn modules(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            l.strip_prefix("mod ")?.strip_suffix(';').map(str::to_owned)
        })
        .collect()
}

/// The root's re-exports (`pub use config::Config;` makes `crate::Config` an import of config).
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for l in lib.lines() {
        let Some(path) = l.trim().strip_prefix("pub use ") else {
            continue;
        };
        let path = path.trim_end_matches(';');
        let (module, rest) = path.split_once("::").unwrap_or((path, ""));
        for name in rest.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !name.is_empty() {
                out.insert(name.to_owned(), module.to_owned());
            }
        }
    }
    out
}

/// Source text with comments, string and char literals blanked (their braces and paths do not
/// count).
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &src[i..];
        let skip = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            rest.find("*/").map_or(rest.len(), |e| e + 2)
        } else if let Some(n) = raw_string(rest) {
            n
        } else if rest.starts_with('"') {
            quoted(rest, '"')
        } else if rest.starts_with('\'') {
            char_literal(rest)
        } else {
            0
        };
        if skip > 0 {
            out.push(' ');
            i += skip;
        } else {
            let c = rest.chars().next().expect("a char");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The length of a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) at the start of `s`.
fn raw_string(s: &str) -> Option<usize> {
    let after_r = s.strip_prefix("br").or_else(|| s.strip_prefix('r'))?;
    let hashes = after_r.len() - after_r.trim_start_matches('#').len();
    let body = after_r[hashes..].strip_prefix('"')?;
    let end = format!("\"{}", "#".repeat(hashes));
    let close = body.find(&end)?;
    Some(s.len() - body.len() + close + end.len())
}

/// The length of a literal quoted by `q` with backslash escapes, at the start of `s`.
fn quoted(s: &str, q: char) -> usize {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            c if c == q => return i + 1,
            _ => {}
        }
    }
    s.len()
}

/// A char literal's length at the start of `s`, or 0 for a lifetime (`'a`).
fn char_literal(s: &str) -> usize {
    let mut chars = s.char_indices().skip(1);
    match (chars.next(), chars.next()) {
        (Some((_, '\\')), _) => quoted(s, '\''),
        (Some(_), Some((i, '\''))) => i + 1,
        _ => 0,
    }
}

/// `code` without the items marked `#[cfg(test)]` (a `mod tests { … }` or any other item).
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        rest = &rest[at + "#[cfg(test)]".len()..];
        let open = rest.find('{');
        let semi = rest.find(';');
        let end = match (open, semi) {
            (Some(o), Some(s)) if s < o => s + 1,
            (Some(o), _) => o + matching_brace(&rest[o..]),
            (None, Some(s)) => s + 1,
            (None, None) => rest.len(),
        };
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The length up to and including the brace closing the one `s` starts with.
fn matching_brace(s: &str) -> usize {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// The crate-root names a file's code reaches: `crate::x`, `crate::{x, y::z}`, and `super::x`
/// with as many `super::` as the file is deep (`depth` 1 for `src/x.rs` and `src/x/mod.rs`).
fn root_names(code: &str, depth: usize) -> BTreeSet<String> {
    let toks = tokens(code);
    let tok = |k: usize| toks.get(k).map_or("", |t| t.1);
    let mut names = BTreeSet::new();
    for k in 0..toks.len() {
        if k > 0 && matches!(tok(k - 1), "::" | "$") {
            continue;
        }
        let supers = (0..)
            .take_while(|n| tok(k + 2 * n) == "super" && tok(k + 2 * n + 1) == "::")
            .count();
        let head = if tok(k) == "crate" && tok(k + 1) == "::" {
            k + 2
        } else if supers > 0 && supers == depth {
            k + 2 * supers
        } else {
            continue;
        };
        match tok(head) {
            "{" => names.extend(group_heads(&code[toks[head].0..])),
            name if name.starts_with(|c: char| c.is_alphabetic() || c == '_') => {
                names.insert(name.to_owned());
            }
            _ => {}
        }
    }
    names
}

/// The tokens of `code` with their offsets: identifiers, `::`, and single other characters
/// (white space left out).
fn tokens(code: &str) -> Vec<(usize, &str)> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(c) = code[i..].chars().next() {
        let rest = &code[i..];
        let len = if is_ident(c) {
            rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len())
        } else if rest.starts_with("::") {
            2
        } else {
            c.len_utf8()
        };
        if !c.is_whitespace() {
            out.push((i, &rest[..len]));
        }
        i += len;
    }
    out
}

/// The first names of each path in a `{a, b::c, d::{e}}` group that `s` starts with.
fn group_heads(s: &str) -> Vec<String> {
    let inner = &s[1..matching_brace(s) - 1];
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices().chain([(inner.len(), ',')]) {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                let part = inner[start..i].trim();
                let head = part.split("::").next().unwrap_or("").trim();
                if !head.is_empty() && head != "self" {
                    heads.push(head.to_owned());
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    heads
}

/// Every `.rs` file under `dir`, test files and `tests/` folders left out.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source dir").flatten() {
        let p = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "tests" {
                sources(&p, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(p);
        }
    }
}

/// (top-level module, module depth) of a file under `src/`; None for lib.rs and main.rs.
fn module_of(rel: &Path) -> Option<(String, usize)> {
    let parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let top = parts[0].trim_end_matches(".rs").to_owned();
    if top == "lib" || top == "main" {
        return None;
    }
    let last = parts.last()?;
    let depth = parts.len() - usize::from(last == "mod.rs");
    Some((top, depth))
}

/// Top-level module → the other top-level modules its non-test code imports.
fn edges(lib: &str) -> BTreeMap<String, BTreeSet<String>> {
    let (mods, re) = (modules(lib), reexports(lib));
    let mut files = Vec::new();
    sources(Path::new(SRC), &mut files);
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(SRC).expect("under src");
        let Some((top, depth)) = module_of(rel) else {
            continue;
        };
        let src = std::fs::read_to_string(&f).expect("a source file");
        let code = without_tests(&code_only(&src));
        for name in root_names(&code, depth) {
            let to = if mods.contains(&name) {
                name
            } else if let Some(m) = re.get(&name) {
                m.clone()
            } else {
                continue;
            };
            if to != top {
                out.entry(top.clone()).or_default().insert(to);
            }
        }
    }
    out
}

/// Each module's layer (0 = bottom).
fn ranks(layers: &[Vec<String>]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (rank, layer) in layers.iter().enumerate() {
        for m in layer {
            assert!(
                out.insert(m.clone(), rank).is_none(),
                "ARCH-1: `{m}` is listed twice in lib.rs's layers"
            );
        }
    }
    out
}

#[test]
fn arch_1_every_module_has_one_layer() {
    let lib = lib_rs();
    let ranked: BTreeSet<String> = ranks(&layers(&lib)).into_keys().collect();
    assert!(ranked.len() > 5, "ARCH-1: lib.rs lists its layers");
    assert_eq!(
        ranked,
        modules(&lib),
        "ARCH-1: lib.rs's layers name every top-level module, and only those"
    );
}

#[test]
fn arch_1_no_module_imports_its_layer_or_one_above() {
    let lib = lib_rs();
    let rank = ranks(&layers(&lib));
    let edges = edges(&lib);
    assert!(
        edges.get("http").is_some_and(|to| to.contains("board")),
        "ARCH-1: the imports are read (http imports board)"
    );
    let mut upward = Vec::new();
    for (from, tos) in &edges {
        for to in tos {
            let (rf, rt) = (rank.get(from), rank.get(to));
            if rf.is_none() || rt.is_none() || rt >= rf {
                upward.push(format!("{from} -> {to}"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "ARCH-1: imports of a module in the same layer or above (order in lib.rs): {upward:?}"
    );
}

#[test]
fn arch_1_the_reader_sees_every_form_of_import() {
    let src = r#"
        use crate::config::Config;
        use crate::{board::{Env, Registry}, store};
        fn f() { let _ = crate::http::router; let _ = super::quota::X; let s = "crate::net"; }
        // crate::drawing in a comment
        #[cfg(test)]
        mod tests { use crate::shared::Shared; fn g() { let c = '{'; } }
        fn h() { let _ = crate::metrics::Metrics::new(); }
    "#;
    let code = without_tests(&code_only(src));
    let names: Vec<String> = root_names(&code, 1).into_iter().collect();
    assert_eq!(
        names,
        ["board", "config", "http", "metrics", "quota", "store"],
        "ARCH-1: grouped, inline and super:: imports count; strings, comments and tests do not"
    );
    assert!(
        root_names(&code, 2).len() == 5,
        "one super:: is not the root at depth 2"
    );
}
