// Pictures on the board: paste one from the clipboard (Ctrl/Cmd+V), drop files onto the board,
// or pick them with the Image tool (I). Each file is sent as it is to POST
// /api/boards/{id}/assets (upload.js; the server reads its type from the bytes, cleans it and
// answers its SHA-256 and size) while the local file shows where it will land, with its
// progress; then one command creates an image object per picture, side by side at the drop or
// paste point (the Image tool: in open space in the view), at most MAX_SIDE px on its longer
// side. A refused file is left out with a toast that says why.

import { uid, svg } from './util.js';
import { round, center, intersects, bounds as objBounds } from './geometry.js';
import { visibleViewport } from './follow.js';
import { uploadPicture, uploadErrorText } from './upload.js';

/** The longest side a new image gets on the board, in board units. */
const MAX_SIDE = 400;
/** Space between pictures placed together. */
const GAP = 24;

export const boardId = decodeURIComponent(location.pathname.split('/')[2] || '');

/** The URL of a picture of this board (a preview when it is drawn small). */
export function pictureUrl(sha256, preview) {
  const base = `/api/boards/${encodeURIComponent(boardId)}/assets/${sha256}`;
  return preview ? `${base}?preview=1` : base;
}

/** The longest side of the local preview shown while a picture uploads, in pixels. */
const GHOST_PX = 400;

/**
 * A file as it is about to be sent: its size and a small local preview as a `data:` URL (the
 * page's policy allows no `blob:` images), when the browser can read it; else a plain box.
 */
async function localPicture(file) {
  try {
    const bmp = await createImageBitmap(file);
    const item = { file, w: bmp.width, h: bmp.height, url: thumbnail(bmp) };
    bmp.close();
    return item;
  } catch {
    // Not a raster the browser reads (an SVG, or a type the server will refuse).
  }
  const svgFile = file.type === 'image/svg+xml' || /\.svg$/i.test(file.name || '');
  if (svgFile && file.size <= 1 << 20) {
    try {
      const url = await new Promise((resolve, reject) => {
        const r = new FileReader();
        r.onload = () => resolve(String(r.result));
        r.onerror = reject;
        r.readAsDataURL(file);
      });
      const img = new Image();
      img.src = url;
      await img.decode();
      return { file, url, w: img.naturalWidth || 400, h: img.naturalHeight || 300 };
    } catch {
      // Drawn as a plain box.
    }
  }
  return { file, url: null, w: 400, h: 300 };
}

/** A `data:` URL of `bmp` at most GHOST_PX on its longer side. */
function thumbnail(bmp) {
  const s = Math.min(1, GHOST_PX / Math.max(bmp.width, bmp.height, 1));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bmp.width * s));
  canvas.height = Math.max(1, Math.round(bmp.height * s));
  canvas.getContext('2d').drawImage(bmp, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL('image/png');
}

/** The size a picture of `w` x `h` pixels gets on the board: at most MAX_SIDE on its longer side. */
function fitted(w, h) {
  const s = Math.min(1, MAX_SIDE / Math.max(w, h, 1));
  return { w: Math.max(8, round(w * s)), h: Math.max(8, round(h * s)) };
}

/** The width and height of a row of `sizes`, GAP apart. */
function rowSize(sizes) {
  const w = sizes.reduce((a, s) => a + s.w, 0) + GAP * (sizes.length - 1);
  return { w, h: Math.max(...sizes.map((s) => s.h)) };
}

/** Boxes for `sizes` side by side, the row centred on `at`. */
function rowLayout(sizes, at) {
  let x = round(at.x - rowSize(sizes).w / 2);
  return sizes.map(({ w, h }) => {
    const box = { x, y: round(at.y - h / 2), w, h };
    x = round(x + w + GAP);
    return box;
  });
}

/**
 * The centre of a `w` x `h` area in the visible part of the view that no object overlaps,
 * nearest the middle of the view; the middle itself when there is no such area.
 */
export function openSpot(app, w, h) {
  const r = app.renderer;
  const vp = visibleViewport(r);
  const mid = { x: round(vp.x + vp.w / 2), y: round(vp.y + vp.h / 2) };
  const pad = GAP;
  const lookup = (id) => r.display(id);
  const taken = [];
  for (const o of app.doc.view.values()) {
    const b = objBounds(o, lookup);
    if (intersects(b, vp)) taken.push(b);
  }
  const free = (c) => !taken.some((b) => intersects(b, { x: c.x - w / 2 - pad, y: c.y - h / 2 - pad, w: w + pad * 2, h: h + pad * 2 }));
  if (free(mid)) return mid;
  // At most about 40 x 40 places are tried, however far out the view is zoomed.
  const step = Math.max(20, Math.min(w, h) / 4, vp.w / 40, vp.h / 40);
  const spots = [];
  for (let cx = vp.x + w / 2 + pad; cx <= vp.x + vp.w - w / 2 - pad; cx += step) {
    for (let cy = vp.y + h / 2 + pad; cy <= vp.y + vp.h - h / 2 - pad; cy += step) spots.push({ x: cx, y: cy });
  }
  spots.sort((a, b) => Math.hypot(a.x - mid.x, a.y - mid.y) - Math.hypot(b.x - mid.x, b.y - mid.y));
  const spot = spots.find(free);
  return spot ? { x: round(spot.x), y: round(spot.y) } : mid;
}

/**
 * Uploads `files` and places them as images in a row centred on `at` (board coordinates), or,
 * with `openSpace`, in open space in the view. While they upload, each shows where it will land
 * (the local file, with its progress); they become board objects in one command once the server
 * has answered for all of them. A file the server refuses is left out and a toast says why.
 */
export async function placePictures(app, files, at, { openSpace = false } = {}) {
  if (app.readOnly || !files.length) return;
  const items = await Promise.all(files.map(localPicture));
  const guess = items.map((it) => fitted(it.w, it.h));
  if (openSpace) {
    const size = rowSize(guess);
    at = openSpot(app, size.w, size.h);
  }
  const ghosts = rowLayout(guess, at).map((box, i) => new Ghost(app.renderer, items[i], box));
  const results = await Promise.allSettled(
    items.map((it, i) => uploadPicture(boardId, it.file, (f) => ghosts[i].progress(f))),
  );
  const metas = [];
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') metas.push(r.value);
    else app.toast(uploadErrorText(items[i].file, r.reason), 'error');
  });
  if (metas.length) commitPictures(app, metas, at);
  for (const g of ghosts) g.remove();
}

/** One command creating an image per uploaded picture, in a row centred on `at`. */
function commitPictures(app, metas, at) {
  const boxes = rowLayout(metas.map((m) => fitted(m.w, m.h)), at);
  const ops = metas.map((m, i) => {
    const object = { id: uid(), kind: 'image', asset: m.sha256, ...boxes[i] };
    const frame = app.ix && app.ix.frameAt(center(object));
    if (frame) object.parent = frame.id;
    return { op: 'create', object };
  });
  if (app.commit(ops)) app.setSelection(ops.map((o) => o.object.id));
}

/** A picture on its way: the local file drawn where it will land, with the share sent so far. */
class Ghost {
  constructor(renderer, item, box) {
    const { x, y, w, h } = box;
    this.w = w;
    this.node = svg('g', {
      class: 'upload-ghost',
      'data-testid': 'upload-ghost',
      'data-file': item.file.name || '',
      transform: `translate(${x} ${y})`,
    });
    this.node.append(svg('rect', { class: 'ghost-bg', width: w, height: h }));
    if (item.url) {
      this.node.append(svg('image', { href: item.url, width: w, height: h, preserveAspectRatio: 'none' }));
    }
    const bar = Math.max(4, h / 40);
    this.fill = svg('rect', { class: 'ghost-progress', y: h - bar, width: 0, height: bar });
    this.label = svg('text', { class: 'ghost-label', x: w / 2, y: h / 2, 'text-anchor': 'middle', 'font-size': 16 }, 'Uploading…');
    this.node.append(svg('rect', { class: 'ghost-track', y: h - bar, width: w, height: bar }), this.fill, this.label);
    renderer.layers.uploads.append(this.node);
  }

  progress(f) {
    const pct = Math.round(Math.max(0, Math.min(1, f)) * 100);
    this.node.setAttribute('data-progress', String(pct));
    this.fill.setAttribute('width', String(round(this.w * (pct / 100))));
    this.label.textContent = pct >= 100 ? 'Processing…' : `Uploading ${pct}%`;
  }

  remove() {
    this.node.remove();
  }
}

/** Opens the file picker; the chosen pictures go into open space in the view. */
export function pickPictures(app) {
  if (app.readOnly) return;
  const input = document.getElementById('image-input');
  if (!input) return;
  input.value = '';
  input.click();
}

/** Wires the Image tool's file input (board.html). */
export function wirePicker(app) {
  const input = document.getElementById('image-input');
  if (!input) return;
  input.addEventListener('change', () => {
    const files = [...(input.files || [])];
    input.value = '';
    if (files.length) placePictures(app, files, null, { openSpace: true });
  });
}

/** Registers on this board the pictures `objects` (copied from board `from`) show. */
export async function copyPictures(app, from, objects) {
  const hashes = new Set(objects.filter((o) => o.kind === 'image' && o.asset).map((o) => o.asset));
  for (const sha256 of hashes) {
    const res = await fetch(`/api/boards/${encodeURIComponent(boardId)}/assets/copy`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from_board: from, sha256 }),
    });
    if (!res.ok) app.toast('A picture could not be copied from the other board');
  }
}

/** Files dropped onto the board become pictures where they were dropped. */
export function acceptDrops(ix) {
  const stage = ix.stage;
  stage.addEventListener('dragover', (e) => {
    if (e.dataTransfer && [...e.dataTransfer.types].includes('Files')) e.preventDefault();
  });
  stage.addEventListener('drop', (e) => {
    // Board files (JSON) are imported by export.js; every other file is offered as a picture.
    const boardFile = (f) => f.name.toLowerCase().endsWith('.json') || f.type === 'application/json';
    const files = e.dataTransfer ? [...e.dataTransfer.files].filter((f) => !boardFile(f)) : [];
    if (!files.length) return;
    e.preventDefault();
    const r = stage.getBoundingClientRect();
    const at = ix.r.screenToWorld(e.clientX - r.left, e.clientY - r.top);
    placePictures(ix.app, files, at);
  });
}
