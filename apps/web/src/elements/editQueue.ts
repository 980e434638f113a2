import { isRequestErrorCode, type Element, type ElementShape, type ErrorCode } from '@wb/protocol';

/**
 * This client's own edits, from the moment they are made until the room's events show them:
 * optimistic display, acknowledged sending, an offline queue. Pure: the shell sends what
 * `nextToSend` returns and reports each acknowledgement back.
 *
 * - Edits go out one at a time, in the order they were made: a later edit of the same element
 *   names the version the earlier one produced, which is only known from its acknowledgement.
 * - An update names the version it was made against (`baseVersion`); if someone changed the
 *   element meanwhile the server answers `conflict` and the edit is dropped, with the edits built
 *   on it. Never a silent overwrite of someone else's change.
 * - A refused edit is dropped; one that could not be sent (offline, timeout, rate limit) stays
 *   queued and goes again with the same request id (the server is idempotent by request id).
 * - Bounded (I10): past `limit` unsynced edits, new ones are refused, none is dropped.
 * - Acknowledged edits stay drawn until the confirmed state shows their version, so nothing
 *   flickers back between the acknowledgement and the room event.
 */

export type EditOp =
  | { readonly kind: 'create'; readonly requestId: string; readonly id: string; readonly shape: ElementShape }
  | {
      readonly kind: 'update';
      readonly requestId: string;
      readonly id: string;
      readonly shape: ElementShape;
      /** The version this edit was made against, or the own edit whose result it builds on. */
      readonly base: number | { readonly after: string };
    }
  | { readonly kind: 'delete'; readonly requestId: string; readonly id: string; readonly erased?: boolean };

/** What goes on the wire for one edit. */
export type EditRequest =
  | { readonly kind: 'create'; readonly requestId: string; readonly id: string; readonly shape: ElementShape }
  | { readonly kind: 'update'; readonly requestId: string; readonly id: string; readonly baseVersion: number; readonly shape: ElementShape }
  | { readonly kind: 'delete'; readonly requestId: string; readonly id: string; readonly erased?: boolean };

type Status = 'queued' | 'in_flight' | 'acked';

interface Entry {
  op: EditOp;
  status: Status;
  /** The element version the server reported for this edit once acknowledged. */
  ackedVersion: number | null;
  /** Draw order for a pending create: above everything confirmed. */
  readonly seq: number;
  cache: { base: Element | undefined; result: Element | undefined } | null;
}

export interface ConfirmedElements {
  readonly elements: ReadonlyMap<string, Element>;
  readonly tombstones: ReadonlyMap<string, number>;
}

/** Unsynced edits kept at most (I10). */
export const MAX_UNSYNCED_EDITS = 500;

/** Pending creates are drawn above every confirmed element (server z values are revisions). */
const PENDING_Z_BASE = 2 ** 48;

export class EditQueue {
  private entries: Entry[] = [];
  private seq = 0;
  /** Moves whenever the unsynced edits change (the shell persists them when it moves). */
  private changes = 0;

  constructor(
    private readonly selfUserId: string,
    private readonly limit = MAX_UNSYNCED_EDITS,
  ) {}

  /** Edits not yet acknowledged: the "N unsynced" the page shows. */
  get unsynced(): number {
    return this.entries.filter((e) => e.status !== 'acked').length;
  }

  get size(): number {
    return this.entries.length;
  }

  /** A counter that moves whenever `pending()` would answer differently (added, acknowledged, dropped, rebased). */
  get pendingChanges(): number {
    return this.changes;
  }

  /**
   * Edits made before a reload (offline/persistedEdits.ts), put back ahead of anything made since:
   * they are older, and nothing made since can build on them (they were not drawn yet). Each goes
   * again with its own request id, so one the server already applied is answered, not applied twice.
   * Edits already queued (by request id) are not added twice. Not bounded by `limit`: they were
   * within it when made, and dropping one would lose it.
   */
  restore(ops: readonly EditOp[]): void {
    const known = new Set(this.entries.map((e) => e.op.requestId));
    const restored: Entry[] = [];
    for (const op of ops) {
      if (known.has(op.requestId)) continue;
      known.add(op.requestId);
      restored.push({ op, status: 'queued', ackedVersion: null, seq: this.seq++, cache: null });
    }
    if (restored.length === 0) return;
    this.entries = [...restored, ...this.entries];
    this.changes += 1;
  }

  /** Adds an edit; false when the queue is full (the caller tells the person). */
  enqueue(op: EditOp): boolean {
    if (this.unsynced >= this.limit) return false;
    this.entries.push({ op, status: 'queued', ackedVersion: null, seq: this.seq++, cache: null });
    this.changes += 1;
    return true;
  }

  /** The version an edit of `id` made now should name: our own latest edit's, else the confirmed one. */
  baseFor(id: string, confirmed: ConfirmedElements): number | { after: string } | null {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i];
      if (!e || e.op.id !== id) continue;
      if (e.op.kind === 'delete') return null;
      if (e.status === 'acked' && e.ackedVersion !== null) return Math.max(e.ackedVersion, confirmed.elements.get(id)?.version ?? 0);
      return { after: e.op.requestId };
    }
    return confirmed.elements.get(id)?.version ?? null;
  }

  /** The next edit to send, marked in flight; null while one is in flight or none is queued. */
  nextToSend(): EditRequest | null {
    if (this.entries.some((e) => e.status === 'in_flight')) return null;
    const entry = this.entries.find((e) => e.status === 'queued');
    if (!entry) return null;
    const { op } = entry;
    if (op.kind === 'update' && typeof op.base !== 'number') {
      // Its predecessor is always acknowledged first (one at a time, in order); if not, wait.
      return null;
    }
    entry.status = 'in_flight';
    if (op.kind === 'update') return { kind: 'update', requestId: op.requestId, id: op.id, baseVersion: op.base as number, shape: op.shape };
    return op;
  }

  /** The server accepted the edit: `element` is its answer (for a delete, the tombstone's version). */
  acknowledged(requestId: string, version: number): void {
    const entry = this.entries.find((e) => e.op.requestId === requestId);
    if (!entry) return;
    entry.status = 'acked';
    entry.ackedVersion = version;
    this.changes += 1;
    for (const e of this.entries) {
      if (e.op.kind === 'update' && typeof e.op.base !== 'number' && e.op.base.after === requestId) e.op = { ...e.op, base: version };
    }
  }

  /**
   * The server refused the edit for good (conflict, forbidden, locked, not found, bad request):
   * it is dropped, with every edit built on it. Returns the dropped edits.
   */
  refused(requestId: string): EditOp[] {
    return this.drop(new Set([requestId]), new Set());
  }

  /**
   * The server refused a create because the board is full (`board_full`): the creates still
   * queued behind it (the rest of a paste, of a duplicate) would be refused too, so they are
   * dropped now with it, with the edits built on them or naming their elements, and nothing more
   * is sent for them. Edits already in flight or acknowledged stay. Returns the dropped edits.
   */
  refusedAsFull(requestId: string): EditOp[] {
    const doomed = new Set([requestId]);
    const elements = new Set<string>();
    for (const e of this.entries) {
      if (e.op.kind !== 'create' || (e.op.requestId !== requestId && e.status !== 'queued')) continue;
      doomed.add(e.op.requestId);
      elements.add(e.op.id);
    }
    return this.drop(doomed, elements);
  }

  /** Drops the `doomed` edits, every edit built on one of them, and every edit of the `elements`. */
  private drop(doomed: Set<string>, elements: ReadonlySet<string>): EditOp[] {
    const dropped: EditOp[] = [];
    const keep: Entry[] = [];
    for (const e of this.entries) {
      const dependsOnDoomed = e.op.kind === 'update' && typeof e.op.base !== 'number' && doomed.has(e.op.base.after);
      if (doomed.has(e.op.requestId) || dependsOnDoomed || elements.has(e.op.id)) {
        doomed.add(e.op.requestId);
        dropped.push(e.op);
      } else keep.push(e);
    }
    this.entries = keep;
    if (dropped.length > 0) this.changes += 1;
    return dropped;
  }

  /** The edit could not be delivered (disconnect, timeout, rate limit): it goes again later. */
  unsent(requestId: string): void {
    const entry = this.entries.find((e) => e.op.requestId === requestId);
    if (entry?.status === 'in_flight') entry.status = 'queued';
  }

  /** A socket closed: whatever was in flight is unknown, so it is sent again (idempotent). */
  requeueInFlight(): void {
    for (const e of this.entries) if (e.status === 'in_flight') e.status = 'queued';
  }

  /**
   * A change of ours the server accepted outside the queue (a drag's final position, committed
   * with the lock's release): drawn like an acknowledged edit until the room event shows it.
   */
  acceptedElsewhere(element: Element): void {
    const requestId = `accepted-${this.seq}`;
    this.entries.push({
      op: { kind: 'update', requestId, id: element.id, shape: element.shape, base: element.version - 1 },
      status: 'acked',
      ackedVersion: element.version,
      seq: this.seq++,
      cache: null,
    });
  }

  /** Forgets acknowledged edits the confirmed state now shows. */
  settle(confirmed: ConfirmedElements): void {
    this.entries = this.entries.filter((e, index) => {
      if (e.status !== 'acked' || e.ackedVersion === null) return true;
      if (confirmed.tombstones.has(e.op.id)) return false;
      const current = confirmed.elements.get(e.op.id);
      if (e.op.kind === 'delete') {
        // Absent and not about to be drawn by an earlier edit of ours (a create whose event has not
        // come yet): settled. Otherwise it waits for the tombstone, or the element would flash back.
        const earlier = this.entries.slice(0, index).some((o) => o.op.id === e.op.id);
        return current !== undefined || earlier;
      }
      return !current || current.version < e.ackedVersion;
    });
  }

  /**
   * The elements to draw: the confirmed ones with our unsettled edits on top. Returns the
   * confirmed map itself when there is nothing on top, and reuses element objects where nothing
   * changed, so a renderer that caches by identity redraws only what moved.
   */
  view(confirmed: ConfirmedElements): ReadonlyMap<string, Element> {
    if (this.entries.length === 0) return confirmed.elements;
    const out = new Map(confirmed.elements);
    for (const entry of this.entries) {
      const { op } = entry;
      const base = out.get(op.id);
      if (entry.cache && entry.cache.base === base) {
        if (entry.cache.result) out.set(op.id, entry.cache.result);
        else out.delete(op.id);
        continue;
      }
      let result: Element | undefined;
      switch (op.kind) {
        case 'create':
          // A deletion is final even over our own pending create (I1).
          result = confirmed.tombstones.has(op.id)
            ? undefined
            : (base ?? { id: op.id, shape: op.shape, version: 0, pinned: false, createdBy: this.selfUserId, updatedBy: this.selfUserId, z: PENDING_Z_BASE + entry.seq, lock: null });
          break;
        case 'update':
          result = base && base.shape.kind === op.shape.kind ? { ...base, shape: op.shape, updatedBy: this.selfUserId } : base;
          break;
        case 'delete':
          result = undefined;
          break;
      }
      entry.cache = { base, result };
      if (result) out.set(op.id, result);
      else out.delete(op.id);
    }
    return out;
  }

  /** Unsynced edits, oldest first (for diagnostics and tests). */
  pending(): EditOp[] {
    return this.entries.filter((e) => e.status !== 'acked').map((e) => e.op);
  }
}

/**
 * Refusals that end an edit for good: the protocol's request codes (the request itself was refused).
 * Anything else (rate limited, unavailable, a session ending) means "try again later".
 */
export function isFinalRefusal(code: ErrorCode): boolean {
  return isRequestErrorCode(code);
}
