// Grow to fit: the height a note, shape or text object needs to show all of its text at its
// width, with the renderer's text styles (render.js). Outlines other than the rectangle show text
// in a smaller inner area, so they need more height for the same lines.

import { TEXT_STYLE, FONT_FAMILY } from './render.js';
import { wrapText, round } from './geometry.js';

/** Inner text area of an outline, as a share of its box height. */
const INNER = { ellipse: 0.72, cloud: 0.62, diamond: 0.5, triangle: 0.5, hexagon: 0.85, star: 0.45 };

/** Largest height grow-to-fit asks for (the server's limit on sizes is larger). */
const MAX_FIT_H = 4000;

/**
 * The size patch `{h}` that shows all of `text` in `o` (only ever taller, never shorter), or
 * null when `o` needs no change or its kind has no box text (frames, connectors).
 */
export function fitPatch(o, text) {
  const st = TEXT_STYLE[o.kind];
  if (!st || !text) return null;
  const lines = wrapText(text, o.w - st.pad * 2, `400 ${st.size}px ${FONT_FAMILY}`).length;
  let need = lines * st.lh + st.pad * 2;
  if (o.kind === 'shape') need /= INNER[o.geo] || 1;
  need = round(Math.min(MAX_FIT_H, Math.ceil(need)));
  return need > o.h ? { h: need } : null;
}
