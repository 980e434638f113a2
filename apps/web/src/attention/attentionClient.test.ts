import { LASER_FADE_MS, type Ack, type SharedView } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { AttentionClient, fitView, sharedViewOf, type AttentionPorts } from './attentionClient.ts';

function setup(role: 'teacher' | 'student') {
  const sent: string[] = [];
  let now = 1_000;
  const ok = <T,>(value: T) => Promise.resolve({ ok: true as const, ...value });
  const ports: AttentionPorts = {
    laser: (x, y) => sent.push(`laser ${x},${y}`),
    viewport: (view) => sent.push(`viewport ${view.cx}`),
    followSet: (following) => (sent.push(`follow ${following}`), ok({ following })),
    followBring: (view) => (sent.push(`bring ${view.cx}`), Promise.resolve({ ok: true } as Ack<Record<string, never>>)),
    followPresent: (presenting) => (sent.push(`present ${presenting}`), ok({ presenting })),
  };
  const client = new AttentionClient(ports, { sessionId: 'self', role }, () => now);
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
    client.receiveFollow({ kind: 'presenting', presenting: true, view: view(10) });
    expect(client.view.getState()).toMatchObject({ teacherPresenting: true, following: true });
    client.receiveViewport({ sessionId: 't', view: view(20) });
    expect(client.viewRequest.getState()?.view.cx).toBe(20);
    client.viewMoved(view(99));
    expect(client.view.getState().following).toBe(false);
    client.receiveViewport({ sessionId: 't', view: view(30) });
    expect(client.viewRequest.getState()?.view.cx).toBe(20);
    client.returnToTeacher();
    expect(client.viewRequest.getState()?.view.cx).toBe(30);
    expect(sent).toEqual(['follow true', 'follow false', 'follow true']);
  });

  test('told the teacher presents again (a reconnect), a student who panned away stays put and one who follows moves', () => {
    const { client, sent } = setup('student');
    client.receiveFollow({ kind: 'presenting', presenting: true, view: view(10) });
    client.viewMoved(view(99));
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
    client.viewMoved(view(1));
    void client.setPresenting(true, view(2));
    client.viewMoved(view(3));
    expect(sent).toEqual(['present true', 'viewport 3']);
  });
});

describe('laser trails (client)', () => {
  test('a point shows for LASER_FADE_MS, then is gone', () => {
    const { client, advance } = setup('student');
    client.receiveLaser([['other', 5, 5], ['self', 1, 1]]);
    expect(client.laser.getState().points.map((p) => p.sessionId)).toEqual(['other']);
    advance(LASER_FADE_MS - 1);
    expect(client.pruneLaser()).toBe(true);
    advance(2);
    expect(client.pruneLaser()).toBe(false);
    expect(client.laser.getState().points).toEqual([]);
  });
});
