//! The corpus's starting boards, built through `BoardState::apply` like any client's work.

use protocol::num::Num;
use protocol::{BoardState, EndpointInput, Geo, Kind, ObjectId, ObjectInput, OpInput, UserId};

pub fn me() -> UserId {
    UserId::try_from("tester").unwrap()
}

fn other() -> UserId {
    UserId::try_from("alice").unwrap()
}

struct Builder {
    board: BoardState,
    seq: u64,
}

impl Builder {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        kind: Kind,
        geo: Option<Geo>,
        color: &str,
        text: &str,
        r: (f64, f64, f64, f64),
        parent: Option<&ObjectId>,
        by: &UserId,
    ) -> ObjectId {
        let mut i = ObjectInput::new(kind);
        let id = ObjectId::random();
        i.id = Some(id.clone());
        i.geo = geo;
        i.color = Some(color.into());
        i.text = (!text.is_empty()).then(|| text.to_string());
        i.x = Some(Num(r.0));
        i.y = Some(Num(r.1));
        i.w = Some(Num(r.2));
        i.h = Some(Num(r.3));
        i.parent = parent.cloned();
        self.seq += 1;
        self.board
            .apply(&[OpInput::Create { object: i }], by, self.seq)
            .unwrap();
        id
    }

    /// An image showing a picture of the board (any 64-hex name applies to a bare board state).
    fn image(&mut self, alt: &str, r: (f64, f64, f64, f64), parent: Option<&ObjectId>) -> ObjectId {
        let mut i = ObjectInput::new(Kind::Image);
        let id = ObjectId::random();
        i.id = Some(id.clone());
        i.asset = Some(format!("{:064x}", self.seq + 1));
        i.alt = (!alt.is_empty()).then(|| alt.to_string());
        i.x = Some(Num(r.0));
        i.y = Some(Num(r.1));
        i.w = Some(Num(r.2));
        i.h = Some(Num(r.3));
        i.parent = parent.cloned();
        self.seq += 1;
        self.board
            .apply(&[OpInput::Create { object: i }], &me(), self.seq)
            .unwrap();
        id
    }

    fn connect(&mut self, a: &ObjectId, b: &ObjectId) {
        let mut i = ObjectInput::new(Kind::Connector);
        i.from = Some(EndpointInput::Bound { id: a.clone() });
        i.to = Some(EndpointInput::Bound { id: b.clone() });
        i.id = Some(ObjectId::random());
        self.seq += 1;
        self.board
            .apply(&[OpInput::Create { object: i }], &me(), self.seq)
            .unwrap();
    }
}

/// The named starting boards.
pub fn board(name: &str) -> BoardState {
    let mut b = Builder {
        board: BoardState::default(),
        seq: 0,
    };
    let m = me();
    let shape = Kind::Shape;
    match name {
        "basic" => {
            b.add(
                shape,
                Some(Geo::Ellipse),
                "red",
                "",
                (100.0, 100.0, 100.0, 100.0),
                None,
                &m,
            );
            b.add(
                shape,
                Some(Geo::Rectangle),
                "blue",
                "",
                (400.0, 100.0, 120.0, 120.0),
                None,
                &m,
            );
            b.add(
                shape,
                Some(Geo::Rectangle),
                "green",
                "Checkout",
                (700.0, 100.0, 200.0, 100.0),
                None,
                &m,
            );
            b.add(
                Kind::Note,
                None,
                "yellow",
                "Hello world",
                (100.0, 400.0, 200.0, 200.0),
                None,
                &m,
            );
            b.add(
                Kind::Note,
                None,
                "yellow",
                "Buy milk",
                (400.0, 400.0, 200.0, 200.0),
                None,
                &m,
            );
            let login = b.add(
                shape,
                Some(Geo::Rectangle),
                "light-blue",
                "Login",
                (100.0, 700.0, 200.0, 100.0),
                None,
                &m,
            );
            let dash = b.add(
                shape,
                Some(Geo::Rectangle),
                "light-blue",
                "Dashboard",
                (400.0, 700.0, 200.0, 100.0),
                None,
                &m,
            );
            b.add(
                shape,
                Some(Geo::Rectangle),
                "light-blue",
                "Settings",
                (700.0, 700.0, 200.0, 100.0),
                None,
                &m,
            );
            b.connect(&login, &dash);
            let risks = b.add(
                Kind::Frame,
                None,
                "gray",
                "Risks",
                (1200.0, 100.0, 500.0, 400.0),
                None,
                &m,
            );
            b.add(
                Kind::Note,
                None,
                "orange",
                "Budget overrun",
                (1220.0, 160.0, 200.0, 120.0),
                Some(&risks),
                &m,
            );
            b.add(
                Kind::Note,
                None,
                "orange",
                "Late delivery",
                (1220.0, 300.0, 200.0, 120.0),
                Some(&risks),
                &m,
            );
            let ideas = b.add(
                Kind::Frame,
                None,
                "gray",
                "Ideas",
                (1200.0, 600.0, 500.0, 300.0),
                None,
                &m,
            );
            b.add(
                Kind::Note,
                None,
                "green",
                "Dark mode",
                (1220.0, 660.0, 200.0, 120.0),
                Some(&ideas),
                &m,
            );
            let done = b.add(
                Kind::Frame,
                None,
                "gray",
                "Done",
                (1800.0, 100.0, 400.0, 700.0),
                None,
                &m,
            );
            for (k, t) in ["Ship v1", "Write docs", "Fix login bug"]
                .iter()
                .enumerate()
            {
                b.add(
                    Kind::Note,
                    None,
                    "yellow",
                    t,
                    (1820.0, 160.0 + 200.0 * k as f64, 200.0, 150.0),
                    Some(&done),
                    &m,
                );
            }
            b.add(
                Kind::Text,
                None,
                "black",
                "Roadmap",
                (100.0, 1000.0, 200.0, 40.0),
                None,
                &m,
            );
        }
        "dupes" => {
            b.add(
                Kind::Note,
                None,
                "yellow",
                "Login",
                (100.0, 100.0, 200.0, 200.0),
                None,
                &m,
            );
            b.add(
                Kind::Note,
                None,
                "blue",
                "Login",
                (400.0, 100.0, 200.0, 200.0),
                None,
                &m,
            );
            b.add(
                shape,
                Some(Geo::Rectangle),
                "light-blue",
                "Dashboard",
                (700.0, 100.0, 200.0, 100.0),
                None,
                &m,
            );
        }
        "shared" => {
            for k in 0..5 {
                b.add(
                    Kind::Note,
                    None,
                    "violet",
                    &format!("Alice idea {k}"),
                    (100.0 + 250.0 * k as f64, 100.0, 200.0, 200.0),
                    None,
                    &other(),
                );
            }
            for k in 0..25 {
                b.add(
                    Kind::Note,
                    None,
                    "yellow",
                    &format!("My note {k}"),
                    (
                        100.0 + 250.0 * (k % 5) as f64,
                        400.0 + 250.0 * (k / 5) as f64,
                        200.0,
                        200.0,
                    ),
                    None,
                    &m,
                );
            }
            b.add(
                shape,
                Some(Geo::Ellipse),
                "red",
                "Mine",
                (1500.0, 100.0, 100.0, 100.0),
                None,
                &m,
            );
        }
        "arrange" => arrange(&mut b),
        "words" => words(&mut b),
        "pictures" => pictures(&mut b),
        "onepic" => {
            b.image("Product photo", (100.0, 100.0, 400.0, 300.0), None);
            b.add(
                Kind::Note,
                None,
                "yellow",
                "Caption",
                (600.0, 100.0, 200.0, 200.0),
                None,
                &m,
            );
        }
        _ => {}
    }
    b.board
}

/// Objects out of line, for the menu's commands (align, distribute, same size, layering): notes
/// Alpha, Beta, Gamma in a loose row, shapes Start, Finish, Check in another, a frame Backlog with
/// two notes, shapes Design, Test, Launch in a loose column, a text Overview and two empty notes.
fn arrange(b: &mut Builder) {
    let m = me();
    let (note, shape) = (Kind::Note, Kind::Shape);
    let rect = Some(Geo::Rectangle);
    b.add(
        note,
        None,
        "yellow",
        "Alpha",
        (100.0, 120.0, 200.0, 200.0),
        None,
        &m,
    );
    b.add(
        note,
        None,
        "yellow",
        "Beta",
        (380.0, 80.0, 200.0, 150.0),
        None,
        &m,
    );
    b.add(
        note,
        None,
        "yellow",
        "Gamma",
        (900.0, 200.0, 160.0, 160.0),
        None,
        &m,
    );
    b.add(
        shape,
        rect,
        "light-blue",
        "Start",
        (120.0, 600.0, 200.0, 100.0),
        None,
        &m,
    );
    b.add(
        shape,
        Some(Geo::Ellipse),
        "green",
        "Finish",
        (520.0, 640.0, 120.0, 120.0),
        None,
        &m,
    );
    b.add(
        shape,
        Some(Geo::Diamond),
        "orange",
        "Check",
        (900.0, 560.0, 140.0, 140.0),
        None,
        &m,
    );
    let backlog = b.add(
        Kind::Frame,
        None,
        "gray",
        "Backlog",
        (1400.0, 100.0, 500.0, 600.0),
        None,
        &m,
    );
    b.add(
        note,
        None,
        "light-blue",
        "Task one",
        (1420.0, 160.0, 200.0, 150.0),
        Some(&backlog),
        &m,
    );
    b.add(
        note,
        None,
        "light-blue",
        "Task two",
        (1650.0, 330.0, 200.0, 150.0),
        Some(&backlog),
        &m,
    );
    b.add(
        shape,
        rect,
        "violet",
        "Design",
        (2200.0, 100.0, 160.0, 80.0),
        None,
        &m,
    );
    b.add(
        shape,
        rect,
        "violet",
        "Test",
        (2240.0, 260.0, 160.0, 80.0),
        None,
        &m,
    );
    b.add(
        shape,
        rect,
        "violet",
        "Launch",
        (2180.0, 700.0, 160.0, 80.0),
        None,
        &m,
    );
    b.add(
        Kind::Text,
        None,
        "black",
        "Overview",
        (100.0, 900.0, 300.0, 40.0),
        None,
        &m,
    );
    b.add(
        note,
        None,
        "yellow",
        "",
        (600.0, 900.0, 200.0, 200.0),
        None,
        &m,
    );
    b.add(
        note,
        None,
        "yellow",
        "",
        (850.0, 900.0, 200.0, 200.0),
        None,
        &m,
    );
}

/// Notes that share words ("vendor", "the"), a frame Week 1 with two notes, misspelled texts
/// (Recieve feedback, Databse, Projcet goals), three empty notes and a Login circle.
fn words(b: &mut Builder) {
    let m = me();
    let (note, shape) = (Kind::Note, Kind::Shape);
    let at = |x: f64, y: f64| (x, y, 200.0, 150.0);
    b.add(
        note,
        None,
        "yellow",
        "Call the vendor",
        at(100.0, 100.0),
        None,
        &m,
    );
    b.add(
        note,
        None,
        "yellow",
        "Email the vendor",
        at(350.0, 100.0),
        None,
        &m,
    );
    b.add(
        note,
        None,
        "yellow",
        "Vendor contract review",
        at(600.0, 100.0),
        None,
        &m,
    );
    b.add(
        note,
        None,
        "yellow",
        "Plan the offsite",
        at(850.0, 100.0),
        None,
        &m,
    );
    let week = b.add(
        Kind::Frame,
        None,
        "gray",
        "Week 1",
        (100.0, 400.0, 500.0, 300.0),
        None,
        &m,
    );
    b.add(
        note,
        None,
        "light-blue",
        "Draft the agenda",
        at(120.0, 460.0),
        Some(&week),
        &m,
    );
    b.add(
        note,
        None,
        "light-blue",
        "Send the invites",
        at(350.0, 460.0),
        Some(&week),
        &m,
    );
    b.add(
        note,
        None,
        "green",
        "Recieve feedback",
        at(700.0, 400.0),
        None,
        &m,
    );
    b.add(
        shape,
        Some(Geo::Rectangle),
        "light-blue",
        "Databse",
        (950.0, 400.0, 200.0, 100.0),
        None,
        &m,
    );
    b.add(
        Kind::Text,
        None,
        "black",
        "Projcet goals",
        (100.0, 800.0, 300.0, 40.0),
        None,
        &m,
    );
    b.add(note, None, "yellow", "", at(700.0, 700.0), None, &m);
    b.add(note, None, "yellow", "", at(950.0, 700.0), None, &m);
    b.add(note, None, "light-red", "", at(1200.0, 700.0), None, &m);
    b.add(
        shape,
        Some(Geo::Ellipse),
        "light-blue",
        "Login",
        (1200.0, 100.0, 120.0, 120.0),
        None,
        &m,
    );
}

/// Pictures: images "Company logo" (200x100), "Screenshot of the dashboard" (640x400), photos
/// "Beach at sunset" and "Team dinner" (300x200) and "Mountain view" (300x200, the most recent);
/// a note "Agenda", a shape "Login", an empty frame "Gallery" and, right of it, an empty frame
/// "Photos".
fn pictures(b: &mut Builder) {
    let m = me();
    b.image("Company logo", (600.0, 500.0, 200.0, 100.0), None);
    b.image(
        "  Screenshot of the dashboard ",
        (1000.0, 100.0, 640.0, 400.0),
        None,
    );
    b.image("Beach at sunset", (100.0, 100.0, 300.0, 200.0), None);
    b.image("Team dinner", (450.0, 150.0, 300.0, 200.0), None);
    b.add(
        Kind::Note,
        None,
        "yellow",
        "Agenda",
        (1000.0, 600.0, 200.0, 200.0),
        None,
        &m,
    );
    b.add(
        Kind::Shape,
        Some(Geo::Rectangle),
        "light-blue",
        "Login",
        (600.0, 800.0, 200.0, 120.0),
        None,
        &m,
    );
    b.add(
        Kind::Frame,
        None,
        "gray",
        "Gallery",
        (1800.0, 100.0, 600.0, 500.0),
        None,
        &m,
    );
    b.image("Mountain view", (100.0, 450.0, 300.0, 200.0), None);
    b.add(
        Kind::Frame,
        None,
        "gray",
        "Photos",
        (2500.0, 100.0, 300.0, 300.0),
        None,
        &m,
    );
}
