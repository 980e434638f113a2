import type { ElementShape } from '@wb/protocol';
import type { ConnectionState } from '../connection/connectionMachine.ts';
import { boardHash, serializeBoard } from '../sync/boardHash.ts';
import { deriveRoster, type RosterEntry } from '../sync/roster.ts';
import type { SyncEngine, SyncPhase, SyncStats } from '../sync/syncEngine.ts';

/** A plain, JSON-safe copy of the applied room state. */
export interface DebugState {
  revision: number | null;
  phase: SyncPhase;
  connection: ConnectionState['status'];
  room: unknown;
  members: unknown[];
  presence: unknown[];
  departures: Array<{ userId: string; reason: string }>;
  cursors: Array<{ sessionId: string; userId: string; x: number; y: number }>;
  /** Other people's strokes being drawn (live ink): id, drawer and how many points are held. */
  ink: Array<{ strokeId: string; sessionId: string; userId: string; points: number; end: string | null }>;
}

/**
 * Read-only hook for end-to-end tests to compare screens: `window.__wb.boardHash()` on two pages
 * is equal once both have applied the same durable state. Every call returns a fresh copy, so a
 * test cannot change the client through it.
 */
export interface WbDebug {
  state(): DebugState;
  boardHash(): string | null;
  board(): string | null;
  roster(): RosterEntry[];
  stats(): SyncStats;
  /** Confirmed elements (from the room's events), in no particular order. */
  elements(): Array<{ id: string; kind: string; version: number; x: number; y: number; pinned: boolean; lockedBy: string | null; shape: ElementShape }>;
}

declare global {
  interface Window {
    __wb?: WbDebug;
  }
}

export function installDebugHook(engine: SyncEngine, connection: () => ConnectionState): () => void {
  const hook: WbDebug = {
    state: () => {
      const s = engine.state;
      return {
        revision: s?.revision ?? null,
        phase: engine.phase,
        connection: connection().status,
        room: s ? { ...s.room } : null,
        members: s ? [...s.members.values()].map((m) => ({ ...m })) : [],
        presence: s ? [...s.presence.values()].map((p) => ({ ...p })) : [],
        departures: s ? [...s.departures].map(([userId, reason]) => ({ userId, reason })) : [],
        cursors: [...engine.cursors.values()].map(({ sessionId, userId, x, y }) => ({ sessionId, userId, x, y })),
        ink: [...engine.ink.values()].map(({ strokeId, sessionId, userId, points, end }) => ({ strokeId, sessionId, userId, points: points.length, end })),
      };
    },
    boardHash: () => (engine.state ? boardHash(engine.state) : null),
    board: () => (engine.state ? serializeBoard(engine.state) : null),
    roster: () => (engine.state ? deriveRoster(engine.state).map((e) => ({ ...e })) : []),
    stats: () => ({ ...engine.stats }),
    elements: () =>
      [...(engine.state?.elements.values() ?? [])].map((e) => ({
        id: e.id,
        kind: e.shape.kind,
        version: e.version,
        x: e.shape.x,
        y: e.shape.y,
        pinned: e.pinned,
        lockedBy: e.lock?.userId ?? null,
        shape: e.shape,
      })),
  };
  window.__wb = Object.freeze(hook);
  return () => {
    if (window.__wb === hook) delete window.__wb;
  };
}
