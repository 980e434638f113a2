/**
 * The pages strip on small and zoomed screens (docs/guide.md "Pages"): in the compact layout (a
 * phone, a laptop at 200 % zoom) it is one row, the thumbnails scrolling sideways, the teacher's
 * ‹ › and one "Page actions" menu, so it leaves the board its height and runs past no edge. The
 * menu is a disclosure: opened by the keyboard, closed by Escape (focus back on its button) or a
 * click elsewhere, each of its items a real button, the new page's paper among them; in Arabic it
 * opens under its button at the mirrored side.
 */
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContextOptions, Locator, Page } from '@playwright/test';
import { ClientEvent } from '@wb/protocol';
import { axeScan } from './axe.ts';
import { connectAs, lessonPagesOf } from './handWritten.ts';
import { expect, expectLive, fromPageActions, joinLesson, startLesson, test } from './support.ts';

const ZOOM200: BrowserContextOptions = { viewport: { width: 640, height: 400 } };
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

/**
 * The most of the screen's height the strip may take. One row of controls 36 px high (the
 * compact layout's buttons, LessonPage.css) with the strip's padding and border is 46 px: 11.5 %
 * of a 640 x 400 window. The strip that had its actions in a second row took 83 px there (21 %),
 * leaving a worksheet page about 150 px of board; 12 % holds one row and no second.
 */
const STRIP_SHARE_MAX = 0.12;

const strip = (page: Page) => page.getByRole('navigation', { name: 'Pages' });
const stage = (page: Page, name: string) => page.getByRole('application', { name, exact: true });
const thumbs = (page: Page) => strip(page).getByRole('listitem');

/** `count` more pages through the teacher's own session, after the last; resolves with the list's length. */
async function addPages(page: Page, code: string, count: number): Promise<number> {
  const socket = await connectAs(page, code);
  try {
    let last = (await lessonPagesOf(page, code)).pages.at(-1)!.id;
    for (let i = 0; i < count; i++) {
      const pageId = randomUUID();
      const reply = await socket.timeout(10_000).emitWithAck(ClientEvent.PAGE_ADD, { pageId, afterPageId: last });
      if (!reply.ok) throw new Error(`page.add refused: ${reply.error.code}`);
      last = pageId;
    }
  } finally {
    socket.close();
  }
  return (await lessonPagesOf(page, code)).pages.length;
}

async function setPacing(page: Page, code: string, pacing: 'free' | 'paced') {
  const socket = await connectAs(page, code);
  try {
    const reply = await socket.timeout(10_000).emitWithAck(ClientEvent.PAGE_PACING, { pacing });
    if (!reply.ok) throw new Error(`page.pacing refused: ${reply.error.code}`);
  } finally {
    socket.close();
  }
}

/**
 * The strip as laid out: its share of the window's height, and what in it runs past its sides or
 * scrolls sideways, other than the thumbnails' list (which scrolls by design) and what is in it,
 * and an open menu.
 * `otherRows` counts the controls standing outside the thumbnails' row (a control's vertical
 * middle outside the thumbnails' band); `aroundRow` is how much taller the strip is than that row.
 */
async function footprint(page: Page) {
  return strip(page).evaluate((nav) => {
    const box = nav.getBoundingClientRect();
    const list = nav.querySelector('ol')!;
    const band = list.getBoundingClientRect();
    const name = (el: Element) => `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''} "${(el.textContent ?? '').trim().slice(0, 20)}"`;
    const overflows: string[] = [];
    let otherRows = 0;
    if (box.left < 0 || box.right > window.innerWidth + 0.5) overflows.push('the strip is wider than the window');
    for (const el of [nav, ...Array.from(nav.querySelectorAll('*'))]) {
      // The thumbnails' list scrolls by design; an open menu hangs from the row, measured on its own.
      if ((el !== list && list.contains(el)) || el.closest('[role="group"]')) continue;
      const r = el.getBoundingClientRect();
      // Not laid out (a closed menu), or text kept for screen readers only (1 x 1 px, clipped).
      if (r.width <= 1 && r.height <= 1) continue;
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5) overflows.push(`${name(el)} runs past the strip's side`);
      if (el !== list && el.scrollWidth > el.clientWidth + 1) overflows.push(`${name(el)} scrolls sideways`);
      const middle = r.top + r.height / 2;
      if (el.matches('button, select, p') && (middle < band.top || middle > band.bottom)) otherRows++;
    }
    return { share: box.height / window.innerHeight, height: Math.round(box.height), aroundRow: box.height - band.height, overflows, otherRows };
  });
}

async function expectCompactStrip(page: Page, who: string) {
  const seen = await footprint(page);
  expect.soft(seen.overflows, `${who}: nothing runs past the strip but the thumbnails' scroller`).toEqual([]);
  expect.soft(seen.share, `${who}: the strip is ${seen.height} px high`).toBeLessThanOrEqual(STRIP_SHARE_MAX);
  expect.soft(seen.otherRows, `${who}: one row`).toBe(0);
  // And no taller than the thumbnails' row: the strip's padding (4 + 4 px) and border (1 + 1 px),
  // 2 px for rounding. A note wrapped to three lines beside them made it 38 px taller.
  expect.soft(seen.aroundRow, `${who}: the strip is as high as its row`).toBeLessThanOrEqual(12);
  // Under the board's actions, however many rows they wrap to (a teacher's on a phone: two).
  const [actions, box] = [await page.getByRole('toolbar', { name: 'Board actions' }).boundingBox(), await strip(page).boundingBox()];
  expect.soft(box!.y, `${who}: the strip is below the board's actions`).toBeGreaterThanOrEqual(actions!.y + actions!.height);
}

/** The teacher at `options`, with a lesson of `pages` pages, on its first page. */
async function teacherWithPages(browser: Browser, options: BrowserContextOptions, pages: number) {
  const teacher = await startLesson(browser, 'Ms Rivera', '', undefined, options);
  expect(await addPages(teacher.page, teacher.code, pages - 1)).toBe(pages);
  await expect(thumbs(teacher.page)).toHaveCount(pages);
  return teacher;
}

for (const [size, options] of [['640 x 400 (200 % zoom)', ZOOM200], ['390 x 844 (a phone)', PHONE]] as const) {
  test(`at ${size} the pages strip is one row taking at most ${STRIP_SHARE_MAX * 100} % of the height, and nothing in it runs past its edge but the thumbnails' scroller`, async ({ browser }) => {
    // Twelve pages: more thumbnails than either row holds, so their list has to scroll.
    const teacher = await teacherWithPages(browser, options, 12);
    await expectCompactStrip(teacher.page, 'the teacher');
    const list = strip(teacher.page).getByRole('list');
    expect(await list.evaluate((ol) => ol.scrollWidth > ol.clientWidth), 'twelve thumbnails scroll sideways').toBe(true);

    // A student sees the strip (a note and the thumbnails) once she may browse: one row too.
    const ana = await joinLesson(browser, teacher.code, 'Ana', '', undefined, options);
    await setPacing(teacher.page, teacher.code, 'free');
    await expect(ana.page.getByTestId('pages-note')).toHaveText('You may look at any page');
    await expectCompactStrip(ana.page, 'a student');
    // Her raised hand stands clear of the strip.
    const [hand, box] = [await ana.page.getByTestId('raise-hand').boundingBox(), await strip(ana.page).boundingBox()];
    expect(hand!.y, 'the raised hand is below the strip').toBeGreaterThanOrEqual(box!.y + box!.height);

    // The teacher's menu opened: the strip keeps its row; the menu stays in the window.
    await strip(teacher.page).getByRole('button', { name: 'Page actions' }).click();
    const menu = strip(teacher.page).getByRole('group', { name: 'Page actions' });
    await expect(menu).toBeVisible();
    await expectCompactStrip(teacher.page, 'the teacher, menu open');
    await expectInWindow(teacher.page, menu);
  });
}

/** The box lies inside the window. */
async function expectInWindow(page: Page, locator: Locator) {
  const box = (await locator.boundingBox())!;
  const screen = page.viewportSize()!;
  expect(box.x, 'left edge in the window').toBeGreaterThanOrEqual(0);
  expect(box.y, 'top edge in the window').toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, 'right edge in the window').toBeLessThanOrEqual(screen.width);
  expect(box.y + box.height, 'bottom edge in the window').toBeLessThanOrEqual(screen.height);
}

test('the page actions menu at 640 x 400: opened and used from the keyboard, Escape and a click elsewhere close it, every page action in it', async ({ browser }) => {
  const teacher = await teacherWithPages(browser, ZOOM200, 2);
  const t = teacher.page;
  const button = strip(t).getByRole('button', { name: 'Page actions' });
  const menu = strip(t).getByRole('group', { name: 'Page actions' });
  await expect(button).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toBeHidden();

  // From the keyboard: Enter opens it with the focus on its first item; the arrows move; Escape
  // closes it and gives the focus back to the button.
  await button.focus();
  await t.keyboard.press('Enter');
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  await expect(menu.getByRole('button', { name: 'Add page' })).toBeFocused();
  await t.keyboard.press('ArrowDown');
  await expect(menu.getByRole('button', { name: 'Duplicate' })).toBeFocused();
  await t.keyboard.press('ArrowUp');
  await expect(menu.getByRole('button', { name: 'Add page' })).toBeFocused();
  // The strip with its menu open passes axe (WCAG A and AA), in both themes.
  for (const colorScheme of ['light', 'dark'] as const) {
    await t.emulateMedia({ colorScheme });
    // The colours' transitions run out first: a colour caught halfway fails the contrast rule.
    await expect.poll(() => t.evaluate(() => document.getAnimations().length)).toBe(0);
    expect((await axeScan(t, { include: '.pages-strip' })).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), colorScheme).toEqual([]);
  }
  await t.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(button).toBeFocused();
  await expect(button).toHaveAttribute('aria-expanded', 'false');

  // A click elsewhere (on the board) closes it.
  await button.click();
  await expect(menu).toBeVisible();
  const board = (await stage(t, 'Whiteboard').boundingBox())!;
  await t.mouse.click(board.x + board.width / 2, board.y + board.height * 0.6);
  await expect(menu).toBeHidden();

  // The paper of the new page is chosen in the menu; Add page (Space, from the keyboard) adds it
  // after this one and goes there.
  await button.focus();
  await t.keyboard.press('Enter');
  await menu.getByRole('combobox', { name: 'Paper of the new page' }).selectOption('grid');
  await menu.getByRole('button', { name: 'Add page' }).focus();
  await t.keyboard.press('Space');
  await expect(thumbs(t)).toHaveCount(3);
  await expect(stage(t, 'Page 2')).toBeVisible();
  await expect(menu).toBeHidden();
  await expect(button).toBeFocused();
  expect((await lessonPagesOf(t, teacher.code)).pages[1]!.background).toBe('grid');

  // Rename, in the menu.
  await fromPageActions(t, 'Rename');
  await menu.getByRole('textbox', { name: 'Page title' }).fill('Warm-up');
  await t.keyboard.press('Enter');
  await expect(strip(t).getByRole('button', { name: 'Warm-up', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(menu).toBeHidden();

  // Duplicate, then Delete page and its undo.
  await fromPageActions(t, 'Duplicate');
  await expect(thumbs(t)).toHaveCount(4);
  await fromPageActions(t, 'Delete page');
  await expect(thumbs(t)).toHaveCount(3);
  await fromPageActions(t, 'Undo delete');
  await expect(thumbs(t)).toHaveCount(4);

  // ‹ › stay in the row: the current page moves earlier.
  const before = (await lessonPagesOf(t, teacher.code)).pages.map((p) => p.id);
  const current = (await lessonPagesOf(t, teacher.code)).currentPageId;
  await strip(t).getByRole('button', { name: 'Move page earlier' }).click();
  await expect.poll(async () => (await lessonPagesOf(t, teacher.code)).pages.map((p) => p.id).indexOf(current)).toBe(before.indexOf(current) - 1);

  // The class's pacing, both ways.
  await fromPageActions(t, 'Let students browse');
  await expect.poll(async () => (await lessonPagesOf(t, teacher.code)).pacing).toBe('free');
  await fromPageActions(t, 'Bring everyone to this page');
  await expect.poll(async () => (await lessonPagesOf(t, teacher.code)).pacing).toBe('paced');
});

test('in Arabic at 640 x 400 the page actions menu opens under its button at the mirrored side, inside the window', async ({ browser }) => {
  const teacher = await teacherWithPages(browser, ZOOM200, 3);
  const t = teacher.page;
  // Arabic chosen in the lesson's language menu (remembered in the browser), the tab reloaded.
  await t.evaluate(() => localStorage.setItem('wb.locale', 'ar'));
  await t.reload();
  await expectLive(t);
  await expect(t.locator('html')).toHaveAttribute('dir', 'rtl');
  const nav = t.getByRole('navigation', { name: 'الصفحات' });
  const button = nav.getByRole('button', { name: 'إجراءات الصفحة' });
  await button.click();
  const menu = nav.getByRole('group', { name: 'إجراءات الصفحة' });
  await expect(menu.getByRole('button', { name: 'إضافة صفحة' })).toBeFocused();
  const [b, m] = [(await button.boundingBox())!, (await menu.boundingBox())!];
  // Right to left, the button stands at the strip's left end; the menu hangs from the button's left edge.
  expect(Math.abs(m.x - b.x), 'the menu starts at the button\'s left edge').toBeLessThanOrEqual(1);
  expect(m.y, 'the menu opens below the strip').toBeGreaterThanOrEqual(b.y + b.height);
  await expectInWindow(t, menu);
  await t.keyboard.press('Escape');
  await expect(button).toBeFocused();
});
