import type { Page } from '@playwright/test';
import { elementsOf } from './boardHook.ts';
import { connectAs, expectNeverArrived, tryToDraw } from './handWritten.ts';
import { SERVER_URL } from './origins.ts';
import { expect, fromLessonMenu, fromRowMenu, joinLesson, rosterEntry, startLesson, test } from './support.ts';

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

/** Sweeps the eraser across a point of the board. */
async function eraseAt(page: Page, x: number, y: number) {
  await page.getByRole('button', { name: /^Eraser/ }).click();
  const p = await at(page, x, y);
  await page.mouse.move(p.x - 5, p.y);
  await page.mouse.down();
  await page.mouse.move(p.x + 5, p.y, { steps: 3 });
  await page.mouse.up();
}

/** The lesson's session token this tab holds (sessionStorage), for the teacher's own HTTP reads. */
const tokenOf = (page: Page, code: string) => page.evaluate((c) => (JSON.parse(sessionStorage.getItem(`wb.session.${c}`) ?? '{}') as { token?: string }).token ?? '', code);

test('issue 20: a student\'s erase of the teacher\'s work is refused by default; under "everyone edits" the teacher restores it from history', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  const ben = await joinLesson(browser, teacher.code, 'Ben');
  await drawFilledRect(teacher.page, [300, 200], [400, 280]);
  await expect.poll(async () => (await elementsOf(ana.page)).length).toBe(1);

  // Default policy (own work): Ana's eraser is refused at once, and told who made it.
  await expect(teacher.page.getByTestId('edit-policy')).toHaveValue('own');
  await eraseAt(ana.page, 350, 240);
  await expect(ana.page.getByTestId('board-notice')).toContainText('Made by Ms Rivera');
  await expect.poll(async () => (await elementsOf(teacher.page)).length).toBe(1);
  expect((await elementsOf(ben.page)).length).toBe(1);

  // Everyone edits: Ana erases it, for everyone.
  await teacher.page.getByTestId('edit-policy').selectOption('everyone');
  await expect.poll(async () => (await elementsOf(ana.page)).length).toBe(1);
  await eraseAt(ana.page, 350, 240);
  await expect.poll(async () => (await elementsOf(teacher.page)).length).toBe(0);
  await expect.poll(async () => (await elementsOf(ben.page)).length).toBe(0);

  // The teacher finds Ana's erase in the history, filtered to Ana, and restores it.
  await fromLessonMenu(teacher.page, 'History');
  const panel = teacher.page.getByTestId('history-panel');
  const anaId = await teacher.page.getByTestId('roster-entry').filter({ hasText: 'Ana' }).getAttribute('data-user-id');
  await panel.getByTestId('history-filter').selectOption(anaId!);
  const erased = panel.getByTestId('history-row').filter({ hasText: 'Ana erased a rectangle' });
  await expect(erased).toHaveCount(1);
  await erased.getByRole('button', { name: 'Restore' }).click();
  for (const page of [teacher.page, ana.page, ben.page]) {
    await expect.poll(async () => (await elementsOf(page)).length).toBe(1);
  }
  expect((await elementsOf(ben.page))[0]).toMatchObject({ x: 300, y: 200 });
});

test('issue 20: "end lesson" disconnects everyone, records lesson_ended, refuses joins; the teacher reopens', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  const ben = await joinLesson(browser, teacher.code, 'Ben');

  await fromLessonMenu(teacher.page, 'End lesson');
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'End lesson' }).click();
  for (const student of [ana, ben]) {
    await expect(student.page.getByRole('dialog')).toContainText('The lesson has ended');
    await expect(student.page.getByTestId('connection-status')).not.toHaveAttribute('data-state', 'live');
  }
  await expect(teacher.page.getByTestId('lesson-ended')).toBeVisible();
  await expect(teacher.page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
  // The end is the server's: Ana's session cannot even connect again to draw.
  await expect(connectAs(ana.page, teacher.code)).rejects.toThrow(/^(session_closed|lesson_ended)$/);

  // Attendance: each student's interval closed by the end of the lesson.
  const token = await tokenOf(teacher.page, teacher.code);
  const response = await teacher.page.request.get(`${SERVER_URL}/api/rooms/${teacher.code}/attendance`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status()).toBe(200);
  const facts = ((await response.json()) as { facts: { kind: string }[] }).facts;
  expect(facts.filter((f) => f.kind === 'lesson_ended')).toHaveLength(2);

  // A new student is refused clearly.
  const late = await browser.newContext();
  const latePage = await late.newPage();
  await latePage.goto(`/r/${teacher.code}`);
  await expect(latePage.getByRole('heading', { name: 'The lesson has ended' })).toBeVisible();

  await teacher.page.getByRole('button', { name: 'Reopen lesson' }).click();
  await expect(teacher.page.getByTestId('lesson-ended')).toHaveCount(0);
  // Reopened for real: the refused student joins now and draws, and the teacher sees it.
  await latePage.reload();
  await latePage.getByLabel('Your name').fill('Late Lee');
  await latePage.getByRole('button', { name: 'Join lesson' }).click();
  await expect(latePage.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
  const drawn = await tryToDraw(latePage, teacher.code);
  expect(drawn.reply).toMatchObject({ ok: true });
  await expect.poll(async () => (await elementsOf(teacher.page)).map((e) => e.id)).toContain(drawn.id);
  await late.close();
});

test('issue 24: a student\'s pen is muted from their roster row\'s menu; the row stays one line, shows what they drew and the muted pen', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  const row = rosterEntry(teacher.page, 'Ana');
  await expect(row).toHaveAttribute('data-state', 'live');
  await drawFilledRect(ana.page, [300, 200], [400, 280]);
  await expect(row.getByTestId('drew-count')).toHaveAttribute('data-count', '1');
  await expect(row.getByTestId('drew-count')).toContainText('drew 1 element');
  // Nothing but the menu button on the row itself: the pen is one of the menu's actions.
  await expect(row.getByRole('button')).toHaveCount(1);

  await fromRowMenu(teacher.page, 'Ana', 'Mute pen of Ana');
  await expect(ana.page.getByTestId('board-locked-notice')).toBeVisible();
  await expect(row.getByTestId('pen-muted')).toBeVisible();
  // The rule is the server's: Ana's own session draws anyway, and is refused; nothing reaches the teacher.
  const attempt = await tryToDraw(ana.page, teacher.code);
  expect(attempt.reply).toMatchObject({ ok: false, error: { code: 'forbidden_by_policy' } });
  await expectNeverArrived(teacher.page, teacher.code, attempt.id);
  // 36 px: one line of the roster, as layout.spec.ts's rosterRowsOneLine (a 24 px avatar and its padding).
  expect((await row.boundingBox())!.height, 'the row wrapped to a second line').toBeLessThanOrEqual(36);

  await fromRowMenu(teacher.page, 'Ana', 'Give pen back to Ana');
  await expect(ana.page.getByTestId('board-locked-notice')).toHaveCount(0);
  await expect(row.getByTestId('pen-muted')).toHaveCount(0);
  // And the pen is really back: the same packet is now applied and reaches the teacher.
  const again = await tryToDraw(ana.page, teacher.code);
  expect(again.reply).toMatchObject({ ok: true });
  await expect.poll(async () => (await elementsOf(teacher.page)).map((e) => e.id)).toContain(again.id);
});
