// The board list: every board the server stores, newest first, and a form to create one.

import { el, ID_RE } from './util.js';
import { identity, rename } from './identity.js';

const $ = (id) => document.getElementById(id);

function ago(ms) {
  if (!ms) return '';
  const s = Math.max(0, (Date.now() - ms) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(ms).toLocaleDateString();
}

async function loadList() {
  const status = $('list-status');
  const list = $('board-list');
  status.textContent = 'Loading…';
  try {
    const res = await fetch('/api/boards', { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const body = await res.json();
    const boards = Array.isArray(body.boards) ? body.boards : [];
    boards.sort((a, b) => (b.updated_at_ms || 0) - (a.updated_at_ms || 0));
    list.textContent = '';
    for (const b of boards) {
      const edits = typeof b.seq === 'number' ? `${b.seq} edit${b.seq === 1 ? '' : 's'}` : '';
      list.append(
        el(
          'li',
          { 'data-board-id': b.id, 'data-testid': 'board-item' },
          el('a', { href: `/b/${encodeURIComponent(b.id)}`, class: 'board-link' }, b.id),
          el('span', { class: 'muted' }, [edits, ago(b.updated_at_ms)].filter(Boolean).join(' · ')),
        ),
      );
    }
    status.textContent = boards.length ? '' : 'No boards yet: create the first one above.';
  } catch (e) {
    status.textContent = `Could not load the boards (${e.message}).`;
  }
}

async function createBoard(e) {
  e.preventDefault();
  const input = $('board-id');
  const err = $('create-error');
  err.textContent = '';
  const name = input.value.trim();
  if (name) {
    if (!ID_RE.test(name)) {
      err.textContent = 'Use 1-64 letters, digits, "-" or "_".';
      input.focus();
      return;
    }
    location.href = `/b/${encodeURIComponent(name)}`;
    return;
  }
  try {
    const res = await fetch('/api/boards', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ objects: [] }),
    });
    const body = await res.json();
    if (!res.ok || !body.board) throw new Error((body.error && body.error.message) || `HTTP ${res.status}`);
    location.href = `/b/${encodeURIComponent(body.board)}`;
  } catch (ex) {
    err.textContent = `Could not create a board: ${ex.message}`;
  }
}

$('create-form').addEventListener('submit', createBoard);
$('refresh').addEventListener('click', loadList);
const nameInput = $('user-name');
nameInput.value = identity().name;
$('name-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const u = rename(nameInput.value);
  nameInput.value = u.name;
  $('name-saved').textContent = 'Saved';
  setTimeout(() => {
    $('name-saved').textContent = '';
  }, 2000);
});
loadList();
