import type { Browser, Page } from '@playwright/test';
import { catalog, englishLeftOn } from './catalogs.ts';
import { expect, expectClassroomOrigin, expectLive, joinLesson, rosterEntry, startLesson, test } from './support.ts';

const es = catalog('es');
const ar = catalog('ar');
const en = catalog('en');

/** No English string the Spanish catalog words differently is on the page (text, names, titles). */
async function expectNoEnglish(page: Page, where: string) {
  expect(await englishLeftOn(page, es), `English left on the Spanish page: ${where}`).toEqual([]);
}

/** Opens the top bar's "More" menu item, by its words in the page's language. */
async function fromMenu(page: Page, moreLabel: string, item: string) {
  const button = page.locator('#topbar-menu').getByRole('button', { name: item, exact: true });
  if (!(await button.isVisible())) await page.getByRole('button', { name: moreLabel }).click();
  await button.click();
}

async function drawRectangle(page: Page, toolName: string) {
  await page.getByRole('button', { name: new RegExp(`^${toolName}`) }).click();
  const box = (await page.getByTestId('board').boundingBox())!;
  await page.mouse.move(box.x + 300, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + 420, box.y + 280, { steps: 5 });
  await page.mouse.up();
}

test('L1: a teacher runs the whole lesson in Spanish, and no English string is left on her screen', async ({ browser }) => {
  // The browser's language decides: nothing chosen yet in this browser.
  const context = await browser.newContext({ locale: 'es-ES' });
  const page = await context.newPage();
  await page.goto('/');
  await expectClassroomOrigin(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(es['app.title']!);
  await expectNoEnglish(page, 'start page');

  await page.getByLabel(es['field.yourName']!).fill('Sra. Rivera');
  await page.getByLabel(es['home.titleLabel']!).fill('Fracciones, semana 3');
  await page.getByRole('button', { name: es['home.start'] }).click();
  await page.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  const code = /\/r\/([A-Z2-9]{6})$/.exec(page.url())![1]!;
  await expectLive(page);
  await expectNoEnglish(page, 'lesson, empty');

  // A student joins (in English: each person's language is their own); the roster and the board fill.
  await joinLesson(browser, code, 'Ana');
  await expect(rosterEntry(page, 'Ana')).toHaveAttribute('data-state', 'live');
  await drawRectangle(page, es['tool.rect']!);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('unsynced')).toHaveCount(0);
  await expectNoEnglish(page, 'lesson with a student and a shape');

  // The roster row's menu.
  await rosterEntry(page, 'Ana').getByRole('button', { name: es['roster.actionsFor']!.replace('{name}', 'Ana') }).click();
  await expect(page.getByRole('menu')).toBeVisible();
  await expectNoEnglish(page, 'roster menu');
  await page.keyboard.press('Escape');

  // Attendance, with its dates and counts.
  await fromMenu(page, es['lesson.more']!, es['lesson.attendance']!);
  const report = page.getByTestId('attendance-report');
  await expect(report.getByTestId('attendance-row')).toHaveCount(1);
  await report.getByTestId('attendance-row').locator('summary').click();
  await expectNoEnglish(page, 'attendance report');
  await report.getByRole('button', { name: es['action.close'] }).click();

  // History.
  await fromMenu(page, es['lesson.more']!, es['lesson.history']!);
  await expect(page.getByTestId('history-row')).toHaveCount(1);
  await expectNoEnglish(page, 'history');
  await page.getByTestId('history-panel').getByRole('button', { name: es['action.close'] }).click();

  // The code on the projector.
  // In the top bar where it fits (a wide window), else in "More".
  const showCode = page.getByRole('button', { name: es['lesson.showCode'], exact: true }).filter({ visible: true });
  if ((await showCode.count()) > 0) await showCode.first().click();
  else await fromMenu(page, es['lesson.more']!, es['lesson.showCode']!);
  await expect(page.getByTestId('projector-code')).toBeVisible();
  await expectNoEnglish(page, 'projector code');
  await page.getByTestId('projector-code').getByRole('button', { name: es['action.close'] }).click();

  // An activity: the class grid.
  await page.getByRole('button', { name: es['activity.start'] }).click();
  await page.getByRole('button', { name: es['activity.startSubmit'], exact: true }).click();
  await expect(page.getByTestId('class-grid-overlay')).toBeVisible();
  await expect(page.getByTestId('board-tile')).toHaveCount(1);
  await expectNoEnglish(page, 'class grid');
  // Ending it asks once more, in Spanish too.
  await page.getByRole('button', { name: es['activity.end'] }).click();
  const confirmEnd = page.getByRole('group', { name: es['activity.endQuestion'] });
  await expect(confirmEnd).toBeVisible();
  await expectNoEnglish(page, 'end activity confirmation');
  await confirmEnd.getByRole('button', { name: es['activity.end'] }).click();
  await expect(page.getByTestId('class-grid-overlay')).toHaveCount(0);

  // Ending the lesson: the confirmation, then the banner.
  await fromMenu(page, es['lesson.more']!, es['lesson.end']!);
  await expect(page.getByRole('dialog', { name: es['lesson.endConfirmTitle'] })).toBeVisible();
  await expectNoEnglish(page, 'end lesson dialog');
  await page.getByRole('dialog').getByRole('button', { name: es['lesson.end'] }).click();
  await expect(page.getByTestId('lesson-ended')).toBeVisible();
  await expectNoEnglish(page, 'ended lesson');
});

test('L2: the language chosen in the menu is applied at once and remembered over a reload', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const page = teacher.page;
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  const select = page.getByTestId('language-select');
  if (!(await select.isVisible())) await page.getByRole('button', { name: en['lesson.more'] }).click();
  await select.selectOption('es');
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  await expect(page.getByTestId('connection-status')).toContainText(es['connection.live']!);
  await expectNoEnglish(page, 'after switching');

  await page.reload();
  await expectLive(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  await expect(page.getByTestId('connection-status')).toContainText(es['connection.live']!);

  // Back to English from the menu, in Spanish words now.
  const again = page.getByTestId('language-select');
  if (!(await again.isVisible())) await page.getByRole('button', { name: es['lesson.more'] }).click();
  await again.selectOption('en');
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.getByTestId('connection-status')).toContainText(en['connection.live']!);
});

/** A student who reads Arabic joins from a browser in Arabic. */
async function joinInArabic(browser: Browser, code: string, name: string) {
  const context = await browser.newContext({ locale: 'ar-EG', viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`/r/${code}`);
  await page.getByLabel(ar['field.yourName']!).fill(name);
  await page.getByRole('button', { name: ar['join.submit'] }).click();
  await expectLive(page);
  return page;
}

/** Horizontal centre of a box, as a fraction of the window's width. */
async function centreOf(page: Page, testId: string): Promise<number> {
  const box = (await page.getByTestId(testId).boundingBox())!;
  return (box.x + box.width / 2) / page.viewportSize()!.width;
}

test('L3: an Arabic student’s page is mirrored, and a board label in Arabic with digits reads right to left on every screen', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  await teacher.page.setViewportSize({ width: 1280, height: 800 });
  const student = await joinInArabic(browser, teacher.code, 'ليلى');
  await expect(student.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(student.locator('html')).toHaveAttribute('lang', 'ar');
  await expect(teacher.page.locator('html')).toHaveAttribute('dir', 'ltr');

  // Mirrored: the tools stand on the right and the lesson's name on the right of the top bar; on
  // the English page of the same size they are on the left.
  expect(await centreOf(teacher.page, 'toolbar')).toBeLessThan(0.5);
  expect(await centreOf(student, 'toolbar')).toBeGreaterThan(0.5);
  const title = async (page: Page) => {
    const box = (await page.locator('.topbar-title').boundingBox())!;
    return (box.x + box.width / 2) / 1280;
  };
  expect(await title(teacher.page)).toBeLessThan(0.5);
  expect(await title(student)).toBeGreaterThan(0.5);
  // Icons that point keep their meaning: undo points back, which in Arabic is to the right.
  const undoIcon = (page: Page, undo: string) => page.getByRole('button', { name: new RegExp(`^${undo} `) }).locator('svg');
  expect(await undoIcon(student, ar['toolbar.undo']!).evaluate((el) => getComputedStyle(el).transform)).toBe('matrix(-1, 0, 0, 1, 0, 0)');
  expect(await undoIcon(teacher.page, en['toolbar.undo']!).evaluate((el) => getComputedStyle(el).transform)).toBe('none');

  // The student writes a label that starts with a number: "12 students present".
  const label = '12 طالبًا حاضرون';
  await student.getByRole('button', { name: new RegExp(`^${ar['tool.text']} `) }).click();
  const board = (await student.getByTestId('board').boundingBox())!;
  await student.mouse.click(board.x + board.width / 2, board.y + 300);
  const editor = student.getByTestId('text-editor');
  await editor.fill(label);
  expect(await editor.evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
  await editor.press('Enter');

  // On both screens (the teacher's page is left to right) the label's base direction is rtl: the
  // "12" stands to the right of the Arabic word after it, as an Arabic reader reads it.
  for (const page of [student, teacher.page]) {
    const text = page.getByTestId('board').locator('svg text', { hasText: 'طالبًا' });
    await expect(text).toHaveCount(1);
    const order = await text.evaluate((el: SVGTextElement) => ({
      direction: getComputedStyle(el).direction,
      one: el.getExtentOfChar(0).x,
      firstArabic: el.getExtentOfChar(3).x,
    }));
    expect(order.direction).toBe('rtl');
    expect(order.one).toBeGreaterThan(order.firstArabic);
  }
});
