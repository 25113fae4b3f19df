// A small, safe markdown renderer for plans: headings, paragraphs, bullet and numbered lists,
// checklists, `code`, **bold** and *emphasis*. It builds DOM nodes with text content only:
// nothing in the source becomes HTML (no raw HTML, no links, no images).

import { el } from './util.js';

const HEADING = /^(#{1,4})\s+(.*)$/;
const CHECK = /^\s*[-*]\s+\[( |x|X)\]\s+(.*)$/;
const BULLET = /^\s*[-*]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;

/** Renders `source` into a new `<div class="md">`. */
export function renderMarkdown(source) {
  const root = el('div', { class: 'md' });
  let list = null;
  let listKind = '';
  let para = null;
  const endBlocks = () => {
    list = null;
    listKind = '';
    para = null;
  };
  const item = (kind, ...children) => {
    if (listKind !== kind) {
      list = el(kind === 'ol' ? 'ol' : 'ul', { class: kind === 'check' ? 'md-checklist' : '' });
      root.append(list);
      listKind = kind;
    }
    para = null;
    list.append(el('li', {}, ...children));
  };
  for (const line of String(source).split(/\r?\n/)) {
    let m;
    if (!line.trim()) {
      endBlocks();
    } else if ((m = HEADING.exec(line))) {
      endBlocks();
      root.append(el(`h${Math.min(m[1].length + 2, 6)}`, {}, ...inline(m[2])));
    } else if ((m = CHECK.exec(line))) {
      const done = m[1] !== ' ';
      const box = el('input', { type: 'checkbox', disabled: true, 'aria-label': done ? 'done' : 'to do' });
      box.checked = done;
      item('check', box, ' ', ...inline(m[2]));
    } else if ((m = BULLET.exec(line))) {
      item('ul', ...inline(m[1]));
    } else if ((m = NUMBERED.exec(line))) {
      item('ol', ...inline(m[1]));
    } else if (para) {
      para.append(' ', ...inline(line.trim()));
    } else {
      endBlocks();
      para = el('p', {}, ...inline(line.trim()));
      root.append(para);
    }
  }
  return root;
}

/** Inline spans: `code`, **bold**, *emphasis*; everything else is text. */
function inline(text) {
  const out = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*/g;
  let last = 0;
  let m;
  while ((m = re.exec(text))) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(el('code', {}, m[1]));
    else if (m[2] !== undefined) out.push(el('strong', {}, m[2]));
    else out.push(el('em', {}, m[3]));
    last = re.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
