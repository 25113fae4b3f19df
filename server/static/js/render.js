// SVG rendering: one <g> per object inside one world group whose transform is the camera.
// Panning and zooming change that single transform; objects are redrawn only when they change.
// Rendering is batched per animation frame.

import { PictureLoader } from './picload.js';
import { svg, darken, isDark, isInk, clamp } from './util.js';
import {
  shapePath,
  connectorEnds,
  arrowHead,
  wrapText,
  bounds as objBounds,
  round,
} from './geometry.js';

export const FONT_FAMILY = '"DejaVu Sans", system-ui, "Segoe UI", Roboto, Helvetica, Arial, sans-serif';
export const MIN_ZOOM = 0.05;
export const MAX_ZOOM = 4;
/** The smallest a note's or shape's text is drawn to fit, as a share of its size. */
export const MIN_TEXT_SCALE = 0.5;
/** Below this zoom, text is hidden (it would be unreadable and costs the most to paint). */
const TEXT_LOD_ZOOM = 0.3;

export const TEXT_STYLE = {
  note: { size: 16, lh: 21, pad: 14, align: 'middle', valign: 'middle' },
  shape: { size: 15, lh: 20, pad: 12, align: 'middle', valign: 'middle' },
  text: { size: 18, lh: 24, pad: 2, align: 'start', valign: 'top' },
};

function font(size, weight = 400) {
  return `${weight} ${size}px ${FONT_FAMILY}`;
}

function layerOf(kind) {
  if (kind === 'frame') return 'frames';
  if (kind === 'connector') return 'connectors';
  return 'objects';
}

export class Renderer {
  /**
   * @param {HTMLElement} stage the element that holds the SVG (pointer events land on it)
   * @param {import('./model.js').Doc} doc
   */
  constructor(stage, doc) {
    this.stage = stage;
    this.doc = doc;
    this.camera = { x: 0, y: 0, k: 1 };
    /** Transient patches laid over the view while a gesture is in progress (move, resize). */
    this.overlay = new Map();
    this.nodes = new Map();
    this.dirty = new Set();
    this.fullRedraw = false;
    this.selection = new Set();
    this.remote = new Map();
    this.editingId = null;
    this.cameraListeners = new Set();
    this.frameRequested = false;
    this.cameraDirty = true;
    this.selectionDirty = true;
    this.textHidden = false;
    /** World rectangle outside which objects are not displayed (null: show everything). */
    this.cullRect = null;
    this.lookup = (id) => this.display(id);
    /** Gives pictures their URLs while they are near the view (picload.js). */
    this.pictures = new PictureLoader();

    this.svg = svg('svg', {
      class: 'board-svg',
      'data-testid': 'board-svg',
      role: 'img',
      'aria-label': 'Board contents',
    });
    this.world = svg('g', { class: 'world', 'data-testid': 'world' });
    this.layers = {
      frames: svg('g', { class: 'layer-frames' }),
      objects: svg('g', { class: 'layer-objects' }),
      connectors: svg('g', { class: 'layer-connectors' }),
      remote: svg('g', { class: 'layer-remote' }),
      selection: svg('g', { class: 'layer-selection', 'data-testid': 'selection-layer' }),
      preview: svg('g', { class: 'layer-preview' }),
      /** Pictures being uploaded, drawn where they will land (not board objects yet). */
      uploads: svg('g', { class: 'layer-uploads', 'data-testid': 'uploads-layer' }),
    };
    for (const l of Object.values(this.layers)) this.world.append(l);
    this.svg.append(this.world);
    stage.prepend(this.svg);
    /** The stage's size in CSS pixels (kept by a ResizeObserver: no layout reads per frame). */
    this.size = { w: stage.clientWidth, h: stage.clientHeight };
    new ResizeObserver(() => {
      this.size = { w: stage.clientWidth, h: stage.clientHeight };
      this.cameraDirty = true;
      this.schedule();
    }).observe(stage);

    doc.onChange((ids, full) => {
      if (full) this.fullRedraw = true;
      for (const id of ids) this.dirty.add(id);
      this.schedule();
    });
  }

  /** The object as shown now: the view plus any in-gesture overlay. */
  display(id) {
    const o = this.doc.view.get(id);
    if (!o) return undefined;
    const patch = this.overlay.get(id);
    return patch ? { ...o, ...patch } : o;
  }

  setOverlay(patches) {
    const touched = new Set([...this.overlay.keys(), ...patches.keys()]);
    this.overlay = patches;
    for (const id of touched) this.dirty.add(id);
    this.schedule();
  }

  clearOverlay() {
    this.setOverlay(new Map());
  }

  setSelection(ids) {
    for (const id of this.selection) this.nodes.get(id)?.removeAttribute('data-selected');
    this.selection = new Set(ids);
    for (const id of this.selection) this.nodes.get(id)?.setAttribute('data-selected', 'true');
    this.selectionDirty = true;
    this.schedule();
  }

  setRemoteSelection(userId, color, ids) {
    if (!ids || !ids.length) this.remote.delete(userId);
    else this.remote.set(userId, { color, ids });
    this.selectionDirty = true;
    this.schedule();
  }

  setEditing(id) {
    const prev = this.editingId;
    this.editingId = id;
    if (prev) this.dirty.add(prev);
    if (id) this.dirty.add(id);
    this.schedule();
  }

  // ---- camera ----

  onCamera(fn) {
    this.cameraListeners.add(fn);
  }

  setCamera(x, y, k) {
    this.camera = { x, y, k: clamp(k, MIN_ZOOM, MAX_ZOOM) };
    this.cameraDirty = true;
    this.schedule();
  }

  panBy(dx, dy) {
    this.setCamera(this.camera.x + dx, this.camera.y + dy, this.camera.k);
  }

  /** Zooms by `factor` keeping the screen point (sx, sy) (stage coordinates) fixed. */
  zoomAt(sx, sy, factor) {
    const { x, y, k } = this.camera;
    const nk = clamp(k * factor, MIN_ZOOM, MAX_ZOOM);
    const wx = (sx - x) / k;
    const wy = (sy - y) / k;
    this.setCamera(sx - wx * nk, sy - wy * nk, nk);
  }

  zoomCenter(factor) {
    const r = this.stage.getBoundingClientRect();
    this.zoomAt(r.width / 2, r.height / 2, factor);
  }

  /** Shows the world rectangle `b` (with a margin), at most at 100%. */
  fitTo(b, maxK = 1) {
    const r = this.stage.getBoundingClientRect();
    if (!b || b.w <= 0 || b.h <= 0 || !r.width) return;
    // Keep clear of the toolbar (left) and the bottom controls.
    const [ml, mr, mt, mb] = [90, 40, 50, 70];
    const aw = Math.max(50, r.width - ml - mr);
    const ah = Math.max(50, r.height - mt - mb);
    const k = clamp(Math.min(aw / b.w, ah / b.h, maxK), MIN_ZOOM, MAX_ZOOM);
    this.setCamera(ml + aw / 2 - (b.x + b.w / 2) * k, mt + ah / 2 - (b.y + b.h / 2) * k, k);
  }

  /** Bounds of every object in the view. */
  contentBounds() {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (const o of this.doc.view.values()) {
      if (o.kind === 'connector') continue;
      minX = Math.min(minX, o.x);
      minY = Math.min(minY, o.y - (o.kind === 'frame' ? 24 : 0));
      maxX = Math.max(maxX, o.x + o.w);
      maxY = Math.max(maxY, o.y + o.h);
    }
    if (minX === Infinity) return null;
    return { x: minX, y: minY, w: maxX - minX, h: maxY - minY };
  }

  screenToWorld(sx, sy) {
    const { x, y, k } = this.camera;
    return { x: (sx - x) / k, y: (sy - y) / k };
  }

  worldToScreen(wx, wy) {
    const { x, y, k } = this.camera;
    return { x: wx * k + x, y: wy * k + y };
  }

  /** The visible part of the board, in board coordinates. */
  viewport() {
    const { w, h } = this.size;
    const { x, y, k } = this.camera;
    return { x: round(-x / k), y: round(-y / k), w: round(w / k), h: round(h / k) };
  }

  // ---- frame loop ----

  schedule() {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => {
      this.frameRequested = false;
      this.flush();
    });
  }

  /** Draws everything pending now (also used by tests through the page's debug handle). */
  flush() {
    if (this.cameraDirty) this.applyCamera();
    if (this.fullRedraw) {
      this.redrawAll();
      this.cull(true);
    } else {
      if (this.dirty.size) {
        const ids = new Set(this.dirty);
        // Connectors follow the objects they are bound to.
        for (const c of this.doc.connectorsOf(this.dirty)) ids.add(c);
        this.dirty.clear();
        for (const id of ids) this.drawOne(id);
        for (const id of ids) if (this.selection.has(id) || this.remoteHas(id)) this.selectionDirty = true;
      }
      this.cull(false);
    }
    if (this.selectionDirty) this.drawSelection();
  }

  /**
   * Takes objects far outside the view out of rendering (display: none), so that a pan repaints
   * only what is near the screen. The kept area is the view plus half a view on every side; it is
   * recomputed only once the view leaves it (or on a zoom, or when `force`).
   */
  cull(force) {
    const vp = this.viewport();
    if (!vp.w || !vp.h) return;
    const c = this.cullRect;
    const inside =
      c && vp.x >= c.x && vp.y >= c.y && vp.x + vp.w <= c.x + c.w && vp.y + vp.h <= c.y + c.h && c.k === this.camera.k;
    if (inside && !force) return;
    const mx = vp.w / 2;
    const my = vp.h / 2;
    this.cullRect = { x: vp.x - mx, y: vp.y - my, w: vp.w + mx * 2, h: vp.h + my * 2, k: this.camera.k };
    for (const [id, node] of this.nodes) this.applyCull(node, this.display(id));
    this.pictures.trim();
  }

  applyCull(node, o) {
    const r = this.cullRect;
    let show = true;
    if (r && o) {
      const b = objBounds(o, this.lookup);
      // Frame titles sit above the frame; labels may spill a little.
      show = b.x - 40 <= r.x + r.w && r.x <= b.x + b.w + 40 && b.y - 40 <= r.y + r.h && r.y <= b.y + b.h + 40;
    }
    // A picture is fetched only while it is kept (in or near the view), at the size it is drawn.
    if (o && node.__kind === 'image') this.pictures.attach(node, o, this.camera.k, show);
    if (show === !node.__culled) return;
    node.__culled = !show;
    node.style.display = show ? '' : 'none';
    if (show) node.removeAttribute('data-culled');
    else node.setAttribute('data-culled', 'true');
  }

  remoteHas(id) {
    for (const r of this.remote.values()) if (r.ids.includes(id)) return true;
    return false;
  }

  applyCamera() {
    this.cameraDirty = false;
    const { x, y, k } = this.camera;
    this.world.setAttribute('transform', `translate(${x} ${y}) scale(${k})`);
    const grid = 24 * k;
    if (grid >= 6) {
      this.stage.style.backgroundSize = `${grid}px ${grid}px`;
      this.stage.style.backgroundPosition = `${x}px ${y}px`;
      this.stage.classList.remove('no-grid');
    } else {
      this.stage.classList.add('no-grid');
    }
    const hide = k < TEXT_LOD_ZOOM;
    if (hide !== this.textHidden) {
      this.textHidden = hide;
      this.svg.classList.toggle('lod-low', hide);
    }
    this.selectionDirty = true;
    for (const fn of this.cameraListeners) fn(this.camera);
  }

  redrawAll() {
    this.fullRedraw = false;
    this.dirty.clear();
    for (const n of this.nodes.values()) n.remove();
    this.nodes.clear();
    const objs = [...this.doc.view.keys()].map((id) => this.display(id)).filter(Boolean);
    objs.sort(byZ);
    for (const o of objs) {
      const node = this.createNode(o);
      this.draw(node, o);
      this.layers[layerOf(o.kind)].append(node);
    }
    for (const id of this.selection) this.nodes.get(id)?.setAttribute('data-selected', 'true');
    this.selectionDirty = true;
  }

  drawOne(id) {
    const o = this.display(id);
    let node = this.nodes.get(id);
    if (!o) {
      if (node) {
        node.remove();
        this.nodes.delete(id);
      }
      return;
    }
    if (node && node.__kind !== o.kind) {
      node.remove();
      this.nodes.delete(id);
      node = null;
    }
    if (!node) {
      node = this.createNode(o);
      if (this.selection.has(id)) node.setAttribute('data-selected', 'true');
      this.draw(node, o);
      this.insertSorted(node, o);
      this.applyCull(node, o);
      return;
    }
    const zChanged = node.__z !== o.z;
    this.draw(node, o);
    if (zChanged) this.insertSorted(node, o);
    this.applyCull(node, o);
  }

  insertSorted(node, o) {
    const layer = this.layers[layerOf(o.kind)];
    node.__z = o.z;
    // Most new objects go on top: look from the end.
    let before = null;
    for (let c = layer.lastElementChild; c; c = c.previousElementSibling) {
      if (c === node) continue;
      if (byZ({ z: c.__z, id: c.__id }, o) > 0) before = c;
      else break;
    }
    layer.insertBefore(node, before);
  }

  createNode(o) {
    const node = svg('g', {
      class: `obj ${o.kind}`,
      'data-id': o.id,
      'data-kind': o.kind,
    });
    node.__kind = o.kind;
    node.__id = o.id;
    node.__z = o.z;
    this.nodes.set(o.id, node);
    return node;
  }

  /** (Re)draws an object's node from scratch. */
  draw(node, o) {
    node.textContent = '';
    node.setAttribute('data-color', o.color || '');
    // Black or near-black ink: the dark theme draws it light (CSS), the stored color stays.
    node.toggleAttribute('data-dark-ink', isInk(o.color || '#212121'));
    node.__z = o.z;
    if (o.kind === 'connector') {
      this.drawConnector(node, o);
      return;
    }
    const rot = o.rotation ? ` rotate(${o.rotation} ${o.w / 2} ${o.h / 2})` : '';
    node.setAttribute('transform', `translate(${o.x} ${o.y})${rot}`);
    const editing = this.editingId === o.id;
    switch (o.kind) {
      case 'note':
        node.append(
          svg('rect', { class: 'shadow', x: 2, y: 4, width: o.w, height: o.h, rx: 3 }),
          svg('rect', { class: 'body', width: o.w, height: o.h, rx: 3, fill: o.color }),
        );
        if (!editing) this.drawText(node, o, TEXT_STYLE.note, isDark(o.color) ? '#fafafa' : '#212121');
        break;
      case 'shape':
        node.setAttribute('data-geo', o.geo || 'rectangle');
        node.append(
          svg('path', {
            class: 'body',
            d: shapePath(o.geo, o.w, o.h),
            fill: o.color,
            stroke: darken(o.color),
          }),
        );
        if (!editing) this.drawText(node, o, TEXT_STYLE.shape, isDark(o.color) ? '#fafafa' : '#212121');
        break;
      case 'text':
        node.append(svg('rect', { class: 'hit', width: o.w, height: o.h }));
        if (!editing) {
          this.drawText(node, o, TEXT_STYLE.text, o.color || '#212121');
          if (!o.text) {
            node.append(
              svg('text', { class: 'placeholder', x: 2, y: 24, 'font-size': 18 }, 'Text'),
            );
          }
        }
        break;
      case 'frame': {
        node.append(
          svg('rect', {
            class: 'body',
            width: o.w,
            height: o.h,
            rx: 6,
            fill: o.color,
            stroke: darken(o.color, 0.6),
          }),
        );
        if (!editing) {
          const lines = wrapText(o.text || 'Frame', Math.max(40, o.w), font(14, 600), 1);
          node.append(
            svg(
              'text',
              { class: 'title', x: 2, y: -8, 'font-size': 14, 'data-testid': 'frame-title' },
              lines[0] || '',
            ),
          );
        }
        break;
      }
      case 'image':
        this.drawImage(node, o);
        break;
      default:
        node.append(svg('rect', { class: 'body', width: o.w, height: o.h, fill: o.color }));
    }
  }

  /**
   * A picture: its crop shown in the object's box. Its URL comes from the picture loader once the
   * object is near the view (the preview unless it is drawn large); until it has loaded, and if
   * it cannot be loaded, a plain placeholder shows instead.
   */
  drawImage(node, o) {
    const c = o.crop || { x: 0, y: 0, w: 1, h: 1 };
    const box = svg('svg', {
      width: o.w,
      height: o.h,
      viewBox: `${c.x} ${c.y} ${c.w} ${c.h}`,
      preserveAspectRatio: 'none',
    });
    const img = svg('image', { width: 1, height: 1, preserveAspectRatio: 'none' });
    this.pictures.watch(node, img);
    box.append(img);
    const missing = svg(
      'text',
      { class: 'picture-missing', x: o.w / 2, y: o.h / 2, 'text-anchor': 'middle', 'font-size': 14 },
      'Picture not available',
    );
    node.append(svg('rect', { class: 'hit', width: o.w, height: o.h }), missing, box);
    node.setAttribute('role', 'img');
    node.setAttribute('aria-label', o.alt || 'Picture');
    if (o.alt) node.append(svg('title', {}, o.alt));
  }

  drawText(node, o, st, fill) {
    if (!o.text) return;
    const innerW = o.w - st.pad * 2;
    // Text that does not fit a note or shape at its size is drawn smaller, down to
    // MIN_TEXT_SCALE of it, before the last line is cut with "…" (UI-RENDER-3).
    let scale = 1;
    let size = st.size;
    let lh = st.lh;
    let maxLines = Math.max(1, Math.floor((o.h - st.pad * 2) / lh));
    let lines = wrapText(o.text, innerW, font(size), st.valign === 'top' ? Infinity : maxLines + 1);
    while (st.valign !== 'top' && lines.length > maxLines && scale > MIN_TEXT_SCALE) {
      scale = Math.max(MIN_TEXT_SCALE, scale * 0.85);
      size = Math.round(st.size * scale * 10) / 10;
      lh = st.lh * scale;
      maxLines = Math.max(1, Math.floor((o.h - st.pad * 2) / lh));
      lines = wrapText(o.text, innerW, font(size), maxLines + 1);
    }
    // A text object (top-aligned) shows all its lines, as the export does.
    if (st.valign !== 'top' && lines.length > maxLines) lines = wrapText(o.text, innerW, font(size), maxLines);
    const total = lines.length * lh;
    let y0 = st.valign === 'top' ? st.pad : (o.h - total) / 2;
    y0 += lh * 0.78;
    const x = st.align === 'middle' ? o.w / 2 : st.pad;
    const t = svg('text', {
      class: 'label',
      x,
      'font-size': size,
      'text-anchor': st.align,
      fill,
    });
    lines.forEach((line, i) => {
      t.append(svg('tspan', { x, y: Math.round((y0 + i * lh) * 10) / 10 }, line || ' '));
    });
    node.append(t);
  }

  drawConnector(node, o) {
    node.removeAttribute('transform');
    const ends = connectorEnds(o, this.lookup);
    if (!ends) {
      node.setAttribute('data-unresolved', 'true');
      return;
    }
    node.removeAttribute('data-unresolved');
    const [a, b] = ends;
    const d = `M${a.x} ${a.y}L${b.x} ${b.y}`;
    const color = o.color || '#212121';
    node.append(
      svg('path', { class: 'hit', d }),
      svg('path', { class: 'line', d, stroke: color }),
    );
    const arrow = o.arrow || 'end';
    if (arrow === 'end' || arrow === 'both') {
      node.append(svg('polygon', { class: 'head', 'data-end': 'to', points: arrowHead(a, b), fill: color }));
    }
    if (arrow === 'both') {
      node.append(svg('polygon', { class: 'head', 'data-end': 'from', points: arrowHead(b, a), fill: color }));
    }
    if (o.text && this.editingId !== o.id) {
      const mx = (a.x + b.x) / 2;
      const my = (a.y + b.y) / 2;
      const lines = wrapText(o.text, 220, font(13), 3);
      const w = Math.max(...lines.map((l) => l.length)) * 7.5 + 12;
      const h = lines.length * 17 + 6;
      node.append(
        svg('rect', { class: 'label-bg', x: mx - w / 2, y: my - h / 2, width: w, height: h, rx: 4 }),
      );
      const t = svg('text', { class: 'label', x: mx, 'font-size': 13, 'text-anchor': 'middle' });
      lines.forEach((line, i) => {
        t.append(svg('tspan', { x: mx, y: my - h / 2 + 16 + i * 17 }, line));
      });
      node.append(t);
    }
  }

  // ---- selection overlay ----

  drawSelection() {
    this.selectionDirty = false;
    const layer = this.layers.selection;
    layer.textContent = '';
    const k = this.camera.k;
    const pad = 4 / k;
    for (const id of this.selection) {
      const o = this.display(id);
      if (!o) continue;
      const b = objBounds(o, this.lookup);
      layer.append(
        svg('rect', {
          class: 'sel-outline',
          x: b.x - pad,
          y: b.y - pad,
          width: b.w + pad * 2,
          height: b.h + pad * 2,
          'data-sel-id': id,
        }),
      );
    }
    if (this.selection.size === 1) {
      const [id] = this.selection;
      const o = this.display(id);
      if (o && o.kind !== 'connector') {
        const s = 10 / k;
        const hs = [
          ['nw', o.x, o.y],
          ['n', o.x + o.w / 2, o.y],
          ['ne', o.x + o.w, o.y],
          ['e', o.x + o.w, o.y + o.h / 2],
          ['se', o.x + o.w, o.y + o.h],
          ['s', o.x + o.w / 2, o.y + o.h],
          ['sw', o.x, o.y + o.h],
          ['w', o.x, o.y + o.h / 2],
        ];
        for (const [h, hx, hy] of hs) {
          layer.append(
            svg('rect', {
              class: `handle handle-${h}`,
              'data-handle': h,
              'data-testid': `handle-${h}`,
              x: hx - s / 2,
              y: hy - s / 2,
              width: s,
              height: s,
              'stroke-width': 1.5 / k,
            }),
          );
        }
      }
    }
    const remote = this.layers.remote;
    remote.textContent = '';
    for (const [userId, r] of this.remote) {
      for (const id of r.ids) {
        const o = this.display(id);
        if (!o) continue;
        const b = objBounds(o, this.lookup);
        remote.append(
          svg('rect', {
            class: 'remote-sel',
            'data-user-id': userId,
            x: b.x - pad * 1.5,
            y: b.y - pad * 1.5,
            width: b.w + pad * 3,
            height: b.h + pad * 3,
            stroke: r.color,
          }),
        );
      }
    }
  }

  /** Draws (or clears, with null) a connector preview line in world coordinates. */
  preview(a, b) {
    const layer = this.layers.preview;
    layer.textContent = '';
    if (!a || !b) return;
    layer.append(
      svg('path', { class: 'preview-line', d: `M${a.x} ${a.y}L${b.x} ${b.y}` }),
      svg('polygon', { class: 'preview-head', points: arrowHead(a, b, 12 / Math.max(this.camera.k, 0.3)) }),
    );
  }
}

function byZ(a, b) {
  const za = a.z ?? 0;
  const zb = b.z ?? 0;
  if (za !== zb) return za - zb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
