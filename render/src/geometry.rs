//! Shape outlines, connector end points and arrowheads: `server/static/js/geometry.js` in Rust.

use crate::fmt::num;
use protocol::{BoardObject, Endpoint, Geo, Kind};
use std::collections::HashMap;
use std::f64::consts::PI;

/// A point on the page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
}

/// The SVG path of a shape outline in its local box (0,0)-(w,h).
pub fn shape_path(geo: Geo, w: f64, h: f64) -> String {
    match geo {
        Geo::Ellipse => {
            let (rx, ry) = (num(w / 2.0), num(h / 2.0));
            let w = num(w);
            format!("M0 {ry}A{rx} {ry} 0 1 0 {w} {ry}A{rx} {ry} 0 1 0 0 {ry}Z")
        }
        Geo::Diamond => format!(
            "M{} 0L{} {}L{} {}L0 {}Z",
            num(w / 2.0),
            num(w),
            num(h / 2.0),
            num(w / 2.0),
            num(h),
            num(h / 2.0)
        ),
        Geo::Triangle => format!("M{} 0L{} {}L0 {}Z", num(w / 2.0), num(w), num(h), num(h)),
        Geo::Hexagon => {
            let i = (w / 4.0).min(h / 2.0);
            let (hh, ww) = (num(h / 2.0), num(w));
            let (a, b, hn) = (num(i), num(w - i), num(h));
            format!("M{a} 0L{b} 0L{ww} {hh}L{b} {hn}L{a} {hn}L0 {hh}Z")
        }
        Geo::Star => {
            let pts: Vec<String> = (0..10)
                .map(|k| {
                    let a = -PI / 2.0 + f64::from(k) * PI / 5.0;
                    let r = if k % 2 == 0 { 1.0 } else { 0.45 };
                    let x = w / 2.0 + a.cos() * r * w / 2.0;
                    let y = h / 2.0 + a.sin() * r * h / 2.0;
                    format!("{} {}", num(x), num(y))
                })
                .collect();
            format!("M{}Z", pts.join("L"))
        }
        Geo::Cloud => {
            // Bumps along an ellipse.
            let n = 9;
            let (cx, cy, rx, ry) = (w / 2.0, h / 2.0, w * 0.42, h * 0.36);
            let pts: Vec<Pt> = (0..n)
                .map(|k| {
                    let a = f64::from(k) / f64::from(n) * PI * 2.0;
                    Pt {
                        x: cx + a.cos() * rx,
                        y: cy + a.sin() * ry,
                    }
                })
                .collect();
            let r = num(w.max(h) * 0.16);
            let mut d = format!("M{} {}", num(pts[0].x), num(pts[0].y));
            for k in 0..pts.len() {
                let p = pts[(k + 1) % pts.len()];
                d.push_str(&format!("A{r} {r} 0 0 1 {} {}", num(p.x), num(p.y)));
            }
            d + "Z"
        }
        Geo::Rectangle => {
            let r = 8f64.min(w / 4.0).min(h / 4.0);
            let (rn, w_r, h_r, wn, hn) = (num(r), num(w - r), num(h - r), num(w), num(h));
            format!(
                "M{rn} 0H{w_r}Q{wn} 0 {wn} {rn}V{h_r}Q{wn} {hn} {w_r} {hn}H{rn}Q0 {hn} 0 {h_r}V{rn}Q0 0 {rn} 0Z"
            )
        }
    }
}

fn center(o: &BoardObject) -> Pt {
    Pt {
        x: o.x + o.w / 2.0,
        y: o.y + o.h / 2.0,
    }
}

/// Where a line from the center of `o` toward `toward` leaves its outline (box, or ellipse for
/// ellipse-like shapes), pushed out by 4 px.
fn boundary_point(o: &BoardObject, toward: Pt) -> Pt {
    let c = center(o);
    let (dx, dy) = (toward.x - c.x, toward.y - c.y);
    if dx == 0.0 && dy == 0.0 {
        return c;
    }
    let (hw, hh) = (o.w / 2.0, o.h / 2.0);
    let t = match (o.kind, o.geo) {
        (Kind::Shape, Some(Geo::Ellipse | Geo::Cloud)) => {
            1.0 / ((dx * dx) / (hw * hw) + (dy * dy) / (hh * hh)).sqrt()
        }
        (Kind::Shape, Some(Geo::Diamond)) => 1.0 / (dx.abs() / hw + dy.abs() / hh),
        _ => {
            let tx = if dx == 0.0 {
                f64::INFINITY
            } else {
                hw / dx.abs()
            };
            let ty = if dy == 0.0 {
                f64::INFINITY
            } else {
                hh / dy.abs()
            };
            tx.min(ty)
        }
    };
    let extra = 4.0 / dx.hypot(dy);
    Pt {
        x: c.x + dx * (t + extra),
        y: c.y + dy * (t + extra),
    }
}

/// The two end points of a connector; `None` when an end is missing or bound to an object that
/// is not in `by_id`.
pub fn connector_ends(c: &BoardObject, by_id: &HashMap<&str, &BoardObject>) -> Option<(Pt, Pt)> {
    let raw = |end: &Option<Endpoint>| -> Option<(Option<&BoardObject>, Pt)> {
        match end.as_ref()? {
            Endpoint::Bound { id } => {
                let o = *by_id.get(id.as_str())?;
                Some((Some(o), center(o)))
            }
            Endpoint::Free { x, y } => Some((None, Pt { x: *x, y: *y })),
        }
    };
    let (ao, ap) = raw(&c.from)?;
    let (bo, bp) = raw(&c.to)?;
    let pa = ao.map_or(ap, |o| boundary_point(o, bp));
    let pb = bo.map_or(bp, |o| boundary_point(o, ap));
    Some((pa, pb))
}

/// Triangle points of a 12 px arrowhead at `tip`, pointing away from `from`.
pub fn arrow_head(from: Pt, tip: Pt) -> String {
    let a = (tip.y - from.y).atan2(tip.x - from.x);
    let s = 12.0;
    let p1 = (tip.x - s * (a - 0.45).cos(), tip.y - s * (a - 0.45).sin());
    let p2 = (tip.x - s * (a + 0.45).cos(), tip.y - s * (a + 0.45).sin());
    format!(
        "{},{} {},{} {},{}",
        num(tip.x),
        num(tip.y),
        num(p1.0),
        num(p1.1),
        num(p2.0),
        num(p2.1)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_2_outlines_match_the_browser() {
        // Values the browser's shapePath gives for a 200 x 120 box.
        assert_eq!(
            shape_path(Geo::Diamond, 200.0, 120.0),
            "M100 0L200 60L100 120L0 60Z"
        );
        assert_eq!(
            shape_path(Geo::Rectangle, 200.0, 120.0),
            "M8 0H192Q200 0 200 8V112Q200 120 192 120H8Q0 120 0 112V8Q0 0 8 0Z"
        );
        assert!(shape_path(Geo::Star, 200.0, 120.0).starts_with("M100 0L"));
    }
}
