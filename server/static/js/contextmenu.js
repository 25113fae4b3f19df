// The board's context menu (right-click, or a long press on a touch screen): cut, copy, paste,
// duplicate, delete, bring to front, send to back, align / distribute for a multi-selection, and a
// picture's alt text.

import { el } from './util.js';

export class ContextMenu {
  constructor(ix) {
    this.ix = ix;
    this.app = ix.app;
    this.node = el('div', {
      class: 'context-menu stage-ui',
      role: 'menu',
      'aria-label': 'Selection actions',
      'data-testid': 'context-menu',
      hidden: true,
    });
    ix.stage.append(this.node);
    this.node.addEventListener('keydown', (e) => this.onKey(e));
    this.node.addEventListener('pointerdown', (e) => e.stopPropagation());
    document.addEventListener('pointerdown', (e) => {
      if (!this.node.hidden && !this.node.contains(e.target)) this.close();
    });
  }

  get open() {
    return !this.node.hidden;
  }

  /** The actions for the current selection: [label, action id, shortcut] (null: a separator). */
  items() {
    const n = this.ix.cmd.selected().length;
    const ro = this.app.readOnly;
    const out = [];
    if (n && !ro) out.push(['Cut', 'cut', 'Ctrl+X']);
    if (n) out.push(['Copy', 'copy', 'Ctrl+C']);
    if (!ro) out.push(['Paste', 'paste', 'Ctrl+V']);
    if (n === 1 && !ro && this.ix.cmd.selected()[0].kind === 'image') out.push(['Alt text…', 'alt', 'Enter']);
    if (n && !ro) {
      out.push(['Duplicate', 'duplicate', 'Ctrl+D'], ['Delete', 'delete', 'Del'], null);
      out.push(['Bring to front', 'front', ']'], ['Send to back', 'back', '[']);
    }
    const boxes = ro ? 0 : this.ix.cmd.alignable().length;
    if (boxes >= 2) {
      out.push(null);
      for (const a of ['left', 'center', 'right', 'top', 'middle', 'bottom']) {
        out.push([`Align ${a}`, `align-${a}`, '']);
      }
    }
    if (boxes >= 3) out.push(['Distribute horizontally', 'dist-h', ''], ['Distribute vertically', 'dist-v', '']);
    if (!n) out.push(['Select all', 'select-all', 'Ctrl+A']);
    return out;
  }

  /** Opens at a point in page coordinates; `at` is the board point (where a paste lands). */
  openAt(clientX, clientY, at) {
    this.at = at;
    this.node.textContent = '';
    for (const item of this.items()) {
      if (!item) {
        this.node.append(el('div', { class: 'menu-sep', role: 'separator' }));
        continue;
      }
      const [label, action, keys] = item;
      this.node.append(
        el(
          'button',
          { type: 'button', role: 'menuitem', 'data-action': action, onclick: () => this.run(action) },
          el('span', {}, label),
          keys ? el('kbd', {}, keys) : null,
        ),
      );
    }
    this.node.hidden = false;
    const r = this.ix.stage.getBoundingClientRect();
    const w = this.node.offsetWidth;
    const h = this.node.offsetHeight;
    this.node.style.left = `${Math.max(4, Math.min(clientX - r.left, r.width - w - 4))}px`;
    this.node.style.top = `${Math.max(4, Math.min(clientY - r.top, r.height - h - 4))}px`;
    this.node.querySelector('button')?.focus({ preventScroll: true });
  }

  close() {
    if (this.node.hidden) return;
    const inside = this.node.contains(document.activeElement);
    this.node.hidden = true;
    if (inside) this.ix.stage.focus({ preventScroll: true });
  }

  onKey(e) {
    e.stopPropagation();
    const buttons = [...this.node.querySelectorAll('button')];
    const i = buttons.indexOf(document.activeElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      this.close();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = buttons.length;
      buttons[(i + (e.key === 'ArrowDown' ? 1 : n - 1)) % n]?.focus();
    }
  }

  run(action) {
    const { cmd, clip } = this.ix;
    this.close();
    const simple = {
      duplicate: () => cmd.duplicateSelection(),
      delete: () => cmd.deleteSelection(),
      front: () => cmd.zOrder(true),
      back: () => cmd.zOrder(false),
      'dist-h': () => cmd.distribute('h'),
      'dist-v': () => cmd.distribute('v'),
      'select-all': () => this.app.setSelection([...this.ix.doc.view.keys()]),
      cut: () => clip.copyViaApi(true),
      copy: () => clip.copyViaApi(false),
      paste: () => clip.pasteViaApi(this.at),
      alt: () => this.ix.alt.start(cmd.selected()[0].id),
    };
    if (simple[action]) simple[action]();
    else if (action.startsWith('align-')) cmd.align(action.slice(6));
  }
}
