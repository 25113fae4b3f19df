// Access control in the browser (UI-AUTH-*): signing in through the printed link, the signed-out
// pages, the owner's Share dialog, view and edit links opened by other people, live revocation
// and role changes, a socket from another origin, and a server without access control.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  startServer,
  removeDir,
  newContext,
  trackProblems,
  waitOnline,
  until,
  signIn,
  boardId,
  preparePage,
  screenshot,
  sleep,
  useServerAndBrowser,
} from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

async function newPage(options = {}) {
  const context = await newContext(browser, options);
  return trackProblems(await context.newPage());
}

/**
 * The page's problems, less the browser's own report of the HTTP statuses a test provokes on
 * purpose (a signed-out `/api/me` is 401, an unknown link 404).
 */
function problemsBut(page, ...statuses) {
  return page.problems.filter(
    (p) => !statuses.some((s) => p.includes(`Failed to load resource: the server responded with a status of ${s}`)),
  );
}

/** Polls `check` (in Node) until it holds, for at most `ms`. */
async function eventually(check, ms = 5000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`condition not met in ${ms} ms: ${check}`);
    await sleep(50);
  }
}

/** The user a page is signed in as (`GET /api/me`). */
function me(page) {
  return page.evaluate(async () => (await (await fetch('/api/me')).json()).user);
}

/** Creates a note through the toolbar at (x, y); resolves its id once the server confirmed it. */
async function createNote(page, x, y, text) {
  await page.click('[data-testid="tool-note"]');
  await page.mouse.click(x, y);
  await page.waitForSelector('[data-testid="text-editor"]:focus');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  return until(page, (t) => window.__wb.objects().find((o) => o.text === t && window.__wb.pending === 0)?.id, text);
}

/** Opens the Share dialog and creates a link; resolves the full URL the dialog shows. */
async function createLink(owner, role, expiry = '') {
  if (!(await owner.locator('[data-testid="share-dialog"]').isVisible())) {
    await owner.click('[data-testid="share-open"]');
    await owner.locator('[data-testid="share-dialog"]').waitFor();
  }
  await owner.selectOption('[data-testid="link-role"]', role);
  await owner.selectOption('[data-testid="link-expiry"]', expiry);
  const before = await owner.locator('[data-testid="link-item"]').count();
  await owner.click('[data-testid="link-create"]');
  await owner.locator(`[data-testid="link-new"][data-role="${role}"]`).waitFor();
  await until(owner, (n) => document.querySelectorAll('[data-testid="link-item"]').length === n + 1, before);
  return owner.locator('[data-testid="link-url"]').inputValue();
}

/** A new browser context opens a share link, types a name and lands on the board. */
async function openShareLink(url, name) {
  const page = await newPage();
  await page.goto(url);
  await page.fill('[data-testid="join-name"]', name);
  await page.click('[data-testid="join"]');
  await page.waitForURL(/\/b\/[0-9a-f]{32}$/);
  await waitOnline(page);
  return page;
}

test('UI-AUTH-1 sign in through the printed link; signed out, / and /b/{id} explain how to sign in; rename yourself; sign out', async () => {
  const link = server.signInLink();
  assert.ok(link, `the server printed no sign-in line:\n${server.stdout()}`);
  assert.match(link, /^http:\/\/[^/]+\/login#\S+$/);

  // Signed out: a calm explanation instead of a broken page, on the list and on a board.
  const page = await newPage();
  await page.goto(`${server.url}/`);
  await page.locator('[data-testid="signed-out"]').waitFor();
  assert.match(await page.locator('[data-testid="signed-out"]').textContent(), /server login-link/);
  const board = await boardId(server, 'private-board');
  await page.goto(`${server.url}/b/${board}`);
  await page.locator('[data-testid="board-blocked"][data-reason="signed-out"]').waitFor();
  assert.equal(await page.evaluate(() => window.__wb.sent().length), 0, 'a signed-out page opens no socket');
  await screenshot(page, 'auth-signed-out');

  // The printed link first says whom it signs in as (AUTH-22): nothing happens without a click,
  // so a link someone else sent cannot sign this browser into their account unnoticed.
  await page.goto(link);
  await page.locator('[data-testid="login-status"][data-state="confirm"]').waitFor();
  assert.match(await page.locator('[data-testid="login-status"]').textContent(), /^Sign in as Owner\?/);
  assert.equal((await page.evaluate(async () => (await fetch('/api/me')).status)), 401, 'not signed in before the click');
  await page.click('[data-testid="login-confirm"]');
  await page.waitForURL((u) => u.pathname === '/');
  await page.locator(`[data-testid="board-item"][data-board-id="${board}"]`).waitFor();
  assert.equal(new URL(page.url()).hash, '', 'the code does not stay in the address bar');
  const owner = await me(page);
  assert.equal(owner.kind, 'owner');
  assert.match(await page.locator('[data-testid="auth-note"]').textContent(), /Signed in as/);

  // The owner opens the board: title in the top bar and the tab, and the Share button.
  await page.click(`[data-board-id="${board}"] a`);
  await waitOnline(page);
  assert.equal(await page.locator('[data-testid="board-name"]').textContent(), 'private-board');
  assert.equal(await page.title(), 'private-board · Board');
  assert.ok(await page.locator('[data-testid="share-open"]').isVisible());

  // Rename the board (top bar) and yourself (the list's account card).
  await page.click('[data-testid="rename"]');
  await page.fill('[data-testid="rename-input"]', 'Quarterly plan');
  await page.keyboard.press('Enter');
  await until(page, () => document.title === 'Quarterly plan · Board');
  await eventually(async () => (await server.api('GET', `/api/boards/${board}`)).body.title === 'Quarterly plan');
  await page.goto(`${server.url}/`);
  await page.locator(`[data-board-id="${board}"]`, { hasText: 'Quarterly plan' }).waitFor();
  await page.fill('[data-testid="user-name-input"]', 'Olga the owner');
  await page.click('[data-testid="save-name"]');
  await page.locator('[data-testid="name-saved"]', { hasText: 'Saved' }).waitFor();
  assert.equal((await me(page)).name, 'Olga the owner');

  // The link works once.
  const again = await newPage();
  await again.goto(link);
  await again.locator('[data-testid="login-status"][data-state="failed"]').waitFor();
  assert.match(await again.locator('[data-testid="login-status"]').textContent(), /already been used|expired/);
  await again.context().close();

  // Sign out: back to the explanation.
  await page.click('[data-testid="sign-out"]');
  await page.locator('[data-testid="signed-out"]').waitFor();
  assert.deepEqual(problemsBut(page, 401), []);
  await page.context().close();
});

test('UI-AUTH-2 the owner shares a view link and an edit link; the viewer sees a read-only board, the editor edits', async () => {
  // The owner of the board: a member who creates it from the list.
  const page = await newPage();
  await signIn(page, server, 'Owen');
  await page.goto(`${server.url}/`);
  await page.fill('[data-testid="board-title-input"]', 'Launch plan');
  await page.click('[data-testid="create-board"]');
  await page.waitForURL(/\/b\/[0-9a-f]{32}$/);
  await waitOnline(page);
  const board = new URL(page.url()).pathname.split('/')[2];
  const noteId = await createNote(page, 500, 380, 'Owner note');

  const viewUrl = await createLink(page, 'viewer');
  const editUrl = await createLink(page, 'editor', '86400');
  assert.match(viewUrl, new RegExp(`^${server.url}/s/[A-Za-z0-9_-]+$`));
  assert.notEqual(viewUrl, editUrl);
  // Copy puts the full URL on the clipboard.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await page.click('[data-testid="link-copy"]');
  await page.locator('[data-testid="link-copy"]', { hasText: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), editUrl);
  const rows = page.locator('[data-testid="link-item"]');
  assert.deepEqual((await rows.evaluateAll((els) => els.map((e) => e.dataset.role))).sort(), ['editor', 'viewer']);
  assert.ok(!(await page.locator('[data-testid="link-list"]').textContent()).includes(viewUrl.split('/').pop()), 'the list never shows a token');
  await screenshot(page, 'auth-share-dialog');
  await page.click('#share-close');

  // A viewer: the board, a "View only" badge, no creation tools or AI, nothing they can change.
  const viewer = await openShareLink(viewUrl, 'Vera');
  assert.equal(new URL(viewer.url()).pathname, `/b/${board}`);
  assert.ok(await viewer.locator('[data-testid="view-only"]').isVisible());
  for (const hidden of ['tool-note', 'tool-shape', 'undo', 'delete', 'command-open', 'chat-toggle', 'rename', 'share-open']) {
    assert.ok(!(await viewer.locator(`[data-testid="${hidden}"]`).isVisible()), `${hidden} is visible to a viewer`);
  }
  assert.equal(await viewer.locator('[data-testid="board-name"]').textContent(), 'Launch plan');
  await viewer.locator(`[data-id="${noteId}"]`).waitFor();
  // Selection is for looking: a click selects, keys and drags change nothing.
  await viewer.locator(`[data-id="${noteId}"]`).click();
  await until(viewer, (id) => window.__wb.app.renderer.selection.has(id), noteId);
  await viewer.keyboard.press('Delete');
  await viewer.keyboard.press('n');
  await viewer.mouse.click(800, 300);
  await viewer.keyboard.press('Control+k');
  await viewer.mouse.dblclick(700, 500);
  const box = await viewer.locator(`[data-id="${noteId}"]`).boundingBox();
  await viewer.mouse.move(box.x + 50, box.y + 50);
  await viewer.mouse.down();
  await viewer.mouse.move(box.x + 250, box.y + 150, { steps: 5 });
  await viewer.mouse.up();
  assert.ok(!(await viewer.locator('[data-testid="command-bar"]').isVisible()));
  const sent = await viewer.evaluate(() => window.__wb.sent().map((m) => m.type));
  assert.deepEqual(sent.filter((t) => !['hello', 'presence', 'ping'].includes(t)), [], 'a viewer sends no edits');
  assert.equal((await viewer.evaluate(() => window.__wb.objects())).length, 1);
  // Cursors still show: the owner sees the viewer's.
  const vera = await me(viewer);
  assert.equal(vera.kind, 'guest');
  await viewer.mouse.move(900, 500);
  await viewer.mouse.move(910, 510, { steps: 3 });
  await page.locator(`[data-testid="remote-cursor"][data-user-id="${vera.id}"]`).waitFor({ state: 'visible' });
  await screenshot(viewer, 'auth-read-only-board');

  // An editor through the edit link: their note reaches the owner and the viewer.
  const editor = await openShareLink(editUrl, 'Eddie');
  assert.ok(!(await editor.locator('[data-testid="view-only"]').isVisible()));
  const eddieNote = await createNote(editor, 700, 300, 'Editor note');
  await page.locator(`[data-id="${eddieNote}"]`).waitFor();
  await viewer.locator(`[data-id="${eddieNote}"]`).waitFor();

  // The owner's dialog lists both guests with their roles.
  await page.click('[data-testid="share-open"]');
  const eddie = await me(editor);
  await page.locator(`[data-testid="member-item"][data-user-id="${eddie.id}"]`).waitFor();
  await page.locator(`[data-testid="member-item"][data-user-id="${vera.id}"]`).waitFor();
  assert.equal(await page.locator(`[data-testid="member-item"][data-user-id="${eddie.id}"] select`).inputValue(), 'editor');
  assert.equal(await page.locator(`[data-testid="member-item"][data-user-id="${vera.id}"] select`).inputValue(), 'viewer');
  await screenshot(page, 'auth-share-dialog-people');

  // A guest's list shows what was shared with them, and no New board form.
  await viewer.goto(`${server.url}/`);
  await viewer.locator(`[data-testid="board-item"][data-board-id="${board}"]`).waitFor();
  assert.ok(!(await viewer.locator('[data-testid="create-form"]').isVisible()));

  for (const p of [page, viewer, editor]) assert.deepEqual(p.problems, [], p.url());
  for (const p of [page, viewer, editor]) await p.context().close();
});

test('UI-AUTH-3 removing a member or revoking the edit link closes their open page with a clear message; a downgrade turns a page read-only in place', async () => {
  const owner = await newPage();
  await signIn(owner, server, 'Rita');
  await owner.goto(`${server.url}/`);
  await owner.fill('[data-testid="board-title-input"]', 'Revocations');
  await owner.click('[data-testid="create-board"]');
  await owner.waitForURL(/\/b\/[0-9a-f]{32}$/);
  await waitOnline(owner);
  const editUrl = await createLink(owner, 'editor');
  const linkId = await owner.locator('[data-testid="link-item"][data-role="editor"]').getAttribute('data-link-id');
  await owner.click('#share-close');

  // A guest through the link, and a signed-in member who joined through it too.
  const guest = await openShareLink(editUrl, 'Gus');
  await createNote(guest, 600, 300, 'Gus was here');
  const member = await newPage();
  const mia = await signIn(member, server, 'Mia');
  await member.goto(editUrl);
  await member.fill('[data-testid="join-name"]', 'Mia');
  await member.click('[data-testid="join"]');
  await member.waitForURL(/\/b\/[0-9a-f]{32}$/);
  await waitOnline(member);
  assert.equal((await me(member)).id, mia.id, 'a signed-in member keeps their own account');

  // The owner lowers Mia to viewer: her open page turns read-only without a reload.
  await owner.click('[data-testid="share-open"]');
  const row = owner.locator(`[data-testid="member-item"][data-user-id="${mia.id}"]`);
  await row.waitFor();
  const t0 = Date.now();
  await row.locator('select').selectOption('viewer');
  await member.locator('[data-testid="view-only"]').waitFor({ state: 'visible', timeout: 5000 });
  const downgradeMs = Date.now() - t0;
  assert.ok(!(await member.locator('[data-testid="tool-note"]').isVisible()));
  assert.equal(await member.evaluate(() => window.__wb.status), 'online', 'the downgraded page stays connected');

  // The owner removes her: her page says access was removed.
  await row.locator('[data-testid="member-remove"]').click();
  await member.locator('[data-testid="board-blocked"][data-reason="revoked"]').waitFor({ timeout: 5000 });
  await row.waitFor({ state: 'detached' });

  // The owner revokes the edit link: the guest's page says access was removed and stops.
  const t1 = Date.now();
  await owner.click(`[data-testid="link-item"][data-link-id="${linkId}"] [data-testid="link-revoke"]`);
  await guest.locator('[data-testid="board-blocked"][data-reason="revoked"]').waitFor({ timeout: 5000 });
  const revokeMs = Date.now() - t1;
  assert.match(await guest.locator('[data-testid="board-blocked"]').textContent(), /Your access to this board was removed/);
  await screenshot(guest, 'auth-access-removed');
  // No reconnect loop: the page stays closed and sends no further hello.
  const hellos = await guest.evaluate(() => window.__wb.sent().filter((m) => m.type === 'hello').length);
  await sleep(1500);
  assert.equal(await guest.evaluate(() => window.__wb.sent().filter((m) => m.type === 'hello').length), hellos);
  assert.equal(await guest.evaluate(() => window.__wb.status), 'closed');
  // The revoked link itself is dead for newcomers.
  const late = await newPage();
  await late.goto(editUrl);
  await late.fill('[data-testid="join-name"]', 'Late');
  await late.click('[data-testid="join"]');
  await late.locator('[data-testid="join-failed"]').waitFor();
  assert.deepEqual(problemsBut(late, 404), []);
  await late.context().close();

  console.log(`downgrade shown after ${downgradeMs} ms, revocation after ${revokeMs} ms`);
  for (const p of [owner, guest, member]) assert.deepEqual(p.problems, [], p.url());
  for (const p of [owner, guest, member]) await p.context().close();
});

test('UI-AUTH-4 a page on another origin cannot open the board\'s socket, even in a signed-in browser', async () => {
  const page = await preparePage(browser, server, 'origin-board', { name: 'Orla' });
  await page.goto(`${server.url}/b/${page.boardId}`);
  await waitOnline(page);

  // A tiny page on another port of the same host: the browser sends the session cookie with
  // its socket (same site), so only the Origin check stands between it and the board.
  const target = `ws://${server.addr}/ws/boards/${page.boardId}`;
  const evil = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>elsewhere</title><script>
      window.events = [];
      const ws = new WebSocket(${JSON.stringify(target)});
      ws.onopen = () => { events.push('open'); ws.send(JSON.stringify({ type: 'hello', user: { id: 'x', name: 'x' } })); };
      ws.onmessage = (e) => events.push('message:' + String(e.data).slice(0, 40));
      ws.onclose = (e) => events.push('close:' + e.code);
    </script>`);
  });
  await new Promise((r) => evil.listen(0, '127.0.0.1', r));
  const evilOrigin = `http://127.0.0.1:${evil.address().port}`;
  try {
    const other = await page.context().newPage();
    await other.goto(`${evilOrigin}/`);
    await other.waitForFunction(() => window.events.some((e) => e.startsWith('close:')), null, { timeout: 10000 });
    const events = await other.evaluate(() => window.events);
    assert.deepEqual(events, ['close:1006'], 'the upgrade was refused: no open, no message');
    await other.close();

    // What the browser saw as a failed handshake is a 403 answer to the upgrade.
    const status = await upgradeStatus(server, `/ws/boards/${page.boardId}`, evilOrigin);
    assert.equal(status, 403);
    assert.equal(await upgradeStatus(server, `/ws/boards/${page.boardId}`, server.url), 101);
  } finally {
    evil.close();
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

/** The HTTP status a WebSocket upgrade with `origin` gets (101 when it is accepted). */
function upgradeStatus(srv, p, origin) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${srv.url}${p}`, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        origin,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
}

test('UI-SRV-5 /login and /s/{token} answer their pages with no referrer; a malformed token is a 404', async () => {
  for (const p of ['/login', `/s/${'A'.repeat(22)}`, '/', `/b/${'a'.repeat(32)}`]) {
    const r = await fetch(`${server.url}${p}`);
    assert.equal(r.status, 200, p);
    assert.equal(r.headers.get('content-type'), 'text/html; charset=utf-8', p);
    assert.ok(r.headers.get('content-security-policy'), p);
    assert.equal(r.headers.get('referrer-policy'), 'no-referrer', p);
  }
  for (const bad of ['has%20space', 'x'.repeat(129), 'dot.dot']) {
    assert.equal((await fetch(`${server.url}/s/${bad}`)).status, 404, bad);
  }
});

test('UI-AUTH-5 an unknown share link, a board without access and an ended session say so clearly', async () => {
  const page = await newPage();
  await page.goto(`${server.url}/s/${'x'.repeat(22)}`);
  await page.fill('[data-testid="join-name"]', 'Nobody');
  await page.click('[data-testid="join"]');
  await page.locator('[data-testid="join-failed"]').waitFor();
  assert.match(await page.locator('[data-testid="join-failed"]').textContent(), /revoked|expired/);
  assert.deepEqual(problemsBut(page, 404), []);

  // Signed in, but nobody shared this board: the page says so and does not retry.
  await signIn(page, server, 'Nils');
  const board = await boardId(server, 'nobody-shared-this');
  await page.goto(`${server.url}/b/${board}`);
  await page.locator('[data-testid="board-blocked"][data-reason="no-access"]').waitFor();
  assert.match(await page.locator('[data-testid="board-blocked"]').textContent(), /not available/);
  assert.equal(await page.evaluate(() => window.__wb.status), 'closed');
  assert.deepEqual(problemsBut(page, 404), []);
  await page.context().close();

  // Signed out elsewhere (another tab): the next connect is refused (4001) and the page asks to
  // sign in again instead of retrying.
  const ezra = await preparePage(browser, server, 'session-ends', { name: 'Ezra' });
  await ezra.goto(`${server.url}/b/${ezra.boardId}`);
  await waitOnline(ezra);
  await ezra.evaluate(() => fetch('/api/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
  await ezra.evaluate(() => window.__wb.app.conn.restart('test: reconnect'));
  await ezra.locator('[data-testid="board-blocked"][data-reason="expired"]').waitFor();
  assert.match(await ezra.locator('[data-testid="board-blocked"]').textContent(), /sign in again/i);
  assert.equal(await ezra.evaluate(() => window.__wb.status), 'closed');
  assert.deepEqual(ezra.problems, []);
  await ezra.context().close();
});

test('UI-AUTH-6 with --auth off everything works without signing in (local identity)', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'board-bt-off-'));
  const open = await startServer({ dataDir, args: ['--auth', 'off'] });
  try {
    const page = await newPage();
    await page.goto(`${open.url}/`);
    await page.locator('[data-testid="auth-note"]', { hasText: 'without sign-in' }).waitFor();
    assert.ok(!(await page.locator('[data-testid="sign-out"]').isVisible()));
    await page.fill('[data-testid="user-name-input"]', 'Local Lou');
    await page.click('[data-testid="save-name"]');
    await page.locator('[data-testid="name-saved"]', { hasText: 'Saved' }).waitFor();
    await page.fill('[data-testid="board-title-input"]', 'Scratch');
    await page.click('[data-testid="create-board"]');
    await page.waitForURL(/\/b\/[A-Za-z0-9_-]+$/);
    await waitOnline(page);
    assert.ok(!(await page.locator('[data-testid="view-only"]').isVisible()));
    await createNote(page, 500, 400, 'no sign-in needed');
    const hello = (await page.evaluate(() => window.__wb.sent())).find((m) => m.type === 'hello');
    assert.equal(hello.user.name, 'Local Lou');
    assert.equal(hello.token, undefined);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  } finally {
    await open.stop();
    removeDir(dataDir);
  }
});
