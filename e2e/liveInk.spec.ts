import type { Page } from '@playwright/test';
import { elementsOf } from './boardHook.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

/** A point on the board, in page pixels, `x`/`y` from the board's top-left corner. */
async function at(page: Page, x: number, y: number) {
  const box = (await page.getByTestId('board').boundingBox())!;
  return { x: box.x + x, y: box.y + y };
}

/** How many points the screen's live strokes hold, as drawn (`data-points` of each live stroke). */
const livePoints = (page: Page) =>
  page.locator('[data-testid="live-stroke"]').evaluateAll((nodes) => nodes.map((n) => Number((n as SVGGElement).dataset.points ?? 0)));

/**
 * Watches every animation frame of the page from now on and records, per frame, how many drawn
 * copies of the stroke there are (live strokes plus pen elements): `max` > 1 is a double line,
 * `gaps` counts frames with none after one was shown (a flicker).
 */
async function watchFrames(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __inkFrames?: { max: number; gaps: number; seen: boolean; frames: number } };
    const record = { max: 0, gaps: 0, seen: false, frames: 0 };
    w.__inkFrames = record;
    const sample = () => {
      const drawn = document.querySelectorAll('[data-testid="live-stroke"], [data-testid="element"][data-kind="pen"]').length;
      record.frames += 1;
      record.max = Math.max(record.max, drawn);
      if (drawn > 0) record.seen = true;
      else if (record.seen) record.gaps += 1;
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  });
  return () => page.evaluate(() => (window as unknown as { __inkFrames: { max: number; gaps: number; seen: boolean; frames: number } }).__inkFrames);
}

test('live ink: a student sees the teacher\'s stroke grow before pointer-up, then exactly one line, with no frame of none', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const student = await joinLesson(browser, teacher.code, 'Ana');
  const page = teacher.page;
  await page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name: /^Pen/ }).click();
  const frames = await watchFrames(student.page);

  const start = await at(page, 300, 300);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(start.x + i * 12, start.y + Math.sin(i) * 20, { steps: 2 });
  // The pen is still down: the stroke is on the student's screen, not yet an element.
  await expect.poll(async () => (await livePoints(student.page))[0] ?? 0).toBeGreaterThanOrEqual(5);
  const before = (await livePoints(student.page))[0]!;
  expect((await elementsOf(student.page)).filter((e) => e.kind === 'pen')).toEqual([]);
  for (let i = 11; i <= 20; i++) await page.mouse.move(start.x + i * 12, start.y + Math.sin(i) * 20, { steps: 2 });
  await expect.poll(async () => (await livePoints(student.page))[0] ?? 0).toBeGreaterThan(before);
  await expect(student.page.getByTestId('live-stroke')).toHaveCount(1);

  await page.mouse.up();
  // The durable stroke replaces the live one: one pen element, no live stroke left.
  await expect(student.page.locator('[data-testid="element"][data-kind="pen"]')).toHaveCount(1);
  await expect(student.page.getByTestId('live-stroke')).toHaveCount(0);
  const pens = (await elementsOf(student.page)).filter((e) => e.kind === 'pen');
  expect(pens).toHaveLength(1);
  // A while longer: late ink must not bring a second copy back.
  await student.page.waitForTimeout(500);
  await expect(student.page.getByTestId('live-stroke')).toHaveCount(0);
  const seen = await frames();
  expect(seen.frames).toBeGreaterThan(10);
  expect(seen.max).toBe(1);
  expect(seen.gaps).toBe(0);
  // The drawer's own screen never shows its stroke as live ink (its draft, then its element).
  await expect(page.getByTestId('live-stroke')).toHaveCount(0);

  await page.context().close();
  await student.page.context().close();
});

test('live ink: a stroke abandoned mid-air (the drawer\'s tab closed) disappears from the others with its presence', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const student = await joinLesson(browser, teacher.code, 'Ben');
  const spage = student.page;
  await spage.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name: /^Pen/ }).click();
  const start = await at(spage, 200, 200);
  await spage.mouse.move(start.x, start.y);
  await spage.mouse.down();
  for (let i = 1; i <= 8; i++) await spage.mouse.move(start.x + i * 10, start.y + i * 6, { steps: 2 });
  await expect(teacher.page.getByTestId('live-stroke')).toHaveCount(1);

  await spage.context().close();
  await expect(teacher.page.getByTestId('live-stroke')).toHaveCount(0);
  expect((await elementsOf(teacher.page)).filter((e) => e.kind === 'pen')).toEqual([]);
  await teacher.page.context().close();
});
