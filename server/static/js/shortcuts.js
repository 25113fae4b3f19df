// Keyboard shortcuts on the board (docs/CLIENT.md): Escape, undo/redo, duplicate, select all,
// zoom, delete, edit, nudge, pan with space, tool keys, I for pictures, z-order, "?" for help.
// Copy, cut and paste are the page's clipboard events (clipboard.js). Keys typed into a field or
// a panel that handles its own keys are left alone.

import { modKey, typingInto } from './util.js';
import { pickPictures } from './pictures.js';

export function onKeyDown(ix, e) {
  if (e.defaultPrevented) return;
  const typing = typingInto(e.target);
  const mod = modKey(e);
  const key = e.key;
  if (key === 'Escape') {
    if (typing) return;
    if (ix.menu.open) {
      ix.menu.close();
    } else if (ix.connectFrom || ix.gesture) {
      ix.cancelGesture();
    } else if (ix.tool !== 'select') {
      ix.setTool('select');
    } else if (ix.r.selection.size) {
      ix.app.setSelection([]);
    }
    return;
  }
  if (typing) return;
  // Shortcuts apply when focus is on the board or on nothing in particular.
  const inPanel = e.target instanceof Element && e.target.closest('[data-keys="own"]');
  if (inPanel) return;
  if (mod && key.toLowerCase() === 'z') {
    e.preventDefault();
    if (e.shiftKey) ix.app.redo();
    else ix.app.undo();
    return;
  }
  if (mod && key.toLowerCase() === 'y') {
    e.preventDefault();
    ix.app.redo();
    return;
  }
  if (mod && key.toLowerCase() === 'd') {
    e.preventDefault();
    ix.duplicateSelection();
    return;
  }
  if (mod && key.toLowerCase() === 'a') {
    e.preventDefault();
    ix.app.setSelection([...ix.doc.view.keys()]);
    return;
  }
  if (mod && (key === '=' || key === '+')) {
    e.preventDefault();
    ix.r.zoomCenter(1.25);
    ix.app.viewportChanged();
    return;
  }
  if (mod && key === '-') {
    e.preventDefault();
    ix.r.zoomCenter(0.8);
    ix.app.viewportChanged();
    return;
  }
  if (mod && key === '0') {
    e.preventDefault();
    ix.r.zoomCenter(1 / ix.r.camera.k);
    ix.app.viewportChanged();
    return;
  }
  if (mod || e.altKey) return;
  if (key === '?') {
    e.preventDefault();
    ix.help.toggle();
    return;
  }
  if ((key === ']' || key === '[') && ix.r.selection.size) {
    e.preventDefault();
    ix.cmd.zOrder(key === ']');
    return;
  }
  if (key === 'Delete' || key === 'Backspace') {
    if (ix.r.selection.size) {
      e.preventDefault();
      ix.deleteSelection();
    }
    return;
  }
  if (key === 'Enter' && ix.r.selection.size === 1) {
    e.preventDefault();
    ix.edit([...ix.r.selection][0]);
    return;
  }
  if (key.startsWith('Arrow') && ix.r.selection.size) {
    e.preventDefault();
    const step = e.shiftKey ? 50 : 10;
    const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[key];
    ix.nudge(d[0], d[1]);
    return;
  }
  if (e.code === 'Space' && !e.repeat) {
    ix.spaceDown = true;
    if (e.target === ix.stage) e.preventDefault();
    return;
  }
  if (key.toLowerCase() === 'i' && !e.shiftKey) {
    e.preventDefault();
    pickPictures(ix.app);
    return;
  }
  const toolKeys = { v: 'select', h: 'hand', n: 'note', s: 'shape', t: 'text', f: 'frame', x: 'connector', c: 'comment' };
  const t = toolKeys[key.toLowerCase()];
  if (t && !e.shiftKey) {
    ix.setTool(t);
    return;
  }
  if (key === '+' || key === '=') {
    ix.r.zoomCenter(1.25);
    ix.app.viewportChanged();
  } else if (key === '-') {
    ix.r.zoomCenter(0.8);
    ix.app.viewportChanged();
  } else if (key === '!' || (e.shiftKey && key === '1')) {
    ix.app.zoomToFit();
  }
}
