// The page a sign-in link opens: `/login#CODE`. The code stays in the fragment (never sent in a
// URL or a Referer); the page posts it to `/api/login`, which sets the session cookie, then goes
// to the board list.

import { api } from './auth.js';

const status = document.getElementById('login-status');
const help = document.getElementById('login-help');

function fail(text) {
  status.textContent = text;
  status.dataset.state = 'failed';
  help.hidden = false;
}

async function start() {
  const code = decodeURIComponent(location.hash.slice(1)).trim();
  // The code is used once: keep it out of the history either way.
  history.replaceState(null, '', '/login');
  if (!code) {
    fail('This page needs the code from a sign-in link (the part after #).');
    return;
  }
  try {
    await api('POST', '/api/login', { code });
  } catch (e) {
    if (e.status === 401) fail('This sign-in link has already been used or has expired.');
    else if (e.status === 429) fail('Too many attempts from here: wait a minute and open the link again.');
    else fail(`Could not sign in: ${e.message}.`);
    return;
  }
  status.dataset.state = 'done';
  status.textContent = 'Signed in. Opening your boards…';
  location.replace('/');
}

start();
