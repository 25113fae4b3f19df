// Touch (UI-TOUCH-*): a phone-sized page with touch emulation (390x844, hasTouch, isMobile) and
// real touch events sent through the DevTools protocol (Input.dispatchTouchEvent): tap selects,
// a drag moves, a pinch zooms, two fingers pan, a long press opens the context menu.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  until,
  objects,
  screenshot,
  useServerAndBrowser,
  addNotes,
  toScreen,
  boardId,
  joinBoard,
  signIn,
  trackProblems,
  waitOnline,
  sleep,
} from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** A signed-in phone: touch emulation at 390x844, on the board a test calls `board`. */
async function openPhone(board, name) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  trackProblems(page);
  page.user = await signIn(page, server, name);
  const id = await boardId(server, board);
  await joinBoard(page, server, id, 'editor', name);
  await page.goto(`${server.url}/b/${id}`);
  await waitOnline(page);
  page.cdp = await context.newCDPSession(page);
  return page;
}

/** Sends one touch event: `points` is a list of {x, y} (page coordinates), one per finger. */
function touch(page, type, points) {
  return page.cdp.send('Input.dispatchTouchEvent', {
    type,
    touchPoints: points.map((p, i) => ({ x: Math.round(p.x), y: Math.round(p.y), id: i })),
  });
}

/** Fingers from `from` to `to` (same number of points) in `steps` moves. */
async function gesture(page, from, to, steps = 8) {
  await touch(page, 'touchStart', from.slice(0, 1));
  if (from.length > 1) await touch(page, 'touchStart', from);
  for (let s = 1; s <= steps; s++) {
    const at = from.map((p, i) => ({ x: p.x + ((to[i].x - p.x) * s) / steps, y: p.y + ((to[i].y - p.y) * s) / steps }));
    await touch(page, 'touchMove', at);
    await sleep(16);
  }
  await touch(page, 'touchEnd', []);
}

const camera = (page) => page.evaluate(() => window.__wb.camera());

test('UI-TOUCH-1 a tap selects; a tap on empty canvas clears', async () => {
  const page = await openPhone('touch-tap', 'Tess');
  const [a] = await addNotes(page, [{ x: -60, y: -50 }]);
  const c = await toScreen(page, 0, 0);
  await touch(page, 'touchStart', [c]);
  await touch(page, 'touchEnd', []);
  await until(page, (id) => [...window.__wb.app.renderer.selection].join() === id, a);
  const empty = await toScreen(page, 0, 200);
  await touch(page, 'touchStart', [empty]);
  await touch(page, 'touchEnd', []);
  await until(page, () => window.__wb.app.renderer.selection.size === 0);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-TOUCH-2 a one-finger drag on an object moves it (one commit)', async () => {
  const page = await openPhone('touch-drag', 'Dan');
  const [a] = await addNotes(page, [{ x: -60, y: -50 }]);
  const k = (await camera(page)).k;
  const c = await toScreen(page, 0, 0);
  await gesture(page, [c], [{ x: c.x + 80, y: c.y + 120 }]);
  const moved = await until(page, (id) => {
    const o = window.__wb.objects().find((x) => x.id === id);
    return window.__wb.pending === 0 && o.x !== -60 ? o : null;
  }, a);
  assert.ok(Math.abs(moved.x - (-60 + 80 / k)) < 1 && Math.abs(moved.y - (-50 + 120 / k)) < 1, JSON.stringify(moved));
  const commits = await page.evaluate(() => window.__wb.sent().filter((m) => m.type === 'commit').length);
  assert.equal(commits, 2);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-TOUCH-3 a pinch zooms around the fingers', async () => {
  const page = await openPhone('touch-pinch', 'Pia');
  const cam0 = await camera(page);
  await gesture(page, [{ x: 160, y: 400 }, { x: 230, y: 400 }], [{ x: 90, y: 400 }, { x: 300, y: 400 }]);
  const cam = await until(page, (k0) => (window.__wb.camera().k > k0 * 2.5 ? window.__wb.camera() : null), cam0.k);
  // The board point between the fingers stayed between them.
  const before = { x: (195 - cam0.x) / cam0.k };
  const after = { x: (195 - cam.x) / cam.k };
  assert.ok(Math.abs(before.x - after.x) < 3, `${before.x} vs ${after.x}`);
  // Pinching in zooms out.
  await gesture(page, [{ x: 90, y: 400 }, { x: 300, y: 400 }], [{ x: 160, y: 400 }, { x: 230, y: 400 }]);
  await until(page, (k1) => window.__wb.camera().k < k1 / 2, cam.k);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-TOUCH-4 two fingers moving together pan', async () => {
  const page = await openPhone('touch-pan', 'Pam');
  const [a] = await addNotes(page, [{ x: -60, y: -50 }]);
  const cam0 = await camera(page);
  await gesture(page, [{ x: 150, y: 300 }, { x: 250, y: 300 }], [{ x: 100, y: 420 }, { x: 200, y: 420 }]);
  const cam = await until(page, (c0) => {
    const c = window.__wb.camera();
    return Math.abs(c.x - c0.x + 50) < 2 && Math.abs(c.y - c0.y - 120) < 2 ? c : null;
  }, cam0);
  assert.ok(Math.abs(cam.k - cam0.k) < 1e-6);
  // Nothing moved, nothing was selected.
  assert.equal((await objects(page)).find((o) => o.id === a).x, -60);
  assert.equal(await page.evaluate(() => window.__wb.app.renderer.selection.size), 0);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-TOUCH-5 a long press opens the context menu for what is under the finger', async () => {
  const page = await openPhone('touch-long', 'Lou');
  const [a] = await addNotes(page, [{ x: -60, y: -50, text: 'hold me' }]);
  const c = await toScreen(page, 0, 0);
  await touch(page, 'touchStart', [c]);
  await sleep(900);
  await touch(page, 'touchEnd', []);
  const menu = page.locator('[data-testid="context-menu"]');
  await menu.waitFor({ state: 'visible' });
  await until(page, (id) => window.__wb.app.renderer.selection.has(id), a);
  await screenshot(page, 'touch-long-press-menu');
  // Its actions work with a tap.
  const dup = await menu.locator('[data-action="duplicate"]').boundingBox();
  await touch(page, 'touchStart', [{ x: dup.x + dup.width / 2, y: dup.y + dup.height / 2 }]);
  await touch(page, 'touchEnd', []);
  await until(page, () => window.__wb.pending === 0 && window.__wb.objects().length === 2);
  await menu.waitFor({ state: 'hidden' });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
