// The browser suites need a Chromium: Debian's (/usr/bin/chromium, or CHROMIUM_PATH) when the
// machine has one, else Playwright's own, downloaded here on first use.
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { chromium } from '@playwright/test';

const system = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (existsSync(system)) {
  console.log(`browser: ${system}`);
} else if (existsSync(chromium.executablePath())) {
  console.log(`browser: ${chromium.executablePath()}`);
} else {
  console.log('browser: installing Playwright chromium');
  execSync('npx playwright install chromium', { stdio: 'inherit' });
}
