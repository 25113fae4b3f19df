// A planned batch previewed on the board as ghosts: semi-transparent outlines of the objects the
// plan would create, where it would place them. Ghosts are not in the document: nobody else sees
// them, they cannot be selected, and they go away when the plan is answered.

import { svg } from './util.js';
import { shapePath, connectorEnds } from './geometry.js';

export class Ghosts {
  /** @param {import('./render.js').Renderer} renderer */
  constructor(renderer) {
    this.renderer = renderer;
    this.group = null;
  }

  get count() {
    return this.group ? this.group.childElementCount : 0;
  }

  /** Shows `objects` (full board objects, as a `planned` reply's `plan.objects` carries them). */
  show(objects) {
    this.clear();
    const list = (Array.isArray(objects) ? objects : []).filter((o) => o && typeof o === 'object' && o.id);
    if (!list.length) return;
    const byId = new Map(list.map((o) => [o.id, o]));
    const lookup = (id) => byId.get(id) || this.renderer.doc.view.get(id);
    const g = svg('g', { class: 'ghosts', 'data-testid': 'ghosts', 'aria-hidden': 'true' });
    // Frames under the rest, as on the board.
    const order = [...list].sort((a, b) => (a.kind === 'frame' ? 0 : 1) - (b.kind === 'frame' ? 0 : 1));
    for (const o of order) {
      const node = draw(o, lookup);
      if (node) g.append(node);
    }
    this.renderer.world.append(g);
    this.group = g;
  }

  /** World bounds of the ghosts (frames with their titles), or null. */
  bounds() {
    if (!this.group) return null;
    const b = this.group.getBBox();
    return b.width || b.height ? { x: b.x, y: b.y, w: b.width, h: b.height } : null;
  }

  clear() {
    this.group?.remove();
    this.group = null;
  }
}

function num(v) {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function draw(o, lookup) {
  const color = /^#[0-9a-fA-F]{6}$/.test(o.color || '') ? o.color : '#90a4ae';
  if (o.kind === 'connector') {
    const ends = connectorEnds(o, lookup);
    if (!ends) return null;
    const [a, b] = ends;
    return svg('line', { class: 'ghost ghost-line', 'data-testid': 'ghost', x1: a.x, y1: a.y, x2: b.x, y2: b.y });
  }
  const [x, y, w, h] = [num(o.x), num(o.y), Math.max(1, num(o.w)), Math.max(1, num(o.h))];
  const g = svg('g', { class: `ghost ghost-${o.kind}`, 'data-testid': 'ghost', transform: `translate(${x} ${y})` });
  if (o.kind === 'shape') {
    g.append(svg('path', { d: shapePath(o.geo || 'rectangle', w, h), fill: color }));
  } else if (o.kind === 'text') {
    g.append(svg('rect', { width: w, height: h, class: 'ghost-box' }));
  } else {
    g.append(svg('rect', { width: w, height: h, rx: 4, fill: o.kind === 'frame' ? 'none' : color }));
  }
  const text = typeof o.text === 'string' ? o.text.split('\n')[0].slice(0, 40) : '';
  if (text) {
    const label = o.kind === 'frame' ? { x: 0, y: -8 } : { x: 8, y: 22 };
    g.append(svg('text', { x: label.x, y: label.y, class: 'ghost-text' }, text));
  }
  return g;
}
