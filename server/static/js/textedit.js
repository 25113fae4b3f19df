// The in-place text editor: a textarea over the object being edited, in the object's outline
// (an ellipse edits in an ellipse). It grows with the text; Enter or Tab commits the text and the
// grown size as one commit (a new note: its create with its text, one commit). While it is open,
// presence says which object this person edits; a newer text committed by someone else shows in
// a notice above the editor before this one replaces it.

import { el } from './util.js';
import { bounds as objBounds } from './geometry.js';
import { fitPatch } from './fit.js';

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
    this.notice = el('div', { class: 'edit-notice stage-ui', 'data-testid': 'edit-notice', role: 'status', hidden: true });
    ix.stage.append(this.area, this.notice);
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
    this.area.addEventListener('input', () => this.reposition());
    this.area.addEventListener('blur', (e) => {
      if (!this.notice.contains(e.relatedTarget)) this.commit();
    });
    ix.doc.onChange((ids) => {
      if (!this.active || !ids.has(this.id)) return;
      this.reposition();
      this.checkNewer();
    });
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
    this.base = o.text || '';
    this.area.value = this.base;
    this.area.dataset.kind = o.kind;
    this.area.dataset.geo = o.kind === 'shape' ? o.geo || 'rectangle' : '';
    this.area.hidden = false;
    this.notice.hidden = true;
    this.ix.r.setEditing(id);
    this.reposition();
    this.area.focus();
    this.area.select();
    this.ix.app.send({ type: 'presence', editing: id });
  }

  reposition() {
    if (!this.active) return;
    let o = this.ix.r.display(this.id);
    if (!o) {
      this.cancel();
      return;
    }
    o = { ...o, ...fitPatch(o, this.area.value) };
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
    this.notice.style.left = `${s.x}px`;
    this.notice.style.top = `${s.y}px`;
    this.notice.style.maxWidth = `${Math.max(220, box.w * k)}px`;
  }

  /** Someone else's commit changed the text being edited: show theirs until this one is done. */
  checkNewer() {
    const o = this.ix.doc.get(this.id);
    const theirs = o ? o.text || '' : '';
    if (!o || theirs === this.base || theirs === this.area.value) {
      this.notice.hidden = true;
      return;
    }
    const who = this.ix.app.presence?.lastEditorOf(this.id) || 'Someone';
    const use = el('button', { type: 'button', class: 'link-button', 'data-testid': 'use-theirs' }, 'Use theirs');
    use.addEventListener('click', () => {
      this.area.value = theirs;
      this.base = theirs;
      this.notice.hidden = true;
      this.area.focus();
    });
    this.notice.textContent = '';
    this.notice.append(
      el('span', {}, `${who} changed this text to: `),
      el('q', { 'data-testid': 'their-text' }, theirs),
      el('span', { class: 'muted' }, ' Yours replaces it when you finish. '),
      use,
    );
    this.notice.hidden = false;
  }

  commit() {
    if (!this.active) return;
    const id = this.id;
    const text = this.area.value;
    const { doc, app } = this.ix;
    this.close();
    const o = doc.get(id);
    if (!o) return;
    if (doc.dropDraft(id)) {
      // A new object and its first text: one create, one commit, one undo.
      if (o.kind === 'text' && !text.trim()) return;
      const object = { ...o, text, ...fitPatch(o, text) };
      delete object.z;
      if (!object.parent) delete object.parent;
      app.commit([{ op: 'create', object }]);
      app.setSelection([id]);
      return;
    }
    if ((o.text || '') !== text) {
      app.commit([{ op: 'update', id, set: { text, ...fitPatch(o, text) } }]);
    }
  }

  cancel() {
    // Escape on a new note keeps the note (empty); a new empty text goes away.
    if (this.active && this.ix.doc.isDraft(this.id)) {
      this.area.value = '';
      this.commit();
      return;
    }
    this.close();
  }

  close() {
    const wasFocused = document.activeElement === this.area;
    const was = this.id;
    this.id = null;
    this.area.hidden = true;
    this.notice.hidden = true;
    this.ix.r.setEditing(null);
    if (was) this.ix.app.send({ type: 'presence', editing: null });
    if (wasFocused) this.ix.stage.focus({ preventScroll: true });
  }
}
