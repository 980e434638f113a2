/**
 * axe-core scans run in the page itself. `@axe-core/playwright` evaluates the 600 KB axe script in
 * the page on every scan (twice) and finishes every scan in a fresh blank page, so each scan
 * started a renderer: seconds per scan on two shared cores, for screens scanned ~60 times a run.
 * Here the script is evaluated once per document and each scan is one `axe.run` where the DOM is.
 * The pages under test have no iframes; a page that has one fails the scan rather than leaving
 * the frame unscanned.
 */
import type { Page } from '@playwright/test';
import axe from 'axe-core';
import type { AxeResults, RunOptions } from 'axe-core';

type WithAxe = { axe?: typeof axe };

/** WCAG 2.x A and AA, by axe's tags. */
export const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export interface AxeScan {
  /** axe's tags to run (`runOnly` by tag), or */
  tags?: string[];
  /** axe's rule ids to run (`runOnly` by rule). */
  rules?: string[];
  /** Rules switched on beside the tags (e.g. `region`, a best practice). */
  enable?: string[];
  /** A CSS selector: only this part of the page is scanned. */
  include?: string;
}

export async function axeScan(page: Page, scan: AxeScan): Promise<AxeResults> {
  if (page.frames().length > 1) throw new Error(`axeScan scans one document; this page has ${page.frames().length} frames`);
  const loaded = await page.evaluate(() => typeof (window as unknown as WithAxe).axe?.run === 'function');
  if (!loaded) await page.evaluate(axe.source);
  const options: RunOptions = {
    runOnly: scan.rules ? { type: 'rule', values: scan.rules } : { type: 'tag', values: scan.tags ?? WCAG_AA },
    ...(scan.enable ? { rules: Object.fromEntries(scan.enable.map((id) => [id, { enabled: true }])) } : {}),
    // Nodes are listed for violations only: the passes' node lists are large and never read.
    resultTypes: ['violations'],
  };
  return page.evaluate(
    ([include, opts]) => {
      const run = (window as unknown as WithAxe).axe!.run;
      return include ? run({ include: [[include]] } as never, opts) : run(document, opts);
    },
    [scan.include ?? null, options] as const,
  );
}
