/**
 * The boards client's sync of private boards (docs/boards.md), without a server: each board from
 * its own log in revision order (I1). A gap forces a fresh `board.sync`, never a guess; events
 * that arrive while a sync is in flight are applied after it; a board the teacher hides is
 * forgotten by every student but its owner.
 */
import { ClientEvent, type Activity, type BoardInfo, type Element, type RoomEvent } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { BoardsClient } from './boardsClient.ts';

const LESSON = '00000000-0000-4000-8000-00000000000a';
const BOARD = '00000000-0000-4000-8000-0000000000b1';
const OTHER = '00000000-0000-4000-8000-0000000000b2';
const ME_BOARD = '00000000-0000-4000-8000-0000000000b3';
const ME = '00000000-0000-4000-8000-0000000000c1';
const ACTIVITY = '00000000-0000-4000-8000-0000000000d1';

const info = (id: string, owner = ME): BoardInfo => ({
  id,
  activityId: ACTIVITY,
  ownerUserId: owner,
  ownerName: owner === ME ? 'Ana' : 'Ben',
  revision: 0,
  editPolicy: 'own',
  shownLabel: null,
});
const element = (n: number): Element => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  shape: { kind: 'rect', x: n, y: 0, w: 1, h: 1, stroke: '#000000', fill: 'transparent', strokeWidth: 1 },
  version: 1,
  pinned: false,
  createdBy: ME,
  updatedBy: ME,
  z: n,
  lock: null,
});
const created = (boardId: string, revision: number, made: Element = element(revision)): RoomEvent => ({
  roomId: boardId,
  revision,
  eventId: `element.created:${boardId}:${revision}`,
  kind: 'element.created',
  payload: { element: made },
});
const activity = (shown: Activity['shown'] = []): Activity => ({
  id: ACTIVITY,
  title: 'Fractions',
  status: 'running',
  startKind: 'blank',
  startedAt: '2031-03-01T08:00:00.000Z',
  shown,
});
const activityEvent = (revision: number, a: Activity): RoomEvent => ({
  roomId: LESSON,
  revision,
  eventId: `activity.updated:${LESSON}:${ACTIVITY}:${revision}`,
  kind: 'activity.updated',
  payload: a,
});

/** A student's client whose server answers from `snapshots` (by board), recording every request. */
function setup(role: 'teacher' | 'student' = 'student') {
  const requests: Array<[string, unknown]> = [];
  const snapshots = new Map<string, { revision: number; elements: Element[]; board: BoardInfo }>();
  let release: (() => void) | null = null;
  let hold = false;
  const client = new BoardsClient(
    {
      request: async <T,>(event: string, payload: unknown) => {
        requests.push([event, payload]);
        if (hold) await new Promise<void>((resolve) => (release = resolve));
        if (event === ClientEvent.BOARD_LIST) return { ok: true, activity: activity(), boards: [] } as never as { ok: true } & T;
        if (event === ClientEvent.BOARD_MINE) return { ok: true, activity: activity(), board: info(BOARD) } as never as { ok: true } & T;
        if (event === ClientEvent.BOARD_SYNC) {
          const id = (payload as { boardId: string }).boardId;
          const s = snapshots.get(id) ?? { revision: 0, elements: [], board: info(id) };
          return { ok: true, sync: { kind: 'snapshot', snapshot: s } } as never as { ok: true } & T;
        }
        return { ok: false, error: { code: 'bad_request', message: 'no' } } as never;
      },
      emit: (event, payload) => requests.push([event, payload]),
    },
    { lessonId: LESSON, userId: ME, role },
    () => 1_000,
  );
  return {
    client,
    requests,
    snapshots,
    holdReplies: () => (hold = true),
    releaseReply: () => {
      hold = false;
      release?.();
    },
    syncs: () => requests.filter(([e]) => e === ClientEvent.BOARD_SYNC).length,
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('boards client', () => {
  test('I1: a board applies its events in revision order; a gap asks for a fresh board.sync', async () => {
    const { client, syncs } = setup();
    await client.reconnected();
    const board = () => client.store.getState().boards.get(BOARD)!;
    expect(board().revision).toBe(0);
    client.receiveEvent(created(BOARD, 1));
    client.receiveEvent(created(BOARD, 1));
    expect(board().elements.size).toBe(1);
    expect(board().lastDrewAt).toBe(1_000);
    const before = syncs();
    client.receiveEvent(created(BOARD, 3));
    expect(board().revision).toBe(1);
    await settle();
    expect(syncs()).toBe(before + 1);
  });

  test('I1: events that arrive while a board syncs are applied after its snapshot, those above it only', async () => {
    const t = setup();
    await t.client.reconnected();
    t.snapshots.set(BOARD, { revision: 2, elements: [element(1), element(2)], board: info(BOARD) });
    t.holdReplies();
    const syncing = t.client.sync(BOARD);
    t.client.receiveEvent(created(BOARD, 2));
    t.client.receiveEvent(created(BOARD, 3));
    t.releaseReply();
    await syncing;
    const board = t.client.store.getState().boards.get(BOARD)!;
    expect(board.revision).toBe(3);
    expect([...board.elements.keys()]).toEqual([element(1).id, element(2).id, element(3).id]);
  });

  test('a shown board is synced for a student, and forgotten when hidden (their own stays)', async () => {
    const { client, requests } = setup();
    await client.reconnected();
    client.receiveEvent(activityEvent(5, activity([{ boardId: OTHER, label: 'Student B' }])));
    await settle();
    expect(requests.some(([e, p]) => e === ClientEvent.BOARD_SYNC && (p as { boardId: string }).boardId === OTHER)).toBe(true);
    expect(client.store.getState().boards.has(OTHER)).toBe(true);
    client.receiveEvent(activityEvent(6, activity([])));
    expect(client.store.getState().boards.has(OTHER)).toBe(false);
    expect(client.store.getState().boards.has(BOARD)).toBe(true);
    // Another board's events never reach a board this client does not hold.
    client.receiveEvent(created(OTHER, 1));
    expect(client.store.getState().boards.has(OTHER)).toBe(false);
  });

  test('LI1, LI2: live ink on a board grows while drawn, ends when its element arrives and never comes back; our own is not echoed', async () => {
    const { client } = setup('teacher');
    await client.reconnected();
    client.receiveOpened(info(BOARD, OTHER));
    await settle();
    const strokeId = element(1).id;
    const ANA_SESSION = '00000000-0000-4000-8000-0000000000e1';
    const MY_SESSION = '00000000-0000-4000-8000-0000000000e2';
    const entry = (from: number, points: [number, number, number][]) => ({ strokeId, sessionId: ANA_SESSION, from, points, stroke: '#1e1e1e', strokeWidth: 4 });
    const live = () => client.ink.getState().byBoard.get(BOARD);
    client.receivePointers({ boardId: BOARD, pointers: [[ANA_SESSION, OTHER, 1, 1]], ink: [entry(0, [[1, 1, 0.5], [2, 2, 0.5]])] });
    client.receivePointers({ boardId: BOARD, pointers: [[ANA_SESSION, OTHER, 3, 3]], ink: [entry(2, [[3, 3, 0.5]])] });
    expect(live()?.get(strokeId)?.points.length).toBe(3);
    // Our own stroke's ink, echoed by the board's channel, is drawn locally already.
    const mine = '00000000-0000-4000-8000-0000000000f1';
    client.receivePointers({ boardId: BOARD, pointers: [[MY_SESSION, ME, 5, 5]], ink: [{ ...entry(0, [[5, 5, 0.5]]), strokeId: mine, sessionId: MY_SESSION }] });
    expect(live()?.has(mine)).toBe(false);
    client.receiveEvent(created(BOARD, 1));
    expect(live()?.has(strokeId)).toBe(false);
    client.receivePointers({ boardId: BOARD, pointers: [], ink: [entry(3, [[4, 4, 0.5]])] });
    expect(live()?.has(strokeId)).toBe(false);
  });

  test('our stroke on a board is sent as live ink naming the board, then ends with `up`', () => {
    const { client, requests } = setup();
    const strokeId = client.beginStroke(BOARD, '#1e1e1e', 4, [1, 1, 0.5]);
    client.extendStroke([2, 2, 0.5]);
    client.endStroke();
    const ink = requests.filter(([e]) => e === ClientEvent.INK).map(([, p]) => p as { boardId: string; strokeId: string; from: number; points: unknown[]; end?: string });
    expect(ink.map((p) => [p.boardId, p.strokeId, p.from, p.points.length, p.end])).toEqual([
      [BOARD, strokeId, 0, 1, undefined],
      [BOARD, strokeId, 1, 1, 'up'],
    ]);
  });

  test('last drew: a teacher\'s board.list `lastDrewMsAgo` is a moment on our clock after a reload; the owner\'s next change moves it, a teacher\'s comment does not', async () => {
    let now = 50_000;
    const requests: string[] = [];
    const client = new BoardsClient(
      {
        request: async <T,>(event: string, payload: unknown) => {
          requests.push(event);
          if (event === ClientEvent.BOARD_LIST)
            return { ok: true, activity: activity(), boards: [{ ...info(BOARD, OTHER), lastDrewMsAgo: 7_000 }, info(ME_BOARD, ME)] } as never as { ok: true } & T;
          if (event === ClientEvent.BOARD_SYNC) {
            const id = (payload as { boardId: string }).boardId;
            return { ok: true, sync: { kind: 'snapshot', snapshot: { revision: 0, elements: [], board: info(id, id === BOARD ? OTHER : ME) } } } as never;
          }
          return { ok: false, error: { code: 'bad_request', message: 'no' } } as never;
        },
        emit: () => undefined,
      },
      { lessonId: LESSON, userId: ME, role: 'teacher' },
      () => now,
    );
    await client.reconnected();
    await settle();
    const drewAt = () => client.store.getState().boards.get(BOARD)?.lastDrewAt;
    // The snapshot after the list keeps what the list said.
    expect(drewAt()).toBe(43_000);
    expect(client.store.getState().boards.get(ME_BOARD)?.lastDrewAt).toBeNull();
    now = 60_000;
    const comment = { ...element(1), createdBy: ME, updatedBy: ME };
    client.receiveEvent(created(BOARD, 1, comment));
    expect(drewAt()).toBe(43_000);
    now = 61_000;
    client.receiveEvent(created(BOARD, 2, { ...element(2), createdBy: OTHER, updatedBy: OTHER }));
    expect(drewAt()).toBe(61_000);
  });

  test('others\' drags on a board are kept per board from board.pointers, ours are not, and end with the lock\'s release', async () => {
    const { client } = setup('teacher');
    await client.reconnected();
    client.receiveOpened(info(BOARD, OTHER));
    await settle();
    const drags = () => client.drags.getState().byBoard.get(BOARD);
    const SESSION = '00000000-0000-4000-8000-0000000000e1';
    const drag = (userId: string, x: number) => ({ elementId: element(1).id, generation: 3, sessionId: SESSION, userId, x, y: 5 });
    client.receivePointers({ boardId: BOARD, pointers: [], drags: [drag(OTHER, 40)] });
    expect(drags()?.get(element(1).id)).toMatchObject({ userId: OTHER, x: 40, y: 5 });
    client.receivePointers({ boardId: BOARD, pointers: [], drags: [{ ...drag(ME, 90), elementId: element(2).id }] });
    expect(drags()?.has(element(2).id)).toBe(false);
    client.receiveEvent({ roomId: BOARD, revision: 1, eventId: `lock.released:${BOARD}:1`, kind: 'lock.released', payload: { elementId: element(1).id, generation: 3, reason: 'released' } });
    expect(drags()?.size).toBe(0);
  });

  test('undo takes back our newest stroke on the board still there: deleted by someone else is skipped, a refusal keeps it', async () => {
    const requests: Array<[string, { id?: string; boardId?: string }]> = [];
    const answers: Record<string, { ok: false; error: { code: string; message: string } } | undefined> = {};
    const client = new BoardsClient(
      {
        request: async <T,>(event: string, payload: unknown) => {
          const p = payload as { id?: string; boardId?: string };
          requests.push([event, p]);
          if (event === ClientEvent.ELEMENT_CREATE) return { ok: true, element: element(1) } as never as { ok: true } & T;
          if (event === ClientEvent.ELEMENT_DELETE) return (answers[p.id!] ?? { ok: true, element: element(1) }) as never as { ok: true } & T;
          return { ok: false, error: { code: 'bad_request', message: 'no' } } as never;
        },
        emit: () => {},
      },
      { lessonId: LESSON, userId: ME, role: 'student' },
      () => 1_000,
    );
    const shape = element(1).shape;
    const ids = ['s1', 's2', 's3'].map((n) => `00000000-0000-4000-8000-0000000000${n.replace('s', 'e')}`);
    for (const id of ids) expect(await client.draw(ME_BOARD, shape, id)).toBeNull();
    // Another board's stroke is not ours to undo here.
    await client.draw(OTHER, shape, '00000000-0000-4000-8000-0000000000f1');
    expect(client.store.getState().undoable.get(ME_BOARD)).toBe(3);

    // The newest first, naming its board.
    expect(await client.undo(ME_BOARD)).toBeNull();
    const deletes = () => requests.filter(([e]) => e === ClientEvent.ELEMENT_DELETE).map(([, p]) => [p.id, p.boardId]);
    expect(deletes()).toEqual([[ids[2], ME_BOARD]]);
    expect(client.store.getState().undoable.get(ME_BOARD)).toBe(2);

    // The teacher deleted s2 meanwhile: it is skipped, s1 goes.
    answers[ids[1]!] = { ok: false, error: { code: 'not_found', message: 'gone' } };
    expect(await client.undo(ME_BOARD)).toBeNull();
    expect(deletes().slice(1)).toEqual([[ids[1], ME_BOARD], [ids[0], ME_BOARD]]);
    expect(client.store.getState().undoable.get(ME_BOARD)).toBe(0);
    // Nothing left: no request.
    expect(await client.undo(ME_BOARD)).toBeNull();
    expect(deletes()).toHaveLength(3);

    // Frozen: the refusal keeps the stroke for later and says why.
    const later = '00000000-0000-4000-8000-0000000000e9';
    await client.draw(ME_BOARD, shape, later);
    answers[later] = { ok: false, error: { code: 'forbidden_by_policy', message: 'The teacher froze the boards.' } };
    expect(await client.undo(ME_BOARD)).toMatchObject({ code: 'forbidden_by_policy' });
    expect(client.store.getState().undoable.get(ME_BOARD)).toBe(1);
    expect(client.store.getState().error).toBe('The teacher froze the boards.');
  });
});
