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
//! - [`Drawing`] within a [`Budget`]: objects → SVG, PNG or PDF in two steps, so a caller learns
//!   what the image will take ([`Drawing::memory`]) before it is made; a deadline and a
//!   cancellation flag are checked between objects and steps (EXPORT-12).
//! - [`file`]: the board file format (`docs/FILES.md`): writing one, reading one (or the older
//!   `GET /api/boards/{id}` shape).
//!
//! This crate does no I/O.
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod budget;
mod draw;
pub mod file;
mod fmt;
mod geometry;
mod raster;
mod select;
mod text;

pub use budget::{Budget, Cost};
pub use draw::{Options, svg};
pub use raster::{
    Drawing, MAX_PIXELS, MAX_SCALE, MIN_SCALE, TEXT_MIN_SCALE, Target, board_png, effective_scale,
    pdf, png, svg_size,
};
pub use select::{UnknownId, select};
pub use text::{FONT, FONT_FAMILY, MAX_LABEL_CHARS, MAX_LABEL_LINES, text_width, wrap};

/// Why a drawing was not made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the SVG could not be read: {0}")]
    Svg(String),
    #[error("the image could not be made: {0}")]
    Image(String),
    /// Its [`Budget::cancel`] flag was set.
    #[error("the drawing was no longer wanted")]
    Cancelled,
    /// It was not done by its [`Budget::deadline`].
    #[error("the drawing ran past its deadline")]
    TimedOut,
    /// It would take more memory than its [`Budget::max_bytes`].
    #[error("the drawing would take {bytes} bytes; at most {max} are allowed")]
    TooLarge { bytes: u64, max: u64 },
}
