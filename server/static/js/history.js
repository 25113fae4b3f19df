// Version history (UI-HIST-1): a panel listing the board's versions (newest first, with who and
// what changed), naming the current state, a read-only preview of any version over the canvas
// ("Viewing version of 10:42 — Restore / Back to live"), and restore. The server does the work
// (HIST-n): a restore is one command everyone sees and the restorer's Ctrl+Z reverts.

import { Doc } from './model.js';
import { Renderer } from './render.js';
import { el } from './util.js';

const api = (board, rest = '') => `/api/boards/${encodeURIComponent(board)}${rest}`;

async function call(method, url, body) {
  const res = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json?.error?.message || `request failed (${res.status})`);
  return json;
}

function when(ms) {
  const d = new Date(ms);
  const today = new Date();
  const time = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return d.toDateString() === today.toDateString()
    ? time
    : `${d.toLocaleDateString([], { month: 'short', day: 'numeric' })} ${time}`;
}

function summary(v) {
  const s = v.summary || {};
  const parts = [];
  if (s.created) parts.push(`${s.created} added`);
  if (s.changed) parts.push(`${s.changed} changed`);
  if (s.deleted) parts.push(`${s.deleted} removed`);
  return parts.length ? parts.join(', ') : 'no changes';
}

export class History {
  /** @param app the board page's app object (boardId, stage, renderer, toast, readOnly). */
  constructor(app) {
    this.app = app;
    this.preview = null;
    const link = el('link', { rel: 'stylesheet', href: '/static/css/history.css' });
    document.head.append(link);
    this.button = el('button', {
      type: 'button',
      class: 'btn',
      'data-testid': 'history-open',
      'aria-expanded': 'false',
      'aria-controls': 'history-panel',
    }, 'History');
    const share = document.getElementById('share-open');
    (share?.parentElement || document.querySelector('.topbar'))?.insertBefore(this.button, share || null);
    this.panel = el('aside', {
      id: 'history-panel',
      class: 'history-panel',
      'data-testid': 'history-panel',
      'aria-label': 'Version history',
      hidden: '',
    });
    this.nameInput = el('input', {
      type: 'text',
      maxlength: '100',
      placeholder: 'Name this version',
      'aria-label': 'Version name',
      'data-testid': 'history-name',
    });
    const save = el('button', { type: 'submit', class: 'btn', 'data-testid': 'history-save' }, 'Save');
    this.form = el('form', { class: 'history-name edit-only' }, this.nameInput, save);
    this.list = el('ol', { class: 'history-list', 'data-testid': 'history-list' });
    const close = el('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close history' }, '\u00d7');
    this.panel.append(
      el('div', { class: 'history-head' }, el('h2', {}, 'Version history'), close),
      this.form,
      this.list,
    );
    document.querySelector('.workspace')?.append(this.panel);
    this.button.addEventListener('click', () => this.toggle());
    close.addEventListener('click', () => this.toggle(false));
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.saveNamed();
    });
  }

  toggle(open = this.panel.hidden) {
    this.panel.hidden = !open;
    this.button.setAttribute('aria-expanded', String(open));
    if (open) this.refresh();
    else this.back();
  }

  async refresh() {
    let versions;
    try {
      ({ versions } = await call('GET', api(this.app.boardId, '/versions')));
    } catch (e) {
      this.app.toast(`Cannot load the history: ${e.message}`);
      return;
    }
    this.list.replaceChildren();
    if (!versions.length) {
      this.list.append(el('li', { class: 'history-empty' }, 'No versions yet: they are saved as you edit.'));
    }
    for (const v of versions) {
      const title = v.kind === 'named' ? v.name : 'Automatic';
      const who = (v.authors || []).map((a) => a.name || a.id).join(', ');
      const item = el('button', { type: 'button', class: 'history-item', 'data-testid': 'history-item', 'data-version': String(v.id) },
        el('span', { class: 'history-when' }, when(v.created_at_ms)),
        el('span', { class: `history-title ${v.kind}` }, title),
        el('span', { class: 'history-meta' }, `${summary(v)} · ${v.objects} objects${who ? ` · ${who}` : ''}`),
      );
      item.addEventListener('click', () => this.show(v));
      this.list.append(el('li', {}, item));
    }
  }

  async saveNamed() {
    const name = this.nameInput.value.trim();
    if (!name) return;
    try {
      await call('POST', api(this.app.boardId, '/versions'), { name });
      this.nameInput.value = '';
      this.app.toast(`Saved version “${name}”`);
      this.refresh();
    } catch (e) {
      this.app.toast(`Not saved: ${e.message}`);
    }
  }

  /** A read-only preview of version `v` over the canvas. */
  async show(v) {
    let data;
    try {
      data = await call('GET', api(this.app.boardId, `/versions/${v.id}`));
    } catch (e) {
      this.app.toast(`Cannot open that version: ${e.message}`);
      return;
    }
    this.back();
    const layer = el('div', { class: 'history-preview', 'data-testid': 'history-preview' });
    const restore = el('button', { type: 'button', class: 'btn primary edit-only', 'data-testid': 'history-restore' }, 'Restore');
    const live = el('button', { type: 'button', class: 'btn', 'data-testid': 'history-back' }, 'Back to live');
    const label = v.kind === 'named' ? `“${v.name}” (${when(v.created_at_ms)})` : `version of ${when(v.created_at_ms)}`;
    layer.append(el('div', { class: 'history-banner', role: 'status' }, el('span', {}, `Viewing ${label}`), restore, live));
    this.app.stage.append(layer);
    const doc = new Doc();
    const renderer = new Renderer(layer, doc);
    doc.reset(data.objects, v.seq);
    const b = renderer.contentBounds();
    if (b) renderer.fitTo(b, 1);
    else renderer.setCamera(layer.clientWidth / 2, layer.clientHeight / 2, 1);
    renderer.flush();
    // The preview is for looking: nothing reaches the live canvas's gestures under it.
    for (const type of ['pointerdown', 'pointermove', 'pointerup', 'dblclick', 'contextmenu', 'click']) {
      layer.addEventListener(type, (e) => e.stopPropagation());
    }
    layer.addEventListener('wheel', (e) => {
      e.stopPropagation();
      e.preventDefault();
      if (e.ctrlKey) renderer.zoomAt(e.offsetX, e.offsetY, Math.exp(-e.deltaY / 300));
      else renderer.panBy(-e.deltaX, -e.deltaY);
    }, { passive: false });
    live.addEventListener('click', () => this.back());
    restore.addEventListener('click', () => this.restore(v));
    this.preview = layer;
  }

  back() {
    this.preview?.remove();
    this.preview = null;
  }

  async restore(v) {
    try {
      await call('POST', api(this.app.boardId, '/restore'), { version: v.id });
      this.back();
      this.app.toast(`Restored the ${v.kind === 'named' ? `version “${v.name}”` : `version of ${when(v.created_at_ms)}`} — Ctrl+Z undoes it`);
      this.refresh();
    } catch (e) {
      this.app.toast(`Not restored: ${e.message}`);
    }
  }
}
