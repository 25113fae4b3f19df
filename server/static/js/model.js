// The board document as this client sees it.
//
// `confirmed` is the server's truth: objects from `welcome` with every `applied` written in
// literally (the server's ops carry final, clamped values and every derived change). `pending`
// holds this client's own commits that the server has not answered yet, each with the local
// effects it predicts (cascades included). What is shown, `view`, is `confirmed` with the
// pending predictions laid over it in order: a confirmation or a rejection simply drops the
// commit from `pending` and recomputes the objects it touched, so a rejected edit rolls back and a
// confirmed one shows the server's values.

import { DEFAULT_SIZE, defaultColor } from './util.js';

/** Applies one normalized op to a map of objects (literally, no cascades). */
function applyOp(map, op) {
  switch (op.op) {
    case 'create':
      map.set(op.object.id, { ...op.object });
      break;
    case 'update': {
      const o = map.get(op.id);
      if (o) map.set(op.id, { ...o, ...op.set });
      break;
    }
    case 'delete':
      map.delete(op.id);
      break;
    default:
      // Unknown op kinds from a newer server are ignored.
      break;
  }
}

function opId(op) {
  return op.op === 'create' ? op.object && op.object.id : op.id;
}

export class Doc {
  constructor() {
    /** @type {Map<string, object>} */
    this.confirmed = new Map();
    /** @type {Map<string, object>} */
    this.view = new Map();
    /** Own commits not yet answered, in send order: {id, ops, local, touches}. */
    this.pending = [];
    /**
     * Objects shown on this page only, not sent yet (a new note while its first text is typed:
     * it goes out as one create with its text when the editor closes). Same shape as `pending`.
     */
    this.drafts = [];
    /** Last applied seq seen (0 before the first welcome). */
    this.seq = 0;
    /** connector ids bound to each object id, in `view`. */
    this.bound = new Map();
    /** child ids of each frame id, in `view`. */
    this.children = new Map();
    this.maxZ = 0;
    this.listeners = new Set();
  }

  /** Subscribes to view changes: fn(changedIds: Set<string>, full: boolean). */
  onChange(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(ids, full = false) {
    if (!ids.size && !full) return;
    for (const fn of this.listeners) fn(ids, full);
  }

  get(id) {
    return this.view.get(id);
  }

  /** A full welcome: replaces the confirmed state; pending predictions stay on top. */
  reset(objects, seq) {
    const ids = new Set(this.view.keys());
    this.confirmed = new Map();
    for (const o of objects) {
      this.confirmed.set(o.id, { ...o });
      ids.add(o.id);
    }
    this.seq = seq;
    this.view = new Map();
    this.bound = new Map();
    this.children = new Map();
    this.maxZ = 0;
    this.recompute(ids, false);
    this.emit(ids, true);
  }

  /** An `applied` from the server. Returns the pending entry it confirms, if any. */
  applyServer(seq, command, myUserId) {
    const ids = new Set();
    for (const op of command.ops || []) {
      applyOp(this.confirmed, op);
      const id = opId(op);
      if (id) ids.add(id);
    }
    this.seq = seq;
    let confirmed = null;
    if (command.client_id && (!myUserId || command.author === myUserId)) {
      confirmed = this.takePending(command.client_id, ids);
    }
    this.recompute(ids);
    return confirmed;
  }

  /** Removes a pending commit (confirmed by `ack`, or `rejected`) and rolls its prediction back. */
  settle(clientId) {
    const ids = new Set();
    const entry = this.takePending(clientId, ids);
    if (entry) this.recompute(ids);
    return entry;
  }

  takePending(clientId, ids) {
    const i = this.pending.findIndex((p) => p.id === clientId);
    if (i < 0) return null;
    const [entry] = this.pending.splice(i, 1);
    for (const id of entry.touches) ids.add(id);
    return entry;
  }

  /**
   * Records an own commit: `ops` go on the wire; their predicted effects show at once.
   * Returns the pending entry.
   */
  addPending(id, ops) {
    const local = this.predict(ops);
    const touches = new Set(local.map(opId).filter(Boolean));
    const entry = { id, ops, local, touches, sentAt: 0 };
    this.pending.push(entry);
    this.recompute(touches);
    return entry;
  }

  /** Shows a new object on this page only (see `drafts`). */
  addDraft(object) {
    const local = this.predict([{ op: 'create', object }]);
    const entry = { id: object.id, ops: [], local, touches: new Set([object.id]) };
    this.drafts.push(entry);
    this.recompute(entry.touches);
    return local[0] && local[0].object;
  }

  /** Removes a draft (it is about to be committed, or it was abandoned). */
  dropDraft(id) {
    const i = this.drafts.findIndex((d) => d.id === id);
    if (i < 0) return false;
    const [entry] = this.drafts.splice(i, 1);
    this.recompute(entry.touches);
    return true;
  }

  isDraft(id) {
    return this.drafts.some((d) => d.id === id);
  }

  /** Predicts what the server will do with `ops`, cascades included (against the view). */
  predict(ops) {
    const scratch = new Map();
    const look = (id) => (scratch.has(id) ? scratch.get(id) : this.view.get(id));
    const out = [];
    const push = (op) => {
      out.push(op);
      const id = opId(op);
      if (op.op === 'create') scratch.set(id, op.object);
      else if (op.op === 'delete') scratch.set(id, undefined);
      else {
        const o = look(id);
        if (o) scratch.set(id, { ...o, ...op.set });
      }
    };
    for (const op of ops) {
      if (op.op === 'create') {
        push({ op: 'create', object: this.normalizeCreate(op.object) });
      } else if (op.op === 'update') {
        const o = look(op.id);
        if (!o) continue;
        push({ op: 'update', id: op.id, set: { ...op.set } });
        const dx = op.set.x != null ? op.set.x - o.x : 0;
        const dy = op.set.y != null ? op.set.y - o.y : 0;
        if (o.kind === 'frame' && (dx || dy)) {
          for (const d of this.descendants(op.id)) {
            const c = look(d);
            if (c) push({ op: 'update', id: d, set: { x: c.x + dx, y: c.y + dy } });
          }
        }
      } else if (op.op === 'delete') {
        if (!look(op.id)) continue;
        const gone = [op.id, ...this.descendants(op.id)];
        const goneSet = new Set(gone);
        for (const g of gone) {
          for (const c of this.bound.get(g) || []) {
            if (!goneSet.has(c) && look(c)) {
              goneSet.add(c);
              push({ op: 'delete', id: c });
            }
          }
        }
        for (const g of gone.slice().reverse()) if (look(g)) push({ op: 'delete', id: g });
      }
    }
    return out;
  }

  /** A create as the server would store it (defaults filled in). */
  normalizeCreate(input) {
    const kind = input.kind;
    const [dw, dh] = DEFAULT_SIZE[kind] || [100, 100];
    const o = {
      id: input.id,
      kind,
      x: input.x ?? 0,
      y: input.y ?? 0,
      w: input.w ?? dw,
      h: input.h ?? dh,
      rotation: input.rotation ?? 0,
      z: input.z ?? this.maxZ + 1,
      parent: input.parent ?? null,
      text: input.text ?? '',
      color: input.color || defaultColor(kind),
    };
    if (kind === 'shape') o.geo = input.geo || 'rectangle';
    if (kind === 'connector') {
      o.from = input.from;
      o.to = input.to;
      o.arrow = input.arrow || 'end';
    }
    if (kind === 'image') {
      o.asset = input.asset;
      if (input.alt) o.alt = input.alt;
      if (input.crop) o.crop = input.crop;
    }
    return o;
  }

  /** Every descendant of a frame in the view (depth first). */
  descendants(id) {
    const out = [];
    const seen = new Set([id]);
    const stack = [id];
    while (stack.length) {
      const cur = stack.pop();
      for (const c of this.children.get(cur) || []) {
        if (seen.has(c)) continue;
        seen.add(c);
        out.push(c);
        stack.push(c);
      }
    }
    return out;
  }

  /** Recomputes the view of `ids` from confirmed + pending and notifies listeners. */
  recompute(ids, emit = true) {
    const layers = this.drafts.length ? [...this.pending, ...this.drafts] : this.pending;
    for (const id of ids) {
      let o = this.confirmed.get(id);
      o = o ? { ...o } : undefined;
      for (const p of layers) {
        if (!p.touches.has(id)) continue;
        for (const op of p.local) {
          if (opId(op) !== id) continue;
          if (op.op === 'create') o = { ...op.object };
          else if (op.op === 'delete') o = undefined;
          else if (o) o = { ...o, ...op.set };
        }
      }
      this.setView(id, o);
    }
    if (emit) this.emit(ids);
  }

  setView(id, o) {
    const old = this.view.get(id);
    if (old) {
      this.unindex(old);
    }
    if (o) {
      this.view.set(id, o);
      this.index(o);
      if (typeof o.z === 'number' && o.z > this.maxZ) this.maxZ = o.z;
    } else {
      this.view.delete(id);
    }
  }

  index(o) {
    if (o.parent) addTo(this.children, o.parent, o.id);
    if (o.kind === 'connector') {
      for (const end of [o.from, o.to]) if (end && end.id) addTo(this.bound, end.id, o.id);
    }
  }

  unindex(o) {
    if (o.parent) removeFrom(this.children, o.parent, o.id);
    if (o.kind === 'connector') {
      for (const end of [o.from, o.to]) if (end && end.id) removeFrom(this.bound, end.id, o.id);
    }
  }

  /** Connectors whose ends are bound to any of `ids`. */
  connectorsOf(ids) {
    const out = new Set();
    for (const id of ids) for (const c of this.bound.get(id) || []) out.add(c);
    return out;
  }
}

function addTo(map, key, v) {
  let s = map.get(key);
  if (!s) map.set(key, (s = new Set()));
  s.add(v);
}

function removeFrom(map, key, v) {
  const s = map.get(key);
  if (!s) return;
  s.delete(v);
  if (!s.size) map.delete(key);
}
