/**
 * A hand-written client on a page's own session: what a student whose buttons are greyed out can
 * still send. The rules (a muted pen, a look-only lesson, an ended lesson) are the server's (I11);
 * a browser test that only checks the buttons proves the UI, so these send the packet the UI
 * withholds and the test checks, on the teacher's screen, that nothing arrived.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { ClientEvent, PROTOCOL_VERSION, SessionGrant, type Ack, type ClientToServerEvents, type Element, type ElementShape, type PageListReply, type ServerToClientEvents } from '@wb/protocol';
import { io, type Socket } from 'socket.io-client';
import { elementsOf } from './boardHook.ts';
import { expect } from './support.ts';

/** The shared e2e server, reached from the test process (playwright.config.ts). */
const serverUrl = () => `http://127.0.0.1:${process.env.E2E_PORT ?? 3210}`;

/** The session grant this tab holds (apps/web/src/session/grantStorage.ts). */
export async function grantOf(page: Page, code: string): Promise<SessionGrant> {
  const raw = await page.evaluate((c) => sessionStorage.getItem(`wb.session.${c.toUpperCase()}`), code);
  return SessionGrant.parse(JSON.parse(raw ?? 'null'));
}

/** Opens a socket with the page's session; resolves once connected, or rejects with the handshake's refusal code. */
export async function connectAs(page: Page, code: string): Promise<Socket<ServerToClientEvents, ClientToServerEvents>> {
  const grant = await grantOf(page, code);
  const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io(serverUrl(), {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    auth: { token: grant.token, protocol: PROTOCOL_VERSION },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error: Error & { data?: { code?: string } }) => {
      socket.close();
      reject(new Error(error.data?.code ?? error.message));
    });
  });
  return socket;
}

const square: ElementShape = { kind: 'rect', x: 40, y: 40, w: 60, h: 60, stroke: '#1f2937', fill: 'transparent', strokeWidth: 2 };

/** The page's session sends `element.create` itself; returns the server's answer and the id it named. */
export async function tryToDraw(page: Page, code: string): Promise<{ id: string; reply: Ack<unknown> }> {
  const socket = await connectAs(page, code);
  try {
    const id = randomUUID();
    const reply = (await socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: `e2e-${randomUUID()}`, id, shape: square })) as Ack<unknown>;
    return { id, reply };
  } finally {
    socket.close();
  }
}

/**
 * The attempt never reached the teacher's screen: the teacher's own session draws a marker after
 * the attempt was answered (at a later revision than anything the attempt could have written), the
 * marker arrives on the teacher's board, and the attempt's element is not there. Polling for the
 * absence alone would pass before anything had arrived.
 */
export async function expectNeverArrived(teacher: Page, code: string, attemptId: string) {
  const marker = await tryToDraw(teacher, code);
  expect(marker.reply).toMatchObject({ ok: true });
  await expect.poll(async () => (await elementsOf(teacher)).map((e) => e.id)).toContain(marker.id);
  expect((await elementsOf(teacher)).map((e) => e.id)).not.toContain(attemptId);
}

/** The lesson's pages as the page's session reads them (`page.list`, as any member may). */
export async function lessonPagesOf(page: Page, code: string): Promise<PageListReply> {
  const socket = await connectAs(page, code);
  try {
    const reply = await socket.timeout(10_000).emitWithAck(ClientEvent.PAGE_LIST, {});
    if (!reply.ok) throw new Error(`page.list refused: ${reply.error.code}`);
    return reply;
  } finally {
    socket.close();
  }
}

/** A page's elements as the server holds them (its `page.sync` snapshot, read with the page's session). */
export async function pageElementsOf(page: Page, code: string, pageId: string): Promise<Element[]> {
  const socket = await connectAs(page, code);
  try {
    const reply = await socket.timeout(10_000).emitWithAck(ClientEvent.PAGE_SYNC, { pageId });
    if (!reply.ok) throw new Error(`page.sync refused: ${reply.error.code}`);
    if (reply.sync.kind !== 'snapshot') throw new Error('expected a snapshot');
    return reply.sync.snapshot.elements;
  } finally {
    socket.close();
  }
}

/** The page's session moves an element of a page itself (`element.update` on that page's board); returns the server's answer. */
export async function tryToMove(page: Page, code: string, pageId: string, element: { id: string; version: number; shape: ElementShape }): Promise<Ack<unknown>> {
  const socket = await connectAs(page, code);
  try {
    const shape = { ...element.shape, x: element.shape.x + 100 } as ElementShape;
    return (await socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_UPDATE, { requestId: `e2e-${randomUUID()}`, id: element.id, baseVersion: element.version, shape, boardId: pageId })) as Ack<unknown>;
  } finally {
    socket.close();
  }
}
