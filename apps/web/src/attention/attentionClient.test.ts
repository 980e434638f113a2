import { LASER_FADE_MS, type Ack, type SharedView } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { AttentionClient, fitView, sharedViewOf, type AttentionPorts } from './attentionClient.ts';

/** The lesson's id: its own page, the class board, which the wire names by leaving `boardId` out. */
const LESSON = 'lesson';
const on = (boardId: string | undefined) => (boardId ? ` on ${boardId}` : '');

function setup(role: 'teacher' | 'student') {
  const sent: string[] = [];
  let now = 1_000;
  const ok = <T,>(value: T) => Promise.resolve({ ok: true as const, ...value });
  const ports: AttentionPorts = {
    laser: (x, y, boardId) => sent.push(`laser ${x},${y}${on(boardId)}`),
    viewport: (view, boardId) => sent.push(`viewport ${view.cx}${on(boardId)}`),
    followSet: (following) => (sent.push(`follow ${following}`), ok({ following })),
    followBring: (view, boardId) => (sent.push(`bring ${view.cx}${on(boardId)}`), Promise.resolve({ ok: true } as Ack<Record<string, never>>)),
    followPresent: (presenting, _view, boardId) => (sent.push(`present ${presenting}${on(boardId)}`), ok({ presenting })),
    goToBoard: (boardId) => sent.push(`go to ${boardId}`),
  };
  const client = new AttentionClient(ports, { sessionId: 'self', role, lessonId: LESSON }, () => now);
  return { client, sent, advance: (ms: number) => (now += ms) };
}
const view = (cx: number): SharedView => ({ cx, cy: 0, w: 1000, h: 500 });

describe('follow the teacher (client)', () => {
  test("a phone shows the teacher's centre, zoomed so the teacher's whole view fits", () => {
    const vp = fitView({ cx: 500, cy: 250, w: 1000, h: 500 }, { width: 390, height: 844 });
    expect(vp.zoom).toBeCloseTo(0.39);
    expect(sharedViewOf(vp, { width: 390, height: 844 })).toMatchObject({ cx: 500, cy: 250 });
  });

  test('presenting makes a student follow; their own pan stops it; "Return to the teacher" goes back to the last view', () => {
    const { client, sent } = setup('student');
    client.boardShown(LESSON, view(0));
    client.receiveFollow({ kind: 'presenting', presenting: true, view: view(10) });
    expect(client.view.getState()).toMatchObject({ teacherPresenting: true, following: true });
    client.receiveViewport({ sessionId: 't', view: view(20) });
    expect(client.viewRequest.getState()?.view.cx).toBe(20);
    client.viewMoved(view(99), LESSON);
    expect(client.view.getState().following).toBe(false);
    client.receiveViewport({ sessionId: 't', view: view(30) });
    expect(client.viewRequest.getState()?.view.cx).toBe(20);
    client.returnToTeacher();
    expect(client.viewRequest.getState()?.view.cx).toBe(30);
    expect(sent).toEqual(['follow true', 'follow false', 'follow true']);
  });

  test('told the teacher presents again (a reconnect), a student who panned away stays put and one who follows moves', () => {
    const { client, sent } = setup('student');
    client.boardShown(LESSON, view(0));
    client.receiveFollow({ kind: 'presenting', presenting: true, view: view(10) });
    client.viewMoved(view(99), LESSON);
    client.receiveFollow({ kind: 'presenting', presenting: true, view: view(40) });
    expect(client.view.getState()).toMatchObject({ teacherPresenting: true, following: false });
    expect(client.viewRequest.getState()?.view.cx).toBe(10);
    client.returnToTeacher();
    expect(client.viewRequest.getState()?.view.cx).toBe(40);
    client.receiveFollow({ kind: 'presenting', presenting: true, view: view(50) });
    expect(client.viewRequest.getState()?.view.cx).toBe(50);
    expect(sent).toEqual(['follow true', 'follow false', 'follow true']);
  });

  test('a presenting teacher shares view moves at most every VIEWPORT_SYNC_MS; not presenting, none', () => {
    const { client, sent } = setup('teacher');
    client.viewMoved(view(1), LESSON);
    void client.setPresenting(true, view(2), LESSON);
    client.viewMoved(view(3), LESSON);
    expect(sent).toEqual(['present true', 'viewport 3']);
  });
});

describe('the kit on every lesson page (client)', () => {
  test("a view on another page takes a free student there first, and moves only that page's board, once", () => {
    const { client, sent } = setup('student');
    expect(client.boardShown('p3', view(0))).toBeNull();
    client.receiveFollow({ kind: 'bring', view: view(7), boardId: 'p2' });
    expect(sent).toEqual(['go to p2']);
    // Page 3, still on the stage a moment, is not moved by a view of page 2.
    expect(client.takeView('p3')).toBeNull();
    client.boardHidden('p3');
    expect(client.boardShown('p2', view(0))).toEqual(view(7));
    expect(client.takeView('p2')).toBeNull();
    // Brought again on the page they are on: the board moves, nobody goes anywhere.
    client.receiveFollow({ kind: 'bring', view: view(8), boardId: 'p2' });
    expect(client.takeView('p2')).toEqual(view(8));
    // A view without a board is the class board's (the lesson's own page).
    client.receiveFollow({ kind: 'bring', view: view(9) });
    expect(sent).toEqual(['go to p2', `go to ${LESSON}`]);
    expect(client.takeView('p2')).toBeNull();
    expect(client.takeView(LESSON)).toEqual(view(9));
  });

  test("a following student goes with the teacher's view to her page; going to another page on their own stops following, her page does not", () => {
    const { client, sent } = setup('student');
    client.boardShown('p2', view(0));
    client.receiveFollow({ kind: 'presenting', presenting: true, view: view(1), boardId: 'p2' });
    expect(client.takeView('p2')).toEqual(view(1));
    // She goes on to page 3 and shares her view there: the follower goes too.
    client.receiveViewport({ sessionId: 't', view: view(2), boardId: 'p3' });
    expect(sent).toEqual(['follow true', 'go to p3']);
    client.boardChosen('p3');
    expect(client.view.getState().following).toBe(true);
    expect(client.boardShown('p3', view(0))).toEqual(view(2));
    // Browsing to page 4 alone: no longer following, and her next view leaves them there.
    client.boardChosen('p4');
    client.boardShown('p4', view(0));
    expect(client.view.getState()).toMatchObject({ teacherPresenting: true, following: false });
    client.receiveViewport({ sessionId: 't', view: view(3), boardId: 'p3' });
    expect(client.takeView('p4')).toBeNull();
    // "Return to the teacher": back to her page, at her latest view.
    client.returnToTeacher();
    expect(sent).toEqual(['follow true', 'go to p3', 'follow false', 'go to p3', 'follow true']);
    expect(client.boardShown('p3', view(0))).toEqual(view(3));
  });

  test('a presenting teacher names her page in every view, and shares her view of a page she goes to at once', () => {
    const { client, sent } = setup('teacher');
    client.boardShown('p2', view(0));
    void client.setPresenting(true, view(1), 'p2');
    client.boardHidden('p2');
    client.boardShown('p3', view(5));
    void client.bringEveryone(view(6), 'p3');
    client.boardShown(LESSON, view(7));
    expect(sent).toEqual(['present true on p2', 'viewport 5 on p3', 'bring 6 on p3']);
    client.reconnected();
    expect(sent.at(-1)).toBe('present true');
  });
});

describe('laser trails (client)', () => {
  test('a point shows for LASER_FADE_MS, then is gone', () => {
    const { client, advance } = setup('student');
    client.receiveLaser([['other', 5, 5], ['self', 1, 1]], LESSON);
    expect(client.laser.getState().points.map((p) => p.sessionId)).toEqual(['other']);
    advance(LASER_FADE_MS - 1);
    expect(client.pruneLaser()).toBe(true);
    advance(2);
    expect(client.pruneLaser()).toBe(false);
    expect(client.laser.getState().points).toEqual([]);
  });

  test('a point belongs to the board it was made on: a page\'s goes to the server naming the page, the class board\'s names none', () => {
    const { client, sent } = setup('teacher');
    client.pointLaser(1, 2, 'p2');
    client.pointLaser(3, 4, LESSON);
    client.receiveLaser([['ana', 5, 6]], 'p3');
    expect(sent).toEqual(['laser 1,2 on p2', 'laser 3,4']);
    expect(client.laser.getState().points.map((p) => `${p.sessionId}@${p.boardId}`)).toEqual(['self@p2', `self@${LESSON}`, 'ana@p3']);
  });
});
