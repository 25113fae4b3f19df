// The page a share link opens: `/s/{token}`. It asks for a display name, posts it to
// `/api/links/{token}/session` (a guest identity and a session cookie; someone already signed
// in keeps their own account and gains the link's role), then opens the board.

import { api } from './auth.js';

const $ = (id) => document.getElementById(id);
const token = decodeURIComponent(location.pathname.split('/')[2] || '');

function failed() {
  $('join-form').hidden = true;
  $('join-failed').hidden = false;
}

async function join(e) {
  e.preventDefault();
  const name = $('join-name').value.trim();
  $('join-error').textContent = '';
  if (!name) {
    $('join-error').textContent = 'Type the name others will see.';
    $('join-name').focus();
    return;
  }
  $('join').disabled = true;
  try {
    const body = await api('POST', `/api/links/${encodeURIComponent(token)}/session`, { name: name.slice(0, 64) });
    if (!body || !body.board) throw new Error('no board in the answer');
    location.replace(`/b/${encodeURIComponent(body.board)}`);
  } catch (ex) {
    $('join').disabled = false;
    if (ex.status === 404) failed();
    else if (ex.status === 429) $('join-error').textContent = 'Too many attempts from here: wait a minute and try again.';
    else $('join-error').textContent = `Could not open the board: ${ex.message}.`;
  }
}

function start() {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(token)) {
    failed();
    return;
  }
  $('join-form').addEventListener('submit', join);
  $('join-note').textContent = 'Signed in already? The board joins your own account instead.';
  $('join-name').focus();
}

start();
