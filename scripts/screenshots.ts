/**
 * The README's screenshots, taken from the real product so they stay true: a teacher's board with
 * a class of 30 (1280 x 800) and a student's board on a phone (390 x 844, touch).
 *
 *   pnpm build && pnpm screenshots            writes docs/screenshots/*.png
 *   pnpm screenshots -- --all --out /tmp/shots  also every layout size, both themes (for review),
 *                                                 the projector view ("Show the code") among them
 *   pnpm screenshots -- --editing --out /tmp/shots  also the editing screens at every size: a
 *                                                 note's text choices, typing, a turned selection's handles
 *   pnpm screenshots -- --boards --out /tmp/shots   also an activity at every size: the teacher's class
 *                                                 grid of 30, an opened board (and a selection on it
 *                                                 with the select tool), a student's own board
 *   pnpm screenshots -- --checks                  also docs/screenshots/checks-*.png: the timer, a quick
 *                                                 poll's results and the grid with flags, laptop and
 *                                                 phone, light and dark
 *   pnpm screenshots -- --languages --out /tmp/shots  also the lesson in Arabic (mirrored) at laptop and
 *                                                 phone size, `teacher-board-ar.png` and `phone-ar.png`
 *                                                 (the README's pair in docs/screenshots), and in
 *                                                 Spanish at 640 x 400 (long words), `zoom200-es-*.png`
 *   pnpm screenshots -- --feedback                  only the feedback screens (laptop and phone, light and
 *                                                 dark): a stamp on an opened board, a shown student's
 *                                                 banner, a classmate's anonymous view, End activity's
 *                                                 confirmation, a raised hand in the roster
 *   pnpm screenshots -- --rough                     only the lesson's rough edges (laptop and phone, light and
 *                                                 dark): a refusal's toast over the attention bar, the
 *                                                 More menu and the pen's colours, the attendance report,
 *                                                 the ended lesson's banner
 *   pnpm screenshots -- --share --out /tmp/shots    only a share link's pages (laptop, phone and 640 x 400,
 *                                                 light and dark): the ended lesson's share dialog, the
 *                                                 viewer's board and its replay timeline scrubbed halfway
 *
 *   pnpm screenshots -- --pages --out /tmp/shots   only pages and the lesson library (issue 39) at laptop,
 *                                                 phone and 640 x 400, light and dark; the README's pair,
 *                                                 `pages.png` and `library.png`, into docs/screenshots
 *   pnpm screenshots -- --imported                 only a PDF imported as pages, as it opens: the teacher's
 *                                                 page and a student's at laptop, phone (touch) and
 *                                                 640 x 400, light and dark, `pages-imported-*.png`,
 *                                                 opened at http://classroom.test (not a secure context);
 *                                                 the teacher's page actions open (`*-actions.png`) and,
 *                                                 at 640 x 400, the lesson's More menu (`*-more.png`)
 *
 * Starts its own server on SCREENSHOT_PORT (default 3340) over a fresh embedded database, and
 * stops it when done.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from '@playwright/test';
import { fillClass } from '../e2e/classroom.ts';
import { connectMember, createElements, type MemberSocket } from '../e2e/roomSeed.ts';
import { worksheetPdf } from '../e2e/worksheetPdf.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import type { ElementShape, SessionGrant } from '@wb/protocol';
import { ClientEvent } from '@wb/protocol';
import { CLASSROOM_HOST } from '../e2e/origins.ts';

const root = resolve(import.meta.dirname, '..');
const port = Number(process.env.SCREENSHOT_PORT ?? 3340);
const baseUrl = `http://127.0.0.1:${port}`;
const args = process.argv.slice(2);
const all = args.includes('--all');
const editing = args.includes('--editing');
const boards = args.includes('--boards');
const checks = args.includes('--checks');
const languages = args.includes('--languages');
const feedback = args.includes('--feedback');
const rough = args.includes('--rough');
const share = args.includes('--share');
const pagesOnly = args.includes('--pages');
const imported = args.includes('--imported');
const outAt = args.indexOf('--out');
const outDir = resolve(outAt >= 0 && args[outAt + 1] ? args[outAt + 1]! : join(root, 'docs/screenshots'));

const sizes: Record<string, BrowserContextOptions> = {
  laptop: { viewport: { width: 1280, height: 800 } },
  tablet: { viewport: { width: 1024, height: 768 }, hasTouch: true },
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 },
  zoom200: { viewport: { width: 640, height: 400 } },
};

async function waitReady(): Promise<void> {
  // Generous: the first start creates the embedded database, slow on a busy machine.
  for (let i = 0; i < 960; i++) {
    try {
      if ((await fetch(`${baseUrl}/readyz`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('server did not become ready');
}

async function startLesson(browser: Browser, options: BrowserContextOptions): Promise<{ page: Page; code: string }> {
  const page = await (await browser.newContext(options)).newPage();
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('Your name').fill('Ms Rivera');
  await page.getByLabel('Lesson title (optional)').fill('Fractions, week 3');
  await page.getByRole('button', { name: 'Start lesson' }).click();
  await page.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  await page.getByTestId('connection-status').and(page.locator('[data-state="live"]')).waitFor();
  return { page, code: /\/r\/([A-Z2-9]{6})$/.exec(page.url())![1]! };
}

/** A few shapes, so the board is not empty. */
async function draw(page: Page): Promise<void> {
  const box = (await page.getByTestId('board').boundingBox())!;
  const drag = async (tool: RegExp, x1: number, y1: number, x2: number, y2: number) => {
    await page.getByRole('button', { name: tool }).first().click();
    await page.mouse.move(box.x + x1, box.y + y1);
    await page.mouse.down();
    await page.mouse.move(box.x + x2, box.y + y2, { steps: 6 });
    await page.mouse.up();
  };
  await drag(/^Rectangle/, 330, 220, 560, 380);
  await drag(/^Ellipse/, 620, 240, 800, 400);
  await drag(/^Arrow/, 560, 300, 620, 320);
  await page.keyboard.press('Escape');
  // Saved, and no focus ring on the board: the picture of a lesson in progress.
  await page.getByTestId('unsynced').waitFor({ state: 'detached' });
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'apps/web/dist/index.html'))) throw new Error('build the web app first: pnpm build');
  mkdirSync(outDir, { recursive: true });
  const server = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      // The invitation as a teacher teaching from her laptop sees it (`pnpm start:class`): a LAN
      // address and its QR code. A made-up address, not this machine's.
      PUBLIC_URL: 'http://192.168.1.20:3000',
      PGLITE_DIR: join(mkdtempSync(join(tmpdir(), 'wb-shots-')), 'pglite'),
      LOG_LEVEL: 'warn',
    },
  });
  const system = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  // classroom.test resolves to this machine: a page opened there is not a secure context (I15).
  const browser = await chromium.launch({ ...(existsSync(system) ? { executablePath: system } : {}), args: ['--no-sandbox', '--disable-gpu', `--host-resolver-rules=MAP ${CLASSROOM_HOST} 127.0.0.1`] });
  try {
    await waitReady();
    if (feedback || rough || share || pagesOnly || imported) {
      if (feedback) await feedbackShots(browser);
      if (rough) await roughShots(browser);
      if (share) await shareShots(browser);
      if (pagesOnly) await pagesShots(browser);
      if (imported) await importedShots(browser);
      return;
    }
    const teacher = await startLesson(browser, sizes.laptop!);
    const students = await fillClass(baseUrl, teacher.code, 30);
    await draw(teacher.page);
    await teacher.page.getByTestId('roster-entry').nth(30).waitFor();
    await teacher.page.screenshot({ path: join(outDir, 'teacher-board.png') });

    const phone = await (await browser.newContext(sizes.phone)).newPage();
    await phone.goto(`${baseUrl}/r/${teacher.code}`);
    await phone.getByLabel('Your name').fill('Pat');
    await phone.getByRole('button', { name: 'Join lesson' }).click();
    await phone.getByTestId('connection-status').and(phone.locator('[data-state="live"]')).waitFor();
    await phone.screenshot({ path: join(outDir, 'phone.png') });

    if (all) {
      for (const [name, options] of Object.entries(sizes)) {
        for (const colorScheme of ['light', 'dark'] as const) {
          const context = await browser.newContext({ ...options, colorScheme });
          const page = await context.newPage();
          const t = await startLessonIn(page, teacher.code, name);
          await t.screenshot({ path: join(outDir, `${name}-${colorScheme}-student.png`) });
          await context.close();
        }
      }
      // The teacher's own tab, opened again at each size and theme (touch where the size has it).
      const grantKey = `wb.session.${teacher.code}`;
      const grant = await teacher.page.evaluate((k) => sessionStorage.getItem(k), grantKey);
      for (const [name, options] of Object.entries(sizes)) {
        for (const colorScheme of ['light', 'dark'] as const) {
          const context = await browser.newContext({ ...options, colorScheme });
          await context.addInitScript(([k, v]) => sessionStorage.setItem(k!, v!), [grantKey, grant!]);
          const page = await context.newPage();
          await page.goto(`${baseUrl}/r/${teacher.code}`);
          await page.getByTestId('connection-status').and(page.locator('[data-state="live"]')).waitFor();
          const shot = (what: string) => page.screenshot({ path: join(outDir, `${name}-${colorScheme}-teacher${what}.png`) });
          await shot('');
          // The projector view: the join code, link and QR code filling the screen.
          if (await page.locator('.topbar-show-code').isVisible()) {
            await page.locator('.topbar-show-code').click();
          } else {
            await page.getByRole('button', { name: 'More' }).click();
            await page.locator('.menu-show-code').click();
          }
          await page.getByTestId('join-qr').last().and(page.locator('[data-encodes]')).waitFor();
          await shot('-projector');
          await page.keyboard.press('Escape');
          const people = page.locator('.topbar-people');
          if ((await people.getAttribute('aria-expanded')) !== 'true') await people.click();
          await page.getByTestId('roster-entry').nth(30).waitFor();
          // A student's row menu open, as the teacher sees it before muting a pen.
          await page.getByTestId('roster-entry').nth(2).getByRole('button', { name: /^Actions for / }).click();
          await shot('-people');
          await page.keyboard.press('Escape');
          await page.getByRole('button', { name: 'More' }).click();
          await shot('-more');
          await context.close();
        }
      }
    }
    if (editing) {
      const grantKey = `wb.session.${teacher.code}`;
      const grant = await teacher.page.evaluate((k) => sessionStorage.getItem(k), grantKey);
      for (const [name, options] of Object.entries(sizes)) {
        const context = await browser.newContext(options);
        await context.addInitScript(([k, v]) => sessionStorage.setItem(k!, v!), [grantKey, grant!]);
        const page = await context.newPage();
        await page.goto(`${baseUrl}/r/${teacher.code}`);
        await page.getByTestId('connection-status').and(page.locator('[data-state="live"]')).waitFor();
        await editingShots(page, name);
        await context.close();
      }
    }
    if (languages) await languageShots(browser, teacher);
    if (boards) await boardShots(browser, teacher);
    if (checks) await checksShots(browser, teacher, students.sockets);
    students.close();
  } finally {
    await browser.close();
    server.kill('SIGTERM');
  }
  console.log(`screenshots in ${outDir}`);
}

const shapesFor = (n: number): ElementShape[] => [
  { kind: 'rect', x: -300 + n * 40, y: -150, w: 260, h: 160, stroke: '#1971c2', fill: 'transparent', strokeWidth: 4 },
  { kind: 'ellipse', x: 60, y: -120 + n * 30, w: 200, h: 140, stroke: '#e8590c', fill: 'transparent', strokeWidth: 4 },
  { kind: 'pen', x: -200, y: 80, points: Array.from({ length: 40 }, (_, k) => [k * 12, Math.sin(k / 4 + n) * 40, 0.5] as [number, number, number]), stroke: '#2f9e44', strokeWidth: 5 },
];

/**
 * Pages (issue 39): a three-page lesson with the strip, as the teacher and as a paced student sees
 * it, at each size and theme; then the lesson library of a signed-in teacher with three lessons.
 */
async function pagesShots(browser: Browser): Promise<void> {
  const readme = join(root, 'docs/screenshots');
  const post = async <T>(path: string, body: unknown, cookie?: string): Promise<{ body: T; cookie: string | null }> => {
    const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return { body: (await res.json()) as T, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? null };
  };
  // A signed-in teacher with three lessons, each a few pages with something on them.
  const email = `pages-${randomBytes(4).toString('hex')}@school.example`;
  const signedUp = await post('/api/teacher/sign-up', { email, password: 'correct horse battery', displayName: 'Ms Rivera' });
  const cookie = signedUp.cookie!;
  const lessons: SessionGrant[] = [];
  for (const [i, title] of ['Fractions, week 3', 'Photosynthesis', 'Reading: The Lighthouse'].entries()) {
    const made = await post<SessionGrant>('/api/rooms', { teacherName: 'Ms Rivera', memberKey: randomBytes(24).toString('base64url'), title, ...(i === 2 ? { prepare: true } : {}) }, cookie);
    lessons.push(made.body);
    const socket = await connectMember(baseUrl, made.body);
    await createElements([socket], shapesFor(i));
    let after = made.body.room.id;
    for (let p = 0; p < 2 + i; p++) {
      const pageId = randomUUID();
      await socket.emitWithAck(ClientEvent.PAGE_ADD, { pageId, afterPageId: after, background: (['lined', 'grid', 'graph'] as const)[p % 3] });
      after = pageId;
      for (const shape of shapesFor(p + 1)) {
        await socket.emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: randomBytes(12).toString('base64url'), id: randomUUID(), shape, boardId: pageId });
      }
    }
    await socket.emitWithAck(ClientEvent.PAGE_GOTO, { pageId: made.body.room.id });
    socket.close();
  }
  const lesson = lessons[0]!;
  const pageSizes = { laptop: sizes.laptop!, phone: sizes.phone!, zoom200: sizes.zoom200! };
  for (const [name, options] of Object.entries(pageSizes)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      // The teacher, on page 2 of the lesson.
      const context = await browser.newContext({ ...options, colorScheme });
      await context.addInitScript(([k, v]) => sessionStorage.setItem(k!, v!), [`wb.session.${lesson.room.code}`, JSON.stringify(lesson)]);
      const t = await context.newPage();
      await t.goto(`${baseUrl}/r/${lesson.room.code}`);
      await t.getByTestId('connection-status').and(t.locator('[data-state="live"]')).waitFor();
      const strip = t.getByRole('navigation', { name: 'Pages' });
      await strip.getByRole('button', { name: 'Page 2', exact: true }).click();
      await t.getByRole('application', { name: 'Page 2' }).waitFor();
      await t.waitForTimeout(300);
      await t.screenshot({ path: join(outDir, `pages-${name}-${colorScheme}-teacher.png`) });
      if (name === 'laptop' && colorScheme === 'light') await t.screenshot({ path: join(readme, 'pages.png') });
      // A paced student on the teacher's page.
      const sc = await browser.newContext({ ...options, colorScheme });
      const st = await sc.newPage();
      await st.goto(`${baseUrl}/r/${lesson.room.code}`);
      await st.getByLabel('Your name').fill(`Pat ${name} ${colorScheme}`);
      await st.getByRole('button', { name: 'Join lesson' }).click();
      await st.getByRole('application', { name: 'Page 2' }).waitFor();
      await st.waitForTimeout(300);
      await st.screenshot({ path: join(outDir, `pages-${name}-${colorScheme}-student.png`) });
      await sc.close();
      await context.close();
      // The library.
      const lc = await browser.newContext({ ...options, colorScheme });
      await lc.addCookies([{ name: cookie.split('=')[0]!, value: cookie.split('=').slice(1).join('='), url: baseUrl }]);
      const lib = await lc.newPage();
      await lib.goto(`${baseUrl}/teacher`);
      await lib.getByTestId('teacher-room').nth(2).waitFor();
      // Thumbnails load once their row is on screen.
      for (let r = 0; r < 3; r++) await lib.getByTestId('teacher-room').nth(r).scrollIntoViewIfNeeded();
      await lib.locator('.lesson-thumb[data-elements="3"]').first().waitFor();
      await lib.waitForTimeout(300);
      await lib.screenshot({ path: join(outDir, `library-${name}-${colorScheme}.png`), fullPage: true });
      if (name === 'laptop' && colorScheme === 'light') await lib.screenshot({ path: join(readme, 'library.png') });
      await lc.close();
    }
  }
}

/**
 * A two-page worksheet PDF imported by the teacher (issue 39), as the page it becomes opens: the
 * picture shown whole in the board's visible area, clear of the top bar and the pages strip, on the
 * teacher's screen and on a student's (paced, so taken there) at each size, light and dark; then
 * the teacher's page actions open, and at 640 x 400 the lesson's More menu.
 */
async function importedShots(browser: Browser): Promise<void> {
  const origin = `http://${CLASSROOM_HOST}:${port}`;
  const importedSizes = { laptop: sizes.laptop!, phone: sizes.phone!, zoom200: sizes.zoom200! };
  for (const [name, options] of Object.entries(importedSizes)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ ...options, colorScheme });
      const t = await context.newPage();
      await t.goto(`${origin}/`);
      await t.getByLabel('Your name').fill('Ms Rivera');
      await t.getByLabel('Lesson title (optional)').fill('Fractions, week 3');
      await t.getByRole('button', { name: 'Start lesson' }).click();
      await t.waitForURL(/\/r\/[A-Z2-9]{6}$/);
      await t.getByTestId('connection-status').and(t.locator('[data-state="live"]')).waitFor();
      const code = /\/r\/([A-Z2-9]{6})$/.exec(t.url())![1]!;
      const sc = await browser.newContext({ ...options, colorScheme });
      const st = await sc.newPage();
      await st.goto(`${origin}/r/${code}`);
      await st.getByLabel('Your name').fill('Pat');
      await st.getByRole('button', { name: 'Join lesson' }).click();
      await st.getByTestId('connection-status').and(st.locator('[data-state="live"]')).waitFor();
      await t.getByTestId('image-file').setInputFiles({ name: 'worksheet.pdf', mimeType: 'application/pdf', buffer: worksheetPdf(2) });
      for (const page of [t, st]) {
        await page.getByRole('application', { name: 'Page 2' }).locator('[data-testid="element"][data-kind="image"]').waitFor({ timeout: 60_000 });
      }
      await t.getByTestId('pdf-import').waitFor({ state: 'hidden', timeout: 60_000 });
      // The pictures decoded and drawn.
      await t.waitForTimeout(800);
      await t.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await t.screenshot({ path: join(outDir, `pages-imported-teacher-${name}-${colorScheme}.png`) });
      await st.screenshot({ path: join(outDir, `pages-imported-student-${name}-${colorScheme}.png`) });
      // The teacher's page actions open from the strip's one button.
      const actions = t.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Page actions' });
      await actions.click();
      await t.getByRole('group', { name: 'Page actions' }).waitFor();
      await t.screenshot({ path: join(outDir, `pages-imported-teacher-${name}-${colorScheme}-actions.png`) });
      await t.keyboard.press('Escape');
      // The lesson's More menu where the window is shortest (two columns, LessonPage.css).
      if (name === 'zoom200') {
        await t.getByRole('button', { name: 'More' }).click();
        await t.locator('#topbar-menu').getByRole('button', { name: 'Attendance', exact: true }).waitFor();
        await t.screenshot({ path: join(outDir, `pages-imported-teacher-${name}-${colorScheme}-more.png`) });
        await t.keyboard.press('Escape');
      }
      await sc.close();
      await context.close();
    }
  }
}

/** A catalog of the web app, for the words a language's page shows. */
const catalog = (locale: 'ar' | 'es'): Record<string, string> =>
  JSON.parse(readFileSync(join(root, `apps/web/src/i18n/locales/${locale}.json`), 'utf8')) as Record<string, string>;

/**
 * The lesson in Arabic, mirrored: the teacher's board with the class (a label in Arabic with a
 * number on it) at laptop size, and a student's phone; then the teacher's page in Spanish at
 * 640 x 400 (200 % zoom), where long words have the least room, with the menu open.
 */
async function languageShots(browser: Browser, teacher: { page: Page; code: string }): Promise<void> {
  const ar = catalog('ar');
  const es = catalog('es');
  const grantKey = `wb.session.${teacher.code}`;
  const grant = await teacher.page.evaluate((k) => sessionStorage.getItem(k), grantKey);
  const asTeacher = async (options: BrowserContextOptions, locale: string) => {
    const context = await browser.newContext({ ...options, locale });
    await context.addInitScript(([k, v]) => sessionStorage.setItem(k!, v!), [grantKey, grant!]);
    const page = await context.newPage();
    await page.goto(`${baseUrl}/r/${teacher.code}`);
    await page.getByTestId('connection-status').and(page.locator('[data-state="live"]')).waitFor();
    return page;
  };

  const laptop = await asTeacher(sizes.laptop!, 'ar-EG');
  await laptop.getByRole('button', { name: new RegExp(`^${ar['tool.text']} `) }).click();
  const box = (await laptop.getByTestId('board').boundingBox())!;
  await laptop.mouse.click(box.x + 640, box.y + 470);
  await laptop.getByTestId('text-editor').fill('12 طالبًا حاضرون اليوم');
  await laptop.getByTestId('text-editor').press('Enter');
  await laptop.getByTestId('unsynced').waitFor({ state: 'detached' });
  await laptop.keyboard.press('Escape');
  const people = laptop.locator('.topbar-people');
  if ((await people.getAttribute('aria-expanded')) !== 'true') await people.click();
  await laptop.getByTestId('roster-entry').nth(30).waitFor();
  await laptop.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await laptop.screenshot({ path: join(outDir, 'teacher-board-ar.png') });
  await laptop.context().close();

  const phone = await (await browser.newContext({ ...sizes.phone, locale: 'ar-EG' })).newPage();
  await phone.goto(`${baseUrl}/r/${teacher.code}`);
  await phone.getByLabel(ar['field.yourName']!).fill('ليلى');
  await phone.getByRole('button', { name: ar['join.submit'] }).click();
  await phone.getByTestId('connection-status').and(phone.locator('[data-state="live"]')).waitFor();
  await phone.screenshot({ path: join(outDir, 'phone-ar.png') });
  await phone.context().close();

  const small = await asTeacher(sizes.zoom200!, 'es-ES');
  await small.screenshot({ path: join(outDir, 'zoom200-es-teacher.png') });
  await small.getByRole('button', { name: es['lesson.more'] }).click();
  await small.screenshot({ path: join(outDir, 'zoom200-es-teacher-more.png') });
  await small.keyboard.press('Escape');
  const smallPeople = small.locator('.topbar-people');
  if ((await smallPeople.getAttribute('aria-expanded')) !== 'true') await smallPeople.click();
  await small.screenshot({ path: join(outDir, 'zoom200-es-teacher-people.png') });
  await small.context().close();
}

/**
 * Checking for understanding, laptop and phone, light and dark: a student's screen with the timer
 * and a poll's results shown to the class (a chart, no names), the teacher's class grid with flags
 * and the help queue, and the teacher's live poll over the class board. The class answers and
 * flags through its sockets, as thirty students would.
 */
async function checksShots(browser: Browser, teacher: { page: Page; code: string }, sockets: readonly MemberSocket[]): Promise<void> {
  const t = teacher.page;
  await t.getByRole('button', { name: 'Timer', exact: true }).click();
  await t.getByTestId('timer-dialog').getByRole('button', { name: '5 min' }).click();
  await t.getByRole('button', { name: 'Quick poll' }).click();
  const dialog = t.getByTestId('poll-dialog');
  await dialog.getByLabel('Question').fill('Which is bigger?');
  await dialog.getByText('My own choices').click();
  await dialog.getByLabel(/Choices, one a line/).fill('3/4\n2/3\nThey are equal');
  await dialog.getByRole('button', { name: 'Ask' }).click();
  await t.getByTestId('teacher-poll').waitFor();
  const polled = await sockets[0]!.emitWithAck(ClientEvent.POLL_GET, {});
  if (!polled.ok || !polled.poll) throw new Error('no poll');
  const pollId = polled.poll.id;
  // 24 of the 27 connected answer: most say 3/4.
  await Promise.all(sockets.slice(0, 24).map((s, i) => s.emitWithAck(ClientEvent.POLL_ANSWER, { requestId: `shot-${i}-answer`, pollId, choice: i % 5 === 0 ? 1 : i % 7 === 0 ? 2 : 0 })));
  await t.getByTestId('poll-answered').filter({ hasText: '24 of' }).waitFor();
  await t.getByTestId('teacher-poll').getByRole('button', { name: 'Show results to class' }).click();

  const grantKey = `wb.session.${teacher.code}`;
  const grant = await t.evaluate((k) => sessionStorage.getItem(k), grantKey);
  const students: Page[] = [];
  for (const name of ['laptop', 'phone'] as const) {
    const student = await (await browser.newContext(sizes[name])).newPage();
    await student.goto(`${baseUrl}/r/${teacher.code}`);
    await student.getByLabel('Your name').fill(`Pat ${name}`);
    await student.getByRole('button', { name: 'Join lesson' }).click();
    await student.getByTestId('student-poll').waitFor();
    await student.getByTestId('student-poll').getByRole('button', { name: '3/4' }).click();
    await student.getByTestId('poll-mine').filter({ hasText: 'Your answer' }).waitFor();
    students.push(student);
  }
  await t.getByTestId('teacher-poll').getByRole('button', { name: 'Close poll' }).click();
  for (const [i, name] of (['laptop', 'phone'] as const).entries()) {
    const student = students[i]!;
    await student.getByTestId('student-poll').getByTestId('poll-chart').waitFor();
    for (const colorScheme of ['light', 'dark'] as const) {
      await student.emulateMedia({ colorScheme });
      await student.waitForTimeout(200);
      await student.screenshot({ path: join(outDir, `checks-poll-${name}-${colorScheme}.png`) });
    }
  }
  // The teacher's live poll over the class board.
  for (const name of ['laptop', 'phone'] as const) {
    const context = await browser.newContext(sizes[name]);
    await context.addInitScript(([k, v]) => sessionStorage.setItem(k!, v!), [grantKey, grant!]);
    const page = await context.newPage();
    await page.goto(`${baseUrl}/r/${teacher.code}`);
    await page.getByTestId('poll-answered').filter({ hasText: '26 of' }).waitFor();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(outDir, `checks-teacher-poll-${name}-${colorScheme}.png`) });
    }
    await context.close();
  }
  await t.getByTestId('teacher-poll').getByRole('button', { name: 'Dismiss' }).click();

  // An activity: flags on the grid, help requests queued in order.
  await t.getByRole('button', { name: 'Start activity' }).click();
  await t.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  await t.getByTestId('board-tile').nth(28).waitFor();
  for (const [i, s] of sockets.slice(0, 12).entries()) {
    const mine = await s.emitWithAck(ClientEvent.BOARD_MINE, {});
    if (!mine.ok) continue;
    await s.emitWithAck(ClientEvent.BOARD_FLAG, { requestId: `shot-${i}-flag`, boardId: mine.board.id, flag: i % 3 === 0 ? 'help' : 'done' });
  }
  await t.getByTestId('help-request').nth(3).waitFor();
  for (const name of ['laptop', 'phone'] as const) {
    const context = await browser.newContext(sizes[name]);
    await context.addInitScript(([k, v]) => sessionStorage.setItem(k!, v!), [grantKey, grant!]);
    const page = await context.newPage();
    await page.goto(`${baseUrl}/r/${teacher.code}`);
    await page.getByTestId('help-request').nth(3).waitFor();
    await page.locator('.activity-sort select').first().selectOption('flag');
    await page.waitForTimeout(500);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(outDir, `checks-grid-${name}-${colorScheme}.png`) });
    }
    await context.close();
  }
  for (const student of students) await student.context().close();
}

/**
 * An activity (issue 22) at every size: the teacher's class grid of the 30 students (with a raised
 * hand, so the attention bar shows beside it), one board opened, and a student's own board.
 */
async function boardShots(browser: Browser, teacher: { page: Page; code: string }): Promise<void> {
  await teacher.page.getByRole('button', { name: 'Start activity' }).click();
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  await teacher.page.getByTestId('board-tile').nth(29).waitFor();
  const grantKey = `wb.session.${teacher.code}`;
  const grant = await teacher.page.evaluate((k) => sessionStorage.getItem(k), grantKey);
  for (const [name, options] of Object.entries(sizes)) {
    const student = await (await browser.newContext(options)).newPage();
    await student.goto(`${baseUrl}/r/${teacher.code}`);
    await student.getByLabel('Your name').fill(`Pat ${name}`);
    await student.getByRole('button', { name: 'Join lesson' }).click();
    const own = student.getByRole('application', { name: 'Your board' });
    await own.waitFor();
    const box = (await own.boundingBox())!;
    await student.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
    await student.mouse.down();
    await student.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6, { steps: 6 });
    await student.mouse.up();
    await student.screenshot({ path: join(outDir, `${name}-boards-student.png`) });
    // The student's board and its tools in the dark theme too.
    await student.emulateMedia({ colorScheme: 'dark' });
    await student.waitForTimeout(200);
    await student.screenshot({ path: join(outDir, `${name}-boards-student-dark.png`) });
    await student.emulateMedia({ colorScheme: 'light' });
    const hand = student.getByRole('button', { name: /raise hand/i });
    if (await hand.count()) await hand.first().dispatchEvent('click');

    const context = await browser.newContext(options);
    await context.addInitScript(([k, v]) => sessionStorage.setItem(k!, v!), [grantKey, grant!]);
    const page = await context.newPage();
    await page.goto(`${baseUrl}/r/${teacher.code}`);
    await page.getByTestId('board-tile').nth(30).waitFor();
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(outDir, `${name}-boards-grid.png`) });
    // The grid's tiles (each on its own compositor layer) in the dark theme too.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(outDir, `${name}-boards-grid-dark.png`) });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.locator(`[data-testid="board-tile"][data-owner="Pat ${name}"]`).click();
    await page.getByTestId('open-board').waitFor();
    await page.screenshot({ path: join(outDir, `${name}-boards-open.png`) });
    // The select tool on the opened board (the class board's): the student's stroke selected, its frame and handles.
    await page.keyboard.press('v');
    const stroke = (await page.getByTestId('board').locator('[data-testid="element"]').first().boundingBox())!;
    await page.mouse.click(stroke.x + stroke.width / 2, stroke.y + stroke.height / 2);
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(outDir, `${name}-boards-select.png`) });
    await context.close();
    await student.context().close();
  }
}

/**
 * The feedback screens at laptop and phone size in both themes, each from a lesson of its own: a
 * teacher, Ana and Ben; Ana's board opened and stamped, shown anonymously, her hand raised.
 */
async function feedbackShots(browser: Browser): Promise<void> {
  for (const name of ['laptop', 'phone'] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const options = { ...sizes[name]!, colorScheme };
      const shot = (page: Page, what: string) => page.screenshot({ path: join(outDir, `${name}-${colorScheme}-feedback-${what}.png`) });
      const teacher = await startLesson(browser, options);
      const ana = await startLessonIn(await (await browser.newContext(options)).newPage(), teacher.code, 'Ana');
      const ben = await startLessonIn(await (await browser.newContext(options)).newPage(), teacher.code, 'Ben');
      const t = teacher.page;
      const start = t.getByRole('button', { name: 'Start activity' });
      if (!(await start.isVisible())) await t.locator('.topbar-people').click();
      await start.click();
      await t.getByRole('dialog').getByLabel('Title').fill('Fractions');
      await shot(t, 'start');
      await t.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
      for (const s of [ana, ben]) {
        const own = s.getByRole('application', { name: 'Your board' });
        await own.waitFor();
        const box = (await own.boundingBox())!;
        await s.mouse.move(box.x + box.width * 0.25, box.y + box.height * 0.3);
        await s.mouse.down();
        await s.mouse.move(box.x + box.width * 0.45, box.y + box.height * 0.5, { steps: 6 });
        await s.mouse.up();
      }
      await t.locator('[data-testid="board-tile"][data-owner="Guest Ana"]').click();
      await t.getByRole('button', { name: 'Stamp tick' }).click();
      await t.getByRole('button', { name: 'Stamp star' }).click();
      await ana.locator('[data-testid="element"][data-kind="text"]').nth(1).waitFor();
      await shot(t, 'open');
      await t.getByRole('button', { name: 'Show anonymously' }).click();
      await ben.getByTestId('shown-boards').getByRole('img').waitFor();
      await ana.waitForTimeout(300);
      await shot(ana, 'shown-student');
      await shot(ben, 'classmate');
      await t.getByRole('button', { name: 'Back to grid' }).click();
      await t.getByRole('button', { name: 'End activity' }).click();
      await shot(t, 'end-confirm');
      await t.getByRole('button', { name: 'Keep going' }).click();
      await ana.getByTestId('raise-hand').click();
      await t.getByRole('button', { name: 'Class board' }).click();
      const people = t.locator('.topbar-people');
      if ((await people.getAttribute('aria-expanded')) !== 'true') await people.click();
      await t.getByTestId('roster-hand').waitFor();
      await shot(t, 'people');
      // Ended, and the undo the teacher gets (Reopen activity).
      const grid = t.getByRole('button', { name: /^Class grid/ });
      if (!(await grid.isVisible())) await people.click();
      await grid.click();
      await t.getByRole('button', { name: 'End activity' }).click();
      await t.getByRole('group', { name: /End the activity for everyone/ }).getByRole('button', { name: 'End activity' }).click();
      await t.getByTestId('activity-ended').waitFor();
      await shot(t, 'ended-reopen');
      for (const page of [t, ana, ben]) await page.context().close();
    }
  }
}

/** The lesson's rough edges at laptop and phone size, both themes, each from a lesson of its own. */
async function roughShots(browser: Browser): Promise<void> {
  for (const name of ['laptop', 'phone'] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const options = { ...sizes[name]!, colorScheme };
      const shot = (page: Page, what: string) => page.screenshot({ path: join(outDir, `${name}-${colorScheme}-rough-${what}.png`) });
      const teacher = await startLesson(browser, options);
      const t = teacher.page;
      await draw(t);
      const ana = await startLessonIn(await (await browser.newContext(options)).newPage(), teacher.code, 'Ana');
      // Ana tries to erase the teacher's shape: the refusal's toast, beside her attention bar and hand.
      await ana.getByRole('button', { name: /^Eraser/ }).first().click().catch(() => ana.keyboard.press('e'));
      const shape = ana.locator('[data-testid="element"]').first();
      const box = (await shape.boundingBox())!;
      await ana.mouse.move(box.x + 2, box.y + box.height / 2);
      await ana.mouse.down();
      await ana.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 4 });
      await ana.mouse.up();
      await ana.getByTestId('board-notice').waitFor().catch(() => {});
      await shot(ana, 'toast');
      // The teacher's More menu open (where the bar folds its actions away), and the pen's colours.
      await t.getByRole('button', { name: /^Pen/ }).first().click().catch(() => t.keyboard.press('p'));
      const more = t.getByRole('button', { name: 'More' });
      if (await more.isVisible()) await more.click();
      await shot(t, 'menu');
      await t.keyboard.press('Escape');
      // The attendance report.
      const item = t.locator('#topbar-menu').getByRole('button', { name: 'Attendance', exact: true });
      if (!(await item.isVisible())) await more.click();
      await item.click();
      await t.getByTestId('attendance-row').first().waitFor();
      await shot(t, 'attendance');
      await t.keyboard.press('Escape');
      // The lesson ended: the teacher's banner over the board.
      const end = t.locator('#topbar-menu').getByRole('button', { name: 'End lesson', exact: true });
      if (!(await end.isVisible())) await more.click();
      await end.click();
      await t.getByRole('dialog').getByRole('button', { name: 'End lesson' }).click();
      await t.getByTestId('lesson-ended').waitFor();
      await shot(t, 'ended');
      for (const page of [t, ana]) await page.context().close();
    }
  }
}

/**
 * A share link (issue 39): the teacher's share dialog at laptop size, then the viewer's page at
 * three sizes in both themes, its board and its replay scrubbed halfway, from one ended lesson.
 */
async function shareShots(browser: Browser): Promise<void> {
  const teacher = await startLesson(browser, sizes.laptop!);
  const t = teacher.page;
  await draw(t);
  const ana = await startLessonIn(await (await browser.newContext(sizes.laptop!)).newPage(), teacher.code, 'Ana');
  await ana.getByRole('button', { name: /^Pen/ }).first().click();
  const box = (await ana.getByTestId('board').boundingBox())!;
  for (let i = 0; i < 4; i++) {
    await ana.mouse.move(box.x + 360 + i * 60, box.y + 460);
    await ana.mouse.down();
    await ana.mouse.move(box.x + 390 + i * 60, box.y + 420, { steps: 5 });
    await ana.mouse.move(box.x + 410 + i * 60, box.y + 480, { steps: 5 });
    await ana.mouse.up();
  }
  await ana.getByTestId('unsynced').waitFor({ state: 'detached' });
  const more = t.getByRole('button', { name: 'More' });
  const end = t.locator('#topbar-menu').getByRole('button', { name: 'End lesson', exact: true });
  if (!(await end.isVisible())) await more.click();
  await end.click();
  await t.getByRole('dialog').getByRole('button', { name: 'End lesson' }).click();
  await t.getByTestId('lesson-ended').waitFor();
  await t.getByTestId('share-open').click();
  const dialog = t.getByTestId('share-dialog');
  await dialog.getByRole('checkbox', { name: 'Replay of how each board was built' }).check();
  await dialog.getByTestId('share-make').click();
  const url = (await dialog.getByTestId('share-url').inputValue()).replace(/^https?:\/\/[^/]+/, baseUrl);
  for (const colorScheme of ['light', 'dark'] as const) {
    await t.emulateMedia({ colorScheme });
    // The buttons' colour transitions end first.
    await t.waitForTimeout(300);
    await t.screenshot({ path: join(outDir, `laptop-${colorScheme}-share-dialog.png`) });
  }
  // The teacher's own replay of the lesson, scrubbed halfway.
  await dialog.getByRole('button', { name: 'Close' }).click();
  await t.getByTestId('replay-open').click();
  const replay = t.getByTestId('replay-dialog');
  await replay.getByTestId('replay-status').filter({ hasText: /^Step 7 of 7$/ }).waitFor();
  await replay.getByTestId('replay-timeline').fill('4');
  for (const colorScheme of ['light', 'dark'] as const) {
    await t.emulateMedia({ colorScheme });
    await t.waitForTimeout(300);
    await t.screenshot({ path: join(outDir, `laptop-${colorScheme}-teacher-replay.png`) });
  }
  await replay.getByRole('button', { name: 'Close' }).click();
  for (const name of ['laptop', 'phone', 'zoom200'] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const viewer = await (await browser.newContext({ ...sizes[name]!, colorScheme })).newPage();
      await viewer.goto(url);
      await viewer.getByTestId('shared-board').and(viewer.locator(':not([data-elements="0"])')).waitFor();
      await viewer.screenshot({ path: join(outDir, `${name}-${colorScheme}-shared-board.png`) });
      await viewer.getByTestId('shared-replay').click();
      await viewer.getByTestId('replay-status').filter({ hasText: /^Step 7 of 7$/ }).waitFor();
      await viewer.getByTestId('replay-timeline').fill('4');
      await viewer.screenshot({ path: join(outDir, `${name}-${colorScheme}-shared-replay.png`) });
      await viewer.context().close();
    }
  }
  for (const page of [t, ana]) await page.context().close();
}

/** A note's text choices, a note being typed, and a turned note selected with its handles. */
async function editingShots(page: Page, name: string): Promise<void> {
  const shot = (what: string) => page.screenshot({ path: join(outDir, `${name}-editing-${what}.png`) });
  const box = (await page.getByTestId('board').boundingBox())!;
  const spot = { x: box.x + box.width * 0.3, y: box.y + box.height * 0.35 };
  await page.getByRole('button', { name: 'Sticky note (S)' }).click();
  const popover = page.getByRole('button', { name: 'Colour and stroke' });
  if (await popover.isVisible()) await popover.click();
  await page.getByRole('button', { name: 'Note Blue' }).click();
  await shot('note-choices');
  if (await popover.isVisible()) await popover.click();
  await page.mouse.click(spot.x, spot.y);
  await page.keyboard.type('Homework');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('page 12');
  await shot('typing');
  await page.keyboard.press('Enter');
  // Saved first: a lock is asked of the server, which must have the note.
  await page.getByTestId('unsynced').waitFor({ state: 'detached' });
  await page.getByRole('button', { name: /^Select and move/ }).click();
  // The new note is selected: turn it a little from its rotate handle.
  const handle = page.locator('[data-testid="handle"][data-handle="rotate"]');
  const h = (await handle.boundingBox())!;
  await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
  await page.mouse.down();
  await page.mouse.move(h.x + h.width / 2 + 60, h.y + h.height / 2 + 10, { steps: 6 });
  await page.mouse.up();
  await page.getByTestId('unsynced').waitFor({ state: 'detached' });
  await shot('handles');
}

async function startLessonIn(page: Page, code: string, name: string): Promise<Page> {
  await page.goto(`${baseUrl}/r/${code}`);
  await page.getByLabel('Your name').fill(`Guest ${name}`);
  await page.getByRole('button', { name: 'Join lesson' }).click();
  await page.getByTestId('connection-status').and(page.locator('[data-state="live"]')).waitFor();
  return page;
}

await main();
