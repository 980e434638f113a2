/** Board helpers shared by the fault tests: shapes, acknowledged commits, reading the stored board. */
import { ClientEvent, ErrorCode, type Element, type RoomSnapshot, type SessionGrant } from '@wb/protocol';
import { FaultClient, requestId } from './client.ts';

export const rect = (x: number, y: number) =>
  ({ kind: 'rect', x, y, w: 40, h: 30, stroke: '#1f2937', fill: 'transparent', strokeWidth: 2 }) as const;

export type Rect = ReturnType<typeof rect>;

/** Creates a rect and returns the acknowledged element. */
export async function createRect(client: FaultClient, id: string, x: number, y: number): Promise<Element> {
  const reply = await client.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: requestId(), id, shape: rect(x, y) });
  if (!reply.ok) throw new Error(`create refused: ${reply.error.code}`);
  return reply.element;
}

/** A whole drag: acquire, one move, release with the final shape. Returns the acknowledged element. */
export async function drag(client: FaultClient, elementId: string, x: number, y: number): Promise<Element> {
  const grant = await client.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE, { requestId: requestId(), elementId });
  if (!grant.ok) throw new Error(`acquire refused: ${grant.error.code}`);
  client.socket.emit(ClientEvent.LOCK_MOVE, { elementId, generation: grant.grant.generation, x, y });
  const released = await client.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_RELEASE, {
    requestId: requestId(),
    elementId,
    generation: grant.grant.generation,
    shape: rect(x, y),
  });
  if (!released.ok) throw new Error(`release refused: ${released.error.code}`);
  return released.element;
}

/** The room as the server has it now: a fresh teacher socket's snapshot (works on PGlite and Postgres). */
export async function storedSnapshot(baseUrl: string, teacher: SessionGrant): Promise<RoomSnapshot> {
  const probe = new FaultClient(baseUrl, teacher, { renew: false, lastRevision: 0 });
  try {
    await probe.ready();
    // sync.request is budgeted per member (issue 18): a test that has just spent the teacher's
    // budget waits for it to refill (2 a second) instead of reading a refusal as a failure.
    let reply = await probe.socket.timeout(10_000).emitWithAck(ClientEvent.SYNC_REQUEST, {});
    for (let tries = 0; !reply.ok && reply.error.code === ErrorCode.RATE_LIMITED && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      reply = await probe.socket.timeout(10_000).emitWithAck(ClientEvent.SYNC_REQUEST, {});
    }
    if (!reply.ok) throw new Error(`sync refused: ${reply.error.code}`);
    if (reply.sync.kind !== 'snapshot') throw new Error('expected a snapshot');
    return reply.sync.snapshot;
  } finally {
    probe.close();
  }
}

export interface AttendanceFact {
  eventId: string;
  userId: string;
  sessionId: string;
  kind: string;
  at: string;
}

export async function attendance(baseUrl: string, teacher: SessionGrant): Promise<AttendanceFact[]> {
  const response = await fetch(`${baseUrl}/api/rooms/${teacher.room.code}/attendance`, {
    headers: { authorization: `Bearer ${teacher.token}` },
  });
  if (!response.ok) throw new Error(`attendance: ${response.status}`);
  return ((await response.json()) as { facts: AttendanceFact[] }).facts;
}
