// The gestures of the canvas (UI-GESTURE-*): a drag on empty canvas selects an area; space+drag,
// a middle-button drag and the hand tool pan; a drag with a creation tool sizes the new object;
// a tool stays armed after picking a shape outline; Escape returns to select; the help overlay.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openBoard, until, objects, screenshot, useServerAndBrowser, addNotes, toScreen } from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const selection = (page) => page.evaluate(() => [...window.__wb.app.renderer.selection].sort());
const camera = (page) => page.evaluate(() => window.__wb.camera());

async function drag(page, from, to, opts = {}) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down(opts);
  await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 4 });
  await page.mouse.move(to.x, to.y, { steps: 4 });
  await page.mouse.up(opts);
}

test('UI-GESTURE-1 a drag on empty canvas selects an area; a click on empty canvas clears', async () => {
  const page = await openBoard(browser, server, 'gesture-marquee', { name: 'Mia' });
  const [a, b, c] = await addNotes(page, [{ x: 0, y: 0 }, { x: 200, y: 0 }, { x: 600, y: 0 }]);
  const cam0 = await camera(page);
  const p1 = await toScreen(page, -30, -30);
  const p2 = await toScreen(page, 350, 130);
  await drag(page, p1, p2);
  await until(page, () => window.__wb.app.renderer.selection.size === 2);
  assert.deepEqual(await selection(page), [a, b].sort());
  // The view did not move and nothing moved.
  assert.deepEqual(await camera(page), cam0);
  assert.deepEqual((await objects(page)).map((o) => o.x).sort((x, y) => x - y), [0, 200, 600]);
  // Shift+drag adds to the selection.
  await page.keyboard.down('Shift');
  await drag(page, await toScreen(page, 580, -20), await toScreen(page, 740, 120));
  await page.keyboard.up('Shift');
  await until(page, () => window.__wb.app.renderer.selection.size === 3);
  assert.deepEqual(await selection(page), [a, b, c].sort());
  // A click on empty canvas clears.
  const empty = await toScreen(page, -300, 200);
  await page.mouse.click(empty.x, empty.y);
  await until(page, () => window.__wb.app.renderer.selection.size === 0);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-GESTURE-2 space+drag pans without selecting or moving', async () => {
  const page = await openBoard(browser, server, 'gesture-space', { name: 'Sam' });
  const [a] = await addNotes(page, [{ x: 0, y: 0 }]);
  const cam0 = await camera(page);
  await page.locator('[data-testid="stage"]').focus();
  await page.keyboard.down('Space');
  // Starting on the note: with Space held it pans, it does not move the note.
  const from = await toScreen(page, 60, 50);
  await drag(page, from, { x: from.x + 120, y: from.y + 70 });
  await page.keyboard.up('Space');
  await until(page, (c0) => {
    const c = window.__wb.camera();
    return Math.abs(c.x - c0.x - 120) < 1 && Math.abs(c.y - c0.y - 70) < 1;
  }, cam0);
  assert.equal((await objects(page)).find((o) => o.id === a).x, 0);
  assert.deepEqual(await selection(page), []);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-GESTURE-3 a middle-button drag pans', async () => {
  const page = await openBoard(browser, server, 'gesture-middle', { name: 'Max' });
  const cam0 = await camera(page);
  await drag(page, { x: 700, y: 500 }, { x: 610, y: 460 }, { button: 'middle' });
  await until(page, (c0) => {
    const c = window.__wb.camera();
    return Math.abs(c.x - c0.x + 90) < 1 && Math.abs(c.y - c0.y + 40) < 1;
  }, cam0);
  assert.deepEqual(await selection(page), []);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-GESTURE-4 the hand tool (button or H) pans; Escape returns to select', async () => {
  const page = await openBoard(browser, server, 'gesture-hand', { name: 'Hal' });
  await page.click('[data-testid="tool-hand"]');
  assert.equal(await page.getAttribute('[data-testid="tool-hand"]', 'aria-pressed'), 'true');
  let cam = await camera(page);
  await drag(page, { x: 600, y: 400 }, { x: 680, y: 450 });
  cam = await until(page, (c0) => {
    const c = window.__wb.camera();
    return Math.abs(c.x - c0.x - 80) < 1 && Math.abs(c.y - c0.y - 50) < 1 ? c : null;
  }, cam);
  // Escape: back to select; a drag on empty canvas no longer pans.
  await page.keyboard.press('Escape');
  await until(page, () => window.__wb.app.ix.tool === 'select');
  await drag(page, { x: 600, y: 400 }, { x: 680, y: 450 });
  assert.deepEqual(await camera(page), cam);
  // H arms it from the keyboard.
  await page.locator('[data-testid="stage"]').focus();
  await page.keyboard.press('h');
  await until(page, () => window.__wb.app.ix.tool === 'hand');
  await drag(page, { x: 600, y: 400 }, { x: 560, y: 380 });
  await until(page, (c0) => Math.abs(window.__wb.camera().x - c0.x + 40) < 1, cam);
  await page.keyboard.press('Escape');
  await until(page, () => window.__wb.app.ix.tool === 'select');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-GESTURE-5 a drag with a creation tool sizes the new object; a click makes the default size', async () => {
  const page = await openBoard(browser, server, 'gesture-create', { name: 'Cal' });
  const k = (await camera(page)).k;
  await page.click('[data-testid="tool-shape"]');
  const a = await toScreen(page, 0, 0);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(a.x + 200, a.y + 150, { steps: 4 });
  await page.locator('[data-testid="marquee"][data-kind="creating"]').waitFor();
  await page.mouse.move(a.x + 400 * k, a.y + 300 * k, { steps: 4 });
  await page.mouse.up();
  const shape = await until(page, () => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.kind === 'shape'));
  assert.ok(Math.abs(shape.w - 400) < 1 && Math.abs(shape.h - 300) < 1, JSON.stringify(shape));
  assert.ok(Math.abs(shape.x) < 1 && Math.abs(shape.y) < 1);
  // A click: the default 200x120, centered on the click.
  await page.click('[data-testid="tool-shape"]');
  const c = await toScreen(page, 300, -200);
  await page.mouse.click(c.x, c.y);
  const small = await until(page, (id) => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.kind === 'shape' && o.id !== id), shape.id);
  assert.deepEqual([small.w, small.h, small.x, small.y], [200, 120, 200, -260]);
  // A dragged frame too.
  await page.click('[data-testid="tool-frame"]');
  const f = await toScreen(page, -500, -300);
  await page.mouse.move(f.x, f.y);
  await page.mouse.down();
  await page.mouse.move(f.x + 300 * k, f.y + 200 * k, { steps: 6 });
  await page.mouse.up();
  const frame = await until(page, () => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.kind === 'frame'));
  assert.ok(Math.abs(frame.w - 300) < 1 && Math.abs(frame.h - 200) < 1, JSON.stringify(frame));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-GESTURE-6 a tool stays armed after picking a shape outline; Escape returns to select', async () => {
  const page = await openBoard(browser, server, 'gesture-armed', { name: 'Ari' });
  await page.selectOption('[data-testid="geo-select"]', 'ellipse');
  await until(page, () => window.__wb.app.ix.tool === 'shape');
  // Clicking Shape afterwards keeps it armed (it used to disarm it).
  await page.click('[data-testid="tool-shape"]');
  assert.equal(await page.evaluate(() => window.__wb.app.ix.tool), 'shape');
  assert.equal(await page.getAttribute('[data-testid="tool-shape"]', 'aria-pressed'), 'true');
  await page.mouse.click(640, 420);
  const s = await until(page, () => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.kind === 'shape'));
  assert.equal(s.geo, 'ellipse');
  // Escape returns to select from any tool.
  for (const key of ['n', 't', 'f', 'c', 's']) {
    await page.locator('[data-testid="stage"]').focus();
    await page.keyboard.press(key);
    await until(page, () => window.__wb.app.ix.tool !== 'select');
    await page.keyboard.press('Escape');
    await until(page, () => window.__wb.app.ix.tool === 'select');
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-GESTURE-7 "?" and the help button open the shortcut and gesture help', async () => {
  const page = await openBoard(browser, server, 'gesture-help', { name: 'Hap' });
  await page.locator('[data-testid="stage"]').focus();
  await page.keyboard.press('?');
  const help = page.locator('[data-testid="help"]');
  await help.waitFor({ state: 'visible' });
  const text = await help.textContent();
  for (const want of ['Drag on empty canvas', 'Space + drag', 'Hand tool', 'Long press', 'Ctrl+V', 'Bring to front']) {
    assert.ok(text.includes(want), `help lacks ${want}`);
  }
  await screenshot(page, 'canvas-help');
  await page.keyboard.press('Escape');
  await help.waitFor({ state: 'hidden' });
  await page.click('[data-testid="help-open"]');
  await help.waitFor({ state: 'visible' });
  await page.click('[data-testid="help"] button[aria-label="Close help"]');
  await help.waitFor({ state: 'hidden' });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
