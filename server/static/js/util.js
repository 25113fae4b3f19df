// Small helpers shared by every module: ids, DOM builders, throttling, the palette.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A random id usable as an object, commit or user id ([A-Za-z0-9_-], 1-64 chars). */
export function uid(prefix = '') {
  if (globalThis.crypto && typeof crypto.randomUUID === 'function') {
    return prefix + crypto.randomUUID();
  }
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The id rule of the protocol. */
export const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}

/** Creates an HTML element: el('button', {class: 'x', 'aria-label': 'y'}, 'text', child). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  for (const c of children) {
    if (c == null || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

/** Creates an SVG element with attributes. */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttrs(node, attrs);
  for (const c of children) {
    if (c == null || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      node.addEventListener(k.slice(2), v);
    } else if (k === 'text') {
      node.textContent = v;
    } else {
      node.setAttribute(k, v === true ? '' : String(v));
    }
  }
}

/**
 * Calls `fn` at most once per `ms`, always delivering the latest arguments (trailing call).
 */
export function throttle(fn, ms) {
  let last = 0;
  let timer = null;
  let args = null;
  const run = () => {
    timer = null;
    last = performance.now();
    const a = args;
    args = null;
    fn(...a);
  };
  const wrapped = (...a) => {
    args = a;
    const wait = ms - (performance.now() - last);
    if (wait <= 0 && !timer) {
      run();
    } else if (!timer) {
      timer = setTimeout(run, Math.max(0, wait));
    }
  };
  wrapped.flush = () => {
    if (timer) {
      clearTimeout(timer);
      run();
    }
  };
  return wrapped;
}

/** The board palette (names as the server knows them, stored as #RRGGBB). */
export const PALETTE = [
  ['yellow', '#FFF59D'],
  ['orange', '#FFCC80'],
  ['red', '#EF9A9A'],
  ['light-red', '#F48FB1'],
  ['violet', '#CE93D8'],
  ['light-violet', '#B39DDB'],
  ['blue', '#90CAF9'],
  ['light-blue', '#81D4FA'],
  ['green', '#A5D6A7'],
  ['light-green', '#C5E1A5'],
  ['gray', '#E0E0E0'],
  ['black', '#212121'],
  ['white', '#FFFFFF'],
];

const BY_NAME = new Map(PALETTE);

/** Default color of a new object of `kind`. */
export function defaultColor(kind) {
  switch (kind) {
    case 'note':
      return BY_NAME.get('yellow');
    case 'shape':
      return BY_NAME.get('light-blue');
    case 'frame':
      return BY_NAME.get('gray');
    default:
      return BY_NAME.get('black');
  }
}

/** The palette name nearest to a hex color (for labels). */
export function colorName(hex) {
  const rgb = parseHex(hex);
  if (!rgb) return hex;
  let best = PALETTE[0][0];
  let dist = Infinity;
  for (const [name, h] of PALETTE) {
    const c = parseHex(h);
    const d = (c[0] - rgb[0]) ** 2 + (c[1] - rgb[1]) ** 2 + (c[2] - rgb[2]) ** 2;
    if (d < dist) {
      dist = d;
      best = name;
    }
  }
  return best;
}

export function parseHex(hex) {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex || '');
  if (!m) return null;
  const n = parseInt(m[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** A darker shade of a hex color (outlines). */
export function darken(hex, f = 0.72) {
  const c = parseHex(hex);
  if (!c) return '#616161';
  return '#' + c.map((v) => Math.round(v * f).toString(16).padStart(2, '0')).join('');
}

/** True when text on this background should be light. */
export function isDark(hex) {
  const c = parseHex(hex);
  if (!c) return false;
  return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 110;
}

/** True for black or near-black (ink that a dark canvas would hide). */
export function isInk(hex) {
  const c = parseHex(hex);
  return !!c && 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 64;
}

/** Default (w, h) by kind, as the server fills them in. */
export const DEFAULT_SIZE = {
  note: [200, 200],
  shape: [200, 120],
  text: [200, 40],
  frame: [400, 300],
  connector: [10, 10],
};

/** True when keyboard focus is in a text field (shortcuts then belong to it). */
export function typingInto(target) {
  if (!target || !(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') {
    const type = (target.getAttribute('type') || 'text').toLowerCase();
    return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color'].includes(type);
  }
  return false;
}

/** Whether the platform uses Cmd rather than Ctrl for shortcuts. */
export const IS_MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || '');

/** Ctrl on Linux/Windows, Cmd on macOS (either accepted everywhere). */
export function modKey(e) {
  return e.ctrlKey || e.metaKey;
}
