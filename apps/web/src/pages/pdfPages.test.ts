import { ClientEvent, ErrorCode, type Ack, type LessonPages } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { createStore } from 'zustand/vanilla';
import type { Request } from '../connection/request.ts';
import type { PagesView } from './pagesClient.ts';
import { importedPageTitle, pageBackgroundShape, PdfPageMaker, PAGE_PICTURE_SIDE } from './pdfPages.ts';

const LESSON = '00000000-0000-4000-8000-000000000001';
const CURRENT = '00000000-0000-4000-8000-000000000102';
const picture = { sha256: 'a'.repeat(64), width: 1131, height: 1600 };
const format = (name: string, page: number) => `${name} · ${page}`;

/** A teacher's pages as the maker sees them, and every request it sends (answered as `answer` decides). */
function maker(answer: (event: string, payload: Record<string, unknown>) => Ack<unknown> = () => ({ ok: true }) as Ack<unknown>) {
  const sent: { event: string; payload: Record<string, unknown> }[] = [];
  const went: string[] = [];
  const request = (async (event: string, payload: Record<string, unknown>) => {
    sent.push({ event, payload });
    return answer(event, payload);
  }) as unknown as Request;
  const pages: LessonPages = { pages: [{ id: LESSON, title: '', background: 'blank' }, { id: CURRENT, title: '', background: 'blank' }], currentPageId: CURRENT, pacing: 'paced' };
  const store = createStore<PagesView>(() => ({ pages, deleted: [], viewing: CURRENT, refusal: null }));
  const go = async (pageId: string) => void went.push(pageId);
  return { make: new PdfPageMaker({ request, pages: { store, go } }, (page) => format('worksheet.pdf', page)), sent, went };
}

describe('a PDF imported as lesson pages (pdfPages.ts)', () => {
  test('each PDF page is a new page after the previous one, starting after the current page, titled by file and number', async () => {
    const m = maker();
    const first = await m.make.place(0, picture);
    const second = await m.make.place(1, picture);
    const adds = m.sent.filter((s) => s.event === ClientEvent.PAGE_ADD).map((s) => s.payload);
    expect(adds).toHaveLength(2);
    expect(adds[0]).toMatchObject({ afterPageId: CURRENT, title: 'worksheet.pdf · 1' });
    expect(adds[1]).toMatchObject({ afterPageId: first.ok && first.pageId, title: 'worksheet.pdf · 2' });
    expect(second.ok && second.pageId).toBe(adds[1]!.pageId);
  });

  test("the picture is created on the new page's board at the origin, then pinned there", async () => {
    const m = maker();
    const placed = await m.make.place(0, picture);
    const pageId = placed.ok ? placed.pageId : '';
    const [, create, pin] = m.sent;
    expect(create).toMatchObject({ event: ClientEvent.ELEMENT_CREATE, payload: { boardId: pageId, shape: { kind: 'image', x: 0, y: 0 } } });
    expect(pin).toMatchObject({ event: ClientEvent.ELEMENT_PIN, payload: { boardId: pageId, elementId: create!.payload.id, pinned: true } });
  });

  test('the teacher goes to the first page made, and only to that one', async () => {
    const m = maker();
    const first = await m.make.place(0, picture);
    await m.make.place(1, picture);
    await m.make.place(2, picture);
    expect(m.went).toEqual([first.ok && first.pageId]);
  });

  test('a refused pin is reported with its page, and the teacher is not taken there', async () => {
    const m = maker((event) => (event === ClientEvent.ELEMENT_PIN ? { ok: false, error: { code: ErrorCode.FORBIDDEN, message: 'no' } } : ({ ok: true } as Ack<unknown>)));
    const placed = await m.make.place(0, picture);
    expect(placed).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    expect(!placed.ok && placed.pageId).toBe(m.sent[0]!.payload.pageId);
    expect(m.went).toEqual([]);
  });

  test('a refused page.add stops before anything is created', async () => {
    const m = maker((event) => (event === ClientEvent.PAGE_ADD ? { ok: false, error: { code: ErrorCode.FORBIDDEN, message: 'no' } } : ({ ok: true } as Ack<unknown>)));
    const placed = await m.make.place(0, picture);
    expect(placed).toEqual({ ok: false, error: { code: ErrorCode.FORBIDDEN, message: 'no' }, pageId: null });
    expect(m.sent.map((s) => s.event)).toEqual([ClientEvent.PAGE_ADD]);
  });

  test('a step the server did not answer is asked again with the same ids (idempotent)', async () => {
    let silent = 1;
    const m = maker((event) => (event === ClientEvent.ELEMENT_CREATE && silent-- > 0 ? { ok: false, error: { code: ErrorCode.UNAVAILABLE, message: 'late' } } : ({ ok: true } as Ack<unknown>)));
    expect((await m.make.place(0, picture)).ok).toBe(true);
    const creates = m.sent.filter((s) => s.event === ClientEvent.ELEMENT_CREATE);
    expect(creates).toHaveLength(2);
    expect(creates[1]!.payload).toEqual(creates[0]!.payload);
  });
});

describe('the page picture and title', () => {
  test('the picture keeps its proportions within the page side, never larger than its pixels', () => {
    expect(pageBackgroundShape(picture)).toMatchObject({ x: 0, y: 0, h: PAGE_PICTURE_SIDE, w: 565.5, naturalWidth: 1131, naturalHeight: 1600 });
    expect(pageBackgroundShape({ ...picture, width: 300, height: 200 })).toMatchObject({ w: 300, h: 200 });
  });

  test('a long file name is shortened so the title fits a page title (60 characters), the number kept', () => {
    const title = importedPageTitle(format, `${'a'.repeat(80)}.pdf`, 12);
    expect(title.length).toBeLessThanOrEqual(60);
    expect(title.endsWith('… · 12')).toBe(true);
    expect(importedPageTitle(format, 'worksheet.pdf', 2)).toBe('worksheet.pdf · 2');
  });
});
