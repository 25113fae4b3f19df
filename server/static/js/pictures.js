// Pictures on the board: paste one from the clipboard (Ctrl/Cmd+V) or drop files onto the
// board. Each file is sent as it is to POST /api/boards/{id}/assets (the server reads its type
// from the bytes, cleans it and answers its SHA-256 and size); then one command creates an image
// object per picture, side by side at the drop or paste point, at most MAX_SIDE px on its longer
// side. Errors (too large, unsupported) are shown as the server words them.

import { uid } from './util.js';
import { round } from './geometry.js';

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

/** Uploads one file; resolves the server's description of the stored picture. */
async function upload(file) {
  const res = await fetch(`/api/boards/${encodeURIComponent(boardId)}/assets`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': file.type || 'application/octet-stream', 'x-file-name': file.name || 'picture' },
    body: file,
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    // Not JSON: the status says enough.
  }
  if (!res.ok) {
    const e = (data && data.error) || {};
    throw new Error(e.message || `the picture was not taken (HTTP ${res.status})`);
  }
  return data;
}

/** Uploads `files` and places them as images centred on `at` (board coordinates). */
export async function placePictures(app, files, at) {
  if (app.readOnly || !files.length) return;
  const metas = [];
  for (const f of files) {
    try {
      metas.push(await upload(f));
    } catch (e) {
      app.toast(`${f.name || 'Picture'}: ${e.message}`);
    }
  }
  if (!metas.length) return;
  const sizes = metas.map((m) => {
    const s = Math.min(1, MAX_SIDE / Math.max(m.w, m.h, 1));
    return { w: Math.max(8, round(m.w * s)), h: Math.max(8, round(m.h * s)) };
  });
  const total = sizes.reduce((a, s) => a + s.w, 0) + GAP * (sizes.length - 1);
  let x = round(at.x - total / 2);
  const ops = metas.map((m, i) => {
    const { w, h } = sizes[i];
    const object = { id: uid(), kind: 'image', asset: m.sha256, x, y: round(at.y - h / 2), w, h };
    x += w + GAP;
    return { op: 'create', object };
  });
  app.commit(ops);
  app.setSelection(ops.map((o) => o.object.id));
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
