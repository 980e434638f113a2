import type { Download, Locator, Page } from '@playwright/test';
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
 * to pixels. An imported page opens showing its picture whole, clear of the lesson's panels, on a
 * laptop and on a phone.
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

type Box = { x: number; y: number; width: number; height: number };

const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * Where the imported picture sits on this screen, against what covers the board: the top bar, the
 * pages strip, the drawing tools and the board's actions (each as the person sees it, by its role).
 * Null while the picture has no box yet.
 */
async function pictureOnScreen(page: Page, board: Locator) {
  const picture = await board.locator('[data-testid="element"][data-kind="image"]').boundingBox();
  if (!picture) return null;
  const screen = page.viewportSize()!;
  const panels: Record<string, Box | null> = {
    'top bar': await page.locator('header.topbar').boundingBox(),
    'pages strip': await pageStrip(page).boundingBox(),
    'drawing tools': await page.getByRole('toolbar', { name: 'Drawing tools' }).boundingBox(),
    'board actions': await page.getByRole('toolbar', { name: 'Board actions' }).boundingBox(),
  };
  const topLeft = { x: picture.x, y: picture.y };
  const bottomRight = { x: picture.x + picture.width, y: picture.y + picture.height };
  const onScreen = (p: { x: number; y: number }) => p.x >= 0 && p.y >= 0 && p.x <= screen.width && p.y <= screen.height;
  return {
    picture,
    // Both corners on the screen, and the whole picture under none of the panels.
    cornersOnScreen: onScreen(topLeft) && onScreen(bottomRight),
    under: Object.entries(panels).filter(([, box]) => box && overlaps(picture, box)).map(([name]) => name),
    belowTopBar: picture.y >= panels['top bar']!.y + panels['top bar']!.height,
  };
}

const shownWhole = (seen: Awaited<ReturnType<typeof pictureOnScreen>>) => seen !== null && seen.cornersOnScreen && seen.belowTopBar && seen.under.length === 0;

/** The picture of the page on the stage is shown whole and under no panel (the fit runs a frame after it arrives). */
async function expectPictureShown(page: Page, board: Locator) {
  await expect.poll(async () => {
    const seen = await pictureOnScreen(page, board);
    return seen && { cornersOnScreen: seen.cornersOnScreen, belowTopBar: seen.belowTopBar, under: seen.under };
  }).toEqual({ cornersOnScreen: true, belowTopBar: true, under: [] });
}

test('an imported page opens showing its picture whole, below the top bar and clear of the strip and tools, on a laptop (1280 x 800) and on a phone (390 x 844); Fit to content brings it back', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera', '', undefined, { viewport: { width: 1280, height: 800 } });
  const pat = await joinLesson(browser, teacher.code, 'Pat', '', undefined, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await teacher.page.getByTestId('image-file').setInputFiles({ name: 'worksheet.pdf', mimeType: 'application/pdf', buffer: worksheetPdf(2) });
  await expect(pageStrip(teacher.page).getByRole('listitem')).toHaveCount(3, { timeout: 60_000 });
  await expect(teacher.page.getByTestId('pdf-import')).toBeHidden({ timeout: 60_000 });

  // The teacher went to the page; the paced class (Pat's phone) with her.
  for (const page of [teacher.page, pat.page]) {
    const board = stage(page, 'Page 2');
    await expect(board.locator('[data-testid="element"][data-kind="image"]')).toHaveCount(1, { timeout: 60_000 });
    await expectPictureShown(page, board);
    // Shown at a size to read: zoomed out to fit, never in past 100 %, and not a thumbnail.
    const seen = (await pictureOnScreen(page, board))!;
    const percent = Number((await page.locator('.zoom-readout').textContent())!.replace('%', ''));
    expect(percent).toBeLessThanOrEqual(100);
    expect(seen.picture.height).toBeGreaterThan(page.viewportSize()!.height * 0.4);
  }

  // Pat pans away with the keyboard.
  const board = stage(pat.page, 'Page 2');
  await board.focus();
  for (let i = 0; i < 8; i++) await pat.page.keyboard.press('ArrowDown');
  await expect.poll(async () => shownWhole(await pictureOnScreen(pat.page, board))).toBe(false);
  // "Fit to content", from the keyboard: focused and pressed with Enter.
  const fit = pat.page.getByRole('button', { name: 'Fit to content' });
  await fit.focus();
  await pat.page.keyboard.press('Enter');
  await expectPictureShown(pat.page, board);
  // And its shortcut, Shift+1, on the teacher's laptop after she zoomed in.
  const teachersBoard = stage(teacher.page, 'Page 2');
  await teachersBoard.focus();
  for (let i = 0; i < 3; i++) await teacher.page.keyboard.press('+');
  await expect.poll(async () => shownWhole(await pictureOnScreen(teacher.page, teachersBoard))).toBe(false);
  await teacher.page.keyboard.press('Shift+Digit1');
  await expectPictureShown(teacher.page, teachersBoard);
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
