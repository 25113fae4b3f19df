// Rendering: every kind with its stored colors, panning a board of 2,000 objects, and text that
// does not fit (UI-RENDER-*).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openBoard,
  preparePage,
  until,
  screenshot,
  useServerAndBrowser,
  waitOnline,
} from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

async function importBoard(objects) {
  const { status, body } = await server.api('POST', '/api/boards', { objects });
  assert.equal(status, 201, JSON.stringify(body));
  return body.board;
}

const GEOS = ['rectangle', 'ellipse', 'diamond', 'triangle', 'hexagon', 'star', 'cloud'];
const SHAPE_COLORS = ['light-blue', 'violet', 'orange', 'green', 'light-violet', 'yellow', 'blue'];

function sampleBoard() {
  const objs = [
    { id: 'title', kind: 'text', x: 0, y: -110, w: 700, h: 40, text: 'Coffee shop launch plan', color: 'black' },
    { id: 'f1', kind: 'frame', x: 0, y: 0, w: 720, h: 290, text: 'This week', color: 'gray' },
    {
      id: 'n1', kind: 'note', parent: 'f1', x: 30, y: 40, w: 200, h: 200, color: 'yellow',
      text: 'Pick a roaster that delivers twice a week and taste at least three blends',
    },
    { id: 'n2', kind: 'note', parent: 'f1', x: 260, y: 40, w: 200, h: 200, color: 'light-green', text: 'Hire two baristas' },
    { id: 'n3', kind: 'note', parent: 'f1', x: 490, y: 40, w: 200, h: 200, color: 'light-red', text: 'Open on Saturday morning' },
    { id: 'f2', kind: 'frame', x: 780, y: 0, w: 420, h: 290, text: 'Risks', color: 'light-blue' },
    { id: 'n4', kind: 'note', parent: 'f2', x: 810, y: 40, w: 170, h: 170, color: 'orange', text: 'Rent goes up' },
    { id: 'n5', kind: 'note', parent: 'f2', x: 1000, y: 40, w: 170, h: 170, color: 'red', text: 'Competitor nearby' },
  ];
  GEOS.forEach((geo, i) => {
    objs.push({
      id: `s_${geo}`, kind: 'shape', geo, x: i * 175, y: 400, w: 140, h: 100,
      color: SHAPE_COLORS[i], text: geo[0].toUpperCase() + geo.slice(1),
    });
  });
  objs.push(
    { id: 'c1', kind: 'connector', from: { id: 'n1' }, to: { id: 's_rectangle' }, text: 'first', color: 'black' },
    { id: 'c2', kind: 'connector', from: { id: 's_ellipse' }, to: { id: 's_diamond' }, arrow: 'both', color: 'blue' },
    { id: 'c3', kind: 'connector', from: { id: 's_hexagon' }, to: { id: 's_star' }, arrow: 'none', color: 'red' },
    { id: 'c4', kind: 'connector', from: { id: 'n3' }, to: { x: 1250, y: 560 }, text: 'then', color: 'violet' },
  );
  return objs;
}

test('UI-RENDER-1 every kind renders with its stored color, wrapped text, titles, geo and arrowheads', async () => {
  const board = await importBoard(sampleBoard());
  const page = await openBoard(browser, server, board, { user: 'rita', name: 'Rita' });
  await page.waitForSelector('[data-id="c4"] path.line');
  const exported = (await server.api('GET', `/api/boards/${board}`)).body;
  const stored = new Map(exported.objects.map((o) => [o.id, o]));
  assert.equal(await page.locator('[data-id]').count(), stored.size);

  for (const o of stored.values()) {
    const node = page.locator(`[data-id="${o.id}"]`);
    assert.equal(await node.getAttribute('data-kind'), o.kind, o.id);
    assert.equal(await node.getAttribute('data-color'), o.color, o.id);
    if (o.kind === 'note' || o.kind === 'frame') {
      assert.equal(await node.locator('.body').getAttribute('fill'), o.color, o.id);
    }
    if (o.kind === 'shape') {
      assert.equal(await node.getAttribute('data-geo'), o.geo);
      assert.equal(await node.locator('path.body').getAttribute('fill'), o.color);
    }
  }
  // A long note wraps onto several lines, all inside the note.
  const lines = await page.locator('[data-id="n1"] text.label tspan').count();
  assert.ok(lines >= 3, `n1 has ${lines} lines`);
  const nb = await page.locator('[data-id="n1"] .body').boundingBox();
  const tb = await page.locator('[data-id="n1"] text.label').boundingBox();
  assert.ok(tb.width <= nb.width && tb.x >= nb.x && tb.x + tb.width <= nb.x + nb.width + 0.5);
  // Frames show their titles; children sit inside.
  assert.equal(await page.locator('[data-id="f2"] [data-testid="frame-title"]').textContent(), 'Risks');
  // Connectors: bound ends follow objects; arrowheads per `arrow`; labels.
  assert.equal(await page.locator('[data-id="c1"] polygon.head').count(), 1);
  assert.equal(await page.locator('[data-id="c2"] polygon.head').count(), 2);
  assert.equal(await page.locator('[data-id="c3"] polygon.head').count(), 0);
  assert.equal(await page.locator('[data-id="c2"] path.line').getAttribute('stroke'), stored.get('c2').color);
  assert.match(await page.locator('[data-id="c1"]').textContent(), /first/);
  // The c1 line starts at n1's edge and ends at the rectangle's edge.
  const d = await page.locator('[data-id="c1"] path.line').getAttribute('d');
  const [x1, y1, x2, y2] = d.match(/-?[\d.]+/g).map(Number);
  const n1 = stored.get('n1');
  const r = stored.get('s_rectangle');
  assert.ok(Math.abs(y1 - (n1.y + n1.h)) < 8, `start ${x1},${y1}`);
  assert.ok(Math.abs(y2 - r.y) < 8, `end ${x2},${y2}`);

  // The picture for the README: a second person's cursor and selection, the chat panel.
  const sam = await openBoard(browser, server, board, { user: 'sam', name: 'Sam' });
  await sam.evaluate(() => window.__wb.app.setSelection(['n5']));
  await sam.mouse.move(700, 420);
  await sam.mouse.move(720, 430, { steps: 3 });
  await page.waitForSelector(`[data-testid="remote-cursor"][data-user-id="${sam.userId}"]:not([hidden])`);
  await page.evaluate(() => window.__wb.app.setSelection(['n2']));
  await page.click('[data-testid="chat-toggle"]');
  await page.waitForSelector('[data-testid="chat-panel"]:not([hidden])');
  await page.click('[data-testid="zoom-fit"]');
  await page.evaluate(() => window.__wb.app.setSelection(['n2']));
  await sam.mouse.move(760, 400, { steps: 2 });
  await screenshot(page, 'screenshot-board');
  assert.deepEqual(page.problems, []);
  assert.deepEqual(sam.problems, []);
  await sam.context().close();
  await page.context().close();
});

test('UI-RENDER-2 a board of 2,000 objects loads and pans smoothly', async () => {
  const objs = [];
  for (let i = 0; i < 2000; i++) {
    const col = i % 50;
    const row = Math.floor(i / 50);
    objs.push({
      kind: i % 5 === 4 ? 'shape' : 'note',
      geo: i % 5 === 4 ? GEOS[i % GEOS.length] : undefined,
      x: col * 230,
      y: row * 230,
      w: 200,
      h: 200,
      color: ['yellow', 'light-blue', 'green', 'orange', 'violet'][i % 5],
      text: `Object ${i}: a few words to wrap`,
    });
  }
  const board = await importBoard(objs);
  const page = await openBoard(browser, server, board, { user: 'perf', name: 'Perf' });
  await until(page, () => document.querySelectorAll('[data-id]').length === 2000, null, 30000);
  // Pan at 100% (text visible) for 90 frames, one step per animation frame.
  const stats = await page.evaluate(async () => {
    window.__wb.setCamera(0, 0, 1);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const times = [];
    let last = performance.now();
    for (let i = 0; i < 90; i++) {
      const c = window.__wb.camera();
      window.__wb.setCamera(c.x - 12, c.y - 6, c.k);
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      times.push(now - last);
      last = now;
    }
    times.sort((a, b) => a - b);
    const avg = times.reduce((a, b) => a + b, 0) / times.length;
    return { avg, p50: times[45], p90: times[81], max: times[89] };
  });
  console.log(`pan of 2,000 objects: avg ${stats.avg.toFixed(1)} ms/frame, p50 ${stats.p50.toFixed(1)}, p90 ${stats.p90.toFixed(1)}, max ${stats.max.toFixed(1)}`);
  // Software rendering, no GPU, 2 cores shared with the server: ask for 20+ frames/s.
  assert.ok(stats.p50 < 50, `median frame ${stats.p50} ms`);
  // The camera is one transform on one group; objects far from the view are left out of rendering.
  const world = await page.locator('[data-testid="world"]').getAttribute('transform');
  assert.match(world, /translate\(-1080 -540\) scale\(1\)/);
  const culled = await page.locator('[data-id][data-culled]').count();
  assert.ok(culled > 1500, `${culled} of 2000 culled at 100%`);
  // Zoomed out to fit, everything is drawn again (text hidden at that scale).
  await page.click('[data-testid="zoom-fit"]');
  await until(page, () => document.querySelectorAll('[data-id][data-culled]').length === 0);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-RENDER-3 a note whose text does not fit is drawn smaller instead of cut off', async () => {
  const long = 'Interview ten regulars about what they order, when they come in, what they would '
    + 'change about the menu, the seating and the music, and what would bring them twice a week';
  const board = await importBoard([
    { id: 'long', kind: 'note', x: 0, y: 0, w: 200, h: 200, color: 'yellow', text: long },
    { id: 'short', kind: 'note', x: 260, y: 0, w: 200, h: 200, color: 'yellow', text: 'Hire two baristas' },
  ]);
  const page = await openBoard(browser, server, board);
  await page.locator('[data-id="long"] text.label').waitFor();
  const read = (id) => page.locator(`[data-id="${id}"] text.label`).evaluate((t) => ({
    size: Number(t.getAttribute('font-size')),
    text: t.textContent,
  }));
  const [l, s] = [await read('long'), await read('short')];
  assert.ok(l.size < s.size, `long text at ${l.size}px, short at ${s.size}px`);
  assert.ok(!l.text.includes('…'), `cut off: ${l.text}`);
  assert.equal(l.text.replace(/\s/g, ''), long.replace(/\s/g, ''));
  assert.deepEqual(page.problems, []);
});

test('UI-RENDER-4 a 10,000-character word draws without freezing the page, wrapped as the export wraps it', async () => {
  const word = 'abcdefghijklmnopqrstuvwxyz'.repeat(400).slice(0, 10000);
  const board = await importBoard([
    { id: 'f', kind: 'frame', x: 0, y: 0, w: 900, h: 500, color: 'gray', text: word },
    { id: 'n', kind: 'note', x: 40, y: 40, w: 200, h: 200, color: 'yellow', text: word },
    { id: 't', kind: 'text', x: 400, y: 40, w: 260, h: 60, color: 'black', text: word },
    { id: 'c', kind: 'connector', from: { id: 'n' }, to: { id: 't' }, text: word },
  ]);
  const page = await preparePage(browser, server, board);
  // Every task longer than 50 ms the page runs from its first script on.
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`${server.url}/b/${page.boardId}`);
  await waitOnline(page);
  await page.locator('[data-id="c"] text.label').waitFor();
  await page.evaluate(() => window.__wb.flush());
  const tasks = await page.evaluate(() => window.__longTasks);
  const longest = Math.max(0, ...tasks);
  console.log(`long tasks while the board loaded and drew: ${JSON.stringify(tasks)} ms`);
  assert.ok(longest < 1000, `the page was busy for ${longest} ms at once`);
  // Wrapping the word again, as a text object lays it out (every line), takes well under a second.
  const wrapped = await page.evaluate(async (w) => {
    const { wrapText } = await import('/static/js/geometry.js');
    const t0 = performance.now();
    const lines = wrapText(w, 256, '400 18px "DejaVu Sans", system-ui, sans-serif');
    return { ms: performance.now() - t0, lines: lines.length, joined: lines.join('') };
  }, word);
  console.log(`wrapText of a 10,000-character word: ${wrapped.ms.toFixed(1)} ms, ${wrapped.lines} lines`);
  assert.ok(wrapped.ms < 1000, `wrapText took ${wrapped.ms} ms`);
  assert.equal(wrapped.joined, word);

  // The note is cut with "…"; the text object shows the whole word; and the page's lines of the
  // text object and the connector label are the exported SVG's. (Not the frame title: the page
  // draws it bold, the export with the one regular font it bundles, so a long title is cut at
  // different places.)
  const note = await page.locator('[data-id="n"] text.label').textContent();
  assert.ok(note.endsWith('…') && note.length < 1000, note);
  const svg = await page.evaluate(async (id) => (await fetch(`/api/boards/${id}/export.svg`)).text(), page.boardId);
  const diff = await page.evaluate((text) => {
    const file = new DOMParser().parseFromString(text, 'image/svg+xml');
    const lines = (n) => [...n.querySelectorAll('text tspan, text.title, text:not(:has(tspan))')].map((t) => t.textContent);
    const out = {};
    for (const id of ['t', 'c']) {
      const mine = lines(document.querySelector(`.board-svg g.obj[data-id="${id}"]`));
      const theirs = lines(file.querySelector(`g[data-id="${id}"]`));
      out[id] = { lines: mine.length, same: JSON.stringify(mine) === JSON.stringify(theirs) };
    }
    return out;
  }, svg);
  assert.deepEqual(diff, { t: { lines: diff.t.lines, same: true }, c: { lines: 3, same: true } });
  assert.ok(diff.t.lines > 300, `${diff.t.lines} lines`);
  assert.equal((await page.locator('[data-id="t"] text.label').textContent()).replace(/\s/g, ''), word);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
