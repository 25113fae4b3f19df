//! Origin checks (AUTH-14): an `Origin` is allowed when its scheme, host and port equal those of
//! the server's own origin or of one of `--allowed-origins`, exactly.

/// A parsed origin: scheme, host (lowercase), port (the scheme's default when omitted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub scheme: String,
    pub host: String,
    pub port: u16,
}

impl Origin {
    /// Parses `scheme://host[:port]` (a path, if any, is ignored; userinfo is refused).
    pub fn parse(s: &str) -> Option<Origin> {
        let (scheme, rest) = s.trim().split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let default = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        let authority = rest.split(['/', '?', '#']).next()?;
        if authority.is_empty() || authority.contains('@') {
            return None;
        }
        Self::from_authority(&scheme, authority, default)
    }

    /// An origin from a scheme and a `Host` header value.
    pub fn from_host(scheme: &str, host: &str) -> Option<Origin> {
        let default = if scheme == "https" { 443 } else { 80 };
        Self::from_authority(scheme, host.trim(), default)
    }

    fn from_authority(scheme: &str, authority: &str, default: u16) -> Option<Origin> {
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, after) = v6.split_once(']')?;
            let port = match after.strip_prefix(':') {
                Some(p) => p.parse().ok()?,
                None if after.is_empty() => default,
                None => return None,
            };
            (format!("[{}]", h.to_ascii_lowercase()), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_ascii_lowercase(), p.parse().ok()?),
                None => (authority.to_ascii_lowercase(), default),
            }
        };
        if host.is_empty()
            || !host.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '[' | ']' | ':')
            })
        {
            return None;
        }
        Some(Origin {
            scheme: scheme.to_owned(),
            host,
            port,
        })
    }
}

/// Whether `origin` (an `Origin` header value) is one of `allowed`.
pub fn allowed(origin: &str, allowed: &[Origin]) -> bool {
    match Origin::parse(origin) {
        Some(o) => allowed.contains(&o),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_14_origins_match_exactly_on_scheme_host_and_port() {
        let list = vec![
            Origin::parse("https://example.com").unwrap(),
            Origin::parse("http://localhost:8080").unwrap(),
        ];
        for ok in [
            "https://example.com",
            "https://EXAMPLE.com",
            "https://example.com:443",
            "http://localhost:8080",
        ] {
            assert!(allowed(ok, &list), "{ok}");
        }
        for bad in [
            "https://evil-example.com",
            "https://example.com.evil.com",
            "http://example.com",
            "https://example.com:8443",
            "https://sub.example.com",
            "https://example.co",
            "http://localhost:8081",
            "http://localhost",
            "https://localhost:8080",
            "null",
            "",
            "https://user@example.com",
            "ws://example.com",
            "https://example.com\u{0}",
        ] {
            assert!(!allowed(bad, &list), "{bad}");
        }
    }

    #[test]
    fn auth_14_host_header_origins() {
        assert_eq!(
            Origin::from_host("http", "127.0.0.1:3000"),
            Origin::parse("http://127.0.0.1:3000")
        );
        assert_eq!(
            Origin::from_host("https", "Example.com"),
            Origin::parse("https://example.com:443")
        );
        assert_eq!(
            Origin::from_host("http", "[::1]:80"),
            Origin::parse("http://[::1]")
        );
    }
}
