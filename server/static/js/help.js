// The shortcut and gesture help: "?" or the help button opens it; Escape, the close button or a
// click outside closes it.

import { el, IS_MAC } from './util.js';

const MOD = IS_MAC ? 'Cmd' : 'Ctrl';

const SECTIONS = [
  [
    'Gestures',
    [
      ['Drag on empty canvas', 'Select an area (Shift adds to the selection)'],
      ['Drag a picture\'s handle', 'Resize keeping its proportions (Shift: freely)'],
      ['Space + drag, middle-button drag, Hand tool (H)', 'Pan'],
      ['Wheel / two-finger trackpad scroll', 'Pan'],
      [`${MOD} + wheel, trackpad pinch`, 'Zoom around the pointer'],
      ['Drag with a creation tool', 'Create at the size you drag (a click: default size)'],
      ['Right-click', 'Context menu'],
      ['Double-click', 'Edit text (on empty canvas: a new note)'],
    ],
  ],
  [
    'Touch',
    [
      ['Tap', 'Select'],
      ['Drag', 'Move what you touch; on empty canvas select an area'],
      ['Two fingers', 'Pan and pinch to zoom'],
      ['Long press', 'Context menu'],
    ],
  ],
  [
    'Keys',
    [
      ['V  H  N  S  T  F  X  C', 'Select, hand, note, shape, text, frame, connector, comment'],
      ['I', 'Add pictures from files (or drop them, or paste one)'],
      ['Esc', 'Back to select / close / clear the selection'],
      [`${MOD}+C  ${MOD}+X  ${MOD}+V`, 'Copy, cut, paste (at the pointer)'],
      [`${MOD}+D`, 'Duplicate beside the original'],
      ['Delete / Backspace', 'Delete'],
      [']  [', 'Bring to front, send to back'],
      [`${MOD}+Z  ${MOD}+Shift+Z`, 'Undo, redo'],
      [`${MOD}+A`, 'Select all'],
      ['Enter', 'Edit the selected object\'s text (Enter again or Tab: done, Esc: cancel)'],
      ['Arrows (Shift: 50 px)', 'Nudge'],
      ['+  −  Shift+1', 'Zoom in, out, to fit'],
      [`${MOD}+K`, 'Ask AI'],
      ['?', 'This help'],
    ],
  ],
];

export class Help {
  constructor(ix) {
    this.ix = ix;
    const close = el('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close help', onclick: () => this.close() }, '✕');
    const body = el('div', { class: 'help-body' });
    for (const [title, rows] of SECTIONS) {
      const table = el('table', {}, ...rows.map(([k, v]) => el('tr', {}, el('th', { scope: 'row' }, k), el('td', {}, v))));
      body.append(el('section', {}, el('h3', {}, title), table));
    }
    this.node = el(
      'div',
      { class: 'help-overlay', 'data-testid': 'help', 'data-keys': 'own', hidden: true },
      el(
        'div',
        { class: 'help-card', role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Shortcuts and gestures' },
        el('header', { class: 'help-head' }, el('h2', {}, 'Shortcuts and gestures'), close),
        body,
      ),
    );
    document.body.append(this.node);
    this.node.addEventListener('pointerdown', (e) => {
      if (e.target === this.node) this.close();
    });
    this.node.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' || e.key === '?') {
        e.preventDefault();
        this.close();
      }
    });
    document.getElementById('btn-help')?.addEventListener('click', () => this.toggle());
  }

  get open() {
    return !this.node.hidden;
  }

  toggle() {
    if (this.open) this.close();
    else {
      this.node.hidden = false;
      this.node.querySelector('button').focus();
    }
  }

  close() {
    if (this.node.hidden) return;
    this.node.hidden = true;
    this.ix.stage.focus({ preventScroll: true });
  }
}
