// Phones and tablets: the layout at 390x844 and 360x740 (the top bar folds into a menu, the
// toolbar is a bottom bar, the chat a bottom sheet; nothing scrolls sideways) (UI-PHONE-*).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preparePage, waitOnline, screenshot, until, useServerAndBrowser } from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

async function phone(board, name, width, height) {
  const page = await preparePage(browser, server, board, { name });
  await page.setViewportSize({ width, height });
  await page.goto(`${server.url}/b/${page.boardId}`);
  await waitOnline(page);
  return page;
}

const box = (page, sel) => page.locator(sel).boundingBox();

async function noSidewaysScroll(page) {
  const m = await page.evaluate(() => ({ sw: document.scrollingElement.scrollWidth, iw: window.innerWidth }));
  assert.ok(m.sw <= m.iw, `scrollWidth ${m.sw} > innerWidth ${m.iw}`);
}

for (const [width, height] of [
  [390, 844],
  [360, 740],
]) {
  test(`UI-PHONE-1 at ${width}x${height}: no sideways overflow, the toolbar at the bottom, Ask AI on one line, a menu for the rest`, async () => {
    const page = await phone(`phone-${width}`, 'Pho', width, height);
    await noSidewaysScroll(page);
    // The top bar: everything inside the width; Ask AI on one line.
    const outside = await page.evaluate((w) =>
      [...document.querySelectorAll('.topbar > *')]
        .filter((e) => e.getClientRects().length)
        .map((e) => [e.className || e.id, e.getBoundingClientRect()])
        .filter(([, r]) => r.left < 0 || r.right > w + 0.5)
        .map(([n]) => n),
    width);
    assert.deepEqual(outside, []);
    const ask = await box(page, '[data-testid="command-open"]');
    assert.ok(ask && ask.height <= 40 && ask.x + ask.width <= width, JSON.stringify(ask));
    // The toolbar is a bar along the bottom.
    const tb = await box(page, '[data-testid="toolbar"]');
    assert.ok(tb.width >= width - 2 && tb.height <= 64 && Math.abs(tb.y + tb.height - height) <= 1, JSON.stringify(tb));
    const stage = await box(page, '[data-testid="stage"]');
    assert.ok(stage.width >= width - 1, JSON.stringify(stage));
    // Zoom to content stays reachable above the bar.
    const fit = await box(page, '[data-testid="zoom-fit"]');
    assert.ok(fit && fit.y + fit.height <= tb.y && fit.x + fit.width <= width, JSON.stringify(fit));

    // The menu holds the people, Share and Chat; it opens and closes.
    assert.ok(await page.locator('[data-testid="chat-toggle"]').isHidden());
    await page.click('[data-testid="menu-toggle"]');
    const menu = await box(page, '[data-testid="topbar-menu"]');
    assert.ok(menu && menu.x >= 0 && menu.x + menu.width <= width, JSON.stringify(menu));
    await noSidewaysScroll(page);
    await page.click('[data-testid="chat-toggle"]');
    assert.ok(await page.locator('[data-testid="topbar-menu"]').isHidden());
    // The chat is a bottom sheet over the canvas, which keeps its width.
    const sheet = await box(page, '[data-testid="chat-panel"]');
    assert.ok(sheet.width >= width - 1 && sheet.y > height * 0.3 && Math.abs(sheet.y + sheet.height - height) <= 1, JSON.stringify(sheet));
    assert.ok((await box(page, '[data-testid="stage"]')).width >= width - 1);
    const input = await box(page, '[data-testid="chat-input"]');
    assert.ok(input.x + input.width <= width && input.y + input.height <= height);
    await noSidewaysScroll(page);
    if (width === 390) await screenshot(page, 'phone-chat');
    await page.click('#chat-close');

    // The command bar fits.
    await page.click('[data-testid="command-open"]');
    const bar = await box(page, '[data-testid="command-bar"]');
    assert.ok(bar.x >= 0 && bar.x + bar.width <= width, JSON.stringify(bar));
    if (width === 390) {
      // Asked from the phone: the result lands above the bottom bar, in view.
      await page.keyboard.type('create a SWOT analysis for a coffee shop');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => window.__wb.objects().filter((o) => o.kind === 'frame').length === 4, null, { timeout: 20000 });
      await page.keyboard.press('Escape');
      await page.click('[data-testid="zoom-fit"]');
      const notes = await page.evaluate(() => {
        const tb = document.querySelector('[data-testid="toolbar"]').getBoundingClientRect();
        return [...document.querySelectorAll('[data-kind="frame"]')].every((n) => n.getBoundingClientRect().bottom <= tb.top + 1);
      });
      assert.ok(notes, 'after zoom to content every frame is above the bottom bar');
      await screenshot(page, 'phone-board');
    } else {
      await page.keyboard.press('Escape');
    }
    await noSidewaysScroll(page);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}

const inside = (b, width, height) => b && b.x >= 0 && b.y >= 0 && b.x + b.width <= width + 0.5 && b.y + b.height <= height + 0.5;

for (const [width, height] of [
  [390, 844],
  [360, 740],
]) {
  test(`UI-PHONE-3 at ${width}x${height}: the Export menu and the History panel (a bottom sheet) work and fit`, async () => {
    const page = await phone(`phone-hist-${width}`, 'Hix', width, height);
    await page.evaluate(() => window.__wb.app.commit([{ op: 'create', object: { id: 'ph-n', kind: 'note', x: 0, y: 0, text: 'hello' } }]));
    // Export: from the menu, its list inside the screen; a format downloads.
    await page.click('[data-testid="menu-toggle"]');
    await page.click('[data-testid="export-open"]');
    const list = page.locator('[data-testid="export-list"]');
    await list.waitFor();
    for (const sel of ['[data-testid="export-list"]', '[data-testid="export-json"]', '[data-testid="export-scope"]']) {
      assert.ok(inside(await box(page, sel), width, height), `${sel} ${JSON.stringify(await box(page, sel))}`);
    }
    await noSidewaysScroll(page);
    if (width === 390) await screenshot(page, 'phone-export');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-json"]')]);
    assert.match(download.suggestedFilename(), /\.json$/);
    assert.ok(await list.isHidden());
    assert.ok(await page.locator('[data-testid="topbar-menu"]').isHidden());

    // History: from the menu, a bottom sheet across the width; a version previews and goes back.
    await page.evaluate(() => fetch(`/api/boards/${encodeURIComponent(window.__wb.app.boardId)}/versions`, {
      method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'First' }),
    }));
    await page.click('[data-testid="menu-toggle"]');
    await page.click('[data-testid="history-open"]');
    const sheet = await box(page, '[data-testid="history-panel"]');
    assert.ok(inside(sheet, width, height) && sheet.width >= width - 1 && Math.abs(sheet.y + sheet.height - height) <= 1 && sheet.y > height * 0.3, JSON.stringify(sheet));
    const item = page.locator('[data-testid="history-item"]').first();
    await item.waitFor();
    assert.ok(inside(await item.boundingBox(), width, height));
    await noSidewaysScroll(page);
    await item.click();
    await page.locator('[data-testid="history-preview"]').waitFor();
    for (const sel of ['[data-testid="history-restore"]', '[data-testid="history-back"]']) {
      assert.ok(inside(await box(page, sel), width, height), sel);
    }
    await noSidewaysScroll(page);
    if (width === 390) await screenshot(page, 'phone-history');
    await page.click('[data-testid="history-back"]');
    await page.locator('[data-testid="history-preview"]').waitFor({ state: 'detached' });
    await page.click('#history-panel [aria-label="Close history"]');
    assert.ok(await page.locator('[data-testid="history-panel"]').isHidden());
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  test(`UI-PHONE-4 at ${width}x${height}: undo, redo and delete are on the bottom bar without scrolling it`, async () => {
    const page = await phone(`phone-undo-${width}`, 'Und', width, height);
    assert.equal(await page.evaluate(() => document.querySelector('[data-testid="toolbar"]').scrollLeft), 0);
    for (const sel of ['[data-testid="undo"]', '[data-testid="redo"]', '[data-testid="delete"]', '[data-testid="toolbar"] [data-tool="select"]']) {
      assert.ok(inside(await box(page, sel), width, height), `${sel} ${JSON.stringify(await box(page, sel))}`);
    }
    // They work: a note, deleted, back with undo, gone again with redo.
    await page.evaluate(() => window.__wb.app.commit([{ op: 'create', object: { id: 'ph-u', kind: 'note', x: 0, y: 0 } }]));
    await until(page, () => window.__wb.pending === 0 && window.__wb.objects().length === 1);
    await page.evaluate(() => window.__wb.app.renderer.setSelection(['ph-u']));
    await page.click('[data-testid="delete"]');
    await until(page, () => window.__wb.objects().length === 0);
    await page.click('[data-testid="undo"]');
    await until(page, () => window.__wb.objects().length === 1);
    await page.click('[data-testid="redo"]');
    await until(page, () => window.__wb.objects().length === 0);
    if (width === 390) await screenshot(page, 'phone-toolbar');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}

test('UI-PHONE-2 the board list fits 360 px', async () => {
  const page = await preparePage(browser, server, 'phone-list', { name: 'Lis' });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(`${server.url}/`);
  await page.locator('[data-testid="board-item"]').first().waitFor();
  await noSidewaysScroll(page);
  const item = await box(page, '[data-testid="board-item"]');
  assert.ok(item.x >= 0 && item.x + item.width <= 360, JSON.stringify(item));
  await screenshot(page, 'phone-list');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
