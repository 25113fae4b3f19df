//! Error text fit for a client (ERR-1): serde's messages name the Rust types behind a field
//! ("expected struct ObjectInput"), which says nothing to a client and tells an attacker how the
//! server is built. [`serde_message`] keeps what was wrong and drops the type names.

/// `e`'s message with Rust type names replaced by what a client sent or should send.
pub fn serde_message(e: &serde_json::Error) -> String {
    scrub(&e.to_string())
}

/// Replaces `struct Name` by "an object" and `enum Name` by "one of the allowed values"
/// (`tuple struct Name` and `unit struct Name` alike).
pub fn scrub(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let hit = ["tuple struct ", "unit struct ", "struct ", "enum "]
            .iter()
            .filter_map(|w| rest.find(w).map(|at| (at, *w)))
            .min_by_key(|(at, w)| (*at, std::cmp::Reverse(w.len())));
        let Some((at, word)) = hit else {
            out.push_str(rest);
            return out;
        };
        // Only a whole word followed by an identifier is a type name.
        let before_ok = at == 0 || !rest[..at].ends_with(|c: char| c.is_alphanumeric());
        let after = &rest[at + word.len()..];
        let name_len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if !before_ok || name_len == 0 || !after.starts_with(|c: char| c.is_ascii_uppercase()) {
            out.push_str(&rest[..at + word.len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..at]);
        out.push_str(if word == "enum " {
            "one of the allowed values"
        } else {
            "an object"
        });
        rest = &after[name_len..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn err_1_type_names_are_dropped() {
        assert_eq!(
            scrub("invalid type: string \"a\", expected struct ObjectInput"),
            "invalid type: string \"a\", expected an object"
        );
        assert_eq!(
            scrub("expected enum Kind at line 1"),
            "expected one of the allowed values at line 1"
        );
        assert_eq!(scrub("expected tuple struct Point"), "expected an object");
        // Not type names: lower case, or part of a word.
        assert_eq!(scrub("a struct field"), "a struct field");
        assert_eq!(scrub("destruct Foo"), "destruct Foo");
        assert_eq!(scrub("unknown variant `x`"), "unknown variant `x`");
    }

    #[test]
    fn err_1_serde_errors_of_inputs_name_no_type() {
        let e = serde_json::from_str::<crate::ObjectInput>("\"x\"").unwrap_err();
        let m = serde_message(&e);
        assert!(!m.contains("ObjectInput"), "{m}");
        let e =
            serde_json::from_str::<crate::OpInput>("{\"op\":\"create\",\"object\":5}").unwrap_err();
        let m = serde_message(&e);
        assert!(!m.contains("Input"), "{m}");
    }
}
