// Which Chromium the browser tests drive, for playwright.config.ts and ensure-browser.mjs.
//
// CHROMIUM_PATH when set; else Debian's headless shell (`chromium-headless-shell`, Chromium's old
// headless mode: no GPU process, no window-system services) when the machine has it, which costs
// about a third of the CPU of full Chromium per page (4 pages of the start screen: 2.4 s against
// 7.8-9.3 s; the whole browser suite: ~375 s against ~700 s) with the same Blink and V8; else
// Debian's full `chromium`; else null (Playwright's own, installed by ensure-browser.mjs). The
// screenshots and the render and grid benches keep full Chromium: they show or time what a
// person's browser does.
import { existsSync } from 'node:fs';

export const TEST_BROWSER_CANDIDATES = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];

/** @returns {string | null} */
export function testBrowserPath(env = process.env) {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  return TEST_BROWSER_CANDIDATES.find((path) => existsSync(path)) ?? null;
}
