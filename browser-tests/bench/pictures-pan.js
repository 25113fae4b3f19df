// Benchmark (figures only, no assertion on time): panning a board of 200 pictures in Chromium.
//
//   SERVER_BIN=target/release/server node browser-tests/bench/pictures-pan.js [count] [w] [h]
//   (CPU_SLOWDOWN=4 slows the page's CPU fourfold during the pans, as on a slow laptop or phone)
//
// Seeds a board with `count` (200) distinct PNGs of noise, `w` x `h` (800 x 600) pixels, uploaded
// over HTTP, placed 400 x 300 on the board in a grid of 20 columns. Then, in a fresh browser
// context per mode, pans 90 frames (12 x 6 px a frame) at 100 % and at 25 % and prints the frame
// times (avg, p50, p90, max ms) with the picture requests the page made:
//   lazy  - the client as shipped: pictures near the view only, previews when drawn small;
//   eager - every picture given its URL at once, near the view or not (the loader's `lazy`
//           switched off), as the client did before lazy loading;
//   full  - eager, and the full picture at every zoom, never the preview (`previews` off).
// Pictures of at most 1,024 px (800 x 600) have no smaller preview: try 40 1800 1350 to see
// what previews save.

import { startServer, launchBrowser, openBoard, preparePage, waitOnline, boardId, removeDir, until } from '../lib/harness.js';
import { noisePng } from '../lib/png.js';

const COUNT = Number(process.argv[2] || 200);
const PW = Number(process.argv[3] || 800);
const PH = Number(process.argv[4] || 600);
const COLS = 20;
/** CPU_SLOWDOWN=4 runs the pans with the page's CPU four times slower (Chromium's throttling). */
const SLOWDOWN = Number(process.env.CPU_SLOWDOWN || 1);

async function seed(server, board) {
  const shas = [];
  for (let i = 0; i < COUNT; i++) {
    const res = await fetch(`${server.url}/api/boards/${board}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.admin}`, 'content-type': 'image/png' },
      body: noisePng(PW, PH, i + 1),
    });
    const body = await res.json();
    if (!res.ok) throw new Error(`upload ${i}: ${res.status} ${JSON.stringify(body)}`);
    shas.push(body.sha256);
  }
  return shas;
}

/** One command placing the pictures in a grid (through a page, as a person's commit). */
async function place(page, shas) {
  await page.evaluate(
    ({ shas, cols }) => {
      const ops = shas.map((asset, i) => ({
        op: 'create',
        object: { id: `p${i}`, kind: 'image', asset, x: (i % cols) * 440, y: Math.floor(i / cols) * 340, w: 400, h: 300 },
      }));
      window.__wb.app.commit(ops);
    },
    { shas, cols: COLS },
  );
  await until(page, () => window.__wb.pending === 0, null, 60000);
}

/** Pans 90 frames at zoom `k` from the board's top left; frame times and what loaded meanwhile. */
function pan(page, k) {
  return page.evaluate(async (k) => {
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    window.__wb.setCamera(0, 0, k);
    await frame();
    // Start from rest: what the first view needs has loaded.
    while (document.querySelector('[data-kind="image"][data-picture="loading"]')) await frame();
    await frame();
    const times = [];
    let last = performance.now();
    for (let i = 0; i < 90; i++) {
      const c = window.__wb.camera();
      window.__wb.setCamera(c.x - 12, c.y - 6, c.k);
      await frame();
      const now = performance.now();
      times.push(now - last);
      last = now;
    }
    times.sort((a, b) => a - b);
    const avg = times.reduce((a, b) => a + b, 0) / times.length;
    const withUrl = document.querySelectorAll('[data-kind="image"] image[href]').length;
    return { avg, p50: times[45], p90: times[81], max: times[89], withUrl };
  }, k);
}

async function run(browser, server, board, mode) {
  const page = await preparePage(browser, server, board, { user: `bench-${mode}`, name: mode });
  // Picture responses, and how many came from the server rather than the browser's cache.
  let requests = 0;
  let fromServer = 0;
  let bytes = 0;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.responseReceived', ({ response: r }) => {
    if (!/\/assets\/[0-9a-f]{64}/.test(r.url)) return;
    requests++;
    if (!r.fromDiskCache && !r.fromPrefetchCache && r.status === 200) {
      fromServer++;
      bytes += Number(r.headers['content-length'] || r.headers['Content-Length'] || 0);
    }
  });
  await page.goto(`${server.url}/b/${page.boardId}`);
  await waitOnline(page);
  await until(page, (n) => document.querySelectorAll('[data-kind="image"]').length === n, COUNT, 60000);
  if (mode !== 'lazy') {
    await page.evaluate((full) => {
      const loader = window.__wb.app.renderer.pictures;
      loader.lazy = false;
      loader.previews = !full;
      window.__wb.app.renderer.cull(true);
    }, mode === 'full');
    await until(page, (n) => document.querySelectorAll('[data-picture="loaded"]').length === n, COUNT, 120000);
  }
  // The first view (the whole board) has loaded before the pans.
  await until(page, () => !document.querySelector('[data-kind="image"][data-picture="loading"]'), null, 120000);
  if (SLOWDOWN > 1) {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: SLOWDOWN });
  }
  const atLoad = fromServer;
  const out = [];
  for (const k of [1, 0.25]) {
    const [before, cached] = [fromServer, requests - fromServer];
    const s = await pan(page, k);
    out.push({ mode, zoom: `${k * 100} %`, ...s, server: fromServer - before, cache: requests - fromServer - cached });
  }
  await page.context().close();
  return { out, atLoad, fromServer, mb: bytes / 1e6 };
}

const ms = (v) => v.toFixed(1).padStart(6);

async function main() {
  const server = await startServer({ args: ['--max-board-asset-bytes', String(4 * 2 ** 30)] });
  const browser = await launchBrowser();
  try {
    const board = await boardId(server, 'pictures-bench');
    const t0 = Date.now();
    const shas = await seed(server, board);
    console.log(`seeded ${COUNT} pictures of ${PW}x${PH} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const setup = await openBoard(browser, server, board, { user: 'bench', name: 'Bench' });
    await place(setup, shas);
    await setup.context().close();
    for (const mode of ['lazy', 'eager', 'full']) {
      const { out, atLoad, fromServer, mb } = await run(browser, server, board, mode);
      for (const r of out) {
        console.log(
          `${r.mode.padEnd(5)} ${r.zoom.padStart(5)}: avg ${ms(r.avg)} ms/frame, p50 ${ms(r.p50)}, p90 ${ms(r.p90)}, max ${ms(r.max)}; ` +
            `pictures with a URL ${String(r.withUrl).padStart(3)}; during the pan fetched ${r.server}, from the cache ${r.cache}`,
        );
      }
      console.log(`${mode.padEnd(5)} pictures fetched from the server: ${atLoad} for the first view, ${fromServer} in all (${mb.toFixed(1)} MB)`);
    }
  } finally {
    await browser.close();
    await server.stop();
    removeDir(server.dataDir);
  }
}

await main();
