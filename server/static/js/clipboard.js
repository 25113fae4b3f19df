// Copy, cut and paste through the system clipboard, within and across boards and tabs.
//
// What is copied: the selection with its frames' children and the connectors between them, as
// JSON `{"board-objects": 1, "objects": [...]}` in three flavours: the custom type
// `application/x-board-objects+json` (`web application/x-board-objects+json` through the async
// clipboard API), the same JSON marked in `text/html` (for where custom types are not allowed or
// not shared between the two APIs), and the objects' texts as `text/plain` for other programs.
// Pasting prefers the JSON; plain text alone becomes a note. Pastes land at the pointer.
// Ctrl/Cmd+C/X/V go through the page's copy/cut/paste events; the context menu uses the async API.

import { typingInto, uid } from './util.js';
import { fitPatch } from './fit.js';
import { round } from './geometry.js';
import { placePictures, copyPictures, boardId } from './pictures.js';

export const MIME = 'application/x-board-objects+json';
const WEB_MIME = `web ${MIME}`;
const MARK = 'data-board-objects';
/** Most objects one paste creates. */
const MAX_PASTE = 1000;
/** Longest text pasted into a note (characters). */
const MAX_TEXT = 10000;
const KINDS = new Set(['note', 'shape', 'text', 'frame', 'connector', 'image']);

export class Clipboard {
  constructor(ix) {
    this.ix = ix;
    this.app = ix.app;
    document.addEventListener('copy', (e) => this.onCopy(e, false));
    document.addEventListener('cut', (e) => this.onCopy(e, true));
    document.addEventListener('paste', (e) => this.onPaste(e));
  }

  /** Whether a clipboard event belongs to the board (not to a text field or a panel). */
  mine() {
    const a = document.activeElement;
    if (typingInto(a)) return false;
    // Text selected on the page (in the chat, say) is copied as text by the browser.
    const sel = document.getSelection();
    if (sel && !sel.isCollapsed && !this.ix.stage.contains(sel.anchorNode)) return false;
    return !(a instanceof Element && a.closest('[data-keys="own"], dialog'));
  }

  /** The selection as the three clipboard flavours, or null when nothing is selected. */
  payload() {
    const roots = this.ix.cmd.selected();
    if (!roots.length) return null;
    const objects = this.ix.cmd.collect(roots);
    const json = JSON.stringify({ 'board-objects': 1, board: boardId, objects });
    const texts = objects.map((o) => o.text || '').filter(Boolean).join('\n\n');
    const esc = json.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    const html = `<div ${MARK}="${esc}">${texts.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</div>`;
    return { json, html, text: texts || ' ' };
  }

  onCopy(e, cut) {
    if (!this.mine() || !e.clipboardData) return;
    const p = this.payload();
    if (!p) return;
    e.preventDefault();
    e.clipboardData.setData(MIME, p.json);
    e.clipboardData.setData('text/html', p.html);
    e.clipboardData.setData('text/plain', p.text);
    if (cut) this.ix.cmd.deleteSelection();
  }

  onPaste(e) {
    if (!this.mine() || !e.clipboardData || this.app.readOnly) return;
    const dt = e.clipboardData;
    e.preventDefault();
    // A picture on the clipboard (a screenshot, an image copied in another program).
    const files = [...(dt.files || [])];
    if (files.length && !dt.getData(MIME)) {
      placePictures(this.app, files, this.ix.pointerWorld());
      return;
    }
    this.pasteData(dt.getData(MIME) || fromHtml(dt.getData('text/html')), dt.getData('text/plain'));
  }

  /** Copy (or cut) from a menu: the async clipboard API. */
  async copyViaApi(cut) {
    const p = this.payload();
    if (!p) return;
    const blob = (s, type) => new Blob([s], { type });
    const base = { 'text/plain': blob(p.text, 'text/plain'), 'text/html': blob(p.html, 'text/html') };
    try {
      try {
        await navigator.clipboard.write([new ClipboardItem({ ...base, [WEB_MIME]: blob(p.json, MIME) })]);
      } catch {
        // Custom types are not allowed here: the marked HTML carries the objects.
        await navigator.clipboard.write([new ClipboardItem(base)]);
      }
    } catch {
      this.app.toast('The clipboard is not available: use Ctrl/Cmd+C');
      return;
    }
    if (cut) this.ix.cmd.deleteSelection();
  }

  /** Paste from a menu: the async clipboard API (the browser may ask for permission). */
  async pasteViaApi(at) {
    if (this.app.readOnly) return;
    let json = '';
    let text = '';
    try {
      for (const item of await navigator.clipboard.read()) {
        const read = async (t) => (item.types.includes(t) ? (await item.getType(t)).text() : '');
        json = json || (await read(WEB_MIME)) || fromHtml(await read('text/html'));
        text = text || (await read('text/plain'));
      }
    } catch {
      this.app.toast('The clipboard is not available: use Ctrl/Cmd+V');
      return;
    }
    this.pasteData(json, text, at);
  }

  /** Pastes objects (JSON) or, failing that, plain text as a note, centered at `at`. */
  async pasteData(json, text, at = this.ix.pointerWorld()) {
    const objects = parseObjects(json);
    if (objects && objects.length) {
      // Pictures from another board are registered here first (no bytes move).
      const from = sourceBoard(json);
      if (from && from !== boardId) await copyPictures(this.app, from, objects);
      const b = this.ix.selectionBounds(objects.filter((o) => o.kind !== 'connector'));
      const dx = b ? at.x - (b.x + b.w / 2) : 0;
      const dy = b ? at.y - (b.y + b.h / 2) : 0;
      const ids = new Set(objects.map((o) => o.id));
      const roots = objects.filter((o) => !o.parent || !ids.has(o.parent)).map((o) => o.id);
      this.ix.cmd.createCopies(objects, dx, dy, roots);
      return;
    }
    text = (text || '').trim().slice(0, MAX_TEXT);
    if (!text) return;
    const note = { id: uid(), kind: 'note', w: 200, h: 200, text, color: this.app.colorFor('note') };
    note.x = round(at.x - 100);
    note.y = round(at.y - 100);
    Object.assign(note, fitPatch(note, text));
    this.app.commit([{ op: 'create', object: note }]);
    this.app.setSelection([note.id]);
  }
}

/** The JSON inside marked HTML, or ''. */
function fromHtml(html) {
  if (!html || !html.includes(MARK)) return '';
  const node = new DOMParser().parseFromString(html, 'text/html').querySelector(`[${MARK}]`);
  return node ? node.getAttribute(MARK) || '' : '';
}

/** The board clipboard JSON was copied from, if it says. */
function sourceBoard(json) {
  try {
    const v = JSON.parse(json);
    return typeof v.board === 'string' ? v.board : '';
  } catch {
    return '';
  }
}

/** Objects from clipboard JSON, checked for shape (the server checks the rest), or null. */
function parseObjects(json) {
  if (!json) return null;
  let v;
  try {
    v = JSON.parse(json);
  } catch {
    return null;
  }
  if (!v || v['board-objects'] !== 1 || !Array.isArray(v.objects)) return null;
  const num = (n) => typeof n === 'number' && Number.isFinite(n);
  const end = (e) => e && (typeof e.id === 'string' || (num(e.x) && num(e.y)));
  return v.objects.slice(0, MAX_PASTE).filter(
    (o) =>
      o &&
      typeof o.id === 'string' &&
      KINDS.has(o.kind) &&
      (o.kind === 'connector' ? end(o.from) && end(o.to) : num(o.x) && num(o.y) && num(o.w) && num(o.h)),
  );
}
