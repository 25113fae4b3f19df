//! The browser client: plain HTML, CSS and ES modules from `server/static/`, embedded in the
//! binary (in debug builds rust-embed reads them from disk, so edits show on reload).
//!
//! - `GET /` → the board list (`index.html`).
//! - `GET /b/{board_id}` → the board page (`board.html`); an id outside `[A-Za-z0-9_-]{1,64}`
//!   is a 404 page.
//! - `GET /login` → the sign-in page (`login.html`; the one-time code travels in the fragment).
//! - `GET /s/{token}` → the share-link page (`share.html`); a token outside
//!   `[A-Za-z0-9_-]{1,128}` is a 404 page. Whether the link is valid is for the API to say.
//! - `GET /static/{*path}` → one embedded file with its content type.
//!
//! Every answer carries a strong `ETag` (the file's SHA-256) and `Cache-Control: no-cache`, so
//! browsers revalidate and get `304 Not Modified` while the binary is the same, and never run a
//! stale client against a newer server. Pages also say `Referrer-Policy: no-referrer`, so a
//! share link's token never leaves in a `Referer` header.

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::RustEmbed;
use std::fmt::Write as _;

#[derive(RustEmbed)]
#[folder = "static/"]
struct Assets;

/// The pages' content security policy: everything from this origin, the WebSocket included
/// (CSP Level 3 lets `'self'` match `ws:`/`wss:` to the page's own host; NET-9).
const CSP: &str = "default-src 'self'; connect-src 'self'; img-src 'self' data:; \
                   style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; \
                   frame-ancestors 'none'";

/// The client routes (merged into [`crate::http::router`]).
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(index))
        .route("/b/{board_id}", get(board))
        .route("/login", get(login))
        .route("/s/{token}", get(share))
        .route("/static/{*path}", get(asset))
}

async fn index(headers: HeaderMap) -> Response {
    serve("index.html", &headers)
}

async fn board(Path(board_id): Path<String>, headers: HeaderMap) -> Response {
    if protocol::ids::check_id(&board_id).is_err() {
        return not_found();
    }
    serve("board.html", &headers)
}

async fn login(headers: HeaderMap) -> Response {
    serve("login.html", &headers)
}

async fn share(Path(token): Path<String>, headers: HeaderMap) -> Response {
    let well_formed = (1..=128).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !well_formed {
        return not_found();
    }
    serve("share.html", &headers)
}

async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    // The HTML pages live at their own routes; everything else is a static asset.
    if path.ends_with(".html") {
        return not_found();
    }
    serve(&path, &headers)
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        "<!doctype html><meta charset=\"utf-8\"><title>Not found</title>\
         <p>Not found. <a href=\"/\">All boards</a></p>",
    )
        .into_response()
}

/// The content type of an embedded file; text types say they are UTF-8.
fn content_type(path: &str) -> String {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let essence = mime.essence_str();
    // ES modules must be served with a JavaScript type; say so explicitly.
    let essence = if essence == "application/javascript" {
        "text/javascript"
    } else {
        essence
    };
    if essence.starts_with("text/") || essence == "image/svg+xml" || essence == "application/json" {
        format!("{essence}; charset=utf-8")
    } else {
        essence.to_string()
    }
}

fn serve(path: &str, headers: &HeaderMap) -> Response {
    let Some(file) = Assets::get(path) else {
        return not_found();
    };
    let mut etag = String::with_capacity(34);
    etag.push('"');
    for b in &file.metadata.sha256_hash()[..16] {
        let _ = write!(etag, "{b:02x}");
    }
    etag.push('"');
    let etag_value = HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"0\""));
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut out = HeaderMap::new();
    out.insert(header::ETAG, etag_value);
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    out.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if path.ends_with(".html") {
        out.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        );
        out.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
    }
    if fresh {
        return (StatusCode::NOT_MODIFIED, out).into_response();
    }
    if let Ok(v) = HeaderValue::from_str(&content_type(path)) {
        out.insert(header::CONTENT_TYPE, v);
    }
    (StatusCode::OK, out, file.data.into_owned()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        assert_eq!(
            content_type("js/board.js"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("css/app.css"), "text/css; charset=utf-8");
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("favicon.svg"), "image/svg+xml; charset=utf-8");
        assert_eq!(content_type("x.bin"), "application/octet-stream");
    }

    #[test]
    fn every_page_is_embedded() {
        assert!(Assets::get("index.html").is_some());
        assert!(Assets::get("board.html").is_some());
        assert!(Assets::get("login.html").is_some());
        assert!(Assets::get("share.html").is_some());
        assert!(Assets::get("js/board.js").is_some());
    }
}
