/**
 * Every board is the same board (issue 37, docs/boards.md): a student on their private board has
 * every tool of the class board, because it is the class board's editor over the board's own
 * engine. On a plain-HTTP origin that is not localhost (`classroom.test`, mapped to this machine:
 * no secure context, as on a school network, I15) the student draws in a colour, erases, writes a
 * text, adds a shape, undoes and redoes it; the teacher's class grid shows the result, read from
 * the tile's words and its canvas's pixels.
 */
import type { Locator, Page } from '@playwright/test';
import { CLASSROOM_URL as origin } from './origins.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

/** A point on the stage board, in page pixels, `x`/`y` board units from its top-left (zoom 1 at the start). */
async function at(page: Page, x: number, y: number) {
  const box = (await page.getByTestId('board').boundingBox())!;
  return { x: box.x + x, y: box.y + y };
}

async function drag(page: Page, from: [number, number], to: [number, number], steps = 10) {
  const a = await at(page, ...from);
  const b = await at(page, ...to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps });
  await page.mouse.up();
}

const tool = (page: Page, name: RegExp) => page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name }).click();
const elements = (page: Page, kind: string) => page.getByTestId('board').locator(`[data-testid="element"][data-kind="${kind}"]`);

/**
 * Pixels of the tile's canvas within `radius` device pixels of the point at fractions `fx`, `fy`
 * of it that are inked (`inked`), or inked in red (`red`).
 */
async function pixels(canvas: Locator, at: { fx: number; fy: number; radius: number }, match: 'red' | 'inked'): Promise<number> {
  return canvas.evaluate(
    (el, { at, match }) => {
      const c = el as HTMLCanvasElement;
      const x = Math.max(0, Math.round(at.fx * c.width - at.radius));
      const y = Math.max(0, Math.round(at.fy * c.height - at.radius));
      const data = c.getContext('2d')!.getImageData(x, y, 2 * at.radius + 1, 2 * at.radius + 1).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
        // Red: a thin line on a small tile is mostly anti-aliased, so its hue is read, not its alpha.
        if (match === 'inked' ? a > 0 : a > 0 && r > g + 60 && r > b + 60) n++;
      }
      return n;
    },
    { at, match },
  );
}

test('a student on a private board has every tool of the class board; the teacher grid shows the result', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera', origin);
  const student = await joinLesson(browser, teacher.code, 'Ana', origin);
  expect(await student.page.evaluate(() => window.isSecureContext)).toBe(false);

  await teacher.page.getByRole('button', { name: 'Start activity' }).click();
  await teacher.page.getByRole('dialog').getByLabel('Title').fill('Halves');
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();

  // The student's stage is their own board now: the class board's Board, named for it.
  const page = student.page;
  await expect(page.getByTestId('private-board-banner')).toContainText('Your board: only you and the teacher can see it');
  const board = page.getByRole('application', { name: 'Your board' });
  await expect(board).toBeVisible();
  const grid = teacher.page.getByTestId('class-grid');
  const tile = grid.getByTestId('tile-board').and(grid.locator('[data-owner="Ana"]'));
  await expect(tile).toHaveAttribute('data-board-id', (await board.getAttribute('data-board-id'))!);

  // A red stroke.
  await tool(page, /^Pen/);
  await page.getByRole('button', { name: 'Colour Red' }).click();
  await drag(page, [300, 200], [500, 260]);
  await expect(elements(page, 'pen')).toHaveCount(1);
  // A second stroke, then the eraser takes it.
  await drag(page, [300, 450], [500, 470]);
  await expect(elements(page, 'pen')).toHaveCount(2);
  await expect(tile).toHaveAttribute('data-elements', '2');
  await tool(page, /^Eraser/);
  await drag(page, [400, 430], [400, 490], 6);
  await expect(elements(page, 'pen')).toHaveCount(1);
  // A text.
  await tool(page, /^Text/);
  const textAt = await at(page, 650, 200);
  await page.mouse.click(textAt.x, textAt.y);
  await page.getByTestId('text-editor').fill('One half');
  await page.keyboard.press('Control+Enter');
  await expect(elements(page, 'text')).toHaveCount(1);
  // A shape; undo takes it back, redo brings it again.
  await tool(page, /^Rectangle/);
  await drag(page, [650, 350], [800, 450]);
  await expect(elements(page, 'rect')).toHaveCount(1);
  await page.keyboard.press('Control+z');
  await expect(elements(page, 'rect')).toHaveCount(0);
  await expect(tile).toHaveAttribute('aria-label', "Ana's board, 1 stroke, 1 text");
  await page.keyboard.press('Control+Shift+z');
  await expect(elements(page, 'rect')).toHaveCount(1);
  await expect(page.getByTestId('unsynced')).toHaveCount(0);

  // The teacher's grid: the tile's words, and its pixels (the board is a 1600 x 1000 page on the
  // tile; the stroke ran from (300, 200) to (500, 260): its middle is at 0.25, 0.23 of the tile).
  await expect(tile).toHaveAttribute('aria-label', "Ana's board, 1 stroke, 1 text, 1 shape");
  await expect(tile).toHaveAttribute('data-elements', '3');
  await expect.poll(() => pixels(tile, { fx: 0.25, fy: 0.23, radius: 3 }, 'red')).toBeGreaterThan(0);
  // Where the erased stroke was (0.25, 0.46), nothing.
  expect(await pixels(tile, { fx: 0.25, fy: 0.46, radius: 2 }, 'inked')).toBe(0);
});
