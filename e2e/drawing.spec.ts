import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { elementsOf, hashOf, sessionsOf } from './boardHook.ts';
import { reducePngPixels } from './pngPixels.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

/** A point on the board, in page pixels, `x`/`y` from the board's top-left corner. */
async function at(page: Page, x: number, y: number) {
  const box = (await page.getByTestId('board').boundingBox())!;
  return { x: box.x + x, y: box.y + y };
}

async function drag(page: Page, from: [number, number], to: [number, number], steps = 8) {
  const a = await at(page, ...from);
  const b = await at(page, ...to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps });
  await page.mouse.up();
}

async function pickTool(page: Page, name: RegExp) {
  await page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name }).click();
}


/** Both screens applied the same board (same events or snapshot). */
async function expectSameBoard(a: Page, b: Page) {
  await expect.poll(async () => (await hashOf(a)) === (await hashOf(b)) && (await hashOf(a)) !== null).toBe(true);
}

test('each element kind drawn by the teacher appears on a student screen; undo and redo travel too', async ({ browser }) => {
  // Seven drawings, two screens, undo, redo and the eraser: about 30 s alone, past the default
  // 60 s on a loaded two-core machine.
  test.setTimeout(120_000);
  const teacher = await startLesson(browser, 'Ms Rivera');
  const student = await joinLesson(browser, teacher.code, 'Ana');
  const page = teacher.page;

  await pickTool(page, /^Rectangle/);
  await drag(page, [200, 160], [320, 240]);
  await pickTool(page, /^Ellipse/);
  await drag(page, [360, 160], [460, 240]);
  await pickTool(page, /^Line/);
  await drag(page, [200, 300], [320, 360]);
  await pickTool(page, /^Arrow/);
  await drag(page, [360, 300], [460, 360]);
  await pickTool(page, /^Pen/);
  await drag(page, [500, 160], [620, 260], 20);

  await page.keyboard.press('t');
  await page.mouse.click((await at(page, 200, 420)).x, (await at(page, 200, 420)).y);
  await page.getByTestId('text-editor').fill('Fractions: 1/2 + 1/4');
  await page.keyboard.press('Control+Enter');

  await page.keyboard.press('s');
  const stickyAt = await at(page, 520, 320);
  await page.mouse.click(stickyAt.x, stickyAt.y);
  await page.getByTestId('text-editor').fill('Homework: page 12');
  await page.keyboard.press('Control+Enter');

  const kinds = ['arrow', 'ellipse', 'line', 'pen', 'rect', 'sticky', 'text'];
  await expect.poll(async () => (await elementsOf(student.page)).map((e) => e.kind).sort()).toEqual(kinds);
  await expectSameBoard(page, student.page);
  for (const kind of kinds) await expect(student.page.locator(`[data-testid="element"][data-kind="${kind}"]`)).toHaveCount(1);
  await expect(student.page.getByTestId('element').filter({ hasText: 'Homework' })).toHaveCount(1);
  await expect(page.getByTestId('unsynced')).toHaveCount(0);

  // Undo removes the sticky note everywhere; redo brings it back (as a new element: deletions are final).
  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await elementsOf(student.page)).some((e) => e.kind === 'sticky')).toBe(false);
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(async () => (await elementsOf(student.page)).some((e) => e.kind === 'sticky')).toBe(true);
  await expectSameBoard(page, student.page);

  // The student draws too, and the eraser removes the teacher's rectangle edge.
  await pickTool(student.page, /^Rectangle/);
  await drag(student.page, [700, 400], [780, 460]);
  await expect.poll(async () => (await elementsOf(page)).filter((e) => e.kind === 'rect').length).toBe(2);
  await pickTool(page, /^Eraser/);
  await drag(page, [195, 200], [205, 200], 3);
  await expect.poll(async () => (await elementsOf(student.page)).filter((e) => e.kind === 'rect').length).toBe(1);
  await expectSameBoard(page, student.page);
});

test('pan and zoom change only the view: elements stay at their board position', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const page = teacher.page;
  await pickTool(page, /^Rectangle/);
  await drag(page, [300, 200], [400, 280]);
  const rect = page.locator('[data-testid="element"][data-kind="rect"]');
  await expect(rect).toHaveCount(1);
  const before = (await rect.boundingBox())!;
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await expect.poll(async () => Math.round((await rect.boundingBox())!.width)).toBeGreaterThan(Math.round(before.width));
  await page.getByRole('button', { name: /Reset view/ }).click();
  const board = await at(page, 600, 400);
  await page.mouse.move(board.x, board.y);
  await page.mouse.wheel(0, 120);
  // 50 px: a wheel step of 120 pans the view by far more; any pan at all moves it past 50.
  await expect.poll(async () => Math.round((await rect.boundingBox())!.y)).toBeLessThan(Math.round(before.y) - 50);
  const [el] = await elementsOf(page);
  expect(el).toMatchObject({ kind: 'rect', x: 300, y: 200 });
});

test('the dot grid follows a zoom: the drawn tile is scaled during the gesture and redrawn for the new zoom when it settles', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const page = teacher.page;
  const grid = page.locator('.layer-grid');
  await expect(grid).toHaveCSS('background-size', '24px 24px');
  // Every style the layer goes through, recorded in the page: no timing assumptions about when
  // the gesture settles.
  await grid.evaluate((el) => {
    const seen: { size: string; transform: string }[] = [];
    (window as unknown as { gridStyles: typeof seen }).gridStyles = seen;
    new MutationObserver(() => seen.push({ size: (el as HTMLElement).style.backgroundSize, transform: (el as HTMLElement).style.transform })).observe(el, {
      attributes: true,
      attributeFilter: ['style'],
    });
  });
  const board = await at(page, 600, 400);
  await page.mouse.move(board.x, board.y);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -40); // zoom in by e^0.4
  await page.keyboard.up('Control');
  const zoomed = 24 * Math.exp(0.4);
  // To 0.05 px: the computed style rounds the tile's size; a tile not rescaled is 24 px, 11 px off.
  await expect.poll(async () => parseFloat(await grid.evaluate((el) => getComputedStyle(el).backgroundSize))).toBeCloseTo(zoomed, 1);
  await expect.poll(() => grid.evaluate((el) => (el as HTMLElement).style.transform)).not.toMatch(/scale/);
  const styles = await page.evaluate(() => (window as unknown as { gridStyles: { size: string; transform: string }[] }).gridStyles);
  // During the gesture: the old 24 px tile, scaled (no repaint of the tile per wheel step).
  expect(styles.some((s) => s.size === '24px 24px' && /scale\(1\.49/.test(s.transform))).toBe(true);
});

test('the board exports as SVG and PNG', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const page = teacher.page;
  await pickTool(page, /^Ellipse/);
  await drag(page, [300, 200], [420, 300]);
  await expect(page.locator('[data-testid="element"][data-kind="ellipse"]')).toHaveCount(1);

  const svgDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export board as SVG' }).click();
  const svg = await svgDownload;
  expect(svg.suggestedFilename()).toMatch(/\.svg$/);
  const svgText = await readFile((await svg.path())!, 'utf8');
  expect(svgText).toContain('<ellipse');

  const pngDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export board as PNG' }).click();
  const png = await pngDownload;
  expect(png.suggestedFilename()).toMatch(/\.png$/);
  const bytes = await readFile((await png.path())!);
  // The ellipse is drawn in it, not just a PNG: the dark pixels of its outline span a box 1.2 times
  // as wide as high (the 120 x 100 drag), and its middle is empty (the shape is not filled).
  const width = bytes.readUInt32BE(16); // IHDR: the image's width in pixels
  const dark = await reducePngPixels(page.context(), [bytes], ([data]) => {
    const at: number[] = [];
    for (let i = 0; i < data!.length; i += 4) if (data![i + 3]! > 200 && data![i]! < 90 && data![i + 1]! < 90 && data![i + 2]! < 90) at.push(i / 4);
    return at;
  });
  expect(dark.length, 'dark pixels in the export').toBeGreaterThan(100);
  const xs = dark.map((p) => p % width);
  const ys = dark.map((p) => Math.floor(p / width));
  const [left, right, top, bottom] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  // 0.05: a stroke's width adds to both sides of the box ((120 + w) / (100 + w) is 1.18 at w = 4)
  // and anti-aliasing may darken one more pixel row or column at either end.
  expect((right - left) / (bottom - top)).toBeCloseTo(1.2, 1);
  const centre = Math.round((top + bottom) / 2) * width + Math.round((left + right) / 2);
  expect(dark).not.toContain(centre);
});

test('a reload keeps the session and the board', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const student = await joinLesson(browser, teacher.code, 'Ana');
  await pickTool(student.page, /^Arrow/);
  await drag(student.page, [300, 200], [420, 300]);
  await expect.poll(async () => (await elementsOf(teacher.page)).length).toBe(1);
  const before = await sessionsOf(student.page);
  const hash = await hashOf(teacher.page);
  await student.page.reload();
  await expect(student.page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
  await expect.poll(() => hashOf(student.page)).toBe(hash);
  await expect(student.page.locator('[data-testid="element"][data-kind="arrow"]')).toHaveCount(1);
  // The same session (I7): no new presence appeared for the reload.
  expect(await sessionsOf(student.page)).toEqual(before);
});
