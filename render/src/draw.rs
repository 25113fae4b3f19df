//! Objects → SVG text, following `server/static/js/render.js` (kinds, geo outlines, colors,
//! frames with titles, connectors with arrowheads and labels, text wrapping) with the client's
//! CSS written out as attributes.

use crate::Error;
use crate::budget::Budget;
use crate::fmt::{num, push_escaped, push_num};
use crate::geometry::{Pt, arrow_head, connector_ends, shape_path};
use crate::text::{FONT_FAMILY, wrap};
use protocol::palette::{default_color, parse_hex};
use protocol::{Arrow, BoardObject, Geo, Kind};
use std::collections::HashMap;

/// How the SVG is framed.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Space around the drawing, in board px.
    pub margin: f64,
    /// Fill the drawing's area with white first (a PNG is otherwise transparent).
    pub background: bool,
    /// When set, the `width`/`height` attributes fit the drawing into a square of this many px
    /// (previews); otherwise they are the drawing's size in board px.
    pub fit: Option<f64>,
    /// Draw text (labels, titles). The browser hides text below 30 % zoom; a PNG that small
    /// leaves it out too ([`crate::board_png`]).
    pub text: bool,
    /// The pictures images show, by SHA-256, as `data:` URIs (an image whose picture is
    /// missing is drawn as a placeholder panel with its `alt`).
    pub pictures: std::sync::Arc<HashMap<String, String>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            margin: 24.0,
            background: true,
            fit: None,
            text: true,
            pictures: std::sync::Arc::default(),
        }
    }
}

/// Text style per kind: size, line height, padding, centered.
struct TextStyle {
    size: f64,
    lh: f64,
    pad: f64,
    middle: bool,
}

const NOTE: TextStyle = TextStyle {
    size: 16.0,
    lh: 21.0,
    pad: 14.0,
    middle: true,
};
const SHAPE: TextStyle = TextStyle {
    size: 15.0,
    lh: 20.0,
    pad: 12.0,
    middle: true,
};
const TEXT: TextStyle = TextStyle {
    size: 18.0,
    lh: 24.0,
    pad: 2.0,
    middle: false,
};

/// Space a frame's title takes above the frame.
const TITLE_SPACE: f64 = 24.0;

fn layer(kind: Kind) -> u8 {
    match kind {
        Kind::Frame => 0,
        Kind::Connector => 2,
        _ => 1,
    }
}

/// The board's objects as one SVG document. Frames are drawn first, then notes, shapes and
/// text, then connectors; within a layer by z, then id. A connector whose bound end is not among
/// `objects` is left out.
pub fn svg(objects: &[BoardObject], options: &Options) -> String {
    // Without limits nothing stops the drawing.
    draw(objects, options, &Budget::default()).map_or_else(|_| String::new(), |d| d.0)
}

/// [`svg`] and the drawing's size in board px (its `viewBox`), within `budget`: checked before
/// each object, and the SVG text may not outgrow its bytes.
pub(crate) fn draw(
    objects: &[BoardObject],
    options: &Options,
    budget: &Budget,
) -> Result<(String, f64, f64), Error> {
    let by_id: HashMap<&str, &BoardObject> = objects.iter().map(|o| (o.id.as_str(), o)).collect();
    let mut order: Vec<&BoardObject> = objects.iter().collect();
    order.sort_by(|a, b| {
        (layer(a.kind), a.z, a.id.as_str()).cmp(&(layer(b.kind), b.z, b.id.as_str()))
    });
    let mut body = String::with_capacity(objects.len() * 400);
    let mut bounds = Bounds::default();
    let mut current = None;
    for o in order {
        budget.check()?;
        budget.afford(body.len() as u64)?;
        let l = layer(o.kind);
        if current != Some(l) {
            if current.is_some() {
                body.push_str("</g>\n");
            }
            body.push_str(
                [
                    "<g class=\"frames\">\n",
                    "<g class=\"objects\">\n",
                    "<g class=\"connectors\">\n",
                ][usize::from(l)],
            );
            current = Some(l);
        }
        if o.kind == Kind::Connector {
            if let Some((a, b)) = connector_ends(o, &by_id) {
                connector(&mut body, o, (a, b), &mut bounds, options.text);
            }
        } else {
            object(&mut body, o, options);
            bounds.add_box(o);
        }
    }
    if current.is_some() {
        body.push_str("</g>\n");
    }
    let (x, y, w, h) = bounds.framed(options.margin);
    let (sw, sh) = match options.fit {
        Some(f) if f > 0.0 => {
            let k = (f / w).min(f / h).min(1.0);
            (w * k, h * k)
        }
        _ => (w, h),
    };
    let mut out = String::with_capacity(body.len() + 400);
    out.push_str("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"");
    push_num(&mut out, sw);
    out.push_str("\" height=\"");
    push_num(&mut out, sh);
    out.push_str(&format!(
        "\" viewBox=\"{} {} {} {}\" font-family=\"{FONT_FAMILY}\">\n",
        num(x),
        num(y),
        num(w),
        num(h)
    ));
    if options.background {
        out.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
            num(x),
            num(y),
            num(w),
            num(h)
        ));
    }
    out.push_str(&body);
    out.push_str("</svg>\n");
    Ok((out, w, h))
}

/// The drawing's extent.
#[derive(Default)]
struct Bounds {
    min: Option<(f64, f64, f64, f64)>,
}

impl Bounds {
    fn add(&mut self, x0: f64, y0: f64, x1: f64, y1: f64) {
        self.min = Some(match self.min {
            None => (x0, y0, x1, y1),
            Some((a, b, c, d)) => (a.min(x0), b.min(y0), c.max(x1), d.max(y1)),
        });
    }

    /// An object's box (rotated: the box around its turned corners; a frame: with its title).
    fn add_box(&mut self, o: &BoardObject) {
        let top = if o.kind == Kind::Frame {
            TITLE_SPACE
        } else {
            0.0
        };
        let (cx, cy) = (o.x + o.w / 2.0, o.y + o.h / 2.0);
        let (s, c) = o.rotation.to_radians().sin_cos();
        let (hw, hh) = (o.w / 2.0, o.h / 2.0 + top / 2.0);
        let (ex, ey) = (
            (hw * c).abs() + (hh * s).abs(),
            (hw * s).abs() + (hh * c).abs(),
        );
        let cy = cy - top / 2.0;
        self.add(cx - ex, cy - ey, cx + ex, cy + ey);
    }

    /// `(x, y, w, h)` with `margin` around; an empty board is a small blank page.
    fn framed(&self, margin: f64) -> (f64, f64, f64, f64) {
        match self.min {
            None => (0.0, 0.0, 320.0, 200.0),
            Some((x0, y0, x1, y1)) => (
                (x0 - margin).floor(),
                (y0 - margin).floor(),
                (x1 - x0 + margin * 2.0).ceil().max(1.0),
                (y1 - y0 + margin * 2.0).ceil().max(1.0),
            ),
        }
    }
}

/// A stored color, or the kind's default when it is not `#RRGGBB`.
fn color_of(o: &BoardObject) -> String {
    parse_hex(&o.color).unwrap_or_else(|| default_color(o.kind).to_owned())
}

fn rgb(hex: &str) -> [f64; 3] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0);
    [
        f64::from((v >> 16) & 0xff),
        f64::from((v >> 8) & 0xff),
        f64::from(v & 0xff),
    ]
}

/// The client's `darken`: each channel times `f`, lower-case hex.
fn darken(hex: &str, f: f64) -> String {
    let mut out = String::from("#");
    for v in rgb(hex) {
        out.push_str(&format!("{:02x}", (v * f).round() as u8));
    }
    out
}

/// True when text on this background should be light.
fn is_dark(hex: &str) -> bool {
    let [r, g, b] = rgb(hex);
    0.299 * r + 0.587 * g + 0.114 * b < 110.0
}

fn open_group(out: &mut String, o: &BoardObject) {
    out.push_str("<g class=\"obj ");
    out.push_str(o.kind.as_str());
    out.push_str("\" data-id=\"");
    push_escaped(out, o.id.as_str());
    out.push_str("\" transform=\"translate(");
    push_num(out, o.x);
    out.push(' ');
    push_num(out, o.y);
    out.push(')');
    if o.rotation != 0.0 {
        out.push_str(&format!(
            " rotate({} {} {})",
            num(o.rotation),
            num(o.w / 2.0),
            num(o.h / 2.0)
        ));
    }
    out.push_str("\">");
}

/// An image without its picture: a light panel with its description.
fn image_placeholder(out: &mut String, o: &BoardObject, text: bool) {
    let (w, h) = (num(o.w), num(o.h));
    out.push_str(&format!(
        "<rect width=\"{w}\" height=\"{h}\" fill=\"#eceff1\" stroke=\"#b0bec5\" stroke-width=\"1\"/>"
    ));
    if text && !o.alt.is_empty() {
        let mut shown = o.clone();
        shown.text = o.alt.clone();
        label(out, &shown, &TEXT, "#546e7a");
    }
}

/// An image's picture (a `data:` URI), its crop shown in the object's box.
fn picture(out: &mut String, o: &BoardObject, uri: &str) {
    let (w, h) = (num(o.w), num(o.h));
    let c = o.crop.unwrap_or(protocol::model::Crop {
        x: 0.0,
        y: 0.0,
        w: 1.0,
        h: 1.0,
    });
    // A `data:` URI of base64 and a mime type holds no character an attribute must escape.
    let uri: String = uri
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "+/=:;,.-".contains(*c))
        .collect();
    out.push_str(&format!(
        "<svg width=\"{w}\" height=\"{h}\" viewBox=\"{} {} {} {}\" preserveAspectRatio=\"none\">\
         <image width=\"1\" height=\"1\" preserveAspectRatio=\"none\" href=\"{uri}\"/></svg>",
        num(c.x),
        num(c.y),
        num(c.w),
        num(c.h)
    ));
}

fn object(out: &mut String, o: &BoardObject, options: &Options) {
    let text = options.text;
    let color = color_of(o);
    let (w, h) = (num(o.w), num(o.h));
    let ink = if is_dark(&color) {
        "#fafafa"
    } else {
        "#212121"
    };
    open_group(out, o);
    match o.kind {
        Kind::Note => {
            out.push_str(&format!(
                "<rect x=\"2\" y=\"4\" width=\"{w}\" height=\"{h}\" rx=\"3\" fill=\"#000000\" fill-opacity=\"0.1\"/>\
                 <rect width=\"{w}\" height=\"{h}\" rx=\"3\" fill=\"{color}\" stroke=\"#000000\" stroke-opacity=\"0.08\"/>"
            ));
            if text {
                label(out, o, &NOTE, ink);
            }
        }
        Kind::Shape => {
            let geo = o.geo.unwrap_or(Geo::Rectangle);
            out.push_str(&format!(
                "<path d=\"{}\" fill=\"{color}\" stroke=\"{}\" stroke-width=\"1.5\"/>",
                shape_path(geo, o.w, o.h),
                darken(&color, 0.72)
            ));
            if text {
                label(out, o, &SHAPE, ink);
            }
        }
        Kind::Image => match o.asset.as_ref().and_then(|a| options.pictures.get(a)) {
            Some(uri) => picture(out, o, uri),
            None => image_placeholder(out, o, text),
        },
        Kind::Text if text => label(out, o, &TEXT, &color),
        Kind::Text => {}
        Kind::Frame => {
            out.push_str(&format!(
                "<rect width=\"{w}\" height=\"{h}\" rx=\"6\" fill=\"{color}\" fill-opacity=\"0.35\" stroke=\"{}\" stroke-width=\"1.5\"/>",
                darken(&color, 0.6)
            ));
            if text {
                let title = if o.text.is_empty() { "Frame" } else { &o.text };
                let lines = wrap(title, o.w.max(40.0), 14.0, 1);
                out.push_str(
                    "<text x=\"2\" y=\"-8\" font-size=\"14\" font-weight=\"600\" fill=\"#37474f\">",
                );
                push_escaped(out, lines.first().map_or("", String::as_str));
                out.push_str("</text>");
            }
        }
        Kind::Connector => {}
    }
    out.push_str("</g>\n");
}

/// An object's text, wrapped inside its box (the client's `drawText`).
fn label(out: &mut String, o: &BoardObject, st: &TextStyle, fill: &str) {
    if o.text.is_empty() {
        return;
    }
    let inner = o.w - st.pad * 2.0;
    let max_lines = if st.middle {
        (((o.h - st.pad * 2.0) / st.lh).floor() as usize).max(1)
    } else {
        usize::MAX
    };
    let lines = wrap(&o.text, inner, st.size, max_lines);
    let total = lines.len() as f64 * st.lh;
    let y0 = if st.middle {
        (o.h - total) / 2.0
    } else {
        st.pad
    } + st.lh * 0.78;
    let x = num(if st.middle { o.w / 2.0 } else { st.pad });
    let anchor = if st.middle { "middle" } else { "start" };
    out.push_str(&format!(
        "<text x=\"{x}\" font-size=\"{}\" text-anchor=\"{anchor}\" fill=\"{fill}\">",
        num(st.size)
    ));
    for (i, line) in lines.iter().enumerate() {
        let y = ((y0 + i as f64 * st.lh) * 10.0).round() / 10.0;
        out.push_str(&format!("<tspan x=\"{x}\" y=\"{}\">", num(y)));
        push_escaped(out, if line.is_empty() { " " } else { line });
        out.push_str("</tspan>");
    }
    out.push_str("</text>");
}

fn connector(out: &mut String, o: &BoardObject, (a, b): (Pt, Pt), bounds: &mut Bounds, text: bool) {
    let color = color_of(o);
    bounds.add(a.x.min(b.x), a.y.min(b.y), a.x.max(b.x), a.y.max(b.y));
    out.push_str("<g class=\"obj connector\" data-id=\"");
    push_escaped(out, o.id.as_str());
    out.push_str(&format!(
        "\"><path d=\"M{} {}L{} {}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" stroke-linecap=\"round\"/>",
        num(a.x),
        num(a.y),
        num(b.x),
        num(b.y)
    ));
    let arrow = o.arrow.unwrap_or_default();
    if matches!(arrow, Arrow::End | Arrow::Both) {
        out.push_str(&format!(
            "<polygon points=\"{}\" fill=\"{color}\"/>",
            arrow_head(a, b)
        ));
    }
    if arrow == Arrow::Both {
        out.push_str(&format!(
            "<polygon points=\"{}\" fill=\"{color}\"/>",
            arrow_head(b, a)
        ));
    }
    if !o.text.is_empty() {
        let (mx, my) = ((a.x + b.x) / 2.0, (a.y + b.y) / 2.0);
        let lines = wrap(&o.text, 220.0, 13.0, 3);
        let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let w = longest as f64 * 7.5 + 12.0;
        let h = lines.len() as f64 * 17.0 + 6.0;
        bounds.add(mx - w / 2.0, my - h / 2.0, mx + w / 2.0, my + h / 2.0);
        out.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" fill=\"#ffffff\" stroke=\"#cfd5db\"/>",
            num(mx - w / 2.0),
            num(my - h / 2.0),
            num(w),
            num(h)
        ));
        if text {
            let x = num(mx);
            out.push_str(&format!(
                "<text x=\"{x}\" font-size=\"13\" text-anchor=\"middle\" fill=\"#263238\">"
            ));
            for (i, line) in lines.iter().enumerate() {
                let y = my - h / 2.0 + 16.0 + i as f64 * 17.0;
                out.push_str(&format!("<tspan x=\"{x}\" y=\"{}\">", num(y)));
                push_escaped(out, line);
                out.push_str("</tspan>");
            }
            out.push_str("</text>");
        }
    }
    out.push_str("</g>\n");
}
