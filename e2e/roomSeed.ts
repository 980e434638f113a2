/**
 * A room filled with many elements from node, quickly: for the overview spec and the render-load
 * measurement. Elements are created through the real socket API by members' sockets in parallel,
 * each paced under the server's per-socket budget.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ClientEvent,
  ErrorCode,
  PROTOCOL_VERSION,
  ServerEvent,
  type Ack,
  type ClientToServerEvents,
  type ElementReply,
  type ElementShape,
  type LessonSettings,
  type ServerToClientEvents,
  type SessionGrant,
} from '@wb/protocol';
import { io, type Socket } from 'socket.io-client';

export type MemberSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** Requests a second per socket: under the server's per-socket budget (90 events/s), with room for lease renewals. */
export const CREATES_PER_SECOND = 80;

const memberKey = () => randomBytes(24).toString('base64url');
const requestId = () => randomBytes(12).toString('base64url');

async function post<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A lesson where everyone may edit; `settings` adds to that (e.g. `cursorVisibility`: a new lesson shows students only the teacher's cursor). */
export const startRoom = (baseUrl: string, teacherName: string, settings: Partial<LessonSettings> = {}) =>
  post<SessionGrant>(`${baseUrl}/api/rooms`, { teacherName, memberKey: memberKey(), settings: { editPolicy: 'everyone', ...settings } });

export const joinRoom = (baseUrl: string, code: string, displayName: string) =>
  post<SessionGrant>(`${baseUrl}/api/rooms/${code}/join`, { displayName, memberKey: memberKey() });

/** A member's socket, synced and renewing its lease from the server's prompt as the app does. */
export function connectMember(baseUrl: string, grant: SessionGrant): Promise<MemberSocket> {
  const socket: MemberSocket = io(baseUrl, {
    path: '/socket.io',
    transports: ['websocket'],
    auth: { token: grant.token, protocol: PROTOCOL_VERSION },
    forceNew: true,
  });
  socket.on(ServerEvent.LEASE_DUE, (due) => socket.emit(ClientEvent.LEASE_RENEW, { revision: due.revision + 1, requestId: requestId() }, () => undefined));
  return new Promise((resolve, reject) => {
    socket.once(ServerEvent.SYNC, () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

/** Sends one acknowledged request per item, paced at CREATES_PER_SECOND, retrying rate-limited ones. */
async function paced<T>(items: readonly T[], send: (item: T) => Promise<Ack<ElementReply>>): Promise<void> {
  const started = Date.now();
  for (const [i, item] of items.entries()) {
    let reply = await send(item);
    // On a loaded machine the pacing catches up in bursts; the server is idempotent by request id.
    while (!reply.ok && reply.error.code === ErrorCode.RATE_LIMITED) {
      await new Promise((r) => setTimeout(r, 1_000));
      reply = await send(item);
    }
    if (!reply.ok) throw new Error(`request ${i}: ${reply.error.code}`);
    const due = started + ((i + 1) * 1_000) / CREATES_PER_SECOND - Date.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));
  }
}

/** Splits `items` round-robin over `sockets`, which send their shares in parallel. */
function shared<T>(sockets: readonly MemberSocket[], items: readonly T[], send: (socket: MemberSocket, item: T) => Promise<Ack<ElementReply>>) {
  return Promise.all(
    sockets.map((socket, k) =>
      paced(
        items.filter((_, i) => i % sockets.length === k),
        (item) => send(socket, item),
      ),
    ),
  );
}

/**
 * Creates `shapes` through `sockets` (each paced at CREATES_PER_SECOND); returns the new
 * elements' ids in the order of `shapes`.
 */
export async function createElements(sockets: readonly MemberSocket[], shapes: readonly ElementShape[]): Promise<string[]> {
  const requests = shapes.map((shape) => ({ requestId: requestId(), id: randomUUID(), shape }));
  await shared(sockets, requests, (socket, request) => socket.emitWithAck(ClientEvent.ELEMENT_CREATE, request));
  return requests.map((r) => r.id);
}

export async function deleteElements(sockets: readonly MemberSocket[], ids: readonly string[]): Promise<void> {
  const requests = ids.map((id) => ({ requestId: requestId(), id }));
  await shared(sockets, requests, (socket, request) => socket.emitWithAck(ClientEvent.ELEMENT_DELETE, request));
}
