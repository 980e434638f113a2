/**
 * The generator side of the lock-contention benchmark (issue 9 figure 5, issue 6): one room of
 * connected clients hammering a handful of elements with drag locks, over the product protocol
 * (`lock.acquire`, volatile `lock.move`, `lock.release`). Runs inside the load-generator process
 * on clients the generator already joined and connected; lockContention.ts drives it over IPC.
 *
 * Everything a correctness claim rests on is checked from what the clients saw, not from the
 * server's own word:
 * - double grants: the same (element, generation) acknowledged as a grant to two sessions;
 * - every client's `lock.granted` stream, in revision order: per element the generation strictly
 *   increases, and each acknowledged grant shows up there under the session that got it;
 * - laggards: a few clients take a lock and then stay silent (no move, so only the 2 s first term
 *   holds it) until they see someone else granted a newer generation; then they send stale moves
 *   and a late `lock.release` with the old generation and a marker position far off the board's
 *   working area. Each must be refused (`stale_generation`), no watcher may see the marker in a
 *   drag entry or an `element.updated`, and the final snapshot must show every element exactly
 *   where its last acknowledged commit put it, at the version that the counted commits imply.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ClientEvent,
  ErrorCode,
  type Ack,
  type CursorBatch,
  type ElementReply,
  type ElementShape,
  type LockGrant,
  type RoomEvent,
  type SessionGrant,
  type SyncMessage,
} from '@wb/protocol';
import type { BenchSocket } from './benchSocket.ts';
import type { LockWorkloadParams, LockWorkloadResult } from './generatorMessages.ts';
import { LatencyHistogram } from './latencyHistogram.ts';

/** What the workload needs of the generator's Client (structural, so no import cycle). */
export interface LockParticipant {
  readonly local: number;
  socket: BenchSocket | null;
  live: boolean;
  grant: SessionGrant | null;
}

/** Laggards' late commits land at or beyond this x: no honest commit ever goes there. */
const STALE_MARKER = 7_000_000;
/** Drag moves are paced like a pointer at 30 Hz (the protocol's limit for lock.move). */
const MOVE_INTERVAL_MS = 33;
const BOARD_SPAN = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const rect = (x: number, y: number): ElementShape => ({ kind: 'rect', x, y, w: 120, h: 80, stroke: '#2563eb', fill: 'transparent', strokeWidth: 2 });
const randomCoordinate = () => Math.round(Math.random() * BOARD_SPAN);

type Reply<T> = Ack<T> | 'timeout' | 'not_connected';

/** An acknowledged request, bounded in time: a lost ack is counted, never waited on forever. */
function request<T>(socket: BenchSocket | null, event: string, payload: unknown, timeoutMs: number): Promise<Reply<T>> {
  if (!socket) return Promise.resolve('not_connected');
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), timeoutMs);
    socket.emit(event, payload, (reply) => {
      clearTimeout(timer);
      resolve(reply as Ack<T>);
    });
  });
}

const failureCode = (reply: Reply<unknown>): string => (typeof reply === 'string' ? reply : reply.ok ? 'ok' : reply.error.code);

interface SeenGrant {
  elementId: string;
  generation: number;
  sessionId: string;
  revision: number;
}

/** One client's view of the room while the workload runs. */
class Watcher {
  readonly grants: SeenGrant[] = [];
  readonly eventIds = new Set<string>();
  readonly latestGeneration = new Map<string, number>();
  /** Laggards wait here for someone else's newer grant on the element they hold. */
  readonly takeoverWaiters = new Map<string, { above: number; resolve: () => void }>();
}

interface AppliedCommit {
  version: number;
  x: number;
  y: number;
}

export class LockWorkload {
  private readonly elementIds: string[] = [];
  private readonly elementSet = new Set<string>();
  private readonly createdVersion = new Map<string, number>();
  private readonly watchers = new Map<LockParticipant, Watcher>();
  private readonly acquireRtt = new LatencyHistogram();
  private readonly grantRtt = new LatencyHistogram();
  private readonly refusalRtt = new LatencyHistogram();
  private readonly releaseRtt = new LatencyHistogram();
  /** `${elementId}:${generation}` -> the session the grant was acknowledged to. */
  private readonly grantedTo = new Map<string, string>();
  private readonly appliedCommits = new Map<string, AppliedCommit[]>();
  private readonly runId = randomBytes(4).toString('hex');
  private counter = 0;
  private acquires = 0;
  private grants = 0;
  private doubleGrants = 0;
  private duplicateGrantAcks = 0;
  private readonly refusals: Record<string, number> = {};
  private readonly releaseRefusals: Record<string, number> = {};
  private releasesApplied = 0;
  private movesSent = 0;
  private readonly stale = {
    takeovers: 0,
    commitsSent: 0,
    rejected: 0,
    accepted: 0,
    otherRefusals: {} as Record<string, number>,
    movesSent: 0,
    abandoned: 0,
    abandonedReleases: {} as Record<string, number>,
  };
  private dragEntriesSeen = 0;
  private staleMovesRelayed = 0;
  private lateDragEntries = 0;
  private staleUpdatesSeen = 0;
  private duplicateEventDeliveries = 0;
  private uncertainCommits = 0;

  constructor(
    private readonly participants: LockParticipant[],
    private readonly params: LockWorkloadParams,
  ) {
    for (const p of participants) this.watchers.set(p, new Watcher());
  }

  // ---------------------------------------------------------------------------------------------
  // Taps: the generator forwards every room event and cursor batch of the room's clients here.

  onRoomEvent(participant: LockParticipant, event: RoomEvent): void {
    const watcher = this.watchers.get(participant);
    if (!watcher) return;
    if (event.kind === 'element.updated') {
      if (this.elementSet.has(event.payload.element.id) && event.payload.element.shape.x >= STALE_MARKER) this.staleUpdatesSeen += 1;
      return;
    }
    if (event.kind !== 'lock.granted' || !this.elementSet.has(event.payload.elementId)) return;
    if (watcher.eventIds.has(event.eventId)) {
      this.duplicateEventDeliveries += 1;
      return;
    }
    watcher.eventIds.add(event.eventId);
    const { elementId, generation, sessionId } = event.payload;
    watcher.grants.push({ elementId, generation, sessionId, revision: event.revision });
    watcher.latestGeneration.set(elementId, Math.max(generation, watcher.latestGeneration.get(elementId) ?? 0));
    const waiter = watcher.takeoverWaiters.get(elementId);
    if (waiter && generation > waiter.above) {
      watcher.takeoverWaiters.delete(elementId);
      waiter.resolve();
    }
  }

  onBatch(participant: LockParticipant, batch: CursorBatch): void {
    const watcher = this.watchers.get(participant);
    if (!watcher || !batch.drags) return;
    for (const drag of batch.drags) {
      if (!this.elementSet.has(drag.elementId)) continue;
      this.dragEntriesSeen += 1;
      if (drag.x >= STALE_MARKER) this.staleMovesRelayed += 1;
      // Batches and room events travel separately: a drag of the previous holder may arrive just
      // after the next grant. Clients drop those by generation; counted to show it happens.
      if (drag.generation < (watcher.latestGeneration.get(drag.elementId) ?? 0)) this.lateDragEntries += 1;
    }
  }

  // ---------------------------------------------------------------------------------------------

  async run(): Promise<LockWorkloadResult> {
    const teacher = this.participants.find((p) => p.grant?.role === 'teacher') ?? this.participants[0];
    if (!teacher) throw new Error('locks: no clients');
    const notLive = this.participants.filter((p) => !p.live).length;
    if (notLive > 0) throw new Error(`locks: ${notLive} clients are not connected`);
    await this.createElements(teacher);

    // The last `laggards` students are the late committers; everyone else drags normally.
    const students = this.participants.filter((p) => p !== teacher);
    const laggards = new Set(students.slice(students.length - this.params.laggards));
    const started = performance.now();
    const deadline = started + this.params.windowMs;
    await Promise.all(this.participants.map((p) => this.userLoop(p, laggards.has(p), deadline)));
    const elapsedMs = performance.now() - started;
    // Late events and batches of the last releases.
    await sleep(500);
    const finalState = await this.checkFinalState(teacher);
    return this.summarise(elapsedMs, laggards.size, finalState);
  }

  private nextRequestId(local: number): string {
    this.counter += 1;
    return `lk-${this.runId}-${local}-${this.counter}`;
  }

  private async createElements(teacher: LockParticipant): Promise<void> {
    for (let i = 0; i < this.params.elements; i++) {
      const id = randomUUID();
      // Before the request: the creator's own element.created may arrive before its ack.
      this.elementIds.push(id);
      this.elementSet.add(id);
      const reply = await request<ElementReply>(
        teacher.socket,
        ClientEvent.ELEMENT_CREATE,
        { requestId: this.nextRequestId(teacher.local), id, shape: rect(randomCoordinate(), randomCoordinate()) },
        this.params.ackTimeoutMs,
      );
      if (typeof reply === 'string' || !reply.ok) throw new Error(`locks: element.create failed: ${failureCode(reply)}`);
      this.createdVersion.set(id, reply.element.version);
    }
  }

  private pickElement(avoid: string | null): string {
    const choices = avoid && this.elementIds.length > 1 ? this.elementIds.filter((id) => id !== avoid) : this.elementIds;
    return choices[Math.floor(Math.random() * choices.length)] ?? '';
  }

  private async userLoop(user: LockParticipant, laggard: boolean, deadline: number): Promise<void> {
    let refusedOn: string | null = null;
    while (performance.now() < deadline) {
      const elementId = this.pickElement(refusedOn);
      refusedOn = null;
      const sent = performance.now();
      const reply = await request<{ grant: LockGrant }>(
        user.socket,
        ClientEvent.LOCK_ACQUIRE,
        { requestId: this.nextRequestId(user.local), elementId },
        this.params.ackTimeoutMs,
      );
      const rtt = performance.now() - sent;
      this.acquires += 1;
      if (typeof reply !== 'string') this.acquireRtt.record(rtt);
      if (typeof reply === 'string' || !reply.ok) {
        const code = failureCode(reply);
        this.refusals[code] = (this.refusals[code] ?? 0) + 1;
        if (typeof reply !== 'string') this.refusalRtt.record(rtt);
        if (code === 'not_connected') return;
        refusedOn = elementId;
        // Someone else has it: another element after a short human-like pause. Anything else
        // (rate_limited, unavailable) backs off longer so the loop never spins on the server.
        await sleep(code === ErrorCode.LOCKED ? 20 + Math.random() * 30 : 250);
        continue;
      }
      this.grantRtt.record(rtt);
      this.grants += 1;
      const { generation } = reply.grant;
      const sessionId = user.grant?.sessionId ?? '';
      const key = `${elementId}:${generation}`;
      const holder = this.grantedTo.get(key);
      if (holder === undefined) this.grantedTo.set(key, sessionId);
      else if (holder !== sessionId) this.doubleGrants += 1;
      else this.duplicateGrantAcks += 1;
      if (laggard) await this.lateCommit(user, elementId, generation, deadline);
      else await this.drag(user, elementId, generation);
      // A short, random gap before the next pointer-down keeps the 31 loops out of lockstep.
      await sleep(Math.random() * 20);
    }
  }

  /** An honest drag: a few moves under the grant's generation, then pointer-up with the shape. */
  private async drag(user: LockParticipant, elementId: string, generation: number): Promise<void> {
    let x = randomCoordinate();
    let y = randomCoordinate();
    for (let i = 0; i < this.params.movesPerDrag; i++) {
      x += 10;
      y += 5;
      if (user.socket?.emitVolatile(ClientEvent.LOCK_MOVE, { elementId, generation, x, y })) this.movesSent += 1;
      await sleep(MOVE_INTERVAL_MS);
    }
    const sent = performance.now();
    const reply = await request<ElementReply>(
      user.socket,
      ClientEvent.LOCK_RELEASE,
      { requestId: this.nextRequestId(user.local), elementId, generation, shape: rect(x, y) },
      this.params.ackTimeoutMs,
    );
    if (typeof reply !== 'string') this.releaseRtt.record(performance.now() - sent);
    if (typeof reply !== 'string' && reply.ok) {
      this.releasesApplied += 1;
      const commits = this.appliedCommits.get(elementId) ?? [];
      commits.push({ version: reply.element.version, x, y });
      this.appliedCommits.set(elementId, commits);
      return;
    }
    // A lost ack leaves the commit's outcome unknown: the final-state check then cannot be exact.
    if (typeof reply === 'string') this.uncertainCommits += 1;
    const code = failureCode(reply);
    this.releaseRefusals[code] = (this.releaseRefusals[code] ?? 0) + 1;
  }

  /**
   * A frozen tab: holds the grant without confirming it, waits until someone else is granted a
   * newer generation of the element, then sends what a tab waking up would: moves and a
   * pointer-up under its old generation, at a marker position.
   */
  private async lateCommit(user: LockParticipant, elementId: string, generation: number, deadline: number): Promise<void> {
    const watcher = this.watchers.get(user);
    if (!watcher) return;
    const alreadyTaken = (watcher.latestGeneration.get(elementId) ?? 0) > generation;
    const takenOver = alreadyTaken || (await new Promise<boolean>((resolve) => {
      const timer = setTimeout(
        () => {
          watcher.takeoverWaiters.delete(elementId);
          resolve(false);
        },
        Math.max(0, Math.min(this.params.takeoverTimeoutMs, deadline - performance.now())),
      );
      watcher.takeoverWaiters.set(elementId, {
        above: generation,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      });
    }));
    if (!takenOver) {
      // The window ended first: let go without a shape (no commit), not part of the stale count.
      // Its outcome is recorded apart: `ok` if still held, `stale_generation` if the sweeper
      // already expired it (or a takeover's event had not arrived yet).
      this.stale.abandoned += 1;
      const reply = await request<ElementReply>(
        user.socket,
        ClientEvent.LOCK_RELEASE,
        { requestId: this.nextRequestId(user.local), elementId, generation },
        this.params.ackTimeoutMs,
      );
      const code = failureCode(reply);
      this.stale.abandonedReleases[code] = (this.stale.abandonedReleases[code] ?? 0) + 1;
      return;
    }
    this.stale.takeovers += 1;
    const marker = STALE_MARKER + user.local * 1_000 + (generation % 1_000);
    for (let i = 0; i < 2; i++) {
      if (user.socket?.emitVolatile(ClientEvent.LOCK_MOVE, { elementId, generation, x: marker, y: marker })) this.stale.movesSent += 1;
      await sleep(MOVE_INTERVAL_MS);
    }
    this.stale.commitsSent += 1;
    const reply = await request<ElementReply>(
      user.socket,
      ClientEvent.LOCK_RELEASE,
      { requestId: this.nextRequestId(user.local), elementId, generation, shape: rect(marker, marker) },
      this.params.ackTimeoutMs,
    );
    if (typeof reply !== 'string' && reply.ok) {
      this.stale.accepted += 1;
      return;
    }
    const code = failureCode(reply);
    if (code === ErrorCode.STALE_GENERATION) this.stale.rejected += 1;
    else this.stale.otherRefusals[code] = (this.stale.otherRefusals[code] ?? 0) + 1;
    if (typeof reply === 'string') this.uncertainCommits += 1;
  }

  /** A fresh snapshot: every element where its last acknowledged commit put it, never a marker. */
  private async checkFinalState(teacher: LockParticipant): Promise<LockWorkloadResult['finalState']> {
    const reply = await request<{ sync: SyncMessage }>(teacher.socket, ClientEvent.SYNC_REQUEST, {}, this.params.ackTimeoutMs);
    if (typeof reply === 'string' || !reply.ok) throw new Error(`locks: sync.request failed: ${failureCode(reply)}`);
    if (reply.sync.kind !== 'snapshot') throw new Error('locks: sync.request without lastRevision did not answer a snapshot');
    const elements = new Map(reply.sync.snapshot.elements.map((e) => [e.id, e]));
    const result = { checked: 0, missing: 0, positionMismatches: 0, versionMismatches: 0, staleMarkerFound: 0, stillLocked: 0, details: [] as string[] };
    for (const id of this.elementIds) {
      const element = elements.get(id);
      if (!element) {
        result.missing += 1;
        continue;
      }
      result.checked += 1;
      if (element.lock !== null) result.stillLocked += 1;
      if (element.shape.x >= STALE_MARKER || element.shape.y >= STALE_MARKER) result.staleMarkerFound += 1;
      const commits = this.appliedCommits.get(id) ?? [];
      const expectedVersion = (this.createdVersion.get(id) ?? 0) + commits.length;
      if (element.version !== expectedVersion) {
        result.versionMismatches += 1;
        result.details.push(`${id}: version ${element.version}, expected ${expectedVersion}`);
      }
      const last = commits.reduce<AppliedCommit | null>((best, c) => (best === null || c.version > best.version ? c : best), null);
      if (last && (element.shape.x !== last.x || element.shape.y !== last.y)) {
        result.positionMismatches += 1;
        result.details.push(`${id}: at (${element.shape.x}, ${element.shape.y}), last commit (${last.x}, ${last.y}) v${last.version}`);
      }
    }
    return result;
  }

  private summarise(elapsedMs: number, laggards: number, finalState: LockWorkloadResult['finalState']): LockWorkloadResult {
    // Per watcher, lock.granted in revision order (the order clients apply events in) and in
    // arrival order: per element the generation must strictly increase.
    let regressions = 0;
    let arrivalInversions = 0;
    let missedGrantEvents = 0;
    let sessionMismatches = 0;
    let eventsWithoutAck = 0;
    for (const watcher of this.watchers.values()) {
      const check = (grants: SeenGrant[]) => {
        const last = new Map<string, number>();
        let bad = 0;
        for (const g of grants) {
          if (g.generation <= (last.get(g.elementId) ?? 0)) bad += 1;
          last.set(g.elementId, Math.max(g.generation, last.get(g.elementId) ?? 0));
        }
        return bad;
      };
      arrivalInversions += check(watcher.grants);
      regressions += check([...watcher.grants].sort((a, b) => a.revision - b.revision));
      const seen = new Map(watcher.grants.map((g) => [`${g.elementId}:${g.generation}`, g.sessionId]));
      for (const [key, sessionId] of this.grantedTo) {
        const observed = seen.get(key);
        if (observed === undefined) missedGrantEvents += 1;
        else if (observed !== sessionId) sessionMismatches += 1;
      }
      for (const key of seen.keys()) if (!this.grantedTo.has(key)) eventsWithoutAck += 1;
    }
    const watcherCounts = [...this.watchers.values()].map((w) => w.grants.length);
    return {
      users: this.participants.length,
      elements: this.elementIds.length,
      laggards,
      elapsedS: elapsedMs / 1000,
      acquires: this.acquires,
      grants: this.grants,
      grantsPerSec: this.grants / (elapsedMs / 1000),
      refusals: this.refusals,
      acquireRtt: this.acquireRtt.summary(),
      grantRtt: this.grantRtt.summary(),
      refusalRtt: this.refusalRtt.summary(),
      releaseRtt: this.releaseRtt.summary(),
      movesSent: this.movesSent,
      releasesApplied: this.releasesApplied,
      releaseRefusals: this.releaseRefusals,
      doubleGrants: this.doubleGrants,
      duplicateGrantAcks: this.duplicateGrantAcks,
      watchers: this.watchers.size,
      grantEventsPerWatcher: { min: Math.min(...watcherCounts), max: Math.max(...watcherCounts) },
      generationRegressions: regressions,
      arrivalOrderInversions: arrivalInversions,
      missedGrantEvents,
      grantEventSessionMismatches: sessionMismatches,
      grantEventsWithoutAck: eventsWithoutAck,
      duplicateEventDeliveries: this.duplicateEventDeliveries,
      stale: { ...this.stale, movesRelayed: this.staleMovesRelayed, updatesSeen: this.staleUpdatesSeen },
      dragEntriesSeen: this.dragEntriesSeen,
      lateDragEntries: this.lateDragEntries,
      uncertainCommits: this.uncertainCommits,
      finalState,
    };
  }
}
