import type { CursorBatch, DragFrame, RoomEvent, RoomSnapshot, SyncMessage } from '@wb/protocol';
import { LiveInk, type LiveStroke } from './liveInk.ts';
import { applyConnectivity, applyRoomEvent, elementTouchedBy, framedByLesson, sessionsEndedBy, stateFromSnapshot, type BoardFrame, type RoomState } from './roomState.ts';

/**
 * The client's sync engine: turns the server's sync messages, revisioned events and cursor
 * batches into one consistent room state. Pure: no React, no socket, no timers. Time comes in as
 * `now` arguments and the one thing it asks of the outside world (a resync) goes through a port,
 * so tests decide when each packet arrives and what time it is.
 *
 * Rules (named in syncEngine.test.ts):
 * - I1: an event whose id was applied, or whose revision is passed, changes nothing.
 * - Events apply in revision order. An event ahead of the next revision is held (bounded) for
 *   `gapHoldMs`; if the missing one does not arrive, the engine asks for a resync. Never a guess.
 * - While reconciling (after connect, during a resync) packets go to a bounded buffer. On overflow
 *   cursor packets are dropped first (the next one supersedes them); a durable event overflow
 *   forces a fresh snapshot.
 * - Cursors render only once a sync is applied, only for sessions with a connected presence, and a
 *   cursor goes the moment its session's presence ends; a late cursor packet cannot revive it.
 * - A drag preview (another person moving, resizing or turning an element) is shown only while
 *   its generation is the element's current lock generation and its session is the holder: a
 *   former holder's late packet never moves an element (I1, I4). Any event touching the element
 *   ends the preview.
 * - Live ink (liveInk.ts, rules LI1-LI5) follows the cursor rules: shown only for a connected
 *   presence, gone with it; a stroke goes the moment its element (same id) is applied, so the
 *   durable stroke replaces it in the same change, and a late entry never revives it.
 * - One engine per board, the same rules for each: the class board (the lesson's own log) and each
 *   private board (its own log, framed by the lesson's people and rules: `reframe`). A change of
 *   the frame is no event of the board and moves no revision.
 * - A board kept on this device (`restore`, after a reload) is a state like one the engine held
 *   before a disconnect: shown while no socket is up, named as `revision` on the next connect so
 *   the server answers with a replay or a snapshot, and never put over a state already here.
 * - A lease prompt names the room revision the server has published. Behind it with nothing held
 *   means the last event was lost (no later one will reveal the gap): wait `gapHoldMs`, then resync.
 */

export type SyncPhase =
  /** No socket: nothing flows, no cursors. */
  | 'idle'
  /** A socket is open and the server's first sync has not been applied yet. */
  | 'awaiting_sync'
  /** State is current; events apply as they arrive. */
  | 'live'
  /** A gap or an overflow made us ask for a resync; packets are buffered until it lands. */
  | 'resyncing';

export interface CursorTarget {
  readonly sessionId: string;
  readonly userId: string;
  readonly x: number;
  readonly y: number;
  /** Local receive time (ms): drives interpolation only, never a decision (I2). */
  readonly receivedAt: number;
}

export interface SyncLimits {
  /** How long an out-of-order event waits for the missing revision before we resync (ms). */
  readonly gapHoldMs: number;
  /** Out-of-order events held while waiting; one more forces a resync at once (I10). */
  readonly maxHeldEvents: number;
  /** Packets buffered while reconciling (I10). */
  readonly maxBufferedPackets: number;
  /** Applied event ids remembered for deduplication; older ones are covered by the revision check. */
  readonly rememberedEventIds: number;
  /** A sync that has not arrived after this long is asked for again (lost reply) (ms). */
  readonly syncTimeoutMs: number;
}

export const DEFAULT_SYNC_LIMITS: SyncLimits = {
  gapHoldMs: 1_000, // long enough for a reordered packet on a busy socket, short enough to not be seen
  maxHeldEvents: 64,
  maxBufferedPackets: 256,
  rememberedEventIds: 2_048,
  syncTimeoutMs: 5_000,
};

export interface SyncPorts {
  /**
   * Ask the server for a sync: a replay after `lastRevision`, or a fresh snapshot when it is
   * undefined. The answer comes back through `receiveSync`.
   */
  requestSync(lastRevision: number | undefined): void;
}

export type SyncChange = 'state' | 'cursors' | 'drags' | 'ink' | 'phase';

/**
 * Someone else's drag in progress: where the element's (x, y) is now, under a current lock, and
 * for a resize or turn the frame it has been taken to (`DragEntry.frame`).
 */
export interface DragTarget {
  readonly elementId: string;
  readonly generation: number;
  readonly sessionId: string;
  readonly userId: string;
  readonly x: number;
  readonly y: number;
  readonly frame?: DragFrame;
  /** Local receive time (ms), for interpolation only (I2). */
  readonly receivedAt: number;
}

export interface SyncStats {
  applied: number;
  ignoredDuplicate: number;
  ignoredPassed: number;
  ignoredForeignRoom: number;
  held: number;
  resyncs: number;
  staleSyncs: number;
  droppedCursorPackets: number;
  durableOverflows: number;
  ignoredCursors: number;
  ignoredDrags: number;
  ignoredInk: number;
  /** Resyncs started because a lease prompt showed the room ahead of us with nothing held. */
  lostTailResyncs: number;
}

type Buffered = { kind: 'event'; event: RoomEvent } | { kind: 'cursors'; batch: CursorBatch };

export class SyncEngine {
  private roomState: RoomState | null = null;
  private currentPhase: SyncPhase = 'idle';
  /** Out-of-order events by revision, waiting for the gap below them to fill. */
  private readonly held = new Map<number, RoomEvent>();
  private gapSince: number | null = null;
  private buffer: Buffered[] = [];
  /** Set when only a snapshot at or past `snapshotFloor` can make the state whole again. */
  private needsSnapshot = false;
  private snapshotFloor = 0;
  private syncRequestedAt: number | null = null;
  /** Insertion-ordered so the oldest id is evicted first. */
  private readonly appliedIds = new Set<string>();
  /**
   * Sessions an ending event (expiry, close, revocation) names that could not be applied yet
   * (held or buffered): their cursors are hidden now, by the event's revision, and the hint is
   * dropped once the state reaches that revision and speaks for itself.
   */
  private readonly endHints = new Map<string, number>();
  private readonly targets = new Map<string, CursorTarget>();
  private readonly dragTargets = new Map<string, DragTarget>();
  private readonly liveInk = new LiveInk();
  /** Set when a lease prompt said the room is past our revision and nothing explains it yet. */
  private behindSince: number | null = null;
  private serverRevision = 0;
  private readonly listeners = new Set<(changes: ReadonlySet<SyncChange>) => void>();
  private readonly pending = new Set<SyncChange>();
  private readonly limits: SyncLimits;
  readonly stats: SyncStats = {
    applied: 0,
    ignoredDuplicate: 0,
    ignoredPassed: 0,
    ignoredForeignRoom: 0,
    held: 0,
    resyncs: 0,
    staleSyncs: 0,
    droppedCursorPackets: 0,
    durableOverflows: 0,
    ignoredCursors: 0,
    ignoredDrags: 0,
    ignoredInk: 0,
    lostTailResyncs: 0,
  };

  constructor(
    private readonly ports: SyncPorts,
    private readonly selfSessionId: string | null = null,
    limits: Partial<SyncLimits> = {},
  ) {
    this.limits = { ...DEFAULT_SYNC_LIMITS, ...limits };
  }

  get state(): RoomState | null {
    return this.roomState;
  }

  get phase(): SyncPhase {
    return this.currentPhase;
  }

  /** The revision to send on reconnect, so the server can answer with a replay. */
  get revision(): number | undefined {
    return this.roomState?.revision;
  }

  /** Cursors to draw, by session id. Empty until a sync has been applied on this connection. */
  get cursors(): ReadonlyMap<string, CursorTarget> {
    return this.targets;
  }

  /** Other people's drags in progress, by element id. */
  get drags(): ReadonlyMap<string, DragTarget> {
    return this.dragTargets;
  }

  /** Other people's strokes being drawn, by stroke id. */
  get ink(): ReadonlyMap<string, LiveStroke> {
    return this.liveInk.strokes;
  }

  subscribe(listener: (changes: ReadonlySet<SyncChange>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A board this device kept from before a reload (a snapshot at its revision and the tombstones it
   * knew). Only into an engine that holds no state yet: a sync that already came is newer. Returns
   * whether it was taken.
   */
  restore(kept: { snapshot: RoomSnapshot; tombstones: ReadonlyArray<readonly [string, number]> }): boolean {
    if (this.roomState) return false;
    const tombstones = new Map<string, number>(kept.tombstones);
    this.roomState = stateFromSnapshot(kept.snapshot, { ...stateFromSnapshot(kept.snapshot), tombstones });
    this.pending.add('state');
    this.flush();
    return true;
  }

  /** A socket opened: the server will send a sync; buffer everything until it is applied. */
  connectionOpened(now: number): void {
    this.resetTransient();
    this.setPhase('awaiting_sync');
    this.syncRequestedAt = now;
    this.flush();
  }

  /** The socket closed: remote cursors stop flowing, so none is shown until the next sync. */
  connectionClosed(): void {
    this.resetTransient();
    this.setPhase('idle');
    this.syncRequestedAt = null;
    this.flush();
  }

  receiveSync(sync: SyncMessage, now: number): void {
    if (this.currentPhase === 'idle') return;
    let bridged: boolean;
    if (sync.kind === 'snapshot') {
      const applied = this.applySnapshot(sync);
      if (applied && sync.snapshot.revision >= this.snapshotFloor) this.needsSnapshot = false;
      // A stale snapshot leaves our (newer) state standing; it bridges unless a snapshot is owed.
      bridged = !this.needsSnapshot;
    } else {
      bridged = this.applyReplay(sync, now) && !this.needsSnapshot;
    }
    if (bridged) this.finishReconciliation(now);
    this.flush();
  }

  receiveEvent(event: RoomEvent, now: number): void {
    switch (this.currentPhase) {
      case 'idle':
        return;
      case 'awaiting_sync':
      case 'resyncing':
        this.hintEnd(event);
        this.bufferPacket({ kind: 'event', event }, now);
        break;
      case 'live':
        this.acceptEvent(event, now);
        break;
    }
    this.flush();
  }

  receiveCursors(batch: CursorBatch, now: number): void {
    switch (this.currentPhase) {
      case 'idle':
        return;
      case 'awaiting_sync':
      case 'resyncing':
        this.bufferPacket({ kind: 'cursors', batch }, now);
        break;
      case 'live':
        this.applyCursorBatch(batch, now);
        break;
    }
    this.flush();
  }

  /** A socket of some session closed or reopened. Ephemeral: moves no revision (I7). */
  receivePresenceSignal(signal: { sessionId: string; connected: boolean }): void {
    if (!this.roomState) return;
    const next = applyConnectivity(this.roomState, signal.sessionId, signal.connected);
    if (next !== this.roomState) {
      this.roomState = next;
      this.pending.add('state');
    }
    // A closed socket sends no more cursor packets; any that arrive later are stale.
    if (!signal.connected && this.targets.delete(signal.sessionId)) this.pending.add('cursors');
    if (!signal.connected && this.liveInk.dropSession(signal.sessionId)) this.pending.add('ink');
    this.flush();
  }

  /**
   * A private board's frame changed (docs/boards.md): its lesson's people and rules (presence, a
   * member's pen, the lesson's status and settings) or the board's edit policy (the activity froze
   * or ran again). Not an event of the board: it moves no revision (like a connectivity signal,
   * I7); cursors, drags and ink whose session left the lesson end with it.
   */
  reframe(lesson: RoomState, frame: BoardFrame): void {
    if (!this.roomState) return;
    const next = framedByLesson(this.roomState, lesson, frame);
    if (next === this.roomState) return;
    this.roomState = next;
    this.pending.add('state');
    this.pruneCursors();
    this.pruneDrags();
    this.pruneInk();
    this.flush();
  }

  /**
   * The server's lease prompt carried the room revision it has published. If we are behind it and
   * hold nothing that explains the difference, an event was lost on the way: unlike a gap in the
   * middle, a lost last event has no later one to reveal it. Hold briefly (it may still be in
   * flight on a busy socket), then resync.
   */
  receiveRoomRevision(roomRevision: number, now: number): void {
    this.serverRevision = Math.max(this.serverRevision, roomRevision);
    this.checkBehind(now);
    this.flush();
  }

  /** Drive time-based rules: a gap held too long, a lost last event, a sync that never came. */
  tick(now: number): void {
    if (this.liveInk.expire(now)) this.pending.add('ink');
    if (this.currentPhase === 'live' && this.gapSince !== null && now - this.gapSince >= this.limits.gapHoldMs) {
      this.startResync(now);
    } else if (this.currentPhase === 'live' && this.behindSince !== null && now - this.behindSince >= this.limits.gapHoldMs) {
      this.behindSince = null;
      this.stats.lostTailResyncs += 1;
      this.startResync(now);
    } else if (
      (this.currentPhase === 'awaiting_sync' || this.currentPhase === 'resyncing') &&
      this.syncRequestedAt !== null &&
      now - this.syncRequestedAt >= this.limits.syncTimeoutMs
    ) {
      this.syncRequestedAt = now;
      this.ports.requestSync(this.needsSnapshot ? undefined : this.roomState?.revision);
    }
    this.flush();
  }

  // -------------------------------------------------------------------------------------------

  private applySnapshot(sync: Extract<SyncMessage, { kind: 'snapshot' }>): boolean {
    const current = this.roomState;
    if (current && sync.snapshot.revision < current.revision) {
      // An older snapshot (a slow reply to an earlier request) would move the room backwards (I1).
      this.stats.staleSyncs += 1;
      return false;
    }
    this.roomState = stateFromSnapshot(sync.snapshot, current);
    this.dropSettledHints();
    this.pruneCursors();
    this.pruneDrags();
    this.pruneInk();
    this.pending.add('state');
    return true;
  }

  /** Applies a replay if it connects to our revision; otherwise asks for a snapshot. */
  private applyReplay(sync: Extract<SyncMessage, { kind: 'replay' }>, now: number): boolean {
    const state = this.roomState;
    if (!state || sync.fromRevision > state.revision) {
      this.demandSnapshot(state?.revision ?? 0, now);
      return false;
    }
    const events = [...sync.events].sort((a, b) => a.revision - b.revision);
    for (const event of events) {
      const current = this.roomState;
      if (!current) return false;
      if (this.appliedIds.has(event.eventId) || event.revision <= current.revision) continue;
      if (event.revision !== current.revision + 1) {
        // A replay with a hole cannot be trusted to be complete: start over from a snapshot.
        this.demandSnapshot(event.revision, now);
        return false;
      }
      this.apply(event);
    }
    return true;
  }

  private finishReconciliation(now: number): void {
    this.setPhase('live');
    this.syncRequestedAt = null;
    this.applyHeldRun();
    this.gapSince = this.held.size > 0 ? now : null;
    const drained = this.buffer;
    this.buffer = [];
    // Events first in revision order, so a drained cursor batch is judged against current presence.
    const events = drained.flatMap((b) => (b.kind === 'event' ? [b.event] : [])).sort((a, b) => a.revision - b.revision);
    for (const event of events) {
      if (this.currentPhase === 'live') this.acceptEvent(event, now);
      else this.bufferPacket({ kind: 'event', event }, now);
    }
    for (const item of drained) {
      if (item.kind !== 'cursors') continue;
      if (this.currentPhase === 'live') this.applyCursorBatch(item.batch, now);
      else this.bufferPacket(item, now);
    }
    this.checkBehind(now);
  }

  private checkBehind(now: number): void {
    const revision = this.roomState?.revision ?? 0;
    const explained = this.currentPhase !== 'live' || this.held.size > 0 || revision >= this.serverRevision;
    if (explained) this.behindSince = null;
    else this.behindSince ??= now;
  }

  private acceptEvent(event: RoomEvent, now: number): void {
    const state = this.roomState;
    if (!state) return;
    if (event.roomId !== state.room.id) {
      this.stats.ignoredForeignRoom += 1;
      return;
    }
    if (this.appliedIds.has(event.eventId)) {
      this.stats.ignoredDuplicate += 1;
      return;
    }
    if (event.revision <= state.revision) {
      this.stats.ignoredPassed += 1;
      return;
    }
    if (event.revision === state.revision + 1) {
      this.apply(event);
      this.applyHeldRun();
      this.gapSince = this.held.size > 0 ? now : null;
      this.checkBehind(now);
      return;
    }
    // Ahead of the next revision: hold it, hide the cursors it ends, and wait for the gap to fill.
    this.hintEnd(event);
    if (!this.held.has(event.revision)) {
      this.held.set(event.revision, event);
      this.stats.held += 1;
    }
    this.gapSince ??= now;
    this.behindSince = null; // the gap rule owns this now
    if (this.held.size > this.limits.maxHeldEvents) this.startResync(now);
  }

  private applyHeldRun(): void {
    for (;;) {
      const state = this.roomState;
      if (!state) return;
      // Anything held at or below the revision is now history.
      for (const revision of this.held.keys()) if (revision <= state.revision) this.held.delete(revision);
      const next = this.held.get(state.revision + 1);
      if (!next) return;
      this.held.delete(next.revision);
      if (this.appliedIds.has(next.eventId)) continue;
      this.apply(next);
    }
  }

  private apply(event: RoomEvent): void {
    const before = this.roomState;
    if (!before) return;
    const ended = sessionsEndedBy(before, event);
    this.roomState = applyRoomEvent(before, event);
    this.rememberId(event.eventId);
    this.stats.applied += 1;
    this.pending.add('state');
    for (const sessionId of ended) if (this.targets.delete(sessionId)) this.pending.add('cursors');
    for (const sessionId of ended) if (this.liveInk.dropSession(sessionId)) this.pending.add('ink');
    this.inkAfter(event);
    // The event is the truth about this element now: a preview drawn before it must not outlive it.
    const touched = elementTouchedBy(event);
    if (touched !== null && this.dragTargets.delete(touched)) this.pending.add('drags');
    if (ended.length > 0) this.pruneDrags();
    this.dropSettledHints();
  }

  private startResync(now: number): void {
    // Held events go back through the buffer: after the resync they are either history or next.
    const held = [...this.held.values()];
    this.held.clear();
    this.gapSince = null;
    this.behindSince = null;
    this.setPhase('resyncing');
    for (const event of held) this.bufferPacket({ kind: 'event', event }, now);
    if (this.needsSnapshot) return; // bufferPacket overflowed and already asked for a snapshot
    this.stats.resyncs += 1;
    this.syncRequestedAt = now;
    this.ports.requestSync(this.roomState?.revision);
  }

  /** Only a snapshot at or past `floor` can repair the state; ask for one now. */
  private demandSnapshot(floor: number, now: number): void {
    this.needsSnapshot = true;
    this.snapshotFloor = Math.max(this.snapshotFloor, floor);
    this.setPhase('resyncing');
    this.stats.resyncs += 1;
    this.syncRequestedAt = now;
    this.ports.requestSync(undefined);
  }

  private bufferPacket(item: Buffered, now: number): void {
    if (this.buffer.length < this.limits.maxBufferedPackets) {
      this.buffer.push(item);
      return;
    }
    const cursorIndex = this.buffer.findIndex((b) => b.kind === 'cursors');
    if (cursorIndex >= 0) {
      this.buffer.splice(cursorIndex, 1);
      this.stats.droppedCursorPackets += 1;
      this.buffer.push(item);
      return;
    }
    if (item.kind === 'cursors') {
      this.stats.droppedCursorPackets += 1;
      return;
    }
    // Only durable events left and no room: dropping one would leave a hole we must not guess
    // across, so drop them all and fetch a snapshot that covers them.
    this.stats.durableOverflows += 1;
    const dropped = this.buffer.flatMap((b) => (b.kind === 'event' ? [b.event.revision] : []));
    this.buffer = this.buffer.filter((b) => b.kind !== 'event');
    this.demandSnapshot(Math.max(item.event.revision, ...dropped), now);
  }

  private applyCursorBatch(batch: CursorBatch, now: number): void {
    const state = this.roomState;
    if (!state) return;
    for (const [sessionId, x, y] of batch.cursors) {
      if (sessionId === this.selfSessionId) continue;
      const presence = state.presence.get(sessionId);
      // No presence, a closed socket or a pending end: a late packet, not a cursor. The user
      // behind the cursor is the one the roster holds for the session.
      if (!presence || !presence.connected || this.endHints.has(sessionId)) {
        this.stats.ignoredCursors += 1;
        continue;
      }
      this.targets.set(sessionId, { sessionId, userId: presence.userId, x, y, receivedAt: now });
      this.pending.add('cursors');
    }
    for (const d of batch.drags ?? []) {
      if (d.sessionId === this.selfSessionId) continue;
      const lock = state.elements.get(d.elementId)?.lock;
      // Only the current holder under the current generation moves a preview (I1, I4).
      if (!lock || lock.generation !== d.generation || lock.sessionId !== d.sessionId || this.endHints.has(d.sessionId)) {
        this.stats.ignoredDrags += 1;
        continue;
      }
      this.dragTargets.set(d.elementId, { ...d, receivedAt: now });
      this.pending.add('drags');
    }
    for (const entry of batch.ink ?? []) {
      if (entry.sessionId === this.selfSessionId) continue;
      const presence = state.presence.get(entry.sessionId);
      // Like a cursor: only a connected presence draws; a stroke already durable is not drawn twice.
      if (!presence || !presence.connected || this.endHints.has(entry.sessionId) || state.elements.has(entry.strokeId) || state.tombstones.has(entry.strokeId)) {
        this.stats.ignoredInk += 1;
        continue;
      }
      if (this.liveInk.receive(entry, presence.userId, now)) this.pending.add('ink');
    }
  }

  /** What a durable event ends of the live ink: its element arrived or went (LI2), a look-only lesson (students' strokes), a muted pen. */
  private inkAfter(event: RoomEvent): void {
    let changed = false;
    if (event.kind === 'element.created') changed = this.liveInk.finish(event.payload.element.id);
    else if (event.kind === 'element.deleted') changed = this.liveInk.finish(event.payload.elementId);
    else if (event.kind === 'room.updated' && (event.payload.settings.editPolicy === 'look' || event.payload.status !== 'open')) {
      const members = this.roomState?.members;
      changed = this.liveInk.dropWhere((s) => members?.get(s.userId)?.role !== 'teacher');
    } else if (event.kind === 'member.pen' && event.payload.muted) {
      const { userId } = event.payload;
      changed = this.liveInk.dropWhere((s) => s.userId === userId);
    }
    if (changed) this.pending.add('ink');
  }

  /** After a snapshot: strokes it made durable, and those of drawers no longer connected, end. */
  private pruneInk(): void {
    const state = this.roomState;
    const dropped = this.liveInk.dropWhere((s) => {
      const presence = state?.presence.get(s.sessionId);
      return !presence || !presence.connected || (state?.elements.has(s.strokeId) ?? false);
    });
    if (dropped) this.pending.add('ink');
  }

  /** Drops previews whose lock is gone, changed hands, or whose holder's presence ended. */
  private pruneDrags(): void {
    const state = this.roomState;
    for (const [elementId, drag] of this.dragTargets) {
      const lock = state?.elements.get(elementId)?.lock;
      const present = state?.presence.has(drag.sessionId) ?? false;
      if (!lock || lock.generation !== drag.generation || !present) {
        this.dragTargets.delete(elementId);
        this.pending.add('drags');
      }
    }
  }

  private hintEnd(event: RoomEvent): void {
    // An ending we already applied needs no hint; its session may even have opened again since.
    if (this.roomState && event.revision <= this.roomState.revision) return;
    const sessions = sessionsEndedBy(this.roomState, event);
    for (const sessionId of sessions) {
      const prior = this.endHints.get(sessionId);
      if (prior === undefined || prior < event.revision) this.endHints.set(sessionId, event.revision);
      if (this.targets.delete(sessionId)) this.pending.add('cursors');
      if (this.liveInk.dropSession(sessionId)) this.pending.add('ink');
    }
  }

  private dropSettledHints(): void {
    const revision = this.roomState?.revision ?? 0;
    for (const [sessionId, hinted] of this.endHints) if (hinted <= revision) this.endHints.delete(sessionId);
  }

  private pruneCursors(): void {
    const state = this.roomState;
    for (const sessionId of this.targets.keys()) {
      const presence = state?.presence.get(sessionId);
      if (!presence || !presence.connected) {
        this.targets.delete(sessionId);
        this.pending.add('cursors');
      }
    }
  }

  private rememberId(eventId: string): void {
    this.appliedIds.add(eventId);
    if (this.appliedIds.size > this.limits.rememberedEventIds) {
      const oldest = this.appliedIds.values().next();
      if (!oldest.done) this.appliedIds.delete(oldest.value);
    }
  }

  private resetTransient(): void {
    this.held.clear();
    this.gapSince = null;
    this.behindSince = null;
    this.serverRevision = 0;
    if (this.dragTargets.size > 0) {
      this.dragTargets.clear();
      this.pending.add('drags');
    }
    this.buffer = [];
    this.needsSnapshot = false;
    this.snapshotFloor = 0;
    if (this.targets.size > 0) {
      this.targets.clear();
      this.pending.add('cursors');
    }
    if (this.liveInk.clear()) this.pending.add('ink');
  }

  private setPhase(phase: SyncPhase): void {
    if (this.currentPhase === phase) return;
    this.currentPhase = phase;
    this.pending.add('phase');
  }

  private flush(): void {
    if (this.pending.size === 0) return;
    const changes = new Set(this.pending);
    this.pending.clear();
    for (const listener of this.listeners) listener(changes);
  }
}
