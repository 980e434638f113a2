/**
 * The private-board class (issue 22): classes of 1 teacher + 30 students, each student drawing
 * pen strokes on their own board at the drawing class's pace (drawingWorkload.ts: a stroke of
 * 0.3-1.2 s, sent as live ink every 33 ms while drawn, then `element.create` with its `boardId`,
 * then a pause of 0.2-0.7 s), the teacher subscribed to every board as the class grid is.
 *
 * Measured per point (1, 2, 4 classes): the delivery of each stroke to the teacher (pointer-up,
 * i.e. the create sent, to the teacher's `room.event` of it) p50/p95/p99, the first live ink of
 * each stroke at the teacher (first packet sent to first `board.pointers` entry) p95, strokes
 * lost, the share of live-ink points that reach the teacher, and the server's CPU per stroke. The teacher's browser frame time with 30 live tiles is
 * e2e/gridLoad.ts (a browser is needed).
 *
 *   node --import tsx bench/run.ts --only=boards [--boards-points=1,2,4] [--boards-window=20]
 */
import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import {
  ClientEvent,
  PROTOCOL_VERSION,
  ServerEvent,
  type BoardInfo,
  type BoardPointers,
  type ClientFeature,
  type ClientToServerEvents,
  type ElementShape,
  type InkPoint,
  type ServerToClientEvents,
  type SessionGrant,
} from '@wb/protocol';
import { LIVE_INK_INTERVAL_MS, PAUSE_MS, STROKE_MS } from './drawingWorkload.ts';
import { percentileOf } from './latencyHistogram.ts';
import { loadAverage } from './procStats.ts';
import type { ServerUnderTest } from './serverUnderTest.ts';

type Member = Socket<ServerToClientEvents, ClientToServerEvents>;

export const STUDENTS_PER_CLASS = 30;
/** The target: stroke delivery to the teacher's grid at 4 classes. */
export const BOARDS_PASS = { strokeP95Ms: 150 } as const;

export interface PrivateClassTiming {
  warmupMs: number;
  windowMs: number;
  /** The teachers' sockets ask for `boards.pointers` (a tick's board batches in one message), as the web client does. */
  grouped: boolean;
}

export interface PrivateClassPoint {
  classes: number;
  students: number;
  strokesSent: number;
  strokesDelivered: number;
  strokesLost: number;
  createsRefused: number;
  strokeP50Ms: number;
  strokeP95Ms: number;
  strokeP99Ms: number;
  firstInkP95Ms: number;
  /** Live-ink points of counted strokes that reached their teacher, over those sent (1 = all). */
  inkAtTeacherShare: number;
  serverCores: number;
  serverCpuMsPerStroke: number;
  load: [number, number, number];
  pass: boolean;
}

const rid = () => randomUUID().replaceAll('-', '');
const between = (r: { min: number; max: number }) => r.min + Math.random() * (r.max - r.min);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function post<T>(url: string, body: unknown): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

function connect(baseUrl: string, grant: SessionGrant, features: ClientFeature[] = []): Promise<Member> {
  const auth = { token: grant.token, protocol: PROTOCOL_VERSION, ...(features.length > 0 ? { features } : {}) };
  const socket: Member = io(baseUrl, { transports: ['websocket'], auth, forceNew: true, reconnection: false });
  // Renewed from the server's prompt, as the app does: a lease that lapses drops the member's ink.
  socket.on(ServerEvent.LEASE_DUE, (due) => socket.emit(ClientEvent.LEASE_RENEW, { revision: due.revision + 1, requestId: rid() }, () => undefined));
  return new Promise((resolve, reject) => {
    socket.once(ServerEvent.SYNC, () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

const ask = <T>(socket: Member, event: string, payload: unknown): Promise<{ ok: true } & T> =>
  socket.timeout(20_000).emitWithAck(event as typeof ClientEvent.BOARD_LIST, payload as never) as unknown as Promise<{ ok: true } & T>;

interface ClassRoom {
  teacher: Member;
  students: { socket: Member; boardId: string }[];
}

/** One class: the lesson, 30 students joined and connected, an activity started, the teacher's grid subscribed. */
async function openClass(baseUrl: string, n: number, grouped: boolean): Promise<ClassRoom> {
  const teacherGrant = await post<SessionGrant>(`${baseUrl}/api/rooms`, { teacherName: `Teacher ${n}`, memberKey: rid() });
  const grants: SessionGrant[] = [];
  for (let i = 0; i < STUDENTS_PER_CLASS; i++) {
    grants.push(await post<SessionGrant>(`${baseUrl}/api/rooms/${teacherGrant.room.code}/join`, { displayName: `Student ${i + 1}`, memberKey: rid() }));
  }
  const teacher = await connect(baseUrl, teacherGrant, grouped ? ['boards.pointers'] : []);
  const sockets = await Promise.all(grants.map((g) => connect(baseUrl, g)));
  const started = await ask<{ boards: BoardInfo[] }>(teacher, ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Bench', start: { kind: 'blank' } });
  if (!started.ok) throw new Error(`activity.start: ${JSON.stringify(started)}`);
  const students = [];
  for (const [i, socket] of sockets.entries()) {
    const mine = await ask<{ board: BoardInfo }>(socket, ClientEvent.BOARD_MINE, {});
    if (!mine.ok) throw new Error(`board.mine: ${JSON.stringify(mine)}`);
    if (mine.board.ownerUserId !== grants[i]!.userId) throw new Error('a board of someone else');
    students.push({ socket, boardId: mine.board.id });
  }
  // The grid: every board listed (subscribes the teacher's socket), as the web client does.
  await ask(teacher, ClientEvent.BOARD_LIST, {});
  return { teacher, students };
}

/** Draws strokes on one board until `until()`, reporting each stroke (its first ink, its create). */
export async function drawLoop(
  student: { socket: Member; boardId: string },
  until: () => boolean,
  onStroke: (strokeId: string) => { firstInk(at: number): void; created(at: number): void; inkSent?(points: number): void },
  onRefused: () => void,
): Promise<void> {
  while (!until()) {
    const strokeId = randomUUID();
    const durationMs = between(STROKE_MS);
    const start = performance.now();
    const points: InkPoint[] = [];
    let sent = 0;
    const stroke = onStroke(strokeId);
    let x = 100 + Math.random() * 1_200;
    let y = 100 + Math.random() * 700;
    while (performance.now() - start < durationMs) {
      const fresh: InkPoint[] = [];
      for (let i = 0; i < 4; i++) {
        x += Math.random() * 6 - 2;
        y += Math.random() * 6 - 3;
        fresh.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10, 0.5]);
      }
      points.push(...fresh);
      if (sent === 0) stroke.firstInk(performance.now());
      student.socket.emit(ClientEvent.INK, { boardId: student.boardId, strokeId, from: sent, points: fresh, stroke: '#1e1e1e', strokeWidth: 4 });
      sent += fresh.length;
      stroke.inkSent?.(fresh.length);
      await sleep(LIVE_INK_INTERVAL_MS);
    }
    student.socket.emit(ClientEvent.INK, { boardId: student.boardId, strokeId, from: sent, points: [], stroke: '#1e1e1e', strokeWidth: 4, end: 'up' });
    const [ox, oy] = points[0]!;
    const shape: ElementShape = {
      kind: 'pen',
      x: ox,
      y: oy,
      points: points.slice(0, 500).map(([px, py, p]) => [Math.round((px - ox) * 10) / 10, Math.round((py - oy) * 10) / 10, p]),
      stroke: '#1e1e1e',
      strokeWidth: 4,
    };
    stroke.created(performance.now());
    student.socket.timeout(10_000).emit(ClientEvent.ELEMENT_CREATE, { requestId: rid(), id: strokeId, shape, boardId: student.boardId }, (error, reply) => {
      if (error || !reply.ok) onRefused();
    });
    await sleep(between(PAUSE_MS));
  }
}

/** One point: `classes` classes drawing at once for the window, after a warm-up. */
export async function privateClassPoint(server: ServerUnderTest, classes: number, timing: PrivateClassTiming): Promise<PrivateClassPoint> {
  const rooms: ClassRoom[] = [];
  for (let n = 0; n < classes; n++) rooms.push(await openClass(server.url, n, timing.grouped));
  const strokes = new Map<string, { firstInkAt: number; createdAt: number; counted: boolean }>();
  const delivery: number[] = [];
  const firstInk: number[] = [];
  const inkSeen = new Set<string>();
  let inkSent = 0;
  let inkAtTeacher = 0;
  let delivered = 0;
  let refused = 0;
  let measuring = false;
  for (const room of rooms) {
    room.teacher.on(ServerEvent.ROOM_EVENT, (event) => {
      if (event.kind !== 'element.created') return;
      const stroke = strokes.get(event.payload.element.id);
      if (!stroke || !stroke.counted || stroke.createdAt === 0) return;
      delivered++;
      delivery.push(performance.now() - stroke.createdAt);
    });
    const atTeacher = (batch: BoardPointers) => {
      for (const entry of batch.ink ?? []) {
        if (strokes.get(entry.strokeId)?.counted) inkAtTeacher += entry.points.length;
        if (inkSeen.has(entry.strokeId)) continue;
        inkSeen.add(entry.strokeId);
        const stroke = strokes.get(entry.strokeId);
        if (stroke?.counted && stroke.firstInkAt > 0) firstInk.push(performance.now() - stroke.firstInkAt);
      }
    };
    room.teacher.on(ServerEvent.BOARD_POINTERS, atTeacher);
    room.teacher.on(ServerEvent.BOARDS_POINTERS, ({ batches }) => batches.forEach(atTeacher));
  }
  const warmupEnd = performance.now() + timing.warmupMs;
  const end = warmupEnd + timing.windowMs;
  let before = server.sample();
  const done = () => performance.now() >= end;
  const loops = rooms.flatMap((room) =>
    room.students.map(async (student, i) => {
      // Students start over a second, as a class does, not in one burst.
      await sleep((i / STUDENTS_PER_CLASS) * 1_000);
      await drawLoop(
        student,
        done,
        (strokeId) => {
          if (!measuring && performance.now() >= warmupEnd) {
            measuring = true;
            before = server.sample();
          }
          const stroke = { firstInkAt: 0, createdAt: 0, counted: measuring };
          strokes.set(strokeId, stroke);
          return {
            firstInk: (at) => (stroke.firstInkAt = at),
            created: (at) => (stroke.createdAt = at),
            inkSent: (points) => {
              if (stroke.counted) inkSent += points;
            },
          };
        },
        () => {
          if (measuring) refused++;
        },
      );
    }),
  );
  await Promise.all(loops);
  const after = server.sample();
  // Strokes still in flight at the window's end get a moment to arrive.
  await sleep(2_000);
  const sent = [...strokes.values()].filter((s) => s.counted).length;
  for (const room of rooms) {
    room.teacher.disconnect();
    for (const s of room.students) s.socket.disconnect();
  }
  const cpuSeconds = after.cpuSeconds - before.cpuSeconds;
  const strokeP95Ms = percentileOf(delivery, 95);
  return {
    classes,
    students: classes * STUDENTS_PER_CLASS,
    strokesSent: sent,
    strokesDelivered: delivered,
    strokesLost: Math.max(0, sent - delivered - refused),
    createsRefused: refused,
    strokeP50Ms: percentileOf(delivery, 50),
    strokeP95Ms,
    strokeP99Ms: percentileOf(delivery, 99),
    firstInkP95Ms: percentileOf(firstInk, 95),
    inkAtTeacherShare: inkSent > 0 ? inkAtTeacher / inkSent : 0,
    serverCores: cpuSeconds / ((after.at - before.at) / 1000),
    serverCpuMsPerStroke: sent > 0 ? (cpuSeconds * 1000) / sent : 0,
    load: loadAverage(),
    pass: strokeP95Ms <= BOARDS_PASS.strokeP95Ms && delivered + refused >= sent,
  };
}

/** The sweep: each point on fresh classes (their boards start empty). */
export async function privateClassSweep(server: ServerUnderTest, points: readonly number[], timing: PrivateClassTiming, log: (line: string) => void): Promise<PrivateClassPoint[]> {
  const results = [];
  for (const classes of points) {
    const point = await privateClassPoint(server, classes, timing);
    log(
      `boards: ${classes} class(es) of 1 + ${STUDENTS_PER_CLASS}: ${point.strokesDelivered}/${point.strokesSent} strokes at the teacher, ` +
        `p50 ${point.strokeP50Ms.toFixed(0)} ms, p95 ${point.strokeP95Ms.toFixed(0)} ms, p99 ${point.strokeP99Ms.toFixed(0)} ms, ` +
        `first ink p95 ${point.firstInkP95Ms.toFixed(0)} ms, ink at the teacher ${(point.inkAtTeacherShare * 100).toFixed(0)} %, server ${point.serverCores.toFixed(2)} cores, ${point.serverCpuMsPerStroke.toFixed(2)} ms CPU/stroke ` +
        `(load ${point.load.map((l) => l.toFixed(1)).join(' ')})`,
    );
    results.push(point);
  }
  return results;
}
