/**
 * The multi-node journeys in real browsers: two server processes on one Postgres database and one
 * Redis (each run its own key prefix), the teacher on node A and students on node B, so every
 * event, drag and view between them crosses the Redis adapter. Pages open the nodes as
 * http://classroom.test:<port>, a non-secure origin as a school's network serves it (I15); the
 * project maps the name to 127.0.0.1 (playwright.config.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { elementsOf, hashOf } from './boardHook.ts';
import { createDrillDatabase, postgresSkipReason, startDrillServer, type DrillServer } from './drill/drillServer.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

/** Why two nodes cannot run here, or null; on CI a missing Postgres or Redis fails instead. */
function clusterSkipReason(): string | null {
  const postgres = postgresSkipReason();
  if (postgres) return postgres;
  if (process.env.TEST_REDIS_URL) return null;
  if (process.env.CI) throw new Error('CI is set but TEST_REDIS_URL is not: the two-node journeys must run on CI.');
  return 'TEST_REDIS_URL is not set';
}

const skip = clusterSkipReason();
/** The name pages open the nodes by (E2E_CLUSTER_HOST=127.0.0.1: a secure-context loopback, to compare). */
const HOST = process.env.E2E_CLUSTER_HOST ?? 'classroom.test';

async function at(page: Page, x: number, y: number) {
  const box = (await page.getByTestId('board').boundingBox())!;
  return { x: box.x + x, y: box.y + y };
}

/** A rectangle; `filled`, so a press in its middle grabs it. */
async function drawRect(page: Page, from: [number, number], to: [number, number], filled = false) {
  if (filled) await page.getByRole('button', { name: /^Fill shapes/ }).click();
  await page.getByRole('button', { name: 'Rectangle (R)' }).click();
  const a = await at(page, ...from);
  const b = await at(page, ...to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 5 });
  await page.mouse.up();
  await page.getByRole('button', { name: /^Select and move/ }).click();
}

async function strokeOn(page: Page, board: ReturnType<Page['locator']>, from: [number, number], to: [number, number]) {
  const box = (await board.boundingBox())!;
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * to[0], box.y + box.height * to[1], { steps: 8 });
  await page.mouse.up();
}

test.describe(`two nodes, one Postgres, one Redis${skip ? ` (skipped: ${skip})` : ''}`, () => {
  test.skip(skip !== null, skip ?? '');
  test.describe.configure({ timeout: 180_000 });
  const nodes: DrillServer[] = [];
  let database: { url: string; drop(): Promise<void> } | null = null;
  /** Node A's and node B's origins as the pages open them. */
  let nodeA = '';
  let nodeB = '';

  test.beforeAll(async () => {
    test.setTimeout(320_000);
    database = await createDrillDatabase();
    const env = { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: `e2e-${randomBytes(4).toString('hex')}` };
    // One after the other: the first migrates the database, the second finds it migrated.
    for (let i = 0; i < 2; i++) nodes.push(await startDrillServer('postgres', { databaseUrl: database.url, env }));
    nodeA = nodes[0]!.url.replace('127.0.0.1', HOST);
    nodeB = nodes[1]!.url.replace('127.0.0.1', HOST);
  });
  test.afterAll(async () => {
    for (const node of nodes) await node.stop();
    await database?.drop();
  });

  test('follow: a student on node B is brought to the view of the teacher on node A', async ({ browser }) => {
    const teacher = await startLesson(browser, 'Ms Rivera', nodeA);
    const ana = await joinLesson(browser, teacher.code, 'Ana', nodeB);
    await drawRect(teacher.page, [500, 420], [620, 500]);
    await expect(ana.page.getByTestId('element')).toHaveCount(1);
    // The teacher pans away from where the students look, then brings everyone.
    await teacher.page.getByTestId('board').focus();
    await teacher.page.keyboard.press('Escape');
    for (let i = 0; i < 6; i++) await teacher.page.keyboard.press('ArrowRight');
    const mark = (await teacher.page.getByTestId('element').boundingBox())!;
    expect(Math.abs((await ana.page.getByTestId('element').boundingBox())!.x - mark.x)).toBeGreaterThan(100);
    await teacher.page.getByRole('button', { name: 'Bring everyone to me' }).click();
    // Same window size: Ana's view is now the teacher's, the mark where the teacher sees it.
    await expect.poll(async () => Math.round(((await ana.page.getByTestId('element').boundingBox())?.x ?? 0) - mark.x)).toBe(0);
    await expect.poll(async () => Math.round(((await ana.page.getByTestId('element').boundingBox())?.y ?? 0) - mark.y)).toBe(0);
  });

  test('locks: a drag on node B holds the element on node A; its commit lands on both', async ({ browser }) => {
    const teacher = await startLesson(browser, 'Ms Rivera', nodeA);
    const ana = await joinLesson(browser, teacher.code, 'Ana', nodeB);
    await teacher.page.getByTestId('edit-policy').selectOption('everyone');
    await drawRect(teacher.page, [300, 200], [400, 280], true);
    await expect.poll(async () => (await elementsOf(ana.page)).length).toBe(1);
    await ana.page.getByRole('button', { name: /^Select and move/ }).click();

    // Ana (node B) grabs the rectangle and drags; the teacher (node A) sees it held by Ana.
    const grab = await at(ana.page, 350, 240);
    await ana.page.mouse.move(grab.x, grab.y);
    await ana.page.mouse.down();
    await ana.page.mouse.move(grab.x + 40, grab.y + 30, { steps: 6 });
    const outline = teacher.page.getByTestId('lock-outline');
    await expect(outline).toContainText('Ana');
    // The drag's live preview (lock.move, volatile: it crosses nodes through Redis only) moves it there.
    const rect = teacher.page.locator('[data-testid="element"][data-kind="rect"]');
    await expect.poll(async () => (await rect.getAttribute('transform')) ?? '').toMatch(/translate\(4\d(\.\d+)? 3\d/);
    // The teacher's own grab is refused by the lock node B granted.
    const tGrab = await at(teacher.page, 350, 240);
    await teacher.page.mouse.move(tGrab.x + 40, tGrab.y + 30);
    await teacher.page.mouse.down();
    await expect(teacher.page.getByTestId('board')).toHaveAttribute('data-refused', 'locked');
    await teacher.page.mouse.up();

    await ana.page.mouse.move(grab.x + 60, grab.y + 40, { steps: 3 });
    await ana.page.mouse.up();
    await expect.poll(async () => (await elementsOf(teacher.page))[0]).toMatchObject({ x: 360, y: 240, lockedBy: null });
    await expect(outline).toHaveCount(0);
    await expect.poll(async () => (await hashOf(ana.page)) === (await hashOf(teacher.page))).toBe(true);
  });

  test("private boards: students on both nodes draw on their own boards; the teacher's grid on node A shows both, no student sees another's", async ({ browser }) => {
    const teacher = await startLesson(browser, 'Ms Rivera', nodeA);
    const students = [
      { name: 'Ana', ...(await joinLesson(browser, teacher.code, 'Ana', nodeB)) },
      { name: 'Ben', ...(await joinLesson(browser, teacher.code, 'Ben', nodeA)) },
    ];
    await teacher.page.getByRole('button', { name: 'Start activity' }).click();
    await teacher.page.getByRole('dialog').getByLabel('Title').fill('Fractions');
    await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
    for (const s of students) {
      // The page's one board, the class board's editor over the student's own board.
      const own = s.page.getByRole('application', { name: 'Your board' });
      await strokeOn(s.page, own, [0.2, 0.3], [0.5, 0.6]);
      await expect(own.locator('[data-testid="element"]')).toHaveCount(1);
    }
    const grid = teacher.page.getByTestId('class-grid');
    for (const s of students) {
      await expect(grid.locator(`[data-testid="board-tile"][data-owner="${s.name}"]`).getByRole('img', { name: `${s.name}'s board, 1 stroke` })).toHaveAttribute('data-elements', '1');
    }
    // I12 across nodes: each student's page holds one board, their own.
    for (const s of students) {
      const boards = s.page.locator('[data-board-id]');
      await expect(boards).toHaveCount(1);
      const theirs = await grid.locator(`[data-testid="tile-board"][data-owner="${s.name}"]`).getAttribute('data-board-id');
      await expect(boards).toHaveAttribute('data-board-id', theirs!);
    }
  });
});
