/**
 * Issue 35 (I15): a class joins from its own devices, over plain HTTP on the school network. The
 * whole browser suite opens the app at http://classroom.test:PORT (e2e/origins.ts), which is not a
 * secure context; this spec walks the classroom's journey there from end to end, through what
 * the teacher and a student click, with every page error and console error on either side
 * failing it. Then the join address: the invitation, its QR code and the projector view show the
 * address students open (the suite's server is deployed at classroom.test: PUBLIC_URL), even to a
 * teacher on her own computer's loopback address; and a server that listens on loopback only
 * says so on the teacher's page, with the command that opens the lesson to the class.
 */
import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import decodeQR from 'qr/decode.js';
import { elementsOf } from './boardHook.ts';
import { startDrillServer } from './drill/drillServer.ts';
import { CLASSROOM_URL, SERVER_URL } from './origins.ts';
import { reducePngPixels } from './pngPixels.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

/** Every uncaught error and console error of `page`, named for whose page it was. */
function watchErrors(errors: string[], who: string) {
  return (page: Page) => {
    page.on('pageerror', (error) => errors.push(`${who}: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${who} (console): ${message.text()}`);
    });
  };
}

async function at(page: Page, x: number, y: number) {
  const box = (await page.getByTestId('board').boundingBox())!;
  return { x: box.x + x, y: box.y + y };
}

async function dragOn(page: Page, target: Locator, from: [number, number], to: [number, number]) {
  const box = await target.boundingBox();
  if (!box) throw new Error('nothing to draw on');
  await page.mouse.move(box.x + from[0], box.y + from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + to[0], box.y + to[1], { steps: 10 });
  await page.mouse.up();
}

/** What Ctrl+V pastes into a fresh text field: the system clipboard's text, read as a person would. */
async function pastedText(page: Page): Promise<string> {
  await page.evaluate(() => {
    const field = document.createElement('textarea');
    field.id = 'paste-probe';
    document.body.append(field);
    field.focus();
  });
  await page.keyboard.press('ControlOrMeta+v');
  return page.evaluate(() => {
    const field = document.getElementById('paste-probe') as HTMLTextAreaElement;
    field.remove();
    return field.value;
  });
}

const tool = (page: Page, name: RegExp) => page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name }).click();
const kindsOn = async (page: Page) => (await elementsOf(page)).map((e) => e.shape.kind).sort();

test('I15 the classroom journey over plain HTTP: lesson, activity, a student draws, copies, pastes, uploads and exports; the teacher gets every stroke; no page error', async ({ browser }) => {
  const errors: string[] = [];
  const teacher = await startLesson(browser, 'Ms Rivera', '', watchErrors(errors, 'teacher'));
  const ana = await joinLesson(browser, teacher.code, 'Ana', '', watchErrors(errors, 'Ana'));
  // Where a school network puts the class: not a secure context, so no crypto.randomUUID, no
  // navigator.clipboard (this test cannot pass on a secure origin by accident).
  for (const page of [teacher.page, ana.page]) {
    expect(new URL(page.url()).origin).toBe(CLASSROOM_URL);
    expect(await page.evaluate(() => ({ secure: window.isSecureContext, uuid: typeof crypto.randomUUID, clipboard: typeof navigator.clipboard }))).toEqual({
      secure: false,
      uuid: 'undefined',
      clipboard: 'undefined',
    });
  }

  // The invitation's copy buttons work without the Clipboard API: what lands on the clipboard is
  // what was asked for (read back by pasting into a text field), the link at the class's address.
  for (const [button, said, expected] of [
    ['Copy link', 'Link copied', `${CLASSROOM_URL}/r/${teacher.code}`],
    ['Copy code only', 'Code copied', teacher.code],
  ] as const) {
    await teacher.page.getByRole('button', { name: button }).click();
    await expect(teacher.page.getByRole('status').filter({ hasText: said })).toBeVisible();
    expect(await pastedText(teacher.page)).toBe(expected);
  }

  // Ana draws on the class board: a pen stroke and a rectangle. The teacher gets each.
  await tool(ana.page, /^Pen/);
  await dragOn(ana.page, ana.page.getByTestId('board'), [120, 120], [260, 200]);
  await tool(ana.page, /^Rectangle/);
  await dragOn(ana.page, ana.page.getByTestId('board'), [320, 140], [420, 200]);
  await expect.poll(() => kindsOn(teacher.page)).toEqual(['pen', 'rect']);

  // She copies the rectangle and pastes it at the pointer: the board says, once, that other apps
  // get text only here; the copy itself pastes, and the teacher gets it.
  // (A shape just drawn is selected when the select tool is taken.)
  await tool(ana.page, /^Select and move/);
  await expect(ana.page.getByTestId('selection-outline')).toHaveCount(1);
  await ana.page.keyboard.press('ControlOrMeta+c');
  await expect(ana.page.getByTestId('board-notice')).toContainText('Other apps get it as text, not as a picture: that needs an https address.');
  const pasteAt = await at(ana.page, 560, 320);
  await ana.page.mouse.move(pasteAt.x, pasteAt.y);
  await ana.page.keyboard.press('ControlOrMeta+v');
  await expect.poll(() => kindsOn(teacher.page)).toEqual(['pen', 'rect', 'rect']);
  const rects = (await elementsOf(teacher.page)).filter((e) => e.shape.kind === 'rect').map((e) => [e.x, e.y]);
  expect(rects).toContainEqual([510, 290]);

  // She adds a picture with the toolbar's Image button: uploaded, and on the teacher's board.
  const picture = await ana.page.screenshot({ clip: { x: 0, y: 0, width: 96, height: 64 } });
  const chooser = ana.page.waitForEvent('filechooser');
  await ana.page.getByRole('button', { name: 'Add an image' }).click();
  await (await chooser).setFiles({ name: 'leaf.png', mimeType: 'image/png', buffer: picture });
  await expect.poll(() => kindsOn(teacher.page)).toEqual(['image', 'pen', 'rect', 'rect']);
  await expect(teacher.page.locator('[data-testid="element"][data-kind="image"] image')).toHaveAttribute('href', /^blob:/);

  // She exports her board as a PNG: a picture of it, the size of what is drawn.
  const download = ana.page.waitForEvent('download');
  await ana.page.getByRole('button', { name: 'Export board as PNG' }).click();
  const png = await readFile((await (await download).path())!);
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // IHDR: width and height, big-endian, at bytes 16 and 20; the drawing spans 120..(510+100) by 120..(290+60) board units.
  expect(png.readUInt32BE(16)).toBeGreaterThanOrEqual(490);
  expect(png.readUInt32BE(20)).toBeGreaterThanOrEqual(230);

  // The teacher starts an activity: Ana is switched to her own board, draws there, and the
  // teacher's class grid shows her stroke.
  await teacher.page.getByRole('button', { name: 'Start activity' }).click();
  await teacher.page.getByRole('dialog').getByLabel('Title').fill('Fractions');
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  await expect(ana.page.getByTestId('private-board-banner')).toContainText('Your board: only you and the teacher can see it');
  // The page's one board: the class board's editor over her own board (issue 37).
  const own = ana.page.getByRole('application', { name: 'Your board' });
  await dragOn(ana.page, own, [400, 300], [560, 380]);
  await expect(own.locator('[data-testid="element"]')).toHaveCount(1);
  await dragOn(ana.page, own, [420, 460], [600, 400]);
  await expect(own.locator('[data-testid="element"]')).toHaveCount(2);
  await expect(teacher.page.getByTestId('class-grid').getByRole('img', { name: "Ana's board, 2 strokes" })).toHaveAttribute('data-elements', '2');

  expect(errors).toEqual([]);
});

/** The text a QR code on the page scans to: its pixels as the screen shows them, read by a QR decoder. */
async function scanQr(page: Page, within: Page | Locator = page): Promise<string> {
  const qr = within.getByTestId('join-qr');
  await expect(qr).toHaveAttribute('data-encodes', /.+/);
  const shot = await qr.screenshot();
  const rgba = await reducePngPixels(page.context(), [shot], ([pixels]) => [...pixels!]);
  // The PNG's IHDR holds its width and height (big-endian) at bytes 16 and 20.
  return decodeQR({ width: shot.readUInt32BE(16), height: shot.readUInt32BE(20), data: Uint8Array.from(rgba) });
}

test('issue 35: a teacher on her own computer is shown the address students open, as a link and a QR code that scans to it', async ({ browser }) => {
  // The teacher opens the app at her computer's loopback address; the class is at classroom.test.
  const teacher = await startLesson(browser, 'Ms Rivera', SERVER_URL);
  const link = `${CLASSROOM_URL}/r/${teacher.code}`;
  await expect(teacher.page.getByTestId('join-link')).toHaveValue(link);
  await expect(teacher.page.getByTestId('join-reach')).toHaveCount(0);
  const qr = teacher.page.getByRole('button', { name: 'QR code of the join link: show it full screen' });
  await expect(qr).toBeVisible();
  expect(await scanQr(teacher.page)).toBe(link);

  // Copy link: on the clipboard is the address students open.
  await teacher.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await teacher.page.getByRole('button', { name: 'Copy link' }).click();
  await expect(teacher.page.getByRole('status').filter({ hasText: 'Link copied' })).toBeVisible();
  expect(await teacher.page.evaluate(() => navigator.clipboard.readText())).toBe(link);

  // The QR code opens the projector view: a large code of the same link, the link and the join
  // code as text beside it.
  await qr.click();
  const projector = teacher.page.getByTestId('projector-code');
  await expect(projector).toBeVisible();
  await expect(projector.getByTestId('projector-link')).toHaveText(link.replace('http://', ''));
  await expect(projector.getByLabel(`Join code ${teacher.code.split('').join(' ')}`)).toHaveText(teacher.code);
  const big = projector.getByRole('img', { name: 'QR code of the join link' });
  const size = (await big.boundingBox())!;
  // At least half the window's height (Playwright's 1280 x 720): about 1 m across on a 2.5 m projection.
  expect(size.height).toBeGreaterThanOrEqual(720 / 2);
  const scanned = await scanQr(teacher.page, projector);
  expect(scanned).toBe(link);

  // A student scanning it lands on the join page at the classroom address, and joins.
  const student = await browser.newContext();
  const page = await student.newPage();
  await page.goto(scanned);
  await page.getByLabel('Your name').fill('Ana');
  await page.getByRole('button', { name: 'Join lesson' }).click();
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live');
});

test('issue 35: on a server listening on loopback only, the teacher is told only this computer can join, and how to open the lesson to the class', async ({ browser }) => {
  test.setTimeout(300_000);
  // A laptop's default: HOST=127.0.0.1 and no PUBLIC_URL.
  const server = await startDrillServer('pglite', { env: { HOST: '127.0.0.1' } });
  try {
    const teacher = await startLesson(browser, 'Ms Rivera', server.url);
    const note = teacher.page.getByTestId('join-reach');
    await expect(note).toHaveText('Only this computer can join: the lesson is not open to the network. To open it to the class, stop the app and start it with pnpm start:class.');
    // No QR code of an address nobody else can open; the link is this computer's.
    await expect(teacher.page.getByTestId('join-qr')).toHaveCount(0);
    await expect(teacher.page.getByTestId('join-link')).toHaveValue(`${server.url}/r/${teacher.code}`);
    await teacher.page.getByRole('button', { name: 'Show the code' }).first().click();
    await expect(teacher.page.getByTestId('projector-code').getByTestId('join-reach')).toContainText('Only this computer can join');
  } finally {
    await server.stop();
  }
});
