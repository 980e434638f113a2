import type { Download, Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { pdfFacts, pixelsNear, readPdf } from '../apps/server/test/pdfReading.ts';
import { elementsOf } from './boardHook.ts';
import { lessonPagesOf, pageElementsOf, tryToMove } from './handWritten.ts';
import { worksheetPdf } from './worksheetPdf.ts';
import { expect, fromLessonMenu, joinLesson, startLesson, test } from './support.ts';

/**
 * Issue 39, PDF in and out. In: a multi-page worksheet becomes one new lesson page per PDF page,
 * after the page the teacher is on, each with the PDF page as a pinned picture (never on top of
 * existing work); a progress bar ("page n of N") and Cancel; the first page is on the stage while
 * the rest import, rendered by pdf.js in a worker (off the main thread). Out: the teacher downloads the lesson and an
 * activity's class pack from the lesson's menus; both are parsed back (page count, text) and drawn
 * to pixels.
 */

async function strokeOn(page: Page, board: ReturnType<Page['locator']>, from: [number, number], to: [number, number]) {
  const box = await board.boundingBox();
  if (!box) throw new Error('no board on screen');
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * to[0], box.y + box.height * to[1], { steps: 8 });
  await page.mouse.up();
}

const bytesOf = async (download: Download) => new Uint8Array(readFileSync((await download.path())!));

/** The page's one Board, named for what is on the stage ("Whiteboard", "Page 2"). */
const stage = (page: Page, name: string) => page.getByRole('application', { name, exact: true });
const pageStrip = (page: Page) => page.getByRole('navigation', { name: 'Pages' });

test('a PDF becomes one new page per PDF page after the current one, each a pinned picture; the work on the current page is untouched; a student cannot move it', async ({ browser }) => {
  const teacher = await startLesson(browser);
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  // Students may change anyone's work: only the pin keeps them off the page's picture.
  await teacher.page.getByTestId('edit-policy').selectOption('everyone');
  // Work on the page the teacher is on, before the import.
  await teacher.page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name: /^Pen/ }).click();
  await strokeOn(teacher.page, teacher.page.getByTestId('board'), [0.3, 0.3], [0.6, 0.5]);
  await expect.poll(async () => (await elementsOf(teacher.page)).length).toBe(1);
  const before = await elementsOf(teacher.page);

  await teacher.page.getByTestId('image-file').setInputFiles({ name: 'worksheet.pdf', mimeType: 'application/pdf', buffer: worksheetPdf(3) });
  await expect(pageStrip(teacher.page).getByRole('listitem')).toHaveCount(4, { timeout: 60_000 });
  await expect(teacher.page.getByTestId('pdf-import')).toBeHidden({ timeout: 60_000 });

  // The PDF's pages, in order, right after the page the teacher was on, titled by file and number.
  const lesson = await lessonPagesOf(teacher.page, teacher.code);
  const [, ...imported] = lesson.pages;
  expect(imported.map((p) => p.title)).toEqual(['worksheet.pdf · 1', 'worksheet.pdf · 2', 'worksheet.pdf · 3']);
  // The teacher went to the first of them, and the paced class with her.
  expect(lesson.currentPageId).toBe(imported[0]!.id);
  await expect(stage(ana.page, 'Page 2')).toBeVisible();
  await expect(stage(ana.page, 'Page 2').locator('[data-testid="element"][data-kind="image"]')).toHaveCount(1);

  // Each new page holds one picture, pinned, at the board's origin, each page its own.
  const pictures = [];
  for (const page of imported) {
    const elements = await pageElementsOf(teacher.page, teacher.code, page.id);
    expect(elements).toHaveLength(1);
    const [picture] = elements;
    expect(picture).toMatchObject({ pinned: true, shape: { kind: 'image', x: 0, y: 0 } });
    pictures.push(picture!);
  }
  expect(new Set(pictures.map((p) => (p.shape.kind === 'image' ? p.shape.sha256 : ''))).size).toBe(3);

  // On the class's page, under `everyone`, a student's hand-written move of the picture is
  // refused by the server (pinned), and nothing moved.
  const moved = await tryToMove(ana.page, teacher.code, imported[0]!.id, pictures[0]!);
  expect(moved).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  expect((await pageElementsOf(teacher.page, teacher.code, imported[0]!.id))[0]).toEqual(pictures[0]);

  // The page the teacher was on is as it was: nothing landed on it.
  await thumbOf(teacher.page, 'Page 1').click();
  await expect(stage(teacher.page, 'Whiteboard')).toBeVisible();
  expect(await elementsOf(teacher.page)).toEqual(before);
});

const thumbOf = (page: Page, name: string) => pageStrip(page).getByRole('button', { name, exact: true });

test('a 30-page PDF imports page by page with progress; the first page is usable before the last; Cancel leaves only the pages made', async ({ browser }) => {
  const workers: string[] = [];
  const teacher = await startLesson(browser, 'Ms Rivera', '', (page) => page.on('worker', (worker) => workers.push(worker.url())));
  await teacher.page.getByTestId('image-file').setInputFiles({ name: 'worksheet.pdf', mimeType: 'application/pdf', buffer: worksheetPdf(30) });

  const bar = teacher.page.getByTestId('pdf-import');
  await expect(bar).toContainText(/“worksheet\.pdf”: page \d+ of 30/, { timeout: 60_000 });
  await expect(bar.getByRole('progressbar', { name: 'Importing “worksheet.pdf”' })).toHaveAttribute('max', '30');
  // The first page is on the stage, with its picture, while the import goes on.
  await expect(stage(teacher.page, 'Page 2').locator('[data-testid="element"][data-kind="image"]')).toHaveCount(1, { timeout: 60_000 });
  await expect(bar).toBeVisible();
  await bar.getByRole('button', { name: 'Cancel import' }).click();
  await expect(bar).toBeHidden();
  const told = teacher.page.getByText(/The import of “worksheet\.pdf” was cancelled: \d+ pages? (was|were) added\./);
  await expect(told).toBeVisible();
  const made = Number(/: (\d+) page/.exec((await told.textContent()) ?? '')![1]);
  // Only the pages made so far: the lesson's own page and one per PDF page made.
  const kept = (await lessonPagesOf(teacher.page, teacher.code)).pages.length;
  expect(kept).toBe(1 + made);
  expect(made).toBeGreaterThan(0);
  expect(made).toBeLessThan(30);
  // Nothing is made after Cancel.
  await teacher.page.waitForTimeout(1_500);
  expect((await lessonPagesOf(teacher.page, teacher.code)).pages.length).toBe(kept);
  await expect(pageStrip(teacher.page).getByRole('listitem')).toHaveCount(kept);
  // Pages were drawn by pdf.js in the import's worker, not on the page's thread.
  expect(workers.some((url) => /pdfRenderWorker/.test(url))).toBe(true);
});

test('the teacher downloads the lesson and a class pack as PDFs from the lesson; they parse and show the strokes', async ({ browser }) => {
  const teacher = await startLesson(browser);
  const names = ['Ben', 'Ana'];
  const students = [];
  for (const name of names) students.push({ name, ...(await joinLesson(browser, teacher.code, name)) });
  const classBoard = teacher.page.getByTestId('board');
  await teacher.page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name: /^Pen/ }).click();
  await strokeOn(teacher.page, classBoard, [0.3, 0.3], [0.6, 0.5]);
  await expect.poll(async () => (await elementsOf(teacher.page)).length).toBe(1);

  const lessonDownload = teacher.page.waitForEvent('download');
  await fromLessonMenu(teacher.page, 'Download lesson (PDF)');
  const lesson = await readPdf(await bytesOf(await lessonDownload));
  try {
    expect(lesson.pageCount).toBe(1);
    // The caption is the lesson's title; the teacher's stroke is inked in the default colour.
    expect(lesson.pageTexts[0]!.length).toBeGreaterThan(0);
    const page = await lesson.render(1);
    expect(pixelsNear(page, [30, 30, 30], 60)).toBeGreaterThan(200);
  } finally {
    await lesson.close();
  }

  await teacher.page.getByRole('button', { name: 'Start activity' }).click();
  await teacher.page.getByRole('dialog').getByLabel('Title').fill('Halves');
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  for (const s of students) {
    const own = s.page.getByRole('application', { name: 'Your board' });
    await strokeOn(s.page, own, [0.2, 0.3], [0.5, 0.6]);
    await expect(own.locator('[data-testid="element"]')).toHaveCount(1);
  }
  const packDownload = teacher.page.waitForEvent('download');
  await teacher.page.getByRole('button', { name: 'Class pack (PDF)' }).click();
  const pack = await pdfFacts(await bytesOf(await packDownload));
  expect(pack.pageCount).toBe(2);
  expect(pack.pageTexts[0]).toContain('Ana · Halves');
  expect(pack.pageTexts[1]).toContain('Ben · Halves');
});
