import { readFile } from 'node:fs/promises';
import { reducePngPixels } from './pngPixels.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

/**
 * Issue 23: an equation is written in LaTeX with a live preview (KaTeX, loaded only when the editor
 * first opens), shows KaTeX's message for LaTeX that does not parse, lands on everyone's board and
 * is kept, typeset as MathML with its source, in the SVG and PNG exports.
 */
test('the teacher types an equation, sees the preview, places it; the student sees it; the SVG export contains it', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const student = await joinLesson(browser, teacher.code, 'Ana');
  const page = teacher.page;
  const katexRequests: string[] = [];
  page.on('request', (r) => {
    if (/\/assets\/katex-[^/]*\.js$/.test(r.url())) katexRequests.push(r.url());
  });
  await page.waitForTimeout(500); // the page settles with no equation on the board
  expect(katexRequests).toEqual([]);

  await page.getByTestId('equation-button').click();
  const dialog = page.getByTestId('equation-dialog');
  await expect(dialog).toBeVisible();
  const source = dialog.getByTestId('equation-source');
  await source.fill('\\frac{a}{');
  await expect(dialog.getByTestId('equation-error')).toContainText('KaTeX parse error');
  await expect(source).toHaveAttribute('aria-invalid', 'true');
  await expect(dialog.getByTestId('equation-place')).toBeDisabled();
  expect(katexRequests).toHaveLength(1);

  await source.fill('\\frac{a}{b} + x^2');
  await expect(dialog.getByTestId('equation-error')).toHaveCount(0);
  await expect(dialog.getByTestId('equation-preview').locator('math mfrac')).toHaveCount(1);
  await dialog.getByTestId('equation-place').click();
  await expect(dialog).toHaveCount(0);

  for (const p of [page, student.page]) {
    const equation = p.locator('[data-testid="element"][data-kind="equation"]');
    await expect(equation).toHaveCount(1);
    await expect(equation.locator('foreignObject math mfrac')).toHaveCount(1);
  }
  // The element's box is the typeset formula's (measured from the preview).
  const box = await page.locator('[data-testid="element"][data-kind="equation"] foreignObject').evaluate((fo) => [Number(fo.getAttribute('width')), Number(fo.getAttribute('height'))]);
  expect(box[0]).toBeGreaterThan(40);
  expect(box[1]).toBeGreaterThan(20);

  const svgDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export board as SVG' }).click();
  const svg = await readFile((await (await svgDownload).path())!, 'utf8');
  expect(svg).toContain('<foreignObject');
  expect(svg).toContain('<math xmlns="http://www.w3.org/1998/Math/MathML"');
  expect(svg).toContain('<annotation encoding="application/x-tex">\\frac{a}{b} + x^2</annotation>');

  // PNG goes through the same SVG drawn on a canvas: the foreignObject must not taint it.
  const pngDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export board as PNG' }).click();
  const png = await readFile((await (await pngDownload).path())!);
  expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  // ...and the formula is drawn in it: dark pixels, where the board holds nothing but the equation.
  const dark = await reducePngPixels(page.context(), [png], ([data]) => {
    let n = 0;
    for (let i = 0; i < data!.length; i += 4) if (data![i + 3]! > 200 && data![i]! < 90 && data![i + 1]! < 90 && data![i + 2]! < 90) n++;
    return n;
  });
  expect(dark).toBeGreaterThan(100);
});

test('Enter on a selected equation opens it in the editor; the change reaches the other screen', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const student = await joinLesson(browser, teacher.code, 'Ana');
  const page = teacher.page;
  await page.getByTestId('equation-button').click();
  await page.getByTestId('equation-source').fill('a^2 + b^2');
  await page.getByTestId('equation-place').click();
  const annotation = (p: typeof page) => p.locator('[data-testid="element"][data-kind="equation"] annotation');
  await expect(annotation(student.page)).toHaveText('a^2 + b^2');

  // Placed and selected, the board focused again: Enter edits it, as it does a text box.
  await page.getByTestId('board').press('Enter');
  const dialog = page.getByTestId('equation-dialog');
  await expect(dialog.getByRole('heading')).toHaveText('Change the equation');
  await expect(dialog.getByTestId('equation-source')).toHaveValue('a^2 + b^2');
  await dialog.getByTestId('equation-source').fill('a^2 + b^2 = c^2');
  await dialog.getByTestId('equation-place').click();
  await expect(annotation(student.page)).toHaveText('a^2 + b^2 = c^2');
  await expect(page.locator('[data-testid="element"][data-kind="equation"]')).toHaveCount(1);
});
