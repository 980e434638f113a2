/**
 * Fault: a student is offline longer than the room's replay log. When they come back with a last
 * revision the log no longer holds, the server answers with a snapshot, and the board they end up
 * with is exactly the board of a client that stayed online and applied every event (state hash equal).
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, type SyncMessage } from '@wb/protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { boardHash } from '../../apps/web/src/sync/boardHash.ts';
import { applyRoomEvent, stateFromSnapshot, type RoomState } from '../../apps/web/src/sync/roomState.ts';
import { createRect, rect } from './support/board.ts';
import { FaultClient, createRoom, joinRoom, requestId } from './support/client.ts';
import { reportFigures } from './support/results.ts';
import { killAll, spawnServer, waitFor, type ServerProcessOptions } from './support/serverProcess.ts';
import { STORES, databaseOn, skipNote } from './support/stores.ts';

const KEEP = 10;

/** A client's board: its sync message, then every room event after it in revision order, as the web client applies them. */
function boardOf(client: FaultClient, previous: RoomState | null = null): RoomState {
  const sync = client.received.sync.at(-1);
  if (!sync || sync.kind !== 'snapshot') throw new Error('expected a snapshot sync');
  let state = stateFromSnapshot(sync.snapshot, previous);
  const events = [...client.received['room.event']].sort((a, b) => a.revision - b.revision);
  for (const event of events) if (event.revision === state.revision + 1) state = applyRoomEvent(state, event);
  return state;
}

for (const store of STORES) describe.skipIf(store.skip !== null)(`offline longer than the replay log (${store.label})${skipNote(store)}`, () => {
  const cleanups: (() => Promise<void>)[] = [];
  const clients: FaultClient[] = [];
  afterAll(async () => {
    for (const c of clients) c.close();
    await killAll();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  });

  test(`a client whose last revision was pruned (log keeps ${KEEP}) gets a snapshot: state hash mismatch = 0`, async () => {
    const where: ServerProcessOptions = await databaseOn(store, cleanups);
    const server = await spawnServer({ ...where, env: { EVENT_LOG_KEEP: String(KEEP) } });
    const teacherGrant = await createRoom(server.url);
    const studentGrant = await joinRoom(server.url, teacherGrant.room.code, 'Offline Olu');
    const t = new FaultClient(server.url, teacherGrant);
    const s = new FaultClient(server.url, studentGrant);
    clients.push(t, s);
    await Promise.all([t.ready(), s.ready()]);
    const studentBefore = boardOf(s);
    const leftAt = s.lastRevision();
    s.close(); // the lid closes; the lease will expire while they are away

    // Far more than the log keeps: creates, updates, deletes, a pin, a board lock, a member joining.
    const ids: string[] = [];
    for (let i = 0; i < 3 * KEEP; i++) {
      const id = randomUUID();
      const element = await createRect(t, id, i * 20, i * 5);
      ids.push(id);
      if (i % 3 === 0) {
        const updated = await t.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_UPDATE, { requestId: requestId(), id, baseVersion: element.version, shape: rect(i * 20 + 3, -i) });
        if (!updated.ok) throw new Error(updated.error.code);
      }
    }
    for (const id of ids.slice(0, 4)) await t.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_DELETE, { requestId: requestId(), id });
    await t.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_PIN, { requestId: requestId(), elementId: ids[5]!, pinned: true });
    await t.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: requestId(), settings: { editPolicy: 'look' } });
    await joinRoom(server.url, teacherGrant.room.code, 'Late Lee');
    const eventsWhileAway = t.lastRevision() - leftAt;

    // Wait (on a condition) until the sweeper's prune has dropped the student's revision from the log.
    await waitFor(
      async () => {
        const probe = new FaultClient(server.url, teacherGrant, { renew: false });
        try {
          const reply = await probe.ready().then(() => probe.socket.timeout(10_000).emitWithAck(ClientEvent.SYNC_REQUEST, { lastRevision: leftAt }));
          return reply.ok && reply.sync.kind === 'snapshot';
        } finally {
          probe.close();
        }
      },
      'the room log to be pruned past the student’s revision',
      45_000,
    );

    const back = new FaultClient(server.url, studentGrant, { lastRevision: leftAt });
    clients.push(back);
    await back.ready();
    const sync: SyncMessage = back.received.sync[0]!;
    // Both screens settle on the same revision before they are compared.
    await waitFor(() => t.lastRevision() === back.lastRevision() && t.lastRevision() > 0, 'both clients at the same revision', 15_000);
    const studentAfter = boardOf(back, studentBefore);
    const teacherBoard = boardOf(t);
    const fresh = new FaultClient(server.url, teacherGrant, { renew: false });
    clients.push(fresh);
    await fresh.ready();
    const freshBoard = boardOf(fresh);
    const hashes = { student: boardHash(studentAfter), teacher: boardHash(teacherBoard), fresh: boardHash(freshBoard) };
    const mismatches = Number(hashes.student !== hashes.teacher) + Number(hashes.fresh !== hashes.teacher);
    reportFigures(`offline longer than the replay log (${store.label})`, {
      'state hash mismatch': mismatches,
      'sync on return': sync.kind,
      'events while away': eventsWhileAway,
      'log keeps': KEEP,
      'elements on the board': studentAfter.elements.size,
      'hashes (returning student, online teacher, fresh screen)': `${hashes.student} ${hashes.teacher} ${hashes.fresh}`,
    });
    expect(sync.kind).toBe('snapshot');
    expect(eventsWhileAway).toBeGreaterThan(KEEP);
    expect(mismatches).toBe(0);
    await server.stop();
  });
});
