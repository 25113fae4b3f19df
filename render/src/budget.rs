//! What one drawing may spend (EXPORT-12): a deadline, a flag another thread sets when nobody
//! waits for the drawing any more, and the most memory it may take. The drawing checks the first
//! two between objects and between its steps, and refuses up front what would take more memory
//! than allowed ([`Cost`]).

use crate::Error;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The limits of one drawing. The default has none.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    /// When the drawing must be done: past it, it stops with [`Error::TimedOut`].
    pub deadline: Option<Instant>,
    /// Set when the drawing is no longer wanted: it stops with [`Error::Cancelled`].
    pub cancel: Option<Arc<AtomicBool>>,
    /// The most bytes the drawing may take: the SVG text while it is written, then the estimate
    /// of [`Cost::bytes`] before an image is made; more is [`Error::TooLarge`].
    pub max_bytes: Option<u64>,
}

impl Budget {
    /// Stops a drawing that is no longer wanted or past its deadline.
    pub fn check(&self) -> Result<(), Error> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Err(Error::Cancelled);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Error::TimedOut);
        }
        Ok(())
    }

    /// Refuses `bytes` beyond [`Budget::max_bytes`].
    pub fn afford(&self, bytes: u64) -> Result<(), Error> {
        match self.max_bytes {
            Some(max) if bytes > max => Err(Error::TooLarge { bytes, max }),
            _ => Ok(()),
        }
    }
}

/// Bytes of memory per SVG element and per glyph while an image is made, measured with
/// `examples/peak.rs` (docs/BENCHMARKS.md, "Export: memory per drawing") and rounded up: `usvg`
/// keeps every element as a node and lays every glyph out as an outline; `svg2pdf` writes each
/// again.
const PNG_PER_ELEMENT: u64 = 1_000;
const PNG_PER_GLYPH: u64 = 800;
const PDF_PER_ELEMENT: u64 = 1_500;
const PDF_PER_GLYPH: u64 = 800;
/// Per pixel of a PNG: the image (4 bytes) and the copy its encoder makes.
const PNG_PER_PIXEL: u64 = 8;

/// What an SVG holds: its elements and the characters of its text (each one glyph to lay out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cost {
    pub svg_bytes: u64,
    pub elements: u64,
    pub glyphs: u64,
}

impl Cost {
    /// Counts the elements (start tags) and the non-blank characters of text of `svg`.
    pub fn of(svg: &str) -> Cost {
        let mut cost = Cost {
            svg_bytes: svg.len() as u64,
            ..Cost::default()
        };
        let mut in_tag = false;
        let bytes = svg.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'<' => {
                    in_tag = true;
                    if bytes.get(i + 1) != Some(&b'/') {
                        cost.elements += 1;
                    }
                }
                b'>' => in_tag = false,
                // Counts UTF-8 lead bytes only: one per character.
                b if !in_tag && !b.is_ascii_whitespace() && (b & 0xC0) != 0x80 => cost.glyphs += 1,
                _ => {}
            }
        }
        cost
    }

    /// The memory making a PNG of `pixels` pixels from this SVG takes: the SVG, its parsed
    /// tree with every glyph's outline, the image and its PNG copy.
    pub fn png_bytes(&self, pixels: u64) -> u64 {
        self.svg_bytes
            + self.elements * PNG_PER_ELEMENT
            + self.glyphs * PNG_PER_GLYPH
            + pixels * PNG_PER_PIXEL
    }

    /// The memory making a PDF from this SVG takes.
    pub fn pdf_bytes(&self) -> u64 {
        self.svg_bytes + self.elements * PDF_PER_ELEMENT + self.glyphs * PDF_PER_GLYPH
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_12_counts_elements_and_glyphs() {
        let c = Cost::of(
            "<svg>\n<g><text x=\"1\"><tspan>ab c&amp;</tspan><tspan>é</tspan></text></g>\n</svg>\n",
        );
        assert_eq!((c.elements, c.glyphs), (5, 9));
    }

    #[test]
    fn export_12_a_budget_stops_a_drawing() {
        let cancel = Arc::new(AtomicBool::new(false));
        let b = Budget {
            cancel: Some(cancel.clone()),
            max_bytes: Some(10),
            ..Budget::default()
        };
        assert!(b.check().is_ok() && b.afford(10).is_ok());
        assert!(matches!(b.afford(11), Err(Error::TooLarge { .. })));
        cancel.store(true, Ordering::Relaxed);
        assert!(matches!(b.check(), Err(Error::Cancelled)));
        let late = Budget {
            deadline: Some(Instant::now()),
            ..Budget::default()
        };
        assert!(matches!(late.check(), Err(Error::TimedOut)));
    }
}
