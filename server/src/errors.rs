//! What a client is told when something fails inside the server (ERR-1): what happened, never
//! where. The detail (file paths, SQL and database text, internal type names) goes to the log
//! under a short reference, and the client's message carries that reference so an operator can
//! find the entry.

use std::fmt::Display;

/// Logs `detail` under a fresh reference and returns `"{what} (ref XXXXXXXX)"` for the client.
pub fn public(what: &str, detail: &dyn Display) -> String {
    let reference = uuid::Uuid::new_v4().simple().to_string();
    let reference = &reference[..8];
    tracing::warn!(error_ref = reference, error = %detail, "{what}");
    format!("{what} (ref {reference})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn err_1_the_message_carries_a_reference_not_the_detail() {
        let m = public(
            "the store is unavailable",
            &"sqlite: disk I/O error at /var/lib/board/boards.db",
        );
        assert!(m.starts_with("the store is unavailable (ref "), "{m}");
        assert!(!m.contains("/var/lib") && !m.contains("sqlite"), "{m}");
        assert_eq!(m.len(), "the store is unavailable (ref 12345678)".len());
    }
}
