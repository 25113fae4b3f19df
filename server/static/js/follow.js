// The part of the canvas a person actually sees (not under the toolbar, a bottom sheet or other
// floating chrome), fitting a world rectangle into it, and moving the view (animated, cancelled
// by any pan or zoom of the person's own) to what an AI command made or changed.

import { bounds } from './geometry.js';
import { clamp } from './util.js';

const MARGIN = 24;
const FRAME_TITLE = 24;
const ANIMATE_MS = 450;
const MIN_K = 0.1;

/**
 * Bars that float over the stage along one side (the toolbar; the chat as a bottom sheet; the
 * comments and notifications panels).
 */
const COVERS = ['.toolbar', '.chat-panel', '.side-panel'];

/** The visible part of the stage, in stage pixels: {x, y, w, h}. */
export function visibleRect(stage) {
  const s = stage.getBoundingClientRect();
  let [left, top, right, bottom] = [0, 0, s.width, s.height];
  for (const sel of COVERS) {
    const n = document.querySelector(sel);
    if (!n || n.hidden || !n.getClientRects().length) continue;
    const r = n.getBoundingClientRect();
    const [x0, y0, x1, y1] = [r.left - s.left, r.top - s.top, r.right - s.left, r.bottom - s.top];
    if (x1 <= left || x0 >= right || y1 <= top || y0 >= bottom) continue;
    // A bar along one side takes that side's strip.
    const wide = r.width > r.height;
    if (wide && y1 >= bottom - MARGIN) bottom = Math.min(bottom, y0);
    else if (wide && y0 <= top + MARGIN) top = Math.max(top, y1);
    else if (!wide && x0 <= left + MARGIN) left = Math.max(left, x1);
    else if (!wide && x1 >= right - MARGIN) right = Math.min(right, x0);
  }
  return { x: left, y: top, w: Math.max(1, right - left), h: Math.max(1, bottom - top) };
}

/** The visible part of the board in board coordinates (what an `ai` carries as `viewport`). */
export function visibleViewport(renderer) {
  const v = visibleRect(renderer.stage);
  const a = renderer.screenToWorld(v.x, v.y);
  const { k } = renderer.camera;
  const r = (n) => Math.round(n * 100) / 100;
  return { x: r(a.x), y: r(a.y), w: r(v.w / k), h: r(v.h / k) };
}

/** World bounds of the objects `ids` (frames with their titles), or null. */
export function boundsOf(doc, ids) {
  const lookup = (id) => doc.view.get(id);
  let b = null;
  for (const id of ids) {
    const o = doc.view.get(id);
    if (!o) continue;
    const r = bounds(o, lookup);
    const top = o.kind === 'frame' ? r.y - FRAME_TITLE : r.y;
    const [x0, y0, x1, y1] = [r.x, top, r.x + r.w, r.y + r.h];
    b = b
      ? { x0: Math.min(b.x0, x0), y0: Math.min(b.y0, y0), x1: Math.max(b.x1, x1), y1: Math.max(b.y1, y1) }
      : { x0, y0, x1, y1 };
  }
  return b && { x: b.x0, y: b.y0, w: b.x1 - b.x0, h: b.y1 - b.y0 };
}

/** True when the world rectangle `b` is wholly inside the visible part of the view. */
export function fullyVisible(renderer, b) {
  const v = visibleViewport(renderer);
  return b.x >= v.x && b.y >= v.y && b.x + b.w <= v.x + v.w && b.y + b.h <= v.y + v.h;
}

/** The camera that shows `b` centred in the visible part, zoomed out only if it must be. */
export function cameraFor(renderer, b, maxK) {
  const v = visibleRect(renderer.stage);
  const fit = Math.min((v.w - 2 * MARGIN) / Math.max(b.w, 1), (v.h - 2 * MARGIN) / Math.max(b.h, 1));
  const k = clamp(Math.min(maxK, fit), MIN_K, 4);
  return {
    x: v.x + v.w / 2 - (b.x + b.w / 2) * k,
    y: v.y + v.h / 2 - (b.y + b.h / 2) * k,
    k,
  };
}

/** Moves a renderer's camera smoothly; any other camera change or gesture cancels the move. */
export class Follower {
  constructor(renderer) {
    this.r = renderer;
    this.anim = null;
    const stop = () => this.cancel();
    for (const ev of ['pointerdown', 'wheel', 'touchstart']) {
      renderer.stage.addEventListener(ev, stop, { capture: true, passive: true });
    }
  }

  get moving() {
    return this.anim !== null;
  }

  cancel() {
    if (this.anim) cancelAnimationFrame(this.anim.frame);
    this.anim = null;
  }

  /**
   * Brings the objects `ids` into view unless they are already wholly visible (or `force`).
   * Returns true when the view moves.
   */
  show(doc, ids, { force = false } = {}) {
    return this.showBounds(boundsOf(doc, ids), { force });
  }

  /** Brings the world rectangle `b` into view unless it is already wholly visible. */
  showBounds(b, { force = false } = {}) {
    if (!b || (!force && fullyVisible(this.r, b))) return false;
    this.animateTo(cameraFor(this.r, b, this.r.camera.k));
    return true;
  }

  animateTo(to) {
    this.cancel();
    const from = { ...this.r.camera };
    const start = performance.now();
    const anim = { frame: 0, last: from };
    this.anim = anim;
    const step = (now) => {
      if (this.anim !== anim) return;
      const cur = this.r.camera;
      // Someone else moved the camera (a pan, a zoom key): theirs wins.
      if (cur.x !== anim.last.x || cur.y !== anim.last.y || cur.k !== anim.last.k) {
        this.anim = null;
        return;
      }
      const t = Math.min(1, (now - start) / ANIMATE_MS);
      const e = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
      this.r.setCamera(from.x + (to.x - from.x) * e, from.y + (to.y - from.y) * e, from.k + (to.k - from.k) * e);
      anim.last = { ...this.r.camera };
      if (t < 1) anim.frame = requestAnimationFrame(step);
      else this.anim = null;
    };
    anim.frame = requestAnimationFrame(step);
  }
}
