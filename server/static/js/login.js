// The page a sign-in link opens: `/login#CODE`. The code stays in the fragment (never sent in a
// URL or a Referer). The page first asks who the link signs in as and says so ("Sign in as …?",
// AUTH-22): a link someone else sent cannot sign this browser into their account unnoticed.
// Confirmed, it posts the code to `/api/login`, which sets the session cookie, then goes to the
// board list.

import { api } from './auth.js';

const status = document.getElementById('login-status');
const help = document.getElementById('login-help');
const confirmRow = document.getElementById('login-confirm');
const yes = document.getElementById('login-yes');

function fail(text) {
  status.textContent = text;
  status.dataset.state = 'failed';
  confirmRow.hidden = true;
  help.hidden = false;
}

function failed(e) {
  if (e.status === 401) fail('This sign-in link has already been used or has expired.');
  else if (e.status === 429) fail('Too many attempts from here: wait a minute and open the link again.');
  else fail(`Could not sign in: ${e.message}.`);
}

async function signIn(code) {
  yes.disabled = true;
  status.dataset.state = 'working';
  status.textContent = 'Signing you in…';
  try {
    await api('POST', '/api/login', { code });
  } catch (e) {
    failed(e);
    return;
  }
  status.dataset.state = 'done';
  status.textContent = 'Signed in. Opening your boards…';
  location.replace('/');
}

async function start() {
  const code = decodeURIComponent(location.hash.slice(1)).trim();
  // The code is used once: keep it out of the history either way.
  history.replaceState(null, '', '/login');
  if (!code) {
    fail('This page needs the code from a sign-in link (the part after #).');
    return;
  }
  let user;
  let now;
  try {
    ({ user, signed_in_as: now } = await api('POST', '/api/login/preview', { code }));
  } catch (e) {
    failed(e);
    return;
  }
  const switching = now && now.id !== user.id ? ` (you are signed in as ${now.name} now)` : '';
  status.textContent = `Sign in as ${user.name}?${switching}`;
  status.dataset.state = 'confirm';
  status.dataset.user = user.id;
  confirmRow.hidden = false;
  yes.addEventListener('click', () => signIn(code), { once: true });
  yes.focus();
}

start();
