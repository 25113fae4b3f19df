// Export and import from the browser (EXPORT-2, EXPORT-10, EXPORT-11): the exported SVG wraps
// text and draws outlines as the page does; the Export menu downloads SVG, PNG, PDF and the board
// file (whole board or selection) and each download opens; a board file dropped on a board is
// added as one undoable command; the list shows previews and turns a dropped board file into a
// new board.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openBoard, until, screenshot, useServerAndBrowser, objects, preparePage } from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

function sample() {
  return [
    { id: 'f1', kind: 'frame', x: 0, y: 0, w: 520, h: 280, text: 'Plan', color: 'gray' },
    { id: 'n1', kind: 'note', parent: 'f1', x: 30, y: 40, text: 'Pick a roaster', color: 'yellow' },
    { id: 'n2', kind: 'note', parent: 'f1', x: 280, y: 40, text: 'Hire baristas', color: 'light-green' },
    { id: 's1', kind: 'shape', geo: 'star', x: 640, y: 40, w: 160, h: 140, color: 'orange', text: 'Open' },
    { id: 'c1', kind: 'connector', from: { id: 'n2' }, to: { id: 's1' }, text: 'then' },
  ];
}

async function newBoard(objs) {
  const { status, body } = await server.api('POST', '/api/boards', { title: 'Export test', objects: objs });
  assert.equal(status, 201, JSON.stringify(body));
  return body.board;
}

/** Clicks Export, then the format's item; resolves the download's bytes and file name. */
async function exportVia(page, format, scope) {
  await page.click('[data-testid="export-open"]');
  await page.waitForSelector('[data-testid="export-list"]:not([hidden])');
  if (scope) await page.selectOption('[data-testid="export-scope"]', scope);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid="export-${format}"]`)]);
  const file = await download.path();
  return { bytes: readFileSync(file), name: download.suggestedFilename() };
}

/** Opens image bytes in the page as an <img>: its natural size (0 x 0 if it does not load). */
async function openImage(page, bytes, type) {
  return page.evaluate(
    async ({ b64, type }) => {
      const img = new Image();
      const loaded = new Promise((resolve) => {
        img.onload = () => resolve(true);
        img.onerror = () => resolve(false);
      });
      img.src = `data:${type};base64,${b64}`;
      return (await loaded) ? { w: img.naturalWidth, h: img.naturalHeight } : { w: 0, h: 0 };
    },
    { b64: bytes.toString('base64'), type },
  );
}

function havePdftoppm() {
  try {
    execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('EXPORT-10 the Export menu downloads SVG, PNG, PDF and the board file, and each opens', async () => {
  const board = await newBoard(sample());
  const page = await openBoard(browser, server, board);
  await until(page, () => window.__wb.objects().length === 5);

  const svg = await exportVia(page, 'svg');
  assert.match(svg.name, /\.svg$/);
  const text = svg.bytes.toString('utf8');
  assert.ok(text.startsWith('<svg') && text.includes('data-id="s1"'), text.slice(0, 200));
  const svgSize = await openImage(page, svg.bytes, 'image/svg+xml');
  assert.ok(svgSize.w > 500 && svgSize.h > 200, JSON.stringify(svgSize));

  const png = await exportVia(page, 'png');
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const pngSize = await openImage(page, png.bytes, 'image/png');
  assert.deepEqual(pngSize, svgSize, 'the PNG is the SVG drawn at scale 1');

  const pdf = await exportVia(page, 'pdf');
  assert.equal(pdf.bytes.subarray(0, 5).toString(), '%PDF-');
  if (havePdftoppm()) {
    const dir = mkdtempSync(path.join(tmpdir(), 'export-pdf-'));
    writeFileSync(path.join(dir, 'b.pdf'), pdf.bytes);
    execFileSync('pdftoppm', ['-png', '-r', '96', '-singlefile', path.join(dir, 'b.pdf'), path.join(dir, 'page')]);
    const page1 = readFileSync(path.join(dir, 'page.png'));
    const pdfSize = await openImage(page, page1, 'image/png');
    assert.ok(Math.abs(pdfSize.w - svgSize.w) <= 1 && Math.abs(pdfSize.h - svgSize.h) <= 1, JSON.stringify(pdfSize));
  } else {
    console.log('pdftoppm not installed (poppler-utils): the PDF render step is skipped');
  }

  const json = await exportVia(page, 'json');
  const file = JSON.parse(json.bytes.toString('utf8'));
  assert.equal(file.format, 'board');
  assert.equal(file.version, 1);
  assert.equal(file.board.id, board);
  assert.equal(file.objects.length, 5);
  await screenshot(page, 'export-menu');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('EXPORT-10 with a selection, the menu exports the selection', async () => {
  const board = await newBoard(sample());
  const page = await openBoard(browser, server, board);
  await until(page, () => window.__wb.objects().length === 5);
  await page.evaluate(() => window.__wb.app.setSelection(['s1']));
  const json = await exportVia(page, 'json');
  assert.deepEqual(
    JSON.parse(json.bytes.toString('utf8')).objects.map((o) => o.id),
    ['s1'],
  );
  await page.evaluate(() => window.__wb.app.setSelection(['n2', 's1']));
  const svg = (await exportVia(page, 'svg')).bytes.toString('utf8');
  assert.ok(svg.includes('data-id="c1"') && !svg.includes('data-id="n1"'));
  // "Whole board" can still be chosen with something selected.
  const all = await exportVia(page, 'json', 'board');
  assert.equal(JSON.parse(all.bytes.toString('utf8')).objects.length, 5);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

/** Drops a file named `name` holding `text` on the element matching `selector`. */
async function dropFile(page, selector, name, text) {
  await page.evaluate(
    ({ selector, name, text }) => {
      const target = document.querySelector(selector);
      const dt = new DataTransfer();
      dt.items.add(new File([text], name, { type: 'application/json' }));
      for (const type of ['dragover', 'drop']) {
        target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    },
    { selector, name, text },
  );
}

test('EXPORT-11 a board file dropped on a board is added in open space, and one undo removes it', async () => {
  const board = await newBoard(sample());
  const page = await openBoard(browser, server, board);
  await until(page, () => window.__wb.objects().length === 5);
  const file = { format: 'board', version: 1, board: { id: 'x', title: 'X' }, seq: 0, exported_at: 0, objects: sample() };
  await dropFile(page, '[data-testid="stage"]', 'plan.json', JSON.stringify(file));
  await until(page, () => window.__wb.objects().length === 10);
  const objs = await objects(page);
  const fresh = objs.filter((o) => !['f1', 'n1', 'n2', 's1', 'c1'].includes(o.id));
  assert.equal(fresh.length, 5);
  const boxes = (list) => list.filter((o) => o.kind !== 'connector');
  for (const a of boxes(fresh)) {
    for (const b of boxes(objs.filter((o) => !fresh.includes(o)))) {
      const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
      assert.ok(apart, `${a.id} overlaps ${b.id}`);
    }
  }
  await screenshot(page, 'export-imported');
  await page.click('[data-testid="undo"]');
  await until(page, () => window.__wb.objects().length === 5);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('EXPORT-11 the list shows previews and makes a new board from a dropped board file', async () => {
  const board = await newBoard(sample());
  const page = await preparePage(browser, server, board, { name: 'Lister' });
  await page.goto(`${server.url}/`);
  const img = `[data-board-id="${board}"] [data-testid="board-preview"]`;
  await page.waitForSelector(img);
  await until(page, (sel) => document.querySelector(sel).naturalWidth > 0, img);
  const file = { format: 'board', version: 1, board: { id: 'x', title: 'Dropped plan' }, objects: sample() };
  await dropFile(page, 'body', 'dropped.json', JSON.stringify(file));
  await until(page, () => [...document.querySelectorAll('[data-testid="board-title"]')].some((a) => a.textContent === 'Dropped plan'));
  await screenshot(page, 'export-list');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('EXPORT-2 the exported SVG wraps text and places shapes as the page does', async () => {
  const objs = sample();
  objs.push(
    { id: 't1', kind: 'text', x: 0, y: 320, w: 260, h: 60, text: 'Free text long enough to wrap onto a second line at least' },
    { id: 'n3', kind: 'note', x: 300, y: 320, w: 140, h: 120, color: 'black', text: 'A dark note whose text is far too long to fit' },
    { id: 'c2', kind: 'connector', from: { id: 'n1' }, to: { id: 't1' }, arrow: 'both', text: 'a label that is long enough to wrap' },
  );
  const board = await newBoard(objs);
  const page = await openBoard(browser, server, board);
  await until(page, (n) => window.__wb.objects().length === n, objs.length);
  await page.evaluate(() => window.__wb.flush());
  const exported = (await exportVia(page, 'svg')).bytes.toString('utf8');
  const { diff, lines: compared, outlines } = await page.evaluate((text) => {
    const out = [];
    let count = 0;
    let shapes = 0;
    const file = new DOMParser().parseFromString(text, 'image/svg+xml');
    for (const node of document.querySelectorAll('.board-svg g.obj[data-id]')) {
      const id = node.getAttribute('data-id');
      const there = file.querySelector(`g[data-id="${id}"]`);
      if (!there) {
        out.push(`${id} missing`);
        continue;
      }
      const lines = (n) => [...n.querySelectorAll('text tspan, text.title, text:not(:has(tspan))')].map((t) => t.textContent);
      const mine = lines(node).filter((l) => l !== 'Text');
      const theirs = lines(there);
      count += mine.length;
      if (JSON.stringify(mine) !== JSON.stringify(theirs)) out.push(`${id}: ${JSON.stringify(mine)} vs ${JSON.stringify(theirs)}`);
      const pathOf = (n) => n.querySelector('path.body, path:not(.hit)')?.getAttribute('d');
      if (node.getAttribute('data-kind') === 'shape') {
        shapes += 1;
        const round = (d) => (d || '').replace(/-?\d+\.\d+/g, (v) => String(Math.round(v * 100) / 100));
        if (round(pathOf(node)) !== round(pathOf(there))) out.push(`${id} outline: ${pathOf(node)} vs ${pathOf(there)}`);
      }
    }
    return { diff: out, lines: count, outlines: shapes };
  }, exported);
  assert.deepEqual(diff, []);
  assert.ok(compared >= 12 && outlines === 1, `${compared} lines, ${outlines} outlines compared`);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
