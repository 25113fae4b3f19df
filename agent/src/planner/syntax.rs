//! The planner's syntax: what a command says once parsed, before the board is looked at — the
//! command, its target phrases (descriptions, pronouns, ids), and the specs of creates, moves,
//! resizes, board questions and menu arrangements. A leaf: it names no other planner module.

use crate::lang::relation::Relation;
use crate::lang::vocab::{Extreme, KindWord, Side};
use crate::schema::{ArrangeLayout, ArrowKind, LayoutDirective};
use layout::arrange::{Align, Axis, Dimension, Flip, Layer};

/// The grammar's entry point, handed to the parts that read a command within a command.
pub type Parser = fn(&str) -> Option<Command>;

/// Which objects a command acts on.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Ids written in the command.
    Ids(Vec<String>),
    /// "this", "these", "selected".
    Selection,
    /// "it".
    It,
    /// "them", "those".
    Them,
    /// A description: kind, color, size and position words, text, frame.
    Desc(Desc),
}

/// A description of objects on the board.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Desc {
    pub kind: Option<KindWord>,
    pub color: Option<&'static str>,
    pub extreme: Option<Extreme>,
    pub side: Option<Side>,
    /// Words naming the object by its text ("Login", "the Risks frame").
    pub text: Option<String>,
    /// "all", "every", a plural kind: every match rather than one.
    pub all: bool,
    /// "in the Risks frame": only objects inside frames matching this.
    pub within: Option<Box<Desc>>,
    /// "my notes", "Alice's notes": who created them.
    pub author: Option<Author>,
    /// "the arrow between Login and Dashboard": a connector by the names of its ends.
    pub ends: Option<(Box<Desc>, Box<Desc>)>,
    /// "the red circle and the blue square": more descriptions, each matched on its own.
    pub also: Vec<Desc>,
    /// "at the top left": a second side, across the first.
    pub cross: Option<Side>,
    /// "the second note", "the last note in Done": a place in reading order (1-based; negative
    /// counts from the end).
    pub ordinal: Option<i32>,
    /// "the note right of Hello world": on that side of another object, the nearest.
    pub near: Option<(Relation, Box<Target>)>,
    /// "this and the red circle": the objects a pronoun means, besides the description's.
    pub with: Option<Box<Target>>,
    /// "all the notes except Hello world": descriptions of objects left out.
    pub except: Vec<Desc>,
    /// "the first two notes", "the top 3 boxes": how many, with an order.
    pub count: Option<usize>,
    /// "on the left side", "in the top half": the half of the matches toward `side` (else the
    /// row or column furthest that way).
    pub half: bool,
    /// "the empty notes", "blank stickies": objects with no text.
    pub blank: bool,
}

/// Who created the objects a description means.
#[derive(Debug, Clone, PartialEq)]
pub enum Author {
    /// "my", "mine": the requester.
    Me,
    /// "Alice's": a user id (case-insensitive, or its first part).
    Named(String),
}

impl Desc {
    /// True when the description names nothing (no kind, color, text, frame or "all").
    pub fn is_empty(&self) -> bool {
        self.kind.is_none()
            && self.color.is_none()
            && self.text.is_none()
            && !self.all
            && self.within.is_none()
            && self.extreme.is_none()
            && self.side.is_none()
            && self.author.is_none()
            && self.ends.is_none()
            && self.ordinal.is_none()
            && self.near.is_none()
            && !self.blank
    }
}

/// How to move.
#[derive(Debug, Clone, PartialEq)]
pub enum MoveSpec {
    To(f64, f64),
    By(f64, f64),
    /// "under Dashboard", "next to the blue square".
    Beside(Relation, Box<Target>),
    /// "into the Ideas frame": the objects join that frame.
    Into(Box<Target>),
    /// "to the top left (corner)": that corner of the board (a top or bottom side, then a left
    /// or right one).
    Corner(Side, Side),
}

/// How to resize.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeSpec {
    Scale(f64),
    To(Option<f64>, Option<f64>),
}

/// What to create.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateSpec {
    pub count: usize,
    pub kind: KindWord,
    pub color: Option<&'static str>,
    pub texts: Vec<String>,
    pub at: Option<(f64, f64)>,
    pub size: Option<(f64, f64)>,
    pub layout: Option<LayoutDirective>,
    /// Columns of a grid ("a 3x4 grid of notes": 4).
    pub columns: Option<usize>,
    /// The existing frame the objects go in ("… to the Risks frame").
    pub parent: Option<Target>,
    /// Where, relative to another object ("below the Login box").
    pub beside: Option<(Relation, Target)>,
    /// The objects go in the frame the batch's first create makes ("a frame with 3 notes").
    pub in_new_frame: bool,
}

/// A parsed command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Create(CreateSpec),
    /// "a red and a blue circle", "a green note and a red note".
    Creates(Vec<CreateSpec>),
    Move(Target, MoveSpec),
    Resize(Target, SizeSpec),
    Recolor(Target, &'static str),
    Retext(Target, String),
    Delete(Target),
    /// Copies, `n` times.
    Duplicate(Target, usize),
    /// Connect a chain (or A to B), with a style (line, arrow, double arrow).
    Connect(Target, Option<Target>, Option<ArrowKind>),
    Arrange(Target, ArrangeLayout),
    /// Change what a thing is: a shape's geo, note ↔ shape.
    Reshape(Target, KindWord),
    /// A connector's arrowheads.
    Restyle(Target, ArrowKind),
    /// Put the objects in a new frame with this name.
    Group(Target, String),
    /// Take a frame's children out and remove the frame.
    Ungroup(Target),
    /// A question about the board, answered without changing it.
    Ask(BoardQuestion),
    /// "bring X to the front" (true), "send X to the back" (false): the drawing order.
    Layer(Target, bool),
    /// Two commands in one ("copy X and put it below Y").
    Then(Box<Command>, Box<Command>),
    /// A menu command: align, distribute, space, same size, rotate, flip, relative layering.
    Tidy(Target, Tidy),
    /// Objects out of their frame (of this frame only, when one is named).
    TakeOut(Target, Option<Box<Target>>),
    /// New texts for objects the board was read for (a word replaced, typos fixed).
    SetTexts(Vec<(protocol::ObjectId, String)>),
}

impl Command {
    /// The objects a command acts on, when it acts on one target (not a connector's two ends).
    pub(super) fn target_mut(&mut self) -> Option<&mut Target> {
        match self {
            Command::Move(t, _)
            | Command::Resize(t, _)
            | Command::Recolor(t, _)
            | Command::Retext(t, _)
            | Command::Delete(t)
            | Command::Duplicate(t, _)
            | Command::Reshape(t, _)
            | Command::Restyle(t, _)
            | Command::Group(t, _)
            | Command::Ungroup(t)
            | Command::Arrange(t, _)
            | Command::Layer(t, _)
            | Command::Tidy(t, _)
            | Command::TakeOut(t, _) => Some(t),
            _ => None,
        }
    }
}

/// A question the planner answers from the board.
#[derive(Debug, Clone, PartialEq)]
pub enum BoardQuestion {
    /// "how many notes are there?"
    Count(Desc),
    /// "how many notes and shapes are there?"
    Counts(Vec<Desc>),
    /// "what is selected?"
    Selected,
    /// "what is in the Risks frame?"
    Contents(Target),
    /// "which colors are used?"
    Colors,
    /// "what color is the Checkout box?"
    ColorOf(Target),
    /// "what does the green box say?", "what's written on the red circle?"
    TextOf(Target),
}

/// An arrangement of existing objects.
#[derive(Debug, Clone, PartialEq)]
pub enum Tidy {
    /// Align to an edge or centre line of the objects' bounds, or of a reference object.
    Align(Align, Option<Box<Target>>),
    /// Equal gaps, the outer two staying; no axis: along the longer side of the bounds.
    Distribute(Option<Axis>),
    /// A given gap between neighbours along an axis.
    Space(Option<Axis>, f64),
    /// A row or column with a given gap.
    Stack(Axis, f64),
    /// Equal widths and/or heights: the largest, or a reference object's.
    SameSize(Dimension, Option<Box<Target>>),
    /// One axis scaled about the centre ("twice as wide").
    ScaleAxis(Axis, f64),
    /// Turned by degrees (clockwise), each about its centre.
    Rotate(f64),
    /// Mirrored across the selection's centre line.
    Flip(Flip),
    /// Directly behind or in front of a reference object in the drawing order.
    Layer(Layer, Box<Target>),
}

impl Tidy {
    /// The reference object the arrangement names, if any.
    pub(super) fn reference_mut(&mut self) -> Option<&mut Target> {
        match self {
            Tidy::Align(_, Some(r)) | Tidy::SameSize(_, Some(r)) | Tidy::Layer(_, r) => Some(r),
            _ => None,
        }
    }
}
