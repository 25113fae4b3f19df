// Touch on the board (pointer events with pointerType "touch"): one finger does what the mouse
// does (tap selects, drag moves or selects an area); two fingers pan and pinch-zoom together; a
// long press without moving opens the context menu.

import { mid } from './geometry.js';

const LONG_PRESS_MS = 550;
/** How far (CSS px) a finger may drift and still count as a long press. */
const LONG_PRESS_SLOP = 8;

export class TouchInput {
  constructor(ix) {
    this.ix = ix;
    this.touches = new Map();
    this.pinch = null;
    this.press = null;
  }

  /** A finger went down; true when it starts a pinch (the caller does nothing more). */
  down(e, p) {
    this.touches.set(e.pointerId, p);
    this.cancelPress();
    if (this.touches.size === 2) {
      this.ix.cancelGesture();
      const [a, b] = [...this.touches.values()];
      this.pinch = { dist: Math.hypot(a.x - b.x, a.y - b.y), mid: mid(a, b) };
      return true;
    }
    if (this.touches.size === 1) {
      const { clientX, clientY, target } = e;
      const timer = setTimeout(() => this.longPress(clientX, clientY, target, p), LONG_PRESS_MS);
      this.press = { id: e.pointerId, p, timer };
    }
    return this.touches.size > 2;
  }

  /** A finger moved; true when the pinch took it. */
  move(e, p) {
    if (!this.touches.has(e.pointerId)) return false;
    this.touches.set(e.pointerId, p);
    if (this.press && Math.hypot(p.x - this.press.p.x, p.y - this.press.p.y) > LONG_PRESS_SLOP) this.cancelPress();
    if (!this.pinch) return false;
    const [a, b] = [...this.touches.values()];
    if (!a || !b) return true;
    const d = Math.hypot(a.x - b.x, a.y - b.y);
    const m = mid(a, b);
    const r = this.ix.r;
    r.panBy(m.x - this.pinch.mid.x, m.y - this.pinch.mid.y);
    if (this.pinch.dist > 0) r.zoomAt(m.x, m.y, d / this.pinch.dist);
    this.pinch = { dist: d, mid: m };
    this.ix.app.viewportChanged();
    return true;
  }

  /** A finger lifted (or was cancelled); true when it ends a pinch or a long press. */
  up(e) {
    this.touches.delete(e.pointerId);
    const pressed = this.press?.fired;
    this.cancelPress();
    if (this.pinch) {
      if (this.touches.size < 2) this.pinch = null;
      return true;
    }
    return Boolean(pressed);
  }

  cancelPress() {
    if (this.press) clearTimeout(this.press.timer);
    this.press = null;
  }

  longPress(clientX, clientY, target, p) {
    if (!this.press) return;
    this.press.fired = true;
    const ix = this.ix;
    ix.cancelGesture();
    // The object under the finger joins the selection, as a right-click would do.
    const objEl = target instanceof Element ? target.closest('[data-id]') : null;
    const id = objEl ? objEl.getAttribute('data-id') : null;
    if (id && !ix.r.selection.has(id)) ix.app.setSelection([id]);
    ix.menu.openAt(clientX, clientY, ix.r.screenToWorld(p.x, p.y));
  }
}
