// Pointer, wheel and keyboard handling on the board: tools, selection (click, shift-click,
// shift-drag marquee), moving, resizing, panning and zooming (wheel, ctrl+wheel, pinch), text
// editing, connectors between objects, delete, duplicate, nudge, undo/redo shortcuts.

import { el, uid, modKey, clamp } from './util.js';
import {
  bounds as objBounds,
  center,
  intersects,
  contains,
  resized,
  shiftEnd,
  mid,
  round,
} from './geometry.js';
import { onKeyDown } from './shortcuts.js';
import { TextEditor } from './textedit.js';

const DRAG_THRESHOLD = 3;
const DUPLICATE_OFFSET = 24;

export const TOOLS = ['select', 'hand', 'note', 'shape', 'text', 'frame', 'connector'];

export class Interaction {
  constructor(app) {
    this.app = app;
    this.r = app.renderer;
    this.doc = app.doc;
    this.stage = app.stage;
    this.tool = 'select';
    this.geo = 'rectangle';
    this.gesture = null;
    this.touches = new Map();
    this.pinch = null;
    this.spaceDown = false;
    this.connectFrom = null;
    this.lastWorld = { x: 0, y: 0 };
    this.toolListeners = new Set();

    this.marquee = el('div', { class: 'marquee', 'data-testid': 'marquee', hidden: true });
    this.stage.append(this.marquee);
    this.editor = new TextEditor(this);

    const s = this.stage;
    s.addEventListener('pointerdown', (e) => this.onDown(e));
    s.addEventListener('pointermove', (e) => this.onMove(e));
    s.addEventListener('pointerup', (e) => this.onUp(e));
    s.addEventListener('pointercancel', (e) => this.onCancel(e));
    s.addEventListener('pointerleave', () => this.app.presenceCursor(null));
    s.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    s.addEventListener('dblclick', (e) => this.onDoubleClick(e));
    s.addEventListener('contextmenu', (e) => e.preventDefault());
    document.addEventListener('keydown', (e) => this.onKeyDown(e));
    document.addEventListener('keyup', (e) => {
      if (e.code === 'Space') this.spaceDown = false;
    });
    window.addEventListener('blur', () => {
      this.spaceDown = false;
    });
    this.r.onCamera(() => this.editor.reposition());
  }

  onToolChange(fn) {
    this.toolListeners.add(fn);
  }

  setTool(tool, geo) {
    if (!TOOLS.includes(tool)) return;
    if (this.app.readOnly && tool !== 'select' && tool !== 'hand') return;
    this.tool = tool;
    if (geo) this.geo = geo;
    this.connectFrom = null;
    this.r.preview(null);
    this.stage.dataset.tool = tool;
    for (const fn of this.toolListeners) fn(tool, this.geo);
  }

  local(e) {
    const rect = this.stage.getBoundingClientRect();
    return { x: e.clientX - rect.left, y: e.clientY - rect.top };
  }

  // ---- pointer ----

  onDown(e) {
    if (e.target.closest('.stage-ui')) return;
    if (this.editor.active) this.editor.commit();
    this.stage.focus({ preventScroll: true });
    const p = this.local(e);
    const w = this.r.screenToWorld(p.x, p.y);
    if (e.pointerType === 'touch') {
      this.touches.set(e.pointerId, p);
      if (this.touches.size === 2) {
        this.startPinch();
        return;
      }
    }
    const capture = () => {
      try {
        this.stage.setPointerCapture(e.pointerId);
      } catch {
        // The pointer may already be gone.
      }
    };
    if (e.button === 1 || this.spaceDown || (e.button === 0 && this.tool === 'hand')) {
      e.preventDefault();
      this.gesture = { type: 'pan', sx: p.x, sy: p.y, cam: { ...this.r.camera }, id: e.pointerId };
      capture();
      return;
    }
    if (e.button !== 0) return;
    const objEl = e.target.closest('[data-id]');
    const handle = e.target.closest('[data-handle]');
    const id = objEl ? objEl.getAttribute('data-id') : null;
    const base = { sx: p.x, sy: p.y, start: w, id: e.pointerId, moved: false };

    if (['note', 'shape', 'text', 'frame'].includes(this.tool)) {
      this.gesture = { ...base, type: 'create' };
      capture();
      return;
    }
    if (this.tool === 'connector') {
      if (id && this.doc.get(id)?.kind !== 'connector') {
        if (this.connectFrom && this.connectFrom !== id) {
          this.createConnector(this.connectFrom, { id });
          return;
        }
        this.gesture = { ...base, type: 'connect', from: id };
        capture();
      } else if (this.connectFrom) {
        this.createConnector(this.connectFrom, { x: round(w.x), y: round(w.y) });
      }
      return;
    }
    // Select tool.
    if (handle && this.r.selection.size === 1 && !this.app.readOnly) {
      const [sel] = this.r.selection;
      const o = this.doc.get(sel);
      if (o) {
        this.gesture = { ...base, type: 'resize', target: sel, dir: handle.getAttribute('data-handle'), orig: { ...o } };
        capture();
        return;
      }
    }
    if (id) {
      const sel = new Set(this.r.selection);
      if (e.shiftKey) {
        if (sel.has(id)) sel.delete(id);
        else sel.add(id);
        this.app.setSelection(sel);
        if (!sel.has(id)) return;
      } else if (!sel.has(id)) {
        this.app.setSelection([id]);
      }
      // A viewer's selection is for looking only: a drag pans.
      this.gesture = this.app.readOnly
        ? { ...base, type: 'pan', cam: { ...this.r.camera } }
        : { ...base, type: 'move', clicked: id, shift: e.shiftKey };
      capture();
      return;
    }
    if (e.shiftKey || modKey(e)) {
      this.gesture = { ...base, type: 'marquee', baseSel: e.shiftKey ? new Set(this.r.selection) : new Set() };
    } else {
      this.gesture = { ...base, type: 'pan', cam: { ...this.r.camera }, clearOnClick: true };
    }
    capture();
  }

  onMove(e) {
    const p = this.local(e);
    const w = this.r.screenToWorld(p.x, p.y);
    this.lastWorld = w;
    this.app.presenceCursor(w);
    if (e.pointerType === 'touch' && this.touches.has(e.pointerId)) {
      this.touches.set(e.pointerId, p);
      if (this.pinch) {
        this.updatePinch();
        return;
      }
    }
    const g = this.gesture;
    if (!g) {
      if (this.tool === 'connector' && this.connectFrom) {
        const o = this.doc.get(this.connectFrom);
        if (o) this.r.preview(center(o), w);
      }
      return;
    }
    if (g.id !== e.pointerId) return;
    if (!g.moved && Math.hypot(p.x - g.sx, p.y - g.sy) < DRAG_THRESHOLD) return;
    g.moved = true;
    const dx = w.x - g.start.x;
    const dy = w.y - g.start.y;
    switch (g.type) {
      case 'pan':
        this.r.setCamera(g.cam.x + (p.x - g.sx), g.cam.y + (p.y - g.sy), g.cam.k);
        break;
      case 'move':
        this.r.setOverlay(this.movePatches(dx, dy));
        break;
      case 'resize':
        this.r.setOverlay(new Map([[g.target, resized(g.orig, g.dir, dx, dy, e.shiftKey)]]));
        break;
      case 'marquee':
        this.updateMarquee(g, w);
        break;
      case 'connect': {
        const o = this.doc.get(g.from);
        if (o) this.r.preview(center(o), w);
        break;
      }
      default:
        break;
    }
  }

  onUp(e) {
    if (e.pointerType === 'touch') {
      this.touches.delete(e.pointerId);
      if (this.pinch) {
        if (this.touches.size < 2) this.pinch = null;
        this.gesture = null;
        return;
      }
    }
    const g = this.gesture;
    if (!g || g.id !== e.pointerId) return;
    this.gesture = null;
    const p = this.local(e);
    const w = this.r.screenToWorld(p.x, p.y);
    switch (g.type) {
      case 'pan':
        if (!g.moved && g.clearOnClick) this.app.setSelection([]);
        this.app.viewportChanged();
        break;
      case 'move':
        if (g.moved) {
          this.commitMove(w.x - g.start.x, w.y - g.start.y);
        } else if (!g.shift && this.r.selection.size > 1) {
          this.app.setSelection([g.clicked]);
        }
        break;
      case 'resize':
        if (g.moved) {
          const patch = resized(g.orig, g.dir, w.x - g.start.x, w.y - g.start.y, e.shiftKey);
          this.app.commit([{ op: 'update', id: g.target, set: patch }]);
        }
        this.r.clearOverlay();
        break;
      case 'marquee':
        this.marquee.hidden = true;
        break;
      case 'connect': {
        this.r.preview(null);
        const hit = document.elementFromPoint(e.clientX, e.clientY);
        const target = hit && hit.closest ? hit.closest('[data-id]') : null;
        const tid = target ? target.getAttribute('data-id') : null;
        if (tid && tid !== g.from && this.doc.get(tid)?.kind !== 'connector') {
          this.createConnector(g.from, { id: tid });
        } else if (!g.moved || tid === g.from) {
          // A click: wait for the second object.
          this.connectFrom = g.from;
          this.app.toast('Now click the object to connect to (Esc cancels)');
        } else {
          this.createConnector(g.from, { x: round(w.x), y: round(w.y) });
        }
        break;
      }
      case 'create':
        this.createAt(this.tool, g.start);
        break;
      default:
        break;
    }
  }

  onCancel(e) {
    this.touches.delete(e.pointerId);
    this.pinch = null;
    if (this.gesture && this.gesture.id === e.pointerId) {
      this.gesture = null;
      this.r.clearOverlay();
      this.r.preview(null);
      this.marquee.hidden = true;
    }
  }

  startPinch() {
    const [a, b] = [...this.touches.values()];
    this.gesture = null;
    this.r.clearOverlay();
    this.pinch = { dist: Math.hypot(a.x - b.x, a.y - b.y), mid: mid(a, b) };
  }

  updatePinch() {
    const [a, b] = [...this.touches.values()];
    if (!a || !b) return;
    const d = Math.hypot(a.x - b.x, a.y - b.y);
    const m = mid(a, b);
    this.r.panBy(m.x - this.pinch.mid.x, m.y - this.pinch.mid.y);
    if (this.pinch.dist > 0) this.r.zoomAt(m.x, m.y, d / this.pinch.dist);
    this.pinch = { dist: d, mid: m };
    this.app.viewportChanged();
  }

  onWheel(e) {
    if (e.target.closest('.stage-ui')) return;
    e.preventDefault();
    const p = this.local(e);
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    if (e.ctrlKey || e.metaKey) {
      // Ctrl+wheel, and trackpad pinch (which browsers report as ctrl+wheel).
      const dy = clamp(e.deltaY * unit, -60, 60);
      this.r.zoomAt(p.x, p.y, Math.exp(-dy * 0.006));
    } else {
      let dx = e.deltaX * unit;
      let dy = e.deltaY * unit;
      if (e.shiftKey && !dx) {
        dx = dy;
        dy = 0;
      }
      this.r.panBy(-dx, -dy);
    }
    this.app.viewportChanged();
  }

  onDoubleClick(e) {
    // With pointer capture the event lands on the stage: look at what is under the pointer.
    const hit = document.elementFromPoint(e.clientX, e.clientY) || e.target;
    if (hit.closest('.stage-ui')) return;
    const objEl = hit.closest('[data-id]');
    if (objEl) {
      const id = objEl.getAttribute('data-id');
      this.app.setSelection([id]);
      if (!this.app.readOnly) this.editor.start(id);
      return;
    }
    if (this.tool !== 'select' || this.app.readOnly) return;
    const p = this.local(e);
    this.createAt('note', this.r.screenToWorld(p.x, p.y));
  }

  // ---- gestures ----

  /** Selected objects that move themselves (not those moved by a selected ancestor frame). */
  moveRoots() {
    const sel = this.r.selection;
    const roots = [];
    for (const id of sel) {
      const o = this.doc.get(id);
      if (!o) continue;
      let p = o.parent;
      let covered = false;
      const seen = new Set();
      while (p && !seen.has(p)) {
        seen.add(p);
        if (sel.has(p)) {
          covered = true;
          break;
        }
        p = this.doc.get(p)?.parent;
      }
      if (covered) continue;
      if (o.kind === 'connector' && (o.from?.id != null || o.to?.id != null)) continue;
      roots.push(o);
    }
    return roots;
  }

  movePatches(dx, dy) {
    const out = new Map();
    for (const o of this.moveRoots()) {
      if (o.kind === 'connector') {
        out.set(o.id, { from: shiftEnd(o.from, dx, dy), to: shiftEnd(o.to, dx, dy) });
        continue;
      }
      out.set(o.id, { x: o.x + dx, y: o.y + dy });
      if (o.kind === 'frame') {
        for (const d of this.doc.descendants(o.id)) {
          const c = this.doc.get(d);
          if (c && c.kind !== 'connector') out.set(d, { x: c.x + dx, y: c.y + dy });
        }
      }
    }
    return out;
  }

  commitMove(dx, dy) {
    if (this.app.readOnly) return;
    dx = round(dx);
    dy = round(dy);
    const ops = [];
    const roots = this.moveRoots();
    const moving = new Set();
    for (const o of roots) {
      moving.add(o.id);
      for (const d of this.doc.descendants(o.id)) moving.add(d);
    }
    for (const o of roots) {
      if (o.kind === 'connector') {
        ops.push({ op: 'update', id: o.id, set: { from: shiftEnd(o.from, dx, dy), to: shiftEnd(o.to, dx, dy) } });
        continue;
      }
      const set = { x: round(o.x + dx), y: round(o.y + dy) };
      if (o.kind !== 'frame') {
        const moved = { ...o, ...set };
        const frame = this.frameAt(center(moved), moving);
        const parent = frame ? frame.id : null;
        if ((o.parent || null) !== parent) set.parent = parent;
      }
      ops.push({ op: 'update', id: o.id, set });
    }
    if (ops.length) this.app.commit(ops);
    this.r.clearOverlay();
  }

  /** The topmost frame containing point `pt`, skipping `exclude` ids. */
  frameAt(pt, exclude = new Set()) {
    let best = null;
    for (const o of this.doc.view.values()) {
      if (o.kind !== 'frame' || exclude.has(o.id)) continue;
      if (pt.x >= o.x && pt.x <= o.x + o.w && pt.y >= o.y && pt.y <= o.y + o.h) {
        if (!best || (o.z ?? 0) > (best.z ?? 0)) best = o;
      }
    }
    return best;
  }

  updateMarquee(g, w) {
    const x = Math.min(g.start.x, w.x);
    const y = Math.min(g.start.y, w.y);
    const rect = { x, y, w: Math.abs(w.x - g.start.x), h: Math.abs(w.y - g.start.y) };
    const s1 = this.r.worldToScreen(rect.x, rect.y);
    const m = this.marquee;
    m.hidden = false;
    m.style.left = `${s1.x}px`;
    m.style.top = `${s1.y}px`;
    m.style.width = `${rect.w * this.r.camera.k}px`;
    m.style.height = `${rect.h * this.r.camera.k}px`;
    const sel = new Set(g.baseSel);
    for (const o of this.doc.view.values()) {
      const b = objBounds(o, this.r.lookup);
      if (intersects(rect, b) && contains(rect, b)) sel.add(o.id);
    }
    this.app.setSelection(sel);
  }

  // ---- creating ----

  createAt(kind, at) {
    if (this.app.readOnly) return;
    const id = uid();
    const obj = { id, kind };
    const [w, h] = { note: [200, 200], shape: [200, 120], text: [200, 40], frame: [480, 320] }[kind];
    obj.x = round(at.x - w / 2);
    obj.y = round(at.y - h / 2);
    obj.w = w;
    obj.h = h;
    obj.color = this.app.colorFor(kind);
    if (kind === 'shape') obj.geo = this.geo;
    if (kind === 'frame') obj.text = 'Frame';
    if (kind !== 'frame') {
      const f = this.frameAt({ x: at.x, y: at.y });
      if (f) obj.parent = f.id;
    }
    this.app.commit([{ op: 'create', object: obj }]);
    this.app.setSelection([id]);
    this.setTool('select');
    if (kind === 'text' || kind === 'note') this.editor.start(id);
    return id;
  }

  /** Creates an object at the center of the view (keyboard activation of a tool button). */
  createAtCenter(kind, geo) {
    if (geo) this.geo = geo;
    const vp = this.r.viewport();
    return this.createAt(kind, { x: vp.x + vp.w / 2, y: vp.y + vp.h / 2 });
  }

  createConnector(fromId, to) {
    if (this.app.readOnly) return;
    this.connectFrom = null;
    this.r.preview(null);
    const id = uid();
    this.app.commit([
      {
        op: 'create',
        object: { id, kind: 'connector', from: { id: fromId }, to, arrow: 'end', color: '#212121' },
      },
    ]);
    this.app.setSelection([id]);
    this.setTool('select');
  }

  // ---- commands ----

  deleteSelection() {
    if (this.app.readOnly) return;
    const ids = [...this.r.selection].filter((id) => this.doc.get(id));
    if (!ids.length) return;
    this.app.commit(ids.map((id) => ({ op: 'delete', id })));
    this.app.setSelection([]);
  }

  duplicateSelection() {
    if (this.app.readOnly) return;
    const roots = [...this.r.selection].map((id) => this.doc.get(id)).filter(Boolean);
    if (!roots.length) return;
    const all = new Map();
    for (const o of roots) {
      all.set(o.id, o);
      for (const d of this.doc.descendants(o.id)) {
        const c = this.doc.get(d);
        if (c) all.set(d, c);
      }
    }
    // Connectors between copied objects come along.
    for (const c of this.doc.connectorsOf([...all.keys()])) {
      const o = this.doc.get(c);
      if (o && (!o.from?.id || all.has(o.from.id)) && (!o.to?.id || all.has(o.to.id))) all.set(c, o);
    }
    const idMap = new Map([...all.keys()].map((id) => [id, uid()]));
    const depth = (o) => {
      let n = 0;
      let p = o.parent;
      while (p && all.has(p) && n < 100) {
        n++;
        p = all.get(p).parent;
      }
      return n;
    };
    const shapes = [...all.values()].filter((o) => o.kind !== 'connector');
    shapes.sort((a, b) => depth(a) - depth(b) || (a.z ?? 0) - (b.z ?? 0));
    const ops = [];
    for (const o of shapes) {
      const obj = {
        id: idMap.get(o.id),
        kind: o.kind,
        x: o.x + DUPLICATE_OFFSET,
        y: o.y + DUPLICATE_OFFSET,
        w: o.w,
        h: o.h,
        rotation: o.rotation || 0,
        text: o.text || '',
        color: o.color,
      };
      if (o.geo) obj.geo = o.geo;
      if (o.parent) obj.parent = idMap.get(o.parent) || o.parent;
      ops.push({ op: 'create', object: obj });
    }
    const mapEnd = (end) => {
      if (!end) return end;
      if (end.id != null) return { id: idMap.get(end.id) || end.id };
      return { x: end.x + DUPLICATE_OFFSET, y: end.y + DUPLICATE_OFFSET };
    };
    for (const o of all.values()) {
      if (o.kind !== 'connector') continue;
      const obj = {
        id: idMap.get(o.id),
        kind: 'connector',
        from: mapEnd(o.from),
        to: mapEnd(o.to),
        arrow: o.arrow || 'end',
        text: o.text || '',
        color: o.color,
      };
      ops.push({ op: 'create', object: obj });
    }
    this.app.commit(ops);
    this.app.setSelection(roots.map((o) => idMap.get(o.id)));
  }

  nudge(dx, dy) {
    if (this.app.readOnly) return;
    const ops = [];
    for (const o of this.moveRoots()) {
      if (o.kind === 'connector') {
        ops.push({ op: 'update', id: o.id, set: { from: shiftEnd(o.from, dx, dy), to: shiftEnd(o.to, dx, dy) } });
      } else {
        ops.push({ op: 'update', id: o.id, set: { x: o.x + dx, y: o.y + dy } });
      }
    }
    if (ops.length) this.app.commit(ops);
  }

  setColor(hex) {
    if (this.app.readOnly) return;
    const ops = [...this.r.selection]
      .filter((id) => this.doc.get(id))
      .map((id) => ({ op: 'update', id, set: { color: hex } }));
    if (ops.length) this.app.commit(ops);
  }

  // ---- keyboard (shortcuts.js) ----

  onKeyDown(e) {
    onKeyDown(this, e);
  }
}
