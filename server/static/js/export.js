// Export and import of boards as files (EXPORT-n in docs/SPEC.md; the format in docs/FILES.md).
// On a board: the top bar's Export menu downloads SVG, PNG, PDF or the board file, of the whole
// board or of the selection; a board file dropped on the board is added to it (one command:
// undo takes it back). On the list: a board file dropped on the page becomes a new board, and
// each board shows a small preview drawn by the server.

import { api } from './auth.js';

const FORMATS = ['svg', 'png', 'pdf', 'json'];

/** The URL of an export of `boardId` in `format`, limited to `ids` when given. */
export function exportUrl(boardId, format, ids = []) {
  const base = `/api/boards/${encodeURIComponent(boardId)}/export.${format}`;
  return ids.length ? `${base}?selection=${ids.map(encodeURIComponent).join(',')}` : base;
}

/** The URL of a board's preview image for the list (small SVG, revalidated by ETag). */
export function previewUrl(boardId) {
  return `/api/boards/${encodeURIComponent(boardId)}/export.svg?preview=1`;
}

function download(url) {
  const a = document.createElement('a');
  a.href = url;
  a.download = '';
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
}

/** The first `.json` file of a drop, or null. */
function droppedFile(e) {
  const files = [...(e.dataTransfer?.files || [])];
  return files.find((f) => f.name.toLowerCase().endsWith('.json') || f.type === 'application/json') || null;
}

/** A dropped file's JSON, or throws with a message for the person. */
async function readBoardFile(file) {
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch {
    throw new Error(`${file.name} is not a board file (not JSON)`);
  }
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.objects)) {
    throw new Error(`${file.name} is not a board file (no objects)`);
  }
  return doc;
}

/** Accepts file drags on `target`, calling `onFile(file)` for a dropped board file. */
function acceptDrops(target, onFile) {
  const hasFiles = (e) => [...(e.dataTransfer?.types || [])].includes('Files');
  target.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    document.body.classList.add('file-over');
  });
  target.addEventListener('dragleave', () => document.body.classList.remove('file-over'));
  target.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    document.body.classList.remove('file-over');
    const file = droppedFile(e);
    if (file) onFile(file);
  });
}

/**
 * Wires the board page: the Export menu (`#export-open`, `#export-list`) and file drops.
 * `app` is the board page's app (boardId, renderer.selection, toast, readOnly).
 */
export function installBoardExport(app) {
  const open = document.getElementById('export-open');
  const list = document.getElementById('export-list');
  const scope = document.getElementById('export-scope');
  if (!open || !list || !scope) return;
  const close = () => {
    list.hidden = true;
    open.setAttribute('aria-expanded', 'false');
  };
  open.addEventListener('click', () => {
    if (!list.hidden) return close();
    const n = app.renderer.selection.size;
    const sel = scope.querySelector('option[value="selection"]');
    sel.disabled = n === 0;
    sel.textContent = n ? `Selection (${n})` : 'Selection';
    scope.value = n ? 'selection' : 'board';
    list.hidden = false;
    open.setAttribute('aria-expanded', 'true');
  });
  for (const format of FORMATS) {
    list.querySelector(`[data-format="${format}"]`)?.addEventListener('click', () => {
      const ids = scope.value === 'selection' ? [...app.renderer.selection] : [];
      download(exportUrl(app.boardId, format, ids));
      close();
    });
  }
  document.addEventListener('pointerdown', (e) => {
    if (!list.hidden && !e.target.closest('.export-menu')) close();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !list.hidden) close();
  });
  acceptDrops(app.stage, async (file) => {
    if (app.readOnly) {
      app.toast('View only: you cannot import into this board');
      return;
    }
    try {
      const doc = await readBoardFile(file);
      // `as` names this person when the server runs without sign-in (ignored otherwise).
      const as = app.me.id ? `?as=${encodeURIComponent(app.me.id)}` : '';
      const r = await api('POST', `/api/boards/${encodeURIComponent(app.boardId)}/import${as}`, doc);
      const n = r.created.length;
      app.toast(`Imported ${n} object${n === 1 ? '' : 's'} from ${file.name}`);
    } catch (e) {
      app.toast(`Import failed: ${e.message}`, 'error');
    }
  });
}

/** Wires the board list: a dropped board file creates a new board; `done(board)` follows. */
export function installListImport(done) {
  const status = document.getElementById('list-status');
  acceptDrops(document.body, async (file) => {
    try {
      const doc = await readBoardFile(file);
      const made = await api('POST', '/api/boards', doc);
      status.textContent = `Created “${made.title}” from ${file.name}.`;
      done(made.board);
    } catch (e) {
      status.textContent = `Import failed: ${e.message}`;
    }
  });
}
