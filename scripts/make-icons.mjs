/**
 * Draws the installable app's icons (apps/web/public/icons) from the app's own mark, the same
 * drawing as the favicon and the start page's logo: a rounded square with a pen's wave. Run once
 * after changing the mark (`node scripts/make-icons.mjs`); the PNGs are committed. The maskable
 * icon is a full-bleed square with the wave inside the central safe zone (80 %), as launchers crop it.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from '@playwright/test';
import { testBrowserPath } from './test-browser.mjs';

const out = resolve(import.meta.dirname, '../apps/web/public/icons');
const WAVE = '<path d="M8 21c4-9 8-9 8-3s4 6 8-5" stroke="white" stroke-width="3" fill="none" stroke-linecap="round"/>';
const icons = [
  { name: 'icon-192.png', size: 192, svg: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#264de4"/>${WAVE}</svg>` },
  { name: 'icon-512.png', size: 512, svg: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#264de4"/>${WAVE}</svg>` },
  // Maskable: no rounding of its own, the wave scaled to 70 % around the centre.
  { name: 'icon-maskable-512.png', size: 512, svg: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" fill="#264de4"/><g transform="translate(16 16) scale(0.7) translate(-16 -16)">${WAVE}</g></svg>` },
];

const executablePath = testBrowserPath();
const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: ['--no-sandbox'] });
try {
  for (const icon of icons) {
    const page = await browser.newPage({ viewport: { width: icon.size, height: icon.size } });
    await page.setContent(`<style>html,body{margin:0;background:transparent}svg{display:block;width:${icon.size}px;height:${icon.size}px}</style>${icon.svg}`);
    writeFileSync(resolve(out, icon.name), await page.screenshot({ omitBackground: true }));
    await page.close();
  }
} finally {
  await browser.close();
}
