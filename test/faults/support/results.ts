/**
 * Each fault test reports its figures here as well as asserting them: one JSON file per row under
 * fault-results/ (git-ignored), gathered into docs/reliability.md's table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './serverProcess.ts';

export type Figures = Record<string, number | string | boolean>;

export function reportFigures(row: string, figures: Figures): void {
  const dir = join(repoRoot, 'fault-results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${row.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.json`);
  writeFileSync(file, `${JSON.stringify({ row, at: new Date().toISOString(), figures }, null, 2)}\n`);
  console.log(`[faults] ${row}: ${Object.entries(figures).map(([k, v]) => `${k} = ${String(v)}`).join(', ')}`);
}
