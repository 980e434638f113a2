/**
 * The classroom's rough edges, each as a teacher of a class meets it: the people count says who it
 * counts, a raised hand shows in the student's roster row, and students' cursors leave the class
 * board while an activity keeps them on their own boards.
 */
import type { Page } from '@playwright/test';
import { elementsOf } from './boardHook.ts';
import { worksheetPdf } from './worksheetPdf.ts';
import { expect, fromLessonMenu, joinLesson, rosterEntry, startLesson, test } from './support.ts';

test('the people count says who is counted; a raised hand is in the roster row; no student cursor stays on the class board during an activity', async ({ browser }) => {
  const teacher = await startLesson(browser);
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  const ben = await joinLesson(browser, teacher.code, 'Ben');

  // Two students and the teacher: the badge counts the class, its name says the teacher is apart.
  const badge = teacher.page.getByTestId('people-here');
  await expect(badge).toHaveText('2');
  await expect(badge).toHaveAttribute('aria-label', '2 students + teacher here');

  // Ana raises her hand: her roster row on the teacher's screen says so.
  const anaRow = rosterEntry(teacher.page, 'Ana');
  await expect(anaRow.getByTestId('roster-hand')).toHaveCount(0);
  await ana.page.getByTestId('raise-hand').click();
  await expect(anaRow.getByTestId('roster-hand')).toContainText('hand up');
  await expect(rosterEntry(teacher.page, 'Ben').getByTestId('roster-hand')).toHaveCount(0);

  // Ana's cursor on the class board reaches the teacher.
  const anaId = await anaRow.getAttribute('data-user-id');
  const board = ana.page.getByRole('application', { name: 'Whiteboard' });
  const box = (await board.boundingBox())!;
  await ana.page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 4 });
  const anaCursor = teacher.page.locator(`[data-testid="cursor"][data-user-id="${anaId}"]`);
  await expect(anaCursor).toHaveCount(1);

  // An activity puts every student on their own board: Ana's last class-board cursor goes.
  await teacher.page.getByRole('button', { name: 'Start activity' }).click();
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  await expect(ana.page.getByRole('application', { name: 'Your board' })).toBeVisible();
  await teacher.page.getByRole('button', { name: 'Class board' }).click();
  await expect(anaCursor).toHaveCount(0);
  // Ben sees no classmate's cursor on the class board either (his own board is his stage).
  await expect(ben.page.locator(`[data-testid="cursor"][data-user-id="${anaId}"]`)).toHaveCount(0);
});

test("no resize handles on a shape the viewer may not change: a student selecting the teacher's rectangle sees its outline, not its handles", async ({ browser }) => {
  const teacher = await startLesson(browser);
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  await teacher.page.getByTestId('edit-policy').selectOption('own');
  const board = teacher.page.getByRole('application', { name: 'Whiteboard' });
  const box = (await board.boundingBox())!;
  await teacher.page.getByRole('button', { name: 'Rectangle (R)' }).click();
  await teacher.page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.4);
  await teacher.page.mouse.down();
  await teacher.page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 5 });
  await teacher.page.mouse.up();
  // The teacher's own selection of it has handles.
  await teacher.page.getByRole('button', { name: /^Select and move/ }).click();
  await teacher.page.mouse.click(box.x + box.width * 0.4, box.y + box.height * 0.45);
  await expect(board.getByTestId('selection-handles')).toHaveCount(1);

  // Ana selects it: outlined, no handles (the server would refuse her any resize: not her work).
  const anaBoard = ana.page.getByRole('application', { name: 'Whiteboard' });
  await expect(anaBoard.locator('[data-testid="element"][data-kind="rect"]')).toHaveCount(1);
  await ana.page.getByRole('button', { name: /^Select and move/ }).click();
  await anaBoard.focus();
  await ana.page.keyboard.press('Control+a');
  await expect(anaBoard.getByTestId('selection-outline')).toHaveCount(1);
  await expect(anaBoard.getByTestId('selection-handles')).toHaveCount(0);
});

test('after the teacher reopens an ended lesson, the students who had left say "Lesson ended", not "Connection lost"', async ({ browser }) => {
  const teacher = await startLesson(browser);
  await joinLesson(browser, teacher.code, 'Ana');
  await expect(rosterEntry(teacher.page, 'Ana')).toHaveAttribute('data-state', 'live');
  await fromLessonMenu(teacher.page, 'End lesson');
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'End lesson' }).click();
  await expect(teacher.page.getByTestId('lesson-ended')).toBeVisible();
  await teacher.page.getByRole('button', { name: 'Reopen lesson' }).click();
  await expect(teacher.page.getByTestId('lesson-ended')).toHaveCount(0);
  await expect(rosterEntry(teacher.page, 'Ana')).toContainText('Lesson ended');
  await expect(rosterEntry(teacher.page, 'Ana')).not.toContainText('Connection lost');
});

test("a PDF's pages do not land on the work already on the board: they become pages of their own", async ({ browser }) => {
  const teacher = await startLesson(browser);
  const board = teacher.page.getByRole('application', { name: 'Whiteboard' });
  const box = (await board.boundingBox())!;
  // A rectangle over the middle of the view, where a picked file lands.
  await teacher.page.getByRole('button', { name: 'Rectangle (R)' }).click();
  await teacher.page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
  await teacher.page.mouse.down();
  await teacher.page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.7, { steps: 5 });
  await teacher.page.mouse.up();
  await expect.poll(async () => (await elementsOf(teacher.page)).length).toBe(1);
  const before = await elementsOf(teacher.page);
  await teacher.page.getByTestId('image-file').setInputFiles({ name: 'worksheet.pdf', mimeType: 'application/pdf', buffer: worksheetPdf(2) });
  await expect(teacher.page.getByRole('application', { name: 'Page 2', exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(teacher.page.getByTestId('pdf-import')).toBeHidden({ timeout: 60_000 });
  await expect(teacher.page.getByRole('navigation', { name: 'Pages' }).getByRole('listitem')).toHaveCount(3);
  expect(await elementsOf(teacher.page)).toEqual(before);
});

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const LAPTOP = { viewport: { width: 1280, height: 800 } };
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

for (const [size, options] of [['laptop', LAPTOP], ['phone', PHONE]] as const) {
  test(`layout at ${size} size: a refusal's toast covers neither "Hide cursors" nor "Raise hand"; the ended banner does not cover the board's actions`, async ({ browser }) => {
    const teacher = await startLesson(browser, 'Ms Rivera', '', undefined, options);
    const board = teacher.page.getByRole('application', { name: 'Whiteboard' });
    const box = (await board.boundingBox())!;
    await teacher.page.getByRole('button', { name: 'Rectangle (R)' }).click();
    await teacher.page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
    await teacher.page.mouse.down();
    await teacher.page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5, { steps: 5 });
    await teacher.page.mouse.up();
    const ana = await joinLesson(browser, teacher.code, 'Ana', '', undefined, options);
    // Ana erases the teacher's rectangle: refused (own work), told in a toast.
    const rect = ana.page.locator('[data-testid="element"][data-kind="rect"]');
    await expect(rect).toHaveCount(1);
    await ana.page.keyboard.press('e');
    const r = (await rect.boundingBox())!;
    await ana.page.mouse.move(r.x - 4, r.y + r.height / 2);
    await ana.page.mouse.down();
    await ana.page.mouse.move(r.x + r.width / 2, r.y + r.height / 2, { steps: 4 });
    await ana.page.mouse.up();
    const toast = ana.page.getByTestId('board-notice');
    await expect(toast).toBeVisible();
    const toastBox = (await toast.boundingBox())!;
    for (const name of ['Hide cursors', 'Raise hand']) {
      const control = ana.page.getByRole('button', { name, exact: true });
      if (!(await control.isVisible())) continue;
      expect(overlap(toastBox, (await control.boundingBox())!), `the toast covers "${name}"`).toBe(false);
    }

    await fromLessonMenu(teacher.page, 'End lesson');
    await teacher.page.getByRole('dialog').getByRole('button', { name: 'End lesson' }).click();
    const banner = teacher.page.getByTestId('lesson-ended');
    await expect(banner).toBeVisible();
    const actions = teacher.page.getByRole('toolbar', { name: 'Board actions' });
    expect(overlap((await banner.boundingBox())!, (await actions.boundingBox())!), 'the ended banner covers the board actions').toBe(false);
  });
}

test('the attendance report\'s column headings do not overlap one another', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera', '', undefined, LAPTOP);
  await joinLesson(browser, teacher.code, 'Ana');
  await expect(rosterEntry(teacher.page, 'Ana')).toHaveAttribute('data-state', 'live');
  await fromLessonMenu(teacher.page, 'Attendance');
  const row = teacher.page.getByTestId('attendance-row').first();
  await expect(row).toBeVisible();
  const keys = await row.locator('summary .attendance-key').all();
  expect(keys.length).toBeGreaterThanOrEqual(4);
  const boxes = await Promise.all(keys.map(async (k) => (await k.boundingBox())!));
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i]!, boxes[j]!), `headings ${i} and ${j} overlap`).toBe(false);
});

test('dark theme: the black swatch is visible on the dark toolbar, and the class grid\'s sort menu is dark', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera', '', undefined, { ...LAPTOP, colorScheme: 'dark' });
  await joinLesson(browser, teacher.code, 'Ana');
  const page = teacher.page;
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.keyboard.press('p');
  await page.getByRole('button', { name: 'Colour Red' }).click();
  // Unselected, the black swatch must still show an edge lighter than the dark panel around it.
  const black = page.getByRole('button', { name: 'Colour Black' });
  const lightPixels = await black.evaluate(async (el) => {
    const style = getComputedStyle(el);
    // Its edge: the border's or the inset ring's colour, as drawn on the panel.
    const probe = [style.borderTopColor, ...(style.boxShadow.match(/rgba?\([^)]*\)/g) ?? [])];
    return probe.map((c) => {
      const [r = 0, g = 0, b = 0, a = 1] = (c.match(/[\d.]+/g) ?? []).map(Number);
      return a === 0 ? 0 : (Math.max(r, g, b) * Math.min(1, a));
    });
  });
  expect(Math.max(...lightPixels), 'the black swatch has a visible edge').toBeGreaterThan(70);

  await page.getByRole('button', { name: 'Start activity' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  // The grid's two menus: Sort by, and the flag filter beside it.
  for (const menu of [page.getByLabel('Sort by'), page.getByTestId('flag-filter')]) {
    await expect(menu).toBeVisible();
    const background = await menu.evaluate((el) => getComputedStyle(el).backgroundColor);
    const [r = 255, g = 255, b = 255] = (background.match(/[\d.]+/g) ?? []).map(Number);
    expect(Math.max(r, g, b), `the menu is ${background}`).toBeLessThan(100);
    expect(await menu.evaluate((el) => getComputedStyle(el).colorScheme)).toContain('dark');
  }
});

/** The teacher asks a quick poll (from the side panel, a sheet on a phone). */
async function askPoll(page: Page, question: string) {
  const launch = page.getByRole('button', { name: 'Quick poll' });
  if (!(await launch.isVisible())) {
    const people = page.locator('.topbar-people');
    if ((await people.getAttribute('aria-expanded')) !== 'true') await people.click();
  }
  await launch.click();
  await page.getByTestId('poll-dialog').getByLabel('Question').fill(question);
  await page.getByTestId('poll-dialog').getByRole('button', { name: 'Ask' }).click();
}

test('on a phone the poll covers neither the lesson\'s bar, the zoom nor the tools; on a laptop it stays clear of a private board\'s bar and banner', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera', '', undefined, PHONE);
  const ana = await joinLesson(browser, teacher.code, 'Ana', '', undefined, PHONE);
  await askPoll(teacher.page, 'Is 7 a prime number?');
  const teacherPoll = teacher.page.getByTestId('teacher-poll');
  await expect(teacherPoll).toBeVisible();
  // The sheet the poll opened from closes on a phone: the lesson's bar is on the board again.
  const bars = [
    ['the attention bar', teacher.page.getByRole('button', { name: 'Hide cursors', exact: true })],
    ['the zoom', teacher.page.getByRole('group', { name: 'Zoom' })],
    ['the tools', teacher.page.getByTestId('toolbar')],
  ] as const;
  for (const [name, bar] of bars) {
    await expect(bar).toBeVisible();
    expect(overlap((await teacherPoll.boundingBox())!, (await bar.boundingBox())!), `the teacher's poll covers ${name}`).toBe(false);
  }
  const studentPoll = ana.page.getByTestId('student-poll');
  await expect(studentPoll).toBeVisible();
  for (const bar of [ana.page.getByRole('group', { name: 'Zoom' }), ana.page.getByTestId('toolbar')]) {
    expect(overlap((await studentPoll.boundingBox())!, (await bar.boundingBox())!), 'the student\'s poll covers a bar').toBe(false);
  }
  await teacher.page.context().close();
  await ana.page.context().close();

  // A laptop, with a private board on the stage: the teacher's board bar and the student's banner stay clear.
  const laptopTeacher = await startLesson(browser, 'Ms Rivera', '', undefined, LAPTOP);
  const ben = await joinLesson(browser, laptopTeacher.code, 'Ben', '', undefined, LAPTOP);
  const t = laptopTeacher.page;
  await askPoll(t, 'Is 9 a prime number?');
  await t.getByRole('button', { name: 'Start activity' }).click();
  await t.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  await t.locator('[data-testid="board-tile"][data-owner="Ben"]').click();
  const stageBar = t.getByTestId('open-board');
  await expect(stageBar).toBeVisible();
  expect(overlap((await t.getByTestId('teacher-poll').boundingBox())!, (await stageBar.boundingBox())!), 'the poll covers the board\'s bar').toBe(false);
  await stageBar.getByRole('button', { name: 'Back to grid' }).click();
  const banner = ben.page.getByTestId('private-board-banner');
  await expect(banner).toBeVisible();
  expect(overlap((await ben.page.getByTestId('student-poll').boundingBox())!, (await banner.boundingBox())!), 'the poll covers the banner').toBe(false);
});

test('dark theme on a phone: the current colour\'s button shows black on the dark bar; a private board\'s banner is dark', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera', '', undefined, { ...LAPTOP, colorScheme: 'dark' });
  const ana = await joinLesson(browser, teacher.code, 'Ana', '', undefined, { ...PHONE, colorScheme: 'dark' });
  const page = ana.page;
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  // The compact toolbar's one colour button shows the current colour, black at first: it needs an edge lighter than the bar.
  const current = page.getByRole('button', { name: 'Colour and stroke' }).locator('.style-current');
  const edge = await current.evaluate((el) => {
    const style = getComputedStyle(el);
    return [style.borderTopColor, ...(style.boxShadow.match(/rgba?\([^)]*\)/g) ?? [])].map((c) => {
      const [r = 0, g = 0, b = 0, a = 1] = (c.match(/[\d.]+/g) ?? []).map(Number);
      return a === 0 ? 0 : Math.max(r, g, b) * Math.min(1, a);
    });
  });
  // Brighter than the panel's strong line colour (#4a5264, 100: the faint ring it had, lost on a phone's screen in daylight).
  expect(Math.max(...edge), 'the black colour button has a visible edge').toBeGreaterThan(120);

  await teacher.page.getByRole('button', { name: 'Start activity' }).click();
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  const banner = page.getByTestId('private-board-banner');
  await expect(banner).toBeVisible();
  const [background, colour] = await banner.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
  const brightest = (c: string) => Math.max(...(c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number));
  expect(brightest(background), `the banner is ${background}`).toBeLessThan(100);
  expect(brightest(colour), `its words are ${colour}`).toBeGreaterThan(180);
});
