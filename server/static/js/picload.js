// Lazy loading of the board's pictures. An image object's <image> gets its URL only while the
// object is in or near the view (the renderer's kept area); far away it has none, so a board with
// hundreds of pictures fetches only what is looked at. A picture drawn at most PREVIEW_PX device
// pixels on its longer side (zoomed out) loads the server's preview (?preview=1), a larger one the
// full picture; once the full picture has loaded it stays in use. The server answers pictures
// with an immutable cache and an ETag, so a URL set again comes from the browser's cache. A URL
// that failed is not asked again on this page: the object shows a placeholder instead.

import { pictureUrl } from './pictures.js';

/** The longest side of the server's previews, in pixels. */
export const PREVIEW_PX = 1024;
/** How many URLs the loader remembers as loaded or failed (oldest forgotten first). */
const REMEMBER = 2000;

export class PictureLoader {
  constructor() {
    /** url -> 'loaded' | 'failed', in the order last used (a bounded LRU). */
    this.state = new Map();
    /** False: every picture gets its URL at once, near the view or not (for benchmarks). */
    this.lazy = true;
  }

  /** The device pixels the whole picture of `o` spans on its longer side at zoom `k`. */
  drawnPx(o, k) {
    const c = o.crop || { w: 1, h: 1 };
    const dpr = globalThis.devicePixelRatio || 1;
    return Math.max(o.w / (c.w || 1), o.h / (c.h || 1)) * k * dpr;
  }

  /** The URL `o` should show at zoom `k` while `near` the view (null: none). */
  wanted(o, k, near) {
    if (!o.asset || !(near || !this.lazy)) return null;
    const full = pictureUrl(o.asset, false);
    const preview = pictureUrl(o.asset, true);
    const big = this.drawnPx(o, k) > PREVIEW_PX;
    const first = big || this.state.get(full) === 'loaded' ? full : preview;
    const other = first === full ? preview : full;
    if (this.state.get(first) !== 'failed') return first;
    // The other size is shown only if it is already here: a failure is not retried in a loop.
    return this.state.get(other) === 'loaded' ? other : first;
  }

  /** Gives the image node of `o` the URL it should have now (no change: no work). */
  attach(node, o, k, near) {
    const img = node.__img;
    if (!img) return;
    const url = this.wanted(o, k, near);
    if (url === node.__href) return;
    node.__href = url;
    if (!url) {
      img.removeAttribute('href');
      if (node.getAttribute('data-picture') !== 'failed') node.setAttribute('data-picture', 'idle');
      return;
    }
    const known = this.state.get(url);
    if (known === 'failed') {
      img.removeAttribute('href');
      node.setAttribute('data-picture', 'failed');
      return;
    }
    node.setAttribute('data-picture', known === 'loaded' ? 'loaded' : 'loading');
    img.setAttribute('href', url);
  }

  /** Wires the load and error events of a fresh <image> of `node`. */
  watch(node, img) {
    node.__img = img;
    node.__href = undefined;
    img.addEventListener('load', () => {
      if (!node.__href) return;
      this.remember(node.__href, 'loaded');
      node.setAttribute('data-picture', 'loaded');
    });
    img.addEventListener('error', () => {
      if (!node.__href) return;
      this.remember(node.__href, 'failed');
      img.removeAttribute('href');
      node.setAttribute('data-picture', 'failed');
    });
  }

  remember(url, what) {
    this.state.delete(url);
    this.state.set(url, what);
    while (this.state.size > REMEMBER) this.state.delete(this.state.keys().next().value);
  }
}
