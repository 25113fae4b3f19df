//! Draws a board the way the browser client does (`server/static/js/render.js`): SVG text built
//! here, PNG through `resvg` and a one-page vector PDF through `svg2pdf`. Text is measured and
//! drawn with one bundled font (DejaVu Sans, `fonts/`), and no system font is ever loaded, so
//! the output is the same on every machine. Rules `EXPORT-*` in `docs/SPEC.md`.
//!
//! # Layout
//! - [`svg`]: objects → SVG text (deterministic: layer, z, id order; numbers with at most two
//!   decimals).
//! - [`select`]: the part of a board a `?selection=` names.
//! - [`png`] / [`pdf`]: SVG text → PNG / PDF bytes; [`board_png`]: objects → PNG, without
//!   text below [`TEXT_MIN_SCALE`].
//! - [`file`]: the board file format (`docs/FILES.md`): writing one, reading one (or the older
//!   `GET /api/boards/{id}` shape).
//!
//! This crate does no I/O.
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod draw;
pub mod file;
mod fmt;
mod geometry;
mod raster;
mod select;
mod text;

pub use draw::{Options, svg};
pub use raster::{
    MAX_PIXELS, MAX_SCALE, MIN_SCALE, TEXT_MIN_SCALE, board_png, effective_scale, pdf, png,
};
pub use select::{UnknownId, select};
pub use text::{FONT, FONT_FAMILY, MAX_LABEL_CHARS, MAX_LABEL_LINES, text_width, wrap};

/// Why SVG text could not be turned into a PNG or PDF.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the SVG could not be read: {0}")]
    Svg(String),
    #[error("the image could not be made: {0}")]
    Image(String),
}
