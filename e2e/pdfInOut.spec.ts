import type { Download, Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { pdfFacts, pixelsNear, readPdf } from '../apps/server/test/pdfReading.ts';
import { elementsOf } from './boardHook.ts';
import { worksheetPdf } from './worksheetPdf.ts';
import { expect, fromLessonMenu, joinLesson, startLesson, test } from './support.ts';

/**
 * Issue 39, PDF in and out. In: a multi-page worksheet imports page by page with a progress bar
 * ("page n of N") and Cancel; the first page is on the board while the rest import, rendered by
 * pdf.js in a worker (off the main thread). Out: the teacher downloads the lesson and an
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

test('a 30-page PDF imports page by page with progress; the first page is on the board before the last; Cancel stops it', async ({ browser }) => {
  const workers: string[] = [];
  const teacher = await startLesson(browser, 'Ms Rivera', '', (page) => page.on('worker', (worker) => workers.push(worker.url())));
  await teacher.page.getByTestId('image-file').setInputFiles({ name: 'worksheet.pdf', mimeType: 'application/pdf', buffer: worksheetPdf(30) });

  const bar = teacher.page.getByTestId('pdf-import');
  await expect(bar).toContainText(/“worksheet\.pdf”: page \d+ of 30/, { timeout: 60_000 });
  await expect(bar.getByRole('progressbar', { name: 'Importing “worksheet.pdf”' })).toHaveAttribute('max', '30');
  // The first page is on the board, usable, while the import goes on.
  await expect.poll(async () => (await elementsOf(teacher.page)).length, { timeout: 60_000 }).toBeGreaterThan(0);
  await expect(bar).toBeVisible();
  await bar.getByRole('button', { name: 'Cancel import' }).click();
  await expect(bar).toBeHidden();
  await expect(teacher.page.getByText(/The import of “worksheet\.pdf” was cancelled: \d+ pages? (was|were) added\./)).toBeVisible();
  const kept = (await elementsOf(teacher.page)).length;
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(30);
  // Nothing lands after Cancel.
  await teacher.page.waitForTimeout(1_500);
  expect((await elementsOf(teacher.page)).length).toBe(kept);
  // Pages were drawn by pdf.js in the import's worker, not on the page's thread.
  expect(workers.some((url) => /pdfRenderWorker/.test(url))).toBe(true);

  // A second import runs to the end: every page placed, none on top of another.
  await teacher.page.getByTestId('image-file').setInputFiles({ name: 'short.pdf', mimeType: 'application/pdf', buffer: worksheetPdf(3) });
  await expect.poll(async () => (await elementsOf(teacher.page)).length, { timeout: 60_000 }).toBe(kept + 3);
  await expect(bar).toBeHidden();
  const boxes = (await elementsOf(teacher.page)).map((e) => e.shape as unknown as { x: number; y: number; w: number; h: number });
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) expect(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h).toBe(false);
  }
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
