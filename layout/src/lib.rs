//! Pure geometry for the whiteboard: where things go.
//!
//! No I/O, no clocks, no randomness: the same input always gives the same output. The crate
//! knows nothing of board objects; the agent maps them onto these types (keys, rectangles,
//! parents, edges) and back.
//!
//! # Layout
//! - [`geom`]: [`Rect`] (top-left origin, y down) and segment helpers.
//! - [`text`]: [`text::estimate_size`], how big a note, shape, text or frame title must be.
//! - [`templates`]: SWOT 2x2, columns (kanban, retrospective), journey stages with automatic
//!   connectors, frame with notes, frame fitting; results are [`templates::Layout`]s of keyed
//!   items and connectors.
//! - [`directives`]: generic arrangements of keyed nodes with optional edges: grid, rows, row,
//!   column, circle, freeform, layered flowcharts (top-down, left-right) and tidy trees (org
//!   chart, mind map); results are [`directives::Arrangement`]s.
//! - `flow` (private): the Sugiyama pipeline behind [`directives::flowchart`]: greedy cycle
//!   removal, longest-path layering with tightening, dummy nodes, barycenter/median sweeps with
//!   transpositions, priority coordinate assignment.
//! - `tree` (private): the Reingold-Tilford tidy tree behind [`directives::tree`].
//! - [`place`]: [`place::find_open_space`], open space near a viewport for a group.
//! - [`arrange`]: the menu's operations on existing objects, as changed properties only: align,
//!   distribute, space, stack, same size, scale one axis, rotate, flip, layer behind/in front of
//!   an object, place new objects into a frame's free space (growing it) and take one out.
//! - [`collision`]: [`collision::resolve`], the post-processor that clears an AI batch from the
//!   board and from itself (≥ 20 px, ≤ 30 iterations, groups as units, relocation).
//! - [`spatial`]: the R*-tree index (rstar) used by placement, collision and metrics.
//! - [`metrics`]: quality figures (overlaps, gaps, containment, crossings, flow, size).
//! - [`corpus`]: the deterministic flowchart corpus used by tests and benchmarks.
//!
//! Rules are numbered `LAYOUT-n` in `RULES.md`; tests name the rule they check.
//!
//! # Example: aligning a selection and putting it behind another object
//!
//! ```
//! use layout::arrange::{self, Align, Layer, Obj};
//! use layout::Rect;
//!
//! let objs = [
//!     Obj::new("a", Rect::new(0.0, 0.0, 200.0, 200.0)).with_z(0),
//!     Obj::new("b", Rect::new(300.0, 40.0, 200.0, 120.0)).with_z(2),
//!     Obj::new("c", Rect::new(250.0, 300.0, 100.0, 100.0)).with_z(5),
//! ];
//! // Tops aligned: only y changes, and only for the objects that move.
//! let changes = arrange::align(&objs, Align::Top, None)?;
//! assert_eq!(changes.len(), 2);
//! assert!(changes.iter().all(|c| c.x.is_none() && c.y == Some(0.0)));
//! // "c" behind "b": a z between its new neighbours "a" and "b"; nobody else changes.
//! let changes = arrange::layer(&objs, &["c"], Layer::Behind, "b")?;
//! assert_eq!((changes[0].key.as_str(), changes[0].z), ("c", Some(1)));
//! # Ok::<(), layout::arrange::ArrangeError>(())
//! ```
//!
//! # Example: placing an AI batch
//!
//! ```
//! use layout::collision::{Movable, Options, resolve};
//! use layout::place::place_group;
//! use layout::templates::{NoteSpec, Section, fit_frames, swot};
//! use layout::Rect;
//!
//! // 1. A template, laid out at the origin.
//! let section = |k: &str, t: &str| Section::new(k, t, vec![NoteSpec::new(format!("{k}_1"), "An idea")]);
//! let mut l = swot(&[section("s", "Strengths"), section("w", "Weaknesses"),
//!                    section("o", "Opportunities"), section("t", "Threats")]);
//! // 2. Moved to open space near the requester's viewport.
//! let existing = [Rect::new(0.0, 0.0, 400.0, 300.0)];
//! let viewport = Rect::new(-200.0, -200.0, 1600.0, 900.0);
//! let bounds = l.bounds().expect("a SWOT has items");
//! let (dx, dy) = place_group(&existing, bounds, viewport, 20.0);
//! l.translate(dx, dy);
//! // 3. Collision post-processing: the batch moves as one group, existing objects never move.
//! let keys: Vec<&str> = l.items.iter().map(|i| i.key.as_str()).collect();
//! let mut mv: Vec<Movable> = l.items.iter().map(|i| Movable {
//!     rect: i.rect,
//!     parent: i.parent.as_deref().and_then(|p| keys.iter().position(|k| *k == p)),
//!     group: Some(1),
//!     fixed_parent: None,
//! }).collect();
//! let report = resolve(&existing, &mut mv, Options::default());
//! assert!(report.clear);
//! for (item, m) in l.items.iter_mut().zip(&mv) {
//!     item.rect = m.rect;
//! }
//! // 4. Frames fitted to their children.
//! fit_frames(&mut l);
//! assert_eq!(layout::metrics::measure_layout(&l).overlaps, 0);
//! ```

#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod arrange;
pub mod collision;
pub mod corpus;
pub mod directives;
mod flow;
pub mod geom;
pub mod metrics;
pub mod place;
pub mod spatial;
pub mod templates;
pub mod text;
mod tree;

pub use collision::{Movable, Options, Report, resolve};
pub use directives::{Arrangement, Direction, Edge, Node, Placed, Route, TreeStyle};
pub use geom::Rect;
pub use metrics::{Metrics, measure};
pub use templates::{Connector, Item, ItemKind, Layout, NoteSpec, Section};
