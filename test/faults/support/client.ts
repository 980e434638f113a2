/** A socket.io client for the fault suite: records what it receives and can answer lease.due itself. */
import { randomUUID } from 'node:crypto';
import {
  ClientEvent,
  PROTOCOL_VERSION,
  ServerEvent,
  type Ack,
  type ClientToServerEvents,
  type CreateRoomRequest,
  type LeaseRenewResult,
  type RoomEvent,
  type ServerToClientEvents,
  type SessionGrant,
} from '@wb/protocol';
import { io, type Socket } from 'socket.io-client';

export type FaultSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
type Received = { [K in keyof ServerToClientEvents]: Parameters<ServerToClientEvents[K]>[0][] };

export const requestId = () => `req-${randomUUID()}`;

async function post<T>(url: string, body: unknown, token?: string): Promise<{ status: number; body: T }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

export const memberKey = () => randomUUID().replaceAll('-', '');

/** `settings`: the lesson's settings from its start (a test whose students watch each other's cursors names `cursorVisibility: 'everyone'`). */
export async function createRoom(baseUrl: string, teacherName = 'Ms Rivera', settings?: CreateRoomRequest['settings']): Promise<SessionGrant> {
  const created = await post<SessionGrant>(`${baseUrl}/api/rooms`, { teacherName, memberKey: memberKey(), ...(settings ? { settings } : {}) });
  if (created.status !== 201) throw new Error(`create room: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body;
}

export async function joinRoom(baseUrl: string, code: string, displayName: string): Promise<SessionGrant> {
  const joined = await post<SessionGrant>(`${baseUrl}/api/rooms/${code}/join`, { displayName, memberKey: memberKey() });
  if (joined.status !== 200) throw new Error(`join: ${joined.status} ${JSON.stringify(joined.body)}`);
  return joined.body;
}

export interface RenewalRecord {
  at: number;
  /** From sending the renewal to its reply (ms). */
  ms: number;
  /** The lease revision the renewal asked for (`lease.due`'s revision + 1). */
  revision: number;
  reply: Ack<LeaseRenewResult> | { ok: false; error: { code: 'timeout'; message: string } };
}

export class FaultClient {
  readonly socket: FaultSocket;
  readonly received: Received = {
    welcome: [],
    sync: [],
    'room.event': [],
    cursors: [],
    'presence.signal': [],
    'lease.due': [],
    'session.ended': [],
    notice: [],
    follow: [],
    'board.opened': [],
    'board.pointers': [],
    'boards.pointers': [],
    'poll.answers': [],
  };
  readonly renewals: RenewalRecord[] = [];
  connectError: (Error & { data?: { code: string; message: string } }) | null = null;
  /** While true, lease.due is answered from the message handler (as the web client does). */
  renewing: boolean;

  constructor(
    baseUrl: string,
    readonly grant: SessionGrant,
    options: { lastRevision?: number; renew?: boolean; origin?: string } = {},
  ) {
    this.renewing = options.renew ?? true;
    this.socket = io(baseUrl, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth: {
        token: grant.token,
        protocol: PROTOCOL_VERSION,
        ...(options.lastRevision === undefined ? {} : { lastRevision: options.lastRevision }),
      },
      ...(options.origin ? { extraHeaders: { origin: options.origin } } : {}),
    });
    for (const name of Object.values(ServerEvent)) {
      this.socket.on(name as never, ((payload: never) => {
        (this.received[name] as unknown[]).push(payload);
      }) as never);
    }
    this.socket.on(ServerEvent.LEASE_DUE, (due) => {
      if (!this.renewing) return;
      const sent = performance.now();
      this.socket.timeout(5_000).emit(ClientEvent.LEASE_RENEW, { revision: due.revision + 1, requestId: requestId() }, (error, reply) => {
        this.renewals.push({
          at: Date.now(),
          ms: performance.now() - sent,
          revision: due.revision + 1,
          reply: error ? { ok: false, error: { code: 'timeout', message: String(error) } } : reply,
        });
      });
    });
    this.socket.on('connect_error', (error) => {
      this.connectError = error as FaultClient['connectError'];
    });
  }

  get sessionId(): string {
    return this.grant.sessionId;
  }

  async ready(ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.received.sync.length === 0) {
      if (this.connectError) throw new Error(`refused: ${JSON.stringify(this.connectError.data ?? this.connectError.message)}`);
      if (Date.now() > deadline) throw new Error(`no sync within ${ms} ms`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  events<K extends RoomEvent['kind']>(kind: K): Extract<RoomEvent, { kind: K }>[] {
    return this.received['room.event'].filter((e): e is Extract<RoomEvent, { kind: K }> => e.kind === kind);
  }

  /** The last room revision this client saw (from its sync and the events after it). */
  lastRevision(): number {
    const sync = this.received.sync.at(-1);
    let revision = sync ? (sync.kind === 'snapshot' ? sync.snapshot.revision : (sync.events.at(-1)?.revision ?? sync.fromRevision)) : 0;
    for (const event of this.received['room.event']) revision = Math.max(revision, event.revision);
    return revision;
  }

  close(): void {
    this.socket.disconnect();
  }
}
