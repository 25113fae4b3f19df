//! SVG text → PNG (`resvg`) and one-page vector PDF (`svg2pdf`), with the bundled font only;
//! [`Drawing`]: a board drawn for one of them within a [`Budget`] (EXPORT-12).

use crate::Error;
use crate::budget::{Budget, Cost};
use crate::text::{FONT, FONT_FAMILY};
use resvg::{tiny_skia, usvg};
use std::sync::{Arc, OnceLock};

/// The smallest and largest PNG scale.
pub const MIN_SCALE: f64 = 0.1;
pub const MAX_SCALE: f64 = 4.0;
/// The most pixels a PNG gets (its scale is lowered to fit): 16 Mpx, 64 MiB while drawing.
pub const MAX_PIXELS: f64 = 16_000_000.0;
/// The longest side of a PNG, in px.
const MAX_SIDE: f64 = 16_000.0;

/// A font database holding the bundled font and nothing else.
fn fonts() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(FONT.to_vec());
        db.set_sans_serif_family(FONT_FAMILY);
        db.set_serif_family(FONT_FAMILY);
        db.set_monospace_family(FONT_FAMILY);
        Arc::new(db)
    })
    .clone()
}

/// Parsing options: the bundled font, and images only from `data:` URIs: usvg's default
/// resolver would open any file path an SVG names (a picture's SVG must never read a server file).
fn options() -> usvg::Options<'static> {
    usvg::Options {
        font_family: FONT_FAMILY.to_owned(),
        fontdb: fonts(),
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: usvg::ImageHrefResolver::default_data_resolver(),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    }
}

fn tree(svg: &str) -> Result<usvg::Tree, Error> {
    usvg::Tree::from_str(svg, &options()).map_err(|e| Error::Svg(e.to_string()))
}

/// The size of an SVG picture, if it parses (nothing outside it is read).
pub fn svg_size(data: &[u8]) -> Option<(f64, f64)> {
    let t = usvg::Tree::from_data(data, &options()).ok()?;
    let s = t.size();
    Some((f64::from(s.width()), f64::from(s.height())))
}

/// The scale actually used for a `w` x `h` drawing asked at `scale`: within
/// [`MIN_SCALE`]..=[`MAX_SCALE`], lowered so the image has at most [`MAX_PIXELS`] pixels and no
/// side longer than 16,000 px.
pub fn effective_scale(w: f64, h: f64, scale: f64) -> f64 {
    let s = if scale.is_finite() { scale } else { 1.0 };
    let s = s.clamp(MIN_SCALE, MAX_SCALE);
    let (w, h) = (w.max(1.0), h.max(1.0));
    s.min((MAX_PIXELS / (w * h)).sqrt())
        .min(MAX_SIDE / w)
        .min(MAX_SIDE / h)
}

/// Below this scale a board's PNG leaves text out, as the browser hides text below 30 % zoom
/// (it would be a few unreadable pixels tall, and laying it out is most of the work).
pub const TEXT_MIN_SCALE: f64 = 0.3;

/// What a board is drawn into.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    Svg,
    /// A PNG asked at this scale (see [`effective_scale`]).
    Png {
        scale: f64,
    },
    Pdf,
}

/// A board drawn as SVG text for a [`Target`], before the image is made: its [`Drawing::memory`]
/// says what making it will take, so a caller can refuse or wait before spending it.
pub struct Drawing {
    svg: String,
    target: Target,
    pixels: u64,
    cost: Cost,
}

impl Drawing {
    /// Draws `objects` for `target` within `budget`. A PNG leaves text out when the scale used is
    /// below [`TEXT_MIN_SCALE`].
    pub fn new(
        objects: &[protocol::BoardObject],
        options: &crate::Options,
        target: Target,
        budget: &Budget,
    ) -> Result<Drawing, Error> {
        let mut pixels = 0;
        let svg = match target {
            Target::Png { scale } => {
                // The extent does not depend on text: draw without it first (cheap), and lay the
                // text out only when the image is large enough to show it.
                let bare = crate::Options {
                    text: false,
                    ..options.clone()
                };
                let (svg, w, h) = crate::draw::draw(objects, &bare, budget)?;
                let s = effective_scale(w, h, scale);
                pixels = ((w * s).ceil().max(1.0) * (h * s).ceil().max(1.0)) as u64;
                if s < TEXT_MIN_SCALE || !options.text {
                    svg
                } else {
                    crate::draw::draw(objects, options, budget)?.0
                }
            }
            Target::Svg | Target::Pdf => crate::draw::draw(objects, options, budget)?.0,
        };
        let cost = Cost::of(&svg);
        Ok(Drawing {
            svg,
            target,
            pixels,
            cost,
        })
    }

    /// The memory, in bytes, that the drawing takes until its file is made (estimated from its
    /// elements, glyphs and pixels: [`Cost`]).
    pub fn memory(&self) -> u64 {
        match self.target {
            Target::Svg => self.cost.svg_bytes,
            Target::Png { .. } => self.cost.png_bytes(self.pixels),
            Target::Pdf => self.cost.pdf_bytes(),
        }
    }

    /// What the SVG holds.
    pub fn cost(&self) -> Cost {
        self.cost
    }

    /// Makes the file (SVG text, PNG or PDF bytes) within `budget`: refused when
    /// [`Drawing::memory`] is beyond it, checked again between the steps.
    pub fn finish(self, budget: &Budget) -> Result<Vec<u8>, Error> {
        budget.afford(self.memory())?;
        match self.target {
            Target::Svg => Ok(self.svg.into_bytes()),
            Target::Png { scale } => png_within(&self.svg, scale, budget),
            Target::Pdf => pdf_within(&self.svg, budget),
        }
    }
}

/// A board's objects drawn as a PNG at `scale` (see [`effective_scale`]); without text when the
/// scale used is below [`TEXT_MIN_SCALE`].
pub fn board_png(objects: &[protocol::BoardObject], scale: f64) -> Result<Vec<u8>, Error> {
    let budget = Budget::default();
    Drawing::new(
        objects,
        &crate::Options::default(),
        Target::Png { scale },
        &budget,
    )?
    .finish(&budget)
}

/// The SVG drawn as a PNG at `scale` (see [`effective_scale`]).
pub fn png(svg: &str, scale: f64) -> Result<Vec<u8>, Error> {
    png_within(svg, scale, &Budget::default())
}

fn png_within(svg: &str, scale: f64, budget: &Budget) -> Result<Vec<u8>, Error> {
    budget.check()?;
    let tree = tree(svg)?;
    budget.check()?;
    let size = tree.size();
    let (w, h) = (f64::from(size.width()), f64::from(size.height()));
    let s = effective_scale(w, h, scale);
    let pw = ((w * s).ceil() as u32).max(1);
    let ph = ((h * s).ceil() as u32).max(1);
    let mut pixmap = tiny_skia::Pixmap::new(pw, ph)
        .ok_or_else(|| Error::Image(format!("no {pw} x {ph} image")))?;
    let s = s as f32;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(s, s),
        &mut pixmap.as_mut(),
    );
    drop(tree);
    budget.check()?;
    pixmap.encode_png().map_err(|e| Error::Image(e.to_string()))
}

/// The SVG as a one-page vector PDF (text embedded as a subset of the bundled font); a board px
/// is a CSS px (1/96 in), so the page is 0.75 pt per px.
pub fn pdf(svg: &str) -> Result<Vec<u8>, Error> {
    pdf_within(svg, &Budget::default())
}

fn pdf_within(svg: &str, budget: &Budget) -> Result<Vec<u8>, Error> {
    budget.check()?;
    let tree = tree(svg)?;
    budget.check()?;
    svg2pdf::to_pdf(
        &tree,
        svg2pdf::ConversionOptions::default(),
        svg2pdf::PageOptions { dpi: 96.0 },
    )
    .map_err(|e| Error::Image(e.to_string()))
}
