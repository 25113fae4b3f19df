// Commands on the selection: delete, duplicate (beside the original), copies of objects (paste),
// nudge, color, z-order (the board orders objects by their `z`), align and distribute. Each is
// one commit, so one undo reverts it.

import { uid } from './util.js';
import { shiftEnd, round } from './geometry.js';

/** Gap between a duplicate and its original, board pixels. */
const DUPLICATE_GAP = 20;

export class Commands {
  constructor(ix) {
    this.ix = ix;
    this.app = ix.app;
    this.doc = ix.doc;
  }

  /** The selected objects that still exist. */
  selected() {
    return [...this.ix.r.selection].map((id) => this.doc.get(id)).filter(Boolean);
  }

  deleteSelection() {
    if (this.app.readOnly) return;
    const ids = this.selected().map((o) => o.id);
    if (!ids.length) return;
    this.app.commit(ids.map((id) => ({ op: 'delete', id })));
    this.app.setSelection([]);
  }

  /**
   * `roots` with every descendant of a frame among them and the connectors whose ends are all
   * among them (or free): what a copy or a duplicate takes along.
   */
  collect(roots) {
    const all = new Map();
    for (const o of roots) {
      all.set(o.id, o);
      for (const d of this.doc.descendants(o.id)) {
        const c = this.doc.get(d);
        if (c) all.set(d, c);
      }
    }
    for (const c of this.doc.connectorsOf([...all.keys()])) {
      const o = this.doc.get(c);
      if (o && (!o.from?.id || all.has(o.from.id)) && (!o.to?.id || all.has(o.to.id))) all.set(c, o);
    }
    return [...all.values()];
  }

  /**
   * Creates copies of `objects` (as `collect` gives them, or as pasted) moved by (dx, dy), with
   * new ids, in one commit, and selects the copies of `roots` (ids; all copies when null).
   */
  createCopies(objects, dx, dy, roots = null) {
    if (this.app.readOnly || !objects.length) return [];
    const byId = new Map(objects.map((o) => [o.id, o]));
    const idMap = new Map(objects.map((o) => [o.id, uid()]));
    const depth = (o) => {
      let n = 0;
      for (let p = o.parent; p && byId.has(p) && n < 100; p = byId.get(p).parent) n++;
      return n;
    };
    const shapes = objects.filter((o) => o.kind !== 'connector');
    shapes.sort((a, b) => depth(a) - depth(b) || (a.z ?? 0) - (b.z ?? 0));
    const ops = [];
    for (const o of shapes) {
      const obj = {
        id: idMap.get(o.id),
        kind: o.kind,
        x: round(o.x + dx),
        y: round(o.y + dy),
        w: o.w,
        h: o.h,
        rotation: o.rotation || 0,
        text: o.text || '',
        color: o.color,
      };
      if (o.geo) obj.geo = o.geo;
      if (o.kind === 'image') {
        obj.asset = o.asset;
        if (o.alt) obj.alt = o.alt;
        if (o.crop) obj.crop = o.crop;
      }
      // A parent outside the copy stays the parent when it is on this board.
      const parent = idMap.get(o.parent) || (o.parent && this.doc.get(o.parent) ? o.parent : null);
      if (parent) obj.parent = parent;
      ops.push({ op: 'create', object: obj });
    }
    const mapEnd = (end) => {
      if (!end) return end;
      if (end.id != null) return idMap.has(end.id) ? { id: idMap.get(end.id) } : null;
      return { x: round(end.x + dx), y: round(end.y + dy) };
    };
    for (const o of objects) {
      if (o.kind !== 'connector') continue;
      const from = mapEnd(o.from);
      const to = mapEnd(o.to);
      if (!from || !to) continue;
      const obj = { id: idMap.get(o.id), kind: 'connector', from, to, arrow: o.arrow || 'end', text: o.text || '', color: o.color };
      ops.push({ op: 'create', object: obj });
    }
    if (!ops.length) return [];
    this.app.commit(ops);
    const keep = roots ? roots.map((id) => idMap.get(id)) : ops.map((op) => op.object.id);
    this.app.setSelection(keep);
    return keep;
  }

  /** Copies of the selection placed beside it (to the right, with a gap), not over it. */
  duplicateSelection() {
    if (this.app.readOnly) return;
    const roots = this.selected();
    if (!roots.length) return;
    const b = this.ix.selectionBounds(roots);
    const dx = b ? b.w + DUPLICATE_GAP : DUPLICATE_GAP;
    this.createCopies(this.collect(roots), dx, 0, roots.map((o) => o.id));
  }

  /** Moves the selection (its move roots) by (dx, dy) in one commit. */
  moveBy(dx, dy, only = null) {
    if (this.app.readOnly) return;
    const ops = [];
    for (const o of only || this.ix.moveRoots()) {
      if (o.kind === 'connector') {
        ops.push({ op: 'update', id: o.id, set: { from: shiftEnd(o.from, dx, dy), to: shiftEnd(o.to, dx, dy) } });
      } else {
        ops.push({ op: 'update', id: o.id, set: { x: round(o.x + dx), y: round(o.y + dy) } });
      }
    }
    if (ops.length) this.app.commit(ops);
  }

  setColor(hex) {
    if (this.app.readOnly) return;
    const ops = this.selected().map((o) => ({ op: 'update', id: o.id, set: { color: hex } }));
    if (ops.length) this.app.commit(ops);
  }

  /** Bring to front (`front`) or send to back: new `z` values above or below every other. */
  zOrder(front) {
    if (this.app.readOnly) return;
    const sel = this.selected().sort((a, b) => (a.z ?? 0) - (b.z ?? 0));
    if (!sel.length) return;
    let lo = Infinity;
    let hi = -Infinity;
    for (const o of this.doc.view.values()) {
      lo = Math.min(lo, o.z ?? 0);
      hi = Math.max(hi, o.z ?? 0);
    }
    const base = front ? hi + 1 : lo - sel.length;
    this.app.commit(sel.map((o, i) => ({ op: 'update', id: o.id, set: { z: base + i } })));
  }

  /** Boxes of the selected objects that align (not connectors, not children of a selected frame). */
  alignable() {
    return this.ix.moveRoots().filter((o) => o.kind !== 'connector');
  }

  /** Aligns the selection: left, center, right, top, middle or bottom of its bounds. */
  align(how) {
    if (this.app.readOnly) return;
    const objs = this.alignable();
    if (objs.length < 2) return;
    const b = this.ix.selectionBounds(objs);
    const ops = [];
    for (const o of objs) {
      const set = {};
      if (how === 'left') set.x = b.x;
      if (how === 'center') set.x = b.x + (b.w - o.w) / 2;
      if (how === 'right') set.x = b.x + b.w - o.w;
      if (how === 'top') set.y = b.y;
      if (how === 'middle') set.y = b.y + (b.h - o.h) / 2;
      if (how === 'bottom') set.y = b.y + b.h - o.h;
      for (const k of Object.keys(set)) set[k] = round(set[k]);
      if ((set.x ?? o.x) !== o.x || (set.y ?? o.y) !== o.y) ops.push({ op: 'update', id: o.id, set });
    }
    if (ops.length) this.app.commit(ops);
  }

  /** Spaces three or more objects evenly along x (`h`) or y (`v`); the outer two stay. */
  distribute(axis) {
    if (this.app.readOnly) return;
    const objs = this.alignable();
    if (objs.length < 3) return;
    const [p, s] = axis === 'h' ? ['x', 'w'] : ['y', 'h'];
    objs.sort((a, b) => a[p] + a[s] / 2 - (b[p] + b[s] / 2));
    const first = objs[0];
    const last = objs[objs.length - 1];
    const span = last[p] + last[s] - first[p];
    const used = objs.reduce((t, o) => t + o[s], 0);
    const gap = (span - used) / (objs.length - 1);
    const ops = [];
    let at = first[p] + first[s] + gap;
    for (const o of objs.slice(1, -1)) {
      const v = round(at);
      if (v !== o[p]) ops.push({ op: 'update', id: o.id, set: { [p]: v } });
      at += o[s] + gap;
    }
    if (ops.length) this.app.commit(ops);
  }
}
