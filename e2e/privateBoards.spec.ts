/**
 * Private student boards and the teacher's class grid (issue 22, docs/boards.md), in real
 * browsers: a teacher and three students. The teacher starts an activity, each student draws on
 * their own board, the teacher's grid shows the three drawings live, the teacher comments on one
 * and shows it to the class, and another student then sees it. Before that, no student's page
 * holds another's board (I12: checked in the DOM, with a screenshot of each student's screen). The
 * teacher sees the student's pointer on the board they opened, and live ink both ways: a student's
 * stroke grows on the grid's tile and the open board before the pen lifts, the teacher's on the
 * student's board, and on no other student's page. The teacher's select tool moves a stroke on the
 * student's board under its drag lock. Every board is drawn by the same Board (issue 37): the
 * student's own and the one the teacher opens take the stage with every tool.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { axeScan } from './axe.ts';
import { fillClass } from './classroom.ts';
import { SERVER_URL } from './origins.ts';
import { expect, expectLive, joinLesson, startLesson, test } from './support.ts';

/** Serious and critical accessibility violations (as in a11y.spec.ts). */
async function seriousViolations(page: Page) {
  const results = await axeScan(page, { tags: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
}

/**
 * Inked pixels of a tile's canvas (alpha > 0) within `radius` device pixels of the point at
 * fractions `fx`, `fy` of it; the whole canvas without a point. Read from the canvas itself: a
 * tile whose painter drew nothing fails, whatever its attributes say.
 */
async function inkedPixels(canvas: ReturnType<Page['locator']>, at?: { fx: number; fy: number; radius: number }): Promise<number> {
  return canvas.evaluate((el, at) => {
    const c = el as HTMLCanvasElement;
    const box = at
      ? { x: Math.max(0, Math.round(at.fx * c.width - at.radius)), y: Math.max(0, Math.round(at.fy * c.height - at.radius)), w: 2 * at.radius + 1, h: 2 * at.radius + 1 }
      : { x: 0, y: 0, w: c.width, h: c.height };
    const data = c.getContext('2d')!.getImageData(box.x, box.y, box.w, box.h).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
    return n;
  }, at);
}

/** A stroke on a board from one point to another, each given as fractions of the board's box. */
async function strokeOn(page: Page, board: ReturnType<Page['locator']>, from: [number, number], to: [number, number]) {
  const box = await board.boundingBox();
  if (!box) throw new Error('no board on screen');
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * to[0], box.y + box.height * to[1], { steps: 8 });
  await page.mouse.up();
}

/** A person's own board on the stage (the page's one Board, every tool). */
const ownBoard = (page: Page) => page.getByRole('application', { name: 'Your board' });
/** The elements a board draws (the Board's element layer). */
const drawn = (board: ReturnType<Page['locator']>) => board.locator('[data-testid="element"]');

test('teacher + 3 students: private boards, the live class grid, a comment, then shown to the class', async ({ browser }, testInfo) => {
  const teacher = await startLesson(browser);
  const names = ['Ana', 'Ben', 'Cleo'];
  const students = [];
  for (const name of names) students.push({ name, ...(await joinLesson(browser, teacher.code, name)) });

  await teacher.page.getByRole('button', { name: 'Start activity' }).click();
  await teacher.page.getByRole('dialog').getByLabel('Title').fill('Fractions');
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();

  // Each student is switched to their own board, told who can see it, and draws on it.
  for (const [i, s] of students.entries()) {
    await expect(s.page.getByTestId('private-board-banner')).toContainText('Your board: only you and the teacher can see it');
    const own = ownBoard(s.page);
    await strokeOn(s.page, own, [0.2 + i * 0.1, 0.3], [0.4 + i * 0.1, 0.6]);
    await expect(drawn(own)).toHaveCount(1);
  }

  // The teacher's grid shows all three drawings live, by name: each tile says what is on it, and
  // its canvas is inked somewhere, and blank far from any stroke.
  const grid = teacher.page.getByTestId('class-grid');
  for (const name of names) {
    const tile = grid.locator(`[data-testid="board-tile"][data-owner="${name}"]`);
    const canvas = tile.getByRole('img', { name: `${name}'s board, 1 stroke` });
    await expect(canvas).toHaveAttribute('data-elements', '1');
    await expect(tile).toContainText(/here · last drew \d+ s ago/);
    await expect.poll(() => inkedPixels(canvas)).toBeGreaterThan(0);
    expect(await inkedPixels(canvas, { fx: 0.9, fy: 0.9, radius: 4 })).toBe(0);
  }

  // The grid and a student's board are usable with assistive technology.
  expect(await seriousViolations(teacher.page)).toEqual([]);
  expect(await seriousViolations(students[0]!.page)).toEqual([]);

  // Privacy: each student's page holds exactly one board, their own (DOM), as their screen shows.
  for (const s of students) {
    const boards = s.page.locator('[data-board-id]');
    await expect(boards).toHaveCount(1);
    const theirs = await grid.locator(`[data-testid="tile-board"][data-owner="${s.name}"]`).getAttribute('data-board-id');
    await expect(boards).toHaveAttribute('data-board-id', theirs!);
    await testInfo.attach(`${s.name} before showing`, { body: await s.page.screenshot(), contentType: 'image/png' });
  }

  // Live ink: Ben's stroke shows on his tile in the teacher's grid before his pen lifts, and on
  // no other student's page.
  const benBoard = ownBoard(students[1]!.page);
  const benBox = await benBoard.boundingBox();
  if (!benBox) throw new Error("no board on Ben's screen");
  await students[1]!.page.mouse.move(benBox.x + benBox.width * 0.2, benBox.y + benBox.height * 0.8);
  await students[1]!.page.mouse.down();
  await students[1]!.page.mouse.move(benBox.x + benBox.width * 0.3, benBox.y + benBox.height * 0.85, { steps: 10 });
  const benTile = grid.locator('[data-testid="board-tile"][data-owner="Ben"]');
  const benInk = benTile.getByTestId('tile-ink');
  await expect(benInk).toHaveAttribute('data-strokes', '1');
  for (const other of [students[0]!, students[2]!]) await expect(other.page.locator('[data-testid="live-stroke"]')).toHaveCount(0);
  // The live stroke is on the tile's ink layer, and grows there as the pen moves on, still down.
  await expect.poll(() => inkedPixels(benInk)).toBeGreaterThan(0);
  const grown = await inkedPixels(benInk);
  await students[1]!.page.mouse.move(benBox.x + benBox.width * 0.5, benBox.y + benBox.height * 0.8, { steps: 10 });
  await expect.poll(() => inkedPixels(benInk)).toBeGreaterThan(grown);
  await students[1]!.page.mouse.up();
  // Pen-up: the stroke's element replaces its live ink (the ink layer blank, the elements layer drawn).
  const benCanvas = benTile.getByRole('img', { name: "Ben's board, 2 strokes" });
  await expect(benCanvas).toHaveAttribute('data-elements', '2');
  await expect(benInk).toHaveAttribute('data-strokes', '0');
  expect(await inkedPixels(benInk)).toBe(0);

  // Ben and Cleo draw at the same time: their boards move in the same 50 ms ticks, so the teacher's
  // client, which asks for it, gets their batches together in one `boards.pointers` message a
  // tick (read off the wire), and both tiles' live ink grows from them.
  const cdp = await teacher.page.context().newCDPSession(teacher.page);
  let groupedFrames = 0;
  cdp.on('Network.webSocketFrameReceived', (frame) => {
    if (frame.response.payloadData.startsWith('42["boards.pointers"')) groupedFrames++;
  });
  await cdp.send('Network.enable');
  const pair = [students[1]!, students[2]!];
  const boxes = await Promise.all(pair.map((s) => ownBoard(s.page).boundingBox()));
  await Promise.all(
    pair.map(async (s, i) => {
      const box = boxes[i];
      if (!box) throw new Error(`no board on ${s.name}'s screen`);
      await s.page.mouse.move(box.x + box.width * 0.45, box.y + box.height * 0.65);
      await s.page.mouse.down();
      await s.page.mouse.move(box.x + box.width * 0.65, box.y + box.height * 0.75, { steps: 24 });
    }),
  );
  for (const s of pair) {
    const ink = grid.locator(`[data-testid="board-tile"][data-owner="${s.name}"]`).getByTestId('tile-ink');
    await expect.poll(() => inkedPixels(ink)).toBeGreaterThan(0);
  }
  expect(groupedFrames).toBeGreaterThan(0);
  await Promise.all(pair.map((s) => s.page.mouse.up()));
  await expect(grid.getByRole('img', { name: "Cleo's board, 2 strokes" })).toHaveAttribute('data-elements', '2');
  await cdp.detach();

  // The teacher opens Ana's board: it takes the stage, with every tool; a stroke there reaches Ana at once.
  await grid.locator('[data-testid="board-tile"][data-owner="Ana"]').click();
  const opened = teacher.page.getByRole('application', { name: "Ana's board" });
  await strokeOn(teacher.page, opened, [0.55, 0.35], [0.65, 0.4]);
  await expect(drawn(opened)).toHaveCount(2);
  // Exportable: one PNG per student.
  const download = teacher.page.waitForEvent('download');
  await teacher.page.getByTestId('open-board').getByRole('button', { name: 'Download PNG' }).click();
  expect((await download).suggestedFilename()).toMatch(/^fractions-ana-.*\.png$/);
  const ana = students[0]!;
  await expect(drawn(ownBoard(ana.page))).toHaveCount(2);
  // The teacher sees Ana's pointer on her board as she moves it.
  const anaBox = await ownBoard(ana.page).boundingBox();
  if (!anaBox) throw new Error("no board on Ana's screen");
  await ana.page.mouse.move(anaBox.x + anaBox.width * 0.4, anaBox.y + anaBox.height * 0.7, { steps: 6 });
  await expect(opened.locator('[data-testid="cursor"]')).toHaveCount(1);
  // Ana's stroke grows live on the teacher's open board; the teacher's grows live on Ana's.
  await ana.page.mouse.down();
  await ana.page.mouse.move(anaBox.x + anaBox.width * 0.5, anaBox.y + anaBox.height * 0.8, { steps: 10 });
  await expect(opened.locator('[data-testid="live-stroke"]')).toHaveCount(1);
  await ana.page.mouse.up();
  await expect(drawn(opened)).toHaveCount(3);
  const openedBox = await opened.boundingBox();
  if (!openedBox) throw new Error('no open board');
  await teacher.page.mouse.move(openedBox.x + openedBox.width * 0.6, openedBox.y + openedBox.height * 0.5);
  await teacher.page.mouse.down();
  await teacher.page.mouse.move(openedBox.x + openedBox.width * 0.7, openedBox.y + openedBox.height * 0.6, { steps: 10 });
  await expect(ownBoard(ana.page).locator('[data-testid="live-stroke"]')).toHaveCount(1);
  await teacher.page.mouse.up();
  await expect(drawn(ownBoard(ana.page))).toHaveCount(4);
  await expect(ownBoard(ana.page).locator('[data-testid="live-stroke"]')).toHaveCount(0);
  // And writes a comment with the text tool: Ana reads it on her board.
  await teacher.page.keyboard.press('t');
  await opened.click({ position: { x: openedBox.width * 0.3, y: openedBox.height * 0.85 } });
  await teacher.page.getByTestId('text-editor').fill('Nice: now halve it again');
  await teacher.page.keyboard.press('Control+Enter');
  await expect(drawn(ownBoard(ana.page))).toHaveCount(5);
  await expect(ownBoard(ana.page)).toContainText('Nice: now halve it again');
  // With Select the teacher drags Ana's first stroke under its lock: it moves on Ana's board.
  await teacher.page.keyboard.press('Escape');
  await teacher.page.keyboard.press('v');
  const first = opened.locator('[data-testid="element"][data-kind="pen"]').first();
  const firstId = await first.getAttribute('data-element-id');
  const anaStroke = ownBoard(ana.page).locator(`[data-testid="element"][data-element-id="${firstId}"]`);
  const strokeBefore = (await anaStroke.boundingBox())!;
  const grab = (await first.boundingBox())!;
  await teacher.page.mouse.move(grab.x + grab.width / 2, grab.y + grab.height / 2);
  await teacher.page.mouse.down();
  await teacher.page.mouse.move(grab.x + grab.width / 2 + 120, grab.y + grab.height / 2 + 40, { steps: 6 });
  await teacher.page.mouse.up();
  // Stored, not only previewed: the stroke's next version, where the teacher dropped it.
  await expect(anaStroke).toHaveAttribute('data-version', '2');
  expect((await anaStroke.boundingBox())!.x - strokeBefore.x).toBeGreaterThan(60);
  // Still private: Ben's page holds no board of Ana's.
  await expect(students[1]!.page.locator('[data-owner="Ana"]')).toHaveCount(0);

  // Shown to the class: Ben sees Ana's board, with her strokes and the teacher's comment.
  await teacher.page.getByRole('button', { name: 'Show to class' }).click();
  const ben = students[1]!;
  const shown = ben.page.getByTestId('shown-boards');
  await expect(shown).toContainText('Ana');
  await expect(shown.locator('[data-owner="Ana"]')).toHaveAttribute('data-elements', '5');
  await testInfo.attach('Ben sees the shown board', { body: await ben.page.screenshot(), contentType: 'image/png' });

  // Back to the grid; hidden again, Ben no longer holds it.
  await teacher.page.getByRole('button', { name: 'Hide from class' }).click();
  await expect(ben.page.locator('[data-owner="Ana"]')).toHaveCount(0);
  await teacher.page.getByRole('button', { name: 'Back to grid' }).click();
  await expect(grid.locator('[data-testid="board-tile"]')).toHaveCount(3);
});

test("a grid tile is drawn at the screen's pixel ratio (a 2x screen): its canvas holds twice its CSS pixels", async ({ browser }) => {
  const page = await (await browser.newContext({ deviceScaleFactor: 2 })).newPage();
  await page.goto('/');
  await page.getByLabel('Your name').fill('Ms Rivera');
  await page.getByRole('button', { name: 'Start lesson' }).click();
  await page.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  await expectLive(page);
  const ana = await joinLesson(browser, /\/r\/([A-Z2-9]{6})$/.exec(page.url())![1]!, 'Ana');
  await page.getByRole('button', { name: 'Start activity' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  await strokeOn(ana.page, ownBoard(ana.page), [0.2, 0.5], [0.7, 0.5]);
  const canvas = page.locator('[data-testid="board-tile"][data-owner="Ana"]').getByRole('img', { name: "Ana's board, 1 stroke" });
  await expect.poll(() => inkedPixels(canvas)).toBeGreaterThan(0);
  const [width, cssWidth, height, cssHeight] = await canvas.evaluate((c) => {
    const box = c.getBoundingClientRect();
    return [(c as HTMLCanvasElement).width, box.width, (c as HTMLCanvasElement).height, box.height];
  });
  // 1 px: a canvas holds whole pixels, so twice a fractional CSS size is rounded.
  expect(Math.abs(width! - 2 * cssWidth!)).toBeLessThanOrEqual(1);
  expect(Math.abs(height! - 2 * cssHeight!)).toBeLessThanOrEqual(1);
});

test('a student takes back their last strokes on their own board (Undo, then Ctrl+Z), and redoes one; the teacher\'s tile follows', async ({ browser }) => {
  const teacher = await startLesson(browser);
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  await teacher.page.getByRole('button', { name: 'Start activity' }).click();
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  const own = ownBoard(ana.page);
  const undo = ana.page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name: /^Undo/ });
  await expect(undo).toBeDisabled();
  await strokeOn(ana.page, own, [0.25, 0.35], [0.6, 0.35]);
  await strokeOn(ana.page, own, [0.25, 0.75], [0.6, 0.75]);
  await expect(drawn(own)).toHaveCount(2);
  const tile = teacher.page.locator('[data-testid="board-tile"][data-owner="Ana"]');
  await expect(tile.getByRole('img', { name: "Ana's board, 2 strokes" })).toHaveAttribute('data-elements', '2');

  await undo.click();
  await expect(drawn(own)).toHaveCount(1);
  const one = tile.getByRole('img', { name: "Ana's board, 1 stroke" });
  await expect(one).toHaveAttribute('data-elements', '1');

  await own.press('Control+z');
  await expect(drawn(own)).toHaveCount(0);
  await expect(tile.getByRole('img', { name: "Ana's board, empty" })).toHaveAttribute('data-elements', '0');
  await expect(undo).toBeDisabled();
  // Redo brings the first stroke back, on the teacher's tile too.
  await own.press('Control+Shift+z');
  await expect(drawn(own)).toHaveCount(1);
  await expect(tile.getByRole('img', { name: "Ana's board, 1 stroke" })).toHaveAttribute('data-elements', '1');
});

test('the boards stay with the lesson: the teacher\'s page lists them after the activity ended, each exportable', async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/teacher');
  const signUp = page.getByRole('region', { name: 'Create a teacher account' });
  await signUp.getByLabel('Your name').fill('Ms Rivera');
  await signUp.getByLabel('Email').fill(`boards-${randomBytes(4).toString('hex')}@school.example`);
  await signUp.getByLabel('Password').fill('correct horse battery');
  await signUp.getByRole('button', { name: 'Create account' }).click();
  await page.getByLabel('Lesson title (optional)').fill('Fractions');
  await page.getByRole('button', { name: 'Start lesson' }).click();
  await page.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  await expectLive(page);
  const code = /\/r\/([A-Z2-9]{6})$/.exec(page.url())![1]!;
  const ana = await joinLesson(browser, code, 'Ana');
  const ben = await joinLesson(browser, code, 'Ben');

  await page.getByRole('button', { name: 'Start activity' }).click();
  await page.getByRole('dialog').getByLabel('Title').fill('Halves');
  await page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  const own = ownBoard(ana.page);
  await strokeOn(ana.page, own, [0.3, 0.3], [0.6, 0.6]);
  await expect(drawn(own)).toHaveCount(1);
  await expect(page.locator('[data-testid="board-tile"][data-owner="Ana"]').getByRole('img', { name: "Ana's board, 1 stroke" })).toHaveAttribute('data-elements', '1');
  await page.getByRole('button', { name: 'End activity' }).click();
  // It asks first (ActivityLayer's ConfirmButton).
  await page.getByRole('group', { name: /End the activity for everyone/ }).getByRole('button', { name: 'End activity' }).click();
  // Ended: Ana is back on the class board.
  await expect(ana.page.getByTestId('private-board-banner')).toHaveCount(0);

  await page.goto('/teacher');
  await page.getByTestId('teacher-room').filter({ hasText: code }).getByRole('button', { name: 'Boards' }).click();
  const kept = page.getByTestId('lesson-boards');
  await expect(kept).toContainText('Halves');
  await expect(kept.getByRole('img', { name: "Ana's board" })).toHaveAttribute('data-elements', '1');
  const download = page.waitForEvent('download');
  await kept.getByRole('listitem').filter({ hasText: 'Ana' }).getByRole('button', { name: 'PNG', exact: true }).click();
  expect((await download).suggestedFilename()).toMatch(/^halves-ana-.*\.png$/);
  await expect(ben.page.getByTestId('private-board-banner')).toHaveCount(0);

  // All of them in one zip: one PNG per student, named for them.
  const zipped = page.waitForEvent('download');
  await kept.getByRole('button', { name: 'Download all (zip)' }).click();
  const zip = await zipped;
  expect(zip.suggestedFilename()).toMatch(/^halves-.*\.zip$/);
  const entries = zipEntries(readFileSync((await zip.path())!));
  expect(entries.map((e) => e.name).sort()).toEqual(['Ana.png', 'Ben.png']);
  for (const entry of entries) expect([...entry.data.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
});

/** A zip's entries read from its central directory (stored entries only: what the export writes). */
function zipEntries(zip: Buffer): { name: string; data: Buffer }[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory entry');
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    entries.push({ name, data: zip.subarray(dataAt, dataAt + size) });
    at += 46 + nameLength + extra;
  }
  return entries;
}

test('the class grid fits a class of 39 on a laptop screen (1280 x 800) without scrolling', async ({ browser }) => {
  const teacher = await startLesson(browser);
  await teacher.page.setViewportSize({ width: 1280, height: 800 });
  const klass = await fillClass(SERVER_URL, teacher.code, 39);
  try {
    await expect(teacher.page.getByRole('button', { name: /People/ })).toContainText('36'); // the badge counts the students here (the teacher apart)
    await teacher.page.getByRole('button', { name: 'Start activity' }).click();
    await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
    const tiles = teacher.page.getByTestId('board-tile');
    await expect(tiles).toHaveCount(39);
    const overlay = teacher.page.getByTestId('class-grid-overlay');
    expect(await overlay.evaluate((el) => el.scrollHeight <= el.clientHeight)).toBe(true);
    const last = await tiles.last().boundingBox();
    expect(last && last.y + last.height).toBeLessThanOrEqual(800);
  } finally {
    klass.close();
  }
});
