import type { ElementShape, RoomEvent, RoomSnapshot, SyncMessage } from '@wb/protocol';
import { expect, test } from 'vitest';
import { boardHash } from './boardHash.ts';
import { applyRoomEvent, stateFromSnapshot, type RoomState } from './roomState.ts';
import { SyncEngine } from './syncEngine.ts';
import { ROOM_ID, TEACHER, TEACHER_S, event, member, snapshot } from './testFixtures.ts';

/** mulberry32: a tiny seeded generator, so a failing seed replays exactly. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const shapeAt = (x: number, y: number): ElementShape => ({ kind: 'ellipse', x, y, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 });

/**
 * An element event the server could publish next for `prev`: creates (of fresh ids, and of ids
 * the server already knows, as a retried create would), version-bumping updates, deletions, lock
 * grants and releases, and board locks.
 */
function elementEvent(random: () => number, prev: RoomState, r: number, user: string, session: string): RoomEvent {
  const ids = Array.from({ length: 8 }, (_, i) => uuid(0x300 + i));
  const id = ids[Math.floor(random() * ids.length)] ?? uuid(0x300);
  const current = prev.elements.get(id);
  const roll = random();
  if (!current) {
    if (prev.tombstones.has(id) || roll < 0.3) {
      const editPolicy = (['everyone', 'own', 'look'] as const)[Math.floor(random() * 3)] ?? 'own';
      return event(r, 'room.updated', { ...prev.room, settings: { ...prev.room.settings, editPolicy } }, `e${r}`);
    }
    const element = { id, shape: shapeAt(r, r), version: 1, pinned: false, createdBy: user, updatedBy: user, z: r, lock: null };
    return event(r, 'element.created', { element }, `e${r}`);
  }
  if (roll < 0.4) {
    const element = { ...current, shape: shapeAt(r, -r), version: current.version + 1, lock: current.lock };
    return event(r, 'element.updated', { element }, `e${r}`);
  }
  if (roll < 0.55) return event(r, 'element.deleted', { elementId: id, version: current.version + 1, by: user }, `e${r}`);
  if (roll < 0.8 || !current.lock) {
    const generation = (current.lock?.generation ?? Math.floor(r / 2)) + 1;
    return event(r, 'lock.granted', { elementId: id, generation, sessionId: session, userId: user }, `e${r}`);
  }
  return event(r, 'lock.released', { elementId: id, generation: current.lock.generation, reason: 'released' }, `e${r}`);
}

/** A server's room log: random but meaningful events, and the true state after each. */
function roomLog(random: () => number, count: number) {
  const base = snapshot({
    revision: 0,
    members: [member(TEACHER, 'Teacher', 'teacher')],
    presence: [{ sessionId: TEACHER_S, userId: TEACHER, revision: 1, connected: true }],
  });
  const states: RoomState[] = [stateFromSnapshot(base)];
  const events: RoomEvent[] = [];
  const users = Array.from({ length: 6 }, (_, i) => uuid(0x100 + i));
  for (let r = 1; r <= count; r++) {
    const prev = states[r - 1];
    if (!prev) throw new Error('missing state');
    const user = users[Math.floor(random() * users.length)] ?? TEACHER;
    const session = uuid(0x200 + users.indexOf(user) * 4 + Math.floor(random() * 2));
    const roll = random();
    const e: RoomEvent =
      prev.members.has(user) && random() < 0.5
        ? elementEvent(random, prev, r, user, session)
        : !prev.members.has(user) || roll < 0.1
        ? event(r, 'member.joined', member(user, `U${users.indexOf(user)}`), `e${r}`)
        : roll < 0.5
          ? event(r, 'presence.opened', { sessionId: session, userId: user, revision: r }, `e${r}`)
          : roll < 0.75
            ? event(r, 'presence.expired', { sessionId: session, userId: user, revision: r }, `e${r}`)
            : roll < 0.95
              ? event(r, 'session.closed', { sessionId: session, userId: user, reason: 'signed_out' }, `e${r}`)
              : event(r, 'member.revoked', { userId: user, by: TEACHER, reason: null }, `e${r}`);
    events.push(e);
    states.push(applyRoomEvent(prev, e));
  }
  return { events, states };
}

function toSnapshot(state: RoomState): RoomSnapshot {
  return {
    room: state.room,
    revision: state.revision,
    members: [...state.members.values()],
    presence: [...state.presence.values()],
    departures: [...state.departures].map(([userId, reason]) => ({ userId, reason })),
    elements: [...state.elements.values()],
  };
}

/**
 * Delivers a room's events to one client over a hostile network: reordered, duplicated, dropped,
 * with the socket closing and reopening, replies to resyncs arriving late or not at all. Returns
 * the client's final state once the network goes quiet.
 */
function runClient(seed: number, eventCount: number) {
  const random = rng(seed);
  const { events, states } = roomLog(random, eventCount);
  const final = states[states.length - 1];
  if (!final) throw new Error('no final state');
  const replayLimit = 20; // the server's bounded log: older gaps get a snapshot instead
  const syncFor = (lastRevision: number | undefined, upTo: number): SyncMessage => {
    if (lastRevision !== undefined && upTo - lastRevision <= replayLimit) {
      return { kind: 'replay', fromRevision: lastRevision, events: events.slice(lastRevision, upTo) };
    }
    const state = states[upTo];
    if (!state) throw new Error('no state');
    return { kind: 'snapshot', snapshot: toSnapshot(state) };
  };

  let now = 0;
  let published = 0; // how far the server's log has got
  const inFlight: Array<{ at: number; deliver: () => void }> = [];
  const engine: SyncEngine = new SyncEngine(
    {
      requestSync: (lastRevision) => {
        // 20% of replies are lost; the engine must ask again on its own.
        if (random() < 0.2) return;
        const reply = syncFor(lastRevision, published);
        inFlight.push({ at: now + random() * 300, deliver: () => engine.receiveSync(reply, now) });
      },
    },
    TEACHER_S,
    { gapHoldMs: 200, syncTimeoutMs: 1_000, maxHeldEvents: 8, maxBufferedPackets: 12 },
  );
  const connect = () => {
    engine.connectionOpened(now);
    const reply = syncFor(engine.revision, published);
    inFlight.push({ at: now + random() * 100, deliver: () => engine.receiveSync(reply, now) });
  };
  connect();

  while (published < events.length || inFlight.length > 0) {
    now += 10 + random() * 40;
    if (published < events.length) {
      const e = events[published++];
      if (!e) throw new Error('no event');
      const roll = random();
      // Dropped on the wire, the last one too: the lease prompt's room revision reveals a lost tail.
      if (roll < 0.05) {
        // dropped
      } else {
        const copies = roll < 0.15 ? 2 : 1;
        for (let i = 0; i < copies; i++) inFlight.push({ at: now + random() * 150, deliver: () => engine.receiveEvent(e, now) });
      }
    }
    // A lease prompt about every 3 s of simulated time names the revision the server published.
    if (random() < 0.02) {
      const roomRevision = published;
      inFlight.push({ at: now + random() * 150, deliver: () => engine.receiveRoomRevision(roomRevision, now) });
    }
    if (random() < 0.02) {
      engine.connectionClosed();
      inFlight.length = 0; // a closed socket delivers nothing more
      connect();
    }
    inFlight.sort((a, b) => a.at - b.at);
    while (inFlight[0] && inFlight[0].at <= now) inFlight.shift()?.deliver();
    engine.tick(now);
  }
  // Quiet network: lease prompts keep coming; let timeouts and resyncs run until caught up.
  for (let i = 0; i < 200 && (engine.phase !== 'live' || engine.revision !== final.revision); i++) {
    now += 100;
    if (i % 30 === 0) engine.receiveRoomRevision(published, now);
    inFlight.sort((a, b) => a.at - b.at);
    while (inFlight[0] && inFlight[0].at <= now) inFlight.shift()?.deliver();
    engine.tick(now);
  }
  return { engine, final };
}

// Seeds that once failed stay here, with what they found. 14 and 34 lost the log's last event,
// which no client could notice before lease prompts carried the room revision.
const regressionSeeds = [14, 34];

test.each([...regressionSeeds, ...Array.from({ length: 60 }, (_, i) => 100 + i)])(
  'I1/I4/I10 fuzz: seed %i, a client under reorder, duplicates, drops (the last too) and reconnects ends equal to the log, elements included',
  (seed) => {
    const { engine, final } = runClient(seed, 120);
    expect(engine.phase).toBe('live');
    expect(engine.revision).toBe(final.revision);
    const state = engine.state;
    if (!state) throw new Error('no state');
    expect(boardHash(state)).toBe(boardHash(final));
    expect(state.room.id).toBe(ROOM_ID);
  },
);
