import type { Ack, LessonPages, RoomEvent } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import type { Request } from '../connection/request.ts';
import { KEPT_PAGE_ENGINES, PagesClient } from './pagesClient.ts';

const LESSON = '00000000-0000-4000-8000-000000000001';
const page = (n: number) => `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`;
const list = (count: number, current: string, pacing: LessonPages['pacing'] = 'paced'): LessonPages => ({
  pages: [LESSON, ...Array.from({ length: count - 1 }, (_, i) => page(i + 2))].map((id) => ({ id, title: '', background: 'dots' })),
  currentPageId: current,
  pacing,
});
const updated = (revision: number, pages: LessonPages): RoomEvent =>
  ({ eventId: `pages.updated:${LESSON}:${revision}`, roomId: LESSON, revision, kind: 'pages.updated', payload: pages, at: '2031-03-01T08:00:00.000Z' }) as unknown as RoomEvent;

/** A client of the role given, whose `page.list` answers `first`; it records what it follows. */
function pagesOf(role: 'teacher' | 'student', first: LessonPages) {
  const shown: string[] = [];
  const hidden: string[] = [];
  const chosen: string[] = [];
  const request = (async () => ({ ok: true, ...first, deleted: [] }) as Ack<unknown>) as unknown as Request;
  const client = new PagesClient({ request, show: (p) => shown.push(p.id), hide: (id) => hidden.push(id), chose: (id) => chosen.push(id) }, { lessonId: LESSON, role });
  return { client, shown, hidden, chosen, following: () => shown.filter((id) => !hidden.includes(id) || shown.lastIndexOf(id) > hidden.lastIndexOf(id)) };
}

describe('which page a person looks at (pagesClient.ts)', () => {
  test('a late joiner lands on the teacher page, and a paced student moves when she moves, following only that page', async () => {
    const s = pagesOf('student', list(3, page(3)));
    await s.client.reconnected();
    expect(s.client.store.getState().viewing).toBe(page(3));
    s.client.receiveEvent(updated(10, list(3, page(2))));
    expect(s.client.store.getState().viewing).toBe(page(2));
    expect(s.hidden).toContain(page(3));
    // The lesson's own page is the class board: no page engine for it, none kept for another.
    s.client.receiveEvent(updated(11, list(3, LESSON)));
    expect(s.client.store.getState().viewing).toBe(LESSON);
    expect(s.hidden).toContain(page(2));
  });

  test('a paced student cannot go to another page; a free one can, and pacing again brings them back', async () => {
    const s = pagesOf('student', list(3, LESSON));
    await s.client.reconnected();
    await s.client.go(page(3));
    expect(s.client.store.getState().viewing).toBe(LESSON);
    s.client.receiveEvent(updated(5, list(3, LESSON, 'free')));
    await s.client.go(page(3));
    expect(s.client.store.getState().viewing).toBe(page(3));
    // The teacher moves while the class browses: the student stays where they are.
    s.client.receiveEvent(updated(6, list(3, page(2), 'free')));
    expect(s.client.store.getState().viewing).toBe(page(3));
    s.client.receiveEvent(updated(7, list(3, page(2), 'paced')));
    expect(s.client.store.getState().viewing).toBe(page(2));
    // The attention kit hears only a free student's own moves (a paced move is the teacher's).
    expect(s.chosen).toEqual([page(3)]);
  });

  test('a free student goes only to a live page, and going to the page they are on changes nothing', async () => {
    const s = pagesOf('student', list(3, LESSON, 'free'));
    await s.client.reconnected();
    await s.client.go(page(9));
    await s.client.go(LESSON);
    expect(s.client.store.getState().viewing).toBe(LESSON);
    expect(s.chosen).toEqual([]);
  });

  test('I1: a late or repeated pages.updated older than the one applied moves nobody back', async () => {
    const s = pagesOf('student', list(3, LESSON));
    await s.client.reconnected();
    s.client.receiveEvent(updated(8, list(3, page(3))));
    s.client.receiveEvent(updated(7, list(3, page(2))));
    s.client.receiveEvent(updated(8, list(3, page(2))));
    expect(s.client.store.getState().viewing).toBe(page(3));
  });

  test('the teacher keeps the engines of the pages she visited last, at most KEPT_PAGE_ENGINES, for live thumbnails', async () => {
    const count = KEPT_PAGE_ENGINES + 4;
    const t = pagesOf('teacher', list(count, LESSON));
    await t.client.reconnected();
    for (let n = 2; n <= count; n++) t.client.receiveEvent(updated(n, list(count, page(n))));
    const followed = new Set(t.shown.filter((id) => t.shown.lastIndexOf(id) > t.hidden.lastIndexOf(id)));
    expect(followed.size).toBe(KEPT_PAGE_ENGINES);
    expect(followed.has(page(count))).toBe(true);
    expect(followed.has(page(2))).toBe(false);
  });
});
