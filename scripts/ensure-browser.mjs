// The browser suites need a Chromium: the one test-browser.mjs picks (CHROMIUM_PATH, Debian's
// headless shell or Debian's chromium) when the machine has one, else Playwright's own,
// downloaded here on first use.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { testBrowserPath } from './test-browser.mjs';

const system = testBrowserPath();
if (system && existsSync(system)) {
  console.log(`browser: ${system}`);
} else if (existsSync(chromium.executablePath())) {
  console.log(`browser: ${chromium.executablePath()}`);
} else {
  console.log('browser: installing Playwright chromium');
  execSync('npx playwright install chromium', { stdio: 'inherit' });
}
