// Pointer, wheel and keyboard handling on the board: tools, selection (click, shift-click, a drag
// on empty canvas selects an area), moving, resizing, panning (space+drag, middle drag, the hand
// tool, wheel, two fingers) and zooming (ctrl+wheel, pinch), sized creation (drag with a creation
// tool), text editing, connectors, the context menu, and the commands of commands.js.

import { el, uid, clamp } from './util.js';
import { bounds as objBounds, center, intersects, contains, resized, shiftEnd, round } from './geometry.js';
import { onKeyDown } from './shortcuts.js';
import { TextEditor } from './textedit.js';
import { Commands } from './commands.js';
import { acceptDrops } from './pictures.js';
import { Clipboard } from './clipboard.js';
import { ContextMenu } from './contextmenu.js';
import { AltEditor } from './alttext.js';
import { Help } from './help.js';
import { TouchInput } from './touch.js';

const DRAG_THRESHOLD = 3;
/** Smallest dragged box (screen px each way) that sizes a new object; smaller is a click. */
const MIN_CREATE_DRAG = 12;
const DEFAULT_SIZE = { note: [200, 200], shape: [200, 120], text: [200, 40], frame: [480, 320] };
const CREATION_TOOLS = ['note', 'shape', 'text', 'frame'];

export const TOOLS = ['select', 'hand', 'note', 'shape', 'text', 'frame', 'connector', 'comment'];
/** Tools a person who may not edit still has (a commenter also comments). */
const LOOK_TOOLS = ['select', 'hand'];

export class Interaction {
  constructor(app) {
    this.app = app;
    this.r = app.renderer;
    this.doc = app.doc;
    this.stage = app.stage;
    this.tool = 'select';
    this.geo = 'rectangle';
    this.gesture = null;
    this.spaceDown = false;
    this.connectFrom = null;
    this.lastWorld = { x: 0, y: 0 };
    this.pointerInside = false;
    this.toolListeners = new Set();

    this.marquee = el('div', { class: 'marquee', 'data-testid': 'marquee', hidden: true });
    this.stage.append(this.marquee);
    this.editor = new TextEditor(this);
    this.cmd = new Commands(this);
    this.clip = new Clipboard(this);
    acceptDrops(this);
    this.menu = new ContextMenu(this);
    this.alt = new AltEditor(this);
    this.help = new Help(this);
    this.touch = new TouchInput(this);

    const s = this.stage;
    s.addEventListener('pointerdown', (e) => this.onDown(e));
    s.addEventListener('pointermove', (e) => this.onMove(e));
    s.addEventListener('pointerup', (e) => this.onUp(e));
    s.addEventListener('pointercancel', (e) => this.onCancel(e));
    s.addEventListener('pointerenter', () => {
      this.pointerInside = true;
    });
    s.addEventListener('pointerleave', () => {
      this.pointerInside = false;
      this.app.presenceCursor(null);
    });
    s.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    s.addEventListener('dblclick', (e) => this.onDoubleClick(e));
    s.addEventListener('contextmenu', (e) => this.onContextMenu(e));
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
    if (tool === 'comment' && !this.app.comments?.canComment) return;
    if (this.app.readOnly && !LOOK_TOOLS.includes(tool) && tool !== 'comment') return;
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

  /** Drops the gesture in progress and what it shows (Escape, a second finger, a long press). */
  cancelGesture() {
    this.gesture = null;
    this.connectFrom = null;
    this.r.preview(null);
    this.r.clearOverlay();
    this.marquee.hidden = true;
  }

  // ---- pointer ----

  onDown(e) {
    if (e.target.closest('.stage-ui')) return;
    this.menu.close();
    if (this.alt.open) this.alt.save();
    if (this.editor.active) this.editor.commit();
    this.stage.focus({ preventScroll: true });
    const p = this.local(e);
    const w = this.r.screenToWorld(p.x, p.y);
    if (e.pointerType === 'touch' && this.touch.down(e, p)) return;
    const capture = () => {
      try {
        this.stage.setPointerCapture(e.pointerId);
      } catch {
        // The pointer may already be gone.
      }
    };
    if (e.button === 1 || this.spaceDown || (e.button === 0 && this.tool === 'hand')) {
      e.preventDefault();
      this.gesture = { type: 'pan', sx: p.x, sy: p.y, start: w, cam: { ...this.r.camera }, id: e.pointerId, moved: false };
      capture();
      return;
    }
    if (e.button !== 0) return;
    const objEl = e.target.closest('[data-id]');
    const handle = e.target.closest('[data-handle]');
    const id = objEl ? objEl.getAttribute('data-id') : null;
    const base = { sx: p.x, sy: p.y, start: w, id: e.pointerId, moved: false };

    if (this.tool === 'comment') {
      // No focus change from the press: the new comment's field keeps it.
      e.preventDefault();
      this.app.comments.place(p, id);
      return;
    }
    if (CREATION_TOOLS.includes(this.tool)) {
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
    // Empty canvas: a drag selects an area (Shift adds to the selection); a click clears it.
    this.gesture = { ...base, type: 'marquee', baseSel: e.shiftKey ? new Set(this.r.selection) : new Set() };
    capture();
  }

  onMove(e) {
    const p = this.local(e);
    const w = this.r.screenToWorld(p.x, p.y);
    this.lastWorld = w;
    this.pointerInside = true;
    this.app.presenceCursor(w);
    if (e.pointerType === 'touch' && this.touch.move(e, p)) return;
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
        this.r.setOverlay(new Map([[g.target, resized(g.orig, g.dir, dx, dy, keepsAspect(g.orig, e))]]));
        break;
      case 'marquee':
        this.updateMarquee(g, w);
        break;
      case 'create':
        this.showBox(g.start, w, 'creating');
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
    if (e.pointerType === 'touch' && this.touch.up(e)) {
      this.gesture = null;
      return;
    }
    const g = this.gesture;
    if (!g || g.id !== e.pointerId) return;
    this.gesture = null;
    const p = this.local(e);
    const w = this.r.screenToWorld(p.x, p.y);
    switch (g.type) {
      case 'pan':
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
          const patch = resized(g.orig, g.dir, w.x - g.start.x, w.y - g.start.y, keepsAspect(g.orig, e));
          this.app.commit([{ op: 'update', id: g.target, set: patch }]);
        }
        this.r.clearOverlay();
        break;
      case 'marquee':
        this.marquee.hidden = true;
        if (!g.moved && !g.baseSel.size) this.app.setSelection([]);
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
      case 'create': {
        this.marquee.hidden = true;
        const big = Math.abs(p.x - g.sx) >= MIN_CREATE_DRAG && Math.abs(p.y - g.sy) >= MIN_CREATE_DRAG;
        this.createAt(this.tool, g.start, big ? boxOf(g.start, w) : null);
        break;
      }
      default:
        break;
    }
  }

  onCancel(e) {
    if (e.pointerType === 'touch') this.touch.up(e);
    if (this.gesture && this.gesture.id === e.pointerId) this.cancelGesture();
  }

  onContextMenu(e) {
    e.preventDefault();
    if (e.target.closest('.stage-ui')) return;
    const objEl = e.target.closest('[data-id]');
    const id = objEl ? objEl.getAttribute('data-id') : null;
    if (id && !this.r.selection.has(id)) this.app.setSelection([id]);
    if (!id && !e.shiftKey && this.r.selection.size) this.app.setSelection([]);
    const p = this.local(e);
    this.menu.openAt(e.clientX, e.clientY, this.r.screenToWorld(p.x, p.y));
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
      if (!this.app.readOnly) this.edit(id);
      return;
    }
    if (this.tool !== 'select' || this.app.readOnly) return;
    const p = this.local(e);
    this.createAt('note', this.r.screenToWorld(p.x, p.y));
  }

  /** Edits an object's words: a picture's alt text, any other object's text. */
  edit(id) {
    if (this.doc.get(id)?.kind === 'image') this.alt.start(id);
    else this.editor.start(id);
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

  /** Shows the dashed box from `a` to `b` (world points): the marquee, or the size of a new object. */
  showBox(a, b, kind = 'selecting') {
    const rect = boxOf(a, b);
    const s1 = this.r.worldToScreen(rect.x, rect.y);
    const m = this.marquee;
    m.hidden = false;
    m.dataset.kind = kind;
    m.style.left = `${s1.x}px`;
    m.style.top = `${s1.y}px`;
    m.style.width = `${rect.w * this.r.camera.k}px`;
    m.style.height = `${rect.h * this.r.camera.k}px`;
    return rect;
  }

  updateMarquee(g, w) {
    const rect = this.showBox(g.start, w);
    const sel = new Set(g.baseSel);
    for (const o of this.doc.view.values()) {
      const b = objBounds(o, this.r.lookup);
      if (intersects(rect, b) && contains(rect, b)) sel.add(o.id);
    }
    this.app.setSelection(sel);
  }

  // ---- creating ----

  /**
   * Creates a `kind` object: in `box` (a dragged area), else of the default size centered at
   * `at`. A note or a text is a draft until its editor closes: it goes out as one create with
   * its first text (one undo step).
   */
  createAt(kind, at, box = null) {
    if (this.app.readOnly) return;
    const id = uid();
    const obj = { id, kind };
    const [w, h] = box ? [round(box.w), round(box.h)] : DEFAULT_SIZE[kind];
    obj.x = round(box ? box.x : at.x - w / 2);
    obj.y = round(box ? box.y : at.y - h / 2);
    obj.w = w;
    obj.h = h;
    obj.color = this.app.colorFor(kind);
    if (kind === 'shape') obj.geo = this.geo;
    if (kind === 'frame') obj.text = 'Frame';
    if (kind !== 'frame') {
      const f = this.frameAt(center(obj));
      if (f) obj.parent = f.id;
    }
    this.setTool('select');
    if (kind === 'text' || kind === 'note') {
      this.doc.addDraft(obj);
      this.app.setSelection([id]);
      this.editor.start(id);
      return id;
    }
    this.app.commit([{ op: 'create', object: obj }]);
    this.app.setSelection([id]);
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

  // ---- commands (commands.js) ----

  deleteSelection() {
    this.cmd.deleteSelection();
  }

  duplicateSelection() {
    this.cmd.duplicateSelection();
  }

  nudge(dx, dy) {
    this.cmd.moveBy(dx, dy);
  }

  setColor(hex) {
    this.cmd.setColor(hex);
  }

  /** Bounds of boxes (not connectors), or null. */
  selectionBounds(objs) {
    const boxes = objs.filter((o) => o.kind !== 'connector');
    if (!boxes.length) return null;
    const x = Math.min(...boxes.map((o) => o.x));
    const y = Math.min(...boxes.map((o) => o.y));
    const w = Math.max(...boxes.map((o) => o.x + o.w)) - x;
    const h = Math.max(...boxes.map((o) => o.y + o.h)) - y;
    return { x, y, w, h };
  }

  /** Where a paste lands: the pointer when it is over the board, else the middle of the view. */
  pointerWorld() {
    if (this.pointerInside) return { ...this.lastWorld };
    const vp = this.r.viewport();
    return { x: vp.x + vp.w / 2, y: vp.y + vp.h / 2 };
  }

  // ---- keyboard (shortcuts.js) ----

  onKeyDown(e) {
    onKeyDown(this, e);
  }
}

/** Whether a resize keeps the aspect: a picture's does unless Shift is held, others' only with it. */
function keepsAspect(o, e) {
  return o.kind === 'image' ? !e.shiftKey : e.shiftKey;
}

/** The box between two points. */
function boxOf(a, b) {
  return { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), w: Math.abs(b.x - a.x), h: Math.abs(b.y - a.y) };
}
