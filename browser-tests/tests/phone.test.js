// Phones and tablets: the layout at 390x844 and 360x740 (the top bar folds into a menu, the
// toolbar is a bottom bar, the chat a bottom sheet; nothing scrolls sideways) (UI-PHONE-*).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preparePage, waitOnline, screenshot, useServerAndBrowser } from '../lib/harness.js';

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
