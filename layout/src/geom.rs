//! Rectangles and small geometric helpers (page coordinates, y down).

use serde::{Deserialize, Serialize};

/// Tolerance used when comparing distances that came out of float arithmetic.
pub const EPS: f64 = 1e-6;

/// An axis-aligned rectangle: top-left corner `(x, y)`, width `w`, height `h`; y grows downwards.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width (never negative in anything this crate returns).
    pub w: f64,
    /// Height (never negative in anything this crate returns).
    pub h: f64,
}

impl Rect {
    /// A rectangle from its top-left corner and size.
    pub const fn new(x: f64, y: f64, w: f64, h: f64) -> Self {
        Self { x, y, w, h }
    }

    /// A rectangle of the given size centred on `(cx, cy)`.
    pub fn centered(cx: f64, cy: f64, w: f64, h: f64) -> Self {
        Self::new(cx - w / 2.0, cy - h / 2.0, w, h)
    }

    /// Right edge (`x + w`).
    pub fn right(&self) -> f64 {
        self.x + self.w
    }

    /// Bottom edge (`y + h`).
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }

    /// Centre x.
    pub fn cx(&self) -> f64 {
        self.x + self.w / 2.0
    }

    /// Centre y.
    pub fn cy(&self) -> f64 {
        self.y + self.h / 2.0
    }

    /// Centre point.
    pub fn center(&self) -> (f64, f64) {
        (self.cx(), self.cy())
    }

    /// Area (`w * h`).
    pub fn area(&self) -> f64 {
        self.w * self.h
    }

    /// The same rectangle moved by `(dx, dy)`.
    pub fn translated(&self, dx: f64, dy: f64) -> Self {
        Self::new(self.x + dx, self.y + dy, self.w, self.h)
    }

    /// The rectangle grown by `m` on every side (shrunk when `m` is negative).
    pub fn inflated(&self, m: f64) -> Self {
        Self::new(self.x - m, self.y - m, self.w + 2.0 * m, self.h + 2.0 * m)
    }

    /// The smallest rectangle containing both.
    pub fn union(&self, o: &Rect) -> Rect {
        let x = self.x.min(o.x);
        let y = self.y.min(o.y);
        Rect::new(
            x,
            y,
            self.right().max(o.right()) - x,
            self.bottom().max(o.bottom()) - y,
        )
    }

    /// The union of every rectangle, `None` for an empty input.
    pub fn union_all<'a>(rects: impl IntoIterator<Item = &'a Rect>) -> Option<Rect> {
        rects
            .into_iter()
            .fold(None, |acc: Option<Rect>, r| match acc {
                None => Some(*r),
                Some(a) => Some(a.union(r)),
            })
    }

    /// Signed separation: the larger of the horizontal and vertical gaps between the two
    /// rectangles. Negative when they overlap (by the smaller penetration depth), zero when they touch.
    pub fn separation(&self, o: &Rect) -> f64 {
        let dx = (o.x - self.right()).max(self.x - o.right());
        let dy = (o.y - self.bottom()).max(self.y - o.bottom());
        dx.max(dy)
    }

    /// Whether the interiors overlap (touching edges do not count).
    pub fn intersects(&self, o: &Rect) -> bool {
        self.separation(o) < -EPS
    }

    /// Whether the two rectangles are closer than `gap` (overlapping counts). Two rectangles
    /// exactly `gap` apart do not intersect with that gap.
    pub fn intersects_with_gap(&self, o: &Rect, gap: f64) -> bool {
        self.separation(o) < gap - EPS
    }

    /// Whether `o` lies entirely inside `self` (edges may touch).
    pub fn contains(&self, o: &Rect) -> bool {
        o.x >= self.x - EPS
            && o.y >= self.y - EPS
            && o.right() <= self.right() + EPS
            && o.bottom() <= self.bottom() + EPS
    }

    /// Whether the point lies inside or on the border.
    pub fn contains_point(&self, px: f64, py: f64) -> bool {
        px >= self.x && px <= self.right() && py >= self.y && py <= self.bottom()
    }

    /// Width and height clamped to be non-negative and every field finite (non-finite → 0).
    pub fn sanitized(&self) -> Rect {
        let f = |v: f64| if v.is_finite() { v } else { 0.0 };
        Rect::new(f(self.x), f(self.y), f(self.w).max(0.0), f(self.h).max(0.0))
    }

    /// Whether the segment from `a` to `b` passes through the interior of the rectangle
    /// (shrunk by `EPS` so a segment grazing an edge does not count).
    pub fn segment_crosses(&self, a: (f64, f64), b: (f64, f64)) -> bool {
        let r = self.inflated(-1e-3);
        if r.w <= 0.0 || r.h <= 0.0 {
            return false;
        }
        // Liang-Barsky clipping.
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let mut t0: f64 = 0.0;
        let mut t1: f64 = 1.0;
        for (p, q) in [
            (-dx, a.0 - r.x),
            (dx, r.right() - a.0),
            (-dy, a.1 - r.y),
            (dy, r.bottom() - a.1),
        ] {
            if p.abs() < 1e-12 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
            }
        }
        t0 < t1
    }
}

/// Whether segments `p1-p2` and `p3-p4` cross at a single interior point of both (touching at
/// an endpoint or overlapping collinearly does not count).
pub fn segments_cross(p1: (f64, f64), p2: (f64, f64), p3: (f64, f64), p4: (f64, f64)) -> bool {
    let orient = |a: (f64, f64), b: (f64, f64), c: (f64, f64)| {
        (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
    };
    let d1 = orient(p3, p4, p1);
    let d2 = orient(p3, p4, p2);
    let d3 = orient(p1, p2, p3);
    let d4 = orient(p1, p2, p4);
    let tol = 1e-9;
    ((d1 > tol && d2 < -tol) || (d1 < -tol && d2 > tol))
        && ((d3 > tol && d4 < -tol) || (d3 < -tol && d4 > tol))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_1_gap_semantics() {
        let a = Rect::new(0.0, 0.0, 100.0, 100.0);
        let b = Rect::new(120.0, 0.0, 50.0, 50.0);
        assert!(!a.intersects(&b));
        assert!(!a.intersects_with_gap(&b, 20.0));
        assert!(a.intersects_with_gap(&b, 20.5));
        assert!((a.separation(&b) - 20.0).abs() < 1e-9);
        let c = Rect::new(90.0, 90.0, 50.0, 50.0);
        assert!(a.intersects(&c));
        assert_eq!(a.union(&b), Rect::new(0.0, 0.0, 170.0, 100.0));
        assert!(a.contains(&Rect::new(10.0, 10.0, 10.0, 10.0)));
    }

    #[test]
    fn segment_tests() {
        let r = Rect::new(0.0, 0.0, 10.0, 10.0);
        assert!(r.segment_crosses((-5.0, 5.0), (15.0, 5.0)));
        assert!(!r.segment_crosses((-5.0, -5.0), (15.0, -5.0)));
        assert!(segments_cross(
            (0.0, 0.0),
            (10.0, 10.0),
            (0.0, 10.0),
            (10.0, 0.0)
        ));
        assert!(!segments_cross(
            (0.0, 0.0),
            (10.0, 10.0),
            (10.0, 10.0),
            (20.0, 0.0)
        ));
    }
}
