import type { Page } from '@playwright/test';
import { elementsOf, hashOf } from './boardHook.ts';
import { expectNeverArrived, tryToDraw } from './handWritten.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

async function at(page: Page, x: number, y: number) {
  const box = (await page.getByTestId('board').boundingBox())!;
  return { x: box.x + x, y: box.y + y };
}


async function drawFilledRect(page: Page, from: [number, number], to: [number, number]) {
  await page.getByRole('button', { name: /^Fill shapes/ }).click();
  await page.getByRole('button', { name: /^Rectangle/ }).click();
  const a = await at(page, ...from);
  const b = await at(page, ...to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 5 });
  await page.mouse.up();
  await page.getByRole('button', { name: /^Select and move/ }).click();
}

test('issue 6: one person drags, the other sees the lock outline and cannot move it, then drags after release', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  // Ana moves the teacher's work: a lesson where everyone edits everything.
  await teacher.page.getByTestId('edit-policy').selectOption('everyone');
  await drawFilledRect(teacher.page, [300, 200], [400, 280]);
  await expect.poll(async () => (await elementsOf(ana.page)).length).toBe(1);
  await ana.page.getByRole('button', { name: /^Select and move/ }).click();

  // Ana presses on the rectangle and starts dragging it; she keeps the button down.
  const grab = await at(ana.page, 350, 240);
  await ana.page.mouse.move(grab.x, grab.y);
  await ana.page.mouse.down();
  await ana.page.mouse.move(grab.x + 40, grab.y + 30, { steps: 6 });

  // The teacher sees it outlined in Ana's colour with her name, and the drag moving it.
  const outline = teacher.page.getByTestId('lock-outline');
  await expect(outline).toHaveCount(1);
  await expect(outline).toContainText('Ana');
  const rect = teacher.page.locator('[data-testid="element"][data-kind="rect"]');
  await expect(rect).toHaveAttribute('data-locked-by', /.+/);
  await expect.poll(async () => (await rect.getAttribute('transform')) ?? '').toMatch(/translate\(4\d(\.\d+)? 3\d/);

  // The teacher's own drag is refused at once: nothing moves on her screen, nothing is sent.
  const before = (await rect.boundingBox())!;
  const tGrab = await at(teacher.page, 350, 240);
  await teacher.page.mouse.move(tGrab.x + 40, tGrab.y + 30);
  await teacher.page.mouse.down();
  await expect(teacher.page.getByTestId('board')).toHaveAttribute('data-refused', 'locked');
  await teacher.page.mouse.move(tGrab.x + 200, tGrab.y + 150, { steps: 6 });
  const during = (await rect.boundingBox())!;
  // Under 2 px: the box's sub-pixel rounding; a drag that moved it would be 200 px off.
  expect(Math.abs(during.x - before.x)).toBeLessThan(2);
  await teacher.page.mouse.up();

  // Ana lets go: the final position is committed and the lock ends on every screen.
  await ana.page.mouse.move(grab.x + 60, grab.y + 40, { steps: 3 });
  await ana.page.mouse.up();
  await expect.poll(async () => (await elementsOf(teacher.page))[0]).toMatchObject({ x: 360, y: 240, lockedBy: null });
  await expect(outline).toHaveCount(0);
  await expect.poll(async () => (await hashOf(ana.page)) === (await hashOf(teacher.page))).toBe(true);

  // Now the teacher can drag it.
  const again = await at(teacher.page, 400, 280);
  await teacher.page.mouse.move(again.x, again.y);
  await teacher.page.mouse.down();
  await teacher.page.mouse.move(again.x - 100, again.y - 50, { steps: 6 });
  await teacher.page.mouse.up();
  await expect.poll(async () => (await elementsOf(ana.page))[0]).toMatchObject({ x: 260, y: 190, lockedBy: null });
  await expect.poll(async () => (await hashOf(ana.page)) === (await hashOf(teacher.page))).toBe(true);
});

test('teacher controls: a pinned element and a look-only lesson refuse students at once', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  await teacher.page.getByTestId('edit-policy').selectOption('everyone');
  await drawFilledRect(teacher.page, [300, 200], [400, 280]);
  await expect.poll(async () => (await elementsOf(ana.page)).length).toBe(1);

  // Pin (the rectangle is still selected after drawing).
  await teacher.page.getByRole('button', { name: 'Pin', exact: true }).click();
  await expect.poll(async () => (await elementsOf(ana.page))[0]?.pinned).toBe(true);
  await ana.page.getByRole('button', { name: /^Select and move/ }).click();
  const grab = await at(ana.page, 350, 240);
  await ana.page.mouse.move(grab.x, grab.y);
  await ana.page.mouse.down();
  await expect(ana.page.getByTestId('board')).toHaveAttribute('data-refused', 'pinned');
  await ana.page.mouse.move(grab.x + 80, grab.y + 80, { steps: 4 });
  await ana.page.mouse.up();
  expect((await elementsOf(teacher.page))[0]).toMatchObject({ x: 300, y: 200 });

  // Students only look: they get a notice and no drawing tools.
  await teacher.page.getByTestId('edit-policy').selectOption('look');
  await expect(ana.page.getByTestId('board-locked-notice')).toBeVisible();
  await expect(ana.page.getByRole('button', { name: /^Pen/ })).toBeDisabled();
  // The rule is the server's: Ana's own session draws anyway, and is refused; nothing reaches the teacher.
  const attempt = await tryToDraw(ana.page, teacher.code);
  expect(attempt.reply).toMatchObject({ ok: false, error: { code: 'forbidden_by_policy' } });
  await expectNeverArrived(teacher.page, teacher.code, attempt.id);
  await teacher.page.getByTestId('edit-policy').selectOption('own');
  await expect(ana.page.getByTestId('board-locked-notice')).toHaveCount(0);
  await expect(ana.page.getByRole('button', { name: /^Pen/ })).toBeEnabled();
});
