/**
 * The cap on elements per board and the lesson's own pictures, on the wire and on both databases
 * (docs/protocol.md, `board_full` and `image_unknown`): a hand-written `element.create` past
 * `BOARD_ELEMENTS_MAX` is refused `board_full`, nobody receives the refused element and everyone
 * else keeps being served; a private board has its own count; an image element naming another
 * lesson's picture is refused `image_unknown` until its lesson holds that picture.
 */
import { createHash, randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, type BoardInfo, type ElementShape, type ProtocolError } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { pngFile } from '../../../packages/protocol/test/pngFixture.ts';
import { createRoom, describeOnEachDatabase, joinAs, type TestClient } from './support.ts';

const CAP = 3;
const rid = () => randomUUID().replaceAll('-', '');
const dot = (x: number): ElementShape => ({ kind: 'rect', x, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 });
type Reply = ({ ok: true } & Record<string, unknown>) | { ok: false; error: ProtocolError };

describeOnEachDatabase('element cap and lesson pictures', { env: { BOARD_ELEMENTS_MAX: String(CAP) } }, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  /** A packet as a hand-written client would send it: no client-side checks on the way. */
  const ask = (c: TestClient, event: string, packet: unknown) =>
    c.socket.timeout(10_000).emitWithAck(event as typeof ClientEvent.ELEMENT_CREATE, packet as never) as unknown as Promise<Reply>;
  const create = (c: TestClient, shape: ElementShape, boardId?: string, id = randomUUID()) =>
    ask(c, ClientEvent.ELEMENT_CREATE, { requestId: rid(), id, shape, ...(boardId ? { boardId } : {}) });

  async function lessonOfTwo() {
    const teacher = await createRoom(app, 'Ms Rivera', { editPolicy: 'everyone' });
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const ben = await joinAs(app, teacher.room.code, 'Ben');
    const [t, a, b] = [client(app, teacher.token), client(app, ana.token), client(app, ben.token)];
    for (const c of [t, a, b]) await c.ready();
    return { teacher, t, a, b };
  }

  test(`past ${CAP} live elements a create is refused board_full: nobody receives it, everyone else is served, a delete makes room`, async () => {
    const { t, a, b } = await lessonOfTwo();
    const ids: string[] = [];
    for (let i = 0; i < CAP; i++) {
      const made = await create(a, dot(i));
      expect(made).toMatchObject({ ok: true });
      ids.push((made as unknown as { element: { id: string } }).element.id);
    }
    await b.until(() => b.eventsOfKind('element.created').length === CAP, 'the three creates');
    const refusedId = randomUUID();
    const refused = await create(a, dot(9), undefined, refusedId);
    expect(refused).toEqual({ ok: false, error: { code: ErrorCode.BOARD_FULL, message: expect.any(String) } });
    // The teacher is held to the board's cap as well.
    expect(await create(t, dot(10))).toMatchObject({ ok: false, error: { code: ErrorCode.BOARD_FULL } });
    // The refusal ends nothing: the same socket and the others go on being answered.
    expect(await ask(b, ClientEvent.ELEMENT_UPDATE, { requestId: rid(), id: ids[0], baseVersion: 1, shape: dot(50) })).toMatchObject({ ok: true });
    expect(await ask(a, ClientEvent.ELEMENT_DELETE, { requestId: rid(), id: ids[1] })).toMatchObject({ ok: true });
    expect(await create(a, dot(11))).toMatchObject({ ok: true });
    await t.until(() => t.eventsOfKind('element.created').length === CAP + 1, 'the create after the delete');
    for (const c of [t, a, b]) expect(c.eventsOfKind('element.created').some((e) => e.payload.element.id === refusedId)).toBe(false);
    expect(a.received['session.ended']).toEqual([]);
  });

  test('a private board has its own count: a full class board refuses nothing on it', async () => {
    const { t, a } = await lessonOfTwo();
    for (let i = 0; i < CAP; i++) expect(await create(t, dot(i))).toMatchObject({ ok: true });
    expect(await create(a, dot(5))).toMatchObject({ ok: false, error: { code: ErrorCode.BOARD_FULL } });
    const started = (await ask(t, ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Own', start: { kind: 'blank' } })) as {
      ok: true;
      boards: BoardInfo[];
    };
    expect(started).toMatchObject({ ok: true });
    const mine = (await ask(a, ClientEvent.BOARD_MINE, {})) as { ok: true; board: BoardInfo };
    for (let i = 0; i < CAP; i++) expect(await create(a, dot(i), mine.board.id)).toMatchObject({ ok: true });
    expect(await create(a, dot(9), mine.board.id)).toMatchObject({ ok: false, error: { code: ErrorCode.BOARD_FULL } });
    // Copying the full class board onto boards of a cap they fit is allowed (it is at the cap, not past it).
    expect(await ask(t, ClientEvent.ACTIVITY_STATUS, { activityId: started.boards[0]!.activityId, status: 'ended' })).toMatchObject({ ok: true });
    expect(await ask(t, ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Copy', start: { kind: 'board' } })).toMatchObject({ ok: true });
  });

  test('an image element naming another lesson\'s picture is refused image_unknown; once its lesson holds the picture it is placed', async () => {
    const { teacher, a, b } = await lessonOfTwo();
    const elsewhere = await createRoom(app, 'Mr Other');
    const png = pngFile(4, 4, [1, 2, 3, 255]);
    const sha256 = createHash('sha256').update(png).digest('hex');
    const put = (lessonId: string, token: string) =>
      fetch(`${app.url}/api/rooms/${lessonId}/images`, { method: 'POST', headers: { 'content-type': 'image/png', authorization: `Bearer ${token}` }, body: png });
    expect((await put(elsewhere.room.id, elsewhere.token)).status).toBe(201);
    const image: ElementShape = { kind: 'image', x: 0, y: 0, w: 40, h: 40, sha256, naturalWidth: 4, naturalHeight: 4 };
    const refusedId = randomUUID();
    expect(await create(a, image, undefined, refusedId)).toEqual({ ok: false, error: { code: ErrorCode.IMAGE_UNKNOWN, message: expect.any(String) } });
    expect([201, 200]).toContain((await put(teacher.room.id, teacher.token)).status);
    expect(await create(a, image, undefined, refusedId)).toMatchObject({ ok: true });
    await b.until(() => b.eventsOfKind('element.created').some((e) => e.payload.element.id === refusedId), 'the placed picture');
  });
});
