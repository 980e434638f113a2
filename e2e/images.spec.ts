import type { Page } from '@playwright/test';
import { elementsOf } from './boardHook.ts';
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
