import { randomBytes } from 'node:crypto';
import { FrozenClock, type Clock, type Database } from '@wb/db';
import { openTestDatabase, postgresUnavailableReason, type TestDatabase, type TestDatabaseKind } from '@wb/db/testing';
import {
  ClientEvent,
  PROTOCOL_VERSION,
  ServerEvent,
  type ClientFeature,
  type ClientToServerEvents,
  type CreateRoomRequest,
  type RoomEvent,
  type RoomEventKind,
  type ServerToClientEvents,
  type SessionGrant,
} from '@wb/protocol';
import { io as connectSocket, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import { startApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** A real server on an ephemeral port over the given database; the sweeper runs only when told. */
export async function startTestServer(
  database: Database,
  options: { clock?: Clock; env?: Record<string, string>; startSweeper?: boolean } = {},
): Promise<App> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    WEB_DIST: '/nonexistent',
    // No renewal prompts unless a test asks for them: tests decide when leases move.
    LEASE_RENEW_MS: '60000',
    LEASE_TTL_MS: '120000',
    ...options.env,
  });
  return startApp(config, { database, clock: options.clock, startSweeper: options.startSweeper ?? false });
}

export const newMemberKey = () => randomBytes(18).toString('base64url');

async function post<T>(url: string, body: unknown, token?: string): Promise<{ status: number; body: T }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

export async function createRoom(app: App, teacherName = 'Ms Rivera', settings?: CreateRoomRequest['settings']): Promise<SessionGrant> {
  const created = await post<SessionGrant>(`${app.url}/api/rooms`, { teacherName, memberKey: newMemberKey(), ...(settings ? { settings } : {}) });
  if (created.status !== 201) throw new Error(`create room: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body;
}

export async function joinRoom(app: App, code: string, displayName: string, memberKey = newMemberKey()) {
  return post<SessionGrant & { error?: { code: string } }>(`${app.url}/api/rooms/${code}/join`, { displayName, memberKey });
}

export async function joinAs(app: App, code: string, displayName: string): Promise<SessionGrant> {
  const joined = await joinRoom(app, code, displayName);
  if (joined.status !== 200) throw new Error(`join: ${joined.status} ${JSON.stringify(joined.body)}`);
  return joined.body;
}

export { post };

type Received = { [K in keyof ServerToClientEvents]: Parameters<ServerToClientEvents[K]>[0][] };

/** A real socket.io client that records everything it receives, for awaiting conditions. */
export class TestClient {
  readonly socket: ClientSocket;
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
  connectError: (Error & { data?: { code: string; message: string } }) | null = null;
  private waiters: (() => void)[] = [];

  constructor(app: App, token: string, options: { lastRevision?: number; origin?: string; protocol?: number; features?: ClientFeature[] } = {}) {
    this.socket = connectSocket(app.url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth: {
        token,
        protocol: options.protocol ?? PROTOCOL_VERSION,
        ...(options.lastRevision === undefined ? {} : { lastRevision: options.lastRevision }),
        ...(options.features ? { features: options.features } : {}),
      },
      ...(options.origin ? { extraHeaders: { origin: options.origin } } : {}),
    });
    for (const name of Object.values(ServerEvent)) {
      this.socket.on(name as never, ((payload: never) => {
        (this.received[name] as unknown[]).push(payload);
        this.wake();
      }) as never);
    }
    this.socket.on('connect_error', (error) => {
      this.connectError = error as TestClient['connectError'];
      this.wake();
    });
    this.socket.on('disconnect', () => this.wake());
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when `condition` holds, re-checked on every received message; fails after `ms`. */
  async until<T>(condition: () => T | undefined | false | null, what: string, ms = 10_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = condition();
      if (value) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Connected, welcomed and synced. */
  async ready() {
    await this.until(() => this.received.sync.length > 0 || this.connectError, 'sync or refusal');
    if (this.connectError) throw new Error(`refused: ${JSON.stringify(this.connectError.data)}`);
    return { welcome: this.received.welcome[0]!, sync: this.received.sync[0]! };
  }

  eventsOfKind<K extends RoomEventKind>(kind: K): Extract<RoomEvent, { kind: K }>[] {
    return this.received['room.event'].filter((e): e is Extract<RoomEvent, { kind: K }> => e.kind === kind);
  }

  renew(revision: number, requestId: string) {
    return this.socket.timeout(10_000).emitWithAck(ClientEvent.LEASE_RENEW, { revision, requestId });
  }

  close(): void {
    this.socket.disconnect();
  }
}

/** The databases every server suite runs on: PGlite always, real Postgres when TEST_DATABASE_URL is set. */
export function databaseKinds(): { kind: TestDatabaseKind; skip: string | null }[] {
  return [
    { kind: 'pglite', skip: null },
    { kind: 'postgres', skip: postgresUnavailableReason() },
  ];
}

export interface ServerSuite {
  readonly kind: TestDatabaseKind;
  /** The suite's server; set once its `beforeAll` ran. */
  readonly app: App;
  /** Time as every store operation of the suite sees it (I2): tests move it, nothing else does. */
  readonly clock: FrozenClock;
  /** A client closed after the test that opened it. */
  client(...args: ConstructorParameters<typeof TestClient>): TestClient;
}

/**
 * One suite, run on each database: a fresh database, a server over it with a frozen clock (its
 * first sweeper pass, the restart grace, already done so later passes are real sweeps) and a
 * pool of clients closed after each test.
 */
export function describeOnEachDatabase(
  title: string,
  options: { start?: Date; env?: Record<string, string> },
  body: (suite: ServerSuite) => void,
): void {
  for (const { kind, skip } of databaseKinds()) {
    describe.skipIf(skip !== null)(`${title} on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
      let testDb: TestDatabase | undefined;
      let app: App | undefined;
      const clock = new FrozenClock(options.start ?? new Date('2030-01-06T08:00:00Z'));
      const clients: TestClient[] = [];
      const suite: ServerSuite = {
        kind,
        get app() {
          if (!app) throw new Error('the suite server is not started yet');
          return app;
        },
        clock,
        client: (...args) => {
          const c = new TestClient(...args);
          clients.push(c);
          return c;
        },
      };
      beforeAll(async () => {
        testDb = await openTestDatabase(kind);
        app = await startTestServer(testDb.database, { clock, ...(options.env ? { env: options.env } : {}) });
        await app.sweeper.pass();
      });
      afterEach(() => {
        for (const c of clients.splice(0)) c.close();
      });
      afterAll(async () => {
        await app?.close();
        await testDb?.drop();
      });
      body(suite);
    });
  }
}
