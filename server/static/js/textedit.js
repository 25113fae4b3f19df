// The in-place text editor: a textarea over the object being edited.

import { el } from './util.js';
import { bounds as objBounds } from './geometry.js';

/** The in-place text editor: a textarea over the object being edited. */
export class TextEditor {
  constructor(ix) {
    this.ix = ix;
    this.id = null;
    this.area = el('textarea', {
      class: 'text-editor stage-ui',
      'data-testid': 'text-editor',
      'aria-label': 'Edit text',
      hidden: true,
      spellcheck: 'false',
    });
    ix.stage.append(this.area);
    this.area.addEventListener('keydown', (e) => {
      e.stopPropagation();
      if (e.key === 'Escape') {
        e.preventDefault();
        this.cancel();
      } else if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        this.commit();
      } else if (e.key === 'Tab') {
        e.preventDefault();
        this.commit();
      }
    });
    this.area.addEventListener('blur', () => this.commit());
  }

  get active() {
    return this.id != null;
  }

  start(id) {
    if (this.ix.app.readOnly) return;
    const o = this.ix.doc.get(id);
    if (!o) return;
    if (this.active) this.commit();
    this.id = id;
    this.area.value = o.text || '';
    this.area.dataset.kind = o.kind;
    this.area.hidden = false;
    this.ix.r.setEditing(id);
    this.reposition();
    this.area.focus();
    this.area.select();
  }

  reposition() {
    if (!this.active) return;
    const o = this.ix.r.display(this.id);
    if (!o) {
      this.cancel();
      return;
    }
    const k = this.ix.r.camera.k;
    let box;
    let size = 16;
    if (o.kind === 'frame') {
      box = { x: o.x, y: o.y - 30, w: Math.max(160, o.w), h: 26 };
      size = 14;
    } else if (o.kind === 'connector') {
      const b = objBounds(o, this.ix.r.lookup);
      box = { x: b.x + b.w / 2 - 110, y: b.y + b.h / 2 - 24, w: 220, h: 48 };
      size = 13;
    } else {
      box = { x: o.x, y: o.y, w: o.w, h: o.h };
      size = o.kind === 'text' ? 18 : o.kind === 'shape' ? 15 : 16;
    }
    const s = this.ix.r.worldToScreen(box.x, box.y);
    const a = this.area;
    a.style.left = `${s.x}px`;
    a.style.top = `${s.y}px`;
    a.style.width = `${box.w * k}px`;
    a.style.height = `${box.h * k}px`;
    a.style.fontSize = `${size * k}px`;
    a.style.background = o.kind === 'note' || o.kind === 'shape' ? o.color : '#ffffff';
  }

  commit() {
    if (!this.active) return;
    const id = this.id;
    const text = this.area.value;
    this.close();
    const o = this.ix.doc.get(id);
    if (o && (o.text || '') !== text) {
      this.ix.app.commit([{ op: 'update', id, set: { text } }]);
    }
  }

  cancel() {
    this.close();
  }

  close() {
    const wasFocused = document.activeElement === this.area;
    this.id = null;
    this.area.hidden = true;
    this.ix.r.setEditing(null);
    if (wasFocused) this.ix.stage.focus({ preventScroll: true });
  }
}
