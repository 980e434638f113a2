/**
 * The main screens at the four sizes the layout is designed for (issue 24) and in both themes:
 * a laptop (1280 x 800), a tablet with touch (1024 x 768), a phone with touch (390 x 844) and a
 * laptop at 200 % zoom (640 x 400 CSS px, WCAG 2.2 reflow). On each: the page never scrolls
 * sideways, every top-bar and toolbar button is visible and is what a tap at its centre hits,
 * and axe finds nothing (WCAG A/AA and `region`). Screenshots are attached to each test.
 *
 * One server, one lesson of 30 (seated from node), one test per size; each screen is checked in both
 * themes on the same page (the system's theme switched under it), so a theme costs a scan, not a
 * second walk through the screens.
 */
import type { Browser, BrowserContext, BrowserContextOptions, Page, TestInfo } from '@playwright/test';
import { axeScan } from './axe.ts';
import { expect, test } from './support.ts';
import type { SessionGrant } from '@wb/protocol';
import { fillClass, type Classroom } from './classroom.ts';
import { joinRoom } from './roomSeed.ts';
import { SERVER_URL } from './origins.ts';

const SIZES: Record<string, BrowserContextOptions> = {
  laptop: { viewport: { width: 1280, height: 800 } },
  tablet: { viewport: { width: 1024, height: 768 }, hasTouch: true },
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
  zoom200: { viewport: { width: 640, height: 400 } },
};
const THEMES = ['light', 'dark'] as const;
type Theme = (typeof THEMES)[number];

// Each worker seats its own class (beforeAll runs once per worker), so the sizes spread over workers.
test.describe.configure({ mode: 'parallel' });

let teacher: SessionGrant;
let student: SessionGrant;
let waiting: SessionGrant;
let classroom: Classroom;

async function post<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}
const key = () => `layout-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}-key`;

test.beforeAll(async () => {
  const base = SERVER_URL;
  teacher = await post<SessionGrant>(`${base}/api/rooms`, { teacherName: 'Ms Rivera', title: 'Fractions, week 3', memberKey: key() });
  classroom = await fillClass(base, teacher.room.code, 29);
  student = await joinRoom(base, teacher.room.code, 'Pat');
  const lobbyRoom = await post<SessionGrant>(`${base}/api/rooms`, { teacherName: 'Mr Okafor', memberKey: key(), requireApproval: true });
  waiting = await joinRoom(base, lobbyRoom.room.code, 'Sam');
});

test.afterAll(() => {
  classroom?.close();
});

/** A context whose tab already holds `grant` (as after joining), so the page opens the lesson. */
async function contextWith(browser: Browser, options: BrowserContextOptions, grant: SessionGrant | null): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  if (grant) {
    await context.addInitScript(([k, v]) => sessionStorage.setItem(k!, v!), [`wb.session.${grant.room.code}`, JSON.stringify(grant)]);
  }
  return context;
}

async function noSidewaysScroll(page: Page) {
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(widths.scroll, 'the page scrolls sideways').toBeLessThanOrEqual(widths.client);
}

/**
 * Every visible button and select in these containers (a comma-separated list) is inside the
 * window and is what a tap at its centre hits.
 */
async function buttonsReachable(page: Page, containers: string) {
  const { problems, checked } = await page.evaluate((list) => {
    const found: string[] = [];
    let shown = 0;
    const selector = list.split(',').flatMap((c) => [`${c.trim()} button`, `${c.trim()} select`]).join(', ');
    for (const button of Array.from(document.querySelectorAll<HTMLElement>(selector))) {
      const r = button.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue; // not shown at this size (behind a menu)
      shown++;
      const name = button.getAttribute('aria-label') ?? button.textContent?.trim() ?? '?';
      if (r.left < 0 || r.top < 0 || r.right > window.innerWidth || r.bottom > window.innerHeight) {
        found.push(`${name}: outside the window`);
        continue;
      }
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !button.contains(hit)) found.push(`${name}: covered by ${hit?.className || hit?.tagName}`);
    }
    return { problems: found, checked: shown };
  }, containers);
  // A selector that matches nothing shown (a renamed container, a menu that did not open) checks nothing.
  expect(checked, `buttons shown in ${containers}`).toBeGreaterThan(0);
  expect(problems).toEqual([]);
}

/** Every roster row is one line (a 24 px avatar and 3 px padding: nothing wrapped under the name). */
async function rosterRowsOneLine(page: Page) {
  const heights = await page.getByTestId('roster-entry').evaluateAll((rows) => rows.map((r) => Math.round(r.getBoundingClientRect().height)));
  expect(heights.length).toBeGreaterThan(0);
  expect(heights.filter((h) => h > 36), 'roster rows taller than one line').toEqual([]);
}

/**
 * The teacher's top bar: the lesson title ("Fractions, week 3") whole at every size, the rest in
 * "More", whose items are all reachable once it is open.
 */
async function moreMenuReachable(page: Page) {
  const title = await page.locator('.topbar-title h1').evaluate((h) => ({ shown: h.clientWidth, needed: h.scrollWidth }));
  expect(title.shown, 'the lesson title is cut short').toBeGreaterThanOrEqual(title.needed);
  await page.getByRole('button', { name: 'More' }).click();
  await buttonsReachable(page, '#topbar-menu');
  await page.keyboard.press('Escape');
  await expect(page.locator('#topbar-menu')).toBeHidden();
}

/**
 * axe with WCAG A/AA by tag and `region`; or, for the second theme of a screen already scanned in
 * the first, only the rules whose outcome depends on colours. A theme changes custom properties and
 * nothing else (the DOM, the layout and the names are the same), so the other rules would repeat
 * the first scan's answer at the cost of a second full scan.
 */
async function axeClean(page: Page, rules: 'all' | 'colour' = 'all') {
  const results = await axeScan(
    page,
    rules === 'colour'
      ? { rules: ['color-contrast', 'link-in-text-block'] }
      : { tags: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'], enable: ['region'] },
  );
  const ran = [...results.passes, ...results.violations, ...results.inapplicable, ...results.incomplete].map((r) => r.id);
  expect(ran, 'the rules ran').toContain(rules === 'colour' ? 'color-contrast' : 'region');
  const violations = results.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 4) }));
  expect(violations).toEqual([]);
}

/** `lesson`: the board's bars are checked; `'topbar'`: only the top bar (a sheet covers the tools by design). */
async function check(page: Page, info: TestInfo, screen: string, lesson: boolean | 'topbar', rules: 'all' | 'colour') {
  const started = Date.now();
  await noSidewaysScroll(page);
  if (lesson === 'topbar') await buttonsReachable(page, '.topbar');
  else if (lesson) await buttonsReachable(page, '.topbar, [data-testid="toolbar"], .board-actions, .attention-bar');
  await axeClean(page, rules);
  await info.attach(`${screen}.png`, { body: await page.screenshot(), contentType: 'image/png' });
  console.log(`${screen}: ${Date.now() - started} ms`);
}

/**
 * One screen in both themes, on the same page: the system's theme switched as a person's would be
 * (the page follows it with nothing chosen), checked and photographed in each, light left in effect.
 */
async function checkThemes(page: Page, info: TestInfo, screen: string, lesson: boolean | 'topbar', each?: (scheme: Theme) => Promise<void>) {
  for (const scheme of THEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
    // Buttons ease their colours into a new theme (120 ms): scan the colours they end at.
    await page.evaluate(() => Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => {}))));
    await each?.(scheme);
    await check(page, info, `${screen}-${scheme}`, lesson, scheme === THEMES[0] ? 'all' : 'colour');
  }
  await page.emulateMedia({ colorScheme: THEMES[0] });
}

for (const [size, options] of Object.entries(SIZES)) {
  test(`layout at ${size} (light and dark): start, join, waiting, teacher with 30, attendance, student`, async ({ browser }, info) => {
    test.setTimeout(300_000);
    const opts: BrowserContextOptions = { ...options, colorScheme: THEMES[0] };

    const visitor = await contextWith(browser, opts, null);
    const page = await visitor.newPage();
    await page.goto('/');
    await expect(page.getByRole('button', { name: 'Start lesson' })).toBeVisible();
    // The system's theme is in effect with nothing chosen: the page's colours follow it.
    await checkThemes(page, info, `${size}-start`, false, async (scheme) => {
      const canvas = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      expect(canvas, 'the page background follows the theme').toBe(scheme === 'dark' ? 'rgb(20, 23, 31)' : 'rgb(247, 248, 251)');
    });
    await page.goto(`/r/${teacher.room.code}`);
    await expect(page.getByRole('button', { name: 'Join lesson' })).toBeEnabled();
    await checkThemes(page, info, `${size}-join`, false);
    await visitor.close();

    const lobby = await contextWith(browser, opts, waiting);
    const waitingPage = await lobby.newPage();
    await waitingPage.goto(`/r/${waiting.room.code}`);
    await expect(waitingPage.getByRole('heading', { level: 1 })).toBeVisible();
    await checkThemes(waitingPage, info, `${size}-waiting`, false);
    await lobby.close();

    const teaching = await contextWith(browser, opts, teacher);
    const board = await teaching.newPage();
    await board.goto(`/r/${teacher.room.code}`);
    await expect(board.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
    await checkThemes(board, info, `${size}-teacher`, true);
    await moreMenuReachable(board);
    // The people panel with all 31 members (teacher, 29 seated, Pat).
    const people = board.getByRole('button', { name: /People|here/ }).first();
    if ((await people.getAttribute('aria-expanded')) !== 'true') await people.click();
    await expect(board.getByTestId('roster-entry')).toHaveCount(31);
    await expect(board.getByTestId('roster-entry').first()).toContainText('Teacher');
    // On a phone or at 200 % the open panel is a sheet over the board and its tools.
    const sheet = size === 'phone' || size === 'zoom200';
    await checkThemes(board, info, `${size}-teacher-people`, sheet ? 'topbar' : true);
    await rosterRowsOneLine(board);
    // A student's row menu: its items (Mute pen, Remove) are on screen and reachable.
    const row = board.getByTestId('roster-entry').filter({ hasText: 'Pat' });
    await row.getByRole('button', { name: 'Actions for Pat' }).click();
    await expect(row.getByRole('menuitem', { name: 'Mute pen of Pat' })).toBeVisible();
    await buttonsReachable(board, '.roster-menu-list');
    await info.attach(`${size}-teacher-row-menu.png`, { body: await board.screenshot(), contentType: 'image/png' });
    await board.keyboard.press('Escape');
    await board.getByRole('button', { name: 'Hide panel' }).click();
    // Attendance, from the bar or its More menu.
    const more = board.getByRole('button', { name: 'More' });
    if (await more.isVisible()) await more.click();
    await board.getByRole('button', { name: 'Attendance' }).click();
    const report = board.getByTestId('attendance-report');
    await expect(report.getByTestId('attendance-summary')).toBeVisible();
    await checkThemes(board, info, `${size}-attendance`, false);
    await teaching.close();

    const learning = await contextWith(browser, opts, student);
    const studentPage = await learning.newPage();
    await studentPage.goto(`/r/${student.room.code}`);
    await expect(studentPage.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
    await checkThemes(studentPage, info, `${size}-student`, true);
    await learning.close();
  });
}
