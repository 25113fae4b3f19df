// The shell around the canvas at 1440x900: AI results brought into view (the requester's only),
// Show and Undo on the reply, plans rendered and previewed as ghosts, the chat that stays closed,
// suggestions on the reply toast, distinct colors, the dark theme and zoom to content
// (UI-AI-6, UI-AI-7, UI-POLISH-*).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openBoard, until, objects, screenshot, commandBar, sleep, useServerAndBrowser } from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

async function desktop(board, name) {
  const page = await openBoard(browser, server, board, { name });
  await page.setViewportSize({ width: 1440, height: 900 });
  return page;
}

/**
 * In the page: whether the objects `ids` are drawn wholly inside the visible part of the canvas
 * (the stage, right of the toolbar, above a bottom bar or sheet).
 */
function inView(ids) {
  const stage = document.querySelector('[data-testid="stage"]').getBoundingClientRect();
  const tb = document.querySelector('[data-testid="toolbar"]').getBoundingClientRect();
  const left = tb.height > tb.width ? tb.right : stage.left;
  const bottom = tb.width > tb.height ? tb.top : stage.bottom;
  return ids.every((id) => {
    const n = document.querySelector(`[data-id="${id}"]`);
    if (!n) return false;
    const b = n.getBoundingClientRect();
    return b.left >= left - 1 && b.right <= stage.right + 1 && b.top >= stage.top - 1 && b.bottom <= bottom + 1;
  });
}

/** Waits for the `ai_result` of the last command sent; returns it. */
async function lastResult(page) {
  return until(
    page,
    () => {
      const sent = window.__wb.sent().filter((m) => m.type === 'ai');
      const last = sent[sent.length - 1];
      return last && window.__results && window.__results.find((r) => r.id === last.id);
    },
    null,
    20000,
  );
}

/** Records every `ai_result` the page handles. */
async function recordResults(page) {
  await page.evaluate(() => {
    window.__results = [];
    const ai = window.__wb.app.ai;
    const orig = ai.onResult.bind(ai);
    ai.onResult = (m) => {
      window.__results.push(m);
      orig(m);
    };
  });
}

/** Waits until the view has stopped moving (no follow in progress, the camera unchanged). */
async function stillCamera(page) {
  for (let i = 0; i < 100; i++) {
    const a = await page.evaluate(() => window.__wb.camera());
    await sleep(150);
    const b = await page.evaluate(() => ({ ...window.__wb.camera(), moving: window.__wb.app.follow.moving }));
    if (a.x === b.x && a.y === b.y && a.k === b.k && !b.moving) return;
  }
  throw new Error('the camera kept moving');
}

test('UI-AI-6 an AI result off-screen: the requester\'s view moves to it (others\' do not); the reply offers Show and Undo; a pan cancels the move', async () => {
  const ann = await desktop('follow', 'Ann');
  const bob = await desktop('follow', 'Bob');
  await recordResults(ann);
  const bobCamera = await bob.evaluate(() => window.__wb.camera());

  // The `ai` viewport is the visible part: right of the toolbar, not the whole stage.
  await commandBar(ann, 'Create a red circle at position 3000, 2000');
  const sent = (await ann.evaluate(() => window.__wb.sent())).find((m) => m.type === 'ai');
  const cam = await ann.evaluate(() => window.__wb.camera());
  const stageW = await ann.evaluate(() => document.querySelector('[data-testid="stage"]').clientWidth);
  assert.ok(sent.viewport.x > -cam.x / cam.k + 40 / cam.k, JSON.stringify(sent.viewport));
  assert.ok(sent.viewport.w < stageW / cam.k - 40 / cam.k, JSON.stringify(sent.viewport));

  const r = await lastResult(ann);
  assert.equal(r.outcome, 'executed', JSON.stringify(r));
  const circle = r.created[0];
  await stillCamera(ann);
  assert.ok(await ann.evaluate(inView, [circle]), 'the new circle is in the visible part of the view');
  await screenshot(ann, 'follow-result');
  // Bob's view never moved.
  await until(bob, (id) => window.__wb.objects().some((o) => o.id === id), circle);
  await sleep(600);
  assert.deepEqual(await bob.evaluate(() => window.__wb.camera()), bobCamera);

  // The reply says what was done and offers Show and Undo.
  const reply = ann.locator('[data-testid="command-reply"]');
  assert.match(await reply.locator('[data-testid="reply-text"]').textContent(), /red circle/);
  await ann.keyboard.press('Escape');
  await ann.evaluate(() => window.__wb.setCamera(200, 200, 1));
  await stillCamera(ann);
  assert.ok(!(await ann.evaluate(inView, [circle])));
  await ann.click('[data-testid="reply-show"]');
  await stillCamera(ann);
  assert.ok(await ann.evaluate(inView, [circle]), 'Show brings it back into view');
  await ann.click('[data-testid="reply-undo"]');
  await until(ann, (id) => !window.__wb.objects().some((o) => o.id === id), circle);
  assert.ok(await reply.isHidden());

  // A pan during the move cancels it: the view stays where the person left it.
  await ann.evaluate(() => window.__wb.setCamera(0, 0, 1));
  await commandBar(ann, 'Create a blue circle at position -3000, -2500');
  await until(ann, () => window.__wb.app.follow.moving, null, 20000);
  await ann.mouse.move(700, 500);
  await ann.mouse.wheel(0, 120);
  const after = await ann.evaluate(() => window.__wb.camera());
  await sleep(700);
  const later = await ann.evaluate(() => window.__wb.camera());
  assert.equal(await ann.evaluate(() => window.__wb.app.follow.moving), false);
  assert.ok(Math.abs(later.x - after.x) < 200 && Math.abs(later.y - after.y) < 200, `${JSON.stringify(after)} ${JSON.stringify(later)}`);
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

test('UI-AI-6 with room in view, a SWOT lands inside the visible part (chat open, right of the toolbar) and the view stays', async () => {
  const page = await desktop('follow-room', 'Rae');
  await recordResults(page);
  await page.click('[data-testid="chat-toggle"]');
  await stillCamera(page);
  await page.evaluate(() => window.__wb.setCamera(0, 0, 0.5));
  await stillCamera(page);
  const before = await page.evaluate(() => window.__wb.camera());
  await commandBar(page, 'create a SWOT analysis for a coffee shop');
  const r = await lastResult(page);
  assert.equal(r.outcome, 'executed');
  await page.waitForTimeout(300);
  assert.ok(await page.evaluate(inView, r.created), 'every new object is visible');
  assert.deepEqual(await page.evaluate(() => window.__wb.camera()), before, 'already visible: the view did not move');
  assert.ok(await page.locator('[data-testid="chat-panel"]').isVisible());
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-AI-7 a plan is rendered in the chat and previewed as ghosts until Keep Planning or Accept & Build; UI-AI-8 its steps name titles, not refs', async () => {
  const page = await desktop('plan-ghosts', 'Pia');
  await page.click('[data-testid="chat-toggle"]');
  await page.click('[data-testid="mode-plan"]');
  await commandBar(page, 'create a SWOT analysis for a coffee shop');
  await page.keyboard.press('Escape');
  const bar = page.locator('[data-testid="question-bar"]');
  await bar.locator('[data-testid="question-button"]').first().waitFor();
  // Rendered: headings and a checklist, no storage path anywhere a person reads.
  const plan = page.locator('[data-testid="plan-preview"]').last();
  assert.ok((await plan.locator('h3, h4').count()) >= 1);
  assert.ok((await plan.locator('.md-checklist li').count()) >= 4);
  const readable = (await page.locator('[data-testid="chat-panel"]').textContent()) + (await page.locator('[data-testid="command-reply"]').textContent());
  assert.doesNotMatch(readable, /\/plans\//);
  // UI-AI-8: the steps name objects by their titles, never by the planner's refs (`frame_strengths`).
  const steps = (await plan.locator('.md-checklist li').allTextContents()).join('\n');
  assert.match(steps, /"Strengths"/);
  assert.doesNotMatch(steps, /\b[a-z]+_[a-z0-9_]+\b/, steps);
  assert.equal(await plan.locator('code').count(), 0, steps);
  // Ghosts: on the board, not in it, not selectable.
  await page.waitForSelector('[data-testid="ghosts"] [data-testid="ghost"]', { state: 'attached' });
  assert.ok((await page.locator('[data-testid="ghost"].ghost-frame').count()) === 4);
  // The preview is brought into the visible part of the view.
  await stillCamera(page);
  const ghostsInView = await page.evaluate(() => {
    const stage = document.querySelector('[data-testid="stage"]').getBoundingClientRect();
    const tb = document.querySelector('[data-testid="toolbar"]').getBoundingClientRect();
    const b = document.querySelector('[data-testid="ghosts"]').getBoundingClientRect();
    return b.left >= tb.right - 1 && b.right <= stage.right + 1 && b.top >= stage.top - 1 && b.bottom <= stage.bottom + 1;
  });
  assert.ok(ghostsInView, 'the ghosts are in view');
  assert.equal((await objects(page)).length, 0);
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('[data-testid="ghosts"]')).pointerEvents), 'none');
  const g = await page.locator('[data-testid="ghost"].ghost-frame').first().boundingBox();
  await page.mouse.click(g.x + g.width / 2, g.y + g.height / 2);
  assert.equal(await page.evaluate(() => window.__wb.app.renderer.selection.size), 0);
  await screenshot(page, 'plan-ghosts');

  await bar.locator('[data-testid="question-button"]:has-text("Keep Planning")').click();
  await page.waitForSelector('[data-testid="ghosts"]', { state: 'detached' });
  assert.equal((await objects(page)).length, 0);

  await commandBar(page, 'create a SWOT analysis for a coffee shop');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid="ghosts"] [data-testid="ghost"]', { state: 'attached', timeout: 20000 });
  await bar.locator('[data-testid="question-button"]:has-text("Accept & Build")').click();
  await page.waitForSelector('[data-testid="ghosts"]', { state: 'detached' });
  await until(page, () => window.__wb.objects().filter((o) => o.kind === 'frame').length === 4, null, 20000);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-POLISH-2 the chat opens only when asked or for a question; UI-POLISH-3 the reply lists its suggestions, clickable', async () => {
  const page = await desktop('quiet-chat', 'Quin');
  await recordResults(page);
  await commandBar(page, 'create a SWOT analysis for a coffee shop');
  await lastResult(page);
  await page.keyboard.press('Escape');
  await commandBar(page, 'florp the wibble quantum banana');
  const r = await lastResult(page);
  assert.equal(r.outcome, 'clarification');
  assert.ok(r.suggestions.length > 0);
  assert.ok(await page.locator('[data-testid="chat-panel"]').isHidden(), 'the chat stayed closed');
  const chips = page.locator('[data-testid="command-reply"] [data-testid="reply-suggestion"]');
  assert.deepEqual(await chips.allTextContents(), r.suggestions);
  await screenshot(page, 'reply-suggestions');
  await chips.first().click();
  const last = (await page.evaluate(() => window.__wb.sent())).filter((m) => m.type === 'ai').pop();
  assert.equal(last.text, r.suggestions[0]);
  await lastResult(page);
  assert.ok(await page.locator('[data-testid="chat-panel"]').isHidden());
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-POLISH-1 three people on a board have three different colors', async () => {
  const pages = [];
  for (const name of ['Uma', 'Vic', 'Wes']) pages.push(await desktop('colors', name));
  const colors = await until(pages[0], () => {
    const c = [...document.querySelectorAll('[data-testid="user-list"] .avatar')].map((a) => a.style.getPropertyValue('--user-color').trim());
    return c.length === 3 && c;
  });
  assert.equal(new Set(colors).size, 3, colors.join(' '));
  for (const p of pages) {
    assert.deepEqual(p.problems, []);
    await p.context().close();
  }
});

test('UI-POLISH-4 the dark theme follows the system setting', async () => {
  const page = await desktop('dark', 'Dee');
  const luminance = () =>
    page.evaluate(() => {
      const rgb = (el) => getComputedStyle(el).backgroundColor.match(/\d+/g).map(Number);
      const l = ([r, g, b]) => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
      return { body: l(rgb(document.body)), top: l(rgb(document.querySelector('.topbar'))), stage: l(rgb(document.querySelector('[data-testid="stage"]'))) };
    });
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await luminance();
  assert.ok(light.body > 0.8 && light.top > 0.8 && light.stage > 0.8, JSON.stringify(light));
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await luminance();
  assert.ok(dark.body < 0.2 && dark.top < 0.2 && dark.stage < 0.2, JSON.stringify(dark));
  await screenshot(page, 'board-dark');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-POLISH-6 in the dark theme black ink (texts, connectors) is drawn light; stored colors stay', async () => {
  const page = await desktop('dark-ink', 'Ink');
  await page.evaluate(() => window.__wb.app.commit([
    { op: 'create', object: { id: 'ink-a', kind: 'note', x: 0, y: 0, w: 120, h: 100 } },
    { op: 'create', object: { id: 'ink-b', kind: 'note', x: 300, y: 0, w: 120, h: 100 } },
    { op: 'create', object: { id: 'ink-t', kind: 'text', x: 0, y: 160, w: 200, h: 40, text: 'Dark ink', color: '#212121' } },
    { op: 'create', object: { id: 'ink-r', kind: 'text', x: 0, y: 220, w: 200, h: 40, text: 'Red ink', color: '#E53935' } },
    { op: 'create', object: { id: 'ink-c', kind: 'connector', from: { id: 'ink-a' }, to: { id: 'ink-b' }, color: '#000000' } },
  ]));
  await until(page, () => window.__wb.pending === 0 && document.querySelectorAll('[data-id^="ink-"]').length === 5);
  const paint = () =>
    page.evaluate(() => {
      const l = (c) => {
        const [r, g, b] = c.match(/\d+/g).map(Number);
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
      };
      const q = (sel) => document.querySelector(sel);
      return {
        text: l(getComputedStyle(q('[data-id="ink-t"] .label')).fill),
        red: getComputedStyle(q('[data-id="ink-r"] .label')).fill,
        line: l(getComputedStyle(q('[data-id="ink-c"] .line')).stroke),
        head: l(getComputedStyle(q('[data-id="ink-c"] .head')).fill),
      };
    });
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await paint();
  assert.ok(light.text < 0.2 && light.line < 0.2 && light.head < 0.2, JSON.stringify(light));
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await paint();
  assert.ok(dark.text > 0.7 && dark.line > 0.7 && dark.head > 0.7, JSON.stringify(dark));
  assert.equal(dark.red, light.red, 'other colors are drawn as stored');
  const stored = await page.evaluate(() => window.__wb.objects().filter((o) => o.id.startsWith('ink-')).map((o) => o.color.toLowerCase()));
  assert.ok(stored.includes('#212121') && stored.includes('#000000'), stored.join(' '));
  await screenshot(page, 'dark-ink');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-POLISH-5 zoom to content is one click: everything lands in the visible part', async () => {
  const page = await desktop('fit', 'Fay');
  await page.evaluate(() =>
    window.__wb.app.commit([
      { op: 'create', object: { id: 'fit-a', kind: 'note', x: -2400, y: -1500, w: 200, h: 200, text: 'far left' } },
      { op: 'create', object: { id: 'fit-b', kind: 'note', x: 3600, y: 2600, w: 200, h: 200, text: 'far right' } },
    ]),
  );
  await until(page, () => window.__wb.pending === 0);
  await page.evaluate(() => window.__wb.setCamera(0, 0, 1));
  await stillCamera(page);
  assert.ok(!(await page.evaluate(inView, ['fit-a', 'fit-b'])));
  assert.ok(await page.locator('[data-testid="zoom-fit"]').isVisible());
  await page.click('[data-testid="zoom-fit"]');
  await stillCamera(page);
  assert.ok(await page.evaluate(inView, ['fit-a', 'fit-b']));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
