import type { Page } from '@playwright/test';
import { elementsOf, hashOf } from './boardHook.ts';
import { expect, expectLive, joinLesson, startLesson, test } from './support.ts';

/** Drags on the board, `from`/`to` in pixels from the board's top-left corner. */
async function drag(page: Page, from: [number, number], to: [number, number], steps = 12) {
  const box = (await page.getByTestId('board').boundingBox())!;
  await page.mouse.move(box.x + from[0], box.y + from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + to[0], box.y + to[1], { steps });
  await page.mouse.up();
}

async function pickTool(page: Page, name: RegExp) {
  await page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name }).click();
}

const countOf = async (page: Page, kind: string) => (await elementsOf(page)).filter((e) => e.kind === kind).length;

test('issue 5: a stroke drawn offline is queued, sent on reconnect and shown on the other screen exactly once', async ({ browser }) => {
  test.setTimeout(120_000);
  const teacher = await startLesson(browser, 'Ms Rivera');
  const student = await joinLesson(browser, teacher.code, 'Ana');

  await student.page.context().setOffline(true);
  // The page knows it is offline before anything is drawn.
  await expect(student.page.getByTestId('connection-status')).not.toHaveAttribute('data-state', 'live');

  await pickTool(student.page, /^Pen/);
  await drag(student.page, [300, 200], [460, 300]);
  // Drawn on the student's own screen at once, and held as unsynced: nothing was acknowledged.
  await expect(student.page.locator('[data-testid="element"][data-kind="pen"]')).toHaveCount(1);
  await expect(student.page.getByTestId('unsynced')).toContainText('1 unsynced');
  expect(await countOf(teacher.page, 'pen')).toBe(0);

  await student.page.context().setOffline(false);
  await expectLive(student.page);
  await expect(student.page.getByTestId('unsynced')).toHaveCount(0);
  await expect.poll(() => countOf(teacher.page, 'pen')).toBe(1);

  // A barrier: the teacher's next edit reaches the student after anything the student sent
  // before it (one ordered event stream per room), so a late duplicate would show by now.
  await pickTool(teacher.page, /^Rectangle/);
  await drag(teacher.page, [600, 200], [700, 280], 6);
  await expect.poll(() => countOf(student.page, 'rect')).toBe(1);
  await expect.poll(async () => (await hashOf(teacher.page)) === (await hashOf(student.page)) && (await hashOf(teacher.page)) !== null).toBe(true);
  expect(await countOf(teacher.page, 'pen')).toBe(1);
  expect(await countOf(student.page, 'pen')).toBe(1);
  await expect(teacher.page.locator('[data-testid="element"][data-kind="pen"]')).toHaveCount(1);
});
