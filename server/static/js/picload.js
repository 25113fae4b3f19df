// Lazy loading of the board's pictures. An image object's <image> gets its URL only once the
// object is in or near the view (the renderer's kept area), so a board with hundreds of pictures
// fetches only what is looked at; at most KEEP pictures away from the view keep theirs (a bounded
// cache of decoded pictures). A picture drawn at most PREVIEW_PX device pixels on its longer side
// (zoomed out) loads the server's preview (?preview=1), a larger one the full picture; once the
// full picture has loaded it stays in use. The server answers pictures with an immutable cache
// and an ETag, so a URL set again comes from the browser's cache. A URL that failed is not asked
// again on this page: the object shows a placeholder instead.

import { pictureUrl } from './pictures.js';

/** The longest side of the server's previews, in pixels. */
export const PREVIEW_PX = 1024;
/** How many URLs the loader remembers as loaded or failed (oldest forgotten first). */
const REMEMBER = 2000;
/** How many pictures away from the view keep their URL (and so their decoded pixels). */
export const KEEP = 100;

export class PictureLoader {
  constructor() {
    /** url -> 'loaded' | 'failed', in the order last used (a bounded LRU). */
    this.state = new Map();
    /** False: every picture gets its URL at once, near the view or not (for benchmarks). */
    this.lazy = true;
    /** False: the full picture at every zoom, never the preview (for benchmarks). */
    this.previews = true;
    /** Image nodes that have (or had, near the view) a URL, the longest away from the view first. */
    this.kept = new Map();
  }

  /** The device pixels the whole picture of `o` spans on its longer side at zoom `k`. */
  drawnPx(o, k) {
    const c = o.crop || { w: 1, h: 1 };
    const dpr = globalThis.devicePixelRatio || 1;
    return Math.max(o.w / (c.w || 1), o.h / (c.h || 1)) * k * dpr;
  }

  /** The URL `o` should show at zoom `k` while `near` the view (null: none). */
  wanted(o, k, near) {
    if (!o.asset || !near) return null;
    const full = pictureUrl(o.asset, false);
    const preview = pictureUrl(o.asset, true);
    const big = !this.previews || this.drawnPx(o, k) > PREVIEW_PX;
    const first = big || this.state.get(full) === 'loaded' ? full : preview;
    const other = first === full ? preview : full;
    if (this.state.get(first) !== 'failed') return first;
    // The other size is shown only if it is already here: a failure is not retried in a loop.
    return this.state.get(other) === 'loaded' ? other : first;
  }

  /**
   * Gives the image node of `o` the URL it should have now (no change: no work). A picture that
   * leaves the view keeps its URL (and the browser its decoded pixels) while at most KEEP
   * pictures away from the view do; past that, the one longest away loses it first.
   */
  attach(node, o, k, near) {
    if (!node.__img) return;
    if (near || !this.lazy) {
      this.kept.delete(node);
      this.kept.set(node, true);
      this.show(node, this.wanted(o, k, true));
    }
    node.__near = near;
  }

  /**
   * Takes their URL from the pictures longest away from the view, down to KEEP of them (the
   * renderer calls it after each pass over the objects).
   */
  trim() {
    if (!this.lazy) return;
    let away = 0;
    for (const n of this.kept.keys()) {
      // A node gone from the board (its object deleted, or all redrawn) is forgotten.
      if (!n.isConnected) this.kept.delete(n);
      else if (!n.__near) away++;
    }
    for (const n of this.kept.keys()) {
      if (away <= KEEP) break;
      if (n.__near) continue;
      this.kept.delete(n);
      away--;
      this.show(n, null);
    }
  }

  /**
   * Sets (or, with null, takes away) the URL of `node`'s <image>. The picture is fetched and
   * decoded first by an off-screen <img> (decode() works off the main thread), and only then given
   * to the <image>, which would otherwise decode it while painting and stall a pan. The <img>
   * stays with the node, so a redrawn object shows its picture again at once.
   */
  show(node, url) {
    const img = node.__img;
    if (url === node.__href) return;
    node.__href = url;
    if (!url) {
      img.removeAttribute('href');
      node.__pre = null;
      if (node.getAttribute('data-picture') !== 'failed') node.setAttribute('data-picture', 'idle');
      return;
    }
    if (this.state.get(url) === 'failed') {
      img.removeAttribute('href');
      node.setAttribute('data-picture', 'failed');
      return;
    }
    const pre = node.__pre;
    if (pre && pre.__url === url && pre.__ready) {
      img.setAttribute('href', url);
      node.setAttribute('data-picture', 'loaded');
      return;
    }
    node.setAttribute('data-picture', 'loading');
    this.predecode(node, url);
  }

  /** Fetches and decodes `url` off screen, then hands it to the node's <image> if still wanted. */
  predecode(node, url) {
    const pre = new Image();
    pre.__url = url;
    node.__pre = pre;
    const ready = () => {
      pre.__ready = true;
      this.remember(url, 'loaded');
      if (node.__pre !== pre || node.__href !== url) return;
      node.__img.setAttribute('href', url);
      node.setAttribute('data-picture', 'loaded');
    };
    // Loaded: decode it (a picture the <img> cannot decode ahead, such as some SVGs, still shows).
    pre.addEventListener('load', () => pre.decode().then(ready, ready));
    pre.addEventListener('error', () => {
      this.remember(url, 'failed');
      if (node.__pre !== pre) return;
      node.__pre = null;
      if (node.__href !== url) return;
      node.__img.removeAttribute('href');
      node.setAttribute('data-picture', 'failed');
    });
    pre.src = url;
  }

  /** Takes a fresh <image> of `node` (the object was drawn again): it has no URL yet. */
  watch(node, img) {
    node.__img = img;
    node.__href = undefined;
    node.setAttribute('data-picture', 'idle');
  }

  remember(url, what) {
    this.state.delete(url);
    this.state.set(url, what);
    while (this.state.size > REMEMBER) this.state.delete(this.state.keys().next().value);
  }
}
