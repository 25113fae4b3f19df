// The alt text editor of a picture: "Alt text…" in the context menu (or Enter, or a double-click
// on a picture) opens a small box over the board; saving commits one update of the image's `alt`
// (at most MAX_ALT characters; empty removes it). The alt text is the picture's title and
// aria-label on the board (render.js).

import { el } from './util.js';

/** The longest alt text the board keeps, in characters (ASSET-7). */
export const MAX_ALT = 1000;

export class AltEditor {
  constructor(ix) {
    this.ix = ix;
    this.app = ix.app;
    this.id = null;
    this.input = el('textarea', {
      class: 'alt-input',
      'data-testid': 'alt-input',
      rows: 3,
      maxlength: MAX_ALT,
      'aria-label': 'Alt text: what the picture shows',
      placeholder: 'Describe the picture for people who cannot see it',
    });
    this.count = el('span', { class: 'alt-count muted small', 'aria-live': 'polite' });
    const save = el('button', { type: 'submit', class: 'btn primary', 'data-testid': 'alt-save' }, 'Save');
    const cancel = el('button', { type: 'button', class: 'btn', 'data-testid': 'alt-cancel', onclick: () => this.close() }, 'Cancel');
    this.form = el(
      'form',
      { class: 'alt-editor stage-ui', 'data-testid': 'alt-editor', 'data-keys': 'own', role: 'dialog', 'aria-label': 'Alt text', hidden: true },
      el('label', { class: 'alt-title' }, 'Alt text', this.input),
      el('div', { class: 'alt-actions' }, this.count, cancel, save),
    );
    ix.stage.append(this.form);
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.save();
    });
    this.form.addEventListener('pointerdown', (e) => e.stopPropagation());
    this.form.addEventListener('keydown', (e) => this.onKey(e));
    this.input.addEventListener('input', () => this.showCount());
  }

  get open() {
    return !this.form.hidden;
  }

  /** Opens the editor for image `id`, under it on screen. */
  start(id) {
    const o = this.ix.doc.get(id);
    if (!o || o.kind !== 'image' || this.app.readOnly) return;
    this.id = id;
    this.input.value = o.alt || '';
    this.showCount();
    this.form.hidden = false;
    this.place(o);
    this.input.focus();
    this.input.select();
  }

  place(o) {
    const r = this.ix.r;
    const p = r.worldToScreen(o.x + o.w / 2, o.y + o.h);
    const { w: sw, h: sh } = r.size;
    const w = this.form.offsetWidth;
    const h = this.form.offsetHeight;
    this.form.style.left = `${Math.max(8, Math.min(p.x - w / 2, sw - w - 8))}px`;
    this.form.style.top = `${Math.max(8, Math.min(p.y + 8, sh - h - 8))}px`;
  }

  showCount() {
    const n = [...this.input.value].length;
    this.count.textContent = `${n} / ${MAX_ALT}`;
  }

  onKey(e) {
    e.stopPropagation();
    if (e.key === 'Escape') {
      e.preventDefault();
      this.close();
    } else if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      this.save();
    }
  }

  /** Commits the alt text if it changed (one update), then closes. */
  save() {
    const id = this.id;
    const o = id && this.ix.doc.get(id);
    const alt = [...this.input.value.trim()].slice(0, MAX_ALT).join('');
    this.close();
    if (!o || (o.alt || '') === alt) return;
    this.app.commit([{ op: 'update', id, set: { alt } }]);
  }

  close() {
    if (this.form.hidden) return;
    this.form.hidden = true;
    this.id = null;
    this.ix.stage.focus({ preventScroll: true });
  }
}
