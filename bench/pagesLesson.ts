/**
 * Pages (issue 39): opening a 50-page lesson and a class of 30 following the teacher through it.
 * Run by `pnpm bench` (`--only=pages`) against the product server under test, or alone:
 *
 *   node --import tsx bench/pagesLesson.ts    # BASE_URL=http://127.0.0.1:PORT of a running server
 *
 * - **Opening**: a student joins the 50-page lesson (HTTP join, socket handshake, the lesson's sync,
 *   `page.list`, `page.sync` of the teacher's page): the time from the join to that page's snapshot
 *   in hand ("first page live"), and the bytes the socket received meanwhile, beside the bytes of
 *   every page's snapshot (what sending the whole lesson would cost). Only the visible page is sent
 *   in full; the rest on demand.
 * - **Switching**: 30 students follow the teacher (each `pages.updated` makes each student ask the
 *   new page with `page.sync`, as the web client does); the teacher goes to another page SWITCHES
 *   times, one a second. Per student and switch: from the teacher's `page.goto` to the student
 *   holding the new page's snapshot. Target: p95 ≤ 150 ms.
 *
 * The time is wall-clock on this machine (server, clients and database on the same two cores).
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, ServerEvent, type ElementShape, type LessonPages, type PageListReply, type RoomEvent } from '@wb/protocol';
import { connectMember, joinRoom, startRoom, type MemberSocket } from '../e2e/roomSeed.ts';

export const PAGES_PASS = { switchP95Ms: 150 } as const;

export interface PagesLessonOptions {
  pages: number;
  elementsPerPage: number;
  students: number;
  switches: number;
}

export interface PagesLessonResult {
  pages: number;
  elementsPerPage: number;
  students: number;
  /** Opening: median and worst of OPEN_RUNS joins, ms. */
  openFirstPageMedianMs: number;
  openFirstPageMaxMs: number;
  /** Bytes a joining student's socket received until the first page was live (median). */
  openBytes: number;
  /** Bytes of every page's snapshot together (the whole lesson sent at once). */
  allPagesBytes: number;
  /** Bytes of the visible page's snapshot. */
  firstPageBytes: number;
  switchSamples: number;
  switchP50Ms: number;
  switchP95Ms: number;
  switchMaxMs: number;
  pass: boolean;
}

const OPEN_RUNS = 5;

function shape(i: number, page: number): ElementShape {
  const x = (i % 10) * 120 - 600 + page;
  const y = Math.floor(i / 10) * 90 - 300;
  return i % 2 === 0
    ? { kind: 'rect', x, y, w: 80, h: 50, stroke: '#1971c2', fill: 'transparent', strokeWidth: 2 }
    : { kind: 'pen', x, y, points: Array.from({ length: 30 }, (_, k) => [k * 2, Math.sin(k / 4) * 10, 0.5] as [number, number, number]), stroke: '#2f9e44', strokeWidth: 3 };
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** Bytes this socket receives from now on (every frame of its engine.io transport). */
function countBytes(socket: MemberSocket): () => number {
  let bytes = 0;
  const engine = socket.io.engine;
  const onPacket = (packet: { data?: unknown }) => {
    const data = packet.data;
    if (typeof data === 'string') bytes += Buffer.byteLength(data);
    else if (data instanceof ArrayBuffer) bytes += data.byteLength;
    else if (ArrayBuffer.isView(data)) bytes += data.byteLength;
  };
  engine.on('packet', onPacket);
  return () => bytes;
}

export async function pagesLesson(baseUrl: string, options: PagesLessonOptions, log: (line: string) => void): Promise<PagesLessonResult> {
  const sockets: MemberSocket[] = [];
  try {
    const teacherGrant = await startRoom(baseUrl, 'Ms Pages');
    const teacher = await connectMember(baseUrl, teacherGrant);
    sockets.push(teacher);
    const lessonId = teacherGrant.room.id;
    // The lesson: its own page and pages-1 more, each with elementsPerPage elements.
    const pageIds = [lessonId];
    for (let p = 1; p < options.pages; p++) {
      const pageId = randomUUID();
      const added = await teacher.emitWithAck(ClientEvent.PAGE_ADD, { pageId, afterPageId: pageIds.at(-1)! });
      if (!added.ok) throw new Error(`page.add: ${added.error.code}`);
      pageIds.push(pageId);
    }
    const started = Date.now();
    for (const [p, pageId] of pageIds.entries()) {
      for (let i = 0; i < options.elementsPerPage; i++) {
        const on = pageId === lessonId ? {} : { boardId: pageId };
        let reply = await teacher.emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: randomUUID().replaceAll('-', ''), id: randomUUID(), shape: shape(i, p), ...on });
        while (!reply.ok && reply.error.code === 'rate_limited') {
          await new Promise((r) => setTimeout(r, 500));
          reply = await teacher.emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: randomUUID().replaceAll('-', ''), id: randomUUID(), shape: shape(i, p), ...on });
        }
        if (!reply.ok) throw new Error(`element.create: ${reply.error.code}`);
      }
    }
    log(`pages: ${options.pages} pages of ${options.elementsPerPage} elements made in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    // The whole lesson's snapshots, for the bytes it would cost to send them all.
    let allPagesBytes = 0;
    let firstPageBytes = 0;
    const middle = pageIds[Math.floor(pageIds.length / 2)]!;
    for (const pageId of pageIds) {
      // The 1,500 creates above spent the teacher's packet budget: wait for it as a client would.
      let synced = await teacher.emitWithAck(ClientEvent.PAGE_SYNC, { pageId });
      while (!synced.ok && synced.error.code === 'rate_limited') {
        await new Promise((r) => setTimeout(r, 500));
        synced = await teacher.emitWithAck(ClientEvent.PAGE_SYNC, { pageId });
      }
      if (!synced.ok) throw new Error(`page.sync: ${synced.error.code}`);
      const bytes = Buffer.byteLength(JSON.stringify(synced.sync));
      allPagesBytes += bytes;
      if (pageId === middle) firstPageBytes = bytes;
    }
    // The teacher is on a page in the middle: where a joining student lands.
    const moved = await teacher.emitWithAck(ClientEvent.PAGE_GOTO, { pageId: middle });
    if (!moved.ok) throw new Error(`page.goto: ${moved.error.code}`);

    // Opening: a student joins and has the teacher's page.
    const openTimes: number[] = [];
    const openBytes: number[] = [];
    for (let run = 0; run < OPEN_RUNS; run++) {
      const t0 = performance.now();
      const grant = await joinRoom(baseUrl, teacherGrant.room.code, `Opener ${run + 1}`);
      const socket = await connectMember(baseUrl, grant);
      sockets.push(socket);
      const bytes = countBytes(socket);
      const listed = (await socket.emitWithAck(ClientEvent.PAGE_LIST, {})) as { ok: true } & PageListReply;
      const synced = await socket.emitWithAck(ClientEvent.PAGE_SYNC, { pageId: listed.currentPageId });
      if (!synced.ok) throw new Error(`page.sync: ${synced.error.code}`);
      openTimes.push(performance.now() - t0);
      const received = bytes();
      // The handshake's own sync (the lesson's own board) came before the counter: its size is added.
      const lessonSync = await socket.emitWithAck(ClientEvent.SYNC_REQUEST, {});
      openBytes.push(received + Buffer.byteLength(JSON.stringify(lessonSync)));
      socket.close();
    }
    openTimes.sort((a, b) => a - b);
    openBytes.sort((a, b) => a - b);

    // Switching: a class following the teacher.
    const students: MemberSocket[] = [];
    for (let s = 0; s < options.students; s++) {
      const socket = await connectMember(baseUrl, await joinRoom(baseUrl, teacherGrant.room.code, `Student ${s + 1}`));
      sockets.push(socket);
      students.push(socket);
    }
    const samples: number[] = [];
    let sentAt = 0;
    const pending = new Set<Promise<void>>();
    for (const socket of students) {
      socket.on(ServerEvent.ROOM_EVENT, (event: RoomEvent) => {
        if (event.kind !== 'pages.updated' || event.roomId !== lessonId) return;
        const target = (event.payload as LessonPages).currentPageId;
        const at = sentAt;
        const done = socket.emitWithAck(ClientEvent.PAGE_SYNC, { pageId: target }).then((reply) => {
          if (reply.ok) samples.push(performance.now() - at);
        });
        pending.add(done);
        void done.finally(() => pending.delete(done));
      });
    }
    for (let k = 0; k < options.switches; k++) {
      const target = pageIds[(Math.floor(pageIds.length / 2) + k + 1) % pageIds.length]!;
      sentAt = performance.now();
      const reply = await teacher.emitWithAck(ClientEvent.PAGE_GOTO, { pageId: target });
      if (!reply.ok) throw new Error(`page.goto: ${reply.error.code}`);
      await new Promise((r) => setTimeout(r, 1_000));
      await Promise.all([...pending]);
    }
    samples.sort((a, b) => a - b);
    const result: PagesLessonResult = {
      pages: options.pages,
      elementsPerPage: options.elementsPerPage,
      students: options.students,
      openFirstPageMedianMs: quantile(openTimes, 0.5),
      openFirstPageMaxMs: openTimes.at(-1) ?? 0,
      openBytes: quantile(openBytes, 0.5),
      allPagesBytes,
      firstPageBytes,
      switchSamples: samples.length,
      switchP50Ms: quantile(samples, 0.5),
      switchP95Ms: quantile(samples, 0.95),
      switchMaxMs: samples.at(-1) ?? 0,
      pass: samples.length === options.students * options.switches && quantile(samples, 0.95) <= PAGES_PASS.switchP95Ms,
    };
    log(
      `pages: open ${result.openFirstPageMedianMs.toFixed(0)} ms to the first page (max ${result.openFirstPageMaxMs.toFixed(0)}), ` +
        `${(result.openBytes / 1024).toFixed(0)} KiB received (one page ${(result.firstPageBytes / 1024).toFixed(0)} KiB; all ${options.pages} would be ${(result.allPagesBytes / 1024).toFixed(0)} KiB); ` +
        `switch p50 ${result.switchP50Ms.toFixed(0)} ms, p95 ${result.switchP95Ms.toFixed(0)} ms, max ${result.switchMaxMs.toFixed(0)} ms over ${result.switchSamples} (${result.pass ? 'pass' : 'FAIL'})`,
    );
    return result;
  } finally {
    for (const socket of sockets) socket.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const base = process.env.BASE_URL;
  if (!base) throw new Error('BASE_URL=http://127.0.0.1:PORT of a running server');
  const result = await pagesLesson(base, { pages: 50, elementsPerPage: 40, students: 30, switches: 20 }, console.log);
  console.log(JSON.stringify(result, null, 2));
}
