import type { Page } from '@playwright/test';
import { elementsOf } from './boardHook.ts';
import { worksheetPdf } from './worksheetPdf.ts';
import { lessonPagesOf, pageElementsOf } from './handWritten.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

/**
 * Issue 23, images: a picture pasted from the clipboard is uploaded to the lesson and appears as an
 * image element on every screen, drawn from the lesson's image route with each page's own session.
 */

/** Pastes a `w` x `h` PNG (drawn in the page) as a clipboard paste on the board, as Ctrl+V with a screenshot does. */
async function pastePicture(page: Page, w: number, h: number, colour: string) {
  await page.getByTestId('board').focus();
  await page.evaluate(
    async ({ w, h, colour }) => {
      const canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = h;
      const ctx = canvas.getContext('2d')!;
      ctx.fillStyle = colour;
      ctx.fillRect(0, 0, w, h);
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(w / 4, h / 4, w / 2, h / 2);
      const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), 'image/png'));
      const data = new DataTransfer();
      data.items.add(new File([blob], 'image.png', { type: 'image/png' }));
      document.querySelector('[data-testid="board"]')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    },
    { w, h, colour },
  );
}

test('issue 23: an image pasted from the clipboard appears on the other user’s screen', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  await pastePicture(teacher.page, 320, 200, '#2b8a3e');

  await expect.poll(async () => (await elementsOf(ana.page)).map((e) => e.shape.kind)).toEqual(['image']);
  const [element] = await elementsOf(ana.page);
  expect(element?.shape).toMatchObject({ kind: 'image', w: 320, h: 200, naturalWidth: 320, naturalHeight: 200, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  // Drawn from the picture itself (an object URL of the fetched image), not the placeholder.
  const picture = ana.page.locator('[data-testid="element"][data-kind="image"] image');
  await expect(picture).toHaveAttribute('href', /^blob:/);
  expect(await picture.evaluate((node) => node.getBoundingClientRect().width)).toBeGreaterThan(100);

  // Images are elements like the others: the teacher deletes it and it goes from Ana's board too.
  await teacher.page.keyboard.press('Delete');
  await expect.poll(async () => (await elementsOf(ana.page)).length).toBe(0);
});

test('issue 23: a file that is not a picture is refused with a message and nothing is added', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  await teacher.page.getByTestId('image-file').setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('these are my notes, not a picture') });
  await expect(teacher.page.getByText(/“notes\.png” is not a PNG, JPEG, WebP or GIF image\./)).toBeVisible();
  expect(await elementsOf(teacher.page)).toEqual([]);
});

test('issue 23: a picture dropped on the board is uploaded, added and reaches the other user', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  const box = await teacher.page.getByTestId('board').boundingBox();
  if (!box) throw new Error('no board on screen');
  // A drop as the browser makes it from a file dragged in from the desktop: a DataTransfer with the file.
  await teacher.page.evaluate(async ({ x, y }) => {
    const canvas = document.createElement('canvas');
    canvas.width = 120;
    canvas.height = 80;
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = '#2a6fdb';
    ctx.fillRect(0, 0, 120, 80);
    const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), 'image/png'));
    const data = new DataTransfer();
    data.items.add(new File([blob], 'dropped.png', { type: 'image/png' }));
    const board = document.querySelector('[data-testid="board"]')!;
    board.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, clientX: x, clientY: y, bubbles: true, cancelable: true }));
    board.dispatchEvent(new DragEvent('drop', { dataTransfer: data, clientX: x, clientY: y, bubbles: true, cancelable: true }));
  }, { x: box.x + box.width / 2, y: box.y + box.height / 2 });
  await expect.poll(async () => (await elementsOf(ana.page)).map((e) => e.shape.kind)).toEqual(['image']);
  const [picture] = (await elementsOf(ana.page)).map((e) => e.shape);
  if (picture?.kind !== 'image') throw new Error('expected an image');
  expect([picture.naturalWidth, picture.naturalHeight]).toEqual([120, 80]);
  await expect(ana.page.locator('[data-testid="element"][data-kind="image"] image')).toHaveCount(1);
});

/** Pastes a `w` x `h` PNG drawn in the page as a file named `name` of declared type `type`. */
async function pasteFile(page: Page, w: number, h: number, name: string, type: string) {
  await page.getByTestId('board').focus();
  await page.evaluate(
    async ({ w, h, name, type }) => {
      const canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = h;
      const ctx = canvas.getContext('2d')!;
      ctx.fillStyle = '#2a6fdb';
      ctx.fillRect(0, 0, w, h);
      const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), 'image/png'));
      const data = new DataTransfer();
      data.items.add(new File([blob], name, { type }));
      document.querySelector('[data-testid="board"]')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    },
    { w, h, name, type },
  );
}

test('issue 23: a picture over 4,096 pixels a side is scaled down in the browser before it is sent; a PNG labelled JPEG is refused with a message', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  await pasteFile(teacher.page, 5_000, 1_000, 'panorama.png', 'image/png');
  await expect.poll(async () => (await elementsOf(teacher.page)).map((e) => e.shape.kind), { timeout: 30_000 }).toEqual(['image']);
  const [picture] = (await elementsOf(teacher.page)).map((e) => e.shape);
  if (picture?.kind !== 'image') throw new Error('expected an image');
  expect([picture.naturalWidth, picture.naturalHeight]).toEqual([4_096, 819]);
  await pasteFile(teacher.page, 40, 40, 'photo.jpg', 'image/jpeg');
  await expect(teacher.page.getByText(/“photo\.jpg” says it is JPEG but holds a PNG image; it was not added\./)).toBeVisible();
  expect((await elementsOf(teacher.page)).length).toBe(1);
});

test('issue 23: a damaged PDF is refused with a message and nothing is added', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const damaged = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n(cut off here');
  await teacher.page.getByTestId('image-file').setInputFiles({ name: 'broken.pdf', mimeType: 'application/pdf', buffer: damaged });
  await expect(teacher.page.getByText(/“broken\.pdf” could not be read as a PDF .*Nothing was added\./)).toBeVisible({ timeout: 30_000 });
  expect(await elementsOf(teacher.page)).toEqual([]);
});


test('issue 23: the teacher imports a 2-page PDF and each page becomes a lesson page with the page as its picture', async ({ browser }) => {
  // pdf.js is not part of the first load: it is fetched when the PDF is chosen.
  const pdfScripts: string[] = [];
  const teacher = await startLesson(browser, 'Ms Rivera', '', (page) =>
    page.on('request', (request) => {
      if (/pdf/i.test(request.url())) pdfScripts.push(request.url());
    }),
  );
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  expect(pdfScripts).toEqual([]);
  await teacher.page.getByTestId('image-file').setInputFiles({ name: 'worksheet.pdf', mimeType: 'application/pdf', buffer: worksheetPdf(2) });

  // Ana (paced) is taken to the PDF's first page with the teacher; the class board gets nothing.
  const onStage = ana.page.getByRole('application', { name: 'Page 2', exact: true });
  await expect(onStage.locator('[data-testid="element"][data-kind="image"] image')).toHaveCount(1, { timeout: 60_000 });
  await expect.poll(async () => (await lessonPagesOf(teacher.page, teacher.code)).pages.length, { timeout: 60_000 }).toBe(3);
  const [, first, second] = (await lessonPagesOf(teacher.page, teacher.code)).pages;
  const [one] = await pageElementsOf(teacher.page, teacher.code, first!.id);
  const [two] = await pageElementsOf(teacher.page, teacher.code, second!.id);
  if (one?.shape.kind !== 'image' || two?.shape.kind !== 'image') throw new Error('expected an image on each page');
  // Letter pages rendered 1600 px tall, placed 800 tall at the page's origin.
  expect([one.shape.naturalWidth, one.shape.naturalHeight]).toEqual([1236, 1600]);
  expect([one.shape.x, one.shape.y, one.shape.h]).toEqual([0, 0, 800]);
  expect(one.shape.sha256).not.toBe(two.shape.sha256);
  expect(await elementsOf(ana.page)).toEqual([]);
  expect(pdfScripts.some((url) => /pdfImport-.*\.js$/.test(url))).toBe(true);
  expect(pdfScripts.some((url) => /pdf\.worker/.test(url))).toBe(true);
});
