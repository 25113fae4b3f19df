// Pure geometry: shape outlines, connector end points, arrowheads, text wrapping.

/** SVG path of a shape outline in its local box (0,0)-(w,h). */
export function shapePath(geo, w, h) {
  switch (geo) {
    case 'ellipse': {
      const rx = w / 2;
      const ry = h / 2;
      return `M0 ${ry}A${rx} ${ry} 0 1 0 ${w} ${ry}A${rx} ${ry} 0 1 0 0 ${ry}Z`;
    }
    case 'diamond':
      return `M${w / 2} 0L${w} ${h / 2}L${w / 2} ${h}L0 ${h / 2}Z`;
    case 'triangle':
      return `M${w / 2} 0L${w} ${h}L0 ${h}Z`;
    case 'hexagon': {
      const i = Math.min(w / 4, h / 2);
      return `M${i} 0L${w - i} 0L${w} ${h / 2}L${w - i} ${h}L${i} ${h}L0 ${h / 2}Z`;
    }
    case 'star': {
      const pts = [];
      for (let k = 0; k < 10; k++) {
        const a = -Math.PI / 2 + (k * Math.PI) / 5;
        const r = k % 2 === 0 ? 1 : 0.45;
        pts.push(`${round(w / 2 + (Math.cos(a) * r * w) / 2)} ${round(h / 2 + (Math.sin(a) * r * h) / 2)}`);
      }
      return `M${pts.join('L')}Z`;
    }
    case 'cloud': {
      // Bumps along an ellipse.
      const n = 9;
      const cx = w / 2;
      const cy = h / 2;
      const rx = w * 0.42;
      const ry = h * 0.36;
      const pts = [];
      for (let k = 0; k < n; k++) {
        const a = (k / n) * Math.PI * 2;
        pts.push([cx + Math.cos(a) * rx, cy + Math.sin(a) * ry]);
      }
      let d = `M${round(pts[0][0])} ${round(pts[0][1])}`;
      for (let k = 0; k < n; k++) {
        const p = pts[(k + 1) % n];
        const r = Math.max(w, h) * 0.16;
        d += `A${round(r)} ${round(r)} 0 0 1 ${round(p[0])} ${round(p[1])}`;
      }
      return d + 'Z';
    }
    default: {
      const r = Math.min(8, w / 4, h / 4);
      return (
        `M${r} 0H${w - r}Q${w} 0 ${w} ${r}V${h - r}Q${w} ${h} ${w - r} ${h}` +
        `H${r}Q0 ${h} 0 ${h - r}V${r}Q0 0 ${r} 0Z`
      );
    }
  }
}

/** Center of an object's box. */
export function center(o) {
  return { x: o.x + o.w / 2, y: o.y + o.h / 2 };
}

/**
 * Where a line from the center of `o` toward `toward` leaves its outline (box, or ellipse for
 * ellipse-like shapes), pushed out by `pad`.
 */
export function boundaryPoint(o, toward, pad = 4) {
  const c = center(o);
  const dx = toward.x - c.x;
  const dy = toward.y - c.y;
  if (dx === 0 && dy === 0) return c;
  const hw = o.w / 2;
  const hh = o.h / 2;
  let t;
  if (o.kind === 'shape' && (o.geo === 'ellipse' || o.geo === 'cloud')) {
    t = 1 / Math.sqrt((dx * dx) / (hw * hw) + (dy * dy) / (hh * hh));
  } else if (o.kind === 'shape' && o.geo === 'diamond') {
    t = 1 / (Math.abs(dx) / hw + Math.abs(dy) / hh);
  } else {
    const tx = dx === 0 ? Infinity : hw / Math.abs(dx);
    const ty = dy === 0 ? Infinity : hh / Math.abs(dy);
    t = Math.min(tx, ty);
  }
  const len = Math.hypot(dx, dy);
  const extra = pad / len;
  return { x: c.x + dx * (t + extra), y: c.y + dy * (t + extra) };
}

/**
 * The two end points of a connector, given a lookup for bound objects. Returns null when a bound
 * end's object is missing.
 */
export function connectorEnds(c, lookup) {
  const raw = (end) => {
    if (!end) return null;
    if (end.id != null) {
      const o = lookup(end.id);
      return o ? { obj: o, p: center(o) } : null;
    }
    if (typeof end.x === 'number' && typeof end.y === 'number') return { obj: null, p: end };
    return null;
  };
  const a = raw(c.from);
  const b = raw(c.to);
  if (!a || !b) return null;
  const pa = a.obj ? boundaryPoint(a.obj, b.p) : a.p;
  const pb = b.obj ? boundaryPoint(b.obj, a.p) : b.p;
  return [pa, pb];
}

/** Triangle points of an arrowhead at `tip`, pointing away from `from`. */
export function arrowHead(from, tip, size = 12) {
  const a = Math.atan2(tip.y - from.y, tip.x - from.x);
  const s = size;
  const p1 = { x: tip.x - s * Math.cos(a - 0.45), y: tip.y - s * Math.sin(a - 0.45) };
  const p2 = { x: tip.x - s * Math.cos(a + 0.45), y: tip.y - s * Math.sin(a + 0.45) };
  return `${round(tip.x)},${round(tip.y)} ${round(p1.x)},${round(p1.y)} ${round(p2.x)},${round(p2.y)}`;
}

/** Axis-aligned bounds of an object (connectors: of their end points). */
export function bounds(o, lookup) {
  if (o.kind === 'connector') {
    const ends = connectorEnds(o, lookup);
    if (!ends) return { x: o.x, y: o.y, w: o.w, h: o.h };
    const [a, b] = ends;
    return {
      x: Math.min(a.x, b.x),
      y: Math.min(a.y, b.y),
      w: Math.abs(a.x - b.x),
      h: Math.abs(a.y - b.y),
    };
  }
  return { x: o.x, y: o.y, w: o.w, h: o.h };
}

export function intersects(a, b) {
  return a.x <= b.x + b.w && b.x <= a.x + a.w && a.y <= b.y + b.h && b.y <= a.y + a.h;
}

export function contains(outer, inner) {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.w <= outer.x + outer.w &&
    inner.y + inner.h <= outer.y + outer.h
  );
}

/** The most characters of one label that are laid out (the server's limit on an object's text,
 * counted in code points) and the most lines one label lays out, as the server's export does
 * (EXPORT-12). */
export const MAX_LABEL_CHARS = 10000;
export const MAX_LABEL_LINES = 1000;

let measureCtx = null;
const widthCache = new Map();

/** The width of `text` in `font`, measured once per font and text. */
function measure(text, font) {
  const key = font + '\u0000' + text;
  let w = widthCache.get(key);
  if (w === undefined) {
    if (!measureCtx) measureCtx = document.createElement('canvas').getContext('2d');
    measureCtx.font = font;
    w = measureCtx.measureText(text).width;
    if (widthCache.size > 20000) widthCache.clear();
    widthCache.set(key, w);
  }
  return w;
}

/** The sum of the widths of `chars` (code points), each measured once: the running width that
 * breaks a word longer than a line, as the server sums the font's advances. */
function charsWidth(chars, font) {
  let w = 0;
  for (const c of chars) w += measure(c, font);
  return w;
}

/** How many of `chars` from `start` fit in `maxWidth` by running width (at least one, at most
 * all but one), and their width. */
function fittingPrefix(chars, start, maxWidth, font) {
  let w = 0;
  let end = start;
  while (end < chars.length - 1) {
    const next = w + measure(chars[end], font);
    if (next > maxWidth) break;
    w = next;
    end++;
  }
  if (end === start) {
    w = measure(chars[start], font);
    end++;
  }
  return [end - start, w];
}

/** `text` cut to its first MAX_LABEL_CHARS code points. */
function capped(text) {
  const s = String(text);
  return s.length > MAX_LABEL_CHARS ? Array.from(s).slice(0, MAX_LABEL_CHARS).join('') : s;
}

/**
 * Wraps `text` into lines no wider than `maxWidth` in `font`, keeping explicit line breaks and
 * breaking words longer than a line. At most `maxLines` lines (and MAX_LABEL_LINES); the last
 * one ends with "…" when text was cut. Linear in the text: each word is measured once (a line's
 * width is the running sum of its words and spaces), and a word longer than a line is broken
 * where its running width passes the line's.
 */
export function wrapText(text, maxWidth, font, maxLines = Infinity) {
  const lines = [];
  if (maxWidth <= 0 || maxLines <= 0) return lines;
  maxLines = Math.min(maxLines, MAX_LABEL_LINES);
  const all = capped(text);
  const space = measure(' ', font);
  outer: for (const para of all.split('\n')) {
    const words = para.split(/(\s+)/).filter((w) => w.length);
    let line = '';
    let lineW = 0;
    for (const word of words) {
      if (/^\s+$/.test(word)) {
        if (line) {
          line += ' ';
          lineW += space;
        }
        continue;
      }
      const w = measure(word, font);
      if (lineW + w <= maxWidth) {
        line += word;
        lineW += w;
        continue;
      }
      if (line.trim()) {
        lines.push(line.trimEnd());
        if (lines.length >= maxLines) break outer;
      }
      [line, lineW] = [word, w];
      if (w <= maxWidth) continue;
      // A word longer than the line: break it by characters.
      const chars = Array.from(word);
      let start = 0;
      let rest = charsWidth(chars, font);
      while (rest > maxWidth && chars.length - start > 1) {
        const [n, headW] = fittingPrefix(chars, start, maxWidth, font);
        lines.push(chars.slice(start, start + n).join(''));
        if (lines.length >= maxLines) break outer;
        start += n;
        rest -= headW;
      }
      [line, lineW] = [chars.slice(start).join(''), rest];
    }
    lines.push(line.trimEnd());
    if (lines.length >= maxLines) break;
  }
  const shown = lines.join('').replace(/\s/g, '').length;
  if (lines.length >= maxLines && shown < all.replace(/\s/g, '').length) {
    const last = Array.from(lines[maxLines - 1] || '');
    let w = measure(last.join(''), font);
    const ellipsis = measure('…', font);
    while (last.length && w + ellipsis > maxWidth) w -= measure(last.pop(), font);
    lines[maxLines - 1] = last.join('') + '…';
    lines.length = maxLines;
  }
  return lines;
}

/**
 * An object's bounds after dragging its `dir` handle (n, e, s, w or a corner) by (dx, dy): at
 * least 10 px each way, the aspect kept if asked (on a corner; a picture keeps it on every handle,
 * an edge handle growing it about the middle of that edge), rounded to 0.01 px.
 */
export function resized(o, dir, dx, dy, keepAspect) {
  let { x, y, w, h } = o;
  if (dir.includes('e')) w = o.w + dx;
  if (dir.includes('w')) w = o.w - dx;
  if (dir.includes('s')) h = o.h + dy;
  if (dir.includes('n')) h = o.h - dy;
  w = Math.max(10, w);
  h = Math.max(10, h);
  if (keepAspect && dir.length === 2) {
    const s = Math.max(w / o.w, h / o.h);
    w = Math.max(10, o.w * s);
    h = Math.max(10, o.h * s);
  } else if (keepAspect && o.kind === 'image' && o.w > 0 && o.h > 0) {
    // An edge handle: the other side follows, centred on the dragged edge's middle.
    const s = dir === 'e' || dir === 'w' ? w / o.w : h / o.h;
    w = o.w * s;
    h = o.h * s;
    if (dir === 'e' || dir === 'w') y = o.y + (o.h - h) / 2;
    else x = o.x + (o.w - w) / 2;
  }
  if (dir.includes('w')) x = o.x + o.w - w;
  if (dir.includes('n')) y = o.y + o.h - h;
  return { x: round(x), y: round(y), w: round(w), h: round(h) };
}

/** A connector end moved by (dx, dy) if it is a free point; an end bound to an object stays. */
export function shiftEnd(end, dx, dy) {
  if (!end || end.id != null) return end;
  return { x: round(end.x + dx), y: round(end.y + dy) };
}

/** The point halfway between two points. */
export function mid(a, b) {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}

/** Rounds a coordinate to 0.01 px, as the board stores them. */
export function round(v) {
  return Math.round(v * 100) / 100;
}
