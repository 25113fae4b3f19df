// Comments in Chromium (COMMENT-n on the server; UI-COMMENT-n for the client, docs/CLIENT.md):
// the Comment tool's pins, the thread popover, the panel, notifications, the commenter role.
// The "within 1 s" is measured and printed, not asserted (speed belongs to benchmarks).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openBoard, until, addNotes, centerOf, screenshot, useServerAndBrowser, boardId, adminOk } from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const EVIL = '<img src=x onerror="window.__pwned=1"><b>bold?</b> & <script>window.__pwned=2</script>';

/** Starts a thread with the Comment tool (key C) at page point `p`. Resolves its id. */
async function comment(page, p, body) {
  await page.locator('[data-testid="stage"]').focus();
  await page.keyboard.press('c');
  await until(page, () => window.__wb.app.ix.tool === 'comment');
  await page.mouse.click(p.x, p.y);
  await page.waitForSelector('[data-testid="comment-popover"] [data-testid="comment-input"]:focus');
  await page.keyboard.type(body);
  page.sentAt = Date.now();
  await page.keyboard.press('Enter');
  return until(page, (b) => window.__wb.threads().find((t) => t.comments[0].body === b)?.id, body);
}

/** The screen point of a thread's pin in `page`. */
async function pinAt(page, thread) {
  const box = await page.locator(`[data-testid="comment-pin"][data-thread-id="${thread}"]`).boundingBox();
  return box && { x: Math.round(box.x), y: Math.round(box.y + box.height) };
}

test('UI-COMMENT-1 UI-COMMENT-3 COMMENT-4 COMMENT-5: a pin on a note reaches a second client; its body shows as text and runs nothing', async () => {
  const board = 'comment-pin';
  const ann = await openBoard(browser, server, board, { name: 'Ann' });
  const bob = await openBoard(browser, server, board, { name: 'Bob' });
  const [note] = await addNotes(ann, [{ x: 0, y: 0, text: 'Plan' }]);
  await bob.locator(`[data-id="${note}"]`).waitFor();
  const c = await centerOf(ann, note);
  const thread = await comment(ann, c, EVIL);
  await bob.waitForSelector(`[data-testid="comment-pin"][data-thread-id="${thread}"]`);
  console.log(`comments: Bob saw Ann's new thread ${Date.now() - ann.sentAt} ms after she pressed Enter`);
  const t = (await bob.evaluate(() => window.__wb.threads()))[0];
  assert.equal(t.anchor.type, 'object');
  assert.equal(t.anchor.object, note);

  // Bob opens it: the body is the literal text, no element made from it, nothing ran.
  await bob.click(`[data-testid="comment-pin"][data-thread-id="${thread}"]`);
  const body = bob.locator('[data-testid="comment-popover"] [data-testid="comment-body"]');
  await body.waitFor();
  assert.equal(await body.textContent(), EVIL);
  assert.equal(await bob.locator('[data-testid="comment-popover"] img, [data-testid="comment-popover"] script, [data-testid="comment-popover"] b').count(), 0);
  await bob.click('[data-testid="comments-toggle"]');
  const item = bob.locator(`[data-testid="thread-item"][data-thread-id="${thread}"]`);
  await item.waitFor();
  assert.match(await item.textContent(), /<img src=x/);
  assert.equal(await bob.locator('[data-testid="comments-panel"] img').count(), 0);
  for (const p of [ann, bob]) assert.equal(await p.evaluate(() => window.__pwned), undefined);
  await screenshot(bob, 'comments-text-not-html');

  // The pin moves with its note (Ann drags it; Bob's pin follows).
  const before = await pinAt(bob, thread);
  await ann.keyboard.press('Escape');
  await ann.keyboard.press('v');
  const n = await centerOf(ann, note);
  await ann.mouse.move(n.x - 40, n.y - 30);
  await ann.mouse.down();
  await ann.mouse.move(n.x + 160, n.y + 90, { steps: 6 });
  await ann.mouse.up();
  await until(bob, ({ id, b }) => {
    const pin = document.querySelector(`[data-testid="comment-pin"][data-thread-id="${id}"]`).getBoundingClientRect();
    return Math.abs(pin.x - b.x) > 100 && Math.abs(pin.bottom - b.y) > 50;
  }, { id: thread, b: before });

  // Ann drags the pin off the note onto empty canvas: the thread moves to that point for Bob.
  await ann.keyboard.press('Escape');
  const pin = await ann.locator(`[data-testid="comment-pin"][data-thread-id="${thread}"]`).boundingBox();
  await ann.mouse.move(pin.x + pin.width / 2, pin.y + pin.height / 2);
  await ann.mouse.down();
  await ann.mouse.move(300, 650, { steps: 6 });
  await ann.mouse.up();
  const moved = await until(bob, (id) => {
    const t = window.__wb.threads().find((x) => x.id === id);
    return t.anchor.type === 'point' && t.anchor;
  }, thread);
  const drop = await ann.evaluate(() => {
    const c = window.__wb.camera();
    const r = document.getElementById('stage').getBoundingClientRect();
    return { x: (300 - r.left - c.x) / c.k, y: (650 - r.top - c.y) / c.k };
  });
  assert.ok(Math.abs(moved.x - drop.x) < 2 && Math.abs(moved.y - drop.y) < 2, `${JSON.stringify(moved)} vs ${JSON.stringify(drop)}`);
  assert.equal(await ann.locator('[data-testid="comment-popover"]').isVisible(), false, 'a drag does not open the thread');
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

test('UI-COMMENT-2 UI-COMMENT-4 COMMENT-3 COMMENT-8: replies with @ completion, reactions, resolve, the panel and the unread badge', async () => {
  const board = 'comment-thread';
  const ann = await openBoard(browser, server, board, { name: 'Ann Lee' });
  const bob = await openBoard(browser, server, board, { name: 'Bob' });
  await bob.waitForSelector(`[data-testid="user-list"] [data-user-id="${ann.userId}"]`);
  const thread = await comment(ann, { x: 700, y: 450 }, 'Where does this go?');
  assert.equal((await ann.evaluate(() => window.__wb.threads()))[0].anchor.type, 'point');

  // Bob replies, mentioning Ann through the completion list.
  await bob.click(`[data-testid="comment-pin"][data-thread-id="${thread}"]`);
  await bob.waitForSelector('[data-testid="comment-input"]:focus');
  await bob.keyboard.type('Ask @ann');
  await bob.waitForSelector(`[data-testid="mention-option"][data-user-id="${ann.userId}"]`);
  await bob.keyboard.press('Enter');
  assert.equal(await bob.inputValue('[data-testid="comment-input"]'), `Ask @${ann.userId} `);
  await bob.keyboard.type('please');
  await bob.keyboard.press('Enter');
  await until(ann, (id) => window.__wb.threads().find((t) => t.id === id)?.comments.length === 2, thread);

  // Ann sees the mention by name, and an unread notification; opening it marks it read.
  await ann.waitForSelector('[data-testid="unread-badge"]:not([hidden])', { timeout: 15000 });
  assert.equal(await ann.textContent('[data-testid="unread-badge"]'), '1');
  await ann.click('[data-testid="notifications-toggle"]');
  await ann.click(`[data-testid="notification"][data-thread-id="${thread}"]`);
  const mention = ann.locator('[data-testid="comment-popover"] .mention');
  await mention.waitFor();
  assert.equal(await mention.textContent(), '@Ann Lee');
  await ann.waitForSelector('[data-testid="unread-badge"][hidden]', { state: 'attached' });

  // Ann reacts to Bob's reply; Bob sees the count.
  const reply = ann.locator('[data-testid="comment"]').nth(1);
  await reply.locator('[data-testid="reaction"][data-emoji="👍"]').click();
  await until(bob, (id) => window.__wb.threads().find((t) => t.id === id)?.comments[1].reactions['👍']?.length === 1, thread);

  // Ann resolves: the pin goes for Bob; the panel lists it under Resolved and jumps to it.
  await ann.click('[data-testid="comment-resolve"]');
  await ann.click('[data-testid="comment-close"]');
  await bob.click('[data-testid="comment-close"]');
  await bob.waitForSelector(`[data-testid="comment-pin"][data-thread-id="${thread}"]`, { state: 'detached' });
  await bob.click('[data-testid="comments-toggle"]');
  await bob.click('[data-testid="threads-resolved"]');
  await bob.evaluate(() => window.__wb.setCamera(-5000, -5000, 1));
  await bob.click(`[data-testid="thread-item"][data-thread-id="${thread}"]`);
  await bob.waitForSelector('[data-testid="comment-reopen"]');
  const pin = await bob.locator(`[data-testid="comment-pin"][data-thread-id="${thread}"]`).boundingBox();
  assert.ok(pin && pin.x > 0 && pin.x < 1280 && pin.y > 0 && pin.y < 800, `the jump shows the pin: ${JSON.stringify(pin)}`);
  await screenshot(bob, 'comments-resolved-jump');
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

test('UI-COMMENT-5 COMMENT-2: a commenter gets the Comment tool and no editing tools; a viewer gets neither', async () => {
  const board = 'comment-roles';
  const cam = await openBoard(browser, server, board, { name: 'Cam', role: 'commenter' });
  const vic = await openBoard(browser, server, board, { name: 'Vic', role: 'viewer' });
  assert.equal(await cam.locator('[data-testid="tool-comment"]').isVisible(), true);
  for (const tool of ['note', 'shape', 'text', 'frame', 'connector']) {
    assert.equal(await cam.locator(`[data-testid="tool-${tool}"]`).isVisible(), false, tool);
  }
  assert.equal(await cam.textContent('[data-testid="view-only"]'), 'Can comment');
  const thread = await comment(cam, { x: 640, y: 400 }, 'From a commenter');
  await vic.waitForSelector(`[data-testid="comment-pin"][data-thread-id="${thread}"]`);
  assert.equal(await vic.locator('[data-testid="tool-comment"]').isVisible(), false);
  await vic.click(`[data-testid="comment-pin"][data-thread-id="${thread}"]`);
  await vic.waitForSelector('[data-testid="comment-popover"] [data-testid="comment-body"]');
  assert.equal(await vic.locator('[data-testid="comment-popover"] [data-testid="comment-input"]').count(), 0);
  assert.deepEqual(cam.problems, []);
  assert.deepEqual(vic.problems, []);
  await cam.context().close();
  await vic.context().close();
});

test('UI-COMMENT-6 UI-FOLLOW-1 on a phone (390x844): comment from the toolbar in a bottom sheet; follow from the menu', async () => {
  const board = 'comment-phone';
  const ann = await openBoard(browser, server, board, { name: 'Ann' });
  const pat = await openBoard(browser, server, board, { name: 'Pat' });
  await pat.setViewportSize({ width: 390, height: 844 });
  await pat.click('[data-testid="tool-comment"]');
  await until(pat, () => window.__wb.app.ix.tool === 'comment');
  await pat.mouse.click(200, 300);
  await pat.waitForSelector('[data-testid="comment-popover"] [data-testid="comment-input"]:focus');
  const sheet = await pat.locator('[data-testid="comment-popover"]').boundingBox();
  assert.ok(sheet.x >= 0 && sheet.x + sheet.width <= 390 && sheet.y + sheet.height <= 844.5, `on screen: ${JSON.stringify(sheet)}`);
  await pat.keyboard.type('From my phone');
  await pat.click('[data-testid="comment-send"]');
  await ann.waitForSelector('[data-testid="comment-pin"]');
  await screenshot(pat, 'comments-phone');

  // Follow Ann from the folded people menu.
  await pat.click('[data-testid="comment-close"]');
  await pat.click('[data-testid="menu-toggle"]');
  await pat.click(`[data-testid="user-list"] [data-user-id="${ann.userId}"]`);
  await until(pat, (id) => window.__wb.following() === id, ann.userId);
  await ann.evaluate(() => window.__wb.setCamera(-900, -700, 1.2));
  const b = await ann.evaluate(() => window.__wb.viewport());
  await until(pat, (r) => {
    const v = window.__wb.visibleViewport();
    return v.x <= r.x + 0.5 && v.y <= r.y + 0.5 && v.x + v.w >= r.x + r.w - 0.5 && v.y + v.h >= r.y + r.h - 0.5;
  }, b);
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(pat.problems, []);
  await ann.context().close();
  await pat.context().close();
});

test('UI-COMMENT-7 COMMENT-6: after a reconnect, comments_since brings what changed while away (a resolve included)', async () => {
  const board = 'comment-resume';
  const ann = await openBoard(browser, server, board, { name: 'Ann' });
  const bob = await openBoard(browser, server, board, { name: 'Bob' });
  const first = await comment(ann, { x: 600, y: 400 }, 'Resolved while Bob is away');
  await bob.waitForSelector(`[data-testid="comment-pin"][data-thread-id="${first}"]`);
  const cseq = await bob.evaluate(() => window.__wb.app.comments.cseq);
  await bob.evaluate(() => window.__wb.app.conn.stop());
  await until(bob, () => window.__wb.status === 'closed');

  await ann.click(`[data-testid="comment-pin"][data-thread-id="${first}"]`);
  await ann.click('[data-testid="comment-resolve"]');
  await ann.click('[data-testid="comment-close"]');
  const second = await comment(ann, { x: 800, y: 500 }, 'New while Bob is away');
  await until(ann, (id) => window.__wb.threads().find((t) => t.id === id)?.resolved, first);

  await bob.evaluate(() => window.__wb.app.conn.start());
  await bob.waitForSelector(`[data-testid="comment-pin"][data-thread-id="${second}"]`);
  await until(bob, (id) => window.__wb.threads().find((t) => t.id === id)?.resolved, first);
  await bob.waitForSelector(`[data-testid="comment-pin"][data-thread-id="${first}"]`, { state: 'detached' });
  const hello = await bob.evaluate(() => window.__wb.sent().filter((m) => m.type === 'hello').pop());
  assert.equal(hello.comments_since, cseq);
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

test('UI-COMMENT-4 COMMENT-6 COMMENT-7: the panel loads the open threads the welcome left out, and threads resolved before the page opened', async () => {
  const id = await boardId(server, 'comment-many');
  const made = [];
  for (let i = 0; i < 503; i++) {
    const anchor = { type: 'point', x: (i % 30) * 60, y: Math.floor(i / 30) * 60 };
    made.push((await adminOk(server, 'POST', `/api/boards/${id}/threads`, { anchor, body: `Thread ${i}` })).thread.id);
  }
  await adminOk(server, 'POST', `/api/boards/${id}/threads/${made[0]}/resolve`);
  const ann = await openBoard(browser, server, id, { name: 'Ann' });
  // The welcome holds the 500 most recently changed open threads and says there were more.
  assert.equal(await ann.evaluate(() => window.__wb.threads().length), 500);
  assert.equal(await ann.textContent('#comment-count'), ' 500+');
  await ann.click('[data-testid="comments-toggle"]');
  const items = '[data-testid="comments-panel"] [data-testid="thread-item"]';
  await until(ann, (sel) => document.querySelectorAll(sel).length === 502, items);
  await ann.waitForSelector('[data-testid="threads-partial"]', { state: 'detached' });
  assert.equal(await ann.textContent('#comment-count'), ' 502');
  await ann.click('[data-testid="threads-resolved"]');
  await ann.waitForSelector(`[data-testid="thread-item"][data-thread-id="${made[0]}"]`);
  assert.equal(await ann.locator(items).count(), 1);
  assert.deepEqual(ann.problems, []);
  await ann.context().close();
});
