// The board list: the boards this person may open (titles, newest first, a search box, delete
// for owners), a form to create one, and their account (display name, sign out). Signed out, it
// explains how to sign in.

import { el } from './util.js';
import { rename } from './identity.js';
import { api, session, signOut, signedOutPanel, ago } from './auth.js';
import { installListImport, previewUrl } from './export.js';

const $ = (id) => document.getElementById(id);
const ROLE_LABEL = { viewer: 'can view', editor: 'can edit', owner: 'owner' };

let current = null;

/** Unix seconds or milliseconds of a board summary's field (servers before titles sent `_ms`). */
function time(b, field) {
  return b[field] || b[`${field}_ms`] || 0;
}

/** The boards of the last load, newest first. */
let boards = [];

async function loadList() {
  const status = $('list-status');
  status.textContent = 'Loading…';
  try {
    const body = await api('GET', '/api/boards');
    boards = Array.isArray(body && body.boards) ? body.boards : [];
    // Newest first (the server sends them so; sorted again in case an older server did not).
    boards.sort((a, b) => toMs(time(b, 'created_at')) - toMs(time(a, 'created_at')));
    renderList();
  } catch (e) {
    status.textContent = `Could not load the boards (${e.message}).`;
  }
}

/** The loaded boards whose title or id contains the search text. */
function renderList() {
  const list = $('board-list');
  const status = $('list-status');
  const q = $('board-search').value.trim().toLowerCase();
  const shown = boards.filter((b) => !q || (b.title || '').toLowerCase().includes(q) || b.id.toLowerCase().includes(q));
  list.textContent = '';
  for (const b of shown) list.append(card(b));
  if (!boards.length) status.textContent = 'No boards yet: create the first one above.';
  else if (!shown.length) status.textContent = `No board matches “${$('board-search').value.trim()}”.`;
  else status.textContent = '';
}

function card(b) {
  const edits = typeof b.seq === 'number' ? `${b.seq} edit${b.seq === 1 ? '' : 's'}` : '';
  const title = (b.title || '').trim();
  const href = `/b/${encodeURIComponent(b.id)}`;
  return el(
    'li',
    { 'data-board-id': b.id, 'data-testid': 'board-item' },
    // A small drawing of the board (EXPORT-9: `export.svg?preview=1`).
    el(
      'a',
      { href, class: 'board-thumb', 'data-testid': 'board-thumb', 'aria-hidden': 'true', tabindex: '-1' },
      el('img', { src: previewUrl(b.id), alt: '', loading: 'lazy', 'data-testid': 'board-preview' }),
    ),
    el(
      'div',
      { class: 'board-main' },
      el('a', { href, class: 'board-link', 'data-testid': 'board-title' }, title || 'Untitled board'),
      el('span', { class: 'board-id' }, b.id),
    ),
    el(
      'div',
      { class: 'board-side' },
      el(
        'span',
        { class: 'muted board-meta' },
        [b.role && ROLE_LABEL[b.role], edits, ago(toMs(time(b, 'updated_at')))].filter(Boolean).join(' · '),
      ),
      b.role === 'owner'
        ? el(
            'button',
            {
              type: 'button',
              class: 'btn danger-text',
              'data-testid': 'board-delete',
              'aria-label': `Delete ${title || 'Untitled board'}`,
              onclick: () => confirmDelete(b),
            },
            'Delete',
          )
        : null,
    ),
  );
}

/** Asks, then deletes the board (owners only: the server checks it too). */
function confirmDelete(b) {
  const dialog = $('delete-dialog');
  $('delete-name').textContent = (b.title || '').trim() || 'Untitled board';
  $('delete-error').textContent = '';
  dialog.onclose = async () => {
    if (dialog.returnValue !== 'delete') return;
    try {
      await api('DELETE', `/api/boards/${encodeURIComponent(b.id)}`, {});
      boards = boards.filter((x) => x.id !== b.id);
      renderList();
    } catch (e) {
      $('delete-error').textContent = `Not deleted: ${e.message}`;
      dialog.showModal();
    }
  };
  dialog.returnValue = '';
  dialog.showModal();
}

function toMs(t) {
  return t && t < 1e12 ? t * 1000 : t || 0;
}

async function createBoard(e) {
  e.preventDefault();
  const input = $('board-title');
  const err = $('create-error');
  const button = $('create-board');
  err.textContent = '';
  const title = input.value.trim();
  if (title.length > 100) {
    err.textContent = 'A title has at most 100 characters.';
    input.focus();
    return;
  }
  button.disabled = true;
  try {
    const body = { objects: [] };
    if (title) body.title = title;
    const made = await api('POST', '/api/boards', body);
    if (!made || !made.board) throw new Error('no board id in the answer');
    location.href = `/b/${encodeURIComponent(made.board)}`;
  } catch (ex) {
    err.textContent = `Could not create a board: ${ex.message}`;
    button.disabled = false;
  }
}

async function saveName(e) {
  e.preventDefault();
  const input = $('user-name');
  const saved = $('name-saved');
  const name = input.value.trim();
  if (!name) return;
  try {
    if (current.auth === 'off') {
      input.value = rename(name).name;
    } else {
      const body = await api('PATCH', '/api/me', { name });
      input.value = (body && body.user && body.user.name) || name;
    }
    saved.textContent = 'Saved';
    if (current.auth === 'on') $('auth-note').textContent = note({ ...current.user, name: input.value });
  } catch (ex) {
    saved.textContent = `Not saved: ${ex.message}`;
  }
  setTimeout(() => {
    saved.textContent = '';
  }, 2500);
}

function note(user) {
  const guest = user.kind === 'guest' ? ' (a guest: you see the boards shared with you)' : '';
  return `Signed in as ${user.name}${guest}.`;
}

async function start() {
  try {
    current = await session();
  } catch (e) {
    $('page-status').textContent = `The server cannot be reached (${e.message}). Reload to try again.`;
    return;
  }
  $('page-status').hidden = true;
  if (!current.user) {
    $('signed-out-slot').append(signedOutPanel());
    return;
  }
  $('app').hidden = false;
  $('user-name').value = current.user.name || '';
  if (current.auth === 'off') {
    $('auth-note').textContent = 'This server runs without sign-in: your name is kept in this browser.';
  } else {
    $('auth-note').textContent = note(current.user);
    // Guests came through a share link: they open what was shared with them, nothing more.
    $('new-board').hidden = current.user.kind === 'guest';
    $('sign-out').hidden = false;
    $('sign-out').addEventListener('click', () => signOut());
  }
  $('create-form').addEventListener('submit', createBoard);
  $('name-form').addEventListener('submit', saveName);
  $('refresh').addEventListener('click', loadList);
  installListImport(() => loadList());
  $('board-search').addEventListener('input', renderList);
  loadList();
}

start();
