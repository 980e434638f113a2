import type { Page, Response } from '@playwright/test';
import { axeScan } from './axe.ts';
import { elementsOf } from './boardHook.ts';
import { expect, fromLessonMenu, joinLesson, startLesson, test } from './support.ts';

/** Issue 39 parts 5 and 6: a read-only link to an ended lesson for absent students, and replay. */

async function drawRect(page: Page, from: [number, number], to: [number, number]) {
  await page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name: /^Rectangle/ }).click();
  const box = (await page.getByTestId('board').boundingBox())!;
  await page.mouse.move(box.x + from[0], box.y + from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + to[0], box.y + to[1], { steps: 6 });
  await page.mouse.up();
}

test('the teacher shares an ended lesson; an anonymous viewer sees the board without names, scrubs its replay, and is refused once the link is off', async ({ browser }) => {
  test.setTimeout(120_000);
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Anastasia');
  await drawRect(teacher.page, [120, 160], [260, 240]);
  await expect.poll(async () => (await elementsOf(ana.page)).length).toBe(1);
  await drawRect(ana.page, [320, 180], [420, 300]);
  await expect.poll(async () => (await elementsOf(teacher.page)).length).toBe(2);
  const ids = await teacher.page.getByTestId('roster-entry').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-user-id')).filter((id): id is string => id !== null));
  expect(ids.length).toBe(2);

  await fromLessonMenu(teacher.page, 'End lesson');
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'End lesson' }).click();
  await expect(teacher.page.getByTestId('lesson-ended')).toBeVisible();

  // The teacher makes a link that includes replay, and nothing else.
  await teacher.page.getByTestId('share-open').click();
  const dialog = teacher.page.getByTestId('share-dialog');
  await expect(dialog.getByRole('checkbox', { name: "Students' names" })).not.toBeChecked();
  await expect(dialog.getByRole('checkbox', { name: "Students' private boards" })).not.toBeChecked();
  await dialog.getByRole('checkbox', { name: 'Replay of how each board was built' }).check();
  await dialog.getByTestId('share-make').click();
  const url = await dialog.getByTestId('share-url').inputValue();
  expect(url).toMatch(/\/shared\/[A-Za-z0-9_-]{43}$/);

  // A browser with no account and no session opens it; everything it reads is checked on the wire.
  const viewer = await (await browser.newContext()).newPage();
  const bodies: string[] = [];
  viewer.on('response', (response: Response) => {
    if (response.url().includes('/api/shared/')) void response.text().then((text) => bodies.push(text), () => {});
  });
  const sockets: string[] = [];
  viewer.on('websocket', (ws) => sockets.push(ws.url()));
  await viewer.goto(url);
  await expect(viewer.getByRole('heading', { name: "Ms Rivera's lesson" })).toBeVisible();
  const board = viewer.getByTestId('shared-board');
  await expect(board).toHaveAttribute('data-elements', '2');
  await expect(viewer.locator('[data-testid="element-layer"] g[data-layer="elements"] > g')).toHaveCount(2);
  await expect(viewer.getByText('Anastasia')).toHaveCount(0);

  // Replay: the final board, then scrubbed back step by step, then played at 16x to the end.
  await viewer.getByTestId('shared-replay').click();
  const timeline = viewer.getByTestId('replay-timeline');
  await expect(viewer.getByTestId('replay-status')).toHaveText('Step 2 of 2');
  await expect(board).toHaveAttribute('data-elements', '2');
  await timeline.fill('1');
  await expect(board).toHaveAttribute('data-elements', '1');
  await timeline.fill('0');
  await expect(board).toHaveAttribute('data-elements', '0');
  await viewer.getByRole('button', { name: '16×' }).click();
  await viewer.getByRole('button', { name: 'Play', exact: true }).click();
  await expect(viewer.getByTestId('replay-status')).toHaveText('Step 2 of 2');
  await expect(board).toHaveAttribute('data-elements', '2');

  // The viewer's page and its replay bar pass WCAG 2.1 AA as axe checks it.
  expect((await axeScan(viewer, {})).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  expect(sockets).toEqual([]);
  await expect.poll(() => bodies.length).toBeGreaterThanOrEqual(3);
  for (const body of bodies) {
    for (const secret of [...ids, 'Anastasia', 'createdBy', 'updatedBy', 'sessionId', '"by"']) expect(body).not.toContain(secret);
  }

  // The teacher replays too, from the ended lesson.
  await dialog.getByRole('button', { name: 'Close' }).click();
  await teacher.page.getByTestId('replay-open').click();
  await expect(teacher.page.getByTestId('replay-dialog').getByTestId('replay-status')).toHaveText('Step 2 of 2');
  await teacher.page.getByTestId('replay-dialog').getByRole('button', { name: 'Close' }).click();

  // Turned off, the link shows nothing: the viewer's next visit gets the refusal.
  await teacher.page.getByTestId('share-open').click();
  await expect(dialog.getByTestId('share-on')).toBeVisible();
  await dialog.getByTestId('share-turn-off').click();
  await expect(dialog.getByRole('status')).toHaveText('The link is off. It no longer shows anything.');
  await viewer.reload();
  await expect(viewer.getByTestId('shared-refused')).toContainText('This link has been turned off. Ask your teacher for a new one.');
  await expect(viewer.getByTestId('shared-board')).toHaveCount(0);
});
