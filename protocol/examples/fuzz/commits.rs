//! The commits of target `board`: creates of every kind, updates of random fields and deletes,
//! whose parents and connector ends name live, deleted, unknown and self ids (and frames their own
//! descendants), with values inside, on and far past every clamp.

use crate::board::Session;
use protocol::num::Num;
use protocol::{Arrow, EndpointInput, Geo, Kind, ObjectId, ObjectInput, OpInput, PatchInput};

impl Session {
    pub fn commit_ops(&mut self) -> Vec<OpInput> {
        let n = match self.r.below(100) {
            0..3 => 0,
            3..11 => self.r.range(10, 40),
            _ => self.r.range(1, 4),
        };
        let mut ops = Vec::with_capacity(n);
        while ops.len() < n {
            match self.r.below(100) {
                0..45 => ops.push(self.create()),
                45..80 => ops.push(self.update()),
                _ => self.delete(&mut ops),
            }
        }
        ops
    }

    fn live_id(&mut self, want: Option<Kind>, not: Option<Kind>) -> Option<ObjectId> {
        if self.live.is_empty() {
            return None;
        }
        for _ in 0..6 {
            let (id, kind) = &self.live[self.r.below(self.live.len())];
            if want.is_none_or(|w| w == *kind) && not.is_none_or(|n| n != *kind) {
                return Some(id.clone());
            }
        }
        None
    }

    /// An id no object has now: one deleted, or one never created.
    fn dead_id(&mut self) -> ObjectId {
        if !self.known.is_empty() && self.r.chance(70) {
            let id = self.r.pick(&self.known).clone();
            if self.board.get(id.as_str()).is_none() {
                return id;
            }
        }
        ObjectId::try_from(format!("ghost-{}", self.r.below(3))).expect("a valid id")
    }

    fn any_id(&mut self) -> ObjectId {
        match self.live_id(None, None) {
            Some(id) if self.r.chance(85) => id,
            _ => self.dead_id(),
        }
    }

    fn fresh_id(&mut self) -> ObjectId {
        self.fresh += 1;
        let id = ObjectId::try_from(format!("o{}", self.fresh)).expect("a valid id");
        self.known_set.insert(id.clone());
        self.known.push(id.clone());
        id
    }

    /// A parent for `me`: usually a frame, else anything, a missing id, itself or (for a frame)
    /// one of its own descendants.
    fn parent(&mut self, me: Option<&ObjectId>) -> ObjectId {
        match self.r.below(100) {
            0..60 => self
                .live_id(Some(Kind::Frame), None)
                .unwrap_or_else(|| self.any_id()),
            60..75 => self.any_id(),
            75..83 => self.dead_id(),
            83..88 if me.is_some() => me.cloned().unwrap_or_else(|| self.any_id()),
            _ => me
                .and_then(|m| self.descendant(m))
                .unwrap_or_else(|| self.any_id()),
        }
    }

    fn descendant(&mut self, id: &ObjectId) -> Option<ObjectId> {
        let mut cur = id.clone();
        for _ in 0..self.r.range(1, 4) {
            let kids: Vec<ObjectId> = self.board.children_of(cur.as_str()).cloned().collect();
            if kids.is_empty() {
                break;
            }
            cur = self.r.pick(&kids).clone();
        }
        (cur != *id).then_some(cur)
    }

    fn end(&mut self, me: Option<&ObjectId>) -> EndpointInput {
        let id = match self.r.below(100) {
            0..55 => self
                .live_id(None, Some(Kind::Connector))
                .unwrap_or_else(|| self.any_id()),
            55..63 => self
                .live_id(Some(Kind::Connector), None)
                .unwrap_or_else(|| self.any_id()),
            63..70 => self.dead_id(),
            70..74 if me.is_some() => me.cloned().unwrap_or_else(|| self.any_id()),
            _ => {
                return EndpointInput::Free {
                    x: Num(self.coord()),
                    y: Num(self.coord()),
                };
            }
        };
        EndpointInput::Bound { id }
    }

    fn create(&mut self) -> OpInput {
        let kind = *self.r.pick(&[
            Kind::Note,
            Kind::Note,
            Kind::Shape,
            Kind::Text,
            Kind::Frame,
            Kind::Frame,
            Kind::Connector,
            Kind::Connector,
        ]);
        let id = match self.r.below(100) {
            0..2 => None,
            2..10 if !self.known.is_empty() => Some(self.r.pick(&self.known).clone()),
            _ => Some(self.fresh_id()),
        };
        let mut o = ObjectInput::new(kind);
        let is_conn = kind == Kind::Connector;
        if self.r.chance(70) {
            o.x = Some(Num(self.coord()));
            o.y = Some(Num(self.coord()));
        }
        if self.r.chance(40) {
            o.w = Some(Num(self.size()));
        }
        if self.r.chance(40) {
            o.h = Some(Num(self.size()));
        }
        if self.r.chance(15) {
            o.rotation = Some(Num(self.rotation()));
        }
        if self.r.chance(10) {
            o.z = Some(Num(self.z()));
        }
        if self.r.chance(30) {
            o.parent = Some(self.parent(id.as_ref()));
        }
        if self.r.chance(40) {
            o.text = Some(self.text());
        }
        if self.r.chance(40) {
            o.color = Some(self.color());
        }
        if self.r.chance(if kind == Kind::Shape { 50 } else { 3 }) {
            o.geo = Some(
                *self
                    .r
                    .pick(&[Geo::Rectangle, Geo::Ellipse, Geo::Star, Geo::Cloud]),
            );
        }
        if self.r.chance(if is_conn { 96 } else { 3 }) {
            o.from = Some(self.end(id.as_ref()));
        }
        if self.r.chance(if is_conn { 96 } else { 3 }) {
            o.to = Some(self.end(id.as_ref()));
        }
        if self.r.chance(if is_conn { 40 } else { 3 }) {
            o.arrow = Some(*self.r.pick(&[Arrow::End, Arrow::Both, Arrow::None]));
        }
        o.id = id;
        OpInput::Create { object: o }
    }

    fn update(&mut self) -> OpInput {
        let id = self.any_id();
        let kind = self.board.get(id.as_str()).map(|o| o.kind);
        let is_frame = kind == Some(Kind::Frame);
        let mut set = PatchInput::default();
        if !self.r.chance(4) {
            while set_is_empty(&set) {
                if self.r.chance(if is_frame { 60 } else { 30 }) {
                    set.x = Some(Num(self.coord()));
                }
                if self.r.chance(30) {
                    set.y = Some(Num(self.coord()));
                }
                if self.r.chance(12) {
                    set.w = Some(Num(self.size()));
                }
                if self.r.chance(12) {
                    set.h = Some(Num(self.size()));
                }
                if self.r.chance(8) {
                    set.rotation = Some(Num(self.rotation()));
                }
                if self.r.chance(8) {
                    set.z = Some(Num(self.z()));
                }
                if self.r.chance(15) {
                    set.parent = Some(if self.r.chance(30) {
                        None
                    } else {
                        Some(self.parent(Some(&id)))
                    });
                }
                if self.r.chance(12) {
                    set.text = Some(self.text());
                }
                if self.r.chance(12) {
                    set.color = Some(self.color());
                }
                let shape = kind == Some(Kind::Shape);
                if self.r.chance(if shape { 20 } else { 2 }) {
                    set.geo = Some(*self.r.pick(&[Geo::Diamond, Geo::Hexagon, Geo::Triangle]));
                }
                let conn = kind == Some(Kind::Connector);
                if self.r.chance(if conn { 30 } else { 2 }) {
                    set.from = Some(self.end(Some(&id)));
                }
                if self.r.chance(if conn { 30 } else { 2 }) {
                    set.to = Some(self.end(Some(&id)));
                }
                if self.r.chance(if conn { 10 } else { 1 }) {
                    set.arrow = Some(Arrow::Both);
                }
            }
        }
        OpInput::Update { id, set }
    }

    /// A delete; after a frame's, sometimes a delete of what its cascade already removed.
    fn delete(&mut self, ops: &mut Vec<OpInput>) {
        let id = if self.r.chance(30) {
            self.live_id(Some(Kind::Frame), None)
                .unwrap_or_else(|| self.any_id())
        } else {
            self.any_id()
        };
        let kid = self.r.chance(30).then(|| self.descendant(&id)).flatten();
        ops.push(OpInput::Delete { id });
        if let Some(kid) = kid {
            ops.push(OpInput::Delete { id: kid });
        }
    }

    fn coord(&mut self) -> f64 {
        match self.r.below(20) {
            0..12 => self.r.float(-3000.0, 3000.0),
            12..16 => (self.r.float(-500.0, 500.0)).round(),
            16 => *self
                .r
                .pick(&[50_000.0, -50_000.0, 50_001.0, -50_001.0, 49_999.5, -0.0]),
            17 => *self.r.pick(&[
                1e300,
                -1e300,
                f64::MAX,
                f64::MIN,
                1e-320,
                9_007_199_254_740_993.0,
            ]),
            _ => 0.0,
        }
    }

    fn size(&mut self) -> f64 {
        match self.r.below(10) {
            0..7 => self.r.float(5.0, 1000.0),
            7 => *self.r.pick(&[10.0, 9.999, 5000.0, 5000.1, 0.0, -10.0]),
            8 => *self.r.pick(&[1e308, -1e308, f64::MIN_POSITIVE]),
            _ => self.r.float(0.0, 7000.0).round(),
        }
    }

    fn rotation(&mut self) -> f64 {
        match self.r.below(5) {
            0..3 => self.r.float(-1000.0, 1000.0),
            3 => *self
                .r
                .pick(&[360.0, -360.0, 1e300, -0.0, 359.999_999_999_999_9]),
            _ => f64::from(self.r.below(8) as u32) * 45.0,
        }
    }

    fn z(&mut self) -> f64 {
        match self.r.below(5) {
            0..3 => self.r.below(100) as f64 - 50.0,
            3 => *self.r.pick(&[1e12, -1e12, 1e13, f64::MAX, 0.5, -0.0]),
            _ => self.r.float(-1e6, 1e6),
        }
    }

    fn text(&mut self) -> String {
        match self.r.below(200) {
            0 => "é".repeat(protocol::num::MAX_TEXT_CHARS + self.r.below(3)),
            1..20 => {
                ["", "\u{0}", "😀 ok", "\u{202e}abc", "a\u{0301}", "中文"][self.r.below(6)].into()
            }
            _ => format!("note {}", self.r.below(1000)),
        }
    }

    fn color(&mut self) -> String {
        (*self.r.pick(&[
            "yellow",
            "blue",
            "red",
            "pink",
            "purple",
            "grey",
            "Light Blue",
            "#abc",
            "abc",
            "#ABCDEF",
            "#12345",
            "#GGGGGG",
            "nope",
            "",
        ]))
        .to_string()
    }
}

fn set_is_empty(p: &PatchInput) -> bool {
    p.x.is_none()
        && p.y.is_none()
        && p.w.is_none()
        && p.h.is_none()
        && p.rotation.is_none()
        && p.z.is_none()
        && p.parent.is_none()
        && p.text.is_none()
        && p.color.is_none()
        && p.geo.is_none()
        && p.from.is_none()
        && p.to.is_none()
        && p.arrow.is_none()
}
