// The pages themselves: the board list, creating a board, no console errors, keyboard reach and
// layout at 1280x800 (UI-PAGE-*, UI-A11Y-*).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openBoard,
  preparePage,
  signIn,
  joinBoard,
  waitOnline,
  trackProblems,
  screenshot,
  newContext,
  useServerAndBrowser,
} from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

async function newPage() {
  const context = await newContext(browser);
  return trackProblems(await context.newPage());
}

test('UI-PAGE-1 the board list shows the boards you can open (titles, newest first) and creates titled boards, with no console errors', async () => {
  const page = await newPage();
  await signIn(page, server, 'Paula');
  await page.locator('[data-testid="list-status"]', { hasText: 'No boards yet' }).waitFor();

  // A titled board: the page asks the API for a new (unguessable) id and opens it.
  await page.fill('[data-testid="board-title-input"]', 'Team retro');
  await page.click('[data-testid="create-board"]');
  await page.waitForURL(/\/b\/[0-9a-f]{32}$/);
  await waitOnline(page);
  assert.equal(await page.locator('[data-testid="board-name"]').textContent(), 'Team retro');
  assert.equal(await page.title(), 'Team retro · Board');
  const retro = new URL(page.url()).pathname.split('/')[2];

  // No title: still a board of its own.
  await page.goto(`${server.url}/`);
  await page.click('[data-testid="create-board"]');
  await page.waitForURL((u) => /^\/b\/[0-9a-f]{32}$/.test(u.pathname) && !u.pathname.endsWith(retro));
  await waitOnline(page);

  // A board shared with her (view link) shows too; a board nobody shared does not.
  const shared = (await server.api('POST', '/api/boards', { title: 'Roadmap', objects: [{ kind: 'note', text: 'hi' }] })).body.board;
  const hidden = (await server.api('POST', '/api/boards', { title: 'Secret', objects: [] })).body.board;
  await joinBoard(page, server, shared, 'viewer', 'Paula');

  await page.goto(`${server.url}/`);
  const items = page.locator('[data-testid="board-item"]');
  await page.locator(`[data-testid="board-item"][data-board-id="${shared}"]`).waitFor();
  const ids = await items.evaluateAll((els) => els.map((e) => e.dataset.boardId));
  assert.equal(ids.length, 3, ids.join(', '));
  assert.ok(!ids.includes(hidden));
  // Newest first: the shared board was made last.
  assert.equal(ids[0], shared);
  assert.match(await page.locator(`[data-board-id="${retro}"]`).textContent(), /Team retro/);
  assert.match(await page.locator(`[data-board-id="${retro}"]`).textContent(), new RegExp(retro));
  assert.match(await page.locator(`[data-board-id="${shared}"]`).textContent(), /Roadmap.*can view/s);
  await screenshot(page, 'index');

  // Links on the list open the board.
  await page.click(`[data-board-id="${shared}"] a`);
  await waitOnline(page);
  await page.locator('[data-kind="note"]').waitFor();
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-PAGE-3 the board list: newest first, listed as soon as created, search by title or id, delete (owners only) after a confirmation', async () => {
  const page = await newPage();
  await signIn(page, server, 'Lister');
  await page.locator('[data-testid="list-status"]', { hasText: 'No boards yet' }).waitFor();
  // Three boards made from the page's own session, never edited.
  const made = [];
  for (const title of ['Alpha plan', 'Beta retro', 'Gamma']) {
    made.push(
      await page.evaluate(async (title) => {
        const r = await fetch('/api/boards', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title, objects: [] }) });
        return (await r.json()).board;
      }, title),
    );
    await new Promise((r) => setTimeout(r, 1100)); // creation times in whole seconds
  }
  const shared = (await server.api('POST', '/api/boards', { title: 'Shared deck', objects: [] })).body.board;
  await joinBoard(page, server, shared, 'editor', 'Lister');
  await page.click('#refresh');
  await page.locator(`[data-board-id="${shared}"]`).waitFor();
  const ids = await page.locator('[data-testid="board-item"]').evaluateAll((els) => els.map((e) => e.dataset.boardId));
  assert.deepEqual(ids, [shared, made[2], made[1], made[0]], 'newest first, each listed before any edit');
  // A preview in every card (EXPORT-9).
  assert.equal(await page.locator('[data-testid="board-thumb"]').count(), 4);
  assert.equal(await page.locator('[data-testid="board-thumb"] img').count(), 4);

  // Search filters by title, then by id.
  await page.fill('[data-testid="board-search"]', 'beta');
  assert.deepEqual(await page.locator('[data-testid="board-item"]').evaluateAll((els) => els.map((e) => e.dataset.boardId)), [made[1]]);
  await page.fill('[data-testid="board-search"]', made[2].slice(4, 14));
  assert.deepEqual(await page.locator('[data-testid="board-item"]').evaluateAll((els) => els.map((e) => e.dataset.boardId)), [made[2]]);
  await page.fill('[data-testid="board-search"]', 'nothing like this');
  await page.locator('[data-testid="list-status"]', { hasText: 'No board matches' }).waitFor();
  await page.fill('[data-testid="board-search"]', '');

  // Delete: owners only; Cancel keeps the board, Delete removes it for good.
  assert.equal(await page.locator(`[data-board-id="${shared}"] [data-testid="board-delete"]`).count(), 0);
  await page.click(`[data-board-id="${made[0]}"] [data-testid="board-delete"]`);
  const dialog = page.locator('[data-testid="delete-dialog"]');
  await dialog.waitFor();
  assert.match(await dialog.textContent(), /Alpha plan/);
  await page.click('[data-testid="delete-cancel"]');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await page.locator(`[data-board-id="${made[0]}"]`).count(), 1);
  await page.click(`[data-board-id="${made[0]}"] [data-testid="board-delete"]`);
  await page.click('[data-testid="delete-confirm"]');
  await page.locator(`[data-board-id="${made[0]}"]`).waitFor({ state: 'detached' });
  assert.equal((await server.api('GET', `/api/boards/${made[0]}`)).status, 404);
  await page.click('#refresh');
  await page.locator(`[data-board-id="${made[1]}"]`).waitFor();
  assert.equal(await page.locator(`[data-board-id="${made[0]}"]`).count(), 0);
  await screenshot(page, 'index-search');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-PAGE-2 a board id outside [A-Za-z0-9_-]{1,64} is a 404', async () => {
  for (const bad of ['has%20space', 'a'.repeat(65), 'dot.dot']) {
    const r = await fetch(`${server.url}/b/${bad}`);
    assert.equal(r.status, 404, bad);
  }
});

test('UI-A11Y-1 every control has an accessible name, is reachable by keyboard, and fits 1280x800', async () => {
  const page = await openBoard(browser, server, 'a11y', { user: 'kim', name: 'Kim' });
  const unnamed = await page.evaluate(() =>
    [...document.querySelectorAll('button, input, select, textarea, [role="switch"], [role="radio"]')]
      .filter((e) => !e.closest('[hidden]'))
      .filter((e) => {
        const label = e.getAttribute('aria-label') || e.textContent.trim() || (e.id && document.querySelector(`label[for="${e.id}"]`));
        return !label;
      })
      .map((e) => e.outerHTML.slice(0, 80)),
  );
  assert.deepEqual(unnamed, []);

  // Tab walks through the header, the toolbar and the canvas.
  const reached = new Set();
  await page.locator('body').focus();
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    reached.add(await page.evaluate(() => document.activeElement.getAttribute('data-testid') || document.activeElement.id || document.activeElement.getAttribute('data-tool')));
  }
  for (const want of ['select', 'tool-note', 'undo', 'stage', 'chat-toggle', 'zoom-in']) {
    assert.ok(reached.has(want), `Tab never reached ${want}: ${[...reached].join(', ')}`);
  }

  // A note from the keyboard: activate the tool button with Enter.
  await page.locator('[data-testid="tool-note"]').focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="text-editor"]:focus');
  await page.keyboard.type('typed, not clicked');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.__wb.objects().some((o) => o.text === 'typed, not clicked') && window.__wb.pending === 0);
  // Arrow keys nudge the selection; Delete removes it.
  const before = await page.evaluate(() => window.__wb.objects()[0].x);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((x) => window.__wb.objects()[0].x === x + 10, before);
  await page.keyboard.press('Delete');
  await page.waitForFunction(() => window.__wb.objects().length === 0);

  // Everything important is on screen at 1280x800; nothing scrolls sideways.
  for (const sel of ['[data-testid="toolbar"]', '[data-testid="user-list"]', '[data-testid="chat-toggle"]', '[data-testid="zoom-fit"]', '[data-testid="conn-status"]']) {
    const b = await page.locator(sel).boundingBox();
    assert.ok(b && b.x >= 0 && b.y >= 0 && b.x + b.width <= 1280 && b.y + b.height <= 800, `${sel} ${JSON.stringify(b)}`);
  }
  await page.click('[data-testid="chat-toggle"]');
  for (const sel of ['[data-testid="mode-toggle"]', '[data-testid="chat-input"]', '[data-testid="zoom-fit"]']) {
    const b = await page.locator(sel).boundingBox();
    assert.ok(b && b.x + b.width <= 1280 && b.y + b.height <= 800, `${sel} ${JSON.stringify(b)}`);
  }
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 1280));
  await screenshot(page, 'board-chat-open');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-CLEAN-1 no console error, warning, uncaught exception or failed request on the pages', async () => {
  const page = await preparePage(browser, server, 'clean-board', { name: 'Cleo' });
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => document.querySelector('[data-testid="list-status"]').textContent !== 'Loading…');
  await page.goto(`${server.url}/b/${page.boardId}`);
  await waitOnline(page);
  // Use the page a little: command bar, chat, zoom, a note, undo.
  await page.keyboard.press('Control+k');
  await page.keyboard.press('Escape');
  await page.click('[data-testid="chat-toggle"]');
  await page.click('[data-testid="zoom-in"]');
  await page.click('[data-testid="zoom-fit"]');
  await page.click('[data-testid="tool-shape"]');
  await page.mouse.click(400, 400);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__wb.objects().length === 1 && window.__wb.pending === 0);
  await page.locator('[data-testid="stage"]').focus();
  await page.keyboard.press('Control+z');
  await page.waitForFunction(() => window.__wb.objects().length === 0);
  await page.reload();
  await waitOnline(page);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
